//! The `gsb` profile: Google Safe Browsing URL canonicalization as Google publishes it ("URLs
//! and Hashing", Safe Browsing API v4 `#canonicalization`, whose examples the profile passes,
//! and the v5 reference, which adds IPv6 hosts): `scheme://host/path?query`, with the
//! fragment, the user information and the port dropped. Every rule is in
//! `docs/profiles/gsb.md`.
//!
//! Where Google's text leaves a rule open, the profile reads the URL as the Go client
//! google/safebrowsing does (`parseURL` in `urls.go` at
//! bbf0d20d26b32d99fd21664677fe31ee9f0f66e3, Apache-2.0): its internal `canonicalURL` drops the
//! query, which its lookups add back, and writes lower-case hex; the profile keeps the query
//! (v4 examples `http://www.google.com/q?r?s`, `http://evil.com/foo?bar;`) and writes upper-case
//! hex ("The escapes should use uppercase hex characters").
//!
//! The percent-encoding rules are shared with the `surt-ia` profile, whose
//! `GoogleURLCanonicalizer` is a Python port of the same rules ([`escape`]); Punycode is the one
//! of every profile ([`punycode`], in `idna2003`).

pub(super) mod escape;

use super::Reject;
use super::idna2003::punycode;
use escape::{escape_into, has_escape, needs_escape, pct_at, unescape_repeatedly};
use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The text reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "Safe Browsing URLs and Hashing v4/v5+1";

/// Go's `recursiveUnescape` gives up after this many rounds.
const MAX_UNESCAPE_ROUNDS: usize = 1023;

/// Safe Browsing canonicalization of `input`: `scheme://host`, the cleaned path, and `?` and
/// the query when the input has a `?` (v4 "URLs and Hashing", Canonicalization).
pub(super) fn canonicalize(input: &[u8], out: &mut String) -> Result<(), Reject> {
    let mut buf = Vec::with_capacity(input.len() + 8);
    canonical_url(input, &mut buf)?;
    // Every byte the rules leave raw is ASCII, save what Punycode writes (also ASCII).
    match std::str::from_utf8(&buf) {
        Ok(s) => {
            out.push_str(s);
            Ok(())
        }
        Err(_) => Err(Reject::new("the key is not UTF-8", None)),
    }
}

/// Go's `strings.TrimSpace`: Unicode White_Space at both ends (an invalid byte stops it).
fn trim_space(s: &[u8]) -> &[u8] {
    fn space_at_start(s: &[u8]) -> usize {
        match s {
            [b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ', ..] => 1,
            [0xC2, 0x85 | 0xA0, ..] => 2,
            [0xE1, 0x9A, 0x80, ..] => 3,
            [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..] => 3,
            [0xE2, 0x81, 0x9F, ..] | [0xE3, 0x80, 0x80, ..] => 3,
            _ => 0,
        }
    }
    fn space_at_end(s: &[u8]) -> usize {
        match s {
            [.., b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '] => 1,
            [.., 0xC2, 0x85 | 0xA0] => 2,
            [.., 0xE1, 0x9A, 0x80] => 3,
            [.., 0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF] => 3,
            [.., 0xE2, 0x81, 0x9F] | [.., 0xE3, 0x80, 0x80] => 3,
            _ => 0,
        }
    }
    let mut s = s;
    loop {
        let n = space_at_start(s);
        if n == 0 {
            break;
        }
        s = &s[n..];
    }
    loop {
        let n = space_at_end(s);
        if n == 0 {
            break;
        }
        s = &s[..s.len() - n];
    }
    s
}

/// Go `parseURL`, then the URL written whole (`canonicalURL` with the query), into `out`.
fn canonical_url(input: &[u8], out: &mut Vec<u8>) -> Result<(), Reject> {
    // The fragment goes first, then white space at the ends, then tabs and line breaks.
    let rest = match memchr::memchr(b'#', input) {
        Some(i) => &input[..i],
        None => input,
    };
    let rest = trim_space(rest);
    let rest: Cow<[u8]> = if rest.iter().any(|&b| matches!(b, b'\t' | b'\r' | b'\n')) {
        Cow::Owned(
            rest.iter()
                .copied()
                .filter(|b| !matches!(b, b'\t' | b'\r' | b'\n'))
                .collect(),
        )
    } else {
        Cow::Borrowed(rest)
    };
    // normalizeEscape: decode until stable, then encode once, in upper-case hex (v4: "The
    // escapes should use uppercase hex characters"; Go writes lower case).
    let rest: Cow<[u8]> = if has_escape(&rest) {
        let mut buf = rest.into_owned();
        let mut scratch = Vec::with_capacity(buf.len());
        unescape_repeatedly(&mut buf, &mut scratch, Some(MAX_UNESCAPE_ROUNDS))
            .ok_or(Reject::new("unescaping is too recursive", None))?;
        scratch.clear();
        escape_into(&buf, &mut scratch);
        Cow::Owned(scratch)
    } else if rest.iter().any(|&b| needs_escape(b)) {
        let mut buf = Vec::with_capacity(rest.len() + 8);
        escape_into(&rest, &mut buf);
        Cow::Owned(buf)
    } else {
        rest
    };
    let (scheme, rest) = get_scheme(&rest);
    // The query: from the first `?` on, kept as it is once escaped (v4: the path rules "should
    // not be applied to the query parameters"; `q?` keeps its empty query).
    let (rest, query) = match memchr::memchr(b'?', rest) {
        Some(i) => (&rest[..i], Some(&rest[i..])),
        None => (rest, None),
    };
    let (scheme, hostish, path) = match scheme {
        Some(s) => {
            let Some(r) = rest.strip_prefix(b"//") else {
                return Err(Reject::new("invalid path", None));
            };
            let (h, p) = split_slash(r);
            (s, h, p)
        }
        None => {
            let (h, p) = split_slash(rest);
            (&b"http"[..], h, p)
        }
    };
    if hostish.is_empty() {
        return Err(Reject::new("missing hostname", None));
    }
    out.extend_from_slice(scheme);
    out.extend_from_slice(b"://");
    parse_host(hostish, out)?;
    clean_path(path, out);
    if let Some(q) = query {
        out.extend_from_slice(q);
    }
    Ok(())
}

/// Go `getScheme`: the scheme before the first `:` if every byte before it is a scheme byte
/// (the first a letter), and what follows the `:`.
fn get_scheme(s: &[u8]) -> (Option<&[u8]>, &[u8]) {
    for (i, &c) in s.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return (None, &s[1..]),
            b':' => return (Some(&s[..i]), &s[i + 1..]),
            _ => return (None, s),
        }
    }
    (None, s)
}

/// Go `split(s, "/", false)`: before the first `/`, and from it on.
fn split_slash(s: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'/', s) {
        Some(i) => s.split_at(i),
        None => (s, &[]),
    }
}

/// Go `parseHost`: drops the user information and the port, maps a host with non-ASCII bytes
/// through `idna.ToASCII`, collapses dots, reads IPv4 forms, lower-cases; and, as the v5 text
/// adds, writes a bracketed IPv6 address in its shortest form.
fn parse_host(hostish: &[u8], out: &mut Vec<u8>) -> Result<(), Reject> {
    let host = match memchr::memrchr(b'@', hostish) {
        Some(i) => &hostish[i + 1..],
        None => hostish,
    };
    if host.first() == Some(&b'[') && memchr::memrchr(b']', host).is_none() {
        return Err(Reject::new("missing ']' in host", None));
    }
    // `:\d+$`
    let digits = host.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let host = if digits > 0 && host.len() > digits && host[host.len() - digits - 1] == b':' {
        &host[..host.len() - digits - 1]
    } else {
        host
    };
    let host: Cow<[u8]> = if decodes_above_0x80(host) {
        let mut u = Vec::with_capacity(host.len());
        escape::unescape_once(host, &mut u);
        Cow::Owned(to_ascii(&u)?)
    } else {
        Cow::Borrowed(host)
    };
    // `[.]+` -> `.`, then trim dots.
    let start = out.len();
    let mut prev_dot = false;
    for &b in host.iter() {
        if b == b'.' {
            if !prev_dot {
                out.push(b'.');
            }
            prev_dot = true;
        } else {
            out.push(b);
            prev_dot = false;
        }
    }
    if out.last() == Some(&b'.') {
        out.pop();
    }
    if out.get(start) == Some(&b'.') {
        out.remove(start);
    }
    let mut ip = [0u8; 15];
    if let Some(v6) = parse_ipv6(&out[start..]) {
        out.truncate(start);
        write_ipv6(v6, out);
    } else if let Some(n) = parse_ip_address(&out[start..], &mut ip) {
        out.truncate(start);
        out.extend_from_slice(&ip[..n]);
    } else {
        lowercase_keeping_escapes(&mut out[start..]);
    }
    Ok(())
}

/// "Lowercase the whole string" (the host) before the escaping that comes last in Google's
/// text, so an escape of the host keeps its upper-case hex (`some%1Bhost.com`; Go, which
/// escapes first, writes `some%1bhost.com`).
fn lowercase_keeping_escapes(host: &mut [u8]) {
    host.make_ascii_lowercase();
    let mut i = 0;
    while i < host.len() {
        if pct_at(host, i).is_some() {
            host[i + 1..i + 3].make_ascii_uppercase();
            i += 3;
        } else {
            i += 1;
        }
    }
}

/// Go `isUnicode(unescape(host))`: whether a byte above 0x80 appears once `%XX` is decoded.
fn decodes_above_0x80(host: &[u8]) -> bool {
    let mut i = 0;
    while i < host.len() {
        let (b, n) = pct_at(host, i).map_or((host[i], 1), |b| (b, 3));
        if b > 0x80 {
            return true;
        }
        i += n;
    }
    false
}

/// Go `idna.ToASCII` (the `Punycode` profile of x/net/idna: no mapping, no validation): a label
/// that starts `xn--` is decoded (an error rejects the URL), and a label that is not ASCII is
/// encoded. Labels are split at `.` only.
fn to_ascii(u: &[u8]) -> Result<Vec<u8>, Reject> {
    let puny = || Reject::new("idna: invalid label (punycode)", None);
    let mut out = Vec::with_capacity(u.len() + 8);
    let mut cps = Vec::new();
    for (n, label) in u.split(|&b| b == b'.').enumerate() {
        if n > 0 {
            out.push(b'.');
        }
        cps.clear();
        match label.strip_prefix(b"xn--") {
            Some(enc) => cps = punycode::decode(enc).ok_or_else(puny)?,
            None if label.is_ascii() => {
                out.extend_from_slice(label);
                continue;
            }
            None => cps.extend(punycode::runes(label)),
        }
        if cps.iter().all(|&c| c < 0x80) {
            out.extend(cps.iter().map(|&c| c as u8));
        } else {
            out.extend_from_slice(b"xn--");
            punycode::encode(&cps, &mut out).ok_or_else(puny)?;
        }
    }
    Ok(out)
}

/// The address of a host `[...]` that parses as IPv6 (no zone).
fn parse_ipv6(host: &[u8]) -> Option<Ipv6Addr> {
    let inner = host.strip_prefix(b"[")?.strip_suffix(b"]")?;
    std::str::from_utf8(inner).ok()?.parse().ok()
}

/// v5 "URLs and Hashing", hostname rule 4: an IPv4-mapped address (`::ffff:0:0/96`) and a NAT64
/// address of the well-known prefix (`64:ff9b::/96`, RFC 6052 2.1) become their IPv4 address;
/// any other is written bracketed, with no leading zeros and the longest run of zero groups as
/// `::` (RFC 5952 4, as `Ipv6Addr`'s `Display` writes it).
fn write_ipv6(a: Ipv6Addr, out: &mut Vec<u8>) {
    use std::io::Write;
    let s = a.segments();
    let v4 = match s {
        [0, 0, 0, 0, 0, 0xffff, ..] | [0x64, 0xff9b, 0, 0, 0, 0, ..] => {
            Some(Ipv4Addr::from_bits(a.to_bits() as u32))
        }
        _ => None,
    };
    // writing to a Vec does not fail
    let _ = match v4 {
        Some(v4) => write!(out, "{v4}"),
        None => write!(out, "[{a}]"),
    };
}

/// Go `parseIPAddress`: the dotted-decimal form of a host made of 1 to 4 numbers (decimal,
/// `0` octal or `0x` hex; the last fills the remaining bytes), written into `buf`; its length.
fn parse_ip_address(host: &[u8], buf: &mut [u8; 15]) -> Option<usize> {
    let mut host = host;
    // The Windows resolver's "10.192.95.89 xy" (only within 15 bytes).
    if host.len() <= 15
        && let Some(sp) = memchr::memchr(b' ', host)
        && dotted_quad_shape(&host[..sp])
    {
        host = &host[..sp];
    }
    if !possible_ip(host) {
        return None;
    }
    let parts = host.split(|&b| b == b'.').count();
    if parts > 4 {
        return None;
    }
    let mut bytes = [0u8; 4];
    let mut k = 0;
    for (i, part) in host.split(|&b| b == b'.').enumerate() {
        let n = if i == parts - 1 { 5 - parts } else { 1 };
        let v = parse_uint_base0(part)?;
        for j in (0..n).rev() {
            bytes[k] = (v >> (8 * j)) as u8;
            k += 1;
        }
    }
    let mut len = 0;
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            buf[len] = b'.';
            len += 1;
        }
        let s = [b / 100, b / 10 % 10, b % 10];
        let skip = if *b >= 100 {
            0
        } else if *b >= 10 {
            1
        } else {
            2
        };
        for d in &s[skip..] {
            buf[len] = b'0' + d;
            len += 1;
        }
    }
    Some(len)
}

/// `^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`.
fn dotted_quad_shape(s: &[u8]) -> bool {
    let mut n = 0;
    for part in s.split(|&b| b == b'.') {
        n += 1;
        if part.is_empty() || part.len() > 3 || !part.iter().all(u8::is_ascii_digit) {
            return false;
        }
    }
    n == 4
}

/// Go's `^(?i)((?:0x[0-9a-f]+|[0-9\.])+)$`, as a small automaton.
fn possible_ip(s: &[u8]) -> bool {
    // States: at a boundary (accepting), after a `0` that may open `0x`, after `0x`, and
    // inside hex digits (accepting, and a boundary).
    let (mut boundary, mut zero, mut x, mut hex) = (true, false, false, false);
    if s.is_empty() {
        return false;
    }
    for &c in s {
        let at_boundary = boundary || hex;
        let nb = at_boundary && (c.is_ascii_digit() || c == b'.');
        let nz = at_boundary && c == b'0';
        let nx = zero && (c == b'x' || c == b'X');
        let nh = (x || hex) && c.is_ascii_hexdigit();
        (boundary, zero, x, hex) = (nb, nz, nx, nh);
        if !(boundary || zero || x || hex) {
            return false;
        }
    }
    boundary || hex
}

/// Go `strconv.ParseUint(s, 0, 32)` for the digits `possible_ip` lets through.
fn parse_uint_base0(s: &[u8]) -> Option<u32> {
    let (digits, radix) = match s {
        [b'0', b'x' | b'X', rest @ ..] => (rest, 16),
        [b'0', rest @ ..] if !rest.is_empty() => (rest, 8),
        _ => (s, 10),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u32 = 0;
    for &d in digits {
        let d = char::from(d).to_digit(radix)?;
        v = v.checked_mul(radix)?.checked_add(d)?;
    }
    Some(v)
}

/// Go `path.Clean` of the path (which starts with `/` or is empty), `/` for an empty result,
/// and the trailing `/` of the input kept.
fn clean_path(path: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    for seg in path.split(|&b| b == b'/') {
        match seg {
            b"" | b"." => {}
            b".." => {
                let cut = out[start..]
                    .iter()
                    .rposition(|&b| b == b'/')
                    .map_or(start, |i| start + i);
                out.truncate(cut);
            }
            _ => {
                out.push(b'/');
                out.extend_from_slice(seg);
            }
        }
    }
    if out.len() == start || path.last() == Some(&b'/') {
        out.push(b'/');
    }
}

#[cfg(test)]
mod tests;

//! The host steps of urlcanon 0.3.1 `semantic_precise`: `reparse_host` and
//! `normalize_ip_address` (with Python's `int()` and `ipaddress`), `fix_host_dots`, and
//! `punycode_special_host` (idna 3.20's `encode(uts46=True)`, falling back to
//! `uts46_remap` plus Python's IDNA 2003 `encodings.idna.ToASCII`).

use super::super::Reject;
use super::text::Bytes;
use crate::python_ip;
use std::borrow::Cow;

/// The host after `reparse_host`, `normalize_ip_address`, `fix_host_dots` and
/// `punycode_special_host` (not yet %-encoded). The one error is urlcanon's one exception:
/// `ipaddress.IPv4Address` raises on the negative number that `parse_ipv4` lets through
/// (`http://-1/`).
pub(super) fn canonicalize(host: Bytes<'_>, special: bool) -> Result<Bytes<'_>, Reject> {
    let n = host.len();
    let host = if n >= 2 && host[0] == b'[' && host[n - 1] == b']' {
        match parse_ipv6(&host[1..n - 1]) {
            Some(v) => {
                let mut s = String::with_capacity(41);
                s.push('[');
                write_ipv6(&mut s, v);
                s.push(']');
                Cow::Owned(s.into_bytes())
            }
            None => host,
        }
    } else {
        match parse_ipv4(&host) {
            Some(v) if v < 0 => {
                return Err(Reject::new(
                    "a negative number is not permitted as an IPv4 address (ipaddress.IPv4Address raises)",
                    None,
                ));
            }
            Some(v) => {
                let [a, b, c, d] = u32::try_from(v).unwrap_or(0).to_be_bytes();
                Cow::Owned(format!("{a}.{b}.{c}.{d}").into_bytes())
            }
            None => host,
        }
    };
    let host = fix_dots(host);
    if host.is_empty() || !special {
        return Ok(host);
    }
    Ok(match punycode(&host) {
        Some(Cow::Owned(s)) => Cow::Owned(s.into_bytes()),
        _ => host,
    })
}

/// canon.py `fix_host_dots`: `^\.+` and `\.+$` removed, then runs of dots made one. Python's
/// `$` also matches before a final newline (a decoded `%0A`), so `a..\n` loses its dots.
fn fix_dots(host: Bytes<'_>) -> Bytes<'_> {
    let body = host.strip_suffix(b"\n").unwrap_or(&host);
    let clean = !host.starts_with(b".")
        && !body.ends_with(b".")
        && memchr::memmem::find(&host, b"..").is_none();
    if clean {
        return host;
    }
    let lead = host.iter().take_while(|b| **b == b'.').count();
    let rest = &host[lead..];
    let (body, newline) = match rest.strip_suffix(b"\n") {
        Some(b) => (b, true),
        None => (rest, false),
    };
    let trail = body.iter().rev().take_while(|b| **b == b'.').count();
    let body = &body[..body.len() - trail];
    let mut v = Vec::with_capacity(host.len());
    for &b in body {
        if !(b == b'.' && v.last() == Some(&b'.')) {
            v.push(b);
        }
    }
    if newline {
        v.push(b'\n');
    }
    Cow::Owned(v)
}

/// A bound on the numbers [`py_int`] tracks: anything larger fails every range check the same
/// way (it keeps its sign, which decides between "not an address" and the exception).
const BIG: i128 = 1 << 100;

/// Python's `int(s, base)` on bytes (base 8, 10 or 16): ASCII whitespace around, a sign, the
/// `0x`/`0o` prefix of the base, digits with single underscores between them (and after the
/// prefix). Values are clamped to ±[`BIG`]; a decimal string over 4300 digits fails (CPython's
/// `int_max_str_digits`).
fn py_int(s: &[u8], base: u32) -> Option<i128> {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let start = s.iter().position(|b| !ws(b))?;
    let end = s.iter().rposition(|b| !ws(b))? + 1;
    let mut s = &s[start..end];
    let neg = s.first() == Some(&b'-');
    if matches!(s.first(), Some(b'-' | b'+')) {
        s = &s[1..];
    }
    let mut underscore_ok = false;
    if s.len() >= 2 && s[0] == b'0' {
        let p = s[1].to_ascii_lowercase();
        if (base == 16 && p == b'x') || (base == 8 && p == b'o') {
            s = &s[2..];
            underscore_ok = true;
        }
    }
    // `digit (_? digit)*`, and one `_` may follow the prefix.
    let (mut v, mut digits, mut prev_digit) = (0i128, 0usize, false);
    for (i, &b) in s.iter().enumerate() {
        if b == b'_' {
            if !(prev_digit || (i == 0 && underscore_ok)) {
                return None;
            }
            prev_digit = false;
            continue;
        }
        let d = char::from(b).to_digit(base)?;
        v = (v * i128::from(base) + i128::from(d)).min(BIG);
        digits += 1;
        prev_digit = true;
    }
    if digits == 0 || !prev_digit || (base == 10 && digits > 4300) {
        return None;
    }
    Some(if neg { -v } else { v })
}

/// parse.py `parse_ipv4._parse_num`: `0x` hex, leading `0` octal, empty is 0, else decimal.
fn parse_num(s: &[u8]) -> Option<i128> {
    if s.len() >= 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') {
        if s.len() >= 3 {
            py_int(&s[2..], 16)
        } else {
            Some(0)
        }
    } else if s.len() >= 2 && s[0] == b'0' {
        py_int(&s[1..], 8)
    } else if s.is_empty() {
        Some(0)
    } else {
        py_int(s, 10)
    }
}

/// parse.py `parse_ipv4`: one to four dot-separated numbers (one trailing empty part
/// dropped; other empty parts are 0), WHATWG-style ranges checked on all parts but the first,
/// the whole under 2**32. Python's `int()` lets signs, whitespace and underscores through, so
/// the result can be negative.
fn parse_ipv4(host: &[u8]) -> Option<i128> {
    // `b''.split(b'.')` is `[b'']`, popped to no part at all; `b'.'` leaves one empty part.
    if host.is_empty() {
        return None;
    }
    let mut parts = [&b""[..]; 4];
    let mut n = 0;
    let host = host.strip_suffix(b".").unwrap_or(host);
    for p in host.split(|b| *b == b'.') {
        if n == 4 {
            return None;
        }
        parts[n] = p;
        n += 1;
    }
    let p = |i: usize| parse_num(parts[i]);
    let v = match n {
        1 => p(0)?,
        2 => {
            let p1 = p(1)?;
            if p1 >= 1 << 24 {
                return None;
            }
            p(0)? * (1 << 24) + p1
        }
        3 => {
            let (p1, p2) = (p(1)?, p(2)?);
            if p1 >= 256 || p2 >= 1 << 16 {
                return None;
            }
            p(0)? * (1 << 24) + p1 * (1 << 16) + p2
        }
        _ => {
            let (p1, p2, p3) = (p(1)?, p(2)?, p(3)?);
            if p1 >= 256 || p2 >= 256 || p3 >= 256 {
                return None;
            }
            p(0)? * (1 << 24) + p1 * (1 << 16) + p2 * (1 << 8) + p3
        }
    };
    (v < 1 << 32).then_some(v)
}

/// `ipaddress.IPv6Address(text)` of Python 3.11 as a number (the scope id allowed and
/// dropped); urlcanon decodes the host as UTF-8 first, and a host that is not is no address.
fn parse_ipv6(text: &[u8]) -> Option<u128> {
    let text = std::str::from_utf8(text).ok()?;
    python_ip::parse_ipv6(text).map(|(v, _scope)| v)
}

/// `str(ipaddress.IPv6Address(v))` without a scope.
fn write_ipv6(out: &mut String, v: u128) {
    python_ip::push_ipv6(v, None, out);
}

/// canon.py `punycode_special_host`: `Some` new host, `None` where both tries raise and the
/// host is left as it is. Python reads the host as UTF-8 (strictly) in both tries.
fn punycode(host: &[u8]) -> Option<Cow<'_, str>> {
    let s = std::str::from_utf8(host).ok()?;
    if s.is_ascii() {
        // idna 3.20 `uts46_remap` of ASCII is `lower()`. `encode` then succeeds on LDH labels
        // of 1-63 octets; where it fails, the fallback's `uts46_remap` (std3_rules=True) fails
        // on any other ASCII character, and `ToASCII` on an empty label or one over 63 octets.
        // Either way: lower-cased when every character is [a-z0-9.-] and every label 1-63
        // octets, else unchanged. Over 1024 characters, both raise "Domain too long".
        let ok = s.len() <= 1024
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            && s.split('.').all(|l| (1..=63).contains(&l.len()));
        return if !ok {
            None
        } else if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Some(Cow::Owned(s.to_ascii_lowercase()))
        } else {
            Some(Cow::Borrowed(s))
        };
    }
    super::idn::non_ascii(s).map(Cow::Owned)
}

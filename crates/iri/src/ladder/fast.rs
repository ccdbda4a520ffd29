//! The fast path: decides, in one scan and without allocating, that a reference is already its
//! own key. It may answer `false` for a normal reference (then the general path computes the
//! same text); it must never answer `true` for one that the general path would change. The
//! unit tests check the second point on every vector input and on generated IRIs.

use super::Rung;
use super::host::plain_host;
use super::pct::{hex_val, is_unreserved};
use super::swar::{eq_mask, has_byte, word};
use crate::parse::{IriRef, parse_ipv6};
use crate::scheme_table::{HTTP, HTTPS, SchemeInfo, table_row};

/// True when `iri` is its own `uri` key at `rung` (>= syntax), without redirects. Covered:
/// ASCII references whose `%HH` are uppercase and not unreserved (with `nfc`: and < 0x80),
/// with a lowercase scheme, a lowercase host without `%` (and, for DNS schemes from the scheme
/// rung up, without an `xn--` label, which IDNA would have to check), no dot segment where
/// they are removed; from the scheme rung up also: no empty, zero-led or default port, a
/// non-empty path under an authority for table schemes, IPv6 in RFC 5952 form, no `file` form
/// that the scheme rung rewrites; at the protocol rung, no fragment and no rules.
pub(super) fn is_normal(iri: IriRef<&str>, rung: Rung, nfc: bool, rules: bool) -> bool {
    if rung == Rung::Protocol && (rules || iri.fragment().is_some()) {
        return false;
    }
    let scheme = iri.scheme().unwrap_or_default().as_bytes();
    if scheme.iter().any(u8::is_ascii_uppercase) {
        return false;
    }
    let b = iri.as_str().as_bytes();
    if !b.is_ascii() {
        return false;
    }
    let path = iri.spans().path();
    // One pass, eight bytes at a time: every `%HH` is normal, and no path segment is `.` or
    // `..` (the general path removes some of a relative-path reference's too; here any of them
    // sends a reference there). A dot segment starts with "/." (or is a path starting with
    // "."), so only the "/." pairs of the text are looked at.
    if b.get(path.start) == Some(&b'.') && dot_segment_in_text(b, path.start) {
        return false;
    }
    let mut i = 0;
    let mut slash_before = false;
    while i < b.len() {
        let Some(w) = word(b, i) else {
            // The tail, byte by byte.
            while i < b.len() {
                match b[i] {
                    b'%' if !triplet_ok(b, i, nfc) => return false,
                    b'.' if slash_before && path.contains(&i) && dot_segment_in_text(b, i) => {
                        return false;
                    }
                    _ => {}
                }
                slash_before = b[i] == b'/';
                i += 1;
            }
            break;
        };
        if has_byte(w, b'%') {
            // `%HH` (every `%` of an IRI starts one): check those that start in this word.
            if (i..i + 8).any(|j| b[j] == b'%' && !triplet_ok(b, j, nfc)) {
                return false;
            }
        }
        let slashes = eq_mask(w, b'/');
        let pairs = eq_mask(w, b'.') & (slashes << 8 | u64::from(slash_before) << 7);
        let mut m = pairs;
        while m != 0 {
            let j = i + (m.trailing_zeros() / 8) as usize;
            if path.contains(&j) && dot_segment_in_text(b, j) {
                return false;
            }
            m &= m - 1;
        }
        slash_before = slashes >> 63 != 0;
        i += 8;
    }
    let scheme_rung = rung >= Rung::Scheme;
    let info = if scheme_rung { table_row(scheme) } else { None };
    let file = scheme_rung && scheme == b"file";
    let path = iri.path();
    if let Some(host) = iri.host() {
        if host.starts_with('[') {
            if host.bytes().any(|b| b.is_ascii_uppercase()) {
                return false;
            }
            if scheme_rung && !ipv6_is_5952(host) {
                return false;
            }
        } else {
            let dns = info.is_some_and(|i| i.dns_host);
            if !plain_host(host.as_bytes(), dns) {
                return false;
            }
            if file && host == "localhost" {
                return false;
            }
        }
        if scheme_rung
            && !port_and_path_normal(info, iri.port().map(str::as_bytes), path.is_empty())
        {
            return false;
        }
    } else if file && path.starts_with('/') {
        return false;
    }
    true
}

/// The fused fast path, on text that has not been parsed: true when `s` is an ASCII URI of the
/// common shape `scheme://reg-name[:port][/path][?query][#fragment]` (no userinfo, no IP literal)
/// that parses (RFC 3986 3, 3987bis 2.2) and that [`is_normal`] would find normal at `rung`
/// (>= syntax). One pass over the bytes checks the grammar and the normal form together; every
/// other input answers `false` and goes to the parser and [`is_normal`], which then decide. It
/// must never answer `true` where parsing fails or [`is_normal`] answers `false` (tested on every
/// vector input, on each of their one-byte variants and on generated IRIs).
pub(super) fn is_normal_text(s: &str, rung: Rung, nfc: bool, rules: bool) -> bool {
    if rung == Rung::Protocol && rules {
        return false;
    }
    let b = s.as_bytes();
    let len = b.len();
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), lowercase (CMP 4.2.1), then "://";
    // the two schemes of most links are compared whole.
    let (scheme, info, mut i) = if b.starts_with(b"https://") {
        (&b[..5], Some(&HTTPS), 8)
    } else if b.starts_with(b"http://") {
        (&b[..4], Some(&HTTP), 7)
    } else {
        if !b.first().is_some_and(u8::is_ascii_lowercase) {
            return false;
        }
        let mut i = 1;
        while i < len && CLASS[b[i] as usize] & SCHEME_LOWER != 0 {
            i += 1;
        }
        if b.get(i..i + 3) != Some(b"://") {
            return false;
        }
        let scheme = &b[..i];
        let info = if rung >= Rung::Scheme {
            table_row(scheme)
        } else {
            None
        };
        (scheme, info, i + 3)
    };
    // ireg-name: unreserved / sub-delims, with no uppercase letter and no `%` (CMP 4.2.1).
    // A label starting with `xn--` is noted on the way (IDNA would have to check it): hyphens
    // are not in the run class, so that the run loop stays one load and one test per byte.
    let host_start = i;
    let mut xn_label = false;
    loop {
        while i < len && CLASS[b[i] as usize] & HOST_RUN != 0 {
            i += 1;
        }
        if b.get(i) != Some(&b'-') {
            break;
        }
        let label_start = i >= host_start + 2 && (i == host_start + 2 || b[i - 3] == b'.');
        xn_label |= label_start && &b[i - 2..i] == b"xn" && b.get(i + 1) == Some(&b'-');
        i += 1;
    }
    let host = &b[host_start..i];
    // port = *DIGIT
    let port = if b.get(i) == Some(&b':') {
        let start = i + 1;
        i = start;
        while i < len && b[i].is_ascii_digit() {
            i += 1;
        }
        Some(&b[start..i])
    } else {
        None
    };
    // The authority ends at the first "/", "?", "#" or the end (RFC 3986 3.2); anything else
    // here (userinfo, IP literal, `%` or uppercase in the host, non-ASCII) goes to the parser.
    if i < len && !matches!(b[i], b'/' | b'?' | b'#') {
        return false;
    }
    let path_start = i;
    // ipath-abempty: *( "/" segment ), no `.` or `..` segment (RFC 3986 5.2.4). Runs of bytes
    // the path takes as they are ("/" included, "." not) are skipped with one load each; a "."
    // right after a "/" may start a dot segment.
    while i < len {
        while i < len && CLASS[b[i] as usize] & PATH_RUN != 0 {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        if c == b'.' {
            if b[i - 1] == b'/' && dot_segment_in_text(b, i) {
                return false;
            }
            i += 1;
        } else if c == b'%' {
            if !triplet_ok(b, i, nfc) {
                return false;
            }
            i += 3;
        } else if c == b'?' || c == b'#' {
            break;
        } else {
            // A character the path does not take as it is: the parser decides.
            return false;
        }
    }
    let path_empty = i == path_start;
    // iquery and ifragment: pchar / "/" / "?"; one "#" only.
    let mut fragment = false;
    while i < len {
        while i < len && CLASS[b[i] as usize] & QUERY_RUN != 0 {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        if c == b'%' {
            if !triplet_ok(b, i, nfc) {
                return false;
            }
            i += 3;
        } else if c == b'#' && !fragment {
            fragment = true;
            i += 1;
        } else {
            return false;
        }
    }
    if fragment && rung == Rung::Protocol {
        return false;
    }
    if rung < Rung::Scheme {
        return true;
    }
    // The scheme rung (CMP 4.3), as in `is_normal`.
    let dns = info.is_some_and(|i| i.dns_host);
    if dns && xn_label {
        return false;
    }
    if scheme == b"file" && host == b"localhost" {
        return false;
    }
    port_and_path_normal(info, port, path_empty)
}

/// The scheme rung's port and path rules (CMP 4.3) hold for an authority with `port` (its
/// digits) and a path (empty or not) under a scheme with table row `info`: no empty, zero-led
/// or default port, and no empty path for a table scheme.
#[inline]
fn port_and_path_normal(info: Option<&SchemeInfo>, port: Option<&[u8]>, path_empty: bool) -> bool {
    if let Some(p) = port {
        let default = info.and_then(|i| i.default_port);
        if p.is_empty() || (p.len() > 1 && p[0] == b'0') || default.is_some_and(|d| port_is(p, d)) {
            return false;
        }
    }
    !(info.is_some() && path_empty)
}

/// Classes of [`is_normal_text`]'s single pass.
const SCHEME_LOWER: u8 = 1; // scheme characters after the first, no uppercase
const HOST_RUN: u8 = 2; // ireg-name without `%`, uppercase and "-"
const PATH_RUN: u8 = 4; // pchar without `%` and ".", and "/"
const QUERY_RUN: u8 = 8; // pchar without `%`, and "/" "?"

/// The classes of [`is_normal_text`] for every byte value (non-ASCII bytes are in none).
static CLASS: [u8; 256] = {
    use crate::chars::{COLON_AT, SCHEME, SUB_DELIM, UNRESERVED, build};
    let ascii = build();
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let v = ascii[c];
        let upper = (c as u8).is_ascii_uppercase();
        if v & SCHEME != 0 && !upper {
            t[c] |= SCHEME_LOWER;
        }
        if v & (UNRESERVED | SUB_DELIM) != 0 && !upper && c != b'-' as usize {
            t[c] |= HOST_RUN;
        }
        if v & (UNRESERVED | SUB_DELIM | COLON_AT) != 0 || c == b'/' as usize {
            t[c] |= QUERY_RUN;
            if c != b'.' as usize {
                t[c] |= PATH_RUN;
            }
        }
        if c == b'?' as usize {
            t[c] |= QUERY_RUN;
        }
        c += 1;
    }
    t
};

/// The `.` at `b[i]` begins a segment `.` or `..`, in a text where a segment ends at "/", "?",
/// "#" or the end (a path ends at the first "?" or "#", RFC 3986 3.3).
#[inline]
fn dot_segment_in_text(b: &[u8], i: usize) -> bool {
    let seg_end = |j: usize| b.get(j).is_none_or(|c| matches!(c, b'/' | b'?' | b'#'));
    seg_end(i + 1) || (b.get(i + 1) == Some(&b'.') && seg_end(i + 2))
}

/// The `%HH` at `b[i..]` has uppercase hex digits and encodes neither an unreserved character
/// nor (with `nfc`) an octet >= 0x80.
#[inline]
fn triplet_ok(b: &[u8], i: usize, nfc: bool) -> bool {
    let (Some(&h), Some(&l)) = (b.get(i + 1), b.get(i + 2)) else {
        return false;
    };
    if h.is_ascii_lowercase() || l.is_ascii_lowercase() {
        return false;
    }
    match (hex_val(h), hex_val(l)) {
        (Some(h), Some(l)) => {
            let v = h << 4 | l;
            !(is_unreserved(v) || nfc && v >= 0x80)
        }
        _ => false,
    }
}

/// `p` (digits) is the decimal number `d`.
fn port_is(p: &[u8], d: u16) -> bool {
    p.len() <= 5
        && p.iter()
            .try_fold(0u32, |v, &c| {
                c.is_ascii_digit().then(|| v * 10 + u32::from(c - b'0'))
            })
            .is_some_and(|v| v == u32::from(d))
}

/// An IPv6 literal already in RFC 5952 form (IPvFuture: true, nothing to do).
fn ipv6_is_5952(host: &str) -> bool {
    let inner = &host[1..host.len().saturating_sub(1).max(1)];
    if inner.starts_with(['v', 'V']) {
        return true;
    }
    let Some(p) = parse_ipv6(inner.as_bytes()) else {
        return false;
    };
    let mut buf = StackText::default();
    super::host::write_ipv6(&mut buf, p);
    buf.as_bytes() == Some(inner.as_bytes())
}

/// A fixed buffer for the text of an IPv6 address (at most 39 bytes), so that the check does
/// not allocate.
struct StackText {
    buf: [u8; 40],
    len: usize,
    overflow: bool,
}

impl Default for StackText {
    fn default() -> Self {
        StackText {
            buf: [0; 40],
            len: 0,
            overflow: false,
        }
    }
}

impl StackText {
    fn as_bytes(&self) -> Option<&[u8]> {
        (!self.overflow).then_some(&self.buf[..self.len])
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        match self.buf.get_mut(self.len..self.len + s.len()) {
            Some(dst) => {
                dst.copy_from_slice(s.as_bytes());
                self.len += s.len();
            }
            None => self.overflow = true,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_and_dot_checks() {
        use super::super::swar::has_upper;
        use super::*;
        assert!(!plain_host(b"a.xn--b.c", true));
        assert!(!plain_host(b"xn--b", true));
        assert!(plain_host(b"xn--b", false));
        assert!(plain_host(b"axn--b.c", true));
        assert!(!plain_host(b"a.B", false));
        assert!(!plain_host(b"abcdefgh.Bcdefgh.xn", false));
        assert!(!plain_host(b"abcdefgh%41bcdefgh", false));
        assert!(!plain_host(b"abcdefgh.xn--bcdefgh", true));
        assert!(plain_host(b"abcdefgh.xn--bcdefgh", false));
        assert!(plain_host(b"a-z.[@`{0123456789", false));
        for c in 0u8..128 {
            let w = u64::from_le_bytes([b'a', b'b', c, b'c', b'd', b'e', b'f', c]);
            let want = if c == b'/' { 1u64 << 23 | 1 << 63 } else { 0 };
            assert_eq!(eq_mask(w, b'/'), want, "{c}");
            assert_eq!(has_upper(w), c.is_ascii_uppercase(), "{c}");
            assert_eq!(has_byte(w, b'%'), c == b'%', "{c}");
        }
        let normal = |s: &str| is_normal(IriRef::parse(s).unwrap(), Rung::Syntax, false, false);
        for (p, ok) in [
            ("s:/a/./b", false),
            ("s:/a/..", false),
            ("s:.", false),
            ("s:../x", false),
            ("s:/a.b/c.", true),
            ("s:/...", true),
            ("s:/.a", true),
            ("s:", true),
            // a relative-path reference with a dot segment goes to the general path
            ("a/./b", false),
            ("../x", false),
            ("a/b.c/.d", true),
            ("s:/a?/./b", true),
            ("s:/a#/..", true),
            ("s:/abcdefg/./h", false),
            ("s:/abcdef/.", false),
            ("s:/abcdefg/..", false),
            ("s:/abcdefg/.hij", true),
            ("s:/abcdefgh%41bcdefghi", false),
            ("s:/abcdefghi%2Fbcdefgh", true),
            ("s:/abcdefg%25%41", false),
            ("s:/abcdefg%25%25%25", true),
        ] {
            assert_eq!(normal(p), ok, "{p}");
        }
    }
}

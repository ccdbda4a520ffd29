//! Host parsing and serializing (URL Standard 3.5 "Host parsing", 3.6 "Host serializing"):
//! domains through [`crate::domain_to_ascii`] in its [`IdnaProfile::Web`] profile, IPv4
//! addresses in the WHATWG number forms, IPv6 addresses, opaque hosts.

use super::WebError;
use super::percent::{self, C0_CONTROL};
use crate::host::{IdnaProfile, domain_to_ascii, forbidden_domain_byte};
use std::borrow::Cow;
use std::fmt::Write;

/// The kind of a parsed host; its serialization is in the URL's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum HostInternal {
    /// No host (URL Standard 4.1: the host is null).
    None,
    /// The empty host.
    Empty,
    /// A domain.
    Domain,
    /// An IPv4 address.
    Ipv4(u32),
    /// An IPv6 address, as its eight pieces.
    Ipv6([u16; 8]),
    /// An opaque host (of a URL that is not special).
    Opaque,
}

/// Domain byte class: an ASCII uppercase letter.
const UPPER: u8 = 1;
/// Domain byte class: a forbidden domain code point (URL Standard 3.2).
const FORBIDDEN: u8 = 2;
/// Domain byte class: `%` or a byte of a non-ASCII character (decoding or IDNA needed).
const DECODE: u8 = 4;

/// The domain byte classes.
static DOMAIN_CLASSES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_uppercase() {
            t[i] = UPPER;
        } else if b == b'%' || b >= 0x80 {
            t[i] = DECODE;
        }
        if b < 0x80 && forbidden_domain_byte(b) {
            t[i] |= FORBIDDEN;
        }
        i += 1;
    }
    t
};

/// URL Standard 3.5 "host parser" of `input` (`is_opaque` when the URL is not special); the
/// serialized host (3.6) is appended to `out`.
pub(super) fn parse_host(
    input: &str,
    is_opaque: bool,
    out: &mut String,
) -> Result<HostInternal, WebError> {
    // Step 1: an IPv6 address in brackets.
    if let Some(rest) = input.strip_prefix('[') {
        let inner = rest.strip_suffix(']').ok_or(WebError::InvalidIpv6)?;
        let pieces = crate::parse::parse_ipv6(inner.as_bytes()).ok_or(WebError::InvalidIpv6)?;
        out.push('[');
        write_ipv6(out, &pieces);
        out.push(']');
        return Ok(HostInternal::Ipv6(pieces));
    }
    // Step 2: the host of a URL that is not special.
    if is_opaque {
        return parse_opaque_host(input, out);
    }
    let start = out.len();
    let flags = input
        .bytes()
        .fold(0, |f, b| f | DOMAIN_CLASSES[usize::from(b)]);
    if flags & DECODE == 0 {
        // ASCII without `%`: steps 4-5 change nothing, and the domain parser (3.3, step 5, as
        // of whatwg/url#914) lowercases an ASCII domain whatever ToASCII says; it fails on a
        // forbidden domain code point. `domain_to_ascii` with `IdnaProfile::Web` gives the same.
        if flags & FORBIDDEN != 0 || input.is_empty() {
            return Err(WebError::InvalidHost);
        }
        out.push_str(input);
        if flags & UPPER != 0
            && let Some(d) = out.get_mut(start..)
        {
            d.make_ascii_lowercase();
        }
    } else {
        // Steps 4-5: percent-decode, then UTF-8 decode without BOM (invalid bytes become
        // U+FFFD, which the domain parser rejects).
        let decoded = String::from_utf8_lossy(&percent_decode(input.as_bytes())).into_owned();
        // Step 6: the domain parser with beStrict false (3.3).
        let ascii: Cow<'_, str> = if decoded.is_ascii() {
            Cow::Owned(decoded.to_ascii_lowercase())
        } else {
            domain_to_ascii(&decoded, IdnaProfile::Web).map_err(|_| WebError::Idna)?
        };
        // Steps 6-7 of the domain parser.
        if ascii.is_empty() || ascii.bytes().any(forbidden_domain_byte) {
            return Err(WebError::InvalidHost);
        }
        out.push_str(&ascii);
    }
    // Steps 8-9: a domain that ends in a number is an IPv4 address, or failure.
    let ascii = out.get(start..).unwrap_or_default();
    if ends_in_a_number(ascii) {
        let v4 = parse_ipv4(ascii).ok_or(WebError::InvalidIpv4)?;
        out.truncate(start);
        write_ipv4(out, v4);
        return Ok(HostInternal::Ipv4(v4));
    }
    Ok(HostInternal::Domain)
}

/// URL Standard 1.3 "percent-decode" a byte sequence.
fn percent_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if let Some(b) = crate::chars::pct_at(input, i) {
            out.push(b);
            i += 3;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    out
}

/// URL Standard 3.5 "opaque-host parser".
fn parse_opaque_host(input: &str, out: &mut String) -> Result<HostInternal, WebError> {
    if input.bytes().any(crate::host::forbidden_host_byte) {
        return Err(WebError::InvalidHost);
    }
    if input.is_empty() {
        return Ok(HostInternal::Empty);
    }
    percent::utf8_percent_encode(out, input, C0_CONTROL);
    Ok(HostInternal::Opaque)
}

/// URL Standard 3.5 "ends in a number checker".
fn ends_in_a_number(input: &str) -> bool {
    let input = input.as_bytes();
    let input = input.strip_suffix(b".").unwrap_or(input);
    let last = memchr::memrchr(b'.', input).map_or(input, |i| &input[i + 1..]);
    if !last.is_empty() && last.iter().all(u8::is_ascii_digit) {
        return true;
    }
    last.strip_prefix(b"0x")
        .or_else(|| last.strip_prefix(b"0X"))
        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
}

/// URL Standard 3.5 "IPv4 number parser": the value (saturated: any value that does not fit
/// in 64 bits is out of every range checked), or `None` for failure.
fn parse_ipv4_number(input: &str) -> Option<u64> {
    if input.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = input
        .strip_prefix("0x")
        .or_else(|| input.strip_prefix("0X"))
    {
        (h, 16)
    } else if input.len() >= 2 && input.starts_with('0') {
        (input.get(1..).unwrap_or_default(), 8)
    } else {
        (input, 10)
    };
    let mut v: u64 = 0;
    for b in digits.bytes() {
        let d = char::from(b).to_digit(radix)?;
        v = v
            .saturating_mul(u64::from(radix))
            .saturating_add(u64::from(d));
    }
    Some(v)
}

/// URL Standard 3.5 "IPv4 parser".
fn parse_ipv4(input: &str) -> Option<u32> {
    // Step 2: a last part that is empty is dropped (when it is not the only one).
    let input = input.strip_suffix('.').unwrap_or(input);
    let mut numbers = [0u64; 4];
    let mut n = 0;
    for part in input.split('.') {
        // Step 4: more than four parts.
        let slot = numbers.get_mut(n)?;
        *slot = parse_ipv4_number(part)?;
        n += 1;
    }
    let (last, init) = numbers[..n].split_last()?;
    if init.iter().any(|&x| x > 255) {
        return None;
    }
    // Step 9: the last number fills the remaining bytes.
    let limit = 1u64 << (8 * (5 - n));
    if *last >= limit {
        return None;
    }
    let mut ipv4 = *last;
    for (counter, &x) in init.iter().enumerate() {
        ipv4 += x << (8 * (3 - counter));
    }
    u32::try_from(ipv4).ok()
}

/// URL Standard 3.6 "IPv4 serializer".
fn write_ipv4(out: &mut String, v4: u32) {
    let [a, b, c, d] = v4.to_be_bytes();
    for (i, x) in [a, b, c, d].into_iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        percent::push_decimal(out, u32::from(x));
    }
}

/// URL Standard 3.6 "IPv6 serializer" (without the brackets): the first longest run of two or
/// more zero pieces is written `::`, the pieces in lowercase hex without leading zeros.
pub(super) fn write_ipv6(out: &mut String, pieces: &[u16; 8]) {
    // "find the IPv6 address compressed piece index"
    let (mut longest, mut longest_size) = (None, 1);
    let (mut found, mut found_size) = (None, 0);
    for (i, &p) in pieces.iter().enumerate() {
        if p != 0 {
            if found_size > longest_size {
                (longest, longest_size) = (found, found_size);
            }
            (found, found_size) = (None, 0);
        } else {
            if found.is_none() {
                found = Some(i);
            }
            found_size += 1;
        }
    }
    let compress = if found_size > longest_size {
        found
    } else {
        longest
    };
    let mut ignore0 = false;
    for (i, &p) in pieces.iter().enumerate() {
        if ignore0 && p == 0 {
            continue;
        }
        ignore0 = false;
        if compress == Some(i) {
            out.push_str(if i == 0 { "::" } else { ":" });
            ignore0 = true;
            continue;
        }
        let _ = write!(out, "{p:x}");
        if i != 7 {
            out.push(':');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(input: &str, opaque: bool) -> Result<(String, HostInternal), WebError> {
        let mut out = String::new();
        parse_host(input, opaque, &mut out).map(|h| (out, h))
    }

    /// The host parsing examples of URL Standard 3 ("A parse-serialize roundtrip").
    #[test]
    fn standard_examples() {
        let rows: &[(&str, Option<&str>, Option<&str>)] = &[
            ("EXAMPLE.COM", Some("example.com"), Some("EXAMPLE.COM")),
            ("example%2Ecom", Some("example.com"), Some("example%2Ecom")),
            (
                "faß.example",
                Some("xn--fa-hia.example"),
                Some("fa%C3%9F.example"),
            ),
            ("0", Some("0.0.0.0"), Some("0")),
            ("%30", Some("0.0.0.0"), Some("%30")),
            ("0x", Some("0.0.0.0"), Some("0x")),
            ("0xffffffff", Some("255.255.255.255"), Some("0xffffffff")),
            ("[0:0::1]", Some("[::1]"), Some("[::1]")),
            ("[0:0::1%5D", None, None),
            ("[0:0::%31]", None, None),
            ("09", None, Some("09")),
            ("example.255", None, Some("example.255")),
            ("example^example", None, None),
        ];
        for &(input, domain, opaque) in rows {
            assert_eq!(
                host(input, false).ok().map(|h| h.0).as_deref(),
                domain,
                "{input}"
            );
            assert_eq!(
                host(input, true).ok().map(|h| h.0).as_deref(),
                opaque,
                "{input}"
            );
        }
    }

    #[test]
    fn ipv4_forms() {
        for (input, want) in [
            ("1.2.3.4", Some("1.2.3.4")),
            ("1.2.3.4.", Some("1.2.3.4")),
            ("0x7f.1", Some("127.0.0.1")),
            ("017700000001", Some("127.0.0.1")),
            ("1.2.65535", Some("1.2.255.255")),
            ("1.2.65536", None),
            ("256.1.1.1", None),
            ("1.2.3.4.5", None),
            ("4294967296", None),
            ("0x100000000000000000000", None),
            ("1..2", None),
        ] {
            let got = host(input, false).ok();
            assert_eq!(got.as_ref().map(|h| h.0.as_str()), want, "{input}");
            if want.is_some() {
                assert!(matches!(got.map(|h| h.1), Some(HostInternal::Ipv4(_))));
            }
        }
        assert!(!ends_in_a_number("a.b"));
        assert!(ends_in_a_number("a.0x"));
        assert!(ends_in_a_number("a.09."));
    }

    #[test]
    fn ipv6_compression() {
        let s = |p: [u16; 8]| {
            let mut out = String::new();
            write_ipv6(&mut out, &p);
            out
        };
        assert_eq!(s([0, 0xf, 0, 0, 0xf, 0xf, 0, 0]), "0:f::f:f:0:0");
        assert_eq!(s([0; 8]), "::");
        assert_eq!(s([1, 0, 1, 1, 1, 1, 1, 1]), "1:0:1:1:1:1:1:1");
        assert_eq!(s([1, 0, 0, 1, 0, 0, 0, 1]), "1:0:0:1::1");
        assert_eq!(s([1, 2, 3, 4, 5, 6, 7, 0]), "1:2:3:4:5:6:7:0");
        assert_eq!(s([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]), "::ffff:102:304");
    }
}

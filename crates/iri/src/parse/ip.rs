//! IP literals and IPv4 addresses in hosts (RFC 3986 3.2.2).

use crate::chars::{self, SUB_DELIM, UNRESERVED};

/// `IPv6address / IPvFuture`, the inside of an IP-literal.
pub(super) fn valid_ip_literal(inner: &[u8]) -> bool {
    if let Some((&v, rest)) = inner.split_first()
        && (v == b'v' || v == b'V')
    {
        // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        let hex = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        return hex > 0
            && rest.get(hex) == Some(&b'.')
            && rest.len() > hex + 1
            && rest[hex + 1..]
                .iter()
                .all(|&c| chars::is(c, UNRESERVED | SUB_DELIM) || c == b':');
    }
    parse_ipv6(inner).is_some()
}

/// Parses an `IPv6address` (RFC 3986 3.2.2) into its eight 16-bit pieces.
///
/// ```
/// assert_eq!(linksieve_iri::parse_ipv6(b"::1"), Some([0, 0, 0, 0, 0, 0, 0, 1]));
/// assert_eq!(linksieve_iri::parse_ipv6(b"::ffff:1.2.3.4"), Some([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]));
/// assert_eq!(linksieve_iri::parse_ipv6(b"1::2::3"), None);
/// ```
pub fn parse_ipv6(s: &[u8]) -> Option<[u16; 8]> {
    let mut pieces = [0u16; 8];
    let mut n = 0;
    let mut compress = None;
    let mut i = 0;
    let len = s.len();
    if s.starts_with(b"::") {
        compress = Some(0);
        i = 2;
        if i == len {
            return Some(pieces);
        }
    }
    loop {
        if n == 8 {
            return None;
        }
        let start = i;
        let mut v: u32 = 0;
        while i < len && i - start < 4 {
            match chars::hex_val(s[i]) {
                Some(d) => v = v << 4 | u32::from(d),
                None => break,
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        if i < len && s[i] == b'.' {
            // ls32 = ( h16 ":" h16 ) / IPv4address, only as the last 32 bits.
            if n > 6 {
                return None;
            }
            let [a, b2, c, d] = parse_ipv4(&s[start..])?;
            pieces[n] = u16::from(a) << 8 | u16::from(b2);
            pieces[n + 1] = u16::from(c) << 8 | u16::from(d);
            n += 2;
            break;
        }
        pieces[n] = v as u16;
        n += 1;
        if i == len {
            break;
        }
        if s[i] != b':' {
            return None;
        }
        i += 1;
        if i < len && s[i] == b':' {
            if compress.is_some() {
                return None;
            }
            compress = Some(n);
            i += 1;
            if i == len {
                break;
            }
        } else if i == len {
            return None;
        }
    }
    match compress {
        Some(c) => {
            if n == 8 {
                return None;
            }
            let tail = n - c;
            pieces.copy_within(c..n, 8 - tail);
            pieces[c..8 - tail].fill(0);
        }
        None if n != 8 => return None,
        None => {}
    }
    Some(pieces)
}

/// Parses an `IPv4address` (RFC 3986 3.2.2: four `dec-octet`s, no leading zeros).
///
/// ```
/// assert_eq!(linksieve_iri::parse_ipv4(b"192.0.2.1"), Some([192, 0, 2, 1]));
/// assert_eq!(linksieve_iri::parse_ipv4(b"192.0.2.01"), None);
/// ```
pub fn parse_ipv4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = s.split(|&c| c == b'.');
    for o in &mut out {
        let p = parts.next()?;
        if p.is_empty()
            || p.len() > 3
            || (p.len() > 1 && p[0] == b'0')
            || !p.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        let v = p.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
        *o = u8::try_from(v).ok()?;
    }
    parts.next().is_none().then_some(out)
}

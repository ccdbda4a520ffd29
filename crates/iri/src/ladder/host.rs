//! Hosts in the ladder: the plain-host check, the DNS host after IDNA, the RFC 5952 form of
//! IPv6 literals. A leaf module: the scheme rung and the fast paths both use it.

use super::pct;
use super::swar::{has_byte, has_upper, word};
use crate::host::{IdnaProfile, domain_to_ascii};
use crate::parse::parse_ipv6;

/// A reg-name host (ASCII) without uppercase letters and `%`, and (for a DNS scheme) without a
/// label starting with `xn--`, which IDNA would have to check.
#[inline]
pub(super) fn plain_host(h: &[u8], dns: bool) -> bool {
    let mut hyphen = false;
    let mut i = 0;
    while i < h.len() {
        if let Some(w) = word(h, i) {
            if has_upper(w) || has_byte(w, b'%') {
                return false;
            }
            hyphen |= has_byte(w, b'-');
            i += 8;
        } else {
            let c = h[i];
            if c.is_ascii_uppercase() || c == b'%' {
                return false;
            }
            hyphen |= c == b'-';
            i += 1;
        }
    }
    let xn = |i: usize| h.get(i..i + 4) == Some(b"xn--");
    !(dns && hyphen && (xn(0) || memchr::memchr_iter(b'.', h).any(|i| xn(i + 1))))
}

/// The host of a DNS scheme after IDNA, when it differs from `h` (see [`super::scheme_rung::normalize`]).
pub(super) fn dns_host(h: &str) -> Option<String> {
    // Lowercase ASCII without `%` or an `xn--` label: IDNA gives it back unchanged (the
    // WHATWG profile lowercases ASCII and checks only punycode labels).
    if h.is_ascii() && plain_host(h.as_bytes(), true) {
        return None;
    }
    let decoded = pct::decode_utf8(h)?;
    let ascii = domain_to_ascii(&decoded, IdnaProfile::Web).ok()?;
    let mut out = String::with_capacity(ascii.len());
    for b in ascii.bytes() {
        if pct::is_unreserved(b) || pct::is_sub_delim(b) {
            out.push(b as char);
        } else {
            pct::push_pct(&mut out, b);
        }
    }
    (out != h).then_some(out)
}

/// The RFC 5952 form of an IPv6 literal `[...]`, when it differs (IPvFuture: `None`).
pub(super) fn ipv6_5952(h: &str) -> Option<String> {
    let inner = h.strip_prefix('[')?.strip_suffix(']')?;
    let p = parse_ipv6(inner.as_bytes())?;
    let mut out = String::with_capacity(h.len());
    out.push('[');
    write_ipv6(&mut out, p);
    out.push(']');
    (out != h).then_some(out)
}

/// Writes the RFC 5952 text form of an IPv6 address.
pub(super) fn write_ipv6(out: &mut impl std::fmt::Write, p: [u16; 8]) {
    if p[..5] == [0; 5] && p[5] == 0xffff {
        // RFC 5952 5: IPv4-mapped addresses keep the dotted quad.
        let _ = write!(
            out,
            "::ffff:{}.{}.{}.{}",
            p[6] >> 8,
            p[6] & 0xff,
            p[7] >> 8,
            p[7] & 0xff
        );
        return;
    }
    // RFC 5952 4.2: the longest run of two or more zero groups, the first one on ties.
    let (mut best, mut best_len) = (8, 0);
    let mut i = 0;
    while i < 8 {
        if p[i] == 0 {
            let start = i;
            while i < 8 && p[i] == 0 {
                i += 1;
            }
            if i - start > best_len && i - start >= 2 {
                (best, best_len) = (start, i - start);
            }
        } else {
            i += 1;
        }
    }
    let mut i = 0;
    while i < 8 {
        if i == best {
            let _ = out.write_str("::");
            i += best_len;
            continue;
        }
        if i > 0 && i != best + best_len {
            let _ = out.write_char(':');
        }
        let _ = write!(out, "{:x}", p[i]);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(s: &str) -> String {
        let mut out = String::new();
        write_ipv6(&mut out, parse_ipv6(s.as_bytes()).unwrap());
        out
    }

    #[test]
    fn rfc5952_examples() {
        // RFC 5952 4.1-4.3 and 5.
        assert_eq!(v6("2001:0db8::0001"), "2001:db8::1");
        assert_eq!(v6("2001:db8:0:0:0:0:2:1"), "2001:db8::2:1");
        assert_eq!(v6("2001:db8::0:1"), "2001:db8::1");
        assert_eq!(v6("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
        assert_eq!(v6("2001:0:0:1:0:0:0:1"), "2001:0:0:1::1");
        assert_eq!(v6("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(v6("2001:DB8::AAAA"), "2001:db8::aaaa");
        assert_eq!(v6("0:0:0:0:0:ffff:c000:0201"), "::ffff:192.0.2.1");
        assert_eq!(v6("::"), "::");
        assert_eq!(v6("1::"), "1::");
        assert_eq!(v6("0:0:0:0:0:0:0:1"), "::1");
        assert_eq!(v6("::192.0.2.1"), "::c000:201");
    }

    proptest::proptest! {
        /// The shortcut of [`dns_host`] is what IDNA would do: a lowercase ASCII reg-name
        /// without `%` or an `xn--` label comes back unchanged from the WHATWG profile.
        #[test]
        fn plain_hosts_are_their_own_idna(h in "([a-z0-9._~!$&'()*+,;=-]|xn|x-){0,24}") {
            if super::plain_host(h.as_bytes(), true) {
                let a = domain_to_ascii(&h, IdnaProfile::Web);
                proptest::prop_assert_eq!(a.as_deref(), Ok(h.as_str()));
            }
        }
    }

    #[test]
    fn plain_vector_hosts_are_their_own_idna() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/normalize");
        let text = std::fs::read_to_string(dir.join("wpt-idna.jsonl")).expect("idna vectors");
        let mut n = 0;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for f in ["input", "expected"] {
                let Some(h) = v[f].as_str() else { continue };
                // Hosts of IRI keys: reg-name characters only (RFC 3986 3.2.2).
                let reg_name = h
                    .bytes()
                    .all(|b| pct::is_unreserved(b) || pct::is_sub_delim(b));
                if reg_name && super::plain_host(h.as_bytes(), true) {
                    n += 1;
                    assert_eq!(
                        domain_to_ascii(h, IdnaProfile::Web).as_deref(),
                        Ok(h),
                        "{h}"
                    );
                }
            }
        }
        assert!(n > 50, "{n}");
    }

    #[test]
    fn idna_hosts() {
        assert_eq!(
            dns_host("r%C3%A9sum%C3%A9.example").as_deref(),
            Some("xn--rsum-bpad.example")
        );
        assert_eq!(
            dns_host("R%C3%89SUM%C3%89.example").as_deref(),
            Some("xn--rsum-bpad.example")
        );
        assert_eq!(dns_host("xn--rsum-bpad.example"), None);
        assert_eq!(dns_host("example.com."), None);
        // Not UTF-8, or IDNA fails: keep the host.
        assert_eq!(dns_host("%FC.example"), None);
        assert_eq!(dns_host("a%2Fb"), None);
    }
}

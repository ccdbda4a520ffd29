//! Host names inside candidates: DNS label rules, the TLD (public-suffix) check for links without
//! a scheme, and the rule for text in another script glued to a host.
//!
//! Glued text: in running text without spaces (CJK, Thai, ...) a link is often followed or
//! preceded directly by words: `http://example.com你好`, `中国語example.com`. A non-ASCII
//! character does not end an IRI (3987bis 7.3), but a host label that mixes Latin letters with
//! letters of another script is not a valid IDN label under the registry rules that keep one
//! script per label (ICANN IDN guidelines; UTS #39 mixed-script detection), so the host is cut
//! where the scripts meet, and the glued text is left as text.

use crate::boundary::{Script, script};
use crate::tld_data::TLDS;

/// Whether `label` (any case, Unicode or ACE form) is a top-rung domain of the embedded list
/// (`tld_data.rs`, from the ICANN section of the Public Suffix List).
pub(crate) fn is_tld(label: &str) -> bool {
    if label.is_empty() || label.len() > 64 {
        return false;
    }
    let mut buf = [0u8; 256];
    let mut n = 0;
    for c in label.chars() {
        for l in c.to_lowercase() {
            if n + 4 > buf.len() {
                return false;
            }
            n += l.encode_utf8(&mut buf[n..]).len();
        }
    }
    let key = &buf[..n];
    TLDS.binary_search_by(|t| t.as_bytes().cmp(key)).is_ok()
}

/// A dotted-quad IPv4 address (four decimal parts of one to three digits, each at most 255).
pub(crate) fn is_ipv4(s: &str) -> bool {
    let mut parts = 0;
    for p in s.split('.') {
        parts += 1;
        if parts > 4 || p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if p.parse::<u16>().map_or(true, |v| v > 255) {
            return false;
        }
    }
    parts == 4
}

/// Byte offset inside `label` where a Latin letter and a letter of another script meet (the
/// offset of the first character after the meeting point), searching from the left.
fn first_transition(label: &str) -> Option<usize> {
    let mut last = Script::Neutral;
    for (i, c) in label.char_indices() {
        let s = script(c);
        if s == Script::Neutral {
            continue;
        }
        if last != Script::Neutral && s != last {
            return Some(i);
        }
        last = s;
    }
    None
}

/// Number of bytes at the start of `run` to skip so that a first label like `中国語example`
/// starts at its Latin part (leading glued text), or 0.
pub(crate) fn leading_glue(run: &str) -> usize {
    let first = run.split('.').next().unwrap_or("");
    let mut last = Script::Neutral;
    let mut cut = 0;
    for (i, c) in first.char_indices() {
        let s = script(c);
        if s == Script::Neutral {
            continue;
        }
        if last == Script::Other && s == Script::Latin {
            cut = i;
        }
        last = s;
    }
    cut
}

/// How much of a host to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostCut {
    /// The whole host is valid.
    Whole,
    /// Keep the first n bytes; the link ends there (glued text or a trailing `-` cut off).
    Cut(usize),
}

/// [`check_dns`] (without the TLD check) for a host of ASCII letters, digits, `-` and `.`
/// only, in one pass; `None` when the host has other bytes (use [`check_dns`] then). Also says
/// whether the host has a `.`.
#[inline]
pub(crate) fn check_simple(host: &[u8]) -> Option<(Option<HostCut>, bool)> {
    let body = host.strip_suffix(b".").unwrap_or(host);
    let n = body.len();
    let (mut start, mut labels, mut bad) = (0, 0, false);
    // AND and OR of the byte classes, and OR over the current label
    let (mut all, mut any, mut label) = (VALID, 0u8, 0u8);
    for (i, &c) in body.iter().enumerate() {
        let f = HOST_CLASS[c as usize];
        all &= f;
        any |= f;
        if f & DOT != 0 {
            // a label that is not the last: not empty, no `-` at either end
            bad |= i == start || body[start] == b'-' || body[i - 1] == b'-';
            labels += 1;
            start = i + 1;
            label = 0;
        } else {
            label |= f;
        }
    }
    if all & VALID == 0 {
        return None;
    }
    let dot = labels > 0 || n < host.len();
    let verdict = if n == 0 {
        None
    } else if any & WORD == 0 && labels > 0 {
        // digits and dots only
        std::str::from_utf8(body)
            .ok()
            .filter(|d| is_ipv4(d))
            .map(|_| HostCut::Whole)
    } else if bad || start == n || body[start] == b'-' {
        None
    } else {
        // the last label
        let last = &body[start..];
        if last[last.len() - 1] == b'-' {
            let kept = last.len() - last.iter().rev().take_while(|&&c| c == b'-').count();
            Some(HostCut::Cut(start + kept))
        } else if labels > 0 && label & WORD == 0 {
            None
        } else {
            Some(HostCut::Whole)
        }
    };
    Some((verdict, dot))
}

/// Byte classes for [`check_simple`]: every byte of a simple host is `VALID`; a letter or `-`
/// is `WORD` (not a digit); `.` is `DOT`.
const VALID: u8 = 1;
const WORD: u8 = 2;
const DOT: u8 = 4;
static HOST_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x80 {
        let c = b as u8;
        t[b] = if c.is_ascii_digit() {
            VALID
        } else if c.is_ascii_alphabetic() || c == b'-' {
            VALID | WORD
        } else if c == b'.' {
            VALID | DOT
        } else {
            0
        };
        b += 1;
    }
    t
};

/// [`check_dns`] for an ASCII host, in one pass over the labels.
fn check_dns_ascii(host: &[u8], need_tld: bool) -> Option<HostCut> {
    // the characters a label may hold
    if !host
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'%' | b'.'))
    {
        return None;
    }
    let body = host.strip_suffix(b".").unwrap_or(host);
    if body.is_empty() {
        return None;
    }
    if (body[0].is_ascii_digit() || body[0] == b'.')
        && body.iter().all(|&b| b.is_ascii_digit() || b == b'.')
        && body.contains(&b'.')
    {
        // all of it is ASCII, so this is a `&str` boundary everywhere
        let dotted = std::str::from_utf8(body).ok()?;
        return if is_ipv4(dotted) {
            Some(HostCut::Whole)
        } else {
            None
        };
    }
    let tld = |l: &[u8]| std::str::from_utf8(l).is_ok_and(is_tld);
    let mut start = 0;
    let mut labels = 0;
    loop {
        let mut end = start;
        let mut digits = true;
        while end < body.len() && body[end] != b'.' {
            digits &= body[end].is_ascii_digit();
            end += 1;
        }
        let label = &body[start..end];
        let last = end == body.len();
        labels += 1;
        let (Some(&first), Some(&lastb)) = (label.first(), label.last()) else {
            return None;
        };
        if first == b'-' || first == b'_' || lastb == b'_' {
            return None;
        }
        if lastb == b'-' {
            if !last {
                return None;
            }
            let kept = label.len() - label.iter().rev().take_while(|&&c| c == b'-').count();
            if need_tld && (labels < 2 || !tld(&label[..kept])) {
                return None;
            }
            return Some(HostCut::Cut(start + kept));
        }
        if last {
            if labels > 1 && digits {
                return None;
            }
            if need_tld {
                if labels < 2 {
                    return None;
                }
                if tld(label) {
                    return Some(HostCut::Whole);
                }
                // `foo.com-based`, `example.com_x`: cut the last label at a hyphen
                for (i, &b) in label.iter().enumerate() {
                    if (b == b'-' || b == b'_') && tld(&label[..i]) {
                        return Some(HostCut::Cut(start + i));
                    }
                }
                return None;
            }
            return Some(HostCut::Whole);
        }
        start = end + 1;
    }
}

/// Checks a host that should be a DNS name (or IPv4 address). `need_tld`: links without a scheme
/// need a public suffix as their last label. Returns `None` when the candidate must be dropped.
pub(crate) fn check_dns(host: &str, need_tld: bool) -> Option<HostCut> {
    if host.is_empty() {
        return None;
    }
    if host.is_ascii() {
        return check_dns_ascii(host.as_bytes(), need_tld);
    }
    check_dns_general(host, need_tld)
}

/// [`check_dns`] label by label, for any host.
fn check_dns_general(host: &str, need_tld: bool) -> Option<HostCut> {
    if host.is_empty() {
        return None;
    }
    let body = host.strip_suffix('.').unwrap_or(host);
    if body.is_empty() {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit() || b == b'.') && body.contains('.') {
        return if is_ipv4(body) {
            Some(HostCut::Whole)
        } else {
            None
        };
    }
    let mut start = 0;
    let mut labels = 0;
    let total = body.len();
    loop {
        let end = memchr::memchr(b'.', &body.as_bytes()[start..]).map_or(total, |i| start + i);
        let label = &body[start..end];
        let last = end == total;
        labels += 1;
        if label.is_empty() || label.starts_with(['-', '_']) {
            return None;
        }
        let lb = label.as_bytes();
        if !lb
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'%' || c >= 0x80)
        {
            return None;
        }
        // ASCII letters are all Latin: scripts can only meet in a label with non-ASCII text
        let transition = if label.is_ascii() {
            None
        } else {
            first_transition(label)
        };
        if let Some(t) = transition {
            // glued text: keep the host up to where the scripts meet
            let kept = &label[..t];
            if kept.is_empty() || kept.ends_with('-') || (labels < 2 && need_tld) {
                return None;
            }
            if need_tld && !is_tld(kept) {
                return None;
            }
            return Some(HostCut::Cut(start + kept.len()));
        }
        if label.ends_with('_') {
            return None;
        }
        if label.ends_with('-') {
            if !last {
                return None;
            }
            let kept = label.trim_end_matches('-');
            if need_tld && (labels < 2 || !is_tld(kept)) {
                return None;
            }
            return Some(HostCut::Cut(start + kept.len()));
        }
        if last {
            if labels > 1 && label.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            if need_tld {
                if labels < 2 {
                    return None;
                }
                if is_tld(label) {
                    return Some(HostCut::Whole);
                }
                // `foo.com-based`, `example.com_x`: cut the last label at a hyphen
                for (i, b) in label.bytes().enumerate() {
                    if (b == b'-' || b == b'_') && is_tld(&label[..i]) {
                        return Some(HostCut::Cut(start + i));
                    }
                }
                // a TLD in another script followed by more text in that script, with no space
                // between (`twitter.みんなです`): the longest prefix that is a TLD
                if !label.is_ascii() && label.chars().all(|c| script(c) == Script::Other) {
                    let mut best = None;
                    for (i, _) in label.char_indices().skip(1) {
                        if i > 64 {
                            break;
                        }
                        if is_tld(&label[..i]) {
                            best = Some(i);
                        }
                    }
                    return best.map(|i| HostCut::Cut(start + i));
                }
                return None;
            }
            return Some(HostCut::Whole);
        }
        start = end + 1;
    }
}

/// A textual IPv6 address (RFC 4291 2.2), except the bare `::`.
pub(crate) fn is_ipv6(s: &str) -> bool {
    s.len() >= 2 && s.parse::<std::net::Ipv6Addr>().is_ok() && s != "::"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlds() {
        assert!(is_tld("com"));
        assert!(is_tld("COM"));
        assert!(is_tld("рф"));
        assert!(is_tld("中国"));
        assert!(is_tld("xn--8y0a063a"));
        assert!(!is_tld("comtest"));
        assert!(!is_tld("invalid"));
    }

    #[test]
    fn dns() {
        assert_eq!(check_dns("example.com", true), Some(HostCut::Whole));
        assert_eq!(check_dns("example.com.", true), Some(HostCut::Whole));
        assert_eq!(check_dns("example.com你好", false), Some(HostCut::Cut(11)));
        assert_eq!(
            check_dns("example.comだよね.comtest", true),
            Some(HostCut::Cut(11))
        );
        assert_eq!(check_dns("example.com-", false), Some(HostCut::Cut(11)));
        assert_eq!(check_dns("foo.com-foo", true), Some(HostCut::Cut(7)));
        assert_eq!(check_dns("a.-b.com", false), None);
        assert_eq!(check_dns("a.b-.com", false), None);
        assert_eq!(check_dns("-a.com", false), None);
        assert_eq!(check_dns("www.example..com", true), None);
        assert_eq!(check_dns("1.2.3.4", true), Some(HostCut::Whole));
        assert_eq!(check_dns("1.2.3.400", true), None);
        assert_eq!(check_dns("12-7.0.0.1", false), None);
        assert_eq!(check_dns("localhost", false), Some(HostCut::Whole));
        assert_eq!(check_dns("localhost", true), None);
        assert_eq!(check_dns("üñîçøðé.com", true), Some(HostCut::Whole));
        assert_eq!(check_dns("中国.中国", true), Some(HostCut::Whole));
        assert_eq!(check_dns("✪df.ws", true), Some(HostCut::Whole));
        assert_eq!(check_dns("xn--はじめよう.com", false), None);
    }

    /// The one-pass checks decide as the label-by-label check does.
    #[test]
    fn simple_path_agrees() {
        let alphabet = b"ab-.1";
        let mut seed = 11u64;
        for _ in 0..50000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 14) as usize;
            let mut h = String::new();
            let mut x = seed >> 8;
            for _ in 0..len {
                h.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
                x /= 5;
            }
            assert_eq!(
                check_simple(h.as_bytes()),
                Some((check_dns_general(&h, false), h.contains('.'))),
                "{h:?}"
            );
        }
        assert_eq!(check_simple(b"a_b.com"), None);
        assert_eq!(check_simple("é.com".as_bytes()), None);
    }

    /// The one-pass ASCII check decides as the label-by-label check does.
    #[test]
    fn ascii_path_agrees() {
        let alphabet = b"ab-_.1%";
        let mut seed = 7u64;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 12) as usize;
            let mut h = String::new();
            let mut x = seed >> 8;
            for _ in 0..len {
                h.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
                x /= 7;
            }
            for tail in ["", "com", "com-x", "x-", "co_m", "é"] {
                let host = format!("{h}{tail}");
                for need_tld in [false, true] {
                    assert_eq!(
                        check_dns(&host, need_tld),
                        check_dns_general(&host, need_tld),
                        "{host:?} {need_tld}"
                    );
                }
            }
        }
    }

    #[test]
    fn glue() {
        assert_eq!(leading_glue("中国語example.com"), "中国語".len());
        assert_eq!(leading_glue("example.com"), 0);
        assert_eq!(leading_glue("президент.рф"), 0);
    }

    #[test]
    fn ips() {
        assert!(is_ipv4("255.1.1.1"));
        assert!(!is_ipv4("300.1.1.1"));
        assert!(!is_ipv4("1.1.1"));
        assert!(is_ipv6("::1"));
        assert!(is_ipv6("2001:db8::1"));
        assert!(is_ipv6("::FFFF:129.144.52.38"));
        assert!(!is_ipv6("::"));
        assert!(!is_ipv6("12:30"));
    }
}

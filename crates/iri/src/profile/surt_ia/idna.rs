//! Python's `encodings.idna` codec (IDNA 2003: RFC 3490 ToASCII with RFC 3491 nameprep,
//! `AllowUnassigned` on, `UseSTD3ASCIIRules` off), as `surt`'s `GoogleURLCanonicalizer` calls
//! it: `host.decode('utf-8', 'ignore').encode('idna')`.
//!
//! The tables are CPython's own (`nameprep_tables.rs`, generated from `stringprep` and
//! `unicodedata.ucd_3_2_0`); NFKC is today's (the `unicode-normalization` crate) except that a
//! code point unassigned in Unicode 3.2 does not decompose and the five 3.2 normalization
//! corrections keep their 3.2 values, as `ucd_3_2_0.normalize` does.

use super::nameprep_tables::{B1, B2, L_CAT, NFKD_3_2, PROHIBITED, RAND_AL, UNASSIGNED_3_2};
use crate::profile::gsb::punycode;
use unicode_normalization::UnicodeNormalization;

/// Whether `c` lies in one of the sorted, disjoint `ranges`.
fn in_ranges(c: u32, ranges: &[(u32, u32)]) -> bool {
    ranges
        .binary_search_by(|&(a, b)| {
            if b < c {
                std::cmp::Ordering::Less
            } else if a > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `host.decode('utf-8', 'ignore')`: the valid UTF-8 of `host`, every invalid sequence dropped.
pub(super) fn decode_ignore(host: &[u8]) -> String {
    let mut s = String::with_capacity(host.len());
    for chunk in host.utf8_chunks() {
        s.push_str(chunk.valid());
    }
    s
}

/// `text.encode('idna')`; `None` where Python raises `UnicodeError`.
pub(super) fn encode(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    if text.is_ascii() {
        // The codec's fast path checks only the lengths of the labels.
        let labels: Vec<&str> = text.split('.').collect();
        let (last, init) = labels.split_last()?;
        if init.iter().any(|l| l.is_empty() || l.len() >= 64) || last.len() >= 64 {
            return None;
        }
        return Some(text.as_bytes().to_vec());
    }
    let is_dot = |c: char| matches!(c, '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}');
    let mut labels: Vec<&str> = text.split(is_dot).collect();
    let trailing_dot = labels.last() == Some(&"");
    if trailing_dot {
        labels.pop();
    }
    let mut out = Vec::with_capacity(text.len() + 8);
    for (i, label) in labels.iter().enumerate() {
        if i > 0 {
            out.push(b'.');
        }
        to_ascii(label, &mut out)?;
    }
    if trailing_dot {
        out.push(b'.');
    }
    Some(out)
}

/// RFC 3490 ToASCII of one label, as `encodings.idna.ToASCII`.
fn to_ascii(label: &str, out: &mut Vec<u8>) -> Option<()> {
    let fits = |n: usize| (1..64).contains(&n);
    if label.is_ascii() {
        fits(label.len()).then(|| out.extend_from_slice(label.as_bytes()))?;
        return Some(());
    }
    let label = nameprep(label)?;
    if label.is_ascii() {
        fits(label.len()).then(|| out.extend_from_slice(label.as_bytes()))?;
        return Some(());
    }
    if label.starts_with("xn--") {
        return None;
    }
    let cps: Vec<u32> = label.chars().map(u32::from).collect();
    let mut enc = b"xn--".to_vec();
    punycode::encode(&cps, &mut enc)?;
    fits(enc.len()).then(|| out.extend_from_slice(&enc))
}

/// RFC 3491 nameprep, as `encodings.idna.nameprep`; `None` on a prohibited code point or a
/// bidi violation.
fn nameprep(label: &str) -> Option<String> {
    // Map (B.1, B.2).
    let mut mapped = String::with_capacity(label.len());
    for c in label.chars() {
        let u = u32::from(c);
        if in_ranges(u, B1) {
            continue;
        }
        match B2.binary_search_by_key(&u, |&(k, _)| k) {
            Ok(i) => mapped.push_str(B2[i].1),
            Err(_) => mapped.push(c),
        }
    }
    // NFKC, as `ucd_3_2_0` does it.
    let mut decomposed = String::with_capacity(mapped.len());
    for c in mapped.chars() {
        let u = u32::from(c);
        if in_ranges(u, UNASSIGNED_3_2) {
            decomposed.push(c);
        } else if let Ok(i) = NFKD_3_2.binary_search_by_key(&u, |&(k, _)| k) {
            decomposed.push_str(NFKD_3_2[i].1);
        } else {
            unicode_normalization::char::decompose_compatible(c, |d| decomposed.push(d));
        }
    }
    let label: String = decomposed.nfc().collect();
    // Prohibit; check bidi.
    let cps = || label.chars().map(u32::from);
    if cps().any(|u| in_ranges(u, PROHIBITED)) {
        return None;
    }
    if cps().any(|u| in_ranges(u, RAND_AL)) {
        let first = cps().next().is_some_and(|u| in_ranges(u, RAND_AL));
        let last = label
            .chars()
            .next_back()
            .map(u32::from)
            .is_some_and(|u| in_ranges(u, RAND_AL));
        if cps().any(|u| in_ranges(u, L_CAT)) || !first || !last {
            return None;
        }
    }
    Some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_idna() {
        let enc = |s: &str| encode(s).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(enc("Bücher.ch").as_deref(), Some("xn--bcher-kva.ch"));
        assert_eq!(enc("☃.com.").as_deref(), Some("xn--n3h.com."));
        assert_eq!(enc("a\u{3002}ü").as_deref(), Some("a.xn--tda"));
        assert_eq!(enc("ＡＢＣ.com").as_deref(), Some("abc.com"));
        assert_eq!(enc("a..ü"), None);
        assert_eq!(enc("a..b"), None);
        assert_eq!(enc("ü\u{0}").as_deref(), Some("xn--\u{0}-dha"));
        assert_eq!(enc("ü\u{e000}"), None);
        assert_eq!(decode_ignore(b"a\xffb\xc3\xbc"), "abü");
    }
}

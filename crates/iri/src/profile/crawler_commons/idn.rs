//! `java.net.IDN` with `ALLOW_UNASSIGNED`: IDNA2003 (RFC 3490) ToASCII and ToUnicode with
//! Nameprep (RFC 3491), as `BasicURLNormalizer.normalizeHostName` calls them.
//!
//! Nameprep is rebuilt from Rust's Unicode data, not from the Unicode 3.2 tables that the JDK
//! ships: case folding (RFC 3454 table B.2) is lower-casing plus `ß`→`ss` and `ς`→`σ`, taken
//! twice around NFKC; see `docs/profiles/crawler-commons.md`.

use std::borrow::Cow;
use unicode_bidi::BidiClass;
use unicode_normalization::UnicodeNormalization;

use super::super::Reject;

/// RFC 3490 section 3.1: the label separators (full stop, ideographic, fullwidth and
/// halfwidth ideographic full stops).
fn is_separator(c: char) -> bool {
    matches!(c, '.' | '\u{3002}' | '\u{ff0e}' | '\u{ff61}')
}

/// RFC 3490 section 5: the ACE prefix, compared ignoring ASCII case.
fn has_ace_prefix(label: &str) -> bool {
    label
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
}

/// RFC 3454 table B.1: code points mapped to nothing.
fn maps_to_nothing(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{34f}' | '\u{1806}' | '\u{180b}'..='\u{180d}'
        | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}')
}

/// RFC 3491 section 5: the prohibited tables C.1.2, C.2.2 and C.3 to C.9.
fn is_prohibited(c: char) -> bool {
    let u = c as u32;
    matches!(c, '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200b}' | '\u{2028}' | '\u{2029}'
        | '\u{202f}' | '\u{205f}' | '\u{3000}'
        | '\u{80}'..='\u{9f}' | '\u{6dd}' | '\u{70f}' | '\u{180e}' | '\u{200c}' | '\u{200d}'
        | '\u{2060}'..='\u{2063}' | '\u{206a}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffd}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}' | '\u{100000}'..='\u{10fffd}'
        | '\u{fdd0}'..='\u{fdef}'
        | '\u{2ff0}'..='\u{2ffb}'
        | '\u{340}' | '\u{341}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{e0001}' | '\u{e0020}'..='\u{e007f}')
        || u & 0xfffe == 0xfffe
}

/// RFC 3454 table B.2 (case folding for NFKC), approximated: lower case, with the two
/// mappings that lower-casing lacks.
fn fold_into(s: &str, out: &mut String) {
    out.clear();
    for c in s.chars() {
        match c {
            c if maps_to_nothing(c) => {}
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            c => out.extend(c.to_lowercase()),
        }
    }
}

/// RFC 3491 Nameprep: map (B.1, B.2), NFKC, prohibit, and the RFC 3454 section 6 bidi rule.
fn nameprep(label: &str) -> Result<String, Reject> {
    let mut folded = String::with_capacity(label.len());
    fold_into(label, &mut folded);
    let nfkc: String = folded.nfkc().collect();
    fold_into(&nfkc, &mut folded);
    let prepped: String = folded.nfkc().collect();
    if prepped.chars().any(is_prohibited) {
        return Err(Reject::new(
            "invalid hostname (IDN: prohibited character)",
            None,
        ));
    }
    let rtl = |c: char| matches!(unicode_bidi::bidi_class(c), BidiClass::R | BidiClass::AL);
    if prepped.chars().any(rtl) {
        let ltr = prepped
            .chars()
            .any(|c| unicode_bidi::bidi_class(c) == BidiClass::L);
        let ends =
            prepped.chars().next().is_some_and(rtl) && prepped.chars().last().is_some_and(rtl);
        if ltr || !ends {
            return Err(Reject::new("invalid hostname (IDN: bidi rule)", None));
        }
    }
    Ok(prepped)
}

/// `IDN.toASCII(host, ALLOW_UNASSIGNED)` (RFC 3490 section 4.1): each label that is not
/// ASCII is nameprepped and punycoded; an empty label, a nameprepped label that starts with
/// `xn--`, or a label over 63 characters throws.
pub(super) fn to_ascii(host: &str) -> Result<String, Reject> {
    let mut out = String::with_capacity(host.len() + 8);
    let mut chars = host.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && is_separator(c)
    {
        return Ok(".".to_owned());
    }
    let mut rest = host;
    while !rest.is_empty() {
        let (label, tail) = match rest.char_indices().find(|&(_, c)| is_separator(c)) {
            Some((i, c)) => (&rest[..i], Some(&rest[i + c.len_utf8()..])),
            None => (rest, None),
        };
        label_to_ascii(label, &mut out)?;
        match tail {
            Some(t) => {
                out.push('.');
                rest = t;
            }
            None => rest = "",
        }
    }
    Ok(out)
}

/// RFC 3490 ToASCII on one label, appended to `out`.
fn label_to_ascii(label: &str, out: &mut String) -> Result<(), Reject> {
    let too_long = || Reject::new("invalid hostname (IDN: label over 63 characters)", None);
    if label.is_ascii() {
        if label.is_empty() {
            return Err(Reject::new("invalid hostname (IDN: empty label)", None));
        }
        if label.len() > 63 {
            return Err(too_long());
        }
        out.push_str(label);
        return Ok(());
    }
    let prepped = nameprep(label)?;
    if prepped.is_empty() {
        return Err(Reject::new("invalid hostname (IDN: empty label)", None));
    }
    let ascii: Cow<'_, str> = if prepped.is_ascii() {
        Cow::Borrowed(&prepped)
    } else if has_ace_prefix(&prepped) {
        return Err(Reject::new(
            "invalid hostname (IDN: starts with the ACE prefix)",
            None,
        ));
    } else {
        let p = idna::punycode::encode_str(&prepped)
            .ok_or_else(|| Reject::new("invalid hostname (IDN: punycode overflow)", None))?;
        Cow::Owned(format!("xn--{}", p.to_ascii_lowercase()))
    };
    if ascii.encode_utf16().count() > 63 {
        return Err(too_long());
    }
    out.push_str(&ascii);
    Ok(())
}

/// `IDN.toUnicode(host, ALLOW_UNASSIGNED)` (RFC 3490 section 4.2), which never fails: an
/// `xn--` label is decoded when the decoding converts back to it, and is left as it is
/// otherwise.
pub(super) fn to_unicode(host: &str) -> String {
    let mut chars = host.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && is_separator(c)
    {
        return ".".to_owned();
    }
    let mut out = String::with_capacity(host.len());
    let mut rest = host;
    while !rest.is_empty() {
        let (label, tail) = match rest.char_indices().find(|&(_, c)| is_separator(c)) {
            Some((i, c)) => (&rest[..i], Some(&rest[i + c.len_utf8()..])),
            None => (rest, None),
        };
        out.push_str(&label_to_unicode(label));
        match tail {
            Some(t) => {
                out.push('.');
                rest = t;
            }
            None => rest = "",
        }
    }
    out
}

/// RFC 3490 ToUnicode on one label.
fn label_to_unicode(label: &str) -> Cow<'_, str> {
    let prepped: Cow<'_, str> = if label.is_ascii() {
        Cow::Borrowed(label)
    } else {
        match nameprep(label) {
            Ok(p) => Cow::Owned(p),
            Err(_) => return Cow::Borrowed(label),
        }
    };
    if has_ace_prefix(&prepped)
        && let Some(decoded) = idna::punycode::decode_to_string(&prepped[4..])
        && to_ascii(&decoded).is_ok_and(|a| a.eq_ignore_ascii_case(&prepped))
    {
        return Cow::Owned(decoded);
    }
    Cow::Borrowed(label)
}

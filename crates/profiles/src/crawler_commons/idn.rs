//! `java.net.IDN` with flags 0 (`AllowUnassigned` and `UseSTD3ASCIIRules` off): IDNA 2003
//! (RFC 3490) ToASCII and ToUnicode, as `BasicURLNormalizer.normalizeHostName` calls them.
//!
//! Java's front is here (its label splitting, the empty-label and ACE-prefix rules, the
//! UTF-16 length of a label, ToUnicode's round trip); Nameprep (RFC 3491, with the Unicode 3.2
//! tables that the JDK also ships) and Punycode (RFC 3492) are the shared
//! [`crate::idna2003`]. See `docs/profiles/crawler-commons.md`.

use std::borrow::Cow;

use super::super::Reject;
use crate::idna2003::{self, NameprepError, is_dot as is_separator};

/// RFC 3490 section 5: the ACE prefix, compared ignoring ASCII case.
fn has_ace_prefix(label: &str) -> bool {
    label
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
}

/// RFC 3491 Nameprep with `AllowUnassigned` off (RFC 3454 section 7), Java's errors.
fn nameprep(label: &str) -> Result<String, Reject> {
    idna2003::nameprep(label, false).map_err(|e| {
        let why = match e {
            NameprepError::Unassigned => "invalid hostname (IDN: unassigned code point)",
            NameprepError::Prohibited => "invalid hostname (IDN: prohibited character)",
            NameprepError::Bidi => "invalid hostname (IDN: bidi rule)",
        };
        Reject::new(why, None)
    })
}

/// `IDN.toASCII(host)` (RFC 3490 section 4.1): each label that is not
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
        let mut a = String::from("xn--");
        idna2003::punycode_encode(&prepped, &mut a)
            .ok_or_else(|| Reject::new("invalid hostname (IDN: punycode overflow)", None))?;
        Cow::Owned(a)
    };
    if ascii.encode_utf16().count() > 63 {
        return Err(too_long());
    }
    out.push_str(&ascii);
    Ok(())
}

/// `IDN.toUnicode(host)` (RFC 3490 section 4.2), which never fails: an
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
        && let Some(decoded) = idna2003::punycode_decode(&prepped[4..])
        && to_ascii(&decoded).is_ok_and(|a| a.eq_ignore_ascii_case(&prepped))
    {
        return Cow::Owned(decoded);
    }
    Cow::Borrowed(label)
}

//! Character classes of the 3987bis 2.2 grammar (and RFC 3986 2), as lookup tables.
//!
//! One 128-entry table answers every ASCII question in one load; non-ASCII characters are
//! classified by range checks (`ucschar`, `iprivate`) that only run for bytes >= 0x80.

/// `ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 2.3).
pub(crate) const UNRESERVED: u8 = 1;
/// `"!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (RFC 3986 2.2).
pub(crate) const SUB_DELIM: u8 = 2;
/// `":" / "@"`, the rest of `pchar` (RFC 3986 3.3).
pub(crate) const COLON_AT: u8 = 4;
/// `"/" / "?"`, added to `pchar` in query and fragment (RFC 3986 3.4, 3.5).
pub(crate) const SLASH_QMARK: u8 = 8;
/// `gen-delims` (RFC 3986 2.2): `":" / "/" / "?" / "#" / "[" / "]" / "@"`.
pub(crate) const GEN_DELIM: u8 = 16;
/// `HEXDIG`.
pub(crate) const HEX: u8 = 32;
/// Characters of `scheme` after the first: `ALPHA / DIGIT / "+" / "-" / "."`.
pub(crate) const SCHEME: u8 = 64;

/// `pchar` minus `pct-encoded` (RFC 3986 3.3).
pub(crate) const PCHAR: u8 = UNRESERVED | SUB_DELIM | COLON_AT;
/// `reserved` (RFC 3986 2.2).
pub(crate) const RESERVED: u8 = GEN_DELIM | SUB_DELIM;

/// Builds the ASCII class table ([`ASCII`]; also used for the parser's own tables).
pub(crate) const fn build() -> [u8; 128] {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        let mut v = 0;
        if c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_' || c == b'~' {
            v |= UNRESERVED;
        }
        if matches!(
            c,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        ) {
            v |= SUB_DELIM;
        }
        if c == b':' || c == b'@' {
            v |= COLON_AT;
        }
        if c == b'/' || c == b'?' {
            v |= SLASH_QMARK;
        }
        if matches!(c, b':' | b'/' | b'?' | b'#' | b'[' | b']' | b'@') {
            v |= GEN_DELIM;
        }
        if c.is_ascii_hexdigit() {
            v |= HEX;
        }
        if c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.' {
            v |= SCHEME;
        }
        t[i] = v;
        i += 1;
    }
    t
}

/// The ASCII class table.
pub(crate) static ASCII: [u8; 128] = build();

/// True when the ASCII byte `b` is in one of the classes of `mask`.
#[inline(always)]
pub(crate) fn is(b: u8, mask: u8) -> bool {
    b < 128 && ASCII[b as usize] & mask != 0
}

/// True for a byte allowed somewhere in a URI: unreserved, reserved or `%` (RFC 3986 2).
#[inline]
pub(crate) fn is_uri_char(b: u8) -> bool {
    is(b, UNRESERVED | RESERVED) || b == b'%'
}

/// `ucschar` (3987bis 2.2).
#[inline]
pub fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    (0xA0..=0xD7FF).contains(&c)
        || (0xF900..=0xFDCF).contains(&c)
        || (0xFDF0..=0xFFEF).contains(&c)
        || ((0x10000..=0xEFFFD).contains(&c)
            && (c & 0xFFFE) != 0xFFFE
            && !(0xE0000..=0xE0FFF).contains(&c))
}

/// `iprivate` (3987bis 2.2, with the tag range U+E0000-E0FFF that 3987bis added).
#[inline]
pub fn is_iprivate(c: char) -> bool {
    let c = c as u32;
    (0xE000..=0xF8FF).contains(&c)
        || (0xE0000..=0xE0FFF).contains(&c)
        || (0xF0000..=0xFFFFD).contains(&c)
        || (0x100000..=0x10FFFD).contains(&c)
}

/// Bidirectional formatting characters, which IRIs MUST NOT contain (3987bis 4.1): LRM, RLM,
/// LRE, RLE, PDF, LRO, RLO, plus the isolates LRI, RLI, FSI, PDI and the ARABIC LETTER MARK that
/// Unicode added after 3987bis was written (same effect on display, same reason to forbid).
#[inline]
pub fn is_bidi_formatting(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{061C}')
}

/// Characters that are allowed by the grammar but not appropriate in an IRI, and so stay
/// percent-encoded when a URI is converted to an IRI (3987bis 3.7 step 4, 5.1, 6.3):
/// bidi formatting characters (4.1), space look-alikes (5.1 b: Unicode `Zs`, line and paragraph
/// separators), invisible default-ignorables (zero-width joiners and spaces, word joiner,
/// BOM), and the 6.3 groups (specials, non-characters, private use, tags).
#[inline]
pub fn is_not_appropriate(c: char) -> bool {
    let u = c as u32;
    is_bidi_formatting(c)
        || matches!(
            u,
            0xA0 | 0x1680 | 0x2000..=0x200D | 0x2028 | 0x2029 | 0x202F | 0x205F..=0x2064 | 0x206A..=0x206F
                | 0x3000 | 0xFEFF | 0xFFF0..=0xFFFF | 0xFDD0..=0xFDEF | 0x180E | 0x115F | 0x1160
                | 0x3164 | 0xFFA0 | 0x34F
        )
        || (u & 0xFFFE) == 0xFFFE
        || is_iprivate(c)
}

/// [`is_not_appropriate`] for a character of a given component: in the query, `iprivate` is
/// allowed by the grammar (3987bis 2.2), so only the other groups count there.
///
/// ```
/// assert!(!linksieve_iri::is_not_appropriate_in('\u{E000}', true));
/// assert!(linksieve_iri::is_not_appropriate_in('\u{E000}', false));
/// ```
#[inline]
pub fn is_not_appropriate_in(c: char, query: bool) -> bool {
    if query && is_iprivate(c) {
        (c as u32 & 0xFFFE) == 0xFFFE
    } else {
        is_not_appropriate(c)
    }
}

/// Value of a hex digit, or `None`.
#[inline(always)]
pub(crate) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes the `%HH` at `bytes[i..]`, if there is one.
#[inline(always)]
pub(crate) fn pct_at(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let h = hex_val(*bytes.get(i + 1)?)?;
    let l = hex_val(*bytes.get(i + 2)?)?;
    Some(h << 4 | l)
}

/// Uppercase hex digits for `%HH` (3987bis 3.3: "SHOULD use uppercase letters").
pub(crate) const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `%HH` for each byte of `bytes` to `out`.
#[inline]
pub(crate) fn push_pct(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        out.push('%');
        out.push(HEX_UPPER[(b >> 4) as usize] as char);
        out.push(HEX_UPPER[(b & 15) as usize] as char);
    }
}

/// Appends the UTF-8 of `c`, percent-encoded, to `out` (3987bis 3.3).
#[inline]
pub(crate) fn push_pct_char(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    push_pct(out, c.encode_utf8(&mut buf).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert!(is(b'~', UNRESERVED));
        assert!(!is(b'%', UNRESERVED | RESERVED));
        assert!(is(b'[', GEN_DELIM));
        assert!(is_ucschar('é'));
        assert!(!is_ucschar('\u{E000}'));
        assert!(is_iprivate('\u{E000}'));
        assert!(!is_ucschar('\u{1FFFE}'));
        assert!(is_ucschar('\u{1F600}'));
        assert!(!is_ucschar('\u{E0001}'));
        assert!(is_ucschar('\u{E1000}'));
        assert!(is_bidi_formatting('\u{202E}'));
        assert!(is_not_appropriate('\u{3000}'));
        assert!(!is_not_appropriate('納'));
        assert_eq!(pct_at(b"%c3", 0), Some(0xC3));
        assert_eq!(pct_at(b"%c", 0), None);
    }
}

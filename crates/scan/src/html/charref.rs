//! Attribute values as HTML's tokenizer hands them over: newlines normalized (the input stream
//! preprocessor turns CR LF and lone CR into LF), U+0000 replaced by U+FFFD, and character
//! references decoded by the rules for attribute values (HTML "character reference state":
//! a named reference without its `;` followed by `=` or an ASCII alphanumeric is left as it
//! is). The named references come from `htmlize`'s table (HTML's `entities.json`).
//!
//! Every change is recorded as a [`Rep`], so that a range of the decoded value maps back to
//! the raw bytes it came from ([`raw_start`], [`raw_end`]).

use std::borrow::Cow;

/// One replaced stretch: `raw` bytes of the raw value became `dec` bytes of the decoded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rep {
    pub(super) raw: (usize, usize),
    pub(super) dec: (usize, usize),
}

/// Decodes an attribute's raw value. `reps` is cleared and gets one [`Rep`] per change; with
/// none, the value is borrowed.
pub(super) fn decode<'a>(raw: &'a str, reps: &mut Vec<Rep>) -> Cow<'a, str> {
    decode_as(raw, reps, true)
}

/// Decodes text (HTML "data state"): as [`decode`], but a named reference without its `;` is
/// decoded whatever follows it.
pub(super) fn decode_text<'a>(raw: &'a str, reps: &mut Vec<Rep>) -> Cow<'a, str> {
    decode_as(raw, reps, false)
}

fn decode_as<'a>(raw: &'a str, reps: &mut Vec<Rep>, attribute: bool) -> Cow<'a, str> {
    reps.clear();
    let bytes = raw.as_bytes();
    let Some(first) = memchr::memchr3(b'&', b'\r', 0, bytes) else {
        return Cow::Borrowed(raw);
    };
    let mut out = String::new();
    let mut copied = 0; // raw bytes copied or replaced so far
    let mut i = first;
    while i < bytes.len() {
        let (len, rep): (usize, Piece) = match bytes[i] {
            0 => (1, Piece::Str("\u{FFFD}")),
            b'\r' => (
                if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                },
                Piece::Str("\n"),
            ),
            b'&' => match reference(&bytes[i..], attribute) {
                Some(r) => r,
                None => {
                    i += 1;
                    i = next_special(bytes, i);
                    continue;
                }
            },
            _ => {
                i = next_special(bytes, i);
                continue;
            }
        };
        if out.capacity() == 0 {
            out.reserve(raw.len());
        }
        out.push_str(&raw[copied..i]);
        let dec_start = out.len();
        match rep {
            Piece::Str(s) => out.push_str(s),
            Piece::Char(c) => out.push(c),
        }
        reps.push(Rep {
            raw: (i, i + len),
            dec: (dec_start, out.len()),
        });
        i += len;
        copied = i;
        i = next_special(bytes, i);
    }
    if reps.is_empty() {
        return Cow::Borrowed(raw);
    }
    out.push_str(&raw[copied..]);
    Cow::Owned(out)
}

fn next_special(bytes: &[u8], from: usize) -> usize {
    match bytes.get(from..) {
        Some(rest) => memchr::memchr3(b'&', b'\r', 0, rest).map_or(bytes.len(), |k| from + k),
        None => bytes.len(),
    }
}

enum Piece {
    Str(&'static str),
    Char(char),
}

/// The character reference at the start of `s` (which starts with `&`): its length in bytes
/// and what it stands for, or `None` where the `&` is text; `attribute`: in an attribute value.
fn reference(s: &[u8], attribute: bool) -> Option<(usize, Piece)> {
    if s.get(1) == Some(&b'#') {
        return numeric(s);
    }
    let run = s[1..]
        .iter()
        .take(htmlize::ENTITY_MAX_LENGTH + 1)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if run == 0 {
        return None;
    }
    // the longest name is the whole run with its `;`, or else a name without `;` (all of them
    // short), and then only where no `=` or alphanumeric follows
    if s.get(1 + run) == Some(&b';')
        && let Some(exp) = htmlize::ENTITIES.get(&s[..run + 2])
    {
        return Some((run + 2, expansion(exp)));
    }
    let longest = (run + 1).min(htmlize::BARE_ENTITY_MAX_LENGTH);
    for len in (htmlize::ENTITY_MIN_LENGTH..=longest).rev() {
        if let Some(exp) = htmlize::ENTITIES.get(&s[..len]) {
            return match s.get(len) {
                Some(&b) if attribute && (b == b'=' || b.is_ascii_alphanumeric()) => None,
                _ => Some((len, expansion(exp))),
            };
        }
    }
    None
}

fn expansion(exp: &'static [u8]) -> Piece {
    // the table's expansions are UTF-8
    Piece::Str(std::str::from_utf8(exp).unwrap_or("\u{FFFD}"))
}

/// `&#...` (HTML "numeric character reference end state").
fn numeric(s: &[u8]) -> Option<(usize, Piece)> {
    let hex = matches!(s.get(2), Some(b'x' | b'X'));
    let digits_from = if hex { 3 } else { 2 };
    let mut value: u32 = 0;
    let mut n = 0;
    for &b in &s[digits_from.min(s.len())..] {
        let d = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'a'..=b'f' if hex => u32::from(b - b'a' + 10),
            b'A'..=b'F' if hex => u32::from(b - b'A' + 10),
            _ => break,
        };
        value = value
            .saturating_mul(if hex { 16 } else { 10 })
            .saturating_add(d)
            .min(0x11_0000);
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let mut len = digits_from + n;
    if s.get(len) == Some(&b';') {
        len += 1;
    }
    let c = match value {
        0 | 0xD800..=0xDFFF | 0x11_0000.. => '\u{FFFD}',
        0x80..=0x9F => C1[(value - 0x80) as usize],
        v => char::from_u32(v).unwrap_or('\u{FFFD}'),
    };
    Some((len, Piece::Char(c)))
}

/// What `&#x80;` to `&#x9F;` stand for (windows-1252's characters there; the five it lacks stay
/// as they are).
const C1: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{8D}', '\u{017D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{9D}', '\u{017E}', '\u{0178}',
];

/// Where decoded offset `p`, the start of a range, comes from in the raw value.
pub(super) fn raw_start(reps: &[Rep], p: usize) -> usize {
    let k = reps.partition_point(|r| r.dec.0 <= p);
    match k.checked_sub(1).map(|k| reps[k]) {
        None => p,
        Some(r) if p < r.dec.1 => r.raw.0,
        Some(r) => r.raw.1 + (p - r.dec.1),
    }
}

/// Where decoded offset `p`, the end of a range, comes from in the raw value.
pub(super) fn raw_end(reps: &[Rep], p: usize) -> usize {
    let k = reps.partition_point(|r| r.dec.0 < p);
    match k.checked_sub(1).map(|k| reps[k]) {
        None => p,
        Some(r) if p <= r.dec.1 => r.raw.1,
        Some(r) => r.raw.1 + (p - r.dec.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> String {
        decode(s, &mut Vec::new()).into_owned()
    }

    #[test]
    fn named_references_by_the_attribute_rules() {
        assert_eq!(d("a&amp;b"), "a&b");
        assert_eq!(d("?a=1&amp=2"), "?a=1&amp=2");
        assert_eq!(d("?a=1&ampb"), "?a=1&ampb");
        assert_eq!(d("?a=1&amp b"), "?a=1& b");
        assert_eq!(d("x&amp"), "x&");
        assert_eq!(d("&copy=1&copy;=1&copy/"), "&copy=1©=1©/");
        assert_eq!(d("&notin;&notit;&not;"), "∉&notit;¬");
        assert_eq!(d("&nosuch;&;&&#;&#x;"), "&nosuch;&;&&#;&#x;");
        assert_eq!(d("&NotNestedGreaterGreater;"), "\u{2AA2}\u{338}");
        assert_eq!(d("&AMP;&LT&GT;"), "&<>");
    }

    #[test]
    fn numeric_references() {
        assert_eq!(d("&#65;&#x42;&#X43&#0068;"), "ABCD");
        assert_eq!(
            d("&#0;&#xD800;&#x110000;&#99999999999999;"),
            "\u{FFFD}".repeat(4)
        );
        assert_eq!(d("&#x80;&#x81;&#150;"), "\u{20AC}\u{81}\u{2013}");
        assert_eq!(d("&#13;&#9;&#x1F;"), "\r\t\u{1F}");
        assert_eq!(d("&#x41g"), "Ag");
    }

    #[test]
    fn newlines_and_nul() {
        assert_eq!(d("a\r\nb\rc\n\0"), "a\nb\nc\n\u{FFFD}");
    }

    #[test]
    fn ranges_map_back() {
        let raw = "&#32; a&amp;b\r\nc ";
        let mut reps = Vec::new();
        let dec = decode(raw, &mut reps);
        assert_eq!(dec, "  a&b\nc ");
        // "a&b\nc" is decoded 2..7
        assert_eq!(raw_start(&reps, 2), 6);
        assert_eq!(raw_end(&reps, 7), 16);
        assert_eq!(&raw[6..16], "a&amp;b\r\nc");
        // inside a replacement: the whole reference
        assert_eq!(raw_start(&reps, 0), 0);
        assert_eq!(raw_end(&reps, 1), 5);
        assert_eq!(raw_start(&reps, 3), 7);
        assert_eq!(raw_end(&reps, 4), 12);
    }
}

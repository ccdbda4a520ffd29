//! JSON string escapes inside links (RFC 8259 7), and the look ahead after a `,` in a link.
//!
//! JSON APIs, JavaScript bundles and WordPress pages write links inside strings, often with
//! every `/` escaped: `"http:\/\/host\/a"`, `"https:\u002F\u002Fcdn\u002Fx"`, `?a=1\u0026b=2`.
//! Inside a link a `\` starts such an escape: `\/` and `\uXXXX` (a surrogate pair for a
//! character beyond the BMP) stand for their character, which continues the link or ends it as
//! that character would (boundary table, `boundary.rs`); every other `\` (`\"`, `\\`, `\n`,
//! ...: characters that end a link; or no escape at all) ends the link, as `\` always did. The
//! hit's text has the escapes undone; its offsets are those of the text as written. (Heritrix's
//! `ExtractorJS` likewise unescapes JavaScript strings before reading them as URLs.)

use super::{Ctx, R};

/// Longest escape: a surrogate pair, `\uD83D\uDE00`.
const PAIR_LEN: usize = 12;

fn hex4(b: &[u8]) -> Option<u32> {
    if b.len() < 4 {
        return None;
    }
    let mut v = 0u32;
    for &c in &b[..4] {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// The escape at the start of `b` (which starts with `\`): its character and length. `Err(())`
/// when `b` ends before the escape is complete; `Ok(None)` when it is no escape that may stand
/// in a link (`\/` and `\uXXXX` only: the others stand for characters that end a link).
pub(crate) fn escape_at(b: &[u8]) -> Result<Option<(char, usize)>, ()> {
    debug_assert_eq!(b.first(), Some(&b'\\'));
    match b.get(1) {
        None => Err(()),
        Some(b'/') => Ok(Some(('/', 2))),
        Some(b'u') => {
            let digits = &b[2..b.len().min(6)];
            if digits.len() < 4 {
                return if digits.iter().all(u8::is_ascii_hexdigit) {
                    Err(())
                } else {
                    Ok(None)
                };
            }
            let Some(hi) = hex4(digits) else {
                return Ok(None);
            };
            if !(0xd800..0xdc00).contains(&hi) {
                // a lone low surrogate is no character
                return Ok(char::from_u32(hi).map(|c| (c, 6)));
            }
            // a high surrogate: a low one must follow (`\uDC00`-`\uDFFF`)
            let tail = &b[6..b.len().min(PAIR_LEN)];
            let want = b"\\u";
            let n = tail.len().min(2);
            if tail[..n] != want[..n] {
                return Ok(None);
            }
            if tail.len() < 6 {
                let digits = tail.get(2..).unwrap_or_default();
                return if digits.iter().all(u8::is_ascii_hexdigit) {
                    Err(())
                } else {
                    Ok(None)
                };
            }
            match hex4(&tail[2..]) {
                Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                    let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                    Ok(char::from_u32(c).map(|c| (c, PAIR_LEN)))
                }
                _ => Ok(None),
            }
        }
        Some(_) => Ok(None),
    }
}

/// `raw` (a link's text as written) with its escapes undone. Every `\` in a link starts an
/// escape that [`escape_at`] reads (any other ends the link before it).
pub(crate) fn unescape(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&raw[i..i + k]);
        i += k;
        match escape_at(&b[i..]) {
            Ok(Some((c, n))) => {
                out.push(c);
                i += n;
            }
            // not inside a link; kept as written
            _ => {
                out.push('\\');
                i += 1;
            }
        }
    }
    out.push_str(&raw[i..]);
    out
}

/// The offset in `raw` of the `n`-th byte of `unescape(raw)` (`n` a character boundary there).
pub(crate) fn raw_offset(raw: &str, n: usize) -> usize {
    let b = raw.as_bytes();
    let (mut i, mut o) = (0, 0);
    while o < n && i < b.len() {
        if b[i] == b'\\'
            && let Ok(Some((c, k))) = escape_at(&b[i..])
        {
            i += k;
            o += c.len_utf8();
            continue;
        }
        i += 1;
        o += 1;
    }
    i
}

impl Ctx<'_> {
    /// The escape at `i` (a `\`), as [`escape_at`]; `Err` when more text may complete it.
    pub(super) fn json_escape(&self, i: usize) -> R<Option<(char, usize)>> {
        let b = self.text.as_bytes();
        let end = b.len().min(i + PAIR_LEN);
        match escape_at(&b[i..end]) {
            Err(()) if !self.eof && end == b.len() => Err(super::NeedMore),
            Err(()) => Ok(None),
            Ok(x) => Ok(x),
        }
    }

    /// The escape that ends at `e` inside a link that starts at or after `lo`, if any: its
    /// character and where it starts. Every `\` in a link starts an escape, so the only ones
    /// that can end at `e` are `\uXXXX` (`\/` ends in `/`, which is never trimmed).
    pub(super) fn json_escape_before(&self, lo: usize, e: usize) -> Option<(char, usize)> {
        let b = self.text.as_bytes();
        if e < lo + 6 || b[e - 6] != b'\\' || b[e - 5] != b'u' {
            return None;
        }
        let v = hex4(&b[e - 4..e])?;
        // the low half of a pair stands for a character beyond the BMP: not punctuation
        let c = char::from_u32(v).unwrap_or('\u{10000}');
        Some((c, e - 6))
    }

    /// The two slashes of `scheme://` at `i` (right after the `:`), each `/`, `\/` or `\u002F`:
    /// their length, and whether any was escaped. `None` when they are not there.
    pub(super) fn slashes_at(&mut self, i: usize) -> R<Option<(usize, bool)>> {
        let mut j = i;
        let mut escaped = false;
        for _ in 0..2 {
            match self.text.as_bytes().get(j) {
                None if !self.eof => return Err(super::NeedMore),
                Some(b'/') => j += 1,
                Some(b'\\') => match self.json_escape(j)? {
                    Some(('/', n)) => {
                        j += n;
                        escaped = true;
                    }
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            }
        }
        self.work += (j - i) as u64;
        Ok(Some((j - i, escaped)))
    }

    /// Whether `scheme://` (RFC 3986 3.1: a letter, then letters, digits, `+`, `-`, `.`; at
    /// most [`super::SCHEME_MAX`] bytes; the slashes as [`Ctx::slashes_at`] reads them) starts at
    /// `i`: a `,` before it ends a link (links joined by commas).
    pub(super) fn scheme_follows(&mut self, i: usize) -> R<bool> {
        let b = self.text.as_bytes();
        let mut j = i;
        loop {
            let Some(&c) = b.get(j) else {
                return if self.eof {
                    Ok(false)
                } else {
                    Err(super::NeedMore)
                };
            };
            let ok = if j == i {
                c.is_ascii_alphabetic()
            } else {
                c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')
            };
            if !ok || j - i >= super::SCHEME_MAX {
                break;
            }
            j += 1;
        }
        self.work += (j - i) as u64;
        if j == i || b.get(j) != Some(&b':') {
            return Ok(false);
        }
        Ok(self.slashes_at(j + 1)?.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_at(br"\/x"), Ok(Some(('/', 2))));
        assert_eq!(escape_at(br"\u0026"), Ok(Some(('&', 6))));
        assert_eq!(escape_at(br"\u00E9"), Ok(Some(('é', 6))));
        assert_eq!(escape_at(br"\ud83d\ude00"), Ok(Some(('\u{1F600}', 12))));
        assert_eq!(escape_at(br"\ud83d\u0041"), Ok(None));
        assert_eq!(escape_at(br"\ud83dx"), Ok(None));
        assert_eq!(escape_at(br"\udc00"), Ok(None));
        assert_eq!(escape_at(br"\u00zz"), Ok(None));
        assert_eq!(escape_at(br#"\""#), Ok(None));
        assert_eq!(escape_at(br"\n"), Ok(None));
        assert_eq!(escape_at(br"\u00"), Err(()));
        assert_eq!(escape_at(br"\ud83d\u"), Err(()));
        assert_eq!(escape_at(br"\"), Err(()));
    }

    #[test]
    fn unescape_and_offsets() {
        let raw = r"http:\/\/a.example\/\ud83d\ude00?a\u0026b";
        let dec = unescape(raw);
        assert_eq!(dec, "http://a.example/\u{1F600}?a&b");
        assert_eq!(raw_offset(raw, 0), 0);
        assert_eq!(raw_offset(raw, 5), 5);
        assert_eq!(raw_offset(raw, 7), 9);
        assert_eq!(raw_offset(raw, dec.len()), raw.len());
        assert_eq!(
            raw_offset(raw, dec.find('?').unwrap()),
            raw.find('?').unwrap()
        );
    }
}

//! Where a stream of raw bytes may be cut into chunks that are scanned apart (`linksieve run`
//! scans chunks in parallel), and which hits a chunk that starts inside a token keeps.
//!
//! The rules follow from the scanner's: the boundary table (`boundary.rs`) says which bytes no
//! link holds, the finder's look-backs stop at them, and in every ASCII-compatible WHATWG
//! encoding LF, SP and the bytes below 0x30 are never trail bytes of a multi-byte character.
//! The caller scans each chunk with a look-ahead past its cut, so that a link that crosses a cut
//! is found whole by the chunk it starts in, and takes a chunk's hits from its [`handover`].
//!
//! ```
//! use linksieve_scan::{chunk, encoding_for_label};
//! let utf8 = encoding_for_label("utf-8").unwrap();
//! let text = b"see http://a.example/x\nand http://b.example/y";
//! assert!(chunk::cuttable(utf8));
//! // after the last line feed: a clean cut, no link crosses it
//! assert_eq!(chunk::cut_in(text, utf8), (23, true));
//! ```

use encoding_rs::Encoding;

/// Encodings whose bytes can be cut at LF and SP without decoding: every WHATWG encoding but
/// UTF-16 and ISO-2022-JP (and `replacement`, which decodes to one U+FFFD).
///
/// ```
/// use linksieve_scan::{chunk::cuttable, encoding_for_label};
/// assert!(cuttable(encoding_for_label("shift_jis").unwrap()));
/// assert!(!cuttable(encoding_for_label("utf-16le").unwrap()));
/// ```
pub fn cuttable(enc: &'static Encoding) -> bool {
    enc != encoding_rs::UTF_16LE
        && enc != encoding_rs::UTF_16BE
        && enc != encoding_rs::ISO_2022_JP
        && enc != encoding_rs::REPLACEMENT
}

/// Where to cut in the window `w` (of a [`cuttable`] encoding `enc`): after its last LF, else
/// after its last space or tab, else (a very long line without spaces: minified JSON, CR-only or
/// NUL-separated text) at its last [`hard_boundary`] byte, else after the last byte below 0x30,
/// which is never a trail byte of a WHATWG multi-byte encoding (gb18030 uses 0x30-0x39 as trail
/// bytes), or at a UTF-8 character boundary; at the window's end when there is none of these.
/// A window of ASCII bytes with none of these is cut before its last byte, in every encoding.
/// The flag says whether the cut is clean: no link crosses it and no link start depends on a
/// byte before it, so the next chunk keeps every hit it finds (else see [`token_end`]).
///
/// ```
/// use linksieve_scan::{chunk::cut_in, encoding_for_label};
/// let utf8 = encoding_for_label("utf-8").unwrap();
/// assert_eq!(cut_in(b"a b\nc d", utf8), (4, true));
/// assert_eq!(cut_in(b"a b c", utf8), (4, true));
/// assert_eq!(cut_in(b"{\"u\":\"http://a.example/\"}", utf8), (23, true));
/// // no clean cut: at a character boundary, inside a token
/// assert_eq!(cut_in("ab\u{e9}cd".as_bytes(), utf8), (5, false));
/// ```
pub fn cut_in(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
    if let Some(p) = memchr::memrchr(b'\n', w) {
        return (p + 1, true);
    }
    if let Some(p) = memchr::memrchr2(b' ', b'\t', w) {
        return (p + 1, true);
    }
    // the rare path (a window of 8-512 KiB with no space): one pass backwards
    if let Some(p) = w.iter().rposition(|&b| hard_boundary(b)) {
        // a line break is cut after, as LF; the others before, so that the next chunk sees
        // the `<` or `"` a link after it may be wrapped in
        return (
            if matches!(w[p], b'\r' | 0x0b | 0x0c) {
                p + 1
            } else {
                p
            },
            true,
        );
    }
    // An ASCII window is cut before its last byte in every encoding: after an ASCII byte (never
    // a lead byte) a character starts in all of them, so two readers of one window agree on
    // the cut whatever encoding each holds (a file whose encoding is decided at its first
    // non-ASCII byte, after chunks read as ASCII).
    if w.len() >= 2 && w.is_ascii() {
        return (w.len() - 1, false);
    }
    let cut = if enc == encoding_rs::UTF_8 {
        (0..w.len())
            .rev()
            .find(|&i| w[i] & 0xC0 != 0x80)
            .unwrap_or(w.len())
    } else if enc.is_single_byte() {
        w.len()
    } else {
        w.iter().rposition(|&b| b < 0x30).map_or(w.len(), |p| p + 1)
    };
    (cut, false)
}

/// How much of `w`, the bytes of a stream not yet scanned when a read error ended it (a
/// compressed file cut short, an input that ends inside a WARC record), to keep: up to its last
/// clean cut, that is after its last line break, then within its last line where [`cut_in`]
/// cuts cleanly (after a space or tab, else before a byte no link holds). A link after that
/// point runs to the error, which may have cut it short (RFC 3986 appendix C: a link ends at a
/// delimiter, and a read error is none), so it is not read as a whole link.
///
/// ```
/// use linksieve_scan::{chunk::kept_before_error, encoding_for_label};
/// let utf8 = encoding_for_label("utf-8").unwrap();
/// assert_eq!(kept_before_error(b"see http://a.example/ and http://b.exa", utf8), 26);
/// assert_eq!(kept_before_error(b"http://a.example/ x\nhttp://b.exa", utf8), 20);
/// assert_eq!(kept_before_error(b"{\"u\":\"http://b.exa", utf8), 5);
/// assert_eq!(kept_before_error(b"http://cut.exa", utf8), 0);
/// ```
pub fn kept_before_error(w: &[u8], enc: &'static Encoding) -> usize {
    let line = memchr::memrchr(b'\n', w).map_or(0, |p| p + 1);
    match cut_in(&w[line..], enc) {
        (cut, true) => line + cut,
        (_, false) => line,
    }
}

/// A byte that no link of the boundary table holds in any ASCII-compatible encoding, inside a
/// `<…>` wrapper too (C0 controls are stops or line breaks, `"` `<` `>` are stops and never
/// characters inside a wrapper) and that is never a trail byte of a WHATWG multi-byte encoding
/// (all are below 0x40): a link ends before it, and the scanner's look-backs (scheme, e-mail
/// local part, host) stop at it, so a chunk may be cut there cleanly.
///
/// ```
/// use linksieve_scan::chunk::hard_boundary;
/// assert!(hard_boundary(b'\r') && hard_boundary(b'<') && hard_boundary(0));
/// assert!(!hard_boundary(b' ') && !hard_boundary(b'/'));
/// ```
pub fn hard_boundary(b: u8) -> bool {
    b < 0x20 || matches!(b, b'"' | b'<' | b'>')
}

/// Where a chunk that starts inside a token (a cut that was not clean, see [`cut_in`]) may take
/// hits from: after the first space, tab, line end or [`hard_boundary`] byte of `bytes` (hits
/// before it may be the tail of a link that crossed the cut, which the chunk before found
/// whole), `bytes.len()` when there is none.
///
/// ```
/// use linksieve_scan::chunk::token_end;
/// assert_eq!(token_end(b"example/x http://b.example/"), 9);
/// assert_eq!(token_end(b"no-end"), 6);
/// ```
pub fn token_end(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| b == b' ' || hard_boundary(b))
        .unwrap_or(bytes.len())
}

/// Where a chunk may take hits from, given `bytes` from its cut (its body and look-ahead),
/// whether it starts inside a token, and the longest link `tail`: hits before it belong to
/// the chunk before, which scans these bytes as its look-ahead and takes its hits up to the
/// same place (`handover` of its look-ahead), so that every hit is owned by one chunk.
///
/// Two things cross a cut: a token ([`token_end`], when the cut is not clean) and a link
/// wrapped in `<…>` whose whitespace runs hold a line break, which RFC 3986 appendix C has a
/// reader remove (`<http://a.example/\n x>` is one link), so that even a cut at a line feed
/// may fall inside it. Such a link holds no `<` or `"` and ends at the first `>`, at most
/// `tail` bytes on: when a `>` comes before every `<` and `"` in the first `tail` bytes, the
/// hits before it may lie inside a link that the chunk before found whole, and the hits
/// after it are found alike by both chunks (the scanner's look-backs stop at a `>`).
///
/// ```
/// use linksieve_scan::chunk::handover;
/// // a clean cut: every hit is the chunk's
/// assert_eq!(handover(b"http://b.example/ <http://c.example/>", false, 64), 0);
/// // inside a token: after it
/// assert_eq!(handover(b"example/x http://b.example/", true, 64), 9);
/// // perhaps inside `<http://a.example/\n x>`: after the `>`
/// assert_eq!(handover(b" x> http://b.example/", false, 64), 3);
/// // `>` after the longest link: no wrapped link reaches it
/// assert_eq!(handover(b" x> http://b.example/", false, 2), 0);
/// ```
pub fn handover(bytes: &[u8], mid_token: bool, tail: usize) -> usize {
    let w = &bytes[..bytes.len().min(tail)];
    let token = if mid_token { token_end(w) } else { 0 };
    let wrapped = match memchr::memchr3(b'>', b'<', b'"', w) {
        Some(p) if w[p] == b'>' => p + 1,
        _ => 0,
    };
    token.max(wrapped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::{Class, ascii_class};

    /// The cut rules agree with the boundary table: a hard boundary, a space or a line end
    /// always ends a link.
    #[test]
    fn cut_bytes_end_links_in_the_boundary_table() {
        for b in 0..0x80u8 {
            if hard_boundary(b) || b == b' ' {
                assert!(
                    matches!(ascii_class(b), Class::Space { .. } | Class::Stop),
                    "{b:#04x}"
                );
            }
        }
    }
}

//! Where chunks of raw bytes are cut, and which hits a chunk cut inside a token keeps.

use super::*;

/// Encodings whose bytes can be cut at LF and SP without decoding: every WHATWG encoding but
/// UTF-16 and ISO-2022-JP (and `replacement`, which decodes to one U+FFFD).
pub(super) fn cuttable(enc: &'static Encoding) -> bool {
    enc != encoding_rs::UTF_16LE
        && enc != encoding_rs::UTF_16BE
        && enc != encoding_rs::ISO_2022_JP
        && enc != encoding_rs::REPLACEMENT
}

/// Where to cut a chunk of raw bytes: [`cut_in`] its second half.
pub(super) fn cut_point(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
    let half = w.len() / 2;
    let (cut, clean) = cut_in(&w[half..], enc);
    ((half + cut).max(1), clean)
}

/// Where to cut in the window `w`: after its last LF, else after its last space or tab, else
/// (a very long line without spaces: minified JSON, CR-only or NUL-separated text) at its last
/// [`hard_boundary`] byte, else after the last byte below 0x30, which is never a trail
/// byte of a WHATWG multi-byte encoding (gb18030 uses 0x30-0x39 as trail bytes), or at a UTF-8
/// character boundary; at the window's end when there is none of these. The flag says whether
/// the cut is clean: no link crosses it and no link start depends on a byte before it, so the
/// next chunk keeps every hit it finds.
pub(super) fn cut_in(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
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

/// A byte that no link of the boundary table holds in any ASCII-compatible encoding, inside a
/// `<…>` wrapper too (`crates/scan/src/boundary.rs`: C0 controls are `Stop` or line breaks,
/// `"` `<` `>` are `Stop` and never `wrapper_char`s) and that is never a trail byte of a WHATWG
/// multi-byte encoding (all are below 0x40): a link ends before it, and the scanner's look-backs
/// (scheme, e-mail local part, host) stop at it, so a chunk may be cut there cleanly.
pub(super) fn hard_boundary(b: u8) -> bool {
    b < 0x20 || matches!(b, b'"' | b'<' | b'>')
}

/// Where a chunk that starts inside a token may take hits from: after the first space, tab,
/// line end or [`hard_boundary`] byte of `bytes` (hits before it may be the tail of a link that
/// crossed the cut, which the chunk before found whole), `bytes.len()` when there is none.
pub(super) fn token_end(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| b == b' ' || hard_boundary(b))
        .unwrap_or(bytes.len())
}

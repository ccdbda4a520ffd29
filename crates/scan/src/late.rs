//! `auto` on input whose first 64 KiB are ASCII: the encoding is decided at the first non-ASCII
//! byte, on the 64 KiB that start there. ASCII reads the same in every ASCII-compatible
//! encoding, so such a window says nothing, and "UTF-8" on it would only be a default: a link in
//! windows-1252 after 86 KB of ASCII log lines (`…/café/menu`) would be cut at its `é`. The
//! ASCII before is scanned as UTF-8, which reads it the same; at the first non-ASCII byte the
//! scan goes on in the decided encoding from the last line break or space before it (a clean
//! cut: no link crosses it). `linksieve run` applies the same rule to its chunks.

use crate::decode::{self, AUTO_WINDOW};
use crate::{Encoding, EncodingChoice};

/// Whether `auto` leaves the decision to the first non-ASCII byte: the choice is `auto`, the
/// input goes on past `head` (not `whole`), and `head`, the window `auto` looked at, is ASCII
/// with no BOM and none of the ASCII signs of UTF-16 or ISO-2022-JP, so that `decided` (what
/// [`crate::detect_encoding`] said on it) is UTF-8 by default.
///
/// ```
/// use linksieve_scan::{decides_late, detect_encoding, EncodingChoice};
/// let head = vec![b'a'; 65536];
/// let d = detect_encoding(EncodingChoice::Auto, &head, false).unwrap();
/// assert!(decides_late(EncodingChoice::Auto, &head, false, d));
/// assert!(!decides_late(EncodingChoice::Auto, &head, true, d));
/// ```
pub fn decides_late(
    choice: EncodingChoice,
    head: &[u8],
    whole: bool,
    decided: (&'static Encoding, usize),
) -> bool {
    choice == EncodingChoice::Auto
        && !whole
        && decided == (encoding_rs::UTF_8, 0)
        && head[..head.len().min(AUTO_WINDOW)].is_ascii()
}

/// The encoding decided on `window`, the bytes from the input's first non-ASCII byte (up to
/// [`crate::AUTO_WINDOW`] of them; `last`: the input ends with them): UTF-8 if they are valid
/// UTF-8, else the guess of `chardetng` (never UTF-16 or ISO-2022-JP, which an ASCII start
/// already ruled out: UTF-8 then).
///
/// ```
/// use linksieve_scan::detect_encoding_after_ascii;
/// assert_eq!(detect_encoding_after_ascii("café".as_bytes(), true).name(), "UTF-8");
/// assert_eq!(detect_encoding_after_ascii(b"\xe9 de la for\xeat, tr\xe8s t\xf4t", true).name(), "windows-1252");
/// ```
pub fn detect_encoding_after_ascii(window: &[u8], last: bool) -> &'static Encoding {
    // the window's rules without the BOM check: bytes at a first non-ASCII byte that look
    // like a BOM are text there (`ÿþ` in windows-1252)
    let w = &window[..window.len().min(AUTO_WINDOW)];
    let enc = decode::guess(w, last && window.len() <= AUTO_WINDOW);
    if crate::chunk::cuttable(enc) {
        enc
    } else {
        encoding_rs::UTF_8
    }
}

/// The position of the first non-ASCII byte of `b` (one vectorised ASCII check first).
///
/// ```
/// assert_eq!(linksieve_scan::first_non_ascii(b"ab\xe9"), Some(2));
/// assert_eq!(linksieve_scan::first_non_ascii(b"abc"), None);
/// ```
pub fn first_non_ascii(b: &[u8]) -> Option<usize> {
    if b.is_ascii() {
        return None;
    }
    b.iter().position(|c| !c.is_ascii())
}

/// The Scanner's state while the decision waits: the ASCII bytes after the last clean cut
/// (held back so that the scan can go on in another encoding from that cut), where they start,
/// and the lines before them; `gathering`: a non-ASCII byte was met, and `held` gathers the
/// 64 KiB after it to decide on.
#[derive(Debug, Default)]
pub(crate) struct Late {
    pub(crate) held: Vec<u8>,
    pub(crate) held_at: u64,
    pub(crate) lines: u64,
    pub(crate) gathering: bool,
}

/// The most ASCII bytes held back after the last clean cut: past it (a token longer than twice
/// the longest link, which is overlong anyway) they are scanned as they come.
pub(crate) fn hold_max(max_link_len: usize) -> usize {
    2 * max_link_len.max(64) + AUTO_WINDOW
}

/// The clean cut in `b`: after its last LF, space or tab (0 when there is none).
pub(crate) fn clean_cut(b: &[u8]) -> usize {
    memchr::memrchr3(b'\n', b' ', b'\t', b).map_or(0, |i| i + 1)
}

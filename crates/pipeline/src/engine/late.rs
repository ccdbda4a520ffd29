//! `auto` on a stream whose first 64 KiB are ASCII: the encoding is decided at its first
//! non-ASCII byte, on the 64 KiB that start there, not on the ASCII window (where every
//! ASCII-compatible encoding reads the same and "UTF-8" would only be a default). Until then the
//! chunks are ASCII, which reads the same in every encoding, and are scanned as UTF-8; so a link
//! in windows-1252 after 86 KB of ASCII log lines (`…/café/menu`) is decoded as windows-1252,
//! not cut at its first non-ASCII byte.
//!
//! A stream read by the reader ([`Reader::stream_fused`]) decides when the reader meets that
//! byte. A plain file read in ranges by the workers decides in the first worker whose range
//! holds a non-ASCII byte ([`decide_file`], once for the file: a [`LateEncoding`] shared by
//! its ranges); ranges that are ASCII need no decision. The decision depends on the file alone,
//! so the keys are the same for every chunk size and thread count.

use super::*;
use std::sync::OnceLock;

/// Whether `auto` leaves the decision to the first non-ASCII byte: the choice is `auto`, the
/// stream goes on past `head`, and `head` (what `auto` looked at) is ASCII with no BOM and none
/// of the ASCII signs of UTF-16 or ISO-2022-JP, so that it was decided UTF-8 by default.
pub(crate) fn defers(
    choice: EncodingChoice,
    head: &[u8],
    whole: bool,
    decided: (&'static Encoding, usize),
) -> bool {
    choice == EncodingChoice::Auto
        && !whole
        && decided == (encoding_rs::UTF_8, 0)
        && head.is_ascii()
}

/// The encoding of a stream decided on `window`, the bytes from its first non-ASCII byte (up to
/// [`linksieve_scan::AUTO_WINDOW`] of them; `last`: the stream ends with them): UTF-8 if they
/// validate, else the chardetng guess (never an encoding whose bytes cannot be cut: UTF-8 then).
pub(crate) fn decide_at(window: &[u8], last: bool) -> &'static Encoding {
    let enc = linksieve_scan::detect_encoding(EncodingChoice::Auto, window, last)
        .map_or(encoding_rs::UTF_8, |(e, _)| e);
    if cuttable(enc) {
        enc
    } else {
        encoding_rs::UTF_8
    }
}

/// The position of the first non-ASCII byte of `b`.
pub(crate) fn first_non_ascii(b: &[u8]) -> Option<usize> {
    if b.is_ascii() {
        return None;
    }
    b.iter().position(|c| !c.is_ascii())
}

/// A plain file's encoding, decided late (see the module), shared by the workers of its ranges.
pub(super) type LateEncoding = Arc<OnceLock<&'static Encoding>>;

/// How a range's bytes are decoded: an encoding decided from the file's start, or one decided
/// at the file's first non-ASCII byte.
pub(super) enum RangeEncoding {
    /// Decided by the reader.
    Known(&'static Encoding),
    /// Decided by the first worker that needs it.
    #[cfg_attr(not(unix), allow(dead_code))]
    Late(LateEncoding),
}

impl RangeEncoding {
    /// The encoding for a range whose bytes (with its cut windows and look-ahead) are `b`: an
    /// ASCII range of a late file reads as UTF-8 (the same in every encoding), another decides.
    #[cfg(unix)]
    pub(super) fn resolve(
        &self,
        b: &[u8],
        file: &std::fs::File,
        start: u64,
        len: u64,
    ) -> &'static Encoding {
        match self {
            RangeEncoding::Known(e) => e,
            RangeEncoding::Late(_) if b.is_ascii() => encoding_rs::UTF_8,
            RangeEncoding::Late(cell) => cell.get_or_init(|| decide_file(file, start, len)),
        }
    }
}

/// Finds the first non-ASCII byte of `file` (from `start`, `len` bytes at opening) and decides
/// on the window there ([`decide_at`]); UTF-8 when there is none or the file cannot be read
/// (the range's own read then reports the file).
#[cfg(unix)]
pub(super) fn decide_file(file: &std::fs::File, start: u64, len: u64) -> &'static Encoding {
    let block = 1u64 << 20;
    let mut buf = vec![0u8; block.min(len.saturating_sub(start)) as usize];
    let mut at = start;
    while at < len {
        let want = block.min(len - at) as usize;
        let n = match pread_full(file, &mut buf[..want], at) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some(p) = first_non_ascii(&buf[..n]) {
            let p = at + p as u64;
            let mut w = vec![0u8; (linksieve_scan::AUTO_WINDOW as u64).min(len - p) as usize];
            let got = pread_full(file, &mut w, p).unwrap_or(0);
            return decide_at(&w[..got], p + got as u64 >= len);
        }
        at += n as u64;
    }
    encoding_rs::UTF_8
}

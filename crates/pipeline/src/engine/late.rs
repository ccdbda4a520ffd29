//! `auto` on a stream whose first 64 KiB are ASCII: the encoding is decided at its first
//! non-ASCII byte, on the 64 KiB that start there (the rule is the scanner's: `linksieve_scan`'s
//! `decides_late` and `detect_encoding_after_ascii`). Until then the chunks are ASCII, which
//! reads the same in every encoding, and are scanned as UTF-8; so a link in windows-1252 after
//! 86 KB of ASCII log lines (`…/café/menu`) is decoded as windows-1252, not cut at its first
//! non-ASCII byte.
//!
//! A stream read by the reader ([`Reader::stream_fused`]) decides when the reader meets that
//! byte. A plain file read in ranges by the workers decides in the first worker whose range
//! holds a non-ASCII byte ([`decide_file`], once for the file: a [`LateEncoding`] shared by
//! its ranges); ranges that are ASCII need no decision. The decision depends on the file alone,
//! so the keys are the same for every chunk size and thread count.

use super::*;
use std::sync::OnceLock;

pub(crate) use linksieve_scan::{decides_late, detect_encoding_after_ascii, first_non_ascii};

/// A plain file's encoding, decided late (see the module), shared by the workers of its ranges.
pub(super) type LateEncoding = Arc<OnceLock<&'static Encoding>>;

/// How a range's bytes are decoded: an encoding decided from the file's start, or one decided
/// at the file's first non-ASCII byte.
#[derive(Clone)]
pub(super) enum RangeEncoding {
    /// Decided by the reader.
    Known(&'static Encoding),
    /// Decided by the first worker that needs it.
    #[cfg_attr(not(unix), allow(dead_code))]
    Late(LateEncoding),
}

impl RangeEncoding {
    /// The encoding for a range whose bytes (with its cut windows and look-ahead) are `b`, and
    /// whether they are known to be ASCII: an ASCII range of a late file reads as UTF-8 (the
    /// same in every encoding, and with nothing malformed), another decides.
    #[cfg(unix)]
    pub(super) fn resolve(
        &self,
        b: &[u8],
        file: &std::fs::File,
        start: u64,
        len: u64,
    ) -> (&'static Encoding, bool) {
        match self {
            RangeEncoding::Known(e) => (e, false),
            RangeEncoding::Late(_) if b.is_ascii() => (encoding_rs::UTF_8, true),
            RangeEncoding::Late(cell) => {
                (cell.get_or_init(|| decide_file(file, start, len)), false)
            }
        }
    }
}

/// Finds the first non-ASCII byte of `file` (from `start`, `len` bytes at opening) and decides
/// on the window there ([`detect_encoding_after_ascii`]); UTF-8 when there is none or the file cannot be read
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
            return detect_encoding_after_ascii(&w[..got], p + got as u64 >= len);
        }
        at += n as u64;
    }
    encoding_rs::UTF_8
}

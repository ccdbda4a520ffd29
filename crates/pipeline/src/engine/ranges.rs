//! Ranges of plain files read by the workers themselves with `pread`, each finding its own
//! cuts at both ends.

use super::*;

/// Reads `buf.len()` bytes of `file` from offset `at`, fewer where the file ends first;
/// returns how many.
#[cfg(unix)]
pub(super) fn pread_full(file: &std::fs::File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A range's chunk in its buffer: `buf[from..to]`, of which the first `body` bytes are the
/// chunk (the rest look-ahead), starting at input offset `offset`, read in `encoding`.
#[cfg(unix)]
pub(super) struct RangeChunk {
    pub(super) encoding: &'static Encoding,
    /// The bytes are known to be ASCII (nothing malformed to count).
    pub(super) ascii: bool,
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) body: usize,
    pub(super) offset: u64,
    pub(super) mid_token: bool,
    pub(super) next_mid_token: bool,
}

/// Bytes before a range's nominal start in which its cut is looked for (see [`Reader::ranges`]).
#[cfg(unix)]
pub(super) fn cut_window(chunk: u64) -> u64 {
    (chunk / 2).min(16 << 10)
}

/// Reads range `k` of a file (from `start`, `len` bytes at opening) into `buf` and finds its
/// chunk. Range `k` nominally covers `start + k * C .. start + (k + 1) * C` (C the chunk size);
/// its chunk runs from the cut before its nominal start to the cut before its nominal end, each
/// found by [`cut_in`] in the [`cut_window`] bytes before the nominal boundary, so that two
/// neighbouring ranges agree on their common cut without knowing each other. A file that ended
/// before its size at opening is an error (what was read is not scanned twice: the chunks
/// before it were already); a range whose look-ahead the file's new end cuts short scans only
/// up to the last clean cut before that end ([`kept_before_error`]), so that no link cut by it
/// is read.
#[cfg(unix)]
pub(super) fn read_range(
    file: &std::fs::File,
    start: u64,
    len: u64,
    k: u64,
    encoding: &RangeEncoding,
    opts: &RunOptions,
    buf: &mut Vec<u8>,
) -> io::Result<RangeChunk> {
    let chunk = opts.chunk_size.max(4096) as u64;
    let tail = opts.scan.max_link_len.max(64) as u64;
    let window = cut_window(chunk);
    let nominal = start + k * chunk;
    let next = (nominal + chunk).min(len);
    let from = if k == 0 { start } else { nominal - window };
    // look-ahead: twice `tail` (see `Worker::scan`)
    let to = (next + 2 * tail).min(len);
    // no clear(): a reused buffer is zeroed only where it grows (a memset of every chunk
    // before the read overwrites it was 2% of `run` on sparse text)
    buf.resize((to - from) as usize, 0);
    let got = pread_full(file, buf, from)?;
    buf.truncate(got);
    // A short read that still covers the range is scanned (only its look-ahead is short: the
    // next range reports the file); one that does not is the error.
    if (got as u64) < next - from {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the file ended at byte {} while it was read ({len} bytes when opened)",
                from + got as u64
            ),
        ));
    }
    let opened = len;
    let end = from + got as u64;
    let len = len.min(end);
    // the encoding before the cuts: a late file's ASCII ranges are cut and read as UTF-8
    let (encoding, ascii) = encoding.resolve(buf, file, start, opened);
    // the cut at a nominal boundary `b` (after `start`): in the window before it
    let cut = |b: u64| -> (u64, bool) {
        let lo = b - window;
        let (c, clean) = cut_in(&buf[(lo - from) as usize..(b - from) as usize], encoding);
        (lo + c as u64, clean)
    };
    let (c0, clean0) = if k == 0 { (start, true) } else { cut(nominal) };
    let (c1, clean1, scan_end) = if end >= to {
        let (c1, clean1) = if next == len { (len, true) } else { cut(next) };
        (c1, clean1, (c1 + 2 * tail).min(len))
    } else {
        // The file shrank while it was read (a log rotated with `copytruncate`): where it ends
        // now is not its end, and a link that runs to it may have been cut short. As for a
        // stream that a read error ended, the scan stops at the last clean cut before it
        // (`kept_before_error`); the ranges that reach past it report the input failed.
        let keep = (from + kept_before_error(buf, encoding) as u64).max(c0);
        let (c1, clean1) = if next == len { (len, false) } else { cut(next) };
        if keep <= c1 {
            (keep, true, keep)
        } else {
            (c1, clean1, (c1 + 2 * tail).min(keep))
        }
    };
    Ok(RangeChunk {
        encoding,
        ascii,
        from: (c0 - from) as usize,
        to: (scan_end - from) as usize,
        body: (c1 - c0) as usize,
        offset: c0,
        mid_token: !clean0,
        next_mid_token: !clean1,
    })
}

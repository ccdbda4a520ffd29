//! The public scanner: [`Scanner`] (streaming) and [`scan_bytes`] (one buffer), with their
//! counters ([`ScanStats`]). The work is the engine's (`engine/`); the scanner decides the
//! encoding and starts it.

use crate::decode::{self, AUTO_WINDOW};
use crate::engine::{Engine, OnHit};
use crate::late::{Late, clean_cut, hold_max};
use crate::{Encoding, Hit, HitRef, ScanError, ScanOptions};
use crate::{decides_late, detect_encoding_after_ascii, first_non_ascii};

/// Counters of one scan.
///
/// ```
/// use linksieve_scan::{scan_bytes, EncodingChoice, ScanOptions, encoding_for_label};
/// let utf8 = EncodingChoice::Fixed(encoding_for_label("utf-8").unwrap());
/// let r = scan_bytes(b"http://a.example/ \xff", &ScanOptions { encoding: utf8, ..Default::default() });
/// assert_eq!(r.stats.malformed_sequences, 1);
/// assert_eq!(r.stats.hits, 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Input bytes fed.
    pub bytes_in: u64,
    /// Malformed byte sequences (each decoded as one U+FFFD).
    pub malformed_sequences: u64,
    /// Bytes in malformed sequences.
    pub malformed_bytes: u64,
    /// Candidates longer than the maximum link length, skipped.
    pub too_long: u64,
    /// Candidate positions examined.
    pub candidates: u64,
    /// Links reported.
    pub hits: u64,
    /// Text bytes visited by the finder (look backs, forward scans, rescans after waiting for
    /// input): a work counter that grows linearly with the input.
    pub work: u64,
    /// Input bytes the decoder never saw (see [`ScanOptions::decode_all`]): scanned in place
    /// where they are their own text, or far from any candidate. Set when the scan finishes.
    pub skipped_bytes: u64,
}

/// Everything [`scan_bytes`] found.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let r = scan_bytes(b"", &ScanOptions::default());
/// assert!(r.hits.is_empty());
/// assert_eq!(r.encoding.name(), "UTF-8");
/// ```
#[derive(Debug, Clone)]
pub struct ScanResult {
    /// The links, in input order.
    pub hits: Vec<Hit>,
    /// Counters.
    pub stats: ScanStats,
    /// The encoding used.
    pub encoding: &'static Encoding,
}

/// Scans a whole input.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let r = scan_bytes("請看http://example.com/文件。謝謝".as_bytes(), &ScanOptions::default());
/// assert_eq!(r.hits[0].text, "http://example.com/文件");
/// ```
pub fn scan_bytes(input: &[u8], opts: &ScanOptions) -> ScanResult {
    let mut s = Scanner::new(opts);
    let mut hits = Vec::new();
    // `feed` and `finish` fail only after `finish`
    let _ = s.feed(input, &mut hits);
    let _ = s.finish(&mut hits);
    ScanResult {
        hits,
        stats: *s.stats(),
        encoding: s.encoding().unwrap_or(encoding_rs::UTF_8),
    }
}

/// Why [`scan_reader`] stopped early: the reader failed, or the caller's `on_hit` did (a closed
/// output, say).
///
/// ```
/// use linksieve_scan::ReadScanError;
/// let e: ReadScanError<String> = ReadScanError::Read(std::io::Error::other("disk"));
/// assert!(matches!(e, ReadScanError::Read(_)));
/// ```
#[derive(Debug)]
pub enum ReadScanError<E> {
    /// Reading the input failed (what was read before is scanned and reported).
    Read(std::io::Error),
    /// The caller's `on_hit` returned this error; the scan stopped there.
    OnHit(E),
}

/// Scans everything `reader` yields (read in blocks of 256 KiB, scanned as a stream: the
/// result does not depend on the blocks) and calls `on_hit` with each hit; returns the counters.
/// Stops at the first error of `on_hit`. A read error ends the input: the links before it are
/// reported up to the last clean cut of what was read
/// ([`kept_before_error`](crate::chunk::kept_before_error): a link after it may have been cut
/// short by the error), then the error is returned. So the bytes after the last clean cut of
/// each block wait for the next block before they are scanned.
///
/// ```
/// use linksieve_scan::{scan_reader, ScanOptions, ReadScanError};
/// use std::io::Read;
/// let mut got = Vec::new();
/// let text = b"see http://a.example/ and mailto:b@c.example".as_slice();
/// let stats = scan_reader(&mut &text[..], &ScanOptions::default(), |h| {
///     got.push(h.text.to_owned());
///     Ok::<(), ()>(())
/// })
/// .unwrap();
/// assert_eq!(got, ["http://a.example/", "mailto:b@c.example"]);
/// assert_eq!(stats.hits, 2);
///
/// // an input cut by a read error: the link it cut short is not reported
/// struct Cut<'a>(&'a [u8]);
/// impl Read for Cut<'_> {
///     fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
///         if self.0.is_empty() {
///             return Err(std::io::Error::other("cut"));
///         }
///         let n = self.0.len().min(buf.len());
///         buf[..n].copy_from_slice(&self.0[..n]);
///         self.0 = &self.0[n..];
///         Ok(n)
///     }
/// }
/// let mut got = Vec::new();
/// let mut cut = Cut(b"see http://a.example/ and http://b.exa");
/// let r = scan_reader(&mut cut, &ScanOptions::default(), |h| {
///     got.push(h.text.to_owned());
///     Ok::<(), ()>(())
/// });
/// assert!(matches!(r, Err(ReadScanError::Read(_))));
/// assert_eq!(got, ["http://a.example/"]);
/// ```
pub fn scan_reader<E>(
    reader: &mut dyn std::io::Read,
    opts: &ScanOptions,
    mut on_hit: impl FnMut(HitRef<'_>) -> Result<(), E>,
) -> Result<ScanStats, ReadScanError<E>> {
    let mut scanner = Scanner::new(opts);
    let mut buf = vec![0u8; 256 << 10];
    // the clean cuts of ASCII-compatible encodings are ASCII bytes (see `kept_before_error`)
    let enc = match opts.encoding {
        crate::EncodingChoice::Fixed(e) => e,
        _ => encoding_rs::UTF_8,
    };
    // `buf[..held]`: read, not yet scanned (after the last clean cut)
    let mut held = 0;
    // the first error of `on_hit`: the scan stops after the block it came in
    let mut failed = None;
    let mut read_error = None;
    loop {
        let n = match reader.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                read_error = Some(e);
                break;
            }
        };
        let end = held + n;
        let keep = if n == 0 {
            end
        } else {
            match crate::chunk::kept_before_error(&buf[..end], enc) {
                // a full buffer with no clean cut: its token is longer than any link
                0 if end == buf.len() => end,
                k => k,
            }
        };
        // `feed_with` and `finish_with` fail only after `finish`
        let _ = scanner.feed_with(&buf[..keep], |h| {
            if failed.is_none() {
                failed = on_hit(h).err();
            }
        });
        if let Some(e) = failed.take() {
            return Err(ReadScanError::OnHit(e));
        }
        buf.copy_within(keep..end, 0);
        held = end - keep;
        if n == 0 {
            break;
        }
    }
    let _ = scanner.finish_with(|h| {
        if failed.is_none() {
            failed = on_hit(h).err();
        }
    });
    match (failed, read_error) {
        (Some(e), _) => Err(ReadScanError::OnHit(e)),
        (None, Some(e)) => Err(ReadScanError::Read(e)),
        (None, None) => Ok(*scanner.stats()),
    }
}

/// Adds another scan's counters (several inputs scanned apart).
///
/// ```
/// let mut total = linksieve_scan::ScanStats::default();
/// total += linksieve_scan::ScanStats { hits: 2, bytes_in: 10, ..Default::default() };
/// total += linksieve_scan::ScanStats { hits: 1, bytes_in: 5, ..Default::default() };
/// assert_eq!((total.hits, total.bytes_in), (3, 15));
/// ```
impl std::ops::AddAssign for ScanStats {
    fn add_assign(&mut self, o: ScanStats) {
        let ScanStats {
            bytes_in,
            malformed_sequences,
            malformed_bytes,
            too_long,
            candidates,
            hits,
            work,
            skipped_bytes,
        } = o;
        self.bytes_in += bytes_in;
        self.malformed_sequences += malformed_sequences;
        self.malformed_bytes += malformed_bytes;
        self.too_long += too_long;
        self.candidates += candidates;
        self.hits += hits;
        self.work += work;
        self.skipped_bytes += skipped_bytes;
    }
}

/// A streaming scanner: [`feed`](Scanner::feed) chunks, then [`finish`](Scanner::finish).
///
/// ```
/// use linksieve_scan::{Scanner, ScanOptions};
/// let mut s = Scanner::new(&ScanOptions::default());
/// let mut hits = Vec::new();
/// s.feed(b"see http://exa", &mut hits).unwrap();
/// s.feed(b"mple.com/ ok", &mut hits).unwrap();
/// s.finish(&mut hits).unwrap();
/// assert_eq!(hits[0].text, "http://example.com/");
/// assert_eq!((hits[0].start, hits[0].end), (4, 23));
/// ```
pub struct Scanner {
    opts: ScanOptions,
    /// input held until the encoding is decided
    pending: Vec<u8>,
    /// started once the encoding is decided
    eng: Option<Engine>,
    /// the counters until the engine starts, which then keeps them
    stats: ScanStats,
    /// see [`count_overlong_in`](Scanner::count_overlong_in)
    owned: std::ops::Range<u64>,
    /// see [`record_overlong`](Scanner::record_overlong)
    record: bool,
    /// `auto` on an ASCII start: the decision waits for the first non-ASCII byte
    /// ([`crate::late`]); the engine meanwhile reads the ASCII as UTF-8
    late: Option<Late>,
    /// Bytes the engine before a late decision never decoded
    skipped_before: u64,
    finished: bool,
}

impl Scanner {
    /// A scanner with these options.
    ///
    /// ```
    /// let s = linksieve_scan::Scanner::new(&Default::default());
    /// assert!(s.encoding().is_none());
    /// ```
    pub fn new(opts: &ScanOptions) -> Scanner {
        Scanner {
            opts: *opts,
            pending: Vec::new(),
            eng: None,
            stats: ScanStats::default(),
            owned: 0..u64::MAX,
            record: false,
            late: None,
            skipped_before: 0,
            finished: false,
        }
    }

    /// Counts in [`ScanStats::too_long`] only the overlong candidates that start at an input
    /// offset in `range` (all of them by default), as a caller that keeps only the hits that
    /// start there (a chunk scanned with a look-ahead that is the next chunk's body) counts
    /// each overlong candidate once, in the chunk it starts in.
    ///
    /// ```
    /// use linksieve_scan::{Scanner, ScanOptions};
    /// let opts = ScanOptions { max_link_len: 256, ..Default::default() };
    /// let long = format!("http://a.example/{} http://b.example/{}", "x".repeat(300), "y".repeat(300));
    /// let mut s = Scanner::new(&opts);
    /// s.count_overlong_in(0..100);
    /// s.feed_with(long.as_bytes(), |_| {}).unwrap();
    /// s.finish_with(|_| {}).unwrap();
    /// assert_eq!(s.stats().too_long, 1);
    /// ```
    pub fn count_overlong_in(&mut self, range: std::ops::Range<u64>) {
        if let Some(eng) = self.eng.as_mut() {
            eng.owned = range.clone();
        }
        self.owned = range;
    }

    /// Keeps the input offset where each overlong candidate counted from now on starts (one
    /// number each: candidates are longer than [`ScanOptions::max_link_len`]), for
    /// [`overlong_starts`](Scanner::overlong_starts).
    ///
    /// ```
    /// use linksieve_scan::{Scanner, ScanOptions};
    /// let mut s = Scanner::new(&ScanOptions { max_link_len: 256, ..Default::default() });
    /// s.record_overlong();
    /// let text = format!("see http://a.example/{}", "x".repeat(300));
    /// s.feed_with(text.as_bytes(), |_| {}).unwrap();
    /// s.finish_with(|_| {}).unwrap();
    /// assert_eq!(s.overlong_starts(), [4]);
    /// ```
    pub fn record_overlong(&mut self) {
        self.record = true;
        if let Some(eng) = self.eng.as_mut() {
            eng.overlong_at.get_or_insert_with(Vec::new);
        }
    }

    /// The input offsets where the overlong candidates counted since
    /// [`record_overlong`](Scanner::record_overlong) start, in input order.
    ///
    /// ```
    /// assert!(linksieve_scan::Scanner::new(&Default::default()).overlong_starts().is_empty());
    /// ```
    pub fn overlong_starts(&self) -> &[u64] {
        self.eng
            .as_ref()
            .and_then(|e| e.overlong_at.as_deref())
            .unwrap_or(&[])
    }

    /// The encoding, once decided (after 64 KiB of input or at [`finish`](Scanner::finish)
    /// with `auto`; after 3 bytes with a label, for the BOM check).
    ///
    /// ```
    /// use linksieve_scan::{EncodingChoice, Scanner, ScanOptions, encoding_for_label};
    /// let opts = ScanOptions {
    ///     encoding: EncodingChoice::Fixed(encoding_for_label("sjis").unwrap()),
    ///     ..Default::default()
    /// };
    /// let mut s = Scanner::new(&opts);
    /// s.feed(b"abc", &mut Vec::new()).unwrap();
    /// assert_eq!(s.encoding().unwrap().name(), "Shift_JIS");
    /// ```
    pub fn encoding(&self) -> Option<&'static Encoding> {
        self.eng.as_ref().map(Engine::encoding)
    }

    /// Counters so far.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// s.feed(b"abc", &mut Vec::new()).unwrap();
    /// assert_eq!(s.stats().hits, 0);
    /// ```
    pub fn stats(&self) -> &ScanStats {
        match &self.eng {
            Some(eng) => &eng.stats,
            None => &self.stats,
        }
    }

    /// Feeds the next chunk of input; links that are complete are appended to `out`.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut out = Vec::new();
    /// s.feed(b"http://a.example/ and more", &mut out).unwrap();
    /// s.finish(&mut out).unwrap();
    /// assert_eq!(out.len(), 1);
    /// assert!(s.feed(b"x", &mut out).is_err());
    /// ```
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Hit>) -> Result<(), ScanError> {
        self.feed_with(chunk, |h| out.push(h.to_hit()))
    }

    /// Ends the input: decodes what is left and reports the remaining links.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut out = Vec::new();
    /// s.feed(b"urn:isbn:0451450523", &mut out).unwrap();
    /// assert!(out.is_empty());
    /// s.finish(&mut out).unwrap();
    /// assert_eq!(out[0].text, "urn:isbn:0451450523");
    /// ```
    pub fn finish(&mut self, out: &mut Vec<Hit>) -> Result<(), ScanError> {
        self.finish_with(|h| out.push(h.to_hit()))
    }

    /// [`feed`](Scanner::feed) without copying: each link is passed to `on_hit` as a [`HitRef`]
    /// that borrows the scanner's text.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut n = 0;
    /// s.feed_with(b"see http://a.example/ and http://b.example/ ", |h| n += h.text.len()).unwrap();
    /// s.finish_with(|h| n += h.text.len()).unwrap();
    /// assert_eq!(n, 34);
    /// ```
    pub fn feed_with(
        &mut self,
        chunk: &[u8],
        mut on_hit: impl FnMut(HitRef<'_>),
    ) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        if let Some(eng) = self.eng.as_mut() {
            eng.stats.bytes_in += chunk.len() as u64;
            if self.late.is_none() {
                eng.feed(chunk, &mut on_hit);
            } else {
                self.late_feed(chunk, false, &mut on_hit);
            }
        } else {
            self.stats.bytes_in += chunk.len() as u64;
            // a first chunk that decides the encoding (always, for a fixed one) is scanned
            // where it lies, without a copy into `pending`
            if self.pending.is_empty()
                && let Some((enc, bom)) = decode::decide(self.opts.encoding, chunk, false)
            {
                self.begin(enc, bom, chunk, &mut on_hit);
                return Ok(());
            }
            self.pending.extend_from_slice(chunk);
            let Some((enc, bom)) = decode::decide(self.opts.encoding, &self.pending, false) else {
                return Ok(());
            };
            let pending = std::mem::take(&mut self.pending);
            self.begin(enc, bom, &pending, &mut on_hit);
        }
        Ok(())
    }

    /// [`finish`](Scanner::finish) without copying (see [`feed_with`](Scanner::feed_with)).
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// s.feed_with(b"mailto:a@b.example", |_| {}).unwrap();
    /// let mut got = Vec::new();
    /// s.finish_with(|h| got.push(h.text.to_owned())).unwrap();
    /// assert_eq!(got, ["mailto:a@b.example"]);
    /// ```
    pub fn finish_with(&mut self, mut on_hit: impl FnMut(HitRef<'_>)) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        self.finished = true;
        if self.eng.is_none() {
            let (enc, bom) = decode::decide(self.opts.encoding, &self.pending, true)
                .unwrap_or((encoding_rs::UTF_8, 0));
            let bom = bom.min(self.pending.len());
            let pending = std::mem::take(&mut self.pending);
            self.start(enc, bom, &pending, &mut on_hit);
        }
        if self.late.is_some() {
            self.late_feed(&[], true, &mut on_hit);
        }
        if let Some(eng) = self.eng.as_mut() {
            eng.finish(&mut on_hit);
            eng.stats.skipped_bytes += self.skipped_before;
        }
        Ok(())
    }

    /// The encoding is decided on `first`, the input so far (not all of it): starts the engine,
    /// or, on an ASCII start with `auto`, the engine for ASCII and the wait for the first
    /// non-ASCII byte ([`crate::late`]).
    fn begin(&mut self, enc: &'static Encoding, bom: usize, first: &[u8], on_hit: &mut OnHit<'_>) {
        if decides_late(self.opts.encoding, first, false, (enc, bom)) {
            self.start(enc, 0, &[], on_hit);
            self.late = Some(Late::default());
            self.late_feed(first, false, on_hit);
        } else {
            self.start(enc, bom, first, on_hit);
        }
    }

    /// While the decision waits: scans the ASCII up to its last clean cut and holds the rest;
    /// at the first non-ASCII byte (with 64 KiB after it, or the input's end: `last`), decides,
    /// finishes the ASCII engine at the clean cut before that byte and starts the engine of the
    /// decided encoding there.
    fn late_feed(&mut self, chunk: &[u8], last: bool, on_hit: &mut OnHit<'_>) {
        let Some(late) = self.late.as_mut() else {
            return;
        };
        let at_byte = if late.gathering {
            None
        } else {
            first_non_ascii(chunk)
        };
        // a non-ASCII byte too near the end for its window: the window is gathered (once)
        if late.gathering || at_byte.is_some_and(|p| chunk.len() - p < AUTO_WINDOW && !last) {
            late.gathering = true;
            late.held.extend_from_slice(chunk);
            let held = std::mem::take(&mut late.held);
            let p = first_non_ascii(&held).unwrap_or(held.len());
            if held.len() - p < AUTO_WINDOW && !last {
                late.held = held;
                return;
            }
            let end = held.len().min(p + AUTO_WINDOW);
            let enc = detect_encoding_after_ascii(&held[p..end], last && end == held.len());
            let q = clean_cut(&held[..p]);
            return self.switch(enc, [&held[..q], &[]], [&held[q..], &[]], on_hit);
        }
        let Some(eng) = self.eng.as_mut() else {
            return;
        };
        let mut held = std::mem::take(&mut late.held);
        let Some(p) = at_byte else {
            // ASCII: scanned to the last clean cut (all of it at the end, or past the hold);
            // what follows the cut is held (a part of a line, copied)
            let mut c = clean_cut(chunk);
            let all =
                last || (c == 0 && held.len() + chunk.len() > hold_max(self.opts.max_link_len));
            if all {
                c = chunk.len();
            }
            if c == 0 && !all {
                held.extend_from_slice(chunk);
            } else {
                for b in [&held[..], &chunk[..c]] {
                    eng.feed(b, on_hit);
                    late.lines += lf(self.opts.lines, b);
                    late.held_at += b.len() as u64;
                }
                held.clear();
                held.extend_from_slice(&chunk[c..]);
            }
            late.held = held;
            if last {
                self.late = None;
            }
            return;
        };
        let end = chunk.len().min(p + AUTO_WINDOW);
        let enc = detect_encoding_after_ascii(&chunk[p..end], last && end == chunk.len());
        match clean_cut(&chunk[..p]) {
            0 => self.switch(enc, [&[], &[]], [&held, chunk], on_hit),
            c => self.switch(enc, [&held, &chunk[..c]], [&chunk[c..], &[]], on_hit),
        }
    }

    /// The late decision taken: the ASCII engine reads `before` (ASCII up to a clean cut) and
    /// finishes; the engine of `enc` starts at that cut and reads `after`, its lines counted
    /// after those before it.
    fn switch(
        &mut self,
        enc: &'static Encoding,
        before: [&[u8]; 2],
        after: [&[u8]; 2],
        on_hit: &mut OnHit<'_>,
    ) {
        let (Some(eng), Some(late)) = (self.eng.as_mut(), self.late.take()) else {
            return;
        };
        let (mut at, mut lines) = (late.held_at, late.lines);
        for b in before {
            eng.feed(b, on_hit);
            lines += lf(self.opts.lines, b);
            at += b.len() as u64;
        }
        eng.finish(on_hit);
        let mut stats = eng.stats;
        self.skipped_before += stats.skipped_bytes;
        stats.skipped_bytes = 0;
        let mut next = Engine::new(enc, at as usize, &self.opts, stats);
        next.owned = self.owned.clone();
        if self.record {
            next.overlong_at = eng.overlong_at.take();
        }
        next.lines_before(lines);
        for b in after {
            next.feed(b, on_hit);
        }
        self.eng = Some(next);
    }

    /// The encoding is decided: starts the engine on the input's first bytes (`bom` of them a
    /// byte order mark).
    fn start(&mut self, enc: &'static Encoding, bom: usize, first: &[u8], on_hit: &mut OnHit<'_>) {
        let stats = std::mem::take(&mut self.stats);
        let mut eng = Engine::new(enc, bom, &self.opts, stats);
        eng.owned = self.owned.clone();
        if self.record {
            eng.overlong_at = Some(Vec::new());
        }
        eng.feed(&first[bom..], on_hit);
        self.eng = Some(eng);
    }
}

/// The line feeds in `b`, when lines are counted.
fn lf(on: bool, b: &[u8]) -> u64 {
    if on {
        memchr::memchr_iter(b'\n', b).count() as u64
    } else {
        0
    }
}

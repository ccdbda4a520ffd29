//! Decoding and finding for one stream: the [`Engine`], in two modes, each in its own file.
//! `raw.rs` finds links in place in the input bytes (and drives the engine for the
//! ASCII-compatible encodings); `text.rs` finds them in the decoded text window.

mod raw;
mod text;

use crate::decode::{Family, Map, Stream};
use crate::find::{self, Opts};
use crate::hit::{HitRef, Maker};
use crate::trigger::{Hay, Triggers};
use crate::{ScanOptions, ScanStats};
use encoding_rs::Encoding;

/// Input collected before it is looked at: small chunks are gathered so that the per-chunk
/// work (the look back carried over to the next chunk) is spread over enough input.
const BATCH: usize = 16 * 1024;
/// The least gap worth skipping when the text window restarts (bytes): decoding UTF-8 is a
/// validated copy, decoding the other encodings costs more than restarting.
const MIN_SKIP_UTF8: u64 = 512;
const MIN_SKIP_LEGACY: u64 = 32;
/// Input decoded after a candidate when the text window takes it; doubles while more is needed.
const FWD0: u64 = 96;
const FWD_MAX: u64 = 64 * 1024;
/// Input looked at in place after a candidate at first: it grows while candidates are dense
/// (up to the whole chunk), so that sparse text is validated only around candidates.
const DWIN0: u64 = 1024;
const DWIN_MAX: u64 = 1 << 22;
/// How far back from where a window must start a restart point is looked for.
const SYNC_SCAN: u64 = 256;

/// Where the engine's hits go.
pub(crate) type OnHit<'s> = dyn FnMut(HitRef<'_>) + 's;

/// Where the engine of an ASCII-compatible encoding is (see [`Engine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Candidates are looked for in the input bytes, and each is decided in place where the
    /// bytes around it are their own text.
    Raw,
    /// The text window holds the decoded text around a candidate that needs it.
    Text,
}

/// Decoding and finding for one stream.
///
/// **Text window.** A decoder for the whole stream writes decoded text into `text`, which the
/// finder scans (`run`). This is how UTF-16, ISO-2022-JP and the `replacement` encoding are
/// always scanned, and every encoding with [`ScanOptions::decode_all`].
///
/// **In place** (`lazy`). For the ASCII-compatible stateless encodings (UTF-8, the single-byte
/// encodings, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030) the candidates are looked for in
/// the input bytes (`trigger.rs`: `:` `.` `/` are never part of a multi-byte character there).
/// Around a candidate, from a byte where decoding restarts exactly (`Family::is_sync`) far
/// enough back for every look back of the finder (`reach_of`), the input bytes are their own
/// text as long as they are valid UTF-8 (UTF-8) or ASCII (the others): the finder runs right on
/// them (`run_direct`), over every candidate up to where that stops, with no copy, no decoder
/// and input offsets for free. A valid UTF-8 chunk is one such window. A candidate that needs
/// more (a non-ASCII character, malformed input, the next chunk) or is too long is handed to
/// the text window (`enter_text`), which restarts decoding at a restart point before it (or
/// goes on where it stopped) and starts the finder right at that candidate, with the floor and
/// line count carried over; when the finder there has decided everything, scanning goes back
/// to the input bytes (`leave_text`). Every candidate is decided once, on exactly the text the
/// whole decoded stream has around it, so the links are those of decoding everything; each
/// input byte is looked at a bounded number of times, so the work stays linear.
pub(crate) struct Engine {
    /// what the finder looks for ([`ScanOptions`] less the encoding)
    opts: Opts,
    trig: Triggers,
    /// the counters of the scan
    pub(crate) stats: ScanStats,
    /// input offsets where an overlong candidate must start to be counted in
    /// `stats.too_long` (see `Scanner::count_overlong_in`)
    pub(crate) owned: std::ops::Range<u64>,
    /// where the counted overlong candidates start, when asked (`Scanner::record_overlong`)
    pub(crate) overlong_at: Option<Vec<u64>>,
    /// the overlong candidate being skipped is counted here (it starts in `owned`), and so
    /// are the links it holds
    skip_counts: bool,
    /// builds the hits
    hits: Maker,
    stream: Stream,
    map: Map,
    family: Family,
    lazy: bool,
    /// input bytes a window starts before its candidate at most (see `reach_of`)
    reach: u64,
    /// `.` and `@` are triggers (schemeless, email): they look back over up to `HOST_MAX`
    wide: bool,
    min_skip: u64,
    /// least text to wait for after a candidate asked for more
    min_wait: u64,
    /// the decoder got its last input
    done: bool,
    // the text window and its finder
    text: String,
    base: u64,
    pos: usize,
    floor: usize,
    skipping: bool,
    wait_until: u64,
    /// count lines ([`ScanOptions::lines`]); off, `line` stays 0
    lines: bool,
    /// `line` is the line at text offset `line_pos` (text mode)
    line: u64,
    line_pos: u64,
    // in place
    mode: Mode,
    /// raw mode: every candidate before this input offset is decided
    cur: u64,
    /// links never start before this input offset (the end of the last link)
    floor_raw: u64,
    /// raw mode: `line` is the line at this input offset
    line_raw: u64,
    /// input kept for the next chunk, from `rbuf_abs` on: what the text window has not
    /// decoded yet (text mode), or what a candidate of the next chunk may look back at (raw
    /// mode; `rbuf_abs` is then a character boundary)
    rbuf: Vec<u8>,
    rbuf_abs: u64,
    /// the (up to) eight input bytes before `rbuf_abs`
    before: [u8; 8],
    fwd: u64,
    dwin: u64,
    /// input offset of the first byte after the BOM, and input bytes given to the decoder
    first: u64,
    decoded: u64,
}

/// The bytes of `raw` from input offset `from` to `to` (`raw` starts at `abs`).
#[inline]
fn span(raw: &[u8], abs: u64, from: u64, to: u64) -> &[u8] {
    &raw[(from - abs) as usize..(to - abs) as usize]
}

impl Engine {
    /// The engine for a stream in `enc` whose first `bom` bytes are a byte order mark, with the
    /// counters so far.
    pub(crate) fn new(
        enc: &'static Encoding,
        bom: usize,
        opts: &ScanOptions,
        stats: ScanStats,
    ) -> Engine {
        let trig = Triggers {
            schemeless: opts.schemeless,
            email: opts.email,
        };
        let lines = opts.lines;
        let (stream, map) = Stream::new(enc, bom as u64, 0);
        let family = Family::of(enc);
        let lazy = family.lazy() && !opts.decode_all;
        let wide = trig.schemeless || trig.email;
        let reach = if wide {
            // `.` and `@` look back over a host or a local part; an IPv6 address; two input
            // bytes per text byte at most
            2 * (find::HOST_MAX as u64 + 64)
        } else {
            // a scheme, `URL:` and `<` before it
            2 * (find::SCHEME_MAX as u64 + 16)
        };
        Engine {
            opts: Opts {
                schemeless: opts.schemeless,
                ascii_only: opts.ascii_only,
                max_len: opts.max_link_len.max(8),
                html: opts.html,
            },
            trig,
            stats,
            owned: 0..u64::MAX,
            overlong_at: None,
            skip_counts: true,
            hits: Maker::new(enc),
            stream,
            map,
            family,
            lazy,
            reach,
            wide,
            min_skip: if family == Family::Utf8 {
                MIN_SKIP_UTF8
            } else {
                MIN_SKIP_LEGACY
            },
            min_wait: if !lazy {
                4096
            } else if family == Family::Utf8 {
                256
            } else {
                16
            },
            done: false,
            text: String::new(),
            base: 0,
            pos: 0,
            floor: 0,
            skipping: false,
            wait_until: 0,
            lines,
            line: lines as u64,
            line_pos: 0,
            mode: Mode::Text,
            cur: bom as u64,
            floor_raw: bom as u64,
            line_raw: bom as u64,
            rbuf: Vec::new(),
            rbuf_abs: bom as u64,
            before: [0; 8],
            fwd: FWD0,
            dwin: DWIN0,
            first: bom as u64,
            decoded: 0,
        }
    }

    /// Starts the line count after `before` lines (an engine started mid-stream, at a clean cut
    /// after them); a no-op when lines are not counted.
    pub(crate) fn lines_before(&mut self, before: u64) {
        if self.lines {
            self.line += before;
        }
    }

    /// The encoding of the stream.
    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.stream.encoding
    }

    /// Scans the next chunk of input.
    pub(crate) fn feed(&mut self, chunk: &[u8], on_hit: &mut OnHit<'_>) {
        if !self.lazy {
            self.decode(chunk, false);
            self.run(false, on_hit);
            return;
        }
        if chunk.len() < BATCH {
            self.rbuf.extend_from_slice(chunk);
            if self.rbuf.len() < BATCH {
                return;
            }
            let r = std::mem::take(&mut self.rbuf);
            let abs = self.rbuf_abs;
            self.pump(&r, abs, false, on_hit);
            self.keep(&r, abs);
            return;
        }
        if !self.rbuf.is_empty() {
            let mut r = std::mem::take(&mut self.rbuf);
            let abs = self.rbuf_abs;
            self.pump(&r, abs, false, on_hit);
            // the chunk cannot look back into `r` in place: the text window takes what is
            // left of it, and the chunk starts where the decoder stands
            let end = abs + r.len() as u64;
            match self.mode {
                Mode::Text => {
                    let dec = self.stream.src_pos();
                    self.decode(span(&r, abs, dec, end), false);
                    self.run(false, on_hit);
                }
                Mode::Raw => {
                    let hay = Hay {
                        b: &r,
                        before: self.before,
                        eof: false,
                    };
                    self.enter_text(&hay, abs, end, self.reach, false, on_hit);
                }
            }
            self.before = last8(&self.before, &r, r.len());
            r.clear();
            self.rbuf = r;
            self.rbuf_abs = end;
        }
        let abs = self.rbuf_abs;
        self.pump(chunk, abs, false, on_hit);
        self.keep(chunk, abs);
    }

    /// Ends the input.
    pub(crate) fn finish(&mut self, on_hit: &mut OnHit<'_>) {
        if !self.lazy {
            self.decode(&[], true);
            self.run(true, on_hit);
            return;
        }
        let r = std::mem::take(&mut self.rbuf);
        let abs = self.rbuf_abs;
        self.pump(&r, abs, true, on_hit);
        let end = abs + r.len() as u64;
        self.stats.skipped_bytes = (end - self.first).saturating_sub(self.decoded);
    }

    /// Keeps the end of `raw` (from `abs`) that the next chunk needs, after [`Engine::pump`].
    fn keep(&mut self, raw: &[u8], abs: u64) {
        let end = abs + raw.len() as u64;
        let dec = self.stream.src_pos();
        let keep = match self.mode {
            // what the text window has not decoded
            Mode::Text => dec,
            // every candidate is decided: what a candidate of the next chunk may look back at
            // (`pump` found the point)
            Mode::Raw => self.keep_point(raw, abs).unwrap_or(dec),
        };
        let keep = keep.clamp(abs, end);
        if self.mode == Mode::Raw && keep > self.line_raw {
            let from = self.line_raw.max(abs);
            self.line += lf(self.lines, span(raw, abs, from, keep));
            self.line_raw = keep;
        }
        let k = (keep - abs) as usize;
        self.before = last8(&self.before, raw, k);
        if raw.as_ptr() == self.rbuf.as_ptr() {
            self.rbuf.drain(..k);
        } else {
            let mut r = std::mem::take(&mut self.rbuf);
            r.clear();
            r.extend_from_slice(&raw[k..]);
            self.rbuf = r;
        }
        self.rbuf_abs = keep;
    }
}

/// The eight bytes before offset `upto` of `raw`, which follows the eight bytes `prev`.
fn last8(prev: &[u8; 8], raw: &[u8], upto: usize) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (i, o) in out.iter_mut().enumerate() {
        // position upto - 8 + i of raw, which may fall into prev
        let p = upto as isize - 8 + i as isize;
        *o = if p >= 0 {
            raw[p as usize]
        } else {
            prev[(8 + p) as usize]
        };
    }
    out
}

fn count_lines(on: bool, text: &str, base: u64, to: u64, line: &mut u64, line_pos: &mut u64) {
    if to <= *line_pos {
        return;
    }
    let from = (*line_pos - base) as usize;
    let upto = (to - base) as usize;
    *line += lf(on, &text.as_bytes()[from..upto]);
    *line_pos = to;
}

/// Line feeds in `b` when lines are counted (`on`), else 0.
#[inline]
fn lf(on: bool, b: &[u8]) -> u64 {
    if on { count_lf(b) } else { 0 }
}

/// Line feeds in `b`: byte-sized counters per block so that the loop vectorizes (the spans
/// between links are short, where a call into `memchr` costs more than the counting).
fn count_lf(b: &[u8]) -> u64 {
    let mut n = 0u64;
    let mut blocks = b.chunks_exact(128);
    for block in &mut blocks {
        let mut k = 0u8;
        for &x in block {
            k += (x == b'\n') as u8;
        }
        n += k as u64;
    }
    let mut small = blocks.remainder().chunks_exact(16);
    let mut k = 0u8;
    for block in &mut small {
        for &x in block {
            k += (x == b'\n') as u8;
        }
    }
    for &x in small.remainder() {
        k += (x == b'\n') as u8;
    }
    n + k as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn count_lf_counts_exactly_at_every_length_and_alignment() {
        // every byte value, LFs at irregular places, all lengths up to three blocks
        let data: Vec<u8> = (0..400u32)
            .map(|i| match i % 7 {
                0 | 3 => b'\n',
                _ => (i.wrapping_mul(37) % 256) as u8,
            })
            .collect();
        for start in 0..9 {
            for end in start..data.len() {
                let s = &data[start..end];
                let naive = s.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(super::count_lf(s), naive, "{start}..{end}");
            }
        }
    }
}

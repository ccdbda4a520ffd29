//! The engine in place (`Mode::Raw`): candidates are looked for in the input bytes and decided
//! right there where the bytes around them are their own text; the rest goes to the text window
//! (`text.rs`). [`Engine::pump`] drives the engine of an ASCII-compatible encoding.

use super::*;
use crate::find::{Ctx, Outcome};
use crate::trigger::Cands;

/// Input bytes that are their own text, around a candidate (see [`Engine::direct`]).
struct InPlace<'r> {
    /// The text: the input bytes from `start` on.
    text: &'r str,
    start: u64,
    /// `start + text.len()`
    end: u64,
    /// The text stops at `end` for good (malformed or non-ASCII input, or the end of the
    /// input at hand), not at the width of the window.
    stop: bool,
}

impl Engine {
    /// Finds the links in `raw` (input from offset `abs` on; `last`: nothing follows), in
    /// place where it can (see [`Engine`]).
    pub(super) fn pump(&mut self, raw: &[u8], abs: u64, last: bool, on_hit: &mut OnHit<'_>) {
        let end = abs + raw.len() as u64;
        let hay = Hay {
            b: raw,
            before: self.before,
            eof: last,
        };
        let mut cands = Cands::new();
        // a candidate to look at again with a wider window
        let mut again = None;
        loop {
            if self.mode == Mode::Text {
                if !self.idle() {
                    // the finder waits for more text: decode on
                    let dec = self.stream.src_pos();
                    if dec >= end {
                        if !last {
                            return;
                        }
                        self.decode(&[], true);
                        self.run(true, on_hit);
                        continue;
                    }
                    let text_end = self.base + self.text.len() as u64;
                    let want = if self.skipping {
                        self.fwd
                    } else {
                        self.wait_until.saturating_sub(text_end).max(self.min_wait)
                    };
                    self.fwd = (self.fwd * 2).min(FWD_MAX);
                    let e = end.min(dec + want);
                    let fin = last && e == end;
                    self.decode(span(raw, abs, dec, e), fin);
                    self.run(fin, on_hit);
                    continue;
                }
                self.leave_text();
            }
            let from = self.cur.max(abs);
            let next = if let Some(k) = again.take() {
                Some(k)
            } else if from < end {
                cands.next(&hay, (from - abs) as usize, self.trig)
            } else {
                None
            };
            let Some(k) = next else {
                self.cur = self.cur.max(end);
                if last {
                    // malformed input the decoder still holds is counted
                    self.decode(&[], true);
                } else if self.keep_point(raw, abs).is_none() {
                    // no restart point near the end: the text window takes the end, so that
                    // the next chunk goes on from where the decoder stands
                    self.enter_text(&hay, abs, end, self.reach, false, on_hit);
                }
                return;
            };
            let t = abs + k as u64;
            let run = self.scheme_run(&hay, k);
            let back = self.reach_of(&hay, k, run);
            if let Some(y) = self.direct_start(&hay, abs, k, back, run) {
                let w = self.direct(raw, abs, y, t, end);
                if w.end > t {
                    let fin = last && w.end == end;
                    let (undecided, seen) = self.run_direct(raw, abs, &w, t, fin, on_hit);
                    // candidates close together: look at more in place at once next time
                    let dense = seen >= 2 && (w.end - t) / seen <= 512;
                    let grown = (self.dwin * 2).min(DWIN_MAX);
                    match undecided {
                        None => {
                            self.dwin = if dense { grown } else { DWIN0 };
                            self.cur = w.end;
                            continue;
                        }
                        Some((t2, more)) if more && !w.stop => {
                            // the window ended where the input goes on as text: look again from
                            // that candidate, with a wider window (so each candidate is looked
                            // at a logarithmic number of times, on a geometric series of input)
                            self.cur = t2;
                            self.dwin = (self.dwin * 4).min(DWIN_MAX);
                            again = Some((t2 - abs) as usize);
                            continue;
                        }
                        Some((t2, _)) => {
                            self.dwin = if dense { grown } else { DWIN0 };
                            let k2 = (t2 - abs) as usize;
                            let back = self.reach_of(&hay, k2, self.scheme_run(&hay, k2));
                            self.enter_text(&hay, abs, t2, back, last, on_hit);
                            continue;
                        }
                    }
                }
            }
            self.enter_text(&hay, abs, t, back, last, on_hit);
        }
    }

    /// In raw mode at the end of `raw` (from `abs`), with every candidate decided: where the
    /// input kept for the look back of the next chunk's candidates can start. A restart point
    /// near the end, or where the decoder stands if that is close; `None` when there is no
    /// such point (then the text window has to take the end of `raw`).
    pub(super) fn keep_point(&self, raw: &[u8], abs: u64) -> Option<u64> {
        let end = abs + raw.len() as u64;
        let dec = self.stream.src_pos();
        let want = end.saturating_sub(self.reach + 64);
        if dec >= abs && dec + SYNC_SCAN >= want {
            return Some(dec.min(end));
        }
        let lo = (abs + 1).max(dec).max(want.saturating_sub(SYNC_SCAN));
        self.sync_in(raw, abs, lo, want)
    }

    /// How far before the candidate at `k` its window must start. The finder looks back from
    /// a `:` over the scheme and then at most seven text bytes (`URL: ` and `<`), at most seven
    /// characters; the scheme is a suffix of the run of ASCII scheme bytes before the `:` in
    /// the input (its characters are those ASCII bytes). `.` and `@` look back over up to
    /// `HOST_MAX` text bytes.
    fn reach_of(&self, hay: &Hay<'_>, k: usize, run: Option<usize>) -> u64 {
        match run {
            Some(run) if !self.wide && hay.b.get(k) == Some(&b':') => {
                run as u64 + 8 * self.family.max_char_len()
            }
            _ => self.reach,
        }
    }

    /// The run of scheme bytes before the `:` at `k` (see [`Engine::reach_of`]); `None` for
    /// other triggers, and when `.` and `@` are triggers too.
    fn scheme_run(&self, hay: &Hay<'_>, k: usize) -> Option<usize> {
        (!self.wide && hay.b.get(k) == Some(&b':')).then(|| hay.scheme_run(k, find::SCHEME_MAX + 1))
    }

    /// Where a window in place for the candidate at `k` starts: a restart point at or before
    /// `t - back`; or, when the bytes before the scheme are ASCII (each its own character from
    /// a restart point on, so that the seven text bytes the finder looks at before a scheme are
    /// seven input bytes), one at or before the scheme and eight bytes.
    fn direct_start(
        &self,
        hay: &Hay<'_>,
        abs: u64,
        k: usize,
        back: u64,
        run: Option<usize>,
    ) -> Option<u64> {
        let raw = hay.b;
        let t = abs + k as u64;
        if let Some(run) = run {
            let tight = (run + 8) as u64;
            if tight < back && t > abs + tight {
                let want = t - tight;
                let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
                if let Some(y) = self.sync_in(raw, abs, lo, want)
                    && span(raw, abs, y, t).is_ascii()
                {
                    return Some(y);
                }
            }
        }
        let want = t.checked_sub(back).filter(|&w| w > abs)?;
        let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
        self.sync_in(raw, abs, lo, want)
    }

    /// The last restart point (`Family::is_sync`) in `[lo, hi]` (input offsets, `lo` after the
    /// first byte of `raw`).
    pub(super) fn sync_in(&self, raw: &[u8], abs: u64, lo: u64, hi: u64) -> Option<u64> {
        let end = abs + raw.len() as u64;
        let hi = hi.min(end.saturating_sub(1));
        if lo > hi || lo <= abs {
            return None;
        }
        let fam = self.family;
        let (lo, hi) = ((lo - abs) as usize, (hi - abs) as usize);
        (lo..=hi)
            .rev()
            .find(|&i| fam.is_sync_after(raw[i - 1], raw[i]))
            .map(|i| abs + i as u64)
    }

    /// The input bytes from `y` (a restart point) that are their own text, up to `dwin` bytes
    /// past the candidate at `t`: valid UTF-8 (UTF-8) or ASCII (the others); they stop for good
    /// at malformed or non-ASCII input or at the end of `raw`, else at the window's width.
    fn direct<'r>(&self, raw: &'r [u8], abs: u64, y: u64, t: u64, end: u64) -> InPlace<'r> {
        let lim = end.min(t + self.dwin);
        let b = span(raw, abs, y, lim);
        let (n, stop) = if self.family == Family::Utf8 {
            // SIMD validation: the window is most of the input on text dense with links
            match simdutf8::compat::from_utf8(b) {
                Ok(text) => {
                    return InPlace {
                        text,
                        start: y,
                        end: lim,
                        stop: lim == end,
                    };
                }
                // a sequence cut by the window's width is not an error
                Err(e) => (e.valid_up_to(), e.error_len().is_some() || lim == end),
            }
        } else {
            let n = Encoding::ascii_valid_up_to(b);
            (n, n < b.len() || lim == end)
        };
        let text = simdutf8::basic::from_utf8(&b[..n]).unwrap_or_default();
        InPlace {
            text,
            start: y,
            end: y + text.len() as u64,
            stop,
        }
    }

    /// Runs the finder on `win`, input bytes of `raw` (from `abs`) that are their own text, from
    /// the candidate at `t`. Returns the first candidate it cannot decide there, if any, and
    /// whether that is for want of more input (rather than being too long); and how many
    /// candidates it looked at.
    fn run_direct(
        &mut self,
        raw: &[u8],
        abs: u64,
        win: &InPlace<'_>,
        t: u64,
        eof: bool,
        on_hit: &mut OnHit<'_>,
    ) -> (Option<(u64, bool)>, u64) {
        let (text, y) = (win.text, win.start);
        let w = text.as_bytes();
        let mut ctx = Ctx {
            text,
            eof,
            floor: self.floor_raw.saturating_sub(y) as usize,
            opts: self.opts,
            work: 0,
            json: false,
            skipped_links: 0,
        };
        let hay = Hay {
            b: w,
            before: [0; 8],
            eof,
        };
        let mut cands = Cands::new();
        let mut pos = (t - y) as usize;
        let mut out = None;
        let mut seen = 0;
        while let Some(k) = cands.next(&hay, pos, self.trig) {
            self.stats.candidates += 1;
            seen += 1;
            match ctx.examine(k) {
                Ok(Outcome::Hit(f)) => {
                    pos = f.resume;
                    ctx.floor = f.resume;
                    let (start, end) = (y + f.start as u64, y + f.end as u64);
                    if start > self.line_raw {
                        let from = self.line_raw.max(abs);
                        self.line += lf(self.lines, span(raw, abs, from, start));
                        self.line_raw = start;
                    }
                    self.floor_raw = y + f.resume as u64;
                    // (the window is ASCII in a legacy encoding: NFC changes nothing)
                    on_hit(self.hits.hit(&f, text, (start, end), self.line, false));
                    self.stats.hits += 1;
                }
                Ok(Outcome::Reject { resume }) => pos = resume.max(k + 1),
                Ok(Outcome::TooLong { .. }) => {
                    out = Some((y + k as u64, false));
                    break;
                }
                Err(find::NeedMore) => {
                    out = Some((y + k as u64, true));
                    break;
                }
            }
        }
        self.stats.work += ctx.work;
        (out, seen)
    }
}

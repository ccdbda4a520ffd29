//! The text window (`Mode::Text`): a decoder for the whole stream writes the decoded text,
//! which the finder scans; offsets are mapped back to the input ([`Map`]). UTF-16, ISO-2022-JP,
//! `replacement` and `decode_all` are always scanned here; the in-place engine (`raw.rs`) hands
//! over the candidates it cannot decide.

use super::*;
use crate::find::{Ctx, LOOKBACK, Outcome};
use crate::trigger::Cands;

impl Engine {
    /// Decodes `chunk` (the next input bytes) onto the text window.
    pub(super) fn decode(&mut self, chunk: &[u8], last: bool) {
        if self.done {
            return;
        }
        self.done = last;
        self.decoded += chunk.len() as u64;
        self.stream.decode(
            chunk,
            last,
            &mut self.text,
            self.base,
            &mut self.map,
            &mut self.stats,
        );
    }

    /// The finder of the text window has decided everything it holds.
    pub(super) fn idle(&self) -> bool {
        !self.skipping && self.pos >= self.text.len()
    }

    /// Hands the candidate at input offset `target` (a character boundary in `hay`, which
    /// starts at `abs`) to the text window: restarts decoding at a restart point at least
    /// `back` bytes before it (or goes on from where the decoder stands), decodes up to it,
    /// carries the floor and the line count over, and runs the finder from there.
    pub(super) fn enter_text(
        &mut self,
        hay: &Hay<'_>,
        abs: u64,
        target: u64,
        back: u64,
        last: bool,
        on_hit: &mut OnHit<'_>,
    ) {
        let raw = hay.b;
        let end = abs + raw.len() as u64;
        let dec0 = self.stream.src_pos();
        let want = target.saturating_sub(back);
        let restart = if dec0 < abs {
            // the decoder stands in input that is gone: `abs` is a restart point then
            let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
            Some(self.sync_in(raw, abs, lo, want).unwrap_or(abs))
        } else if want >= dec0 + self.min_skip {
            let lo = (dec0 + self.min_skip).max(want.saturating_sub(SYNC_SCAN));
            self.sync_in(raw, abs, lo, want)
        } else {
            None
        };
        let start = match restart {
            Some(y) => {
                self.skip_to(y);
                if self.line_raw < y {
                    let from = self.line_raw.max(abs);
                    self.line += lf(self.lines, span(raw, abs, from, y));
                    self.line_raw = y;
                }
                self.line_pos = self.base;
                self.floor = 0;
                y
            }
            None => dec0,
        };
        // decode up to `target`, taking the text offsets of the floor, the line count and
        // `target` on the way (each either before `start`, where the window already agrees,
        // or at a character boundary after it)
        let mut points = [(self.floor_raw, 0u8), (self.line_raw, 1), (target, 2)];
        points.sort_unstable();
        for (p, kind) in points {
            let at = if p < start {
                // only `target` can be there, right at the end of the text
                self.text.len()
            } else {
                let dec = self.stream.src_pos();
                if p > dec {
                    self.decode(span(raw, abs, dec, p), false);
                }
                self.text.len()
            };
            match kind {
                0 if p >= start => self.floor = at,
                1 if p >= start => self.line_pos = self.base + at as u64,
                2 => self.pos = at,
                _ => {}
            }
        }
        self.mode = Mode::Text;
        self.fwd = FWD0;
        let dec = self.stream.src_pos();
        let e = end.min(target.max(dec) + self.fwd);
        let fin = last && e == end;
        if e > dec || fin {
            self.decode(span(raw, abs, dec, e), fin);
        }
        self.run(fin, on_hit);
    }

    /// The text window has decided everything: back to the input bytes.
    pub(super) fn leave_text(&mut self) {
        let t_end = self.base + self.text.len() as u64;
        count_lines(
            self.lines,
            &self.text,
            self.base,
            t_end,
            &mut self.line,
            &mut self.line_pos,
        );
        // where the decoder stands: past the end of the text only by a sequence it holds
        // unfinished, which has neither a line feed nor a trigger. (Not the offset map: links
        // found later may start before the end of the text, and the map only goes forward.)
        let r = self.stream.src_pos();
        self.line_raw = r;
        self.cur = self.cur.max(r);
        self.mode = Mode::Raw;
    }

    /// Restarts the text window empty at input offset `y` (a restart point at or after where
    /// the decoder stands); what lies between is not decoded.
    fn skip_to(&mut self, y: u64) {
        let t_end = self.base + self.text.len() as u64;
        self.map.src_of(t_end, &self.text, self.base);
        self.text.clear();
        self.base = t_end;
        self.pos = 0;
        self.floor = 0;
        self.wait_until = 0;
        self.line_pos = t_end;
        self.map.restart(t_end, y);
        self.stream.reset(y, t_end);
    }

    /// Runs the finder of the text window over what it holds (`eof`: all of the input).
    pub(super) fn run(&mut self, eof: bool, on_hit: &mut OnHit<'_>) {
        let end_abs = self.base + self.text.len() as u64;
        if !eof && end_abs < self.wait_until {
            return;
        }
        let Engine {
            opts,
            trig,
            stats,
            owned,
            overlong_at,
            hits,
            map,
            text,
            base,
            pos: self_pos,
            floor,
            skipping,
            skip_counts,
            wait_until,
            lines,
            line,
            line_pos,
            min_wait,
            floor_raw,
            ..
        } = self;
        let (base, lines) = (*base, *lines);
        let text: &str = text;
        let mut ctx = Ctx {
            text,
            eof,
            floor: *floor,
            opts: *opts,
            work: 0,
            json: false,
            skipped_links: 0,
        };
        let hay = Hay {
            b: text.as_bytes(),
            before: [0; 8],
            eof,
        };
        let mut cands = Cands::new();
        let mut pos = *self_pos;
        *wait_until = 0;
        loop {
            if *skipping {
                // the links an overlong candidate holds count where it counts
                let held_before = ctx.skipped_links;
                let skipped = find::skip_to_stop(&mut ctx, pos);
                if !*skip_counts {
                    ctx.skipped_links = held_before;
                }
                match skipped {
                    Ok(i) => {
                        pos = i;
                        ctx.floor = i;
                        *floor_raw = map.src_of(base + i as u64, text, base);
                        *skipping = false;
                    }
                    Err(i) => {
                        pos = i;
                        ctx.floor = pos;
                        if eof {
                            *skipping = false;
                        }
                        break;
                    }
                }
            }
            let Some(t) = cands.next(&hay, pos, *trig) else {
                pos = text.len();
                break;
            };
            stats.candidates += 1;
            match ctx.examine(t) {
                Ok(Outcome::Hit(f)) => {
                    pos = f.resume;
                    ctx.floor = f.resume;
                    // the link's input offsets; the lines up to its start
                    let (start_abs, end_abs) = (base + f.start as u64, base + f.end as u64);
                    let start = map.src_of(start_abs, text, base);
                    let end = map.src_of(end_abs, text, base);
                    count_lines(lines, text, base, start_abs, line, line_pos);
                    on_hit(hits.hit(&f, text, (start, end), *line, true));
                    // after `<…>` the closing `>` (one byte) is passed over too
                    *floor_raw = end + (f.resume - f.end) as u64;
                    stats.hits += 1;
                }
                Ok(Outcome::Reject { resume }) => pos = resume.max(t + 1),
                Ok(Outcome::TooLong { from }) => {
                    // counted where it starts, as a hit is kept where it starts: a chunk's
                    // look-ahead is the next chunk's body (issue 30 item 9); counted as the
                    // links it holds: those after its trigger while skipping (item 10)
                    let at = map.src_of(base + from as u64, text, base);
                    *skip_counts = owned.contains(&at);
                    if *skip_counts {
                        stats.too_long += 1;
                        if let Some(v) = overlong_at {
                            v.push(at);
                        }
                    }
                    *skipping = true;
                    pos = t + 1;
                }
                Err(find::NeedMore) => {
                    pos = t;
                    let pending = end_abs - (base + t as u64);
                    *wait_until = end_abs + pending.max(*min_wait);
                    break;
                }
            }
        }
        stats.work += ctx.work;
        stats.too_long += ctx.skipped_links;
        *floor = ctx.floor;
        *self_pos = pos;
        self.compact();
    }

    /// Drops text that no look back can reach any more.
    fn compact(&mut self) {
        let mut keep = self.pos.saturating_sub(LOOKBACK);
        while keep > 0 && !self.text.is_char_boundary(keep) {
            keep -= 1;
        }
        if keep < 64 * 1024 && keep * 2 < self.text.len() {
            return;
        }
        if keep == 0 {
            return;
        }
        let keep_abs = self.base + keep as u64;
        self.map.src_of(keep_abs, &self.text, self.base);
        count_lines(
            self.lines,
            &self.text,
            self.base,
            keep_abs,
            &mut self.line,
            &mut self.line_pos,
        );
        self.text.drain(..keep);
        self.base = keep_abs;
        self.pos -= keep;
        self.floor = self.floor.saturating_sub(keep);
    }
}

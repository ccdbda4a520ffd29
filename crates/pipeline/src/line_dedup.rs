//! `linksieve dedup`: the dedup stage alone. Lines in (keys made elsewhere: `linksieve
//! normalize`, an older run, another tool), each distinct line out once, in the order of first
//! occurrence, through the same seen-sets as `linksieve run` (memory, spill, approx, persistent).
//! Lines are compared as bytes (a CR before the LF is part of the line), fingerprinted with the
//! same 128-bit hash as keys, so a persistent store is shared with `run --seen`.

use crate::FailureHook;
use crate::delivery::{Output, Recorder};
use crate::engine::{RunError, fill};
use crate::ordered::Ordered;
use crate::stats::InputFailure;
use linksieve_dedup::{CommitPolicy, Fingerprint, SeenSet};
use linksieve_inputs::{InputSpec, open_input};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes of complete lines fingerprinted and submitted to the seen-set at once.
const BATCH: usize = 1 << 20;

/// Counters of one [`dedup_lines`] run (the summary on stderr, `--stats FILE` as JSON).
///
/// ```
/// let s = linksieve_pipeline::DedupStats::default();
/// assert!(s.summary().contains("lines: 0"));
/// assert!(s.to_json().contains("\"unique\": 0"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DedupStats {
    /// Inputs (files, stdin) opened.
    pub inputs: u64,
    /// Inputs that could not be read (or not to their end), with the reason.
    pub inputs_failed: Vec<InputFailure>,
    /// Bytes read, after decompression.
    pub bytes_read: u64,
    /// Lines read.
    pub lines: u64,
    /// Bytes of an input's last line dropped because a read error ended it (no LF before the
    /// error): the line may have been cut short, so it is not written as a key it never was.
    pub bytes_cut_by_error: u64,
    /// Lines written (first occurrences).
    pub unique: u64,
    /// Lines seen before (in this run or, with a persistent set, an earlier one).
    pub duplicates: u64,
    /// Keys in the persistent seen-set when the run started.
    pub store_keys_at_open: Option<u64>,
    /// How many times the store recorded the lines delivered (see `--commit`).
    pub store_commits: Option<u64>,
    /// `approx` mode: the expected number of new lines wrongly dropped as seen.
    pub expected_false_drops: Option<f64>,
    /// `approx` mode: one standard error of `expected_false_drops`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_false_drops_error: Option<f64>,
    /// The seen-set's warning (an `approx` filter grown or overfilled past `--expected`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen_set_warning: Option<String>,
    /// Heap memory of the seen-set at the end, in bytes.
    pub seen_set_bytes: u64,
    /// The process's peak resident set when the run ended, in bytes
    /// ([`peak_rss_bytes`](crate::peak_rss_bytes)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// Stopped early by SIGINT.
    pub interrupted: bool,
    /// Bytes the line search looked at, copied or moved (reads, the search for LFs, the
    /// fingerprints, the part of a line carried to the next read, the buffer's growth): linear
    /// in the input however long its lines are, which a test checks in place of a clock. Not in
    /// the summary or the JSON.
    #[serde(skip)]
    pub work: u64,
}

impl DedupStats {
    /// The summary as text, one fact a line.
    ///
    /// ```
    /// let s = linksieve_pipeline::DedupStats { lines: 3, unique: 2, duplicates: 1, ..Default::default() };
    /// assert!(s.summary().contains("unique: 2"));
    /// ```
    pub fn summary(&self) -> String {
        let mut s = format!(
            "inputs: {} ({} failed)\nbytes read: {}\nlines: {}\nunique: {}\nduplicates: {}\n",
            self.inputs,
            self.inputs_failed.len(),
            self.bytes_read,
            self.lines,
            self.unique,
            self.duplicates
        );
        if self.unique > 0 {
            s += &format!(
                "seen-set memory: {} bytes ({:.1} bytes per unique line)\n",
                self.seen_set_bytes,
                self.seen_set_bytes as f64 / self.unique as f64
            );
        }
        if let Some(n) = self.store_keys_at_open {
            s += &format!(
                "keys in the store before this run: {n}; recorded in {} commits\n",
                self.store_commits.unwrap_or(0)
            );
        }
        if let Some(x) = self.expected_false_drops {
            s += &format!(
                "expected new lines wrongly dropped (approx): {x:.3}{}\n",
                crate::stats::plus_minus(self.expected_false_drops_error)
            );
        }
        if let Some(w) = &self.seen_set_warning {
            s += &format!("warning: {w}\n");
        }
        if let Some(peak) = self.peak_rss_bytes {
            s += &format!("peak memory (RSS): {peak} bytes\n");
        }
        for f in &self.inputs_failed {
            s += &format!("input failed: {}: {}\n", f.input, f.error);
        }
        if self.bytes_cut_by_error > 0 {
            s += &format!(
                "dropped, a last line that a read error may have cut short: {} bytes\n",
                self.bytes_cut_by_error
            );
        }
        if self.interrupted {
            s += "interrupted: the output holds what was read before\n";
        }
        s
    }

    /// The counters as pretty-printed JSON.
    ///
    /// ```
    /// assert!(linksieve_pipeline::DedupStats::default().to_json().starts_with('{'));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Lines of one batch waiting for their answers: `bytes[ends[i-1]..ends[i]]` is line `i`
/// (without its LF).
struct Batch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// Writes each distinct line of `inputs` once to `out`, in the order of first occurrence
/// (compressed inputs are recognised by content, as by `run`). A line without a final LF gets one.
/// `cancel` stops reading (SIGINT); what was read is still written. `on_failure` is told of each
/// input that cannot be read when it happens. A durable set records the lines it answered new
/// once they are delivered, when `commit` says so and at the end (see [`crate::delivery`]).
///
/// ```
/// use linksieve_pipeline::{dedup_lines, InputSpec, seen::DEFAULT_COMMIT};
/// let dir = std::env::temp_dir().join(format!("ls-dedup-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = dir.join("keys.txt");
/// std::fs::write(&f, "http://a/\nhttp://b/\nhttp://a/\nhttp://c/").unwrap();
/// let mut out = Vec::new();
/// let stats = dedup_lines(&[InputSpec::File(f)], &mut linksieve_dedup::MemorySet::new(), &mut out, &Default::default(), None, DEFAULT_COMMIT).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "http://a/\nhttp://b/\nhttp://c/\n");
/// assert_eq!((stats.lines, stats.unique, stats.duplicates), (4, 3, 1));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn dedup_lines(
    inputs: &[InputSpec],
    dedup: &mut dyn SeenSet,
    out: &mut dyn Output,
    cancel: &AtomicBool,
    on_failure: Option<&FailureHook>,
    commit: CommitPolicy,
) -> Result<DedupStats, RunError> {
    let mut d = LineDedup {
        on_failure,
        dedup,
        out: io::BufWriter::with_capacity(1 << 16, out),
        recorder: Recorder::new(commit),
        ordered: Ordered::default(),
        fps: Vec::new(),
        stats: DedupStats::default(),
    };
    let result = d.all(inputs, cancel);
    if matches!(result, Err(RunError::Output(_))) {
        crate::delivery::cut_partial(&mut d.out);
    }
    result?;
    let mut stats = d.stats;
    let report = d.dedup.report();
    stats.store_keys_at_open = report.keys_at_open;
    stats.store_commits = report.keys_at_open.map(|_| d.recorder.commits);
    stats.expected_false_drops = report.expected_false_drops;
    stats.expected_false_drops_error = report.false_drops_error;
    stats.seen_set_warning = report.warning;
    stats.seen_set_bytes = d.dedup.memory_bytes() as u64;
    stats.peak_rss_bytes = crate::peak_rss_bytes();
    Ok(stats)
}

struct LineDedup<'a> {
    on_failure: Option<&'a FailureHook>,
    dedup: &'a mut dyn SeenSet,
    out: io::BufWriter<&'a mut dyn Output>,
    recorder: Recorder,
    ordered: Ordered<Batch>,
    fps: Vec<Fingerprint>,
    stats: DedupStats,
}

impl LineDedup<'_> {
    /// Every input, then the answers still owed; the output delivered and the set synced.
    fn all(&mut self, inputs: &[InputSpec], cancel: &AtomicBool) -> Result<(), RunError> {
        let d = self;
        for spec in inputs {
            if cancel.load(Ordering::Relaxed) {
                d.stats.interrupted = true;
                break;
            }
            let (mut r, _) = match open_input(spec) {
                Ok(x) => x,
                Err(e) => {
                    d.failed(spec, &e);
                    continue;
                }
            };
            d.stats.inputs += 1;
            if let Some(e) = d.input(&mut r, cancel)? {
                d.failed(spec, &e);
            }
        }
        d.dedup.answer_rest(d.ordered.answers())?;
        d.drain()?;
        d.recorder.end(d.dedup, &mut d.out)
    }

    fn failed(&mut self, spec: &InputSpec, e: &io::Error) {
        let f = InputFailure {
            input: spec.name(),
            error: e.to_string(),
        };
        crate::engine::record_failure(&mut self.stats.inputs_failed, self.on_failure, f);
    }

    /// One input, batch by batch. A read error ends the input after what was read before it and
    /// is returned as `Ok(Some(error))`; an output or seen-set error ends the run.
    fn input(
        &mut self,
        r: &mut dyn BufRead,
        cancel: &AtomicBool,
    ) -> Result<Option<io::Error>, RunError> {
        // `bytes[..before]` is the start of a line (no LF in it) carried from the last read; a
        // line longer than a batch grows this buffer in place, and only the newly read part is
        // searched for an LF, so a line of any length costs time linear in its length.
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            if cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                return Ok(None);
            }
            let before = bytes.len();
            let want = before + BATCH;
            let capacity = bytes.capacity();
            // a read error ends the input after what was read before it
            let (eof, err) = match fill(r, &mut bytes, want) {
                Ok(eof) => (eof, None),
                Err(e) => (true, Some(e)),
            };
            self.stats.bytes_read += (bytes.len() - before) as u64;
            // the read, and the carried part moved when the buffer grew
            self.stats.work += (bytes.len() - before) as u64;
            if bytes.capacity() != capacity {
                self.stats.work += before as u64;
            }
            // Complete lines now; the part after the last LF waits for more (or the end). After
            // a read error it is dropped: the error may have cut that line short.
            let whole = if err.is_some() {
                let whole = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
                self.stats.bytes_cut_by_error += (bytes.len() - whole) as u64;
                whole
            } else if eof {
                bytes.len()
            } else {
                self.stats.work += (bytes.len() - before) as u64;
                match memchr::memrchr(b'\n', &bytes[before..]) {
                    Some(i) => before + i + 1,
                    // no LF yet: keep reading into the same buffer
                    None => continue,
                }
            };
            // at most one read's worth of bytes is copied
            let carry = bytes[whole..].to_vec();
            self.stats.work += carry.len() as u64;
            bytes.truncate(whole);
            self.batch(bytes)?;
            if err.is_some() || eof {
                return Ok(err);
            }
            bytes = carry;
        }
    }

    /// Fingerprints the lines of `bytes` (complete lines; the last may lack its LF), asks the
    /// seen-set, writes what it can.
    fn batch(&mut self, bytes: Vec<u8>) -> Result<(), RunError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let mut ends = Vec::with_capacity(bytes.len() / 32);
        self.fps.clear();
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &bytes).chain(
            // a last line without LF
            (bytes.last() != Some(&b'\n')).then_some(bytes.len()),
        ) {
            self.fps.push(Fingerprint::of(&bytes[start..nl]));
            ends.push(nl);
            start = nl + 1;
        }
        self.stats.lines += ends.len() as u64;
        // the search for LFs and the fingerprints: twice the batch
        self.stats.work += 2 * bytes.len() as u64;
        // The batch waits in `ordered` until its answers come: a spill set counts it.
        let held = bytes.capacity() + ends.capacity() * std::mem::size_of::<usize>() + ends.len();
        self.dedup.submit(&self.fps, held, self.ordered.answers())?;
        self.ordered.push(Batch { bytes, ends });
        self.drain()?;
        self.recorder.step(self.dedup, &mut self.out)
    }

    /// Writes the waiting lines that have an answer, in order.
    fn drain(&mut self) -> Result<(), RunError> {
        while let Some((b, mut i)) = self.ordered.take() {
            while i < b.ends.len() {
                let Some(new) = self.ordered.answer() else {
                    break;
                };
                if new {
                    let start = if i == 0 { 0 } else { b.ends[i - 1] + 1 };
                    self.stats.unique += 1;
                    self.out
                        .write_all(&b.bytes[start..b.ends[i]])
                        .and_then(|()| self.out.write_all(b"\n"))
                        .map_err(RunError::Output)?;
                } else {
                    self.stats.duplicates += 1;
                }
                i += 1;
            }
            if i < b.ends.len() {
                // Answers owed (a spill or persistent set answers in bulk): resume here.
                self.ordered.put_back(b, i);
                break;
            }
        }
        Ok(())
    }
}

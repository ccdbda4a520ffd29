//! The exact seen-set with a memory budget: sorted runs of fingerprints on disk (the Mercator /
//! Heritrix FPMerge design), answers in arrival order.

mod seen_set;

use crate::{DedupError, Fingerprint, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes of one fingerprint in a run file (little-endian `u128`).
const FP_BYTES: usize = 16;
/// Smallest and largest I/O buffer per open run file.
const MIN_IO_BUF: usize = 4096;
const MAX_IO_BUF: usize = 1 << 20;
/// Default bound on the number of run files before they are merged into one.
const DEFAULT_MAX_RUNS: usize = 16;

/// How a [`SpillSet`] uses memory and disk.
///
/// ```
/// use linksieve_dedup::SpillConfig;
/// let cfg = SpillConfig::new(64 << 20).temp_dir(std::env::temp_dir()).max_runs(8);
/// assert_eq!(cfg.memory_budget(), 64 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct SpillConfig {
    memory_budget: usize,
    temp_dir: Option<PathBuf>,
    max_runs: usize,
    batch_capacity: Option<usize>,
}

impl SpillConfig {
    /// A configuration with a memory budget in bytes (pending items plus I/O buffers; see
    /// [`SpillSet`]), the system's temporary folder, and at most 16 run files.
    ///
    /// ```
    /// let cfg = linksieve_dedup::SpillConfig::new(1 << 30);
    /// assert_eq!(cfg.memory_budget(), 1 << 30);
    /// ```
    pub fn new(memory_budget: usize) -> SpillConfig {
        SpillConfig {
            memory_budget,
            temp_dir: None,
            max_runs: DEFAULT_MAX_RUNS,
            batch_capacity: None,
        }
    }

    /// The folder in which the set makes its own temporary folder for run files (removed, with
    /// the files, when the set is dropped).
    ///
    /// ```
    /// let cfg = linksieve_dedup::SpillConfig::new(1 << 20).temp_dir("/tmp");
    /// # let _ = cfg;
    /// ```
    pub fn temp_dir(mut self, dir: impl Into<PathBuf>) -> SpillConfig {
        self.temp_dir = Some(dir.into());
        self
    }

    /// The largest number of run files kept; one more and all are merged into one (k-way).
    /// Each merge pass reads every run, so more runs cost no more reading, but fewer runs keep
    /// fewer files and buffers. At least 1.
    ///
    /// ```
    /// let cfg = linksieve_dedup::SpillConfig::new(1 << 20).max_runs(1); // FPMerge: one file
    /// # let _ = cfg;
    /// ```
    pub fn max_runs(mut self, n: usize) -> SpillConfig {
        self.max_runs = n.max(1);
        self
    }

    /// Overrides the number of pending items per merge pass that the budget would give (for
    /// tests and tuning). At least 1.
    ///
    /// ```
    /// let cfg = linksieve_dedup::SpillConfig::new(1 << 20).batch_capacity(10);
    /// # let _ = cfg;
    /// ```
    pub fn batch_capacity(mut self, n: usize) -> SpillConfig {
        self.batch_capacity = Some(n.max(1));
        self
    }

    /// The memory budget in bytes.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::SpillConfig::new(5).memory_budget(), 5);
    /// ```
    pub fn memory_budget(&self) -> usize {
        self.memory_budget
    }
}

/// A pending fingerprint with its position in the batch (24 bytes; `u128` would align to 32).
#[derive(Clone, Copy, Debug)]
struct Pending {
    hi: u64,
    lo: u64,
    idx: u32,
}

impl Pending {
    #[inline]
    fn fp(&self) -> u128 {
        ((self.hi as u128) << 64) | self.lo as u128
    }
}

#[derive(Debug)]
struct Run {
    path: PathBuf,
    len: u64,
}

/// Everything but the caller's tokens.
#[derive(Debug)]
struct Core {
    pending: Vec<Pending>,
    capacity: usize,
    /// Bytes of the budget left for the batch after the I/O buffers (at least the batch
    /// capacity's worth): the pending items, their answers and what the caller holds for them.
    room: usize,
    /// Bytes the caller holds for the pending items ([`SpillSet::push_holding`]).
    held: usize,
    io_buf: usize,
    max_runs: usize,
    runs: Vec<Run>,
    dir: tempfile::TempDir,
    next_file: u64,
    len: u64,
    merges: u64,
}

/// The exact seen-set for any number of keys in a fixed memory budget.
///
/// Design (Mercator's and Heritrix's FPMerge, with several runs): pushed fingerprints wait in
/// a batch, in arrival order, each with the caller's token. When the batch is full (or on
/// [`flush`](SpillSet::flush)) it is sorted, duplicates inside it are reduced to their first
/// occurrence, and the survivors are merged against each sorted run file of the fingerprints
/// seen so far (a sequential read of each run); what no run holds is new and is written as a
/// new sorted run. When there are more than [`max_runs`](SpillConfig::max_runs) runs, they are
/// merged into one (k-way, sequential). The answers come back as `(token, is_new)` for every
/// pushed item in arrival order, so the caller can write keys in order of first occurrence.
///
/// Memory: the budget pays for the I/O buffers (`(max_runs + 2)` buffers of
/// `budget / (8 (max_runs + 2))` bytes, between 4 KiB and 1 MiB each) and, for the rest,
/// 24 bytes per pending item plus the answer `(T, bool)`, plus what the caller says it holds
/// for the pending items ([`push_holding`](SpillSet::push_holding): the key text it writes
/// once an item is answered, say). The batch is merged when any of these fills the budget, so
/// the set and the caller's pending items together stay within it; heap owned *by* the tokens
/// and not declared is the caller's (use small tokens). Disk: 16 bytes per
/// unique fingerprint. Cost: each merge pass reads all runs, so `N` unique keys with `M`
/// pending items per pass read about `N^2 / (2 M)` fingerprints in all, the known cost of the
/// design; a larger budget means fewer passes.
///
/// Run files live in a temporary folder made inside [`SpillConfig::temp_dir`] and are removed
/// when the set is dropped. After an I/O error the pending items are dropped (neither answered
/// nor recorded); the set stays usable.
///
/// ```
/// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
/// let mut set: SpillSet<&str> = SpillSet::new(SpillConfig::new(1 << 20).batch_capacity(2)).unwrap();
/// let mut out = Vec::new();
/// for key in ["a", "b", "a", "c", "b"] {
///     if let Some(answers) = set.push(Fingerprint::of(key.as_bytes()), key).unwrap() {
///         out.extend(answers.into_iter().filter(|a| a.1).map(|a| a.0));
///     }
/// }
/// out.extend(set.flush().unwrap().into_iter().filter(|a| a.1).map(|a| a.0));
/// assert_eq!(out, ["a", "b", "c"]);
/// assert_eq!(set.len(), 3);
/// ```
#[derive(Debug)]
pub struct SpillSet<T = ()> {
    core: Core,
    answers: Vec<(T, bool)>,
}

impl<T> SpillSet<T> {
    /// A new, empty set; makes its temporary folder.
    ///
    /// ```
    /// use linksieve_dedup::{SpillConfig, SpillSet};
    /// let set: SpillSet<u64> = SpillSet::new(SpillConfig::new(16 << 20)).unwrap();
    /// // (16 MiB - 18 I/O buffers of 116,496 bytes) / 40 bytes per item
    /// assert_eq!(set.batch_capacity(), 367_007);
    /// ```
    pub fn new(config: SpillConfig) -> Result<SpillSet<T>> {
        let io_buf = (config.memory_budget / (8 * (config.max_runs + 2)))
            .clamp(MIN_IO_BUF, MAX_IO_BUF)
            / FP_BYTES
            * FP_BYTES;
        let per_item = Self::per_item();
        let free = config
            .memory_budget
            .saturating_sub(io_buf * (config.max_runs + 2));
        let capacity = config
            .batch_capacity
            .unwrap_or(free / per_item)
            .clamp(1, u32::MAX as usize);
        let room = free.max(capacity.saturating_mul(per_item));
        let base = config.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::Builder::new()
            .prefix("linksieve-spill-")
            .tempdir_in(&base)
            .map_err(|source| DedupError::Io {
                op: "create spill folder in",
                path: base,
                source,
            })?;
        Ok(SpillSet {
            core: Core {
                pending: Vec::new(),
                capacity,
                room,
                held: 0,
                io_buf,
                max_runs: config.max_runs,
                runs: Vec::new(),
                dir,
                next_file: 0,
                len: 0,
                merges: 0,
            },
            answers: Vec::new(),
        })
    }

    /// Adds a fingerprint with the caller's token. When this fills the batch, the batch is
    /// merged and the answers for all pending items come back, in arrival order:
    /// `(token, true)` for the first occurrence of a fingerprint never seen before.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20).batch_capacity(3)).unwrap();
    /// assert!(set.push(Fingerprint(1), 10).unwrap().is_none());
    /// assert!(set.push(Fingerprint(1), 11).unwrap().is_none());
    /// let answers = set.push(Fingerprint(2), 12).unwrap().unwrap();
    /// assert_eq!(answers, [(10, true), (11, false), (12, true)]);
    /// ```
    pub fn push(&mut self, fp: Fingerprint, token: T) -> Result<Option<Vec<(T, bool)>>> {
        self.push_holding(fp, token, 0)
    }

    /// [`push`](SpillSet::push), and the caller holds `bytes` more of its own memory for this
    /// item until it is answered (the key it will write if the item is new, say). Those bytes
    /// count against the budget: the batch is merged (and its answers returned) as soon as the
    /// pending items, their answers and the bytes held reach it, so a caller that declares
    /// what it holds stays within the budget too. The count starts from zero after each merge.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// // room for 1,000 items of 25 bytes (24 + the answer), or far fewer holding 100 more each
    /// let mut set = SpillSet::new(SpillConfig::new(0).batch_capacity(1000)).unwrap();
    /// let mut merged_at = None;
    /// for i in 0..1000u128 {
    ///     if set.push_holding(Fingerprint(i), (), 100).unwrap().is_some() {
    ///         merged_at = Some(i + 1);
    ///         break;
    ///     }
    /// }
    /// assert!(merged_at.unwrap() <= 1000 * 25 / 125);
    /// assert_eq!(set.held_bytes(), 0);
    /// ```
    pub fn push_holding(
        &mut self,
        fp: Fingerprint,
        token: T,
        bytes: usize,
    ) -> Result<Option<Vec<(T, bool)>>> {
        self.core.held = self.core.held.saturating_add(bytes);
        let per_item = Self::per_item();
        // Grow the vectors within the room the held bytes leave (at least by one item).
        let used = self.own_bytes().saturating_add(self.core.held);
        let cap = self
            .core
            .capacity
            .min(self.core.pending.len() + 1 + self.core.room.saturating_sub(used) / per_item);
        grow_bounded(&mut self.core.pending, cap);
        grow_bounded(&mut self.answers, cap);
        let idx = self.core.pending.len() as u32;
        self.core.pending.push(Pending {
            hi: (fp.0 >> 64) as u64,
            lo: fp.0 as u64,
            idx,
        });
        self.answers.push((token, false));
        let full = self.core.pending.len() >= self.core.capacity
            || self.own_bytes().saturating_add(self.core.held) > self.core.room;
        if full {
            self.flush().map(Some)
        } else {
            Ok(None)
        }
    }

    /// Bytes of one pending item and its answer.
    fn per_item() -> usize {
        std::mem::size_of::<Pending>() + std::mem::size_of::<(T, bool)>()
    }

    /// Bytes the batch and the answers hold now (their capacity).
    fn own_bytes(&self) -> usize {
        self.core.pending.capacity() * std::mem::size_of::<Pending>()
            + self.answers.capacity() * std::mem::size_of::<(T, bool)>()
    }

    /// Bytes the caller holds for the pending items, as declared with
    /// [`push_holding`](SpillSet::push_holding) (zero after each merge).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.push_holding(Fingerprint(1), (), 40).unwrap();
    /// assert_eq!(set.held_bytes(), 40);
    /// set.flush().unwrap();
    /// assert_eq!(set.held_bytes(), 0);
    /// ```
    pub fn held_bytes(&self) -> usize {
        self.core.held
    }

    /// Merges the pending items now and returns their answers in arrival order (empty when
    /// nothing is pending). Call it at the end of the input.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.push(Fingerprint(7), 'x').unwrap();
    /// assert_eq!(set.flush().unwrap(), [('x', true)]);
    /// assert!(set.flush().unwrap().is_empty());
    /// ```
    pub fn flush(&mut self) -> Result<Vec<(T, bool)>> {
        let answers = &mut self.answers;
        match self.core.resolve(|idx| answers[idx].1 = true) {
            Ok(()) => Ok(std::mem::take(&mut self.answers)),
            Err(e) => {
                self.answers.clear();
                Err(e)
            }
        }
    }

    /// True when `fp` was added: a binary search of each sorted run file (one read per step),
    /// and a look at the items pushed and not yet answered.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SeenSet, SpillConfig, SpillSet};
    /// let mut set: SpillSet = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.insert_batch(&[Fingerprint(7)], &mut Vec::new()).unwrap();
    /// assert!(set.contains(Fingerprint(7)).unwrap());
    /// assert!(!set.contains(Fingerprint(8)).unwrap());
    /// ```
    pub fn contains(&self, fp: Fingerprint) -> Result<bool> {
        if self.core.pending.iter().any(|p| p.fp() == fp.0) {
            return Ok(true);
        }
        for run in &self.core.runs {
            if run_contains(run, fp.0)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The number of unique fingerprints recorded (pending items not included).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.push(Fingerprint(7), ()).unwrap();
    /// assert_eq!(set.len(), 0);
    /// set.flush().unwrap();
    /// assert_eq!(set.len(), 1);
    /// ```
    pub fn len(&self) -> u64 {
        self.core.len
    }

    /// True when no fingerprint is recorded.
    ///
    /// ```
    /// use linksieve_dedup::{SpillConfig, SpillSet};
    /// let set: SpillSet = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// assert!(set.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.core.len == 0
    }

    /// Items pushed and not yet answered.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.push(Fingerprint(1), ()).unwrap();
    /// assert_eq!(set.pending(), 1);
    /// ```
    pub fn pending(&self) -> usize {
        self.core.pending.len()
    }

    /// Pending items per merge pass (derived from the budget, or set by
    /// [`SpillConfig::batch_capacity`]).
    ///
    /// ```
    /// use linksieve_dedup::{SpillConfig, SpillSet};
    /// let set: SpillSet = SpillSet::new(SpillConfig::new(1).batch_capacity(5)).unwrap();
    /// assert_eq!(set.batch_capacity(), 5);
    /// ```
    pub fn batch_capacity(&self) -> usize {
        self.core.capacity
    }

    /// Run files on disk now.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20).batch_capacity(1).max_runs(2)).unwrap();
    /// for v in 1..=3u128 { set.push(Fingerprint(v), ()).unwrap(); }
    /// assert_eq!(set.runs(), 1); // the third run triggered a merge into one
    /// ```
    pub fn runs(&self) -> usize {
        self.core.runs.len()
    }

    /// Merge passes done so far.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20).batch_capacity(1)).unwrap();
    /// set.push(Fingerprint(1), ()).unwrap();
    /// assert_eq!(set.merges(), 1);
    /// ```
    pub fn merges(&self) -> u64 {
        self.core.merges
    }

    /// Bytes of run files on disk.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SpillConfig, SpillSet};
    /// let mut set = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// set.push(Fingerprint(1), ()).unwrap();
    /// set.flush().unwrap();
    /// assert_eq!(set.disk_bytes(), 16);
    /// ```
    pub fn disk_bytes(&self) -> u64 {
        self.core.runs.iter().map(|r| r.len * FP_BYTES as u64).sum()
    }

    /// The folder holding the run files (removed when the set is dropped).
    ///
    /// ```
    /// use linksieve_dedup::{SpillConfig, SpillSet};
    /// let set: SpillSet = SpillSet::new(SpillConfig::new(1 << 20)).unwrap();
    /// let dir = set.dir().to_path_buf();
    /// assert!(dir.is_dir());
    /// drop(set);
    /// assert!(!dir.exists());
    /// ```
    pub fn dir(&self) -> &Path {
        self.core.dir.path()
    }
}

/// Grows a vector for one more item without overshooting `cap`: by an eighth (at least 64
/// items), so that its capacity, which is what counts against the budget, stays close to its
/// length.
fn grow_bounded<X>(v: &mut Vec<X>, cap: usize) {
    if v.len() == v.capacity() {
        let len = v.len();
        let target = (len + len / 8).max(len + 64).min(cap).max(len + 1);
        v.reserve_exact(target - len);
    }
}

impl Core {
    /// Sorts and merges the pending batch against the runs; calls `mark(idx)` for each pending
    /// index that is a first occurrence of a new fingerprint; records the new ones as a run.
    fn resolve(&mut self, mut mark: impl FnMut(usize)) -> Result<()> {
        self.held = 0;
        if self.pending.is_empty() {
            return Ok(());
        }
        let result = self.resolve_inner(&mut mark);
        self.pending.clear();
        result
    }

    fn resolve_inner(&mut self, mark: &mut impl FnMut(usize)) -> Result<()> {
        self.merges += 1;
        // Sort by fingerprint, then by position: the first of equal ones is the first occurrence.
        self.pending.sort_unstable_by_key(|p| (p.hi, p.lo, p.idx));
        self.pending.dedup_by_key(|p| (p.hi, p.lo));
        for run in &self.runs {
            if self.pending.is_empty() {
                break;
            }
            let mut reader = RunReader::open(run, self.io_buf)?;
            remove_present(&mut self.pending, &mut reader)?;
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let path = self.next_path();
        write_run(&path, self.io_buf, self.pending.iter().map(Pending::fp))?;
        self.runs.push(Run {
            path,
            len: self.pending.len() as u64,
        });
        self.len += self.pending.len() as u64;
        for p in &self.pending {
            mark(p.idx as usize);
        }
        if self.runs.len() > self.max_runs {
            self.compact()?;
        }
        Ok(())
    }

    fn next_path(&mut self) -> PathBuf {
        self.next_file += 1;
        self.dir
            .path()
            .join(format!("run-{:06}.fp", self.next_file))
    }

    /// Merges all runs into one (they are disjoint: each holds only fingerprints that no
    /// earlier run held).
    fn compact(&mut self) -> Result<()> {
        let mut readers = self
            .runs
            .iter()
            .map(|r| RunReader::open(r, self.io_buf))
            .collect::<Result<Vec<_>>>()?;
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(v) = r.next()? {
                heap.push(Reverse((v, i)));
            }
        }
        let path = self.next_path();
        let mut w = RunWriter::create(&path, self.io_buf)?;
        let mut last = None;
        while let Some(Reverse((v, i))) = heap.pop() {
            if last != Some(v) {
                w.write(v)?;
                last = Some(v);
            }
            if let Some(next) = readers[i].next()? {
                heap.push(Reverse((next, i)));
            }
        }
        let len = w.finish()?;
        drop(readers);
        for r in self.runs.drain(..) {
            // A leftover file is removed with the folder at the latest.
            let _ = std::fs::remove_file(&r.path);
        }
        self.runs.push(Run { path, len });
        self.len = len;
        Ok(())
    }
}

/// Removes from the sorted, unique `pending` every fingerprint that the run holds.
fn remove_present(pending: &mut Vec<Pending>, reader: &mut RunReader) -> Result<()> {
    let mut w = 0;
    let mut x = reader.next()?;
    for r in 0..pending.len() {
        let p = pending[r];
        let fp = p.fp();
        while let Some(v) = x {
            if v < fp {
                x = reader.next()?;
            } else {
                break;
            }
        }
        if x != Some(fp) {
            pending[w] = p;
            w += 1;
        }
    }
    pending.truncate(w);
    Ok(())
}

fn write_run(path: &Path, buf: usize, fps: impl Iterator<Item = u128>) -> Result<u64> {
    let mut w = RunWriter::create(path, buf)?;
    for v in fps {
        w.write(v)?;
    }
    w.finish()
}

struct RunWriter<'a> {
    out: BufWriter<File>,
    path: &'a Path,
    len: u64,
}

impl<'a> RunWriter<'a> {
    fn create(path: &'a Path, buf: usize) -> Result<RunWriter<'a>> {
        let file = File::create(path).map_err(|source| DedupError::Io {
            op: "create run file",
            path: path.to_path_buf(),
            source,
        })?;
        Ok(RunWriter {
            out: BufWriter::with_capacity(buf, file),
            path,
            len: 0,
        })
    }

    #[inline]
    fn write(&mut self, v: u128) -> Result<()> {
        self.len += 1;
        self.out
            .write_all(&v.to_le_bytes())
            .map_err(|source| self.io_err(source))
    }

    fn finish(mut self) -> Result<u64> {
        self.out.flush().map_err(|source| self.io_err(source))?;
        Ok(self.len)
    }

    fn io_err(&self, source: std::io::Error) -> DedupError {
        DedupError::Io {
            op: "write run file",
            path: self.path.to_path_buf(),
            source,
        }
    }
}

/// True when the sorted run file `run` holds `fp` (a binary search, one 16-byte read a step).
fn run_contains(run: &Run, fp: u128) -> Result<bool> {
    use std::io::{Seek, SeekFrom};
    let io = |op: &'static str| {
        let path = run.path.clone();
        move |source| DedupError::Io { op, path, source }
    };
    let mut file = File::open(&run.path).map_err(io("open run file"))?;
    let (mut lo, mut hi) = (0u64, run.len);
    let mut b = [0u8; FP_BYTES];
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        file.seek(SeekFrom::Start(mid * FP_BYTES as u64))
            .map_err(io("seek run file"))?;
        file.read_exact(&mut b).map_err(io("read run file"))?;
        match u128::from_le_bytes(b).cmp(&fp) {
            std::cmp::Ordering::Equal => return Ok(true),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    Ok(false)
}

/// Sequential reader of a run file of known length, in large chunks.
struct RunReader {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
    pos: usize,
    filled: usize,
    remaining: u64,
}

impl RunReader {
    fn open(run: &Run, buf: usize) -> Result<RunReader> {
        let file = File::open(&run.path).map_err(|source| DedupError::Io {
            op: "open run file",
            path: run.path.clone(),
            source,
        })?;
        let actual = file
            .metadata()
            .map_err(|source| DedupError::Io {
                op: "stat run file",
                path: run.path.clone(),
                source,
            })?
            .len();
        if actual != run.len * FP_BYTES as u64 {
            return Err(DedupError::CorruptRun {
                path: run.path.clone(),
                detail: format!("{actual} bytes, expected {}", run.len * FP_BYTES as u64),
            });
        }
        Ok(RunReader {
            file,
            path: run.path.clone(),
            buf: vec![0; buf.max(FP_BYTES)],
            pos: 0,
            filled: 0,
            remaining: run.len,
        })
    }

    #[inline]
    fn next(&mut self) -> Result<Option<u128>> {
        if self.pos == self.filled {
            if self.remaining == 0 {
                return Ok(None);
            }
            self.refill()?;
        }
        let mut b = [0u8; FP_BYTES];
        b.copy_from_slice(&self.buf[self.pos..self.pos + FP_BYTES]);
        self.pos += FP_BYTES;
        Ok(Some(u128::from_le_bytes(b)))
    }

    #[cold]
    fn refill(&mut self) -> Result<()> {
        let items = (self.buf.len() / FP_BYTES).min(self.remaining as usize);
        let n = items * FP_BYTES;
        self.file
            .read_exact(&mut self.buf[..n])
            .map_err(|source| DedupError::Io {
                op: "read run file",
                path: self.path.clone(),
                source,
            })?;
        self.remaining -= items as u64;
        self.pos = 0;
        self.filled = n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemorySet, SeenSet};

    #[test]
    fn answers_in_arrival_order_across_many_runs() {
        let cfg = SpillConfig::new(0).batch_capacity(7).max_runs(3);
        let mut set: SpillSet<usize> = SpillSet::new(cfg).unwrap();
        let mut mem = MemorySet::new();
        let mut expected = Vec::new();
        let mut got = Vec::new();
        let mut st = 99u64;
        for i in 0..2000usize {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let fp = Fingerprint(((st >> 33) % 400) as u128 * 0x0123_4567_89ab_cdef_0000_1111);
            expected.push((i, mem.insert(fp)));
            if let Some(a) = set.push(fp, i).unwrap() {
                got.extend(a);
            }
        }
        got.extend(set.flush().unwrap());
        assert_eq!(got, expected);
        assert_eq!(set.len(), mem.len());
        assert!(set.runs() <= 3);
        assert_eq!(set.disk_bytes(), mem.len() * 16);
    }

    #[test]
    fn batch_api_matches_memory_set() {
        let mut set: SpillSet = SpillSet::new(SpillConfig::new(0).batch_capacity(5)).unwrap();
        let mut mem = MemorySet::new();
        let fps: Vec<Fingerprint> = [0u128, 5, 5, u128::MAX, 9, 0, 1, 2, 3, 4, 5, 6, 7]
            .into_iter()
            .map(Fingerprint)
            .collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for chunk in fps.chunks(4) {
            set.insert_batch(chunk, &mut a).unwrap();
            mem.insert_batch(chunk, &mut b).unwrap();
            assert_eq!(a, b);
        }
        set.push(Fingerprint(1), ()).unwrap();
        assert!(matches!(
            set.insert_batch(&fps, &mut a),
            Err(DedupError::PendingItems(1))
        ));
    }

    #[test]
    fn budget_sizes_the_batch() {
        let set: SpillSet<u64> = SpillSet::new(SpillConfig::new(64 << 20)).unwrap();
        // io: 18 buffers of min(64 MiB / 144, 1 MiB) = 466,032 bytes; 40 bytes per item.
        let io = (64usize << 20) / 144 / 16 * 16;
        assert_eq!(set.batch_capacity(), ((64 << 20) - 18 * io) / 40);
        let tiny: SpillSet<u64> = SpillSet::new(SpillConfig::new(1000)).unwrap();
        assert_eq!(tiny.batch_capacity(), 1);
    }

    #[test]
    fn damaged_run_file_is_a_typed_error() {
        let mut set: SpillSet = SpillSet::new(SpillConfig::new(0).batch_capacity(2)).unwrap();
        set.push(Fingerprint(1), ()).unwrap();
        set.push(Fingerprint(2), ()).unwrap();
        let run = set.core.runs[0].path.clone();
        std::fs::write(&run, [0u8; 5]).unwrap();
        set.push(Fingerprint(3), ()).unwrap();
        let err = set.push(Fingerprint(4), ()).unwrap_err();
        assert!(matches!(err, DedupError::CorruptRun { .. }), "{err}");
        // The set stays usable: the failed batch was dropped.
        assert_eq!(set.pending(), 0);
        std::fs::remove_file(&run).unwrap();
        let err = set.flush();
        assert!(err.unwrap().is_empty());
        set.push(Fingerprint(5), ()).unwrap();
        assert!(matches!(
            set.push(Fingerprint(6), ()),
            Err(DedupError::Io { .. })
        ));
    }

    #[test]
    fn missing_temp_dir_is_a_typed_error() {
        let err = SpillSet::<()>::new(SpillConfig::new(1 << 20).temp_dir("/nonexistent/linksieve"))
            .unwrap_err();
        assert!(matches!(err, DedupError::Io { .. }), "{err}");
    }
}

//! The sink's view of the seen-sets of `linksieve_dedup`: fingerprints go in chunk by chunk, in
//! input order; new/seen decisions come out in the same order, at once (memory, approximate,
//! persistent) or when a spill batch is merged. The sink writes an item only when its decision is
//! there, so the output is in first-occurrence order in every mode.

use linksieve_dedup::{
    BloomSet, Fingerprint, MemorySet, PersistentSet, SeenSet, SpillConfig, SpillSet,
};
use std::collections::VecDeque;

pub use linksieve_dedup::DedupError;

/// A seen-set as the sink uses it.
///
/// ```
/// use linksieve_pipeline::dedup::{Dedup, MemoryDedup};
/// let mut d = MemoryDedup::default();
/// let mut out = std::collections::VecDeque::new();
/// d.submit(&[1, 2, 1].map(linksieve_dedup::Fingerprint), &mut out).unwrap();
/// assert_eq!(out, [true, true, false]);
/// ```
pub trait Dedup: Send {
    /// Takes the fingerprints of one chunk, in order; appends the decisions that are ready
    /// (`true` = new) to `decisions`, in the order of submission.
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError>;
    /// [`submit`](Dedup::submit) for a caller that holds `held` bytes for these items until
    /// their decisions come (their keys, waiting to be written): a set that answers late (spill)
    /// counts them against its budget and answers sooner rather than let them pile up. Sets
    /// that answer at once, or in batches of a fixed count (persistent), ignore `held`.
    ///
    /// ```
    /// use linksieve_dedup::SpillConfig;
    /// use linksieve_pipeline::dedup::{Dedup, SpillDedup};
    /// // a 1 MiB budget: 100 items holding 1 MiB between them are answered at once
    /// let mut d = SpillDedup::new(SpillConfig::new(1 << 20)).unwrap();
    /// let fps: Vec<_> = (0..100u128).map(linksieve_dedup::Fingerprint).collect();
    /// let mut out = std::collections::VecDeque::new();
    /// d.submit_holding(&fps, 1 << 20, &mut out).unwrap();
    /// assert!(!out.is_empty());
    /// ```
    fn submit_holding(
        &mut self,
        fps: &[Fingerprint],
        held: usize,
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        let _ = held;
        self.submit(fps, decisions)
    }
    /// The end of the input: appends every decision still owed (none for sets that answer at
    /// once).
    fn finish(&mut self, _decisions: &mut VecDeque<bool>) -> Result<(), DedupError> {
        Ok(())
    }
    /// Heap memory held, in bytes.
    fn memory_bytes(&self) -> usize;
    /// Unique keys known to the set (for a persistent set: all runs).
    fn len(&self) -> u64;
    /// True when no key is known.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The expected number of new keys wrongly answered "seen" (approximate sets only).
    fn expected_false_drops(&self) -> Option<f64> {
        None
    }
    /// One standard error of [`expected_false_drops`](Dedup::expected_false_drops).
    fn false_drops_error(&self) -> Option<f64> {
        None
    }
    /// A line for the summary when the set's answers are weaker than asked (an `approx`
    /// filter past its expected count); `None` otherwise.
    fn warning(&self) -> Option<String> {
        None
    }
    /// Keys in a persistent store when it was opened (persistent sets only).
    fn store_keys_at_open(&self) -> Option<u64> {
        None
    }
    /// The persistent set, to mark the run complete once the output is in place.
    fn as_persistent(&mut self) -> Option<&mut PersistentDedup> {
        None
    }
    /// Decisions are durable commits: the sink flushes its output after each chunk.
    fn durable(&self) -> bool {
        false
    }
}

/// Exact, in memory (`--dedup memory`, the default).
///
/// ```
/// use linksieve_pipeline::dedup::{Dedup, MemoryDedup};
/// assert_eq!(MemoryDedup::default().len(), 0);
/// ```
#[derive(Default)]
pub struct MemoryDedup(pub MemorySet);

/// Approximate (`--dedup approx --fp-rate P`): a Bloom filter that grows past `--expected`
/// keys to keep the asked rate (up to `--memory` if given); new keys may be dropped as seen,
/// with the expected number reported.
///
/// ```
/// use linksieve_pipeline::dedup::{ApproxDedup, Dedup};
/// let d = ApproxDedup::new(1_000_000, 0.001).unwrap();
/// assert_eq!(d.expected_false_drops(), Some(0.0));
/// ```
pub struct ApproxDedup(pub BloomSet);

impl ApproxDedup {
    /// A filter for `expected` keys at false-positive rate `fp_rate`.
    ///
    /// ```
    /// assert!(linksieve_pipeline::dedup::ApproxDedup::new(10, 2.0).is_err());
    /// ```
    pub fn new(expected: u64, fp_rate: f64) -> Result<Self, DedupError> {
        Ok(ApproxDedup(BloomSet::new(expected, fp_rate)?))
    }

    /// A filter held to `max_bytes` of bits, all stages included (see [`BloomSet::bounded`]).
    ///
    /// ```
    /// let d = linksieve_pipeline::dedup::ApproxDedup::bounded(10_000_000, 0.001, Some(1 << 20)).unwrap();
    /// assert!(d.0.bits() / 8 <= 1 << 20);
    /// ```
    pub fn bounded(
        expected: u64,
        fp_rate: f64,
        max_bytes: Option<usize>,
    ) -> Result<Self, DedupError> {
        Ok(ApproxDedup(BloomSet::bounded(
            expected, fp_rate, max_bytes,
        )?))
    }

    /// The filter may grow up to `max_bytes` (`--memory`), then it is overfilled (see
    /// [`BloomSet`]).
    ///
    /// ```
    /// let d = linksieve_pipeline::dedup::ApproxDedup::new(10, 0.01).unwrap().with_max_bytes(1 << 20);
    /// assert!(!d.0.overfilled());
    /// ```
    pub fn with_max_bytes(self, max_bytes: usize) -> Self {
        ApproxDedup(self.0.with_max_bytes(max_bytes))
    }
}

/// The persistent seen-set (`--seen PATH`): fingerprints are gathered into batches of at least
/// `batch` (small batches into a large store are slow; 0 commits every chunk), and each batch
/// is durably committed before its keys are written (the crash contract of [`PersistentSet`]).
/// The sink flushes its output after each commit, so after `kill -9` at most the keys of the
/// last committed batch were committed but not written.
///
/// ```
/// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
/// use linksieve_pipeline::dedup::{Dedup, PersistentDedup};
/// let dir = std::env::temp_dir().join(format!("ls-pd-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let set = PersistentSet::open(dir.join("s"), &StoreIdentity::new("scheme", "uri", 0), PersistentOptions::default()).unwrap();
/// let mut d = PersistentDedup::new(set, 0);
/// let mut out = std::collections::VecDeque::new();
/// d.submit(&[7, 7].map(linksieve_dedup::Fingerprint), &mut out).unwrap();
/// d.finish(&mut out).unwrap();
/// assert_eq!(out, [true, false]);
/// d.complete().unwrap();
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub struct PersistentDedup {
    set: Option<PersistentSet>,
    at_open: u64,
    batch: Vec<Fingerprint>,
    min_batch: usize,
}

/// Fingerprints per commit of the persistent set when the output is written atomically (all or
/// nothing, so the batch size costs no output): large batches keep the store above 1 M new
/// keys/s.
pub const PERSISTENT_BATCH: usize = 100_000;

impl PersistentDedup {
    /// Wraps an opened store; commits when `min_batch` fingerprints are gathered (and at the end).
    pub fn new(set: PersistentSet, min_batch: usize) -> Self {
        let at_open = set.len();
        PersistentDedup {
            set: Some(set),
            at_open,
            batch: Vec::new(),
            min_batch,
        }
    }

    /// Keys in the store when it was opened.
    ///
    /// ```
    /// # use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// # let dir = std::env::temp_dir().join(format!("ls-pd2-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let set = PersistentSet::open(dir.join("s"), &StoreIdentity::new("scheme", "uri", 0), PersistentOptions::default()).unwrap();
    /// assert_eq!(linksieve_pipeline::dedup::PersistentDedup::new(set, 0).keys_at_open(), 0);
    /// # std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn keys_at_open(&self) -> u64 {
        self.at_open
    }

    /// Commits the gathered batch and appends its decisions.
    fn commit(&mut self, decisions: &mut VecDeque<bool>) -> Result<(), DedupError> {
        if let Some(s) = &mut self.set
            && !self.batch.is_empty()
        {
            let mut new = Vec::with_capacity(self.batch.len());
            s.insert_batch(&self.batch, &mut new)?;
            // Recorded before the keys are written, as before `SeenSet::sync` existed.
            s.sync()?;
            decisions.extend(new);
        }
        self.batch.clear();
        Ok(())
    }

    /// Marks the run finished once its streamed output is complete (flushed).
    pub fn complete(&mut self) -> Result<(), DedupError> {
        match self.set.take() {
            Some(s) => s.finish(),
            None => Ok(()),
        }
    }

    /// Puts an atomic output in place (`publish` renames `tmp` onto it) and marks the run
    /// finished, as one step a kill cannot split ([`PersistentSet::finish_with_output`]).
    ///
    /// ```
    /// use linksieve_dedup::{Abandoned, PersistentOptions, PersistentSet, StoreIdentity};
    /// use linksieve_pipeline::dedup::PersistentDedup;
    /// let dir = std::env::temp_dir().join(format!("ls-pdo-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let atomic = PersistentOptions { abandoned: Abandoned::New, ..Default::default() };
    /// let set = PersistentSet::open(dir.join("s"), &StoreIdentity::new("scheme", "uri", 0), atomic).unwrap();
    /// let (tmp, out) = (dir.join(".out.tmp"), dir.join("out"));
    /// std::fs::write(&tmp, "").unwrap();
    /// PersistentDedup::new(set, 0).complete_with_output(&tmp, || std::fs::rename(&tmp, &out)).unwrap();
    /// assert!(out.exists());
    /// std::fs::remove_dir_all(dir).unwrap();
    /// ```
    pub fn complete_with_output(
        &mut self,
        tmp: &std::path::Path,
        publish: impl FnOnce() -> std::io::Result<()>,
    ) -> Result<(), DedupError> {
        match self.set.take() {
            Some(s) => s.finish_with_output(tmp, publish),
            None => publish().map_err(|e| DedupError::Io {
                op: "put the output in place",
                path: tmp.to_path_buf(),
                source: e,
            }),
        }
    }
}

/// Exact for any number of keys within a memory budget (`--dedup spill --memory SIZE`): sorted
/// runs of fingerprints on disk and a k-way merge.
///
/// ```
/// use linksieve_dedup::SpillConfig;
/// use linksieve_pipeline::dedup::{Dedup, SpillDedup};
/// let mut d = SpillDedup::new(SpillConfig::new(1 << 20)).unwrap();
/// let mut out = std::collections::VecDeque::new();
/// d.submit(&[1, 2, 1].map(linksieve_dedup::Fingerprint), &mut out).unwrap();
/// d.finish(&mut out).unwrap();
/// assert_eq!(out, [true, true, false]);
/// ```
pub struct SpillDedup(pub SpillSet<()>);

impl SpillDedup {
    /// A spilling set with this configuration.
    pub fn new(config: SpillConfig) -> Result<Self, DedupError> {
        Ok(SpillDedup(SpillSet::new(config)?))
    }
}

impl Dedup for MemoryDedup {
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        let mut new = Vec::with_capacity(fps.len());
        self.0.insert_batch(fps, &mut new)?;
        decisions.extend(new);
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn len(&self) -> u64 {
        SeenSet::len(&self.0)
    }
}

impl Dedup for ApproxDedup {
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        decisions.extend(fps.iter().map(|&f| self.0.insert(f)));
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }
    fn len(&self) -> u64 {
        SeenSet::len(&self.0)
    }
    fn expected_false_drops(&self) -> Option<f64> {
        Some(self.0.expected_false_positives())
    }
    fn false_drops_error(&self) -> Option<f64> {
        Some(self.0.false_positive_error())
    }
    fn warning(&self) -> Option<String> {
        approx_warning(&self.0)
    }
}

/// The summary line of an `approx` filter that went past the count it was first sized for:
/// grown (the rate kept within the asked one), or overfilled (the memory limit stopped growth).
fn approx_warning(set: &BloomSet) -> Option<String> {
    let rate = set.current_false_positive_rate();
    if set.overfilled() {
        Some(format!(
            "approx filter overfilled: {} keys in room for {} (memory limit reached); its false-positive rate is now {rate:.4}, above the asked one (the expected drops are estimated from a distinct count of the keys offered)",
            SeenSet::len(set),
            set.capacity()
        ))
    } else if set.stages() > 1 {
        Some(format!(
            "approx filter grew past its expected count: {} stages for {} keys, false-positive rate now {rate:.2e} (within the asked one)",
            set.stages(),
            SeenSet::len(set)
        ))
    } else {
        None
    }
}

impl Dedup for PersistentDedup {
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        self.batch.extend_from_slice(fps);
        if self.batch.len() >= self.min_batch {
            self.commit(decisions)?;
        }
        Ok(())
    }
    fn finish(&mut self, decisions: &mut VecDeque<bool>) -> Result<(), DedupError> {
        self.commit(decisions)
    }
    fn memory_bytes(&self) -> usize {
        self.set.as_ref().map_or(0, SeenSet::memory_bytes)
    }
    fn len(&self) -> u64 {
        self.set.as_ref().map_or(0, |s| s.len())
    }
    fn store_keys_at_open(&self) -> Option<u64> {
        Some(self.at_open)
    }
    fn as_persistent(&mut self) -> Option<&mut PersistentDedup> {
        Some(self)
    }
    fn durable(&self) -> bool {
        true
    }
}

impl Dedup for SpillDedup {
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        self.submit_holding(fps, 0, decisions)
    }
    /// Each item holds its share of `held` (the first one the remainder), so the part of a
    /// chunk still waiting after a merge in its middle is counted again.
    fn submit_holding(
        &mut self,
        fps: &[Fingerprint],
        held: usize,
        decisions: &mut VecDeque<bool>,
    ) -> Result<(), DedupError> {
        let n = fps.len().max(1);
        let (share, rest) = (held / n, held % n);
        for (i, &f) in fps.iter().enumerate() {
            let bytes = if i == 0 { share + rest } else { share };
            if let Some(ready) = self.0.push_holding(f, (), bytes)? {
                decisions.extend(ready.into_iter().map(|(_, new)| new));
            }
        }
        Ok(())
    }
    fn finish(&mut self, decisions: &mut VecDeque<bool>) -> Result<(), DedupError> {
        decisions.extend(self.0.flush()?.into_iter().map(|(_, new)| new));
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        SeenSet::memory_bytes(&self.0)
    }
    fn len(&self) -> u64 {
        self.0.len()
    }
}

//! Seen-sets for linksieve: answer "is this key new?" for streams of billions of keys.
//!
//! Keys are reduced to a 128-bit [`Fingerprint`] (XXH3-128, versioned by
//! [`FINGERPRINT_VERSION`]); the sets hold fingerprints only. Four sets share the [`SeenSet`]
//! trait (answers for a batch, in the batch's order; the first occurrence of a fingerprint is
//! "new", every later one "seen"):
//!
//! | set | exact | memory | disk |
//! | --- | --- | --- | --- |
//! | [`MemorySet`] | yes | ~22 B per unique key | none |
//! | [`SpillSet`] | yes | a fixed budget | 16 B per unique key (sorted runs) |
//! | [`BloomSet`] | no: may call a new key seen, with a running estimate of how often | ~10 bits per key at 1 % | none |
//! | [`PersistentSet`] | yes, across runs | a Bloom filter of ~1.6 B per stored key, the unsynced keys | ~17 B per key in sorted runs in a redb file |
//! | `RedisSet` (feature `redis`) | yes, across runs, processes and machines | none | on the server: about 23 B per key |
//!
//! Design notes and measured figures: the crate's README.
//!
//! # Why 128 bits
//!
//! Two distinct keys with the same fingerprint make the second look "seen" (it is dropped).
//! For `n` distinct keys and `b`-bit uniform fingerprints the expected number of such pairs is
//! `C(n, 2) / 2^b ≈ n^2 / 2^(b+1)` (the birthday bound; [`expected_false_seen`]). Re-derived:
//! at `n = 1e10`, 64 bits give `1e20 / 2^65 = 2.71` expected wrongly dropped keys, while
//! 128 bits give `1e20 / 2^129 = 1.47e-19`. XXH3-128 is not cryptographic: input crafted to
//! collide can be made; for crawl and log data it behaves as a uniform hash.
//!
//! # Order of output
//!
//! A set only answers new/seen; the caller writes the new keys. [`MemorySet`], [`BloomSet`] and
//! [`PersistentSet`] answer at once, so output is in order of first occurrence by
//! construction. [`SpillSet`] answers when its memory budget is full: [`SpillSet::push`] takes a
//! caller token with each fingerprint and hands back `(token, is_new)` for every pushed item in
//! arrival order, so the caller can still write keys in first-occurrence order.
//!
//! ```
//! use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
//! let keys = ["http://a/", "http://b/", "http://a/"];
//! let fps: Vec<Fingerprint> = keys.iter().map(|k| Fingerprint::of(k.as_bytes())).collect();
//! let mut set = MemorySet::new();
//! let mut new = Vec::new();
//! set.insert_batch(&fps, &mut new).unwrap();
//! let out: Vec<&str> = keys.iter().zip(&new).filter(|(_, n)| **n).map(|(k, _)| *k).collect();
//! assert_eq!(out, ["http://a/", "http://b/"]);
//! ```

mod bits;
mod bloom;
mod commit;
mod distinct;
mod error;
mod fingerprint;
mod memory;
mod persistent;
pub mod redirect;
#[cfg(feature = "redis")]
mod shared;
mod spill;

pub use bits::{BloomBits, StagedBits};
pub use bloom::{BloomSet, MAX_EXPECTED_ITEMS, MIN_STAGE_KEYS};
pub use commit::CommitPolicy;
pub use distinct::DistinctCount;
pub use error::{DedupError, Result};
pub use fingerprint::{FINGERPRINT_VERSION, Fingerprint, expected_false_seen};
pub use memory::MemorySet;
pub use persistent::{Abandoned, PersistentOptions, PersistentSet, STORE_FORMAT, StoreIdentity};
#[cfg(feature = "redis")]
pub use shared::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_EXPECT, DEFAULT_LEASE, DEFAULT_SHARDS, DEFAULT_TIMEOUT,
    REDIS_FORMAT, RedisSet,
};
pub use spill::{SpillConfig, SpillSet};

/// The common API of the seen-sets: answers for a batch of fingerprints, in order.
///
/// `insert_batch` replaces the contents of `new` with one answer per fingerprint: `true` for the
/// first occurrence of a fingerprint (new to the set and not earlier in the batch), `false` for
/// every other one. It is object safe, so a pipeline can hold a `Box<dyn SeenSet>`.
///
/// ```
/// use linksieve_dedup::{BloomSet, Fingerprint, MemorySet, SeenSet};
/// fn count_new(set: &mut dyn SeenSet, fps: &[Fingerprint]) -> usize {
///     let mut new = Vec::new();
///     set.insert_batch(fps, &mut new).unwrap();
///     new.iter().filter(|&&n| n).count()
/// }
/// let fps = [1u128, 2, 1].map(Fingerprint);
/// assert_eq!(count_new(&mut MemorySet::new(), &fps), 2);
/// assert_eq!(count_new(&mut BloomSet::new(1000, 0.01).unwrap(), &fps), 2);
/// ```
pub trait SeenSet: Send {
    /// Inserts a batch; `new[i]` tells whether `fps[i]` was a first occurrence. The
    /// persistent set answers at once and records the new keys only at
    /// [`sync`](SeenSet::sync) (see [`PersistentSet`]'s crash contract); for the spill set it
    /// is one merge pass.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut new = Vec::new();
    /// MemorySet::new().insert_batch(&[Fingerprint(1), Fingerprint(1)], &mut new).unwrap();
    /// assert_eq!(new, [true, false]);
    /// ```
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()>;

    /// Inserts one fingerprint: true when it is new. A batch of one; prefer
    /// [`insert_batch`](SeenSet::insert_batch) (or the in-memory sets' own `insert`) in loops.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut set = MemorySet::new();
    /// assert!(SeenSet::insert_one(&mut set, Fingerprint(3)).unwrap());
    /// assert!(!SeenSet::insert_one(&mut set, Fingerprint(3)).unwrap());
    /// ```
    fn insert_one(&mut self, fp: Fingerprint) -> Result<bool> {
        let mut new = Vec::with_capacity(1);
        self.insert_batch(&[fp], &mut new)?;
        Ok(new.first().copied().unwrap_or(false))
    }

    /// The number of fingerprints answered "new" so far (for the exact sets: the number of
    /// unique keys; for the persistent set: the keys in the store).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut set = MemorySet::new();
    /// set.insert(Fingerprint(1));
    /// assert_eq!(SeenSet::len(&set), 1);
    /// ```
    fn len(&self) -> u64;

    /// True when nothing was inserted.
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// assert!(SeenSet::is_empty(&MemorySet::new()));
    /// ```
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The heap memory the set holds now, in bytes (for the persistent set: its scratch
    /// buffers plus the database cache limit it was opened with).
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// assert!(MemorySet::new().memory_bytes() < 100_000);
    /// ```
    fn memory_bytes(&self) -> usize;

    /// Records durably every key answered new so far. The caller calls it only once those keys
    /// are delivered (written and flushed, or returned to its own caller), when its
    /// [`CommitPolicy`] says so and at the end; a durable set keeps the keys it answered new
    /// *unsynced* until then (known to this process, not yet to other runs). A set that keeps
    /// nothing beyond the process does nothing.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut set = MemorySet::new();
    /// set.insert(Fingerprint(1));
    /// set.sync().unwrap();
    /// assert_eq!(set.unsynced(), 0);
    /// ```
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    /// Keys answered new and not yet recorded by [`sync`](SeenSet::sync) (0 for sets that
    /// keep nothing beyond the process).
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// assert_eq!(MemorySet::new().unsynced(), 0);
    /// ```
    fn unsynced(&self) -> u64 {
        0
    }

    /// True for a set that keeps keys beyond the process (a store): its caller delivers what
    /// it answered new, then [`sync`](SeenSet::sync)s, and ends with
    /// [`finish`](SeenSet::finish).
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// assert!(!MemorySet::new().durable());
    /// ```
    fn durable(&self) -> bool {
        false
    }

    /// Takes a batch whose answers may come later: appends to `answers` (in order) those ready
    /// now. `held` is the memory the caller holds for these items until their answers come (a
    /// set that answers late counts it against its budget). Sets that answer at once append
    /// one answer per fingerprint; the spill set answers when its budget is full.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, SeenSet, SpillConfig, SpillSet};
    /// let mut set = SpillSet::<()>::new(SpillConfig::new(1 << 20)).unwrap();
    /// let mut answers = std::collections::VecDeque::new();
    /// set.submit(&[1, 2, 1].map(Fingerprint), 0, &mut answers).unwrap();
    /// set.answer_rest(&mut answers).unwrap();
    /// assert_eq!(answers, [true, true, false]);
    /// ```
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        held: usize,
        answers: &mut std::collections::VecDeque<bool>,
    ) -> Result<()> {
        let _ = held;
        let mut new = Vec::with_capacity(fps.len());
        self.insert_batch(fps, &mut new)?;
        answers.extend(new);
        Ok(())
    }

    /// The end of the input: appends every answer still owed by [`submit`](SeenSet::submit).
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// let mut answers = std::collections::VecDeque::new();
    /// MemorySet::new().answer_rest(&mut answers).unwrap();
    /// assert!(answers.is_empty());
    /// ```
    fn answer_rest(&mut self, answers: &mut std::collections::VecDeque<bool>) -> Result<()> {
        let _ = answers;
        Ok(())
    }

    /// Ends a run of a durable set: syncs, then marks the run finished (a store records that
    /// its output is complete). Other sets only sync.
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// let set: Box<dyn SeenSet> = Box::new(MemorySet::new());
    /// set.finish().unwrap();
    /// ```
    fn finish(mut self: Box<Self>) -> Result<()> {
        self.sync()
    }

    /// Ends a run whose output is a file renamed into place at the end: `publish` renames
    /// `tmp` onto the output. A store makes the rename and the end of its run one step a kill
    /// cannot split ([`PersistentSet::finish_with_output`]); other sets publish, then sync
    /// (the keys are delivered once the file is in place: a crash between the two costs keys
    /// delivered twice, never lost).
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// let dir = tempfile::tempdir().unwrap();
    /// let (tmp, out) = (dir.path().join(".tmp"), dir.path().join("out"));
    /// std::fs::write(&tmp, "").unwrap();
    /// let set: Box<dyn SeenSet> = Box::new(MemorySet::new());
    /// set.finish_with_output(&tmp, &mut || std::fs::rename(&tmp, &out)).unwrap();
    /// assert!(out.exists());
    /// ```
    fn finish_with_output(
        mut self: Box<Self>,
        tmp: &std::path::Path,
        publish: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Result<()> {
        publish().map_err(|e| DedupError::Io {
            op: "put the output in place",
            path: tmp.to_path_buf(),
            source: e,
        })?;
        self.sync()
    }

    /// True when the set would answer `fp` "seen" now, without inserting it (a Bloom filter:
    /// maybe; a store: synced or unsynced).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut set = MemorySet::new();
    /// set.insert(Fingerprint(1));
    /// assert!(SeenSet::knows(&mut set, Fingerprint(1)).unwrap());
    /// assert!(!SeenSet::knows(&mut set, Fingerprint(2)).unwrap());
    /// ```
    fn knows(&mut self, fp: Fingerprint) -> Result<bool>;

    /// Empties a shared set for every process that uses it (scrapy-redis's `clear`); the other
    /// kinds refuse with [`DedupError::InvalidConfig`].
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// assert!(SeenSet::clear(&mut MemorySet::new()).is_err());
    /// ```
    fn clear(&mut self) -> Result<()> {
        Err(DedupError::InvalidConfig(
            "clear: only for a shared set (redis)".into(),
        ))
    }

    /// What the set can say of its answers for a run's summary.
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, MemorySet, SeenSet};
    /// assert_eq!(MemorySet::new().report().expected_false_drops, None);
    /// assert_eq!(BloomSet::new(10, 0.01).unwrap().report().expected_false_drops, Some(0.0));
    /// ```
    fn report(&self) -> SetReport {
        SetReport::default()
    }
}

/// What a seen-set says of its answers, for a run's summary ([`SeenSet::report`]).
///
/// ```
/// let r = linksieve_dedup::SetReport::default();
/// assert!(r.warning.is_none() && r.keys_at_open.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetReport {
    /// The expected number of new keys wrongly answered "seen" (approximate sets only).
    pub expected_false_drops: Option<f64>,
    /// One standard error of `expected_false_drops`.
    pub false_drops_error: Option<f64>,
    /// A line for the summary when the answers are weaker than asked (an approx filter past
    /// its expected count).
    pub warning: Option<String>,
    /// Keys a store held when it was opened (stores only).
    pub keys_at_open: Option<u64>,
}

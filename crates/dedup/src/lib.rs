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
//! | [`PersistentSet`] | yes, across runs | one batch | 16 B per key in sorted runs in a redb file |
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
pub trait SeenSet {
    /// Inserts a batch; `new[i]` tells whether `fps[i]` was a first occurrence. For the
    /// persistent set the batch is durably committed before this returns (see
    /// [`PersistentSet`]'s crash contract); for the spill set it is one merge pass.
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
}

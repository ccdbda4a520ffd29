//! The in-memory filter over the stored keys: blocked Bloom bits (see [`BloomBits`]) that say
//! "certainly not stored" for almost every new key, so that it costs no disk read. A "maybe" is
//! looked up in the runs, so the filter never drops a key. It is built at open from the runs
//! (one sequential read of the store), takes the keys of each sync, and is built again, larger,
//! when the store has grown past what it was sized for.

use super::format::{RunInfo, StoreCtx, guarded, read_chunks};
use super::runs::RunReader;
use crate::{BloomBits, Fingerprint, Result};
use redb::Database;
use std::path::Path;

/// Bits per stored key when the filter is (re)built: 1.625 bytes.
pub(super) const BITS_PER_KEY: u64 = 13;
/// The filter is built again once the store holds this many times the keys it was built for
/// (then it has 13 / 1.33 = 9.75 bits per key, about 1.5 % false "maybe").
const GROWTH_NUM: u64 = 4;
const GROWTH_DEN: u64 = 3;
/// Bits set per key: the seven 9-bit slices of one 64-bit word.
const K: u32 = 7;
/// The filter is sized for at least this many keys (224 KiB).
const MIN_KEYS: u64 = 1 << 17;

/// The filter and the number of keys it was sized for.
#[derive(Debug)]
pub(super) struct StoreFilter {
    bits: BloomBits,
    sized_for: u64,
}

impl StoreFilter {
    /// An empty filter with room for `keys` keys.
    pub(super) fn with_room(keys: u64) -> Result<StoreFilter> {
        let keys = keys.max(MIN_KEYS);
        let blocks = keys.saturating_mul(BITS_PER_KEY).div_ceil(512);
        Ok(StoreFilter {
            bits: BloomBits::try_with_blocks(usize::try_from(blocks).unwrap_or(usize::MAX), K)?,
            sized_for: keys,
        })
    }

    /// A filter over every key of `runs` (`len` keys in all), read from the store.
    pub(super) fn build(
        path: &Path,
        db: &Database,
        runs: &[RunInfo],
        len: u64,
    ) -> Result<StoreFilter> {
        let mut filter = StoreFilter::with_room(len)?;
        guarded(path, "reading the runs for the filter", || {
            let txn = db.begin_read().ctx(path)?;
            let table = read_chunks(path, &txn)?;
            for run in runs {
                let mut reader = RunReader::new(*run);
                while let Some(v) = reader.next(path, &table)? {
                    filter.insert(v);
                }
            }
            Ok(())
        })?;
        Ok(filter)
    }

    /// A filter that says "maybe" for every key: every lookup goes to the runs (before the
    /// real filter is built, and in tests).
    pub(super) fn all_maybe() -> StoreFilter {
        let mut bits = BloomBits::with_blocks(1, K);
        bits.blocks[0] = [u64::MAX; crate::bits::WORDS];
        StoreFilter {
            bits,
            sized_for: u64::MAX / 2,
        }
    }

    /// True when a store of `len` keys has outgrown the filter.
    pub(super) fn outgrown(&self, len: u64) -> bool {
        len.saturating_mul(GROWTH_DEN) > self.sized_for.saturating_mul(GROWTH_NUM)
    }

    #[inline]
    pub(super) fn insert(&mut self, v: u128) {
        self.bits.insert(Fingerprint(v));
    }

    /// False when `v` is certainly not stored.
    #[inline]
    pub(super) fn maybe(&self, v: u128) -> bool {
        self.bits.contains(Fingerprint(v))
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.bits.memory_bytes()
    }
}

/// A hasher for fingerprints, which are uniform already: the two halves folded.
#[derive(Default, Clone, Copy)]
pub(super) struct FoldHasher(u64);

impl std::hash::Hasher for FoldHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u128(&mut self, v: u128) {
        self.0 ^= (v as u64) ^ ((v >> 64) as u64).rotate_left(29);
    }
}

/// The keys answered new and not yet synced.
pub(super) type Unsynced =
    std::collections::HashSet<u128, std::hash::BuildHasherDefault<FoldHasher>>;

/// The chunks (run number, first fingerprint) this process has checked: a lookup checks a
/// chunk's checksum and order the first time it reads it, not at every read.
pub(super) type VerifiedChunks =
    std::collections::HashSet<(u64, u128), std::hash::BuildHasherDefault<FoldHasher>>;

/// Chunks remembered as checked at most (then forgotten, and checked again): 16 MiB or so.
pub(super) const MAX_VERIFIED: usize = 1 << 19;

//! The in-memory filter over the stored keys: blocked Bloom bits (see [`BloomBits`]) that say
//! "certainly not stored" for almost every new key, so that it costs no disk read. A "maybe" is
//! looked up in the runs, so the filter never drops a key. It is built at open from the runs
//! (one sequential read of the store), takes the keys of each sync, and is built again, larger,
//! when the store has grown past what it was sized for.

use super::fences::Fences;
use super::files::RunFiles;
use super::format::RunInfo;
use super::runs::RunReader;
use crate::{BloomBits, Fingerprint, Result};
use std::path::Path;

/// Bits per stored key when the filter is (re)built: 1.375 bytes.
pub(super) const BITS_PER_KEY: u64 = 11;
/// The filter is built again once the store holds this many times the keys it was built for
/// (then it has 11 / 1.33 = 8.25 bits per key). False "maybe": 0.84 % when built, 2.3 % just
/// before a rebuild (measured by the test below; 13 bits gave 0.45 % and 1.3 %, for 0.25 B
/// more a key).
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

    /// A filter over every key of `runs` (`len` keys in all), read from the store, and the
    /// runs' fences, gathered on the way.
    pub(super) fn build(
        path: &Path,
        files: &RunFiles,
        runs: &[RunInfo],
        len: u64,
    ) -> Result<(StoreFilter, Fences)> {
        let mut filter = StoreFilter::with_room(len)?;
        let mut fences = Fences::default();
        for run in runs {
            let mut reader = RunReader::fenced(*run);
            while let Some(v) = reader.next(path, files)? {
                filter.insert(v);
            }
            if let Some(f) = reader.fences() {
                fences.insert(run.no, f);
            }
        }
        Ok((filter, fences))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The false "maybe" rate the guide gives: 11 bits a key when built, 8.25 once the store
    /// has grown by a third (just before a rebuild).
    #[test]
    fn false_maybe_rate_when_built_and_before_a_rebuild() {
        let mut st = 3u64;
        let mut next = || {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            u128::from(st) << 64 | u128::from(st.rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15)
        };
        let n = 1u64 << 20;
        let mut filter = StoreFilter::with_room(n).unwrap();
        let mut rate = |filter: &mut StoreFilter, add: u64| {
            for _ in 0..add {
                filter.insert(next());
            }
            let probes = 1_000_000;
            (0..probes).filter(|_| filter.maybe(next())).count() as f64 / probes as f64
        };
        let built = rate(&mut filter, n);
        let grown = rate(&mut filter, n / 3);
        eprintln!("false maybe: {built:.4} when built, {grown:.4} grown by a third");
        assert!((0.002..0.012).contains(&built), "{built}");
        assert!((0.005..0.03).contains(&grown), "{grown}");
    }
}

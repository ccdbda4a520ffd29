//! The fence keys of the runs: the first fingerprint of every chunk of every run, kept in
//! memory (16 bytes a chunk of [`WRITE_FPS`](super::format::WRITE_FPS) keys: 0.065 B a stored
//! key). A lookup finds in them the one chunk that may hold a key, and reads that chunk's slot
//! of the run's file (one positioned read); the chunk read must start with the fence and name
//! the next one. They are gathered where chunks are read or written anyway: when the filter is
//! built from the runs (at open), and when a sync or a merge writes a run.

use super::filter::FoldHasher;
use super::format::RunInfo;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

/// Fences per entry of the upper level of [`RunFences`].
const STRIDE: usize = 32;

/// The fences of one run, and every [`STRIDE`]th of them (the upper level of the search: at 1e8
/// keys 12,600 entries, 200 KB, which stay in the processor's cache where the 6.4 MB of all the
/// fences do not).
#[derive(Debug)]
pub(super) struct RunFences {
    all: Box<[u128]>,
    upper: Box<[u128]>,
}

impl RunFences {
    /// The first fingerprint of each chunk, in increasing order.
    pub(super) fn all(&self) -> &[u128] {
        &self.all
    }

    /// The position of the chunk that may hold `fp`: the last whose first fingerprint is not
    /// above it; `None` when `fp` is below the run's first. A search of the upper level, then
    /// of the [`STRIDE`] fences it names.
    pub(super) fn chunk_of(&self, fp: u128) -> Option<usize> {
        let k = self.upper.partition_point(|&f| f <= fp).checked_sub(1)?;
        let lo = k * STRIDE;
        let hi = (lo + STRIDE).min(self.all.len());
        chunk_of(&self.all[lo..hi], fp).map(|j| lo + j)
    }
}

/// The fences of each run, by run number. A run without fences here (none were gathered) is
/// read whole by a lookup instead.
#[derive(Debug, Default)]
pub(super) struct Fences(HashMap<u64, Arc<RunFences>, BuildHasherDefault<FoldHasher>>);

impl Fences {
    /// The fences of run `no` (shared with the threads that read a share of a batch).
    pub(super) fn of(&self, no: u64) -> Option<&Arc<RunFences>> {
        self.0.get(&no)
    }

    /// Records the fences of run `no` (the first fingerprint of each of its chunks, in order).
    pub(super) fn insert(&mut self, no: u64, firsts: Vec<u128>) {
        let upper = firsts.iter().step_by(STRIDE).copied().collect();
        self.0.insert(
            no,
            Arc::new(RunFences {
                all: firsts.into_boxed_slice(),
                upper,
            }),
        );
    }

    /// Forgets the fences of runs that are no longer among `runs` (merged away).
    pub(super) fn retain(&mut self, runs: &[RunInfo]) {
        self.0.retain(|no, _| runs.iter().any(|r| r.no == *no));
    }

    /// The bytes they take.
    pub(super) fn memory_bytes(&self) -> usize {
        self.0
            .values()
            .map(|f| (f.all.len() + f.upper.len()) * std::mem::size_of::<u128>() + 48)
            .sum()
    }
}

/// The position of the chunk that may hold `fp`: the last whose first fingerprint is not
/// above it; `None` when `fp` is below the run's first.
pub(super) fn chunk_of(fences: &[u128], fp: u128) -> Option<usize> {
    fences.partition_point(|&f| f <= fp).checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_of_names_the_last_fence_not_above() {
        let f = [10u128, 20, 30];
        assert_eq!(chunk_of(&f, 9), None);
        assert_eq!(chunk_of(&f, 10), Some(0));
        assert_eq!(chunk_of(&f, 19), Some(0));
        assert_eq!(chunk_of(&f, 20), Some(1));
        assert_eq!(chunk_of(&f, u128::MAX), Some(2));
        assert_eq!(chunk_of(&[], 5), None);
    }

    #[test]
    fn the_two_level_search_names_the_chunk_the_plain_one_does() {
        for n in [0usize, 1, 2, 31, 32, 33, 64, 65, 1000] {
            let firsts: Vec<u128> = (0..n as u128).map(|i| i * 10 + 5).collect();
            let mut f = Fences::default();
            f.insert(7, firsts.clone());
            let run = f.of(7).unwrap();
            assert_eq!(run.all(), &firsts[..]);
            for fp in (0..n as u128 * 10 + 20).chain([u128::MAX]) {
                assert_eq!(run.chunk_of(fp), chunk_of(&firsts, fp), "{n} {fp}");
            }
        }
    }
}

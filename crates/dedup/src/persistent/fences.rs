//! The fence keys of the runs: the first fingerprint of every chunk of every run, kept in
//! memory (16 bytes a chunk of [`WRITE_FPS`](super::format::WRITE_FPS) keys: 0.065 B a stored
//! key). A lookup finds in them the one chunk that may hold a key and reads it by its key (one
//! descent of the tree), where without them it reads a range of the tree (two descents). They
//! are gathered where chunks are read or written anyway: when the filter is built from the runs
//! (at open), and when a sync or a merge writes a run.

use super::filter::FoldHasher;
use super::format::RunInfo;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The fences of each run, by run number. A run without fences here (none were gathered) is
/// looked up by a range read instead.
#[derive(Debug, Default)]
pub(super) struct Fences(HashMap<u64, Box<[u128]>, BuildHasherDefault<FoldHasher>>);

impl Fences {
    /// The first fingerprint of each chunk of run `no`, in increasing order.
    pub(super) fn of(&self, no: u64) -> Option<&[u128]> {
        self.0.get(&no).map(|f| &f[..])
    }

    /// Records the fences of run `no` (the first fingerprint of each of its chunks, in order).
    pub(super) fn insert(&mut self, no: u64, firsts: Vec<u128>) {
        self.0.insert(no, firsts.into_boxed_slice());
    }

    /// Forgets the fences of runs that are no longer among `runs` (merged away).
    pub(super) fn retain(&mut self, runs: &[RunInfo]) {
        self.0.retain(|no, _| runs.iter().any(|r| r.no == *no));
    }

    /// The bytes they take.
    pub(super) fn memory_bytes(&self) -> usize {
        self.0
            .values()
            .map(|f| f.len() * std::mem::size_of::<u128>() + 32)
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
}

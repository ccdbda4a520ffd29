//! The exact in-memory seen-set: sharded open-addressing tables of raw fingerprints.

use crate::{Fingerprint, Result, SeenSet};

/// Number of shards, as a power of two, unless the caller asks for another.
const DEFAULT_SHARD_BITS: u32 = 10;
/// Smallest shard table (slots) once a shard holds anything.
const MIN_SHARD_SLOTS: usize = 16;
/// Maximum load factor, as a fraction: a shard grows before it would exceed 9/10 full.
const MAX_LOAD_NUM: usize = 9;
const MAX_LOAD_DEN: usize = 10;
/// Fingerprints whose home slots are read ahead in a batch insert.
const LOOKAHEAD: usize = 16;

/// The exact seen-set in RAM, at about 22 bytes per unique key at any size (the design's
/// structural bound is 16 / 0.6 = 26.7 bytes for a single table just after it grew; see below).
///
/// Layout: `2^shard_bits` shards (1024 by default) chosen by the top bits of the fingerprint;
/// each shard is an open-addressing table of raw `u128` fingerprints with linear probing,
/// the home slot taken from the low 64 bits by multiply-shift (`(lo * slots) >> 64`). The value
/// 0 marks an empty slot; the fingerprint 0 is kept in a flag of its own. A shard grows by 1.5x
/// when it would exceed 9/10 full, so each shard's load stays between 0.6 and 0.9. The shards'
/// starting sizes are staggered over one growth step (shard `i` starts at
/// `16 * 1.5^(i / shards)` slots), so they grow at different times and the load of the whole
/// set stays near the log-average of that range, `1 / mean(1/load) = 0.73`, that is
/// 16 / 0.73 = 21.9 bytes per key, instead of swinging with every growth. Growing one shard
/// copies 1/1024 of the set, so the peak during growth is barely above the steady state.
///
/// ```
/// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
/// let mut set = MemorySet::new();
/// assert!(set.insert(Fingerprint::of(b"http://a/")));
/// assert!(!set.insert(Fingerprint::of(b"http://a/")));
/// assert!(set.insert(Fingerprint(0)));
/// assert!(set.contains(Fingerprint(0)));
/// assert_eq!(set.len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct MemorySet {
    shards: Vec<Shard>,
    shard_shift: u32,
    has_zero: bool,
    len: u64,
    /// The keys of the shard being grown (reused; one shard's worth).
    scratch: Vec<u128>,
}

#[derive(Clone, Debug, Default)]
struct Shard {
    slots: Vec<u128>,
    len: usize,
    grow_at: usize,
    /// Slots to allocate on the first insert (staggered per shard).
    first_slots: usize,
}

impl Default for MemorySet {
    fn default() -> Self {
        MemorySet::new()
    }
}

impl MemorySet {
    /// An empty set with 1024 shards; nothing is allocated until the first insert into a shard.
    ///
    /// ```
    /// use linksieve_dedup::{MemorySet, SeenSet};
    /// let set = MemorySet::new();
    /// assert!(set.is_empty());
    /// ```
    pub fn new() -> MemorySet {
        MemorySet::with_shard_bits(DEFAULT_SHARD_BITS)
    }

    /// An empty set with `2^bits` shards (`bits` is clamped to 0..=16). More shards make each
    /// growth step smaller and the staggering finer; fewer save a little memory on tiny sets.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet};
    /// let mut set = MemorySet::with_shard_bits(4);
    /// assert!(set.insert(Fingerprint(u128::MAX)));
    /// assert!(set.contains(Fingerprint(u128::MAX)));
    /// ```
    pub fn with_shard_bits(bits: u32) -> MemorySet {
        let bits = bits.min(16);
        let n = 1usize << bits;
        let shards = (0..n)
            .map(|i| {
                // 16 * 1.5^(i/n): spread the shards' growth points over one growth step.
                let f = 1.5f64.powf(i as f64 / n as f64);
                Shard {
                    first_slots: (MIN_SHARD_SLOTS as f64 * f).round() as usize,
                    ..Shard::default()
                }
            })
            .collect();
        MemorySet {
            shards,
            shard_shift: 128 - bits,
            has_zero: false,
            len: 0,
            scratch: Vec::new(),
        }
    }

    /// An empty set sized for `expected` unique keys at a load of 0.9 (about 17.8 bytes per key
    /// once full). Inserting more keys is fine: the shards grow as usual.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
    /// let mut set = MemorySet::with_capacity(10_000);
    /// let before = set.memory_bytes();
    /// for i in 1..=10_000u128 {
    ///     set.insert(Fingerprint(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)));
    /// }
    /// assert_eq!(set.memory_bytes(), before); // no growth
    /// ```
    pub fn with_capacity(expected: u64) -> MemorySet {
        // At least ~4096 keys per shard, so that the slack for uneven shards stays small.
        let bits = (expected / 4096).max(1).ilog2().min(DEFAULT_SHARD_BITS);
        let mut set = MemorySet::with_shard_bits(bits);
        let per_shard = (expected as f64 / set.shards.len() as f64).ceil();
        // Room for the mean count plus 4 standard deviations (binomial), at the maximum load.
        let need = per_shard + 4.0 * per_shard.sqrt() + 1.0;
        let slots = ((need * MAX_LOAD_DEN as f64 / MAX_LOAD_NUM as f64).ceil() as usize)
            .max(MIN_SHARD_SLOTS);
        for s in &mut set.shards {
            s.first_slots = slots;
            s.allocate(slots);
        }
        set
    }

    #[inline]
    fn shard_of(&self, fp: u128) -> usize {
        // checked_shr: with 0 shard bits the shift is 128, which means shard 0.
        fp.checked_shr(self.shard_shift).unwrap_or(0) as usize
    }

    /// Inserts a fingerprint; true when it was not in the set (the first occurrence).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet};
    /// let mut set = MemorySet::new();
    /// assert!(set.insert(Fingerprint(42)));
    /// assert!(!set.insert(Fingerprint(42)));
    /// ```
    #[inline]
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        let v = fp.0;
        if v == 0 {
            let new = !self.has_zero;
            self.has_zero = true;
            self.len += new as u64;
            return new;
        }
        let s = self.shard_of(v);
        let shard = &mut self.shards[s];
        if shard.len >= shard.grow_at {
            shard.grow(&mut self.scratch);
        }
        let new = shard.insert(v);
        self.len += new as u64;
        new
    }

    /// True when the fingerprint is in the set.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet};
    /// let mut set = MemorySet::new();
    /// set.insert(Fingerprint(5));
    /// assert!(set.contains(Fingerprint(5)));
    /// assert!(!set.contains(Fingerprint(6)));
    /// ```
    #[inline]
    pub fn contains(&self, fp: Fingerprint) -> bool {
        let v = fp.0;
        if v == 0 {
            return self.has_zero;
        }
        self.shards[self.shard_of(v)].contains(v)
    }

    /// The number of slots allocated over all shards (for measurements: memory is about
    /// 16 bytes per slot).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet};
    /// let mut set = MemorySet::with_shard_bits(0);
    /// set.insert(Fingerprint(1));
    /// assert_eq!(set.slots(), 16);
    /// ```
    pub fn slots(&self) -> usize {
        self.shards.iter().map(|s| s.slots.len()).sum()
    }

    /// All fingerprints in the set, in no particular order.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, MemorySet};
    /// let mut set = MemorySet::new();
    /// set.insert(Fingerprint(0));
    /// set.insert(Fingerprint(9));
    /// let mut all: Vec<_> = set.iter().collect();
    /// all.sort();
    /// assert_eq!(all, [Fingerprint(0), Fingerprint(9)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        let zero = self.has_zero.then_some(Fingerprint(0));
        zero.into_iter().chain(
            self.shards
                .iter()
                .flat_map(|s| s.slots.iter().filter(|&&v| v != 0).map(|&v| Fingerprint(v))),
        )
    }
}

impl Shard {
    fn allocate(&mut self, slots: usize) {
        self.slots = vec![0; slots];
        self.grow_at = slots * MAX_LOAD_NUM / MAX_LOAD_DEN;
    }

    #[inline]
    fn home(v: u128, slots: usize) -> usize {
        // Multiply-shift of the low 64 bits (the top bits chose the shard).
        ((v as u64 as u128 * slots as u128) >> 64) as usize
    }

    /// Inserts into a table with room (the caller grows it first).
    #[inline]
    fn insert(&mut self, v: u128) -> bool {
        let n = self.slots.len();
        let mut i = Self::home(v, n);
        loop {
            let x = self.slots[i];
            if x == v {
                return false;
            }
            if x == 0 {
                self.slots[i] = v;
                self.len += 1;
                return true;
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    #[inline]
    fn contains(&self, v: u128) -> bool {
        let n = self.slots.len();
        if n == 0 {
            return false;
        }
        let mut i = Self::home(v, n);
        // The table is never full (load <= 0.9), so an empty slot ends every probe sequence.
        loop {
            let x = self.slots[i];
            if x == v {
                return true;
            }
            if x == 0 {
                return false;
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// Grows the table by 1.5x in place: the buffer is reallocated (for large tables the
    /// allocator moves the pages instead of copying them), so only the added part is fresh
    /// memory; the keys wait in `scratch` meanwhile. Growing into a new buffer instead would
    /// touch fresh pages worth three times the final table over the set's life (page faults
    /// and kernel page clearing were half the insert time).
    #[cold]
    fn grow(&mut self, scratch: &mut Vec<u128>) {
        if self.slots.is_empty() {
            self.allocate(self.first_slots.max(MIN_SHARD_SLOTS));
            return;
        }
        let n = self.slots.len() + self.slots.len() / 2;
        scratch.clear();
        scratch.extend(self.slots.iter().copied().filter(|&v| v != 0));
        self.slots.clear();
        self.slots.reserve_exact(n);
        self.slots.resize(n, 0);
        self.grow_at = n * MAX_LOAD_NUM / MAX_LOAD_DEN;
        for &v in scratch.iter() {
            let mut i = Self::home(v, n);
            while self.slots[i] != 0 {
                i += 1;
                if i == n {
                    i = 0;
                }
            }
            self.slots[i] = v;
        }
    }
}

impl SeenSet for MemorySet {
    fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
        Ok(self.contains(fp))
    }

    /// Never fails. Faster than one [`insert`](MemorySet::insert) after another on large sets:
    /// it reads the home slots of 16 fingerprints before probing for any of them, so that
    /// their cache misses overlap.
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        new.clear();
        new.reserve(fps.len());
        for group in fps.chunks(LOOKAHEAD) {
            // Independent loads: the CPU has them in flight together (a prefetch in safe Rust).
            let mut touched = 0u128;
            for fp in group {
                let shard = &self.shards[self.shard_of(fp.0)];
                let n = shard.slots.len();
                if n > 0 {
                    touched ^= shard.slots[Shard::home(fp.0, n)];
                }
            }
            std::hint::black_box(touched);
            new.extend(group.iter().map(|&fp| self.insert(fp)));
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }

    /// The heap held by the shard tables and the shard array, plus the set itself.
    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.shards.capacity() * std::mem::size_of::<Shard>()
            + self.scratch.capacity() * std::mem::size_of::<u128>()
            + self
                .shards
                .iter()
                .map(|s| s.slots.capacity() * std::mem::size_of::<u128>())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// SplitMix64, for reproducible test streams without a dependency.
    pub(crate) fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn random_fp(state: &mut u64) -> u128 {
        ((splitmix(state) as u128) << 64) | splitmix(state) as u128
    }

    #[test]
    fn agrees_with_hashset_including_zero_and_extremes() {
        let mut set = MemorySet::with_shard_bits(3);
        let mut reference = HashSet::new();
        let mut st = 7u64;
        let specials = [0u128, 1, u128::MAX, 1 << 127, u64::MAX as u128];
        for round in 0..20_000u32 {
            let v = if round % 97 == 0 {
                specials[(round / 97) as usize % specials.len()]
            } else if round % 3 == 0 {
                // Re-insert a value from a small pool: many duplicates.
                (splitmix(&mut st) % 500) as u128 * 0x1_0000_0000_0000_0001
            } else {
                random_fp(&mut st)
            };
            assert_eq!(set.insert(Fingerprint(v)), reference.insert(v), "{v:#x}");
        }
        assert_eq!(set.len(), reference.len() as u64);
        for &v in &reference {
            assert!(set.contains(Fingerprint(v)));
        }
        let mut listed: Vec<u128> = set.iter().map(|f| f.0).collect();
        listed.sort_unstable();
        let mut expected: Vec<u128> = reference.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(listed, expected);
    }

    #[test]
    fn clustered_low_bits_still_work() {
        // All keys in one shard and with equal home slots: long probe chains, wrap-around.
        let mut set = MemorySet::with_shard_bits(2);
        for i in 1..=3000u128 {
            assert!(set.insert(Fingerprint(i)));
        }
        for i in 1..=3000u128 {
            assert!(!set.insert(Fingerprint(i)));
        }
        assert_eq!(set.len(), 3000);
        assert!(!set.contains(Fingerprint(3001)));
    }

    #[test]
    fn bytes_per_key_structural_bound_at_1e6() {
        // The design bound: every shard's load is in [0.6, 0.9], so 16 / 0.6 = 26.7 B/key for
        // the tables at worst; with staggered growth the aggregate is near 16 / 0.73 = 21.9.
        // Check <= 24 at 1e6 random keys, and the load of every shard within its range.
        let mut set = MemorySet::new();
        let mut st = 42u64;
        for _ in 0..1_000_000 {
            set.insert(Fingerprint(random_fp(&mut st)));
        }
        assert_eq!(set.len(), 1_000_000);
        let per_key = set.memory_bytes() as f64 / set.len() as f64;
        assert!(per_key <= 24.0, "{per_key} bytes per key");
        for s in &set.shards {
            let load = s.len as f64 / s.slots.len() as f64;
            assert!((0.59..=0.9).contains(&load), "shard load {load}");
        }
    }

    #[test]
    fn with_capacity_does_not_grow() {
        let mut set = MemorySet::with_capacity(100_000);
        let slots = set.slots();
        let mut st = 1u64;
        for _ in 0..100_000 {
            set.insert(Fingerprint(random_fp(&mut st)));
        }
        assert_eq!(set.slots(), slots);
        let per_key = set.memory_bytes() as f64 / 100_000.0;
        assert!(per_key < 19.5, "{per_key}");
    }

    #[test]
    fn batch_marks_first_occurrence_only() {
        let mut set = MemorySet::new();
        let mut new = Vec::new();
        let fps = [3u128, 4, 3, 0, 0, 5].map(Fingerprint);
        set.insert_batch(&fps, &mut new).unwrap();
        assert_eq!(new, [true, true, false, true, false, true]);
        set.insert_batch(&fps[..2], &mut new).unwrap();
        assert_eq!(new, [false, false]);
    }
}

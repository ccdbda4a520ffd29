//! The bits of a blocked Bloom filter: 512-bit blocks (one cache line each), the block picked
//! by the fingerprint's high 64 bits, `k` positions by 9-bit slices of the low 64 bits.
//! [`BloomBits`] is one filter, [`StagedBits`] two of them staged for an unknown number of keys;
//! [`BloomSet`](crate::BloomSet)(crate::BloomSet) adds the error accounting on top.

use crate::Fingerprint;

/// Bits per block: one 64-byte cache line.
pub(crate) const BLOCK_BITS: usize = 512;
pub(crate) const WORDS: usize = BLOCK_BITS / 64;
/// Bit positions taken from one 64-bit word of hash (9 bits each).
pub(crate) const POS_PER_WORD: u32 = 7;
/// Largest number of bits set per key.
pub(crate) const MAX_K: u32 = 16;

/// The bits of a blocked Bloom filter, without the error accounting of [`BloomSet`](crate::BloomSet): for
/// callers that only need "certainly new" or "maybe seen" (the pipeline's per-rung duplicate
/// split). The same layout as [`BloomSet`](crate::BloomSet): 512-bit blocks (one cache line each), the block
/// picked by the fingerprint's high 64 bits, `k` positions by 9-bit slices of the low 64 bits.
///
/// ```
/// use linksieve_dedup::{BloomBits, Fingerprint};
/// let mut bits = BloomBits::with_blocks(1024, 7);
/// assert!(bits.insert(Fingerprint::of(b"http://a/")));
/// assert!(!bits.insert(Fingerprint::of(b"http://a/")));
/// assert!(bits.contains(Fingerprint::of(b"http://a/")));
/// ```
#[derive(Clone, Debug)]
pub struct BloomBits {
    pub(crate) blocks: Vec<[u64; WORDS]>,
    pub(crate) k: u32,
}

impl BloomBits {
    /// A filter of exactly `blocks` 512-bit blocks and `k` bits per key (`k` clamped to
    /// 1..=16, `blocks` to at least 1), all clear.
    ///
    /// ```
    /// let bits = linksieve_dedup::BloomBits::with_blocks(100, 8);
    /// assert_eq!(bits.bits(), 51_200);
    /// ```
    pub fn with_blocks(blocks: usize, k: u32) -> BloomBits {
        BloomBits {
            blocks: vec![[0; WORDS]; blocks.max(1)],
            k: k.clamp(1, MAX_K),
        }
    }

    /// [`with_blocks`](BloomBits::with_blocks) that returns an error, instead of aborting the
    /// process, when the memory cannot be had ([`DedupError::OutOfMemory`](crate::DedupError::OutOfMemory)). The blocks are
    /// written (zeroed) here, so the filter is resident from the start.
    ///
    /// ```
    /// use linksieve_dedup::{BloomBits, DedupError};
    /// assert_eq!(BloomBits::try_with_blocks(100, 8).unwrap().bits(), 51_200);
    /// let huge = BloomBits::try_with_blocks(usize::MAX / 64, 8);
    /// assert!(matches!(huge, Err(DedupError::OutOfMemory { .. })));
    /// ```
    pub fn try_with_blocks(blocks: usize, k: u32) -> crate::Result<BloomBits> {
        let n = blocks.max(1);
        let mut v: Vec<[u64; WORDS]> = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| crate::DedupError::OutOfMemory {
                bytes: (n as u64).saturating_mul(BLOCK_BITS as u64 / 8),
            })?;
        v.resize(n, [0; WORDS]);
        Ok(BloomBits {
            blocks: v,
            k: k.clamp(1, MAX_K),
        })
    }

    #[inline]
    fn locate(&self, fp: Fingerprint) -> (usize, u64) {
        self.locate_in(fp, 0, 0, self.blocks.len())
    }

    /// The block of `fp` among the `n` blocks from `lo` (whatever its tag).
    #[inline]
    fn block_in(fp: Fingerprint, lo: usize, n: usize) -> usize {
        let hi = (fp.0 >> 64) as u64;
        lo + ((hi as u128 * n as u128) >> 64) as usize
    }

    /// The block (among the `n` blocks from `lo`) and position bits of `fp` under `tag`.
    #[inline]
    fn locate_in(&self, fp: Fingerprint, tag: u8, lo: usize, n: usize) -> (usize, u64) {
        let b = Self::block_in(fp, lo, n);
        let h = fp.0 as u64;
        if tag == 0 {
            (b, h)
        } else {
            (
                b,
                mix(h ^ u64::from(tag).wrapping_mul(0xA076_1D64_78BD_642F)),
            )
        }
    }

    /// Sets the bits of `fp` (untagged); returns its block and how many of its bits were clear.
    #[inline]
    pub(crate) fn set(&mut self, fp: Fingerprint) -> (usize, usize) {
        let (b, h) = self.locate(fp);
        self.set_at(b, h)
    }

    /// Sets the `k` bits that position bits `h` (the low 64 bits, or a tagged mix of them) pick
    /// in block `b`; returns `b` and how many of them were clear.
    #[inline]
    fn set_at(&mut self, b: usize, mut h: u64) -> (usize, usize) {
        let k = self.k;
        let block = &mut self.blocks[b];
        let mut newly = 0usize;
        for i in 0..k {
            let slot = i % POS_PER_WORD;
            if i > 0 && slot == 0 {
                h = mix(h);
            }
            let pos = (h >> (slot * 9)) as usize & (BLOCK_BITS - 1);
            let mask = 1u64 << (pos & 63);
            let w = &mut block[pos >> 6];
            newly += usize::from(*w & mask == 0);
            *w |= mask;
        }
        (b, newly)
    }

    /// Inserts a fingerprint; true when the filter did not hold it (certainly new), false when
    /// it did (seen, or a false positive).
    ///
    /// ```
    /// use linksieve_dedup::{BloomBits, Fingerprint};
    /// let mut bits = BloomBits::with_blocks(8, 7);
    /// assert!(bits.insert(Fingerprint(1 << 100 | 5)));
    /// assert!(!bits.insert(Fingerprint(1 << 100 | 5)));
    /// ```
    #[inline]
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        self.set(fp).1 > 0
    }

    /// True when the filter holds the fingerprint (or a false positive says so).
    ///
    /// ```
    /// use linksieve_dedup::{BloomBits, Fingerprint};
    /// let bits = BloomBits::with_blocks(8, 7);
    /// assert!(!bits.contains(Fingerprint(42)));
    /// ```
    #[inline]
    pub fn contains(&self, fp: Fingerprint) -> bool {
        let (b, h) = self.locate(fp);
        self.contains_at(b, h)
    }

    #[inline]
    fn contains_at(&self, b: usize, mut h: u64) -> bool {
        let block = &self.blocks[b];
        for i in 0..self.k {
            let slot = i % POS_PER_WORD;
            if i > 0 && slot == 0 {
                h = mix(h);
            }
            let pos = (h >> (slot * 9)) as usize & (BLOCK_BITS - 1);
            if block[pos >> 6] & (1u64 << (pos & 63)) == 0 {
                return false;
            }
        }
        true
    }

    /// [`insert`](BloomBits::insert) into one of several sets kept in the same filter: `fp`
    /// under `tag`. Every tag of one fingerprint lands in the same block (one cache line), at
    /// positions of its own; tag 0 is [`insert`](BloomBits::insert). One filter with room for
    /// all the tags' keys then answers for each tag as a filter of its own would, and a key
    /// inserted under several tags costs one cache miss, not one per tag.
    ///
    /// ```
    /// use linksieve_dedup::{BloomBits, Fingerprint};
    /// let mut bits = BloomBits::with_blocks(1024, 7);
    /// let fp = Fingerprint::of(b"http://a/");
    /// assert!(bits.insert_tagged(fp, 1));
    /// assert!(bits.insert_tagged(fp, 2));
    /// assert!(!bits.insert_tagged(fp, 1));
    /// ```
    #[inline]
    pub fn insert_tagged(&mut self, fp: Fingerprint, tag: u8) -> bool {
        let (b, h) = self.locate_in(fp, tag, 0, self.blocks.len());
        self.set_at(b, h).1 > 0
    }

    /// Bits in the filter.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomBits::with_blocks(2, 3).bits(), 1024);
    /// ```
    pub fn bits(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_BITS as u64
    }

    /// Bytes of the filter's blocks.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomBits::with_blocks(2, 3).memory_bytes(), 128);
    /// ```
    pub fn memory_bytes(&self) -> usize {
        self.blocks.capacity() * BLOCK_BITS / 8
    }
}

/// Tagged Bloom bits for an unknown number of keys: a small filter (sized to stay in a core's
/// cache) takes the first `small_keys` new keys; only then is the large one used, which takes
/// every later new key. A key is seen when either filter holds it, so a run with few
/// distinct keys never touches (or zeroes) the large filter. After the change the large filter
/// is asked first: a key it holds costs one probe; one it does not hold is looked up in the
/// small filter too and, when the small one holds it, counts as seen (and is now in both).
/// Errors add: at most the small filter's rate at capacity plus the large one's.
///
/// ```
/// use linksieve_dedup::{Fingerprint, StagedBits};
/// let mut bits = StagedBits::new(2, 1000, 10, 7);
/// for i in 0..10u64 {
///     assert!(bits.insert_tagged(Fingerprint::of(&i.to_le_bytes()), 0));
/// }
/// assert!(!bits.insert_tagged(Fingerprint::of(&0u64.to_le_bytes()), 0)); // in the small one
/// assert!(!bits.insert_tagged(Fingerprint::of(&9u64.to_le_bytes()), 0)); // in the large one
/// assert!(bits.memory_bytes() > 1000);
/// ```
#[derive(Clone, Debug)]
pub struct StagedBits {
    /// Both stages in one allocation (zeroed pages from the system, which cost nothing until
    /// touched): blocks `..small` are the small filter, the rest the large one.
    bits: BloomBits,
    small: usize,
    /// New keys the small filter still takes before the large one is used.
    room: usize,
}

impl StagedBits {
    /// Filters for `small_keys` and then `large_keys` keys (all tags together) at
    /// `bits_per_key` bits each and `k` bits set per key.
    ///
    /// ```
    /// let bits = linksieve_dedup::StagedBits::new(1 << 16, 1 << 22, 10, 7);
    /// assert_eq!(bits.memory_bytes(), (1 << 16) * 10 / 8);
    /// ```
    pub fn new(small_keys: usize, large_keys: usize, bits_per_key: usize, k: u32) -> StagedBits {
        let blocks = |keys: usize| (keys.saturating_mul(bits_per_key) / BLOCK_BITS).max(1);
        let small = blocks(small_keys);
        StagedBits {
            bits: BloomBits::with_blocks(small + blocks(large_keys), k),
            small,
            room: small_keys,
        }
    }

    /// [`BloomBits::insert_tagged`] across both stages: true when neither filter held `fp`
    /// under `tag` (certainly new).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, StagedBits};
    /// let mut bits = StagedBits::new(64, 1024, 10, 7);
    /// let fp = Fingerprint::of(b"http://a/");
    /// assert!(bits.insert_tagged(fp, 1));
    /// assert!(!bits.insert_tagged(fp, 1));
    /// assert!(bits.insert_tagged(fp, 2));
    /// ```
    #[inline]
    pub fn insert_tagged(&mut self, fp: Fingerprint, tag: u8) -> bool {
        let (small, total) = (self.small, self.bits.blocks.len());
        if self.room == 0 {
            // the large filter first: a key it holds (every repeat after its first since the
            // stage change) costs one probe; a key held by the small one only is copied over
            let (b, h) = self.bits.locate_in(fp, tag, small, total - small);
            if self.bits.set_at(b, h).1 == 0 {
                return false;
            }
            let (b, h) = self.bits.locate_in(fp, tag, 0, small);
            return !self.bits.contains_at(b, h);
        }
        let (b, h) = self.bits.locate_in(fp, tag, 0, small);
        let new = self.bits.set_at(b, h).1 > 0;
        self.room -= usize::from(new);
        new
    }

    /// Reads the block that [`StagedBits::insert_tagged`] reads first for `fp` (under any tag)
    /// and returns one of its words. Called for several keys in a row before they are
    /// inserted, it has their blocks fetched from memory together, one wait for all instead of
    /// one cache miss after another (safe Rust has no prefetch instruction).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, StagedBits};
    /// let mut bits = StagedBits::new(64, 1024, 10, 7);
    /// // 200 keys: the small stage, then the large one
    /// let fps: Vec<Fingerprint> = (0..200u64).map(|i| Fingerprint::of(&i.to_le_bytes())).collect();
    /// for batch in fps.chunks(8) {
    ///     std::hint::black_box(batch.iter().fold(0, |a, &fp| a ^ bits.touch(fp)));
    ///     for &fp in batch {
    ///         bits.insert_tagged(fp, 1);
    ///     }
    /// }
    /// // a touch changes no answer: every key inserted is seen
    /// assert!(fps.iter().all(|&fp| !bits.insert_tagged(fp, 1)));
    /// ```
    #[inline]
    pub fn touch(&self, fp: Fingerprint) -> u64 {
        let (small, total) = (self.small, self.bits.blocks.len());
        let b = if self.room == 0 {
            BloomBits::block_in(fp, small, total - small)
        } else {
            BloomBits::block_in(fp, 0, small)
        };
        self.bits.blocks[b][0]
    }

    /// Bytes of the filters in use: the small one, and the large one once the small one is
    /// full (before that the large one is allocated but untouched).
    ///
    /// ```
    /// let bits = linksieve_dedup::StagedBits::new(512, 1 << 20, 8, 7);
    /// assert_eq!(bits.memory_bytes(), 512);
    /// ```
    pub fn memory_bytes(&self) -> usize {
        if self.room == 0 {
            self.bits.memory_bytes()
        } else {
            self.small * BLOCK_BITS / 8
        }
    }
}

/// The SplitMix64 finalizer: fresh positions when a key needs more than 7.
#[inline]
pub(crate) fn mix(h: u64) -> u64 {
    let mut z = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

//! The approximate seen-set: a blocked Bloom filter that knows its own current error rate.

use crate::bits::{BLOCK_BITS, BloomBits, MAX_K};
#[cfg(test)]
use crate::bits::{StagedBits, mix};
use crate::{DedupError, DistinctCount, Fingerprint, Result, SeenSet};

/// Keys the first stage of a growing [`BloomSet`] is sized for at least (an `--expected` of 0
/// or 1 would otherwise start a chain of tiny stages).
///
/// ```
/// use linksieve_dedup::{BloomSet, MIN_STAGE_KEYS};
/// assert_eq!(BloomSet::new(0, 0.01).unwrap().capacity(), MIN_STAGE_KEYS);
/// ```
pub const MIN_STAGE_KEYS: u64 = 1024;
/// Each new stage of a [`BloomSet`] is sized for this many times the keys of the one before.
const GROWTH: u64 = 4;

/// An approximate seen-set (opt-in): a scalable blocked Bloom filter that never lets its
/// false-positive rate pass the one it was asked for. It never calls a seen key new; it may call
/// a new key seen (the key is wrongly dropped), and it keeps a running estimate of how many
/// times that happened, [`expected_false_positives`](BloomSet::expected_false_positives), for
/// the run's summary.
///
/// Growth (a scalable Bloom filter, Almeida et al. 2007): the filter is a chain of stages.
/// Stage `i` is sized for `expected · 4^i` keys (at least [`MIN_STAGE_KEYS`] for the first) at
/// rate `fp_rate / 2^(i+1)`, so the rates of all stages together stay below `fp_rate` however
/// many keys come. New keys go into the last stage; a key is seen when any stage holds it; when
/// the last stage holds the keys it was sized for, a new one is added, unless that would pass
/// the memory limit ([`with_max_bytes`](BloomSet::with_max_bytes)): then the last stage takes
/// every further key, its rate rises past the asked one and [`overfilled`](BloomSet::overfilled)
/// says so. Halving the first stage's rate costs about 1.4 bits per key more than a filter
/// sized for exactly `expected` keys at `fp_rate`.
///
/// Layout of a stage: blocks of 512 bits (one cache line); a key picks its block with the
/// fingerprint's high 64 bits and `k` bit positions inside it with 9-bit slices of the low 64
/// bits (mixed again every 7 positions). `k` and the number of blocks are chosen per stage as
/// the smallest filter whose modelled error rate at its count is at most its rate (model: keys
/// per block are Poisson, a block with `j` keys has each bit set with probability
/// `1 - (1 - 1/512)^(j k)`).
///
/// Error estimate, from the actual fill: each stage keeps, per block, its number of set bits
/// `x_b` (read with popcount), and the sum `S = Σ_b (x_b / 512)^k`. The probability that a key
/// never inserted is reported seen by that stage is then exactly `p_s = S / blocks`, and by the
/// filter `p = 1 - Π_s (1 - p_s)`. The estimate adds `p / (1 - p)` for every insert reported
/// *new*, with `p` taken just before that insert. This is unbiased for the number of new keys
/// wrongly reported seen: a new key is reported new with probability `1 - p` and then adds
/// `p / (1 - p)`, so it contributes `p` on average, which is its chance of being a false
/// positive; a seen key is never reported new and adds nothing. (Summing `p` over all inserts
/// instead would count every duplicate.) Its error against the real number of drops has
/// variance `Σ p / (1 - p)` over the new keys, estimated the same way (each insert reported new
/// adds `p / (1 - p)^2`): about the estimate itself while `p` is small. The estimate is only as good as `p` is small: an
/// overfilled filter whose `p` nears 1 reports almost nothing new, each such report weighs
/// `p / (1 - p)`, and the sum is dominated by rare events, mostly too low (on 10^6 distinct keys
/// in a filter limited to 64 KiB it said 330,020 of 906,940 drops).
///
/// A second witness covers that case: a [`DistinctCount`] (HyperLogLog, 16 KiB) sees every key
/// offered, so `distinct - reported new` estimates the drops within 0.81% of the distinct count
/// (one standard error), however full the filter. [`expected_false_positives`](BloomSet::expected_false_positives)
/// takes the fill-based estimate while `p` is at most 1/2 and its standard error is the smaller,
/// else the distinct-count one; [`false_positive_error`](BloomSet::false_positive_error) gives
/// the standard error of the one taken.
///
/// ```
/// use linksieve_dedup::{BloomSet, Fingerprint};
/// let mut set = BloomSet::new(1000, 0.01).unwrap();
/// assert!(set.insert(Fingerprint::of(b"http://a/")));
/// assert!(!set.insert(Fingerprint::of(b"http://a/")));
/// assert!(set.expected_false_positives() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct BloomSet {
    /// The last stage takes new keys; the others are full.
    stages: Vec<Stage>,
    /// `Π (1 - p_s)` over the full stages.
    older_miss: f64,
    /// The asked rate (0 for a filter of fixed size, which never grows).
    fp_rate: f64,
    /// Keys the first stage is sized for.
    first_keys: u64,
    max_bytes: Option<usize>,
    len: u64,
    expected_fp: f64,
    /// The estimated variance of `expected_fp` minus the real number of drops.
    var_fp: f64,
    /// Every fingerprint offered, new or not.
    distinct: DistinctCount,
}

/// One stage of a [`BloomSet`]: a blocked Bloom filter with its fill accounting.
#[derive(Clone, Debug)]
struct Stage {
    bits: BloomBits,
    /// `(x / 512)^k` for x in 0..=512.
    pow: Vec<f64>,
    /// `Σ_b (x_b / 512)^k`.
    fill_sum: f64,
    /// Keys it was sized for (`u64::MAX`: a fixed filter, never full).
    capacity: u64,
    len: u64,
}

impl Stage {
    /// A stage of `blocks` blocks, allocated fallibly ([`DedupError::OutOfMemory`]).
    fn new(blocks: usize, k: u32, capacity: u64) -> Result<Stage> {
        Ok(Stage::of(BloomBits::try_with_blocks(blocks, k)?, capacity))
    }

    fn of(bits: BloomBits, capacity: u64) -> Stage {
        let k = bits.k;
        Stage {
            bits,
            pow: (0..=BLOCK_BITS)
                .map(|x| (x as f64 / BLOCK_BITS as f64).powi(k as i32))
                .collect(),
            fill_sum: 0.0,
            capacity,
            len: 0,
        }
    }

    /// `(blocks, k)` of the smallest stage for `n` keys at `rate`.
    fn size(n: u64, rate: f64) -> Result<(usize, u32)> {
        let n = n.max(1) as f64;
        let mut best: Option<(u64, u32)> = None;
        for k in 1..=MAX_K {
            if let Some(blocks) = min_blocks(n, k, rate)
                && best.is_none_or(|(b, _)| blocks < b)
            {
                best = Some((blocks, k));
            }
        }
        let Some((blocks, k)) = best else {
            return Err(DedupError::InvalidConfig(format!(
                "no Bloom filter of at most 16 hashes reaches rate {rate}"
            )));
        };
        let blocks = usize::try_from(blocks).map_err(|_| {
            DedupError::InvalidConfig(format!("a Bloom filter of {blocks} blocks is too large"))
        })?;
        Ok((blocks, k))
    }

    /// `(blocks, k, keys)` of a stage for `n` keys at `rate` within `max_bytes`: the smallest
    /// for `n` keys where it fits, else the most blocks that fit, for the most keys they hold
    /// at `rate` (at least 1).
    fn size_within(n: u64, rate: f64, max_bytes: Option<usize>) -> Result<(usize, u32, u64)> {
        let (blocks, k) = Stage::size(n, rate)?;
        let cap = max_bytes.map_or(usize::MAX, |m| (m / (BLOCK_BITS / 8)).max(1));
        if blocks <= cap {
            return Ok((blocks, k, n));
        }
        let best = |keys: u64| {
            (1..=MAX_K)
                .map(|k| (model_rate(keys as f64 / cap as f64, k), k))
                .fold((f64::INFINITY, 1), |m, x| if x.0 < m.0 { x } else { m })
        };
        // `n` keys do not fit in `cap` blocks: the most that do, by bisection
        let (mut lo, mut hi) = (1u64, n.max(2));
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if best(mid).0 <= rate {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok((cap, best(lo).1, lo))
    }

    fn rate(&self) -> f64 {
        (self.fill_sum / self.bits.blocks.len() as f64).clamp(0.0, 1.0)
    }
}

/// The most keys a [`BloomSet`] is sized for at its start: 10^10 (about 20 GB at rate 0.001).
/// More expected is a configuration error, not an allocation that aborts the process.
///
/// ```
/// assert!(linksieve_dedup::BloomSet::new(linksieve_dedup::MAX_EXPECTED_ITEMS + 1, 0.01).is_err());
/// ```
pub const MAX_EXPECTED_ITEMS: u64 = 10_000_000_000;

impl BloomSet {
    /// A growing filter for about `expected_items` keys at first, whose false-positive rate
    /// stays at most `fp_rate` for any number of keys (see the type's documentation), with no
    /// memory limit. `fp_rate` must be in `[1e-12, 0.5]`.
    ///
    /// ```
    /// use linksieve_dedup::BloomSet;
    /// let set = BloomSet::new(1_000_000, 0.001).unwrap();
    /// assert!(set.bits() / 1_000_000 < 20);
    /// assert!(BloomSet::new(10, 0.0).is_err());
    /// ```
    pub fn new(expected_items: u64, fp_rate: f64) -> Result<BloomSet> {
        BloomSet::bounded(expected_items, fp_rate, None)
    }

    /// [`new`](BloomSet::new) held to `max_bytes` of filter bits, all stages included (no
    /// limit when `None`): a first stage sized for `expected_items` that would pass it is cut
    /// to the blocks that fit, sized for the keys they hold at the asked rate, and no stage is
    /// added that would pass it. Past the keys it has room for, the filter is
    /// [`overfilled`](BloomSet::overfilled): it goes on at a higher false-positive rate, and
    /// [`expected_false_positives`](BloomSet::expected_false_positives) estimates the drops.
    /// Memory that cannot be had is [`DedupError::OutOfMemory`], not an abort.
    ///
    /// ```
    /// use linksieve_dedup::BloomSet;
    /// let set = BloomSet::bounded(10_000_000, 0.001, Some(1 << 20)).unwrap();
    /// assert!(set.bits() / 8 <= 1 << 20);
    /// assert!(set.capacity() < 10_000_000);
    /// ```
    pub fn bounded(
        expected_items: u64,
        fp_rate: f64,
        max_bytes: Option<usize>,
    ) -> Result<BloomSet> {
        let first_keys = Self::check(expected_items, fp_rate)?;
        let (blocks, k, keys) = Stage::size_within(first_keys, fp_rate / 2.0, max_bytes)?;
        Ok(BloomSet {
            stages: vec![Stage::new(blocks, k, keys)?],
            older_miss: 1.0,
            fp_rate,
            first_keys,
            max_bytes,
            len: 0,
            expected_fp: 0.0,
            var_fp: 0.0,
            distinct: DistinctCount::new(),
        })
    }

    /// The bytes of the first stage that [`new`](BloomSet::new) would allocate for these
    /// options (without a memory limit), computed without allocating it.
    ///
    /// ```
    /// use linksieve_dedup::BloomSet;
    /// let bytes = BloomSet::first_stage_bytes(1_000_000_000, 1e-12).unwrap();
    /// assert!(bytes > 20_000_000_000);
    /// assert_eq!(BloomSet::first_stage_bytes(10, 0.01).unwrap(), BloomSet::new(10, 0.01).unwrap().bits() / 8);
    /// ```
    pub fn first_stage_bytes(expected_items: u64, fp_rate: f64) -> Result<u64> {
        let first_keys = Self::check(expected_items, fp_rate)?;
        let (blocks, _) = Stage::size(first_keys, fp_rate / 2.0)?;
        Ok((blocks as u64).saturating_mul(BLOCK_BITS as u64 / 8))
    }

    /// Checks the options; returns the keys the first stage is sized for.
    fn check(expected_items: u64, fp_rate: f64) -> Result<u64> {
        // NaN fails the range check too.
        if !(1e-12..=0.5).contains(&fp_rate) {
            return Err(DedupError::InvalidConfig(format!(
                "Bloom false-positive rate {fp_rate} is outside [1e-12, 0.5]"
            )));
        }
        if expected_items > MAX_EXPECTED_ITEMS {
            return Err(DedupError::InvalidConfig(format!(
                "{expected_items} expected keys is more than {MAX_EXPECTED_ITEMS}, the most a \
                 filter is sized for (it grows past what it was sized for)"
            )));
        }
        Ok(expected_items.max(MIN_STAGE_KEYS))
    }

    /// Limits the bytes of all stages together: no stage is added that would pass `max_bytes`,
    /// and a first stage that passes it is cut to fit while the filter is still empty (as
    /// [`bounded`](BloomSet::bounded) does, which never allocates the larger one). Past that
    /// the filter is [`overfilled`](BloomSet::overfilled).
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(0, 0.01).unwrap().with_max_bytes(1);
    /// for i in 0..5000u64 { set.insert(Fingerprint::of(&i.to_le_bytes())); }
    /// assert!(set.overfilled());
    /// ```
    pub fn with_max_bytes(mut self, max_bytes: usize) -> BloomSet {
        if self.len == 0
            && self.fp_rate > 0.0
            && self.filter_bytes() > max_bytes
            && let Ok(cut) = BloomSet::bounded(self.first_keys, self.fp_rate, Some(max_bytes))
        {
            return cut;
        }
        self.max_bytes = Some(max_bytes);
        self
    }

    /// A filter of exactly `blocks` 512-bit blocks and `k` bits per key (`k` clamped to
    /// 1..=16, `blocks` to at least 1); it never grows and is never called overfilled.
    ///
    /// ```
    /// use linksieve_dedup::BloomSet;
    /// let set = BloomSet::with_blocks(100, 8);
    /// assert_eq!(set.bits(), 51_200);
    /// assert_eq!(set.hashes(), 8);
    /// ```
    pub fn with_blocks(blocks: usize, k: u32) -> BloomSet {
        BloomSet {
            stages: vec![Stage::of(BloomBits::with_blocks(blocks, k), u64::MAX)],
            older_miss: 1.0,
            fp_rate: 0.0,
            first_keys: u64::MAX,
            max_bytes: None,
            len: 0,
            expected_fp: 0.0,
            var_fp: 0.0,
            distinct: DistinctCount::new(),
        }
    }

    /// Inserts a fingerprint; true when the filter did not hold it (certainly new), false when
    /// it did (seen, or a false positive).
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(100, 0.01).unwrap();
    /// assert!(set.insert(Fingerprint(12345)));
    /// assert!(!set.insert(Fingerprint(12345)));
    /// ```
    #[inline]
    pub fn insert(&mut self, fp: Fingerprint) -> bool {
        self.distinct.add(fp);
        let (last, older) = self.stages.split_last_mut().expect("a stage");
        if older.iter().any(|s| s.bits.contains(fp)) {
            return false;
        }
        let p_last = last.rate();
        let (b, newly) = last.bits.set(fp);
        if newly == 0 {
            return false;
        }
        let after = last.bits.blocks[b]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>();
        let p = (1.0 - self.older_miss * (1.0 - p_last)).min(1.0 - 1e-12);
        self.expected_fp += p / (1.0 - p);
        self.var_fp += p / ((1.0 - p) * (1.0 - p));
        last.fill_sum += last.pow[after] - last.pow[after - newly];
        last.len += 1;
        self.len += 1;
        if last.len == last.capacity {
            self.grow();
        }
        true
    }

    /// Adds a stage when the asked rate and the memory limit allow (see the type's
    /// documentation); otherwise the last stage goes on taking keys.
    #[cold]
    fn grow(&mut self) {
        if self.fp_rate == 0.0 {
            return;
        }
        let i = self.stages.len() as i32;
        let keys = self
            .first_keys
            .saturating_mul(GROWTH.saturating_pow(i as u32));
        let rate = self.fp_rate / 2f64.powi(i + 1);
        let Ok((blocks, k)) = Stage::size(keys, rate) else {
            return;
        };
        if let Some(max) = self.max_bytes {
            let stage_bytes = blocks.saturating_mul(BLOCK_BITS / 8);
            if self.filter_bytes().saturating_add(stage_bytes) > max {
                return;
            }
        }
        // memory the system refuses stops growth as the limit does
        let Ok(stage) = Stage::new(blocks, k, keys) else {
            return;
        };
        let last = self.stages.last().expect("a stage");
        self.older_miss *= 1.0 - last.rate();
        self.stages.push(stage);
    }

    fn filter_bytes(&self) -> usize {
        self.stages.iter().map(|s| s.bits.memory_bytes()).sum()
    }

    /// True when the filter holds the fingerprint (or a false positive says so).
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(100, 0.01).unwrap();
    /// set.insert(Fingerprint(7));
    /// assert!(set.contains(Fingerprint(7)));
    /// ```
    #[inline]
    pub fn contains(&self, fp: Fingerprint) -> bool {
        self.stages.iter().any(|s| s.bits.contains(fp))
    }

    /// The probability, now, that a key never inserted is reported seen:
    /// `1 - Π_s (1 - p_s)` with `p_s = Σ_b (x_b / 512)^k / blocks` for each stage `s`, `x_b`
    /// the set bits of its block `b`.
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(1000, 0.01).unwrap();
    /// assert_eq!(set.current_false_positive_rate(), 0.0);
    /// for i in 0..1000u128 { set.insert(Fingerprint(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))); }
    /// assert!(set.current_false_positive_rate() <= 0.011);
    /// ```
    pub fn current_false_positive_rate(&self) -> f64 {
        let last = self.stages.last().expect("a stage");
        (1.0 - self.older_miss * (1.0 - last.rate())).clamp(0.0, 1.0)
    }

    /// The expected number of new keys wrongly reported seen so far: from the filter's fill
    /// (`Σ p / (1 - p)` over the inserts reported new, `p` being
    /// [`current_false_positive_rate`](BloomSet::current_false_positive_rate) just before each)
    /// while that is trustworthy, else from the distinct count (the distinct keys offered minus
    /// those reported new); see the type's documentation.
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(10_000, 0.01).unwrap();
    /// for i in 0..10_000u128 { set.insert(Fingerprint(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))); }
    /// let e = set.expected_false_positives();
    /// assert!(e > 2.0 && e < 50.0, "{e}");
    /// ```
    pub fn expected_false_positives(&self) -> f64 {
        self.estimate().0
    }

    /// One standard error of [`expected_false_positives`](BloomSet::expected_false_positives).
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// // 100,000 distinct keys into a filter held to 16 KiB: most are dropped
    /// let mut set = BloomSet::new(1000, 0.01).unwrap().with_max_bytes(16 << 10);
    /// let mut kept = 0u64;
    /// for i in 0..100_000u64 { kept += set.insert(Fingerprint::of(&i.to_le_bytes())) as u64; }
    /// let dropped = (100_000 - kept) as f64;
    /// let (e, err) = (set.expected_false_positives(), set.false_positive_error());
    /// assert!((e - dropped).abs() <= 4.0 * err, "{e} ± {err}, {dropped} dropped");
    /// ```
    pub fn false_positive_error(&self) -> f64 {
        self.estimate().1
    }

    /// The estimated number of distinct keys offered to the filter (new or not).
    ///
    /// ```
    /// use linksieve_dedup::{BloomSet, Fingerprint};
    /// let mut set = BloomSet::new(100, 0.01).unwrap();
    /// for i in 0..300u64 { set.insert(Fingerprint::of(&(i % 100).to_le_bytes())); }
    /// assert!((set.distinct_estimate() - 100.0).abs() < 5.0);
    /// ```
    pub fn distinct_estimate(&self) -> f64 {
        self.distinct.estimate()
    }

    /// `(estimate, standard error)` of the new keys wrongly reported seen.
    fn estimate(&self) -> (f64, f64) {
        let fill = (self.expected_fp, self.var_fp.sqrt());
        let distinct = self.distinct.estimate();
        let counted = (
            (distinct - self.len as f64).max(0.0),
            distinct * DistinctCount::RELATIVE_ERROR,
        );
        if self.current_false_positive_rate() <= 0.5 && fill.1 <= counted.1 {
            fill
        } else {
            counted
        }
    }

    /// True when the filter holds more keys than it was sized for and could not grow (the
    /// memory limit): its false-positive rate is then above the asked one, and
    /// [`expected_false_positives`](BloomSet::expected_false_positives) comes from the distinct
    /// count once the fill-based one is no longer trustworthy.
    ///
    /// ```
    /// let set = linksieve_dedup::BloomSet::new(0, 0.01).unwrap();
    /// assert!(!set.overfilled());
    /// ```
    pub fn overfilled(&self) -> bool {
        let last = self.stages.last().expect("a stage");
        last.len > last.capacity
    }

    /// Stages in the filter (1 until the keys pass the expected count).
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomSet::new(10, 0.01).unwrap().stages(), 1);
    /// ```
    pub fn stages(&self) -> usize {
        self.stages.len()
    }

    /// Keys the filter's stages are sized for, together.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomSet::new(10, 0.01).unwrap().capacity(), 1024);
    /// ```
    pub fn capacity(&self) -> u64 {
        self.stages
            .iter()
            .fold(0u64, |a, s| a.saturating_add(s.capacity))
    }

    /// Bits in the filter (all stages).
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomSet::with_blocks(2, 3).bits(), 1024);
    /// ```
    pub fn bits(&self) -> u64 {
        self.stages.iter().map(|s| s.bits.bits()).sum()
    }

    /// Bits set per key (`k`) in the first stage.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::BloomSet::with_blocks(2, 3).hashes(), 3);
    /// ```
    pub fn hashes(&self) -> u32 {
        self.stages[0].bits.k
    }
}

/// Modelled false-positive rate of a blocked filter with `lambda` keys per block on average
/// and `k` bits per key (see [`BloomSet`]). The Poisson weights are computed from the mode
/// outwards in log space, so large `lambda` does not underflow.
fn model_rate(lambda: f64, k: u32) -> f64 {
    let q = 1.0 - 1.0 / BLOCK_BITS as f64;
    let term = |j: f64| {
        let bit = 1.0 - q.powf(j * k as f64);
        bit.powi(k as i32)
    };
    let mode = lambda.floor();
    let width = 12.0 * lambda.sqrt() + 30.0;
    // ln P(mode) = -lambda + mode ln(lambda) - ln(mode!)
    let ln_p_mode = if mode == 0.0 {
        -lambda
    } else {
        -lambda + mode * lambda.ln() - ln_factorial(mode)
    };
    let p_mode = ln_p_mode.exp();
    let mut sum = p_mode * term(mode);
    // Upwards: P(j) = P(j - 1) lambda / j.
    let (mut j, mut p) = (mode, p_mode);
    while j < mode + width {
        j += 1.0;
        p *= lambda / j;
        sum += p * term(j);
    }
    // Downwards: P(j - 1) = P(j) j / lambda.
    let (mut j, mut p) = (mode, p_mode);
    while j > 0.0 && j > mode - width {
        p *= j / lambda;
        j -= 1.0;
        sum += p * term(j);
    }
    sum
}

/// `ln(n!)` by Stirling's series (exact to ~1e-10 for n >= 1; summed directly below 20).
fn ln_factorial(n: f64) -> f64 {
    if n < 20.0 {
        return (2..=n as u32).map(|i| (i as f64).ln()).sum();
    }
    n * n.ln() - n + 0.5 * (2.0 * std::f64::consts::PI * n).ln() + 1.0 / (12.0 * n)
        - 1.0 / (360.0 * n * n * n)
}

/// The fewest blocks for which `n` keys with `k` bits each stay at or below `rate`.
fn min_blocks(n: f64, k: u32, rate: f64) -> Option<u64> {
    // At one key per 4 blocks the rate is about (k/512)^k / 4; beyond that, give up.
    let mut hi = (n * 4.0).ceil().max(1.0) as u64;
    if model_rate(n / hi as f64, k) > rate {
        return None;
    }
    let mut lo = 1u64;
    if model_rate(n / lo as f64, k) <= rate {
        return Some(lo);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if model_rate(n / mid as f64, k) <= rate {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

impl BloomSet {
    /// The summary line of a filter that went past the count it was first sized for: grown
    /// (the rate kept within the asked one), or overfilled (the memory limit stopped growth).
    fn warning(&self) -> Option<String> {
        let rate = self.current_false_positive_rate();
        if self.overfilled() {
            Some(format!(
                "approx filter overfilled: {} keys in room for {} (memory limit reached); its false-positive rate is now {rate:.4}, above the asked one (the expected drops are estimated from a distinct count of the keys offered)",
                self.len,
                self.capacity()
            ))
        } else if self.stages() > 1 {
            Some(format!(
                "approx filter grew past its expected count: {} stages for {} keys, false-positive rate now {rate:.2e} (within the asked one)",
                self.stages(),
                self.len
            ))
        } else {
            None
        }
    }
}

impl SeenSet for BloomSet {
    fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
        Ok(self.contains(fp))
    }

    /// Never fails.
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        new.clear();
        new.extend(fps.iter().map(|&fp| self.insert(fp)));
        Ok(())
    }

    /// Inserts reported new.
    fn len(&self) -> u64 {
        self.len
    }

    fn report(&self) -> crate::SetReport {
        crate::SetReport {
            expected_false_drops: Some(self.expected_false_positives()),
            false_drops_error: Some(self.false_positive_error()),
            warning: self.warning(),
            keys_at_open: None,
        }
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self
                .stages
                .iter()
                .map(|s| {
                    std::mem::size_of::<Stage>()
                        + s.bits.memory_bytes()
                        + s.pow.capacity() * std::mem::size_of::<f64>()
                })
                .sum::<usize>()
            + self.distinct.memory_bytes()
    }
}

#[cfg(test)]
mod tests;

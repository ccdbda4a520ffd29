//! 128-bit key fingerprints (XXH3-128) and their collision arithmetic.

/// The version of the fingerprint function. A store that keeps fingerprints records it and
/// refuses to open with another one ([`PersistentSet`](crate::PersistentSet) does): version 1 is
/// XXH3-128 with seed 0 over the key's bytes, as produced by [`Fingerprint::of`]. Any change of
/// the function (algorithm, seed, the bytes hashed) must bump it.
///
/// ```
/// assert_eq!(linksieve_dedup::FINGERPRINT_VERSION, 1);
/// ```
pub const FINGERPRINT_VERSION: u32 = 1;

/// The 128-bit fingerprint of a key: two keys with the same fingerprint count as the same key.
/// With 128 bits, `n` distinct keys give an expected `n^2 / 2^129` false "seen" answers
/// (1.5e-19 at 1e10 keys; see [`expected_false_seen`]).
///
/// The ordering is the numeric order of the `u128`, which the sorted structures (spill runs, the
/// persistent store) rely on.
///
/// ```
/// use linksieve_dedup::Fingerprint;
/// let a = Fingerprint::of(b"http://example.com/");
/// assert_eq!(a, Fingerprint::of(b"http://example.com/"));
/// assert_ne!(a, Fingerprint::of(b"http://example.com"));
/// assert_eq!(Fingerprint::from_le_bytes(a.to_le_bytes()), a);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(pub u128);

impl Fingerprint {
    /// The fingerprint of a key's bytes: XXH3-128, seed 0 ([`FINGERPRINT_VERSION`] 1).
    ///
    /// ```
    /// use linksieve_dedup::Fingerprint;
    /// // The XXH3-128 of the empty input (seed 0), a fixed value of the algorithm.
    /// assert_eq!(Fingerprint::of(b"").0, 0x99aa06d3014798d86001c324468d497f);
    /// ```
    #[inline]
    pub fn of(key: &[u8]) -> Fingerprint {
        Fingerprint(xxhash_rust::xxh3::xxh3_128(key))
    }

    /// The fingerprint as 16 little-endian bytes (the on-disk form of this crate's files).
    ///
    /// ```
    /// use linksieve_dedup::Fingerprint;
    /// assert_eq!(Fingerprint(1).to_le_bytes()[0], 1);
    /// ```
    #[inline]
    pub const fn to_le_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// The fingerprint from 16 little-endian bytes.
    ///
    /// ```
    /// use linksieve_dedup::Fingerprint;
    /// let mut b = [0u8; 16];
    /// b[15] = 0x80;
    /// assert_eq!(Fingerprint::from_le_bytes(b), Fingerprint(1 << 127));
    /// ```
    #[inline]
    pub const fn from_le_bytes(bytes: [u8; 16]) -> Fingerprint {
        Fingerprint(u128::from_le_bytes(bytes))
    }
}

impl From<u128> for Fingerprint {
    /// Wraps a raw value (for tests and for fingerprints read back from elsewhere).
    ///
    /// ```
    /// use linksieve_dedup::Fingerprint;
    /// assert_eq!(Fingerprint::from(7u128), Fingerprint(7));
    /// ```
    fn from(v: u128) -> Fingerprint {
        Fingerprint(v)
    }
}

/// The expected number of false "seen" answers when `n` distinct keys go through an exact
/// seen-set of `bits`-bit uniformly distributed fingerprints: the expected number of colliding
/// pairs, `C(n, 2) / 2^bits`, which is `n^2 / 2^(bits + 1)` to first order (each collision makes
/// one key look seen; a triple collision, vanishingly rare, counts as its pairs).
///
/// Re-derived here for the issue's figures: `1e20 / 2^65 = 2.71` for 64-bit fingerprints at
/// 1e10 keys and `1e20 / 2^129 = 1.47e-19` for 128-bit ones.
///
/// ```
/// use linksieve_dedup::expected_false_seen;
/// assert!((expected_false_seen(1e10, 64) - 2.71).abs() < 0.01);
/// assert!((expected_false_seen(1e10, 128) / 1.47e-19 - 1.0).abs() < 0.01);
/// ```
pub fn expected_false_seen(n: f64, bits: u32) -> f64 {
    // C(n, 2) / 2^bits, computed as n (n - 1) / 2^(bits + 1) in floating point.
    n * (n - 1.0).max(0.0) / 2f64.powi(bits as i32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_collision_figures() {
        // 64-bit: 1e10^2 / 2^65 = 1e20 / 3.6893e19 = 2.7105
        let f64bit = expected_false_seen(1e10, 64);
        assert!((f64bit - 2.7105).abs() < 1e-3, "{f64bit}");
        // 128-bit: 1e20 / 2^129 = 1e20 / 6.8056e38 = 1.4694e-19
        let f128 = expected_false_seen(1e10, 128);
        assert!((f128 - 1.4694e-19).abs() < 1e-22, "{f128}");
        assert_eq!(expected_false_seen(1.0, 64), 0.0);
    }

    #[test]
    fn birthday_bound_matches_a_small_simulation() {
        // 16-bit fingerprints of 2000 distinct keys: expected 2000*1999/2^17 = 30.5 collisions.
        // Count actual pairs among the low 16 bits of real fingerprints.
        let mut counts = vec![0u32; 1 << 16];
        for i in 0..2000u32 {
            let fp = Fingerprint::of(format!("http://example.com/{i}").as_bytes());
            counts[(fp.0 & 0xffff) as usize] += 1;
        }
        let pairs: u32 = counts.iter().map(|&c| c * c.saturating_sub(1) / 2).sum();
        let expected = expected_false_seen(2000.0, 16);
        assert!((expected - 30.5).abs() < 0.1);
        // Poisson with mean 30.5: 6 standard deviations either side.
        assert!(
            (pairs as f64 - expected).abs() < 6.0 * expected.sqrt(),
            "{pairs}"
        );
    }
}

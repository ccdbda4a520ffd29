//! Where a fingerprint lives on the server: key names, shards and buckets.
//!
//! A set named `P` (the URL's `prefix`) keeps its fingerprints in `2^b` small hashes, the
//! *buckets*, spread over `S` hash-tagged *shards* (Redis Cluster specification, "Hash tags":
//! only the part between `{` and `}` picks the slot, so a shard's keys share a slot and a
//! cluster spreads the shards over its nodes):
//!
//! ```text
//! P:{SSS}:BBBB          bucket BBBB (hex) of shard SSS (hex): a hash, field = the 16-byte
//!                       fingerprint (big-endian), value = the claim token of the run's sync
//!                       period that claimed it
//! P:{SSS}:log:R         cluster: what run R was offered in shard SSS since its last sync
//!                       (24 bytes each: the fingerprint, then the claim token, big-endian)
//! P:{m}:log:R           one server: what run R was offered since its last sync
//! P:{m}:meta            the set's identity and layout (a hash)
//! P:{m}:seq             the last run number given out
//! P:{m}:tokens          the last claim token given out (runs take blocks of 1024)
//! P:{m}:names           named runs (`run=NAME`) -> run number
//! P:{m}:runs            the runs that may hold unsynced claims (a set)
//! P:{m}:lease:R         run R's lease (expires unless renewed; its value: the process's token)
//! P:{m}:reclaim:R       taken by the process that reclaims run R's claims
//! ```
//!
//! The shard is the fingerprint's top `log2 S` bits, the bucket the next bits. A bucket is sized
//! to hold about 96 fingerprints at the expected number of keys, under Redis's default
//! `hash-max-listpack-entries` (128), so it stays a compact listpack (about 20 bytes a key).

/// The key names of one set and its fingerprint-to-bucket map.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    prefix: String,
    shard_bits: u32,
    /// Bucket bits within a shard.
    bucket_bits: u32,
}

/// Fingerprints a bucket is sized for at the expected number of keys.
pub(crate) const BUCKET_FILL: u64 = 96;

impl Layout {
    /// The total bucket count for `expect` keys over `shards` shards: a power of two, at least
    /// one a shard.
    pub(crate) fn buckets_for(expect: u64, shards: u32) -> u64 {
        expect
            .div_ceil(BUCKET_FILL)
            .next_power_of_two()
            .max(u64::from(shards))
    }

    pub(crate) fn new(prefix: &str, shards: u32, buckets: u64) -> Layout {
        let shard_bits = shards.trailing_zeros();
        Layout {
            prefix: prefix.to_owned(),
            shard_bits,
            bucket_bits: buckets.trailing_zeros() - shard_bits,
        }
    }

    pub(crate) fn shards(&self) -> u32 {
        1 << self.shard_bits
    }

    pub(crate) fn buckets(&self) -> u64 {
        1 << (self.shard_bits + self.bucket_bits)
    }

    pub(crate) fn shard_of(&self, fp: u128) -> u32 {
        match self.shard_bits {
            0 => 0,
            b => (fp >> (128 - b)) as u32,
        }
    }

    fn bucket_in_shard(&self, fp: u128) -> u64 {
        match self.bucket_bits {
            0 => 0,
            b => ((fp << self.shard_bits) >> (128 - b)) as u64,
        }
    }

    /// The bucket key of global bucket number `n` (shard bits first).
    pub(crate) fn bucket_key_n(&self, n: u64) -> String {
        let mut key = String::new();
        self.write_bucket_key_n(n, &mut key);
        key
    }

    fn write_bucket_key_n(&self, n: u64, out: &mut String) {
        use std::fmt::Write;
        let shard = n >> self.bucket_bits;
        let bucket = n & ((1 << self.bucket_bits) - 1);
        // writing to a String cannot fail
        let _ = write!(out, "{}:{{{shard:03x}}}:{bucket:x}", self.prefix);
    }

    /// The bucket key of a fingerprint.
    pub(crate) fn bucket_key(&self, fp: u128) -> String {
        self.bucket_key_n(self.bucket_of(fp))
    }

    /// [`bucket_key`](Layout::bucket_key) written at the end of `out` (no allocation once
    /// `out` has room).
    pub(crate) fn write_bucket_key(&self, fp: u128, out: &mut String) {
        self.write_bucket_key_n(self.bucket_of(fp), out);
    }

    fn bucket_of(&self, fp: u128) -> u64 {
        (u64::from(self.shard_of(fp)) << self.bucket_bits) | self.bucket_in_shard(fp)
    }

    /// A run's log: per shard on a cluster (so it shares the slot of the buckets it lists),
    /// one key on a single server.
    pub(crate) fn log_key(&self, run: u64, shard: Option<u32>) -> String {
        match shard {
            Some(s) => format!("{}:{{{s:03x}}}:log:{run}", self.prefix),
            None => self.meta_key(&format!("log:{run}")),
        }
    }

    /// A key of the set's bookkeeping (all in one slot).
    pub(crate) fn meta_key(&self, name: &str) -> String {
        format!("{}:{{m}}:{name}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_shards() {
        assert_eq!(Layout::buckets_for(10_000_000, 64), 131_072);
        assert_eq!(Layout::buckets_for(10, 64), 64);
        let l = Layout::new("p", 64, 131_072);
        assert_eq!(l.shards(), 64);
        assert_eq!(l.buckets(), 131_072);
        let top = u128::MAX;
        assert_eq!(l.shard_of(top), 63);
        assert_eq!(l.bucket_key(top), "p:{03f}:7ff");
        assert_eq!(l.bucket_key(0), "p:{000}:0");
        assert_eq!(l.bucket_key(1 << 122), "p:{001}:0");
        assert_eq!(l.bucket_key(1 << 121), "p:{000}:400");
        assert_eq!(l.log_key(7, Some(63)), "p:{03f}:log:7");
        assert_eq!(l.log_key(7, None), "p:{m}:log:7");
        let one = Layout::new("p", 1, 1);
        assert_eq!(one.bucket_key(top), "p:{000}:0");
        let mut out = String::from("x");
        l.write_bucket_key(top, &mut out);
        l.write_bucket_key(1 << 121, &mut out);
        assert_eq!(out, "xp:{03f}:7ffp:{000}:400");
    }
}

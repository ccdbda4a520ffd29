//! Whether the set outgrew its layout: a sample of the buckets' encodings.
//!
//! A bucket is sized for about 48-96 fingerprints at the expected number of keys (`expect=`;
//! the bucket count is a power of two), under the `hash-max-listpack-entries` that Redis's
//! shipped `redis.conf` sets (128; 512 without a configuration file). A bucket past the limit
//! becomes a hash table for good: measured on redis-server 7.0.15 with 2,000,000 keys, 24.9
//! bytes of server memory a key with every bucket a listpack (about 61 keys each), 44.0 with
//! about 122 (some converted), 85.1 with about 244 (all converted). The set cannot grow its
//! layout while other processes use it, so it says so in its report.

use super::RedisSet;
use super::conn::bytes;
use crate::Result;
use redis::cmd;

/// Buckets sampled (evenly spaced: fingerprints are uniform, so any spread is as good).
const SAMPLE: u64 = 32;

impl RedisSet {
    /// Samples the encoding of up to [`SAMPLE`] buckets (one round trip) and keeps the count
    /// of hash tables among them for [`report`](crate::SeenSet::report). A server that
    /// refuses `OBJECT` (a managed service's restriction) leaves the last sample as it was;
    /// a failed connection is the usual error.
    pub(super) fn sample_fill(&mut self) -> Result<()> {
        let buckets = self.layout.buckets();
        let n = SAMPLE.min(buckets);
        let cmds = (0..n)
            .map(|i| {
                let key = self.layout.bucket_key_n(i * (buckets / n));
                cmd("OBJECT").arg("ENCODING").arg(key).clone()
            })
            .collect();
        self.land(usize::MAX)?;
        self.revive_if_idle()?;
        match self.conn.run(cmds) {
            Ok(answers) => {
                let tables = answers
                    .into_iter()
                    .filter(|a| bytes(a.clone()) == b"hashtable")
                    .count();
                self.outgrown = Some((tables, n as usize));
                Ok(())
            }
            Err(e) if e.is_io_error() || e.is_timeout() || e.is_connection_dropped() => {
                Err(self.remote_error("sample buckets", e))
            }
            Err(_) => Ok(()),
        }
    }

    /// The summary line when sampled buckets are hash tables.
    pub(super) fn fill_warning(&self) -> Option<String> {
        let (tables, sampled) = self.outgrown?;
        (tables > 0).then(|| {
            format!(
                "the shared set {} outgrew its layout: {tables} of {sampled} sampled buckets are \
                 hash tables (up to about 85 bytes of server memory a key instead of 25); make a \
                 new set with a larger expect= (its {} buckets are sized for {} keys), or raise \
                 the server's hash-max-listpack-entries",
                self.url.shown,
                self.layout.buckets(),
                self.layout.buckets() * super::layout::BUCKET_FILL
            )
        })
    }
}

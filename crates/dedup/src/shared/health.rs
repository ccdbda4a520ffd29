//! What the server does to the set that the set should say (in its
//! [`report`](crate::SeenSet::report), printed in a run's summary): buckets past Redis's
//! listpack limit, and a server that evicts keys.
//!
//! A bucket is sized for about 48-96 fingerprints at the expected number of keys (`expect=`;
//! the bucket count is a power of two), under the `hash-max-listpack-entries` that Redis's
//! shipped `redis.conf` sets (128; 512 without a configuration file). A bucket past the limit
//! becomes a hash table for good: measured on redis-server 7.0.15 with 2,000,000 keys, 24.9
//! bytes of server memory a key with every bucket a listpack (about 61 keys each), 44.0 with
//! about 122 (some converted), 85.1 with about 244 (all converted). The set cannot grow its
//! layout while other processes use it, so it says so.
//!
//! A server whose `maxmemory-policy` is one of the `allkeys-*` evicts any key when its memory
//! is full: a bucket (its keys are answered new again) or a run's log (a dead run's unsynced
//! claims are then never given back: those keys are lost). `noeviction` refuses the write
//! instead (an error, exit 4); `volatile-*` evicts only keys with a time to live, here the
//! leases (a run then looks dead: its claims are given back, at least once).

use super::RedisSet;
use super::conn::bytes;
use crate::Result;
use redis::cmd;

/// Buckets sampled (evenly spaced: fingerprints are uniform, so any spread is as good).
const SAMPLE: u64 = 32;

/// What the last check found.
#[derive(Default)]
pub(super) struct Health {
    /// Hash tables among the buckets sampled, and the number sampled.
    tables: usize,
    sampled: usize,
    /// The server's `maxmemory_policy` when it may evict the set's keys.
    evicting: Option<String>,
}

impl RedisSet {
    /// Samples the encoding of up to [`SAMPLE`] buckets and reads the eviction policy of the
    /// server (of every primary of a cluster). A server that refuses `OBJECT` or `INFO` (a
    /// managed service's restriction) leaves that part as it was; a failed connection is the
    /// usual error.
    pub(super) fn check_health(&mut self) -> Result<()> {
        let buckets = self.layout.buckets();
        let n = SAMPLE.min(buckets);
        let sample = (0..n)
            .map(|i| {
                let key = self.layout.bucket_key_n(i * (buckets / n));
                cmd("OBJECT").arg("ENCODING").arg(key).clone()
            })
            .collect();
        self.land(usize::MAX)?;
        self.revive_if_idle()?;
        let got = self.conn.run(sample);
        if let Some(answers) = self.refusable("check buckets", got)? {
            let tables = answers.into_iter().map(bytes).filter(|e| e == b"hashtable");
            self.health.tables = tables.count();
            self.health.sampled = n as usize;
        }
        let got = self.conn.on_every_node(cmd("INFO").arg("memory").clone());
        if let Some(answers) = self.refusable("check eviction", got)? {
            self.health.evicting = answers.into_iter().find_map(|a| {
                let raw = bytes(a);
                String::from_utf8_lossy(&raw)
                    .lines()
                    .find_map(|l| l.strip_prefix("maxmemory_policy:"))
                    .filter(|p| p.starts_with("allkeys-"))
                    .map(str::to_owned)
            });
        }
        Ok(())
    }

    /// The answers of a check, `None` for an error answer (a command the server refuses); a
    /// failed connection is an error that poisons the set, as any.
    fn refusable(
        &mut self,
        op: &'static str,
        got: redis::RedisResult<Vec<redis::Value>>,
    ) -> Result<Option<Vec<redis::Value>>> {
        match got {
            Ok(answers) => Ok(Some(answers)),
            Err(e) if e.is_io_error() || e.is_timeout() || e.is_connection_dropped() => {
                Err(self.remote_error(op, e))
            }
            Err(_) => Ok(None),
        }
    }

    /// The summary line of what the last check found, if anything.
    pub(super) fn health_warning(&self) -> Option<String> {
        let h = &self.health;
        let mut said = Vec::new();
        if let Some(policy) = &h.evicting {
            said.push(format!(
                "its server evicts keys when memory is full (maxmemory-policy {policy}): it may \
                 drop buckets (keys answered new again) and a dead run's log (its unsynced keys \
                 never given back: lost); set maxmemory-policy noeviction"
            ));
        }
        if h.tables > 0 {
            said.push(format!(
                "it outgrew its layout: {} of {} sampled buckets are hash tables (up to about 85 \
                 bytes of server memory a key instead of 25; its {} buckets are sized for {} \
                 keys); raise the server's hash-max-listpack-entries (buckets already converted \
                 stay hash tables), or size expect= for the crawl in a new set (a new prefix \
                 starts empty)",
                h.tables,
                h.sampled,
                self.layout.buckets(),
                self.layout.buckets() * super::layout::BUCKET_FILL
            ));
        }
        (!said.is_empty())
            .then(|| format!("the shared set {}: {}", self.url.shown, said.join("; ")))
    }
}

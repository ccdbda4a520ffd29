//! Runs, leases and reclaim: how the claims of a run that died before `sync` are given back.
//!
//! Each process is a *run* with a number (from `P:{m}:seq`, or fixed for a named run) and a
//! lease (`P:{m}:lease:R`, a key that expires unless the run renews it, holding the process's
//! token). A run claims a fingerprint with `HSETNX` under the *claim token* of its sync period
//! (a number unique to the run and the period, from `P:{m}:tokens`), after listing it, with
//! the token, in its log; `sync` deletes the log and starts a new period. A run whose lease is
//! gone and that is still registered in `P:{m}:runs` is reclaimed by the first process that
//! notices (at open, and at a sync once a lease period): under a lock, each listed fingerprint
//! whose value is still the listed token is deleted from its bucket (a key the dead run was
//! offered but another run claimed, or that it claimed in an earlier, synced period, holds
//! another token and stays), then the log and the registration go.

use super::conn::{array, bytes, int};
use super::keeper::Keeper;
use super::{CHUNK, LOG_ENTRY, RedisSet};
use crate::{DedupError, Fingerprint, Result};
use redis::{Cmd, cmd};
use std::time::{Duration, Instant};

/// Deletes each listed fingerprint (`ARGV[2i-1]`, in bucket `KEYS[i]`) whose value is still
/// the listed claim token (`ARGV[2i]`).
const RECLAIM_SCRIPT: &str = "local n = 0 \
  for i = 1, #KEYS do \
    if redis.call('HGET', KEYS[i], ARGV[2 * i - 1]) == ARGV[2 * i] then \
      n = n + redis.call('HDEL', KEYS[i], ARGV[2 * i - 1]) \
    end \
  end \
  return n";

/// Renews the lease `KEYS[1]` if it still holds this process's token `ARGV[1]` (1), else 0.
const RENEW_SCRIPT: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
    redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end \
  return 0";

/// Takes the reclaim lock `KEYS[2]` of a run whose lease `KEYS[1]` is gone (1), else 0.
const LOCK_SCRIPT: &str = "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end \
  if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end \
  return 0";

/// The number of a named run (`ARGV[1]`), given out once from the sequence `KEYS[2]`.
const NAME_SCRIPT: &str = "local n = redis.call('HGET', KEYS[1], ARGV[1]) \
  if not n then n = redis.call('INCR', KEYS[2]) redis.call('HSET', KEYS[1], ARGV[1], n) end \
  return n";

impl RedisSet {
    fn lease_ms(&self) -> u64 {
        self.url.lease.as_millis() as u64
    }

    /// Takes a run number and a lease (and starts its keeper), registers the run; a named run
    /// first takes over its previous incarnation (gives back its unsynced claims).
    pub(super) fn start_run(&mut self) -> Result<()> {
        let names = self.layout.meta_key("names");
        let seq = self.layout.meta_key("seq");
        let number = match &self.url.run {
            Some(name) => cmd("EVAL")
                .arg(NAME_SCRIPT)
                .arg(2)
                .arg(names)
                .arg(seq)
                .arg(name)
                .clone(),
            None => cmd("INCR").arg(seq).clone(),
        };
        self.run = self
            .call("open", vec![number])?
            .first()
            .map_or(0, |v| int(v) as u64);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        self.token = format!("pid {} at {nanos}", std::process::id());
        // a named run overwrites its previous incarnation's lease (which then fails to renew)
        let lease = cmd("SET")
            .arg(self.lease_key())
            .arg(&self.token)
            .arg("PX")
            .arg(self.lease_ms())
            .clone();
        self.call("open", vec![lease])?;
        self.last_renew = Instant::now();
        // renewed from now on, however long a named run waits below
        let keeper = Keeper::start(&self.url, self.renew_cmds());
        self.keeper = Some(keeper.map_err(|e| self.remote_error("open", e))?);
        if self.url.run.is_some() {
            // wait for a process that reclaims our previous incarnation, then take the lock
            let lock = self.layout.meta_key(&format!("reclaim:{}", self.run));
            let start = Instant::now();
            loop {
                let take = cmd("SET")
                    .arg(&lock)
                    .arg(&self.token)
                    .arg("NX")
                    .arg("PX")
                    .arg(self.lease_ms())
                    .clone();
                if self.call("open", vec![take])?.first().map(int) == Some(1) {
                    break;
                }
                if start.elapsed() > self.url.lease + self.url.timeout {
                    return Err(DedupError::Remote {
                        store: self.url.shown.clone(),
                        op: "open",
                        detail: format!("the reclaim lock {lock} is held too long"),
                    });
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            self.reclaim(self.run)?;
            self.call("open", vec![cmd("DEL").arg(lock).clone()])?;
        }
        let register = cmd("SADD")
            .arg(self.layout.meta_key("runs"))
            .arg(self.run)
            .clone();
        self.call("open", vec![register])?;
        Ok(())
    }

    /// Renews the lease when a quarter of it has passed and the keeper did not; a lost lease
    /// (found here or by the keeper) is an error.
    pub(super) fn renew_if_due(&mut self) -> Result<()> {
        let due = self.url.lease / 4;
        if let Some(k) = &self.keeper {
            if k.lost() {
                return Err(self.lease_lost());
            }
            if k.renewed_within(due) {
                return Ok(());
            }
        }
        if self.last_renew.elapsed() < due {
            return Ok(());
        }
        let answers = self.call("renew lease", self.renew_cmds())?;
        if answers.first().map(int) != Some(1) {
            return Err(self.lease_lost());
        }
        self.last_renew = Instant::now();
        Ok(())
    }

    /// Renews the lease (answers 1, or 0 when it was lost) and the registration.
    pub(super) fn renew_cmds(&self) -> Vec<Cmd> {
        vec![
            cmd("EVAL")
                .arg(RENEW_SCRIPT)
                .arg(1)
                .arg(self.lease_key())
                .arg(&self.token)
                .arg(self.lease_ms())
                .clone(),
            cmd("SADD")
                .arg(self.layout.meta_key("runs"))
                .arg(self.run)
                .clone(),
        ]
    }

    pub(super) fn lease_lost(&mut self) -> DedupError {
        self.failed = Some("the run's lease expired".into());
        DedupError::LeaseLost {
            store: self.url.shown.clone(),
            run: self.url.run.clone().unwrap_or_else(|| self.run.to_string()),
        }
    }

    pub(super) fn registered_runs(&mut self) -> Result<Vec<u64>> {
        let members = cmd("SMEMBERS").arg(self.layout.meta_key("runs")).clone();
        let v = self.call("list runs", vec![members])?;
        Ok(v.into_iter()
            .flat_map(array)
            .filter_map(|m| String::from_utf8(bytes(m)).ok()?.parse().ok())
            .collect())
    }

    /// Every key a run's log may be in: the one-server log and the per-shard logs.
    pub(super) fn log_keys(&self, run: u64) -> Vec<String> {
        std::iter::once(self.layout.log_key(run, None))
            .chain((0..self.layout.shards()).map(|s| self.layout.log_key(run, Some(s))))
            .collect()
    }

    /// Gives back the claims of every registered run whose lease expired.
    pub(super) fn reclaim_expired(&mut self) -> Result<()> {
        self.last_reclaim = Instant::now();
        let others: Vec<u64> = self
            .registered_runs()?
            .into_iter()
            .filter(|&r| r != self.run)
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        let me = self.token.clone();
        for r in others {
            let lock = self.layout.meta_key(&format!("reclaim:{r}"));
            let take = cmd("EVAL")
                .arg(LOCK_SCRIPT)
                .arg(2)
                .arg(self.layout.meta_key(&format!("lease:{r}")))
                .arg(&lock)
                .arg(&me)
                .arg(self.lease_ms())
                .clone();
            if self.call("reclaim", vec![take])?.first().map(int) != Some(1) {
                continue; // alive, or another process reclaims it
            }
            self.reclaim(r)?;
            let done = vec![
                cmd("SREM").arg(self.layout.meta_key("runs")).arg(r).clone(),
                cmd("DEL").arg(lock).clone(),
            ];
            self.call("reclaim", done)?;
        }
        Ok(())
    }

    /// Deletes the claims listed in run `r`'s logs, then the logs.
    fn reclaim(&mut self, r: u64) -> Result<u64> {
        let keys = self.log_keys(r);
        let lens: Vec<i64> = self
            .call(
                "reclaim",
                keys.iter().map(|k| cmd("STRLEN").arg(k).clone()).collect(),
            )?
            .iter()
            .map(int)
            .collect();
        let mut given_back = 0;
        let step = (LOG_ENTRY * CHUNK) as i64;
        for (key, len) in keys.iter().zip(lens).filter(|(_, l)| *l > 0) {
            for off in (0..len).step_by(step as usize) {
                let range = cmd("GETRANGE")
                    .arg(key)
                    .arg(off)
                    .arg(off + step - 1)
                    .clone();
                let data = self
                    .call("reclaim", vec![range])?
                    .pop()
                    .map(bytes)
                    .unwrap_or_default();
                let entries: Vec<(Fingerprint, u64)> = data
                    .chunks_exact(LOG_ENTRY)
                    .map(|c| {
                        let (fp, token) = c.split_at(16);
                        (
                            Fingerprint(u128::from_be_bytes(fp.try_into().unwrap_or([0; 16]))),
                            u64::from_be_bytes(token.try_into().unwrap_or([0; 8])),
                        )
                    })
                    .collect();
                let cmds = self.reclaim_cmds(&entries);
                given_back += self
                    .call("reclaim", cmds)?
                    .iter()
                    .map(|v| int(v) as u64)
                    .sum::<u64>();
            }
            self.call("reclaim", vec![cmd("DEL").arg(key).clone()])?;
        }
        Ok(given_back)
    }

    /// One reclaim script per shard (a cluster) or for all (one server).
    fn reclaim_cmds(&self, entries: &[(Fingerprint, u64)]) -> Vec<Cmd> {
        let mut groups: Vec<Vec<(Fingerprint, u64)>> = Vec::new();
        if self.conn.is_cluster() {
            groups.resize(self.layout.shards() as usize, Vec::new());
            for e in entries {
                groups[self.layout.shard_of(e.0.0) as usize].push(*e);
            }
        } else {
            groups.push(entries.to_vec());
        }
        groups
            .into_iter()
            .filter(|g| !g.is_empty())
            .map(|g| {
                let mut c = cmd("EVAL");
                c.arg(RECLAIM_SCRIPT).arg(g.len());
                for (fp, _) in &g {
                    c.arg(self.layout.bucket_key(fp.0));
                }
                for (fp, token) in &g {
                    c.arg(&fp.0.to_be_bytes()[..]).arg(token);
                }
                c
            })
            .collect()
    }
}

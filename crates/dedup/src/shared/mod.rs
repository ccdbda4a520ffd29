//! [`RedisSet`]: a seen-set on a Redis or Valkey server (or a Redis Cluster) that many
//! processes and machines share. Its contract, layout and URL: [`RedisSet`].

mod ahead;
mod conn;
mod health;
mod keeper;
mod layout;
mod runs;
mod url;

use crate::{DedupError, FINGERPRINT_VERSION, Fingerprint, Result, SeenSet};
use conn::{Conn, array, bytes, int};
use layout::Layout;
use redis::{Cmd, cmd};
use std::time::Instant;
use url::SetUrl;
pub use url::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_EXPECT, DEFAULT_LEASE, DEFAULT_SHARDS, DEFAULT_TIMEOUT,
};

/// The format of the server-side layout, recorded in the set's `meta`.
///
/// ```
/// assert_eq!(linksieve_dedup::REDIS_FORMAT, 1);
/// ```
pub const REDIS_FORMAT: u32 = 1;

/// Fingerprints sent in one round trip at most (a larger batch takes several).
const CHUNK: usize = 4096;

/// Claim tokens a run takes at once (one `INCRBY` of `P:{m}:tokens`).
const TOKEN_BLOCK: u64 = 1024;

/// A log entry: the fingerprint (16 bytes) and the claim token of its sync period (8 bytes),
/// big-endian.
pub(crate) const LOG_ENTRY: usize = 24;

/// A seen-set on a Redis or Valkey server, or a Redis Cluster, shared by every process that
/// opens the same URL ([`open`](RedisSet::open); the URL's options: the guide, "Shared
/// seen-sets on Redis").
///
/// # The contract
///
/// * **Exactly once while alive.** Across every process that shares the set, each key is
///   answered new once: the claim is an atomic `HSETNX` on the server.
/// * **Claims sent ahead.** On one server, [`SeenSet::submit`] sends a batch's claims and then
///   reads the answers of the batch submitted before it ([`SeenSet::answer_rest`] reads the
///   last), so that the server claims while the caller writes. Only answers returned count as
///   answered: [`SeenSet::sync`] keeps the claims still in flight listed in the log.
/// * **Delivered before recorded, never lost.** A key answered new is *claimed* by this run
///   (other processes are answered seen) and listed in the run's log on the server (every key
///   offered is listed before it is claimed, 24 bytes each until the next sync). The caller
///   delivers it, then calls [`SeenSet::sync`], which deletes the log: the claim is then
///   permanent. A run that dies before `sync` (killed, lost its machine, stopped on an error)
///   keeps its claims until its *lease* expires (`lease=`, default 30 s, renewed every quarter
///   of it by a thread of the process);
///   the next process that opens the set, or syncs, after that removes them, so the next offer
///   of those keys, by any process, is answered new. At least once, never lost: what a crash
///   costs is the keys claimed since the last sync, answered new again. An offer of such a key
///   made by another process *while* the dead run held it was answered seen: that process does
///   not see it again unless its input offers it again (a rerun of the dead run's input does).
/// * **A named run takes its own claims back at once.** With `run=NAME` (a worker's name, used
///   by one process at a time), a restarted worker takes over its previous incarnation when it
///   opens, lease or not: it gives back that incarnation's unsynced claims, and the
///   incarnation, if it is in fact still alive, fails with [`DedupError::LeaseLost`] at its
///   next renewal.
/// * **The lease lives as long as the process.** A run that makes no call for longer than its
///   lease (a consumer paused, a crawl waiting on slow pages) keeps it. A process stopped
///   (`SIGSTOP`, a frozen machine) or cut off from the server for longer than its lease loses
///   it: its next call fails with [`DedupError::LeaseLost`] before it claims anything (its
///   claims may have been given back).
/// * **Failures are errors, never wrong answers.** A server that cannot be reached, times out
///   (`connect_timeout=`, default 5 s; `timeout=`, default 10 s), restarts or dies mid-run gives
///   [`DedupError::Remote`]; no command is retried (a retried claim would be answered seen by
///   itself), and every later call of this set fails the same way. The CLI exits with status 4.
///   A connection the server closed while idle (its `timeout` setting) is checked and opened
///   again before the next command; the lease must still be there (a server restarted without
///   persistence meanwhile: [`DedupError::LeaseLost`]).
/// * **As durable as the server.** A synced key is as safe as the server's persistence
///   (`appendonly yes` with `appendfsync always` loses nothing, `everysec` up to a second).
///
/// # Layout and memory
///
/// Fingerprints (16 bytes, big-endian) are fields of small hashes that Redis keeps as
/// listpacks, the value a small integer: about 25 bytes of server memory a key at the
/// expected number of keys (`expect=`, default 1e7, fixed when the set is made), against about
/// 88 for scrapy-redis's set of 40-hex SHA-1 strings. Once buckets hold about 110 keys on
/// average (1.15x to 2.3x `expect`, as the power-of-two bucket count falls; 1.44x for the
/// default) a growing share of them outgrow Redis's `hash-max-listpack-entries` (128 in the
/// shipped `redis.conf`) and become hash tables: 44 bytes a key measured at about 122 keys a
/// bucket, 85 at about 244. [`SeenSet::report`] warns when sampled buckets are hash tables
/// (at open, and once a lease period at a sync): size `expect` for the crawl, or raise that
/// server setting.
///
/// # Identity
///
/// The set records the key identity it was made with (an opaque string: what makes its keys)
/// and the fingerprint version; a different one is refused with
/// [`DedupError::IdentityMismatch`].
///
/// ```no_run
/// use linksieve_dedup::{Fingerprint, RedisSet, SeenSet};
/// let mut set = RedisSet::open("redis://127.0.0.1:6379/0?prefix=crawl", "scheme uri 0")?;
/// let mut new = Vec::new();
/// set.insert_batch(&[Fingerprint(1), Fingerprint(2), Fingerprint(1)], &mut new)?;
/// assert_eq!(new, [true, true, false]);
/// // ... deliver the new keys (write and flush them), then record them:
/// set.sync()?;
/// set.finish()?;
/// # Ok::<(), linksieve_dedup::DedupError>(())
/// ```
pub struct RedisSet {
    url: SetUrl,
    conn: Conn,
    layout: Layout,
    /// This run's number (a named run keeps its number across processes).
    run: u64,
    /// This process's lease token (the lease's value).
    token: String,
    /// The claim token of this sync period (the value of its claims), and the end of the
    /// block of tokens this run holds.
    claim: u64,
    claim_end: u64,
    /// Keys this process was answered new (all time, and since the last sync).
    answered: u64,
    unsynced: u64,
    /// Shards whose log holds unsynced claims (cluster); `single_log` on one server.
    touched: Vec<bool>,
    single_log: bool,
    last_renew: Instant,
    last_reclaim: Instant,
    /// The first error: every later call fails with it.
    failed: Option<String>,
    sync_on_next_call: bool,
    /// Claims sent ahead of their answers (one server, `submit`).
    ahead: ahead::Ahead,
    /// Renews the lease between calls.
    keeper: Option<keeper::Keeper>,
    /// What the last check of the server found ([`health`]).
    health: health::Health,
}

impl RedisSet {
    /// Opens (or makes) the set at `url` for keys of `identity` (an opaque string, stored and
    /// compared); see [`RedisSet`] for the contract. `url`: `redis://[USER[:PASSWORD]@]HOST
    /// [:PORT][/DB]`, `rediss://` (TLS, feature `redis-tls`), `redis+cluster://HOST:PORT,
    /// HOST:PORT/` (a cluster); options `prefix`, `expect`, `shards`, `lease`,
    /// `connect_timeout`, `timeout`, `run`. Takes a lease for
    /// this run and gives back the claims of runs whose lease expired.
    ///
    /// Errors: [`DedupError::InvalidConfig`] (a bad URL), [`DedupError::Remote`] (the server),
    /// [`DedupError::IdentityMismatch`] (the set holds other keys, or another layout than
    /// `expect=`/`shards=` ask for).
    ///
    /// ```
    /// let e = linksieve_dedup::RedisSet::open("http://host/", "id").err().unwrap();
    /// assert!(e.to_string().contains("redis://"));
    /// ```
    pub fn open(url: &str, identity: &str) -> Result<RedisSet> {
        let url = SetUrl::parse(url)?;
        let shown = url.shown.clone();
        let remote = |op: &'static str| {
            let store = shown.clone();
            move |e: redis::RedisError| DedupError::Remote {
                store,
                op,
                detail: e.to_string(),
            }
        };
        let mut conn = Conn::connect(&url).map_err(remote("connect"))?;
        let shards = url.shards.unwrap_or(DEFAULT_SHARDS);
        let buckets = Layout::buckets_for(url.expect.unwrap_or(DEFAULT_EXPECT), shards);
        let probe = Layout::new(&url.prefix, shards, buckets);
        let meta = array(
            conn.one(
                cmd("EVAL")
                    .arg(META_SCRIPT)
                    .arg(1)
                    .arg(probe.meta_key("meta"))
                    .arg(REDIS_FORMAT)
                    .arg(FINGERPRINT_VERSION)
                    .arg(identity)
                    .arg(shards)
                    .arg(buckets)
                    .clone(),
            )
            .map_err(remote("open"))?,
        );
        let field = |i: usize| meta.get(i).cloned().map(bytes).unwrap_or_default();
        let text = |i: usize| String::from_utf8_lossy(&field(i)).into_owned();
        let mismatch = |field: &'static str, stored: String, requested: String| {
            Err(DedupError::IdentityMismatch {
                path: shown.clone().into(),
                field,
                stored,
                requested,
            })
        };
        for (i, name, want) in [
            (0, "store format", REDIS_FORMAT.to_string()),
            (1, "fingerprint version", FINGERPRINT_VERSION.to_string()),
            (2, "identity", identity.to_owned()),
        ] {
            if text(i) != want {
                return mismatch(name, text(i), want);
            }
        }
        let stored_shards: u32 = text(3).parse().unwrap_or(0);
        let stored_buckets: u64 = text(4).parse().unwrap_or(0);
        if !stored_shards.is_power_of_two()
            || !stored_buckets.is_power_of_two()
            || stored_buckets < u64::from(stored_shards)
        {
            return mismatch(
                "layout",
                format!("{stored_shards}/{stored_buckets}"),
                "".into(),
            );
        }
        if url.shards.is_some_and(|s| s != stored_shards) {
            return mismatch("shards", stored_shards.to_string(), shards.to_string());
        }
        if url.expect.is_some() && buckets != stored_buckets {
            return mismatch(
                "buckets (expect=)",
                stored_buckets.to_string(),
                buckets.to_string(),
            );
        }
        let layout = Layout::new(&url.prefix, stored_shards, stored_buckets);
        let now = Instant::now();
        let mut set = RedisSet {
            touched: vec![false; layout.shards() as usize],
            url,
            conn,
            layout,
            run: 0,
            token: String::new(),
            claim: 0,
            claim_end: 0,
            answered: 0,
            unsynced: 0,
            single_log: false,
            last_renew: now,
            last_reclaim: now,
            failed: None,
            sync_on_next_call: false,
            ahead: ahead::Ahead::default(),
            keeper: None,
            health: health::Health::default(),
        };
        set.start_run()?;
        set.reclaim_expired()?;
        set.check_health()?;
        Ok(set)
    }

    /// The URL without its password.
    ///
    /// ```no_run
    /// let set = linksieve_dedup::RedisSet::open("redis://u:pw@127.0.0.1/", "id")?;
    /// assert_eq!(set.url(), "redis://u:***@127.0.0.1/");
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn url(&self) -> &str {
        &self.url.shown
    }

    /// This run's number (its log on the server is `PREFIX:{m}:log:N` or, on a cluster,
    /// `PREFIX:{SSS}:log:N`).
    ///
    /// ```no_run
    /// let set = linksieve_dedup::RedisSet::open("redis://127.0.0.1/", "id")?;
    /// assert!(set.run() > 0);
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn run(&self) -> u64 {
        self.run
    }

    /// When `on`, each [`insert_batch`](SeenSet::insert_batch) first records (syncs) what the
    /// calls before it answered, in the same round trip: for a caller whose answers are
    /// delivered once returned (a Python `add`, a Scrapy dupefilter).
    ///
    /// ```no_run
    /// let mut set = linksieve_dedup::RedisSet::open("redis://127.0.0.1/", "id")?;
    /// set.sync_on_next_call(true);
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn sync_on_next_call(&mut self, on: bool) {
        self.sync_on_next_call = on;
    }

    /// Whether `fp` is in the set (claimed by a live run, or recorded).
    ///
    /// ```no_run
    /// use linksieve_dedup::{Fingerprint, RedisSet, SeenSet};
    /// let mut set = RedisSet::open("redis://127.0.0.1/?prefix=doc", "id")?;
    /// set.insert_one(Fingerprint(9))?;
    /// assert!(set.contains(Fingerprint(9))?);
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn contains(&mut self, fp: Fingerprint) -> Result<bool> {
        self.check()?;
        let c = cmd("HEXISTS")
            .arg(self.layout.bucket_key(fp.0))
            .arg(&fp.0.to_be_bytes()[..])
            .clone();
        let v = self.call("contains", vec![c])?;
        Ok(v.first().map(int) == Some(1))
    }

    /// The keys in the set, from every run (one `HLEN` per bucket: a scan, not for a hot loop).
    ///
    /// ```no_run
    /// let mut set = linksieve_dedup::RedisSet::open("redis://127.0.0.1/?prefix=doc", "id")?;
    /// let n = set.count()?;
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn count(&mut self) -> Result<u64> {
        self.check()?;
        let mut total = 0;
        let buckets = self.layout.buckets();
        for start in (0..buckets).step_by(CHUNK) {
            let cmds = (start..(start + CHUNK as u64).min(buckets))
                .map(|n| cmd("HLEN").arg(self.layout.bucket_key_n(n)).clone())
                .collect();
            total += self
                .call("count", cmds)?
                .iter()
                .map(|v| int(v) as u64)
                .sum::<u64>();
        }
        Ok(total)
    }

    /// Empties the set for every run (scrapy-redis's `clear`): deletes every bucket and the
    /// logs of the registered runs; the identity, the layout and the leases stay.
    ///
    /// ```no_run
    /// let mut set = linksieve_dedup::RedisSet::open("redis://127.0.0.1/?prefix=doc", "id")?;
    /// set.clear()?;
    /// assert_eq!(set.count()?, 0);
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn clear(&mut self) -> Result<()> {
        self.check()?;
        let buckets = self.layout.buckets();
        for start in (0..buckets).step_by(CHUNK) {
            let cmds = (start..(start + CHUNK as u64).min(buckets))
                .map(|n| cmd("UNLINK").arg(self.layout.bucket_key_n(n)).clone())
                .collect();
            self.call("clear", cmds)?;
        }
        let runs = self.registered_runs()?;
        for run in runs {
            let cmds = self
                .log_keys(run)
                .into_iter()
                .map(|k| cmd("UNLINK").arg(k).clone());
            self.call("clear", cmds.collect())?;
        }
        self.unsynced = 0;
        self.single_log = false;
        self.touched.fill(false);
        // the logs are gone with the buckets; answers held are still handed out
        self.ahead.log.clear();
        Ok(())
    }

    /// Syncs, then ends the run: its lease and registration are removed.
    ///
    /// ```no_run
    /// let set = linksieve_dedup::RedisSet::open("redis://127.0.0.1/", "id")?;
    /// set.finish()?;
    /// # Ok::<(), linksieve_dedup::DedupError>(())
    /// ```
    pub fn finish(mut self) -> Result<()> {
        self.sync()?;
        if !self.ahead.log.is_empty() {
            // answers never handed out (`submit` without `answer_rest`): their claims stay
            // listed, and are given back once the lease expires, as for a run that died
            return Ok(());
        }
        if let Some(k) = self.keeper.as_mut() {
            k.stop(); // nothing renews or registers the run after this
        }
        let cmds = vec![
            cmd("DEL").arg(self.lease_key()).clone(),
            cmd("SREM")
                .arg(self.layout.meta_key("runs"))
                .arg(self.run)
                .clone(),
        ];
        self.call("finish", cmds)?;
        Ok(())
    }

    fn check(&self) -> Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(detail) => Err(DedupError::Remote {
                store: self.url.shown.clone(),
                op: "an earlier error",
                detail: detail.clone(),
            }),
        }
    }

    /// Runs commands in one round trip, after reading the answers of the claims sent ahead
    /// (answers come in the order the commands were sent); an error poisons the set.
    fn call(&mut self, op: &'static str, cmds: Vec<Cmd>) -> Result<Vec<redis::Value>> {
        self.land(usize::MAX)?;
        self.revive_if_idle()?;
        self.conn.run(cmds).map_err(|e| self.remote_error(op, e))
    }

    /// A connection idle for a while may have been closed by the server (its `timeout`
    /// setting): once the answers in flight are read, [`Conn::revive_if_idle`] opens it
    /// again, and then the lease must still be this run's (a server restarted without
    /// persistence lost it, and the set's contents with it: [`DedupError::LeaseLost`]).
    fn revive_if_idle(&mut self) -> Result<()> {
        if !self.conn.idle() {
            return Ok(());
        }
        self.land(usize::MAX)?;
        match self.conn.revive_if_idle() {
            Ok(false) => Ok(()),
            Ok(true) => {
                let answers = self.conn.run(self.renew_cmds());
                let answers = answers.map_err(|e| self.remote_error("renew lease", e))?;
                if answers.first().map(int) != Some(1) {
                    return Err(self.lease_lost());
                }
                self.last_renew = Instant::now();
                Ok(())
            }
            Err(e) => Err(self.remote_error("reconnect", e)),
        }
    }

    /// A failed command poisons the set (the connection's state is unknown).
    fn remote_error(&mut self, op: &'static str, e: redis::RedisError) -> DedupError {
        let detail = e.to_string();
        self.failed = Some(format!("{op}: {detail}"));
        DedupError::Remote {
            store: self.url.shown.clone(),
            op,
            detail,
        }
    }

    fn lease_key(&self) -> String {
        self.layout.meta_key(&format!("lease:{}", self.run))
    }

    /// The commands that record the unsynced claims: delete the logs, or on one server, where
    /// claims were sent ahead of their answers, replace the log with the entries of the keys
    /// whose answers were not handed out yet (they stay unrecorded).
    fn sync_cmds(&self) -> Vec<Cmd> {
        let mut cmds = Vec::new();
        if self.single_log {
            let log = self.layout.log_key(self.run, None);
            cmds.push(match self.ahead.log.is_empty() {
                true => cmd("DEL").arg(log).clone(),
                false => cmd("SET").arg(log).arg(&self.ahead.log[..]).clone(),
            });
        }
        for (s, _) in self.touched.iter().enumerate().filter(|(_, t)| **t) {
            cmds.push(
                cmd("DEL")
                    .arg(self.layout.log_key(self.run, Some(s as u32)))
                    .clone(),
            );
        }
        cmds
    }

    /// A new sync period: the next claim token.
    fn synced(&mut self) {
        self.claim += 1;
        self.unsynced = 0;
        self.single_log = !self.ahead.log.is_empty();
        self.touched.fill(false);
    }

    /// Takes a new block of claim tokens when this one is used up (a round trip every
    /// [`TOKEN_BLOCK`] syncs).
    fn claim_tokens(&mut self) -> Result<()> {
        if self.claim < self.claim_end {
            return Ok(());
        }
        let take = cmd("INCRBY")
            .arg(self.layout.meta_key("tokens"))
            .arg(TOKEN_BLOCK)
            .clone();
        let end = self.call("open", vec![take])?.first().map_or(0, int) as u64;
        self.claim_end = end + 1;
        self.claim = self.claim_end - TOKEN_BLOCK;
        Ok(())
    }

    fn insert_chunk(
        &mut self,
        fps: &[Fingerprint],
        new: &mut Vec<bool>,
        presync: bool,
    ) -> Result<()> {
        let mut cmds = Vec::with_capacity(fps.len() + 8);
        // the logs of the answers already returned are deleted first: on each connection
        // the commands run in order
        if presync && self.unsynced > 0 {
            cmds.extend(self.sync_cmds());
            self.synced();
        }
        self.claim_tokens()?;
        let claim = self.claim;
        // the log before the claims it lists (in order on each node): a claim is never
        // unlisted; a listed key that this period did not claim holds another token and is
        // left alone at reclaim
        let entry = |fp: &Fingerprint| {
            let mut e = [0u8; LOG_ENTRY];
            e[..16].copy_from_slice(&fp.0.to_be_bytes());
            e[16..].copy_from_slice(&claim.to_be_bytes());
            e
        };
        if self.conn.is_cluster() {
            let mut per_shard: Vec<Vec<u8>> = vec![Vec::new(); self.layout.shards() as usize];
            for fp in fps {
                per_shard[self.layout.shard_of(fp.0) as usize].extend(entry(fp));
            }
            for (s, log) in per_shard.into_iter().enumerate() {
                if !log.is_empty() {
                    self.touched[s] = true;
                    let key = self.layout.log_key(self.run, Some(s as u32));
                    cmds.push(cmd("APPEND").arg(key).arg(log).clone());
                }
            }
        } else {
            self.single_log = true;
            let log: Vec<u8> = fps.iter().flat_map(entry).collect();
            let key = self.layout.log_key(self.run, None);
            cmds.push(cmd("APPEND").arg(key).arg(log).clone());
        }
        let first = cmds.len();
        for fp in fps {
            cmds.push(
                cmd("HSETNX")
                    .arg(self.layout.bucket_key(fp.0))
                    .arg(&fp.0.to_be_bytes()[..])
                    .arg(claim)
                    .clone(),
            );
        }
        let answers = self.call("insert", cmds)?;
        for a in answers.get(first..).unwrap_or_default() {
            let is_new = int(a) == 1;
            self.answered += u64::from(is_new);
            self.unsynced += u64::from(is_new);
            new.push(is_new);
        }
        Ok(())
    }
}

impl SeenSet for RedisSet {
    fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
        self.contains(fp)
    }

    fn durable(&self) -> bool {
        true
    }

    fn finish(self: Box<Self>) -> Result<()> {
        RedisSet::finish(*self)
    }

    fn clear(&mut self) -> Result<()> {
        RedisSet::clear(self)
    }

    /// One round trip per 4,096 fingerprints (one pipeline per node of a cluster): the
    /// fingerprints are listed in this run's log with this sync period's claim token, then
    /// each is claimed with `HSETNX` (value: the token).
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        self.check()?;
        self.renew_if_due()?;
        new.clear();
        new.reserve(fps.len());
        // only the answers of earlier calls were returned (delivered)
        let mut presync = self.sync_on_next_call;
        for chunk in fps.chunks(CHUNK) {
            self.insert_chunk(chunk, new, presync)?;
            presync = false;
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.answered
    }

    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.touched.capacity() + self.ahead.capacity()
    }

    /// A warning when the server evicts keys, or when sampled buckets have outgrown Redis's
    /// listpack limit (checked at open, and once a lease period at a sync).
    fn report(&self) -> crate::SetReport {
        crate::SetReport {
            warning: self.health_warning(),
            ..crate::SetReport::default()
        }
    }

    fn sync(&mut self) -> Result<()> {
        self.check()?;
        if self.unsynced > 0 || self.single_log || self.touched.iter().any(|t| *t) {
            let mut cmds = self.sync_cmds();
            let renew = cmds.len();
            cmds.extend(self.renew_cmds());
            let answers = self.call("sync", cmds)?;
            self.synced();
            self.last_renew = Instant::now();
            if answers.get(renew).map(int) != Some(1) {
                return Err(self.lease_lost());
            }
        }
        if self.last_reclaim.elapsed() >= self.url.lease {
            self.reclaim_expired()?;
            self.check_health()?;
        }
        Ok(())
    }

    fn unsynced(&self) -> u64 {
        self.unsynced
    }

    /// On one server, sends the claims and reads the answers of the batch submitted before
    /// (so the server claims while the caller writes); a sync records only the answers
    /// returned. On a cluster, or with [`sync_on_next_call`](RedisSet::sync_on_next_call),
    /// answers at once.
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        held: usize,
        answers: &mut std::collections::VecDeque<bool>,
    ) -> Result<()> {
        let _ = held;
        if self.sends_ahead() {
            return self.submit_ahead(fps, answers);
        }
        let mut new = Vec::with_capacity(fps.len());
        self.insert_batch(fps, &mut new)?;
        self.answer_rest_ahead(answers)?;
        answers.extend(new);
        Ok(())
    }

    fn answer_rest(&mut self, answers: &mut std::collections::VecDeque<bool>) -> Result<()> {
        self.answer_rest_ahead(answers)
    }
}

/// Makes the set's `meta` once (format, fingerprint version, identity, layout) and answers
/// what it holds.
const META_SCRIPT: &str = "if redis.call('EXISTS', KEYS[1]) == 0 then \
    redis.call('HSET', KEYS[1], 'format', ARGV[1], 'fingerprint_version', ARGV[2], \
      'identity', ARGV[3], 'shards', ARGV[4], 'buckets', ARGV[5]) \
  end \
  return redis.call('HMGET', KEYS[1], 'format', 'fingerprint_version', 'identity', 'shards', \
    'buckets')";

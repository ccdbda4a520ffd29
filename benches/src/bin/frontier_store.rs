//! The persistent seen-set at crawl scale (issue 31): a store of N keys (1e7, 1e8, 1e9), filled
//! by `bulk_load` with sorted uniform random fingerprints (exponential gaps, so nothing is
//! sorted), then requests of one key (`add` per request, the Scrapy `DupeFilter` pattern) and
//! batches of 256 (one page's outlinks), with 0 % and 50 % of the keys already in the store,
//! under the commit policies `every`, `10000` and `1s`. Against SQLite `INSERT OR IGNORE`
//! (WAL, `synchronous=NORMAL`, a commit per call, `fingerprint BLOB PRIMARY KEY` WITHOUT
//! ROWID: the design of scrapy PR #7952) at the same size. Prints keys/s, RSS bytes per key
//! and disk bytes per key.
//!
//! `cargo run --release -p linksieve-benches --bin frontier_store -- --keys 1e8 [--kind
//! linksieve|sqlite] [--dir DIR] [--requests N] [--batches N] [--keep] [--read-threads N]`
//! (defaults: linksieve, the system's temporary folder, 200,000 requests, 2,000 batches, the
//! store's default read threads). `--keep` keeps the store (and reuses one of the right size).
//! Run one kind per process, so that RSS is its own.

use linksieve_benches::{random_u128, splitmix};
use linksieve_dedup::{
    CommitPolicy, Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `n` strictly increasing uniform random fingerprints: exponential gaps of mean `2^128 / n`
/// (a little less, so the sum stays below `2^128`); every `every`-th one is kept in `sample`.
struct Sorted {
    left: u64,
    pos: u128,
    gap: f64,
    rng: u64,
    every: u64,
    i: u64,
    sample: Vec<Fingerprint>,
}

impl Sorted {
    fn new(n: u64, samples: u64) -> Sorted {
        Sorted {
            left: n,
            pos: 0,
            gap: 2f64.powi(128) / (n as f64 * 1.001 + 1000.0),
            rng: 42,
            every: (n / samples).max(1),
            i: 0,
            sample: Vec::new(),
        }
    }
}

impl Iterator for Sorted {
    type Item = Fingerprint;
    fn next(&mut self) -> Option<Fingerprint> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let u = ((splitmix(&mut self.rng) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        self.pos += (-u.ln() * self.gap) as u128 + 1;
        let fp = Fingerprint(self.pos);
        self.i += 1;
        if self.i.is_multiple_of(self.every) {
            self.sample.push(fp);
        }
        Some(fp)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// The files' lengths, and the disk blocks they hold (redb grows its file by doubling, with a
/// sparse tail).
fn file_bytes(paths: &[PathBuf]) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .fold((0, 0), |(l, b), m| (l + m.len(), b + m.blocks() * 512))
}

/// The files of a persistent store: its database file and its run files.
fn store_paths(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(PersistentSet::runs_folder(path)) {
        out.extend(rd.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    out
}

/// Removes a persistent store: its file and its folder of runs.
fn remove_store(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(PersistentSet::runs_folder(path));
}

/// The keys of one call: `size` keys, each with probability `known` drawn from the sample of
/// stored keys, else fresh.
fn keys(rng: &mut u64, size: usize, known: f64, sample: &[Fingerprint]) -> Vec<Fingerprint> {
    (0..size)
        .map(|_| {
            let r = splitmix(rng);
            if ((r >> 11) as f64 / (1u64 << 53) as f64) < known {
                sample[(splitmix(rng) % sample.len() as u64) as usize]
            } else {
                Fingerprint(random_u128(rng))
            }
        })
        .collect()
}

/// What one measured phase gives: keys/s over the calls, syncs and their mean time.
struct Phase {
    keys: u64,
    secs: f64,
    syncs: u64,
    sync_secs: f64,
    new: u64,
    /// Read system calls made during the phase (`syscr` of `/proc/self/io`): a lookup that
    /// the store's caches miss costs one a page.
    reads: u64,
}

/// The process's read system calls so far (`syscr` of `/proc/self/io`; 0 where there is none).
fn read_calls() -> u64 {
    let s = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("syscr:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

fn phase_linksieve(
    set: &mut PersistentSet,
    policy: CommitPolicy,
    calls: usize,
    size: usize,
    known: f64,
    rng: &mut u64,
    sample: &[Fingerprint],
) -> Phase {
    let input: Vec<Vec<Fingerprint>> = (0..calls).map(|_| keys(rng, size, known, sample)).collect();
    let mut new = Vec::new();
    let (mut syncs, mut sync_secs, mut fresh) = (0u64, 0.0, 0u64);
    let reads = read_calls();
    let t = Instant::now();
    let mut since = Instant::now();
    for fps in &input {
        set.insert_batch(fps, &mut new).expect("insert");
        fresh += new.iter().filter(|&&n| n).count() as u64;
        // The caller delivers the new keys here, then syncs when the policy says so.
        if policy.due(set.unsynced(), since.elapsed()) {
            let s = Instant::now();
            set.sync().expect("sync");
            sync_secs += s.elapsed().as_secs_f64();
            syncs += 1;
            since = Instant::now();
        }
    }
    let s = Instant::now();
    if set.unsynced() > 0 {
        set.sync().expect("sync");
        syncs += 1;
    }
    sync_secs += s.elapsed().as_secs_f64();
    Phase {
        keys: (calls * size) as u64,
        secs: t.elapsed().as_secs_f64(),
        syncs,
        sync_secs,
        new: fresh,
        reads: read_calls() - reads,
    }
}

fn phase_sqlite(
    conn: &rusqlite::Connection,
    calls: usize,
    size: usize,
    known: f64,
    rng: &mut u64,
    sample: &[Fingerprint],
) -> Phase {
    let input: Vec<Vec<Fingerprint>> = (0..calls).map(|_| keys(rng, size, known, sample)).collect();
    let mut stmt = conn
        .prepare_cached("INSERT OR IGNORE INTO seen (fingerprint) VALUES (?1)")
        .expect("prepare");
    let mut fresh = 0u64;
    let reads = read_calls();
    let t = Instant::now();
    for fps in &input {
        // One transaction (one commit) per call.
        if size > 1 {
            conn.execute_batch("BEGIN").expect("begin");
        }
        for fp in fps {
            fresh += stmt.execute([&fp.0.to_be_bytes()[..]]).expect("insert") as u64;
        }
        if size > 1 {
            conn.execute_batch("COMMIT").expect("commit");
        }
    }
    Phase {
        keys: (calls * size) as u64,
        secs: t.elapsed().as_secs_f64(),
        syncs: calls as u64,
        sync_secs: 0.0,
        new: fresh,
        reads: read_calls() - reads,
    }
}

fn report(what: &str, p: &Phase) {
    let per_sync = if p.syncs > 0 {
        format!("{:.2} ms", p.sync_secs * 1e3 / p.syncs as f64)
    } else {
        "-".into()
    };
    println!(
        "| {what} | {} | {} | {:.3} | {:.0} | {} | {per_sync} | {:.2} |",
        p.keys,
        p.new,
        p.secs,
        p.keys as f64 / p.secs,
        p.syncs,
        p.reads as f64 / p.keys as f64
    );
}

fn header() {
    println!("| phase | keys | new | seconds | keys/s | commits | mean sync | reads/key |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
}

fn run_linksieve(
    path: &Path,
    n: u64,
    requests: usize,
    batches: usize,
    keep: bool,
    read_threads: usize,
) {
    let id = StoreIdentity::new("bench fingerprint 0");
    let mut stream = Sorted::new(n, 200_000);
    let reuse = keep
        && PersistentSet::open(path, &id, PersistentOptions::default())
            .map(|s| s.len() >= n)
            .unwrap_or(false);
    if reuse {
        // The same stream again, only for its sample.
        for _ in stream.by_ref() {}
        println!("reused the store at {}", path.display());
    } else {
        remove_store(path);
        let mut set = PersistentSet::open(path, &id, PersistentOptions::default()).expect("open");
        let t = Instant::now();
        let loaded = set.bulk_load(stream.by_ref()).expect("bulk load");
        let secs = t.elapsed().as_secs_f64();
        let (disk, used) = file_bytes(&store_paths(path));
        println!(
            "fill (bulk_load): {loaded} keys in {secs:.1} s = {:.0} keys/s; files {disk} B, \
             allocated {used} B = {:.2} B/key",
            loaded as f64 / secs,
            used as f64 / loaded as f64
        );
        set.finish().expect("finish");
    }
    let sample = std::mem::take(&mut stream.sample);
    let rss0 = rss_bytes();
    let t = Instant::now();
    let options = PersistentOptions {
        read_threads,
        ..PersistentOptions::default()
    };
    let mut set = PersistentSet::open(path, &id, options).expect("open");
    let open_secs = t.elapsed().as_secs_f64();
    let len = set.len();
    println!(
        "open (filter built from the runs): {open_secs:.2} s; RSS {} B after open ({:.3} B/key \
         over the process before it); {} runs",
        rss_bytes(),
        (rss_bytes() - rss0) as f64 / len as f64,
        set.runs()
    );
    // Stored keys only, one a call: what a lookup that the filter cannot answer costs (the
    // first call opens the read transaction that the next ones keep).
    let mut new = Vec::new();
    let mut order: Vec<Fingerprint> = sample.clone();
    let mut r = 11u64;
    for i in (1..order.len()).rev() {
        order.swap(i, (splitmix(&mut r) % (i as u64 + 1)) as usize);
    }
    let reads = read_calls();
    let t = Instant::now();
    for fp in &order {
        set.insert_batch(std::slice::from_ref(fp), &mut new)
            .expect("insert");
        assert_eq!(new, [false], "a stored key answered new");
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "stored keys looked up one a call: {} in {secs:.3} s = {:.2} us each, {:.2} reads each",
        sample.len(),
        secs * 1e6 / sample.len() as f64,
        (read_calls() - reads) as f64 / sample.len() as f64
    );
    header();
    let mut rng = 7u64;
    for (name, policy, reqs) in [
        ("every", CommitPolicy::EVERY, requests / 100),
        ("10000", "10000".parse().unwrap(), requests),
        ("1s", "1s".parse().unwrap(), requests),
    ] {
        for known in [0.0, 0.5] {
            let p = phase_linksieve(&mut set, policy, reqs.max(100), 1, known, &mut rng, &sample);
            report(
                &format!("request, {}% known, sync {name}", known * 100.0),
                &p,
            );
        }
        for known in [0.0, 0.5] {
            let calls = if name == "every" {
                batches / 10
            } else {
                batches
            };
            let p = phase_linksieve(
                &mut set,
                policy,
                calls.max(10),
                256,
                known,
                &mut rng,
                &sample,
            );
            report(
                &format!("batch 256, {}% known, sync {name}", known * 100.0),
                &p,
            );
        }
    }
    let len = set.len();
    let (disk, used) = file_bytes(&store_paths(path));
    let rss = rss_bytes();
    println!(
        "store: {len} keys, {} runs; files (database and runs) {disk} B = {:.2} B/key, allocated {used} B = {:.2} \
         B/key; RSS {rss} B = {:.3} B/key; memory_bytes {} (filter and buffers plus the cache \
         limit or file size)",
        set.runs(),
        disk as f64 / len as f64,
        used as f64 / len as f64,
        rss as f64 / len as f64,
        set.memory_bytes()
    );
    set.finish().expect("finish");
    if !keep {
        remove_store(path);
    }
}

fn run_sqlite(path: &Path, n: u64, requests: usize, batches: usize, keep: bool) {
    let files = [
        path.to_path_buf(),
        path.with_extension("sqlite-wal"),
        path.with_extension("sqlite-shm"),
    ];
    let mut stream = Sorted::new(n, 200_000);
    let exists = keep && path.exists();
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.pragma_update(None, "synchronous", "NORMAL")
        .expect("normal");
    if exists {
        for _ in stream.by_ref() {}
        println!("reused the database at {}", path.display());
    } else {
        conn.execute_batch("CREATE TABLE seen (fingerprint BLOB PRIMARY KEY) WITHOUT ROWID")
            .expect("create");
        let t = Instant::now();
        let mut done = 0u64;
        loop {
            conn.execute_batch("BEGIN").expect("begin");
            {
                let mut stmt = conn
                    .prepare_cached("INSERT INTO seen (fingerprint) VALUES (?1)")
                    .expect("prepare");
                for fp in stream.by_ref().take(1_000_000) {
                    stmt.execute([&fp.0.to_be_bytes()[..]]).expect("insert");
                    done += 1;
                }
            }
            conn.execute_batch("COMMIT").expect("commit");
            if done >= n {
                break;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "fill (sorted INSERTs, 1e6 per transaction): {done} keys in {secs:.1} s = {:.0} keys/s",
            done as f64 / secs
        );
    }
    let sample = std::mem::take(&mut stream.sample);
    header();
    let mut rng = 7u64;
    for known in [0.0, 0.5] {
        let p = phase_sqlite(&conn, requests / 10, 1, known, &mut rng, &sample);
        report(
            &format!("request, {}% known, commit per call", known * 100.0),
            &p,
        );
    }
    for known in [0.0, 0.5] {
        let p = phase_sqlite(&conn, batches, 256, known, &mut rng, &sample);
        report(
            &format!("batch 256, {}% known, commit per call", known * 100.0),
            &p,
        );
    }
    let (disk, used) = file_bytes(&files);
    let rss = rss_bytes();
    println!(
        "database: ~{n} keys; files {disk} B, allocated {used} B = {:.2} B/key (with the WAL); \
         RSS {rss} B = {:.3} B/key",
        used as f64 / n as f64,
        rss as f64 / n as f64
    );
    drop(conn);
    if !keep {
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
    }
}

fn main() {
    let mut n = 10_000_000u64;
    let mut kind = "linksieve".to_string();
    let mut dir = std::env::temp_dir();
    let mut requests = 200_000usize;
    let mut batches = 2_000usize;
    let mut keep = false;
    let mut read_threads = 0usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--keep" {
            keep = true;
            continue;
        }
        let v = args.next().expect("value");
        match a.as_str() {
            "--keys" => n = v.parse::<f64>().expect("N") as u64,
            "--kind" => kind = v,
            "--dir" => dir = v.into(),
            "--requests" => requests = v.parse::<f64>().expect("N") as usize,
            "--batches" => batches = v.parse::<f64>().expect("N") as usize,
            "--read-threads" => read_threads = v.parse().expect("N"),
            _ => panic!("unknown option {a}"),
        }
    }
    println!("{kind}, {n} keys");
    match kind.as_str() {
        "linksieve" => run_linksieve(
            &dir.join(format!("frontier-{n}.redb")),
            n,
            requests,
            batches,
            keep,
            read_threads,
        ),
        "sqlite" => run_sqlite(
            &dir.join(format!("frontier-{n}.sqlite")),
            n,
            requests,
            batches,
            keep,
        ),
        other => panic!("unknown kind {other}"),
    }
}

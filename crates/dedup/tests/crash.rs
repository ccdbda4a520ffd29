//! The persistent set's crash contract, tested with real `kill -9`s.
//!
//! The test binary re-invokes itself (`crash_child`, active only when the environment variable
//! below is set) as a child that inserts a fixed input in batches, prints each batch's new keys
//! (as a pipeline writing them to its output would), and only then syncs (every batch, or
//! every few batches): delivered before recorded. The parent kills the child with SIGKILL at
//! random moments, or at a pause it asks for (between a batch's answer and its sync, or just
//! after the sync), then checks that every key in the store was printed, that every key
//! printed and synced is in the store, that only keys unsynced at a kill are printed twice,
//! and that a rerun over the same input completes the store and the union of all outputs.
#![cfg(unix)]

use linksieve_dedup::{
    Abandoned, Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity,
};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "LINKSIEVE_DEDUP_CRASH_CHILD";
const POLICY_ENV: &str = "LINKSIEVE_DEDUP_CRASH_POLICY";
/// Sync after this many batches (default 1).
const SYNC_ENV: &str = "LINKSIEVE_DEDUP_CRASH_SYNC_EVERY";
/// `before:K` or `after:K`: print `PAUSED` and wait (to be killed) before or after the sync
/// that follows batch K.
const PAUSE_ENV: &str = "LINKSIEVE_DEDUP_CRASH_PAUSE";
const BATCH: usize = 1000;

/// The input: 20,000 keys drawn from 13,000 distinct ones (about a third are repeats).
fn input() -> Vec<Fingerprint> {
    let mut st = 12345u64;
    (0..20_000)
        .map(|_| {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (st >> 33) % 13_000;
            Fingerprint::of(format!("http://example.com/page/{k}").as_bytes())
        })
        .collect()
}

fn identity() -> StoreIdentity {
    StoreIdentity::new("scheme uri 0")
}

fn options(abandoned: Abandoned) -> PersistentOptions {
    PersistentOptions {
        abandoned,
        cache_bytes: 16 << 20,
        ..Default::default()
    }
}

/// Where a child waits to be killed: before or after the sync that follows a batch.
#[derive(Clone, Copy, PartialEq)]
enum Pause {
    Before(usize),
    After(usize),
}

/// One run over the input: answer each batch, "write" its new keys and flush, then sync every
/// `sync_every` batches (delivered before recorded).
fn run(
    store: &Path,
    abandoned: Abandoned,
    sync_every: usize,
    pause: Option<Pause>,
    out: &mut dyn Write,
) -> Vec<Fingerprint> {
    let mut set = PersistentSet::open(store, &identity(), options(abandoned)).unwrap();
    let mut new = Vec::new();
    let mut emitted = Vec::new();
    let paused = |out: &mut dyn Write| {
        writeln!(out, "PAUSED").unwrap();
        out.flush().unwrap();
        std::thread::sleep(Duration::from_secs(60));
        panic!("not killed");
    };
    for (b, chunk) in input().chunks(BATCH).enumerate() {
        set.insert_batch(chunk, &mut new).unwrap();
        for (fp, _) in chunk.iter().zip(&new).filter(|(_, n)| **n) {
            writeln!(out, "KEY {:032x}", fp.0).unwrap();
            emitted.push(*fp);
        }
        out.flush().unwrap();
        if pause == Some(Pause::Before(b)) {
            paused(out);
        }
        // Delivered: only now may the keys be recorded.
        if (b + 1) % sync_every == 0 {
            set.sync().unwrap();
        }
        if pause == Some(Pause::After(b)) {
            paused(out);
        }
    }
    set.finish().unwrap();
    writeln!(out, "DONE").unwrap();
    out.flush().unwrap();
    emitted
}

/// The child: run only by the parent tests, which re-invoke this binary with `--ignored`
/// (ignored otherwise, so that it never counts as a test that passed without doing anything).
#[test]
#[ignore = "the crash tests' child process: they run it"]
fn crash_child() {
    let Ok(store) = std::env::var(CHILD_ENV) else {
        return;
    };
    let abandoned = match std::env::var(POLICY_ENV).as_deref() {
        Ok("new") => Abandoned::New,
        _ => Abandoned::Seen,
    };
    let sync_every = std::env::var(SYNC_ENV).map_or(1, |v| v.parse().unwrap());
    let pause = std::env::var(PAUSE_ENV).ok().map(|v| {
        let (when, k) = v.split_once(':').unwrap();
        let k = k.parse().unwrap();
        if when == "before" {
            Pause::Before(k)
        } else {
            Pause::After(k)
        }
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    run(Path::new(&store), abandoned, sync_every, pause, &mut out);
}

struct ChildRun {
    printed: Vec<Fingerprint>,
    done: bool,
    /// When the parent read the first key and `DONE`, from the spawn.
    first_key: Option<Duration>,
    finished: Option<Duration>,
}

/// Runs the child on `store` (syncing every `sync_every` batches) and SIGKILLs it after
/// `delay` (unless it finished first).
fn child(store: &Path, policy: &str, sync_every: usize, delay: Option<Duration>) -> ChildRun {
    child_with(store, policy, sync_every, None, delay)
}

/// [`child`], optionally told to pause (and then killed at the pause).
fn child_with(
    store: &Path,
    policy: &str,
    sync_every: usize,
    pause: Option<&str>,
    delay: Option<Duration>,
) -> ChildRun {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([
        "crash::crash_child",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ENV, store)
    .env(POLICY_ENV, policy)
    .env(SYNC_ENV, sync_every.to_string())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    if let Some(p) = pause {
        cmd.env(PAUSE_ENV, p);
    }
    let spawned = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let (mut s, mut first_key, mut finished) = (String::new(), None, None);
        for line in std::io::BufReader::new(stdout).lines() {
            let line = line.unwrap();
            // The harness's "test crash_child ... " may precede the child's first line.
            if line.ends_with("PAUSED") {
                let _ = tx.send(());
            }
            if first_key.is_none() && line.contains("KEY ") {
                first_key = Some(spawned.elapsed());
            }
            if line == "DONE" {
                finished = Some(spawned.elapsed());
            }
            s.push_str(&line);
            s.push('\n');
        }
        (s, first_key, finished)
    });
    if pause.is_some() {
        rx.recv_timeout(Duration::from_secs(120))
            .expect("the child never paused");
        child.kill().unwrap();
    } else if let Some(d) = delay {
        std::thread::sleep(d);
        child.kill().unwrap(); // SIGKILL; fine if it already exited
    }
    child.wait().unwrap();
    let (text, first_key, finished) = reader.join().unwrap();
    let mut printed = Vec::new();
    let mut done = false;
    for line in text.lines() {
        // The harness's "test crash_child ... " may precede the child's first line.
        if let Some(hex) = line.find("KEY ").map(|at| &line[at + 4..]) {
            // A line cut by the kill is not a key that was written.
            if hex.len() == 32 {
                printed.push(Fingerprint(u128::from_str_radix(hex, 16).unwrap()));
            }
        } else if line == "DONE" {
            done = true;
        }
    }
    ChildRun {
        printed,
        done,
        first_key,
        finished,
    }
}

fn store_keys(store: &Path) -> HashSet<Fingerprint> {
    // Opening starts (and leaves unfinished) a run: harmless, it commits nothing.
    let set = PersistentSet::open(store, &identity(), options(Abandoned::Seen)).unwrap();
    set.fingerprints().unwrap().into_iter().collect()
}

/// Kill delays spread over the time a full child run spends writing keys (measured once: from
/// its first key to its `DONE`, as the parent reads them), not over its start-up: an optimized
/// child starts in about the time it takes to write every key, and delays drawn over the whole
/// run then often missed the writing.
fn delays(n: usize, seed: u64) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let full = child(&dir.path().join("probe.redb"), "seen", 1, None);
    assert!(full.done, "the child did not complete an uninterrupted run");
    let (first, done) = (full.first_key.unwrap(), full.finished.unwrap());
    let window = done.saturating_sub(first).as_secs_f64();
    let mut st = seed;
    (0..n)
        .map(|_| {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let f = 0.05 + 0.9 * ((st >> 11) as f64 / (1u64 << 53) as f64);
            first + Duration::from_secs_f64(window * f)
        })
        .collect()
}

/// Kills at random moments (three per store, in a row: each run resumes the killed one), then
/// a rerun to the end, with a sync every `sync_every` batches. Checks the contract after each
/// kill and at the end; returns how many kills landed in the middle of a run.
fn kills_then_rerun(sync_every: usize, delays: &[Duration]) -> usize {
    let unique: HashSet<Fingerprint> = input().into_iter().collect();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("seen.redb");
    // Every key printed by any run, and how many were printed twice.
    let mut printed_all = HashSet::new();
    let mut twice = 0;
    let mut mid_run = 0;
    let mut kills = 0;
    for delay in delays {
        let r = child(&store, "seen", sync_every, Some(*delay));
        mid_run += usize::from(!r.printed.is_empty() && !r.done);
        kills += usize::from(!r.done);
        let in_store = store_keys(&store);
        let mut unsynced = 0;
        for fp in &r.printed {
            unsynced += usize::from(!in_store.contains(fp));
            twice += usize::from(!printed_all.insert(*fp));
        }
        // Keys printed but not recorded: at most the batches since the last sync.
        assert!(
            unsynced <= sync_every * BATCH,
            "{unsynced} printed keys unsynced"
        );
        // Delivered before recorded: the store holds only keys some run printed.
        let undelivered = in_store.difference(&printed_all).count();
        assert_eq!(undelivered, 0, "keys recorded but never printed");
        if r.done {
            break;
        }
    }
    // The rerun completes the store, and the union of all outputs is every key.
    let before = store_keys(&store);
    let emitted = run(
        &store,
        Abandoned::Seen,
        sync_every,
        None,
        &mut std::io::sink(),
    );
    let emitted_set: HashSet<Fingerprint> = emitted.iter().copied().collect();
    assert_eq!(
        emitted.len(),
        emitted_set.len(),
        "a key written twice by one run"
    );
    let expected: HashSet<Fingerprint> = unique.difference(&before).copied().collect();
    assert_eq!(
        emitted_set, expected,
        "the rerun writes exactly what the store lacked"
    );
    twice += emitted_set.intersection(&printed_all).count();
    printed_all.extend(emitted_set);
    assert_eq!(printed_all, unique, "a key never written by any run");
    assert_eq!(store_keys(&store), unique);
    // Only keys unsynced at a kill are written twice.
    assert!(
        twice <= kills * sync_every * BATCH,
        "{twice} keys written twice after {kills} kills"
    );
    mid_run
}

#[test]
fn kill_9_never_loses_a_key_and_a_rerun_catches_up() {
    let delays = delays(6, 7);
    let mut mid_run = kills_then_rerun(1, &delays[..3]);
    mid_run += kills_then_rerun(3, &delays[3..]);
    assert!(mid_run > 0, "no kill landed in the middle of a run");
}

#[test]
fn killed_between_answer_and_sync_the_keys_are_new_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("seen.redb");
    // Killed after printing batch 4, before its sync: batches 0..4 are recorded, 4 is not.
    let r = child_with(&store, "seen", 1, Some("before:4"), None);
    assert!(!r.done);
    let in_store = store_keys(&store);
    let input = input();
    let mut first = HashSet::new();
    let synced: HashSet<Fingerprint> = input[..4 * BATCH]
        .iter()
        .copied()
        .filter(|f| first.insert(*f))
        .collect();
    let unsynced: HashSet<Fingerprint> = input[4 * BATCH..5 * BATCH]
        .iter()
        .copied()
        .filter(|f| first.insert(*f))
        .collect();
    assert!(!unsynced.is_empty());
    assert_eq!(
        (in_store.len(), in_store.difference(&synced).count()),
        (synced.len(), 0)
    );
    let printed: HashSet<Fingerprint> = r.printed.iter().copied().collect();
    assert_eq!(printed, &synced | &unsynced);
    // The rerun answers the unsynced keys new again (and no synced one).
    let emitted: HashSet<Fingerprint> = run(&store, Abandoned::Seen, 1, None, &mut std::io::sink())
        .into_iter()
        .collect();
    assert!(unsynced.is_subset(&emitted));
    assert!(emitted.is_disjoint(&synced));
    assert_eq!(&emitted | &synced, input.iter().copied().collect());
}

#[test]
fn killed_just_after_a_sync_nothing_is_written_twice() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("seen.redb");
    let r = child_with(&store, "seen", 1, Some("after:4"), None);
    assert!(!r.done);
    let printed: HashSet<Fingerprint> = r.printed.iter().copied().collect();
    assert_eq!(store_keys(&store), printed);
    let emitted: HashSet<Fingerprint> = run(&store, Abandoned::Seen, 1, None, &mut std::io::sink())
        .into_iter()
        .collect();
    assert!(emitted.is_disjoint(&printed));
    assert_eq!(&emitted | &printed, input().into_iter().collect());
}

#[test]
fn kill_9_then_rerun_with_abandoned_new_writes_every_key_once() {
    let unique: HashSet<Fingerprint> = input().into_iter().collect();
    let delays = delays(2, 99);
    for delay in delays {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("seen.redb");
        let killed = child(&store, "new", 1, Some(delay));
        let in_store = store_keys(&store);
        let printed: HashSet<Fingerprint> = killed.printed.iter().copied().collect();
        assert!(in_store.is_subset(&printed), "recorded but never printed");
        if killed.done {
            continue;
        }
        // The killed run's output is discarded (atomic output): the rerun writes everything,
        // unless the kill landed after the run had finished (its store complete) and before it
        // said DONE: then the killed run's output was whole, and the rerun writes nothing.
        let emitted = run(&store, Abandoned::New, 1, None, &mut std::io::sink());
        let emitted_set: HashSet<Fingerprint> = emitted.iter().copied().collect();
        assert_eq!(emitted.len(), emitted_set.len(), "a key written twice");
        if emitted.is_empty() {
            assert_eq!(
                in_store, unique,
                "the rerun wrote nothing, the store lacks keys"
            );
            assert_eq!(
                printed, unique,
                "the rerun wrote nothing after an unfinished run"
            );
        } else {
            assert_eq!(emitted_set, unique);
        }
        // Finished: a third run writes nothing.
        assert!(run(&store, Abandoned::New, 1, None, &mut std::io::sink()).is_empty());
    }
}

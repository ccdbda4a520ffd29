//! The persistent set's crash contract, tested with real `kill -9`s.
//!
//! The test binary re-invokes itself (`crash_child`, active only when the environment variable
//! below is set) as a child that inserts a fixed input in batches and, after each commit, prints
//! the batch's new keys, as a pipeline writing them to its output would. The parent kills the
//! child with SIGKILL at random moments, then checks that every key the child printed is in the
//! store, that no key is printed twice across runs, and that a rerun over the same input
//! completes the store.
#![cfg(unix)]

use linksieve_dedup::{
    Abandoned, Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity,
};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "LINKSIEVE_DEDUP_CRASH_CHILD";
const POLICY_ENV: &str = "LINKSIEVE_DEDUP_CRASH_POLICY";
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
    }
}

/// One run over the input: commit each batch, then "write" its new keys.
fn run(store: &Path, abandoned: Abandoned, out: &mut dyn Write) -> Vec<Fingerprint> {
    let mut set = PersistentSet::open(store, &identity(), options(abandoned)).unwrap();
    let mut new = Vec::new();
    let mut emitted = Vec::new();
    for chunk in input().chunks(BATCH) {
        set.insert_batch(chunk, &mut new).unwrap();
        // Committed: only now may the keys be written as new.
        for (fp, _) in chunk.iter().zip(&new).filter(|(_, n)| **n) {
            writeln!(out, "KEY {:032x}", fp.0).unwrap();
            emitted.push(*fp);
        }
        out.flush().unwrap();
    }
    set.finish().unwrap();
    writeln!(out, "DONE").unwrap();
    out.flush().unwrap();
    emitted
}

/// The child: active only when re-invoked by the parent test.
#[test]
fn crash_child() {
    let Ok(store) = std::env::var(CHILD_ENV) else {
        return;
    };
    let abandoned = match std::env::var(POLICY_ENV).as_deref() {
        Ok("new") => Abandoned::New,
        _ => Abandoned::Seen,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    run(Path::new(&store), abandoned, &mut out);
}

struct ChildRun {
    printed: Vec<Fingerprint>,
    done: bool,
}

/// Runs the child on `store` and SIGKILLs it after `delay` (unless it finished first).
fn child(store: &Path, policy: &str, delay: Option<Duration>) -> ChildRun {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["crash_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, store)
        .env(POLICY_ENV, policy)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).unwrap();
        s
    });
    if let Some(d) = delay {
        std::thread::sleep(d);
        child.kill().unwrap(); // SIGKILL; fine if it already exited
    }
    child.wait().unwrap();
    let text = reader.join().unwrap();
    let mut printed = Vec::new();
    let mut done = false;
    for line in text.lines() {
        if let Some(hex) = line.strip_prefix("KEY ") {
            // A line cut by the kill is not a key that was written.
            if hex.len() == 32 {
                printed.push(Fingerprint(u128::from_str_radix(hex, 16).unwrap()));
            }
        } else if line == "DONE" {
            done = true;
        }
    }
    ChildRun { printed, done }
}

fn store_keys(store: &Path) -> HashSet<Fingerprint> {
    // Opening starts (and leaves unfinished) a run: harmless, it commits nothing.
    let set = PersistentSet::open(store, &identity(), options(Abandoned::Seen)).unwrap();
    set.fingerprints().unwrap().into_iter().collect()
}

/// Kill delays spread over the time a full child run takes (measured once).
fn delays(n: usize, seed: u64) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let full = child(&dir.path().join("probe.redb"), "seen", None);
    assert!(full.done, "the child did not complete an uninterrupted run");
    let total = t.elapsed().as_secs_f64();
    let mut st = seed;
    (0..n)
        .map(|_| {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let f = 0.05 + 0.9 * ((st >> 11) as f64 / (1u64 << 53) as f64);
            Duration::from_secs_f64(total * f)
        })
        .collect()
}

#[test]
fn kill_9_never_loses_an_emitted_key_and_a_rerun_catches_up() {
    let unique: HashSet<Fingerprint> = input().into_iter().collect();
    let delays = delays(6, 7);
    let mut mid_run_kills = 0;
    // Two stores, three kills each, in a row: every run is a rerun of the killed one.
    for store_no in 0..2 {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("seen.redb");
        let mut printed_all = HashSet::new();
        let mut kills = 0;
        for delay in &delays[store_no * 3..store_no * 3 + 3] {
            let r = child(&store, "seen", Some(*delay));
            if !r.printed.is_empty() && !r.done {
                mid_run_kills += 1;
            }
            kills += 1;
            let in_store = store_keys(&store);
            for fp in &r.printed {
                assert!(
                    in_store.contains(fp),
                    "printed key {fp:?} lost from the store"
                );
                // Abandoned::Seen: no key is ever written as new twice.
                assert!(printed_all.insert(*fp), "key {fp:?} written twice");
            }
            if r.done {
                break;
            }
        }
        // The rerun completes the store and writes exactly the keys it lacked.
        let before = store_keys(&store);
        let emitted = run(&store, Abandoned::Seen, &mut std::io::sink());
        let emitted_set: HashSet<Fingerprint> = emitted.iter().copied().collect();
        assert_eq!(emitted.len(), emitted_set.len());
        assert!(emitted_set.is_disjoint(&printed_all));
        let expected: HashSet<Fingerprint> = unique.difference(&before).copied().collect();
        assert_eq!(emitted_set, expected);
        assert_eq!(store_keys(&store), unique);
        // Keys committed but never written: at most the batch in flight at each kill.
        let lost = unique.len() - printed_all.len() - emitted_set.len();
        assert!(
            lost <= kills * BATCH,
            "{lost} keys committed but never written"
        );
    }
    assert!(mid_run_kills > 0, "no kill landed in the middle of a run");
}

#[test]
fn kill_9_then_rerun_with_abandoned_new_writes_every_key_once() {
    let unique: HashSet<Fingerprint> = input().into_iter().collect();
    let delays = delays(2, 99);
    for delay in delays {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("seen.redb");
        let killed = child(&store, "new", Some(delay));
        let in_store = store_keys(&store);
        assert!(killed.printed.iter().all(|fp| in_store.contains(fp)));
        if killed.done {
            continue;
        }
        // The killed run's output is discarded (atomic output): the rerun writes everything.
        let emitted = run(&store, Abandoned::New, &mut std::io::sink());
        let emitted_set: HashSet<Fingerprint> = emitted.iter().copied().collect();
        assert_eq!(emitted.len(), emitted_set.len(), "a key written twice");
        assert_eq!(emitted_set, unique);
        // Finished: a third run writes nothing.
        assert!(run(&store, Abandoned::New, &mut std::io::sink()).is_empty());
    }
}

//! `RedisSet` against real redis-server processes (tests/redis_support): answers against a
//! `HashSet` and against what `redis-cli HKEYS` finds on the server, a 3-node cluster, four
//! processes at once, a process killed before `sync`, a run idle longer than its lease, a
//! server that closes idle connections, a set past its layout, a server that evicts keys,
//! connections killed on the server, a server killed and restarted, a stalled server, a wrong
//! identity.
#![cfg(unix)]

use crate::redis_support;

use linksieve_dedup::{DedupError, Fingerprint, RedisSet, SeenSet};
use redis_support::{Cluster, Server};
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "LINKSIEVE_REDIS_CHILD";
const ID: &str = "scheme uri 0";

/// `n` keys drawn from `distinct` distinct ones, from `seed`.
fn input(seed: u64, n: usize, distinct: u64) -> Vec<Fingerprint> {
    let mut st = seed;
    (0..n)
        .map(|_| {
            st = st
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Fingerprint::of(format!("http://example.com/{}", (st >> 33) % distinct).as_bytes())
        })
        .collect()
}

/// `n` distinct keys, from `seed`.
fn distinct(seed: u64, n: usize) -> Vec<Fingerprint> {
    (0..n)
        .map(|i| Fingerprint::of(format!("http://example.org/{seed}/{i}").as_bytes()))
        .collect()
}

/// Compares two sets of fingerprints, with a short message.
fn same(got: &HashSet<u128>, want: &HashSet<u128>, what: &str) {
    let extra = got.difference(want).count();
    let missing = want.difference(got).count();
    assert!(
        extra == 0 && missing == 0,
        "{what}: {} keys, {extra} unexpected, {missing} missing of {}",
        got.len(),
        want.len()
    );
}

/// The set `prefix` on the server (read with `redis-cli`) holds exactly the keys of `parts`.
fn server_holds(server: &Server, prefix: &str, parts: &[&[Fingerprint]]) {
    let want: HashSet<u128> = parts.iter().flat_map(|p| p.iter().map(|f| f.0)).collect();
    same(&server.fingerprints(prefix), &want, "on the server");
}

/// Inserts in batches; checks each answer against `oracle` (a plain set of what was seen).
fn insert_checked(set: &mut RedisSet, fps: &[Fingerprint], oracle: &mut HashSet<u128>) {
    let mut new = Vec::new();
    for batch in fps.chunks(256) {
        set.insert_batch(batch, &mut new).unwrap();
        for (fp, n) in batch.iter().zip(&new) {
            assert_eq!(*n, oracle.insert(fp.0), "answer for {:032x}", fp.0);
        }
    }
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn answers_match_a_set_and_the_server() {
    let server = Server::start();
    let url = server.url("prefix=t1&expect=100000");
    let mut a = RedisSet::open(&url, ID).unwrap();
    let mut b = RedisSet::open(&url, ID).unwrap();
    assert_ne!(a.run(), b.run());
    let mut oracle = HashSet::new();
    let fps = input(1, 20_000, 13_000);
    // two handles (two runs) take turns: the answers are the set's, whoever asks
    for (i, part) in fps.chunks(1000).enumerate() {
        let set = if i % 2 == 0 { &mut a } else { &mut b };
        insert_checked(set, part, &mut oracle);
        set.sync().unwrap();
    }
    assert_eq!(a.len() + b.len(), oracle.len() as u64);
    assert_eq!(a.count().unwrap(), oracle.len() as u64);
    assert!(a.contains(fps[0]).unwrap());
    assert!(!a.contains(Fingerprint(7)).unwrap());
    same(&server.fingerprints("t1"), &oracle, "on the server");
    // synced: no log is left; a listpack per bucket
    assert!(server.keys("t1:*log*").is_empty());
    let bucket = server.keys("t1:{0*").pop().unwrap();
    assert_eq!(
        server.cli(&["OBJECT", "ENCODING", &bucket]).trim(),
        "listpack"
    );
    a.finish().unwrap();
    b.finish().unwrap();
    // a later run: everything seen
    let mut c = RedisSet::open(&url, ID).unwrap();
    let mut new = Vec::new();
    c.insert_batch(&fps, &mut new).unwrap();
    assert!(new.iter().all(|n| !n));
    c.clear().unwrap();
    assert!(server.fingerprints("t1").is_empty());
    c.insert_batch(&fps[..10], &mut new).unwrap();
    assert!(new[0]);
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_wrong_identity_or_layout_is_refused() {
    let server = Server::start();
    let url = server.url("prefix=t2");
    RedisSet::open(&url, ID).unwrap().finish().unwrap();
    match RedisSet::open(&url, "scheme iri 0") {
        Err(DedupError::IdentityMismatch {
            field,
            stored,
            requested,
            ..
        }) => {
            assert_eq!((field, stored.as_str()), ("identity", ID));
            assert_eq!(requested, "scheme iri 0");
        }
        other => panic!("expected an identity mismatch, got {:?}", other.map(|_| ())),
    }
    let e = RedisSet::open(&server.url("prefix=t2&shards=8"), ID)
        .err()
        .unwrap();
    assert!(
        matches!(
            e,
            DedupError::IdentityMismatch {
                field: "shards",
                ..
            }
        ),
        "{e}"
    );
    // another prefix is another set
    RedisSet::open(&server.url("prefix=t2b"), "scheme iri 0").unwrap();
    assert_eq!(server.cli(&["HGET", "t2:{m}:meta", "identity"]).trim(), ID);
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_cluster_spreads_the_set_and_answers_the_same() {
    let cluster = Cluster::start();
    let url = cluster.url("prefix=t3&expect=100000");
    let mut set = RedisSet::open(&url, ID).unwrap();
    let mut oracle = HashSet::new();
    insert_checked(&mut set, &input(3, 20_000, 13_000), &mut oracle);
    set.sync().unwrap();
    assert_eq!(set.count().unwrap(), oracle.len() as u64);
    let mut on_server = HashSet::new();
    for node in &cluster.nodes {
        let here = node.fingerprints("t3");
        assert!(
            here.len() > oracle.len() / 10,
            "node {} holds {}",
            node.port,
            here.len()
        );
        on_server.extend(here);
    }
    same(&on_server, &oracle, "on the cluster");
    // a second run through another seed node, and a killed run's claims given back
    let mut other = RedisSet::open(&url, ID).unwrap();
    let mut new = Vec::new();
    other
        .insert_batch(&input(3, 500, 13_000), &mut new)
        .unwrap();
    assert!(new.iter().all(|n| !n));
    let fresh = distinct(33, 300);
    other.insert_batch(&fresh, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    drop(other); // never synced: its claims stay until its lease expires
    let mut later = RedisSet::open(&cluster.url("prefix=t3&lease=1s"), ID).unwrap();
    later.insert_batch(&fresh, &mut new).unwrap();
    assert!(new.iter().all(|n| !n), "a live lease keeps the claims");
    // nodes that close idle clients: every node's connection is checked after a pause
    for node in &cluster.nodes {
        assert_eq!(node.cli(&["CONFIG", "SET", "timeout", "1"]).trim(), "OK");
    }
    std::thread::sleep(Duration::from_millis(2600));
    later.insert_batch(&distinct(34, 300), &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    // one node that may evict keys is said, whichever node answers the client first
    let evicting = &cluster.nodes[2];
    let policy = ["CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"];
    assert_eq!(evicting.cli(&policy).trim(), "OK");
    let third = RedisSet::open(&url, ID).unwrap();
    let warning = third.report().warning.unwrap_or_default();
    assert!(
        warning.contains("maxmemory-policy allkeys-lfu"),
        "{warning:?}"
    );
    assert_eq!(
        set.report().warning,
        None,
        "checked at open, then once a lease period"
    );
    third.finish().unwrap();
    set.finish().unwrap();
    later.finish().unwrap();
}

/// The child processes: `insert URL SEED` prints each key answered new, then syncs;
/// `hold URL SEED` inserts 1,000 keys and syncs, then offers 1,000 new ones with 50 of the
/// synced ones and 50 that another run claimed (`others`), prints READY and waits to be
/// killed.
#[test]
#[ignore = "the child process that the other tests of this file run with --ignored"]
fn redis_child() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split(' ').collect();
    let (role, url, seed) = (parts[0], parts[1], parts[2].parse().unwrap());
    let mut set = RedisSet::open(url, ID).unwrap();
    let mut new = Vec::new();
    match role {
        "insert" => {
            // overlapping inputs: each child draws from the same 6,000 keys
            for batch in input(seed, 8_000, 6_000).chunks(64) {
                set.insert_batch(batch, &mut new).unwrap();
                for (fp, n) in batch.iter().zip(&new) {
                    if *n {
                        println!("NEW {:032x}", fp.0);
                    }
                }
                set.sync().unwrap();
            }
            set.finish().unwrap();
            println!("DONE");
        }
        "submit" => {
            // the same with `submit`: each batch's claims sent before the answers of the one
            // before are read, and a sync after each (one batch still in flight)
            let mut answers = std::collections::VecDeque::new();
            let fps = input(seed, 8_000, 6_000);
            for batch in fps.chunks(64) {
                set.submit(batch, 0, &mut answers).unwrap();
                set.sync().unwrap();
            }
            set.answer_rest(&mut answers).unwrap();
            assert_eq!(answers.len(), fps.len());
            for (fp, n) in fps.iter().zip(&answers) {
                if *n {
                    println!("NEW {:032x}", fp.0);
                }
            }
            set.finish().unwrap();
            println!("DONE");
        }
        "hold" => {
            let fps = distinct(seed, 2_000);
            set.insert_batch(&fps[..1000], &mut new).unwrap();
            set.sync().unwrap();
            let again = [&fps[1000..], &fps[..50], &others(seed)].concat();
            set.insert_batch(&again, &mut new).unwrap();
            assert_eq!(new.iter().filter(|n| **n).count(), 1000);
            println!("READY");
            std::thread::sleep(Duration::from_secs(60));
        }
        _ => unreachable!(),
    }
}

/// Keys that another run claims and syncs before a `hold` child starts.
fn others(seed: u64) -> Vec<Fingerprint> {
    distinct(seed + 1000, 50)
}

fn claim_others(url: &str, seed: u64) {
    let mut set = RedisSet::open(url, ID).unwrap();
    let mut new = Vec::new();
    set.insert_batch(&others(seed), &mut new).unwrap();
    set.finish().unwrap();
}

fn spawn_child(spec: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "redis::redis_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn four_processes_answer_each_key_new_exactly_once() {
    let server = Server::start();
    let url = server.url("prefix=t4&expect=10000");
    // two answer each batch at once, two send a batch's claims ahead of the last one's answers
    let children: Vec<_> = (0..4)
        .map(|i| {
            let role = if i % 2 == 0 { "insert" } else { "submit" };
            spawn_child(&format!("{role} {url} {}", 100 + i))
        })
        .collect();
    let mut news: Vec<u128> = Vec::new();
    for mut c in children {
        let out = BufReader::new(c.stdout.take().unwrap());
        let lines: Vec<String> = out.lines().map(Result::unwrap).collect();
        assert!(c.wait().unwrap().success());
        assert!(lines.iter().any(|l| l == "DONE"), "a child did not finish");
        news.extend(
            lines
                .iter()
                // libtest may print "test redis_child ... " before the first line
                .filter_map(|l| l.split_once("NEW ").map(|(_, h)| h))
                .map(|h| u128::from_str_radix(h, 16).unwrap()),
        );
    }
    let all: HashSet<u128> = (0..4)
        .flat_map(|i| input(100 + i, 8_000, 6_000))
        .map(|f| f.0)
        .collect();
    let distinct: HashSet<u128> = news.iter().copied().collect();
    assert_eq!(news.len(), distinct.len(), "a key answered new twice");
    same(&distinct, &all, "answered new by the children");
    same(&server.fingerprints("t4"), &all, "on the server");
}

/// Starts a `hold` child and kills it (SIGKILL) once it has claims it never synced.
fn killed_holder(url: &str, seed: u64) {
    claim_others(url, seed);
    let mut c = spawn_child(&format!("hold {url} {seed}"));
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("READY") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "child ended early");
    }
    c.kill().unwrap();
    c.wait().unwrap();
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_process_killed_before_sync_loses_nothing() {
    let server = Server::start();
    let fps = distinct(7, 2_000);
    let mut new = Vec::new();
    // an anonymous run: its claims come back once its lease expired
    let url = server.url("prefix=t5&lease=3s");
    killed_holder(&url, 7);
    let mut early = RedisSet::open(&url, ID).unwrap();
    early.insert_batch(&fps[1000..1010], &mut new).unwrap();
    assert!(new.iter().all(|n| !n), "claims of a live lease are seen");
    std::thread::sleep(Duration::from_millis(3300));
    let mut rerun = RedisSet::open(&url, ID).unwrap();
    rerun.insert_batch(&fps, &mut new).unwrap();
    assert!(new[..1000].iter().all(|n| !n), "synced keys stay seen");
    assert!(
        new[1000..].iter().all(|n| *n),
        "unsynced keys are new again"
    );
    rerun.insert_batch(&others(7), &mut new).unwrap();
    assert!(
        new.iter().all(|n| !n),
        "another run's keys, offered to the dead run, stay"
    );
    rerun.sync().unwrap();
    server_holds(&server, "t5", &[&fps, &others(7)]);
    // a named run takes its own claims back at once, lease or not
    let named = server.url("prefix=t6&run=worker-1&lease=20s");
    killed_holder(&named, 8);
    let fps = distinct(8, 2_000);
    let mut again = RedisSet::open(&named, ID).unwrap();
    again.insert_batch(&fps, &mut new).unwrap();
    assert!(new[..1000].iter().all(|n| !n));
    assert!(new[1000..].iter().all(|n| *n));
    // a second process under the same name takes over: the first one's lease is lost
    let mut second = RedisSet::open(&named, ID).unwrap();
    second.insert_batch(&fps[..10], &mut new).unwrap();
    std::thread::sleep(Duration::from_millis(5100)); // its keeper's next renewal finds it
    let e = again.insert_batch(&fps[..10], &mut new).err().unwrap();
    assert!(matches!(e, DedupError::LeaseLost { .. }), "{e}");
}

/// A run that makes no call for longer than its lease (a consumer paused, a crawl waiting on
/// slow pages) keeps its lease while its process lives: another process that opens the set
/// meanwhile (and gives back what expired) is answered seen for its claims, and its next calls
/// work. Its process killed, the same claims come back once the lease expired (the tests above).
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_run_idle_longer_than_its_lease_keeps_its_claims() {
    let server = Server::start();
    let url = server.url("prefix=t10&lease=1s");
    let (fps, more) = (distinct(12, 500), distinct(13, 20));
    let mut new = Vec::new();
    let mut idle = RedisSet::open(&url, ID).unwrap();
    idle.insert_batch(&fps, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    std::thread::sleep(Duration::from_millis(2600)); // over two leases without a call
    let mut other = RedisSet::open(&url, ID).unwrap();
    other.insert_batch(&fps, &mut new).unwrap();
    assert!(
        new.iter().all(|n| !n),
        "a live run's claims were given back"
    );
    idle.insert_batch(&more, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    idle.sync().unwrap();
    idle.finish().unwrap();
    other.finish().unwrap();
    server_holds(&server, "t10", &[&fps, &more]);
}

/// A server that closes idle clients (`timeout 1`, as many deployments set): a run idle for
/// longer opens its connection again before its next command (a claim, a submitted batch, a
/// count, the sync and the finish) and loses nothing; a server restarted without persistence
/// while the run was idle has lost the set and the lease: the next call is an error.
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_connection_the_server_closed_while_idle_is_opened_again() {
    use std::collections::VecDeque;
    let mut server = Server::start_with(&["--save", "", "--appendonly", "no", "--timeout", "1"]);
    let url = server.url("prefix=t11&lease=8s");
    let (a, b, c) = (distinct(14, 300), distinct(15, 300), distinct(16, 5000));
    let idle = || std::thread::sleep(Duration::from_millis(2600));
    let mut set = RedisSet::open(&url, ID).unwrap();
    let mut new = Vec::new();
    set.insert_batch(&a, &mut new).unwrap();
    idle();
    set.insert_batch(&b, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    set.sync().unwrap();
    idle();
    let mut got = VecDeque::new();
    set.submit(&c, 0, &mut got).unwrap();
    idle();
    set.answer_rest(&mut got).unwrap();
    assert!(got.len() == c.len() && got.iter().all(|n| *n));
    idle();
    assert_eq!(set.count().unwrap(), 5600);
    idle();
    set.finish().unwrap();
    server_holds(&server, "t11", &[&a, &b, &c]);
    let mut set = RedisSet::open(&url, ID).unwrap();
    set.insert_batch(&a, &mut new).unwrap();
    assert!(new.iter().all(|n| !n));
    server.restart();
    idle();
    let e = set.insert_batch(&b, &mut new).err();
    let e = e.expect("a server restarted without persistence is an error");
    assert!(matches!(e, DedupError::LeaseLost { .. }), "{e}");
}

/// Every connection of a run killed on the server (`CLIENT KILL TYPE normal`, as an operator
/// may) while the run is between calls: the keeper connects again and keeps the lease through
/// a pause longer than it (another process is answered seen for the run's claims), and the
/// run's next call opens its own connection again.
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn connections_killed_on_the_server_are_opened_again() {
    let server = Server::start();
    let url = server.url("prefix=t15&lease=2s");
    let (a, b) = (distinct(18, 400), distinct(19, 400));
    let mut new = Vec::new();
    let mut set = RedisSet::open(&url, ID).unwrap();
    set.insert_batch(&a, &mut new).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let killed: u32 = server
        .cli(&["CLIENT", "KILL", "TYPE", "normal"])
        .trim()
        .parse()
        .unwrap();
    assert_eq!(killed, 2, "the run's connection and its keeper's");
    std::thread::sleep(Duration::from_millis(2600)); // over the lease
    let mut other = RedisSet::open(&url, ID).unwrap();
    other.insert_batch(&a, &mut new).unwrap();
    assert!(new.iter().all(|n| !n), "the lease was kept");
    set.insert_batch(&b, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    set.finish().unwrap();
    other.finish().unwrap();
    server_holds(&server, "t15", &[&a, &b]);
}

/// A set filled past its layout (buckets past Redis's listpack limit, here the 128 of the
/// shipped `redis.conf`) says so in its report, as the server's own encodings show; within it,
/// it does not.
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_set_past_its_layout_says_so() {
    let server = Server::start();
    let limit = ["CONFIG", "SET", "hash-max-listpack-entries", "128"];
    assert_eq!(server.cli(&limit).trim(), "OK");
    let url = server.url("prefix=t13&expect=6000"); // 64 buckets
    let fps = distinct(17, 16_000);
    let mut new = Vec::new();
    let mut set = RedisSet::open(&url, ID).unwrap();
    set.insert_batch(&fps[..3000], &mut new).unwrap(); // about 47 a bucket
    set.finish().unwrap();
    let mut set = RedisSet::open(&url, ID).unwrap();
    assert_eq!(set.report().warning, None);
    set.insert_batch(&fps[3000..], &mut new).unwrap(); // about 250 a bucket
    set.finish().unwrap();
    let encodings: Vec<String> = server
        .keys("t13:{*}:*")
        .iter()
        .filter(|k| !k.contains(":log:") && !k.contains(":{m}:"))
        .map(|k| server.cli(&["OBJECT", "ENCODING", k]).trim().to_owned())
        .collect();
    assert_eq!(encodings.len(), 64);
    assert!(encodings.iter().all(|e| e == "hashtable"), "{encodings:?}");
    let set = RedisSet::open(&url, ID).unwrap();
    let warning = set.report().warning.expect("a warning");
    assert!(
        warning.contains("32 of 32 sampled buckets are hash tables"),
        "{warning}"
    );
    set.finish().unwrap();
}

/// A server that may evict the set's keys (`maxmemory-policy allkeys-*`) is named in the
/// set's report; `volatile-*` (only keys with a time to live: the leases) is not.
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_server_that_evicts_keys_is_said() {
    for (policy, said) in [("allkeys-lru", true), ("volatile-lru", false)] {
        let server = Server::start_with(&[
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory",
            "100mb",
            "--maxmemory-policy",
            policy,
        ]);
        let set = RedisSet::open(&server.url("prefix=t14"), ID).unwrap();
        let warning = set.report().warning;
        assert_eq!(warning.is_some(), said, "{policy}: {warning:?}");
        if let Some(w) = warning {
            assert!(w.contains("maxmemory-policy allkeys-lru"), "{w}");
        }
        set.finish().unwrap();
    }
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_server_killed_and_restarted_is_an_error_then_nothing_is_lost() {
    let mut server = Server::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let url = server.url("prefix=t7&lease=1s&timeout=2s&connect_timeout=1s");
    let fps = distinct(9, 3_000);
    let mut set = RedisSet::open(&url, ID).unwrap();
    let mut new = Vec::new();
    set.insert_batch(&fps[..1000], &mut new).unwrap();
    set.sync().unwrap();
    set.insert_batch(&fps[1000..2000], &mut new).unwrap(); // answered, not synced
    server.kill();
    let e = set.insert_batch(&fps[2000..], &mut new).err().unwrap();
    assert!(matches!(e, DedupError::Remote { .. }), "{e}");
    // every later call fails too, even with the server back
    server.restart();
    assert!(matches!(set.sync(), Err(DedupError::Remote { .. })));
    drop(set);
    // a new process: once the dead run's lease expired, its unsynced keys are new again
    std::thread::sleep(Duration::from_millis(1300));
    let mut rerun = RedisSet::open(&url, ID).unwrap();
    rerun.insert_batch(&fps, &mut new).unwrap();
    assert!(new[..1000].iter().all(|n| !n));
    assert!(new[1000..].iter().all(|n| *n), "no key lost");
    rerun.finish().unwrap();
    // no server at all: a clear error, within the connect timeout
    let port = server.port;
    server.kill();
    let t = Instant::now();
    let e = RedisSet::open(&format!("redis://127.0.0.1:{port}/?connect_timeout=1s"), ID)
        .err()
        .unwrap();
    assert!(matches!(e, DedupError::Remote { op: "connect", .. }), "{e}");
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn a_stalled_server_times_out() {
    let server = Server::start();
    let mut set = RedisSet::open(&server.url("prefix=t8&timeout=300ms"), ID).unwrap();
    let mut new = Vec::new();
    set.insert_batch(&input(1, 10, 100), &mut new).unwrap();
    server.signal("-STOP");
    let t = Instant::now();
    let e = set.insert_batch(&input(2, 1000, 1000), &mut new).err();
    server.signal("-CONT");
    let e = e.expect("a stalled server is an error");
    assert!(matches!(e, DedupError::Remote { .. }), "{e}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn sync_on_next_call_records_only_answers_already_returned() {
    let server = Server::start();
    let url = server.url("prefix=t9&lease=1s");
    let mut new = Vec::new();
    let (x, y) = (distinct(10, 100), distinct(11, 5000));
    let mut dead = RedisSet::open(&url, ID).unwrap();
    dead.sync_on_next_call(true);
    dead.insert_batch(&x, &mut new).unwrap();
    // more than one round trip's worth (4,096): none of it returned before the call ends
    dead.insert_batch(&y, &mut new).unwrap();
    assert!(new.iter().all(|n| *n));
    drop(dead); // dies before its next call: x was recorded by the second call, y was not
    std::thread::sleep(Duration::from_millis(1300));
    let mut rerun = RedisSet::open(&url, ID).unwrap();
    rerun.insert_batch(&x, &mut new).unwrap();
    assert!(new.iter().all(|n| !n), "x was recorded");
    rerun.insert_batch(&y, &mut new).unwrap();
    let lost = new.iter().filter(|n| !**n).count();
    assert_eq!(
        lost, 0,
        "keys of the last call recorded before they were returned"
    );
}

#[cfg(not(feature = "redis-tls"))]
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn rediss_without_the_tls_feature_is_a_clear_error() {
    let server = Server::start();
    let e = RedisSet::open(&format!("rediss://127.0.0.1:{}/0", server.port), ID)
        .err()
        .unwrap();
    assert!(matches!(e, DedupError::Remote { op: "connect", .. }), "{e}");
    assert!(e.to_string().to_lowercase().contains("tls"), "{e}");
}

/// `submit` sends a batch's claims, then reads the answers of the batch before: the answers,
/// in order, are a set's (two runs taking turns, a key repeated within a batch and across
/// consecutive batches), and a sync records only the answers handed out: a run that stops
/// after a sync with a batch in flight (its answers never read) has those keys given back once
/// its lease expires, while the keys answered before the sync stay seen.
#[test]
#[ignore = "needs redis-server: scripts/test.sh runs it"]
fn submitted_claims_are_recorded_only_once_answered() {
    use std::collections::VecDeque;
    let server = Server::start();
    let url = server.url("prefix=t8&expect=100000&lease=2s");
    let mut a = RedisSet::open(&url, ID).unwrap();
    let mut b = RedisSet::open(&url, ID).unwrap();
    let mut oracle = HashSet::new();
    let fps = input(3, 30_000, 17_000);
    let (mut got_a, mut got_b) = (VecDeque::new(), VecDeque::new());
    let (mut asked_a, mut asked_b) = (Vec::new(), Vec::new());
    // batches of varied size, some over the 4,096 of one round trip
    let mut rest = &fps[..];
    for (i, size) in [700, 5000, 64, 1, 4096, 9000].iter().cycle().enumerate() {
        if rest.is_empty() {
            break;
        }
        let (batch, tail) = rest.split_at((*size).min(rest.len()));
        rest = tail;
        let (set, got, asked) = match i % 2 {
            0 => (&mut a, &mut got_a, &mut asked_a),
            _ => (&mut b, &mut got_b, &mut asked_b),
        };
        set.submit(batch, 0, got).unwrap();
        asked.extend_from_slice(batch);
        assert!(got.len() < asked.len(), "the last batch is answered later");
        if i % 3 == 0 {
            set.sync().unwrap();
        }
    }
    a.answer_rest(&mut got_a).unwrap();
    b.answer_rest(&mut got_b).unwrap();
    assert_eq!((got_a.len(), got_b.len()), (asked_a.len(), asked_b.len()));
    // each key is new exactly once over both runs, and a run's answers come in its order
    let mut news = HashSet::new();
    for (fp, n) in asked_a.iter().zip(&got_a).chain(asked_b.iter().zip(&got_b)) {
        if *n {
            assert!(news.insert(fp.0), "{:032x} answered new twice", fp.0);
        }
        oracle.insert(fp.0);
    }
    same(&news, &oracle, "answered new");
    for (asked, got) in [(&asked_a, &got_a), (&asked_b, &got_b)] {
        let mut mine = HashSet::new();
        for (fp, n) in asked.iter().zip(got) {
            assert!(
                !*n || mine.insert(fp.0),
                "a repeat in the same run answered new"
            );
        }
    }
    a.finish().unwrap();
    b.finish().unwrap();
    same(&server.fingerprints("t8"), &oracle, "on the server");
    assert!(
        server.keys("t8:*log*").is_empty(),
        "finished runs leave no log"
    );

    // a run that syncs with a batch in flight, then stops without reading it
    let done = distinct(20, 3000);
    let flying = distinct(21, 3000);
    let mut c = RedisSet::open(&url, ID).unwrap();
    let mut got = VecDeque::new();
    c.submit(&done, 0, &mut got).unwrap();
    c.submit(&flying, 0, &mut got).unwrap();
    assert_eq!(got.len(), done.len(), "the second batch is in flight");
    c.sync().unwrap();
    assert!(
        !server.keys("t8:*log*").is_empty(),
        "the batch in flight stays listed"
    );
    drop(c); // dies: no answer_rest, no finish
    std::thread::sleep(Duration::from_millis(2300)); // its lease
    let mut rerun = RedisSet::open(&url, ID).unwrap();
    let mut new = Vec::new();
    rerun.insert_batch(&done, &mut new).unwrap();
    assert!(
        new.iter().all(|n| !n),
        "keys answered before the sync stay seen"
    );
    rerun.insert_batch(&flying, &mut new).unwrap();
    assert!(new.iter().all(|n| *n), "keys never answered are new again");
    rerun.finish().unwrap();
}

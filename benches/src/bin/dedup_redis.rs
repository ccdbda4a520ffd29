//! The shared seen-set (`RedisSet`) against one local redis-server: keys/s for batches of 256
//! and for single keys, and server memory per key against scrapy-redis's pattern (a SET of
//! 40-hex SHA-1 strings, one `SADD` per request).
//!
//! `cargo run --release -p linksieve-benches --bin dedup_redis -- [--keys N] [--url URL]`
//! (defaults: 1e6 keys; without `--url` it starts its own `redis-server` on a free port of
//! 127.0.0.1 with no persistence, in a temporary folder, and stops it by pid at the end). With
//! `--url` it uses that server and FLUSHALLs it: give it a server of its own.
//!
//! Phases (each on an empty server; memory is `used_memory` of `INFO memory` after the phase
//! minus before, over the keys stored):
//! - `scrapy-redis pattern`: a server-side script SADDs the 40-hex SHA-1 of 1..N to one set,
//!   which is what scrapy-redis's dupefilter stores (only memory is measured here; its rate is
//!   one round trip a request: see `single` and `redis-benchmark` in the record);
//! - `batch 256, sync each`: `insert_batch` of 256 fresh random fingerprints with
//!   `sync_on_next_call` (each batch records the one before in the same round trip);
//! - `batch 256, explicit sync each`: the same with `sync()` after each batch (2 round trips);
//! - `batch 256, seen`: the same keys again (all answered seen);
//! - `single, sync each`: `insert_one` with `sync_on_next_call` (the per-request pattern);
//! - `memory at expect=N`: the set made for exactly N keys.

use linksieve_benches::random_u128;
use linksieve_dedup::{Fingerprint, RedisSet, SeenSet};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .output()
        .expect("redis-cli (apt-get install -y redis-server)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn used_memory(port: u16) -> i64 {
    cli(port, &["INFO", "memory"])
        .lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("used_memory")
}

/// CPU seconds (user + system) of the server, from `INFO cpu`.
fn server_cpu(port: u16) -> f64 {
    cli(port, &["INFO", "cpu"])
        .lines()
        .filter_map(|l| {
            l.strip_prefix("used_cpu_sys:")
                .or(l.strip_prefix("used_cpu_user:"))
        })
        .filter_map(|v| v.trim().parse::<f64>().ok())
        .sum()
}

/// CPU seconds (user + system) of this process.
fn own_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, r)| r)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn fresh(state: &mut u64, n: usize) -> Vec<Fingerprint> {
    (0..n).map(|_| Fingerprint(random_u128(state))).collect()
}

fn main() {
    let mut keys = 1_000_000usize;
    let mut url = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().expect("value");
        match a.as_str() {
            "--keys" => keys = v.parse::<f64>().expect("N") as usize,
            "--url" => url = Some(v),
            _ => panic!("unknown option {a}"),
        }
    }
    let tmp = std::env::temp_dir().join(format!("linksieve-redis-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let (_server, port) = match &url {
        Some(u) => {
            let port = u
                .rsplit_once(':')
                .and_then(|(_, p)| p.split('/').next()?.parse().ok())
                .expect("a URL with a port");
            (None, port)
        }
        None => {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .arg("--dir")
                .arg(&tmp)
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server (apt-get install -y redis-server)");
            let start = Instant::now();
            while cli(port, &["PING"]).trim() != "PONG" {
                assert!(start.elapsed() < Duration::from_secs(10), "no redis-server");
                std::thread::sleep(Duration::from_millis(20));
            }
            (Some(Server(child)), port)
        }
    };
    let base = format!("redis://127.0.0.1:{port}/0");
    println!(
        "redis-server {}",
        cli(port, &["INFO", "server"])
            .lines()
            .find(|l| l.starts_with("redis_version"))
            .unwrap_or("?")
    );
    println!(
        "| phase | keys | seconds | keys/s | server CPU s | client CPU s | server bytes / key |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut cpu = (server_cpu(port), own_cpu());
    let mut row = |phase: &str, n: usize, secs: f64, mem: Option<f64>| {
        let mem = mem.map_or("-".to_owned(), |m| format!("{m:.1}"));
        let now = (server_cpu(port), own_cpu());
        println!(
            "| {phase} | {n} | {secs:.3} | {:.0} | {:.2} | {:.2} | {mem} |",
            n as f64 / secs,
            now.0 - cpu.0,
            now.1 - cpu.1
        );
        cpu = now;
    };

    // scrapy-redis's pattern: the server memory of a SET of 40-hex SHA-1 strings
    cli(port, &["FLUSHALL"]);
    let before = used_memory(port);
    let t = Instant::now();
    let script = format!(
        "for i = 1, {keys} do redis.call('SADD', 'dupefilter', redis.sha1hex(tostring(i))) end"
    );
    cli(port, &["EVAL", &script, "0"]);
    let secs = t.elapsed().as_secs_f64();
    let scrapy_mem = (used_memory(port) - before) as f64 / keys as f64;
    row(
        "scrapy-redis pattern (server-side fill)",
        keys,
        secs,
        Some(scrapy_mem),
    );

    let mut st = 7u64;
    let mut new = Vec::new();
    let mut fill = |query: &str, explicit: bool| -> (f64, f64, Vec<Fingerprint>) {
        let mut new = Vec::new();
        cli(port, &["FLUSHALL"]);
        let before = used_memory(port);
        let mut set = RedisSet::open(&format!("{base}?{query}"), "bench").expect("open");
        set.sync_on_next_call(!explicit);
        let fps = fresh(&mut st, keys);
        let t = Instant::now();
        for b in fps.chunks(256) {
            set.insert_batch(b, &mut new).expect("insert");
            if explicit {
                set.sync().expect("sync");
            }
        }
        set.sync().expect("sync");
        let secs = t.elapsed().as_secs_f64();
        set.finish().expect("finish");
        let mem = (used_memory(port) - before) as f64 / keys as f64;
        (secs, mem, fps)
    };
    let (secs, mem, fps) = fill("prefix=b", false);
    row(
        "batch 256, sync each (expect=1e7, the default)",
        keys,
        secs,
        Some(mem),
    );
    let ours = mem;
    let mut set = RedisSet::open(&format!("{base}?prefix=b"), "bench").expect("open");
    let t = Instant::now();
    for b in fps.chunks(256) {
        set.insert_batch(b, &mut new).expect("insert");
        assert!(new.iter().all(|n| !n));
    }
    row("batch 256, all seen", keys, t.elapsed().as_secs_f64(), None);
    drop(set);
    let (secs, _, _) = fill("prefix=b", true);
    row(
        "batch 256, explicit sync each (2 round trips)",
        keys,
        secs,
        None,
    );
    let (secs, mem, _) = fill(&format!("prefix=b&expect={keys}"), false);
    row(
        &format!("batch 256, sync each (expect={keys})"),
        keys,
        secs,
        Some(mem),
    );

    let single = (keys / 20).max(1000);
    cli(port, &["FLUSHALL"]);
    let mut set = RedisSet::open(&format!("{base}?prefix=s"), "bench").expect("open");
    set.sync_on_next_call(true);
    let fps = fresh(&mut st, single);
    let t = Instant::now();
    for fp in &fps {
        set.insert_one(*fp).expect("insert");
    }
    row(
        "single key, sync each (one round trip a key)",
        single,
        t.elapsed().as_secs_f64(),
        None,
    );
    println!();
    println!(
        "server memory per key: {ours:.1} B against {scrapy_mem:.1} B for scrapy-redis's pattern ({:.2}x)",
        ours / scrapy_mem
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

//! Bytes per key and insert rate of the exact in-memory seen-set (`MemorySet`), beside a
//! `std::collections::HashSet<u128>` (hashbrown) with a pass-through hasher.
//!
//! `cargo run --release -p linksieve-benches --bin dedup_memory -- [N ...]`
//! (default N: 1e6 1e7 5e7 random fingerprints). Memory is reported three ways: the set's own
//! `memory_bytes()` (its allocations), the process's resident-set growth (VmRSS) after the
//! build, and its peak (VmHWM, reset before each build through /proc/self/clear_refs).

use linksieve_benches::{proc_status, random_u128};
use linksieve_dedup::{Fingerprint, MemorySet, SeenSet};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// The fingerprints are uniform already: hash = their low 64 bits.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().take(8) {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

/// (VmRSS, VmHWM) in bytes.
fn rss() -> (u64, u64) {
    (proc_status("VmRSS:"), proc_status("VmHWM:"))
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse::<f64>().expect("N") as u64)
        .collect();
    let sizes = if args.is_empty() {
        vec![1_000_000, 10_000_000, 50_000_000]
    } else {
        args
    };
    println!(
        "| set | keys | insert new (M keys/s) | insert seen (M keys/s) | memory_bytes / key | RSS growth / key | peak RSS growth / key |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in &sizes {
        {
            let (base, _) = rss();
            reset_peak();
            let mut set = MemorySet::new();
            let mut st = n;
            let t = Instant::now();
            for _ in 0..n {
                set.insert(Fingerprint(random_u128(&mut st)));
            }
            let t_new = t.elapsed().as_secs_f64();
            let (now, peak) = rss();
            let mut st = n;
            let t = Instant::now();
            let mut seen = 0u64;
            for _ in 0..n {
                seen += !set.insert(Fingerprint(random_u128(&mut st))) as u64;
            }
            let t_seen = t.elapsed().as_secs_f64();
            assert_eq!(seen, n);
            assert_eq!(set.len(), n);
            println!(
                "| MemorySet | {n} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} |",
                n as f64 / t_new / 1e6,
                n as f64 / t_seen / 1e6,
                set.memory_bytes() as f64 / n as f64,
                now.saturating_sub(base) as f64 / n as f64,
                peak.saturating_sub(base) as f64 / n as f64,
            );
            drop(set);
            // The same through the batch API (reads home slots ahead).
            let mut set = MemorySet::new();
            let mut answers = Vec::new();
            let mut st = n;
            let mut buf = Vec::with_capacity(4096);
            let t = Instant::now();
            let mut left = n;
            while left > 0 {
                buf.clear();
                buf.extend((0..left.min(4096)).map(|_| Fingerprint(random_u128(&mut st))));
                left -= buf.len() as u64;
                set.insert_batch(&buf, &mut answers).expect("infallible");
            }
            let tb_new = t.elapsed().as_secs_f64();
            let mut st = n;
            let t = Instant::now();
            let mut left = n;
            while left > 0 {
                buf.clear();
                buf.extend((0..left.min(4096)).map(|_| Fingerprint(random_u128(&mut st))));
                left -= buf.len() as u64;
                set.insert_batch(&buf, &mut answers).expect("infallible");
                assert!(answers.iter().all(|&a| !a));
            }
            let tb_seen = t.elapsed().as_secs_f64();
            println!(
                "| MemorySet, insert_batch of 4096 | {n} | {:.1} | {:.1} | {:.2} | | |",
                n as f64 / tb_new / 1e6,
                n as f64 / tb_seen / 1e6,
                set.memory_bytes() as f64 / n as f64,
            );
        }
        {
            let (base, _) = rss();
            reset_peak();
            let mut set: HashSet<u128, BuildHasherDefault<PassThrough>> = HashSet::default();
            let mut st = n;
            let t = Instant::now();
            for _ in 0..n {
                set.insert(random_u128(&mut st));
            }
            let t_new = t.elapsed().as_secs_f64();
            let (now, peak) = rss();
            let mut st = n;
            let t = Instant::now();
            let mut seen = 0u64;
            for _ in 0..n {
                seen += !set.insert(random_u128(&mut st)) as u64;
            }
            let t_seen = t.elapsed().as_secs_f64();
            assert_eq!(seen, n);
            // hashbrown: buckets = next power of two of capacity * 8 / 7, 16 + 1 bytes each.
            let buckets = (set.capacity() * 8 / 7).next_power_of_two();
            println!(
                "| HashSet<u128> (hashbrown) | {n} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} |",
                n as f64 / t_new / 1e6,
                n as f64 / t_seen / 1e6,
                (buckets * 17) as f64 / n as f64,
                now.saturating_sub(base) as f64 / n as f64,
                peak.saturating_sub(base) as f64 / n as f64,
            );
        }
    }
}

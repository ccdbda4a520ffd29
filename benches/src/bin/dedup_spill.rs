//! The exact seen-set with a memory budget (`SpillSet`): time, merge passes, disk and peak
//! memory for a stream with duplicates, checked against `MemorySet`.
//!
//! `cargo run --release -p linksieve-benches --bin dedup_spill -- [N] [UNIQUE] [BUDGET_MIB ...]`
//! (defaults: 2e7 items drawn from 1e7 distinct fingerprints; budgets 16 and 64 MiB).

use linksieve_benches::{number_args, proc_status, random_u128, splitmix};
use linksieve_dedup::{Fingerprint, MemorySet, SeenSet, SpillConfig, SpillSet};
use std::time::Instant;

/// Item `i` of the stream: one of `unique` fingerprints, picked at random.
fn item(state: &mut u64, unique: u64) -> Fingerprint {
    let k = splitmix(state) % unique;
    let mut s = k;
    Fingerprint(random_u128(&mut s))
}

fn main() {
    let args = number_args();
    let n = args.first().copied().unwrap_or(2e7) as u64;
    let unique = args.get(1).copied().unwrap_or(1e7) as u64;
    let budgets: Vec<usize> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|&m| (m * 1048576.0) as usize)
            .collect()
    } else {
        vec![16 << 20, 64 << 20]
    };
    // The reference: new-key count and a checksum of the positions of the new keys.
    let t = Instant::now();
    let mut mem = MemorySet::new();
    let mut st = 3u64;
    let mut ref_sum = 0u64;
    for i in 0..n {
        if mem.insert(item(&mut st, unique)) {
            ref_sum = ref_sum.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
    }
    let t_mem = t.elapsed().as_secs_f64();
    println!(
        "stream: {n} items, {} unique; MemorySet: {t_mem:.2} s = {:.1} M items/s, {:.1} MiB",
        mem.len(),
        n as f64 / t_mem / 1e6,
        mem.memory_bytes() as f64 / 1048576.0
    );
    let ref_len = mem.len();
    drop(mem);
    println!(
        "| budget | batch capacity | merge passes | runs at end | seconds | M items/s | disk bytes | peak RSS growth |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &budget in &budgets {
        let base = proc_status("VmRSS:");
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let mut set: SpillSet<u64> = SpillSet::new(SpillConfig::new(budget)).expect("spill set");
        let mut st = 3u64;
        let mut sum = 0u64;
        let t = Instant::now();
        let take = |answers: Vec<(u64, bool)>, sum: &mut u64| {
            for (i, new) in answers {
                if new {
                    *sum = sum.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                }
            }
        };
        for i in 0..n {
            if let Some(a) = set.push(item(&mut st, unique), i).expect("push") {
                take(a, &mut sum);
            }
        }
        take(set.flush().expect("flush"), &mut sum);
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(set.len(), ref_len, "unique count differs from MemorySet");
        assert_eq!(sum, ref_sum, "first occurrences differ from MemorySet");
        println!(
            "| {} MiB | {} | {} | {} | {secs:.2} | {:.2} | {} | {:.1} MiB |",
            budget >> 20,
            set.batch_capacity(),
            set.merges(),
            set.runs(),
            n as f64 / secs / 1e6,
            set.disk_bytes(),
            proc_status("VmHWM:").saturating_sub(base) as f64 / 1048576.0
        );
    }
}

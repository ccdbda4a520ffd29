//! The approximate seen-set (`BloomSet`): actual wrongly dropped keys against the filter's own
//! running estimate, bits per key and insert rate.
//!
//! `cargo run --release -p linksieve-benches --bin dedup_bloom -- [N] [UNIQUE] [FP_RATE ...]`
//! (defaults: 2e7 items drawn from 1e7 distinct fingerprints, filter sized for 1e7 keys at
//! rates 0.01 and 0.001). An exact `MemorySet` runs beside it to count the real errors.

use linksieve_benches::{number_args, random_u128, splitmix};
use linksieve_dedup::{BloomSet, Fingerprint, MemorySet, SeenSet};
use std::time::Instant;

fn item(state: &mut u64, unique: u64) -> Fingerprint {
    let k = splitmix(state) % unique;
    Fingerprint(random_u128(&mut (k ^ 0x5bd1_e995)))
}

fn main() {
    let args = number_args();
    let n = args.first().copied().unwrap_or(2e7) as u64;
    let unique = args.get(1).copied().unwrap_or(1e7) as u64;
    let rates: Vec<f64> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        vec![0.01, 0.001]
    };
    let items: Vec<Fingerprint> = {
        let mut st = 11u64;
        (0..n).map(|_| item(&mut st, unique)).collect()
    };
    let mut mem = MemorySet::new();
    let truth: Vec<bool> = items.iter().map(|&f| mem.insert(f)).collect();
    let distinct = mem.len();
    drop(mem);
    println!("stream: {n} items, {distinct} distinct");
    println!(
        "| target rate | bits/key (sized for {unique}) | k | M inserts/s | wrongly dropped (actual) | expected_false_positives() | rate at end |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &rate in &rates {
        let mut set = BloomSet::new(unique, rate).expect("bloom");
        let t = Instant::now();
        let mut answers = Vec::with_capacity(items.len());
        for &f in &items {
            answers.push(set.insert(f));
        }
        let secs = t.elapsed().as_secs_f64();
        let wrong = truth
            .iter()
            .zip(&answers)
            .filter(|&(&t, &a)| t && !a)
            .count();
        assert!(truth.iter().zip(&answers).all(|(&t, &a)| t || !a));
        println!(
            "| {rate} | {:.2} | {} | {:.1} | {wrong} | {:.1} | {:.5} |",
            set.bits() as f64 / unique as f64,
            set.hashes(),
            n as f64 / secs / 1e6,
            set.expected_false_positives(),
            set.current_false_positive_rate()
        );
        assert_eq!(SeenSet::len(&set) + wrong as u64, distinct);
    }
}

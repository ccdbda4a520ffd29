//! New keys per second and bytes per key on disk of the persistent seen-set
//! (`PersistentSet`, redb): batches of random fingerprints into a fresh store, then into the
//! store once it holds 1e7 keys, then batches of keys it already holds.
//!
//! `cargo run --release -p linksieve-benches --bin dedup_persistent -- [--batch N]
//! [--fill BATCHES] [--extra BATCHES] [--dir DIR]` (defaults: 1e6, 10, 3, the system's
//! temporary folder). Each timing covers the whole `insert_batch` call and the `sync` after it:
//! the lookups, writing the new keys as a run (merging runs) and the durable commit (fsync).

use linksieve_benches::random_u128;
use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
use std::time::Instant;

fn batch(state: &mut u64, n: usize) -> Vec<Fingerprint> {
    (0..n).map(|_| Fingerprint(random_u128(state))).collect()
}

fn main() {
    let mut n = 1_000_000usize;
    let mut fill = 10usize;
    let mut extra = 3usize;
    let mut dir = std::env::temp_dir();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().expect("value");
        match a.as_str() {
            "--batch" => n = v.parse::<f64>().expect("N") as usize,
            "--fill" => fill = v.parse().expect("batches"),
            "--extra" => extra = v.parse().expect("batches"),
            "--dir" => dir = v.into(),
            _ => panic!("unknown option {a}"),
        }
    }
    let path = dir.join(format!("linksieve-dedup-bench-{}.redb", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(PersistentSet::runs_folder(&path));
    let id = StoreIdentity::new("scheme uri 0");
    let mut set = PersistentSet::open(&path, &id, PersistentOptions::default()).expect("open");
    let mut st = 1u64;
    let mut new = Vec::new();
    let mut first = Vec::new();
    println!(
        "| phase | batch | keys in store before | new | seconds | keys/s | file bytes / key |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut run = |set: &mut PersistentSet, phase: &str, b: usize, fps: &[Fingerprint]| {
        let before = set.len();
        let t = Instant::now();
        set.insert_batch(fps, &mut new).expect("insert");
        set.sync().expect("sync");
        let secs = t.elapsed().as_secs_f64();
        let fresh = new.iter().filter(|&&x| x).count();
        let size = set.disk_bytes().expect("size");
        println!(
            "| {phase} | {b} | {before} | {fresh} | {secs:.3} | {:.0} | {:.1} |",
            fps.len() as f64 / secs,
            size as f64 / set.len() as f64
        );
        (secs, fresh)
    };
    let (mut t_fill, mut k_fill) = (0.0, 0);
    for b in 0..fill {
        let fps = batch(&mut st, n);
        let (s, k) = run(&mut set, "fresh store", b, &fps);
        t_fill += s;
        k_fill += k;
        if b == 0 {
            first = fps;
        }
    }
    let (mut t_extra, mut k_extra) = (0.0, 0);
    for b in 0..extra {
        let fps = batch(&mut st, n);
        let (s, k) = run(&mut set, "store of 1e7", b, &fps);
        t_extra += s;
        k_extra += k;
    }
    // Smaller batches into the same store (fresh keys): the lookups of a batch read every
    // run, sequentially or one chunk per candidate.
    let mut small = Vec::new();
    for size in [10_000usize, 100_000] {
        let fps = batch(&mut st, size);
        let (s, k) = run(&mut set, "small batch", size, &fps);
        small.push((size, k as f64 / s));
    }
    let (s_seen, _) = run(&mut set, "all seen", 0, &first);
    let mut half = batch(&mut st, n / 2);
    half.extend_from_slice(&first[..n / 2]);
    run(&mut set, "half seen", 0, &half);
    let len = set.len();
    let before = set.disk_bytes().expect("size");
    let t = Instant::now();
    set.compact().expect("compact");
    let t_compact = t.elapsed().as_secs_f64();
    let after = set.disk_bytes().expect("size");
    drop(set);
    let t = Instant::now();
    let set = PersistentSet::open(&path, &id, PersistentOptions::default()).expect("reopen");
    let t_open = t.elapsed().as_secs_f64();
    assert_eq!(set.len(), len);
    println!();
    println!(
        "fill: {k_fill} new keys in {t_fill:.2} s = {:.0} new keys/s",
        k_fill as f64 / t_fill
    );
    if k_extra > 0 {
        println!(
            "into a store of {} keys: {k_extra} new keys in {t_extra:.2} s = {:.0} new keys/s",
            fill * n,
            k_extra as f64 / t_extra
        );
    }
    for (size, rate) in small {
        println!("batch of {size} new keys into the store: {rate:.0} new keys/s");
    }
    println!("all-seen batch: {:.0} keys/s", first.len() as f64 / s_seen);
    println!(
        "disk: {len} keys, file {before} bytes = {:.1} B/key; after compact ({t_compact:.2} s) {after} bytes = {:.1} B/key; reopen {t_open:.3} s",
        before as f64 / len as f64,
        after as f64 / len as f64
    );
    drop(set);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(PersistentSet::runs_folder(&path));
}

//! The exact sets give the same answers as each other on random streams with many duplicates:
//! the spill set with tiny budgets, and the persistent set with random batch sizes.

use linksieve_dedup::{
    Fingerprint, MemorySet, PersistentOptions, PersistentSet, SeenSet, SpillConfig, SpillSet,
    StoreIdentity,
};
use proptest::prelude::*;

/// A stream mixing a small pool (heavy duplication), edge values and fresh random values.
fn stream() -> impl Strategy<Value = Vec<Fingerprint>> {
    let pooled =
        (0u128..64).prop_map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835));
    let edges = prop::sample::select(vec![0u128, 1, u128::MAX, 1 << 127, u64::MAX as u128]);
    let item = prop_oneof![6 => pooled, 1 => edges, 3 => any::<u128>()];
    prop::collection::vec(item.prop_map(Fingerprint), 0..600)
}

fn reference(fps: &[Fingerprint]) -> Vec<bool> {
    let mut mem = MemorySet::new();
    fps.iter().map(|&f| mem.insert(f)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn spill_push_matches_memory(fps in stream(), cap in 1usize..40, max_runs in 1usize..5) {
        let cfg = SpillConfig::new(0).batch_capacity(cap).max_runs(max_runs);
        let mut set: SpillSet<usize> = SpillSet::new(cfg).unwrap();
        let mut got = Vec::new();
        for (i, &fp) in fps.iter().enumerate() {
            if let Some(a) = set.push(fp, i).unwrap() {
                got.extend(a);
            }
        }
        got.extend(set.flush().unwrap());
        let expected: Vec<(usize, bool)> = reference(&fps).into_iter().enumerate().collect();
        prop_assert_eq!(got, expected);
        prop_assert!(set.runs() <= max_runs);
        prop_assert_eq!(set.disk_bytes(), set.len() * 16);
    }

    #[test]
    fn spill_with_a_tiny_byte_budget_matches_memory(fps in stream(), budget in 0usize..4000) {
        // Budgets this small leave one pending item per merge pass.
        let mut set: SpillSet<u32> = SpillSet::new(SpillConfig::new(budget).max_runs(2)).unwrap();
        let mut got = Vec::new();
        for (i, &fp) in fps.iter().enumerate() {
            if let Some(a) = set.push(fp, i as u32).unwrap() {
                got.extend(a.into_iter().map(|x| x.1));
            }
        }
        got.extend(set.flush().unwrap().into_iter().map(|x| x.1));
        prop_assert_eq!(got, reference(&fps));
    }

    #[test]
    fn spill_batches_match_memory(fps in stream(), cap in 1usize..50, cut in 1usize..100) {
        let mut set: SpillSet = SpillSet::new(SpillConfig::new(0).batch_capacity(cap)).unwrap();
        let mut got = Vec::new();
        let mut new = Vec::new();
        for chunk in fps.chunks(cut) {
            set.insert_batch(chunk, &mut new).unwrap();
            got.extend_from_slice(&new);
        }
        prop_assert_eq!(got, reference(&fps));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn persistent_matches_memory(fps in stream(), cut in 10usize..300, reopen_every in 1usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        let id = StoreIdentity::new("scheme uri 0");
        let mut set = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
        let mut got = Vec::new();
        let mut new = Vec::new();
        for (n, chunk) in fps.chunks(cut).enumerate() {
            set.insert_batch(chunk, &mut new).unwrap();
            got.extend_from_slice(&new);
            if n % reopen_every == 0 {
                set.finish().unwrap();
                set = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
            }
        }
        prop_assert_eq!(got, reference(&fps));
    }
}

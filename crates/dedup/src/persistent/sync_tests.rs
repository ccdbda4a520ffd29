//! Unit tests of answering now and recording at sync, of the filter, and of the bulk load.

use super::*;
use crate::MemorySet;

fn id() -> StoreIdentity {
    StoreIdentity::new("scheme uri 0")
}

fn open(path: &Path, abandoned: Abandoned) -> PersistentSet {
    let o = PersistentOptions {
        abandoned,
        cache_bytes: 16 << 20,
        ..Default::default()
    };
    PersistentSet::open(path, &id(), o).unwrap()
}

fn fps(v: &[u128]) -> Vec<Fingerprint> {
    v.iter().map(|&f| Fingerprint(f)).collect()
}

fn answers(set: &mut PersistentSet, v: &[u128]) -> Vec<bool> {
    let mut new = Vec::new();
    set.insert_batch(&fps(v), &mut new).unwrap();
    new
}

#[test]
fn synced_keys_stay_and_unsynced_keys_are_new_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = open(&path, Abandoned::Seen);
    assert_eq!(answers(&mut set, &[1, 2, 1]), [true, true, false]);
    assert_eq!(set.unsynced(), 2);
    // Known to this process before any sync.
    assert_eq!(answers(&mut set, &[2, 3]), [false, true]);
    assert_eq!((set.len(), set.unsynced()), (3, 3));
    set.sync().unwrap();
    assert_eq!((set.len(), set.unsynced(), set.runs()), (3, 0, 1));
    assert_eq!(answers(&mut set, &[3, 4, 4]), [false, true, false]);
    assert!(set.contains(Fingerprint(4)).unwrap());
    drop(set); // killed after answering 4, before its sync
    let mut set = open(&path, Abandoned::Seen);
    assert_eq!(set.len(), 3);
    assert_eq!(
        answers(&mut set, &[1, 2, 3, 4]),
        [false, false, false, true]
    );
    set.finish().unwrap(); // syncs 4
    let mut set = open(&path, Abandoned::Seen);
    assert_eq!(answers(&mut set, &[4]), [false]);
}

#[test]
fn a_duplicate_costs_no_commit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = open(&path, Abandoned::Seen);
    answers(&mut set, &[1, 2]);
    set.sync().unwrap();
    let (runs, next_no) = (set.runs.clone(), set.next_no);
    let before = std::fs::read(&path).unwrap();
    assert_eq!(answers(&mut set, &[2, 1, 2]), [false; 3]);
    assert_eq!(set.unsynced(), 0);
    set.sync().unwrap();
    assert_eq!((&set.runs, set.next_no), (&runs, next_no));
    // No write transaction: the file is byte for byte the same.
    assert!(std::fs::read(&path).unwrap() == before);
}

#[test]
fn abandoned_new_counts_synced_and_unsynced_keys_as_new_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = open(&path, Abandoned::New);
    answers(&mut set, &[1, 2]);
    set.sync().unwrap();
    answers(&mut set, &[3]);
    drop(set); // killed: its output (1, 2, 3) is gone
    let mut set = open(&path, Abandoned::New);
    assert_eq!(answers(&mut set, &[1, 2, 3, 1]), [true, true, true, false]);
    assert_eq!(set.len(), 3, "1 and 2 were stored already");
    set.finish().unwrap();
    let mut set = open(&path, Abandoned::New);
    assert_eq!(answers(&mut set, &[1, 2, 3]), [false; 3]);
}

/// A fingerprint spread over the whole range (an LCG, then a multiply).
fn spread(i: u64) -> u128 {
    (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) | 1
}

#[test]
fn the_filter_is_rebuilt_as_the_store_grows_and_never_drops_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = open(&path, Abandoned::Seen);
    let first = set.filter.memory_bytes();
    let mut mem = MemorySet::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    // 45 batches of 10,000, half of each known already: the store outgrows the filter.
    for batch in 0..45u64 {
        let v: Vec<Fingerprint> = (0..10_000u64)
            .map(|i| Fingerprint(spread(batch * 5_000 + i)))
            .collect();
        set.insert_batch(&v, &mut a).unwrap();
        mem.insert_batch(&v, &mut b).unwrap();
        assert_eq!(a, b, "batch {batch}");
        set.sync().unwrap();
    }
    assert_eq!(set.len(), mem.len());
    assert!(
        set.filter.memory_bytes() > first,
        "the filter was not rebuilt"
    );
    // Every stored key passes the filter (rebuilt here at the open, too).
    drop(set);
    let set = open(&path, Abandoned::Seen);
    assert!(mem.iter().all(|f| set.filter.maybe(f.0)));
    // New keys: the filter says "certainly not" for almost all of them.
    let maybes = (0..100_000u64)
        .filter(|i| set.filter.maybe(spread(1 << 40 | i)))
        .count();
    assert!(maybes < 2_000, "{maybes} false maybes in 100,000");
}

#[test]
fn bulk_load_makes_one_run_and_refuses_disorder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = open(&path, Abandoned::Seen);
    // Out of order: nothing written.
    let err = set.bulk_load(fps(&[1, 3, 2])).unwrap_err();
    assert!(matches!(err, DedupError::InvalidConfig(_)), "{err}");
    let err = set.bulk_load(fps(&[1, 1])).unwrap_err();
    assert!(matches!(err, DedupError::InvalidConfig(_)), "{err}");
    assert_eq!((set.len(), set.runs()), (0, 0));
    let mut keys: Vec<u128> = (0..20_000u64).map(spread).collect();
    keys.sort_unstable();
    assert_eq!(set.bulk_load(fps(&keys)).unwrap(), 20_000);
    assert_eq!((set.len(), set.runs(), set.unsynced()), (20_000, 1, 0));
    // Its level is that of 20,000 single-key runs merged: small runs merge among themselves.
    assert_eq!(set.runs[0].level, 7);
    for i in 0..8u64 {
        answers(&mut set, &[spread(1 << 40 | i)]);
        set.sync().unwrap();
    }
    assert!(
        set.runs.iter().any(|r| r.len == 20_000),
        "the loaded run was merged"
    );
    drop(set);
    let mut set = open(&path, Abandoned::Seen);
    assert_eq!(set.len(), 20_008);
    assert_eq!(
        answers(&mut set, &[keys[7], keys[19_999], 5]),
        [false, false, true]
    );
    assert!(set.bulk_load(fps(&[9])).is_err(), "the store is not empty");
}

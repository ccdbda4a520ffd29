//! Unit tests of the persistent store.

use super::format::{CHUNKS, RUNS, WRITE_FPS as W, meta_value};
use super::*;
use crate::FINGERPRINT_VERSION;
use crate::MemorySet;
use redb::{ReadableTable, ReadableTableMetadata};

/// The identity of the tests' keys, with what a store of format 3 or older recorded of them.
pub(super) fn id() -> StoreIdentity {
    StoreIdentity::new(r#"{"rung":"scheme","form":"uri"}"#).with_legacy("scheme", "uri", 0)
}

pub(super) fn opts(abandoned: Abandoned) -> PersistentOptions {
    PersistentOptions {
        abandoned,
        cache_bytes: 16 << 20,
        ..Default::default()
    }
}

#[test]
fn matches_memory_set_across_runs_and_splits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut mem = MemorySet::new();
    let mut st = 5u64;
    let mut next = || {
        st = st
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // 3000 distinct values spread over the whole range, plus 0 and the maximum.
        match st >> 60 {
            0 => 0u128,
            1 => u128::MAX,
            _ => ((st >> 20) % 3000) as u128 * 0x0014_5555_5555_5555_5555_5555_5555_5555,
        }
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for run in 0..3 {
        let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
        for batch in 0..5 {
            let fps: Vec<Fingerprint> = (0..(700 + 300 * batch))
                .map(|_| Fingerprint(next()))
                .collect();
            set.insert_batch(&fps, &mut a).unwrap();
            mem.insert_batch(&fps, &mut b).unwrap();
            assert_eq!(a, b, "run {run} batch {batch}");
            assert_eq!(set.len(), mem.len());
            if batch % 2 == 0 {
                set.sync().unwrap();
                assert_eq!(set.unsynced(), 0);
            }
        }
        if run != 1 {
            set.finish().unwrap();
        } else {
            // Killed after its last sync: nothing unsynced is left behind.
            set.sync().unwrap();
        }
    }
    let set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    let mut all: Vec<Fingerprint> = mem.iter().collect();
    all.sort();
    assert_eq!(set.fingerprints().unwrap(), all);
    assert!(all.iter().all(|&f| set.contains(f).unwrap()));
}

#[test]
fn identity_fields_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    drop(PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap());
    for other in [
        r#"{"rung":"protocol","form":"uri"}"#,
        r#"{"rung":"scheme"}"#,
        "",
    ] {
        match PersistentSet::open(&path, &StoreIdentity::new(other), opts(Abandoned::Seen)) {
            Err(DedupError::IdentityMismatch { field, stored, .. }) => {
                assert_eq!((field, stored.as_str()), ("identity", id().text()));
            }
            other => panic!("{other:?}"),
        }
    }
    // A store of another fingerprint version is refused too.
    {
        let db = Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(META)
            .unwrap()
            .insert(
                "fingerprint_version",
                &meta_value("fingerprint_version", &2u32.to_le_bytes())[..],
            )
            .unwrap();
        txn.commit().unwrap();
    }
    let err = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap_err();
    assert!(
        matches!(
            err,
            DedupError::IdentityMismatch {
                field: "fingerprint version",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("use another store"));
}

/// Opens a run of the store at `path`, inserts and syncs `fps`, and returns the answers and
/// the set.
fn run_once(path: &Path, output: Abandoned, fps: &[u128]) -> (Vec<bool>, PersistentSet) {
    let mut set = PersistentSet::open(path, &id(), opts(output)).unwrap();
    let mut new = Vec::new();
    let fps: Vec<Fingerprint> = fps.iter().map(|&f| Fingerprint(f)).collect();
    set.insert_batch(&fps, &mut new).unwrap();
    set.sync().unwrap();
    (new, set)
}

#[test]
fn unfinished_runs_count_by_their_own_output() {
    use Abandoned::{New as Atomic, Seen as Stream};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let (_, done) = run_once(&path, Stream, &[10]);
    done.finish().unwrap();
    // Killed streams (20, 21): they printed what they committed.
    drop(run_once(&path, Stream, &[20]));
    drop(run_once(&path, Atomic, &[]).1);
    drop(run_once(&path, Stream, &[21]));
    // A killed atomic run (30, 40): its output is gone.
    drop(run_once(&path, Atomic, &[30, 40]));
    // Another atomic run finishes over other input (50): 40 stays new for later runs.
    let (new, other) = run_once(&path, Atomic, &[50]);
    assert_eq!(new, [true]);
    other.finish().unwrap();
    // A stream meets them: 20 and 21 seen (whatever this run's output), 30 new again.
    let (new, stream) = run_once(&path, Stream, &[10, 20, 21, 30]);
    assert_eq!(new, [false, false, false, true]);
    drop(stream); // killed: 30 was printed by it, so it is seen from now on
    let (new, mut redo) = run_once(&path, Atomic, &[10, 20, 30, 40, 50]);
    assert_eq!(new, [false, false, false, true, false]);
    let mut again = Vec::new();
    redo.insert_batch(&[Fingerprint(40)], &mut again).unwrap();
    assert_eq!(again, [false], "committed by this run");
    assert_eq!(redo.len(), 6);
    redo.finish().unwrap();
    let (new, _) = run_once(&path, Atomic, &[10, 20, 21, 30, 40, 50]);
    assert_eq!(new, [false; 6]);
}

/// `finish_with_output` with a `publish` that renames (or not) and then panics: the process
/// killed at that point (the marker committed, nothing after it).
fn killed_while_publishing(set: PersistentSet, tmp: &Path, out: &Path, rename: bool) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        set.finish_with_output(tmp, || {
            if rename {
                std::fs::rename(tmp, out)?;
            }
            panic!("killed here")
        })
    }));
    assert!(r.is_err());
}

/// A store, a temporary output and its target, in a directory removed when dropped.
fn publish_paths() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let (path, tmp, out) = (p("seen.redb"), p(".out.tmp"), p("out"));
    (dir, path, tmp, out)
}

#[test]
fn a_kill_while_the_output_is_put_in_place_is_decided_at_the_next_open() {
    let (_dir, path, tmp, out) = publish_paths();
    // Killed after the rename, before the run was marked finished: it counts as finished.
    let (_, set) = run_once(&path, Abandoned::New, &[1]);
    std::fs::write(&tmp, "1").unwrap();
    killed_while_publishing(set, &tmp, &out, true);
    let (new, set) = run_once(&path, Abandoned::New, &[1, 2]);
    assert_eq!(new, [false, true]);
    // Killed before the rename: its output is discarded (the file removed), keys new again.
    std::fs::write(&tmp, "2").unwrap();
    killed_while_publishing(set, &tmp, &out, false);
    let (new, set) = run_once(&path, Abandoned::New, &[1, 2]);
    assert_eq!(new, [false, true]);
    assert!(!tmp.exists(), "the discarded output is removed");
    std::fs::write(&tmp, "2").unwrap();
    set.finish_with_output(&tmp, || std::fs::rename(&tmp, &out))
        .unwrap();
    let (new, _) = run_once(&path, Abandoned::New, &[1, 2]);
    assert_eq!(new, [false, false]);
}

#[test]
fn a_failed_rename_is_decided_at_once() {
    let (_dir, path, tmp, out) = publish_paths();
    let fail = || Err(std::io::Error::other("no rename"));
    // Not renamed: the run stays discarded even when the caller then removes its file.
    let (_, set) = run_once(&path, Abandoned::New, &[1]);
    std::fs::write(&tmp, "1").unwrap();
    let err = set.finish_with_output(&tmp, fail).unwrap_err();
    assert!(err.to_string().contains("no rename"), "{err}");
    std::fs::remove_file(&tmp).unwrap();
    let (new, set) = run_once(&path, Abandoned::New, &[1]);
    assert_eq!(new, [true]);
    // Renamed, then an error (say the directory's sync): the output is in place, finished.
    std::fs::write(&tmp, "1").unwrap();
    set.finish_with_output(&tmp, || std::fs::rename(&tmp, &out).and_then(|()| fail()))
        .unwrap_err();
    let (new, _) = run_once(&path, Abandoned::New, &[1]);
    assert_eq!(new, [false]);
}

/// Writes a store as formats 1 and 2 did (bare meta values, runs of 16 bytes, chunks of bare
/// fingerprints): runs given as (tag, sorted fingerprints), cut in chunks of `chunk`.
fn legacy_store(
    path: &Path,
    format: u32,
    runs: &[(u32, &[u128])],
    chunk: usize,
    extra: &[(&str, &[u8])],
) {
    let db = Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut meta = txn.open_table(META).unwrap();
        let mut chunks = txn.open_table(CHUNKS).unwrap();
        let mut runs_table = txn.open_table(RUNS).unwrap();
        let mut count = 0u64;
        for (i, &(tag, fps)) in runs.iter().enumerate() {
            let no = i as u64 + 1;
            for c in fps.chunks(chunk) {
                let bytes: Vec<u8> = c.iter().flat_map(|v| v.to_le_bytes()).collect();
                chunks.insert((no, c[0]), &bytes[..]).unwrap();
            }
            let mut v = tag.to_le_bytes().to_vec();
            v.extend_from_slice(&0u32.to_le_bytes());
            v.extend_from_slice(&(fps.len() as u64).to_le_bytes());
            runs_table.insert(no, &v[..]).unwrap();
            count += fps.len() as u64;
        }
        let next_run = runs.iter().map(|r| r.0).max().unwrap_or(0) + 1;
        let fields: [(&str, &[u8]); 8] = [
            ("store_format", &format.to_le_bytes()),
            ("fingerprint_version", &FINGERPRINT_VERSION.to_le_bytes()),
            ("rung", b"scheme"),
            ("form", b"uri"),
            ("ruleset_version", &0u32.to_le_bytes()),
            ("count", &count.to_le_bytes()),
            ("next_run", &next_run.to_le_bytes()),
            ("next_run_no", &(runs.len() as u64 + 1).to_le_bytes()),
        ];
        for (k, v) in fields.iter().chain(extra) {
            meta.insert(*k, *v).unwrap();
        }
    }
    txn.commit().unwrap();
}

/// The store's format as stored, read with redb directly.
fn format_of(path: &Path) -> Vec<u8> {
    let db = Database::create(path).unwrap();
    let txn = db.begin_read().unwrap();
    let meta = txn.open_table(META).unwrap();
    meta.get("store_format").unwrap().unwrap().value().to_vec()
}

#[test]
fn a_format_1_store_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    // Run 1 finished, run 2 not.
    let last = 1u32.to_le_bytes();
    legacy_store(
        &path,
        1,
        &[(1, &[1]), (2, &[2])],
        2000,
        &[("last_completed_run", &last)],
    );
    // the fields it recorded are checked against the new identity's legacy ones
    for (other, field) in [
        (id().with_legacy("protocol", "uri", 0), "rung"),
        (id().with_legacy("scheme", "iri", 0), "form"),
        (id().with_legacy("scheme", "uri", 2), "rule-set version"),
        (StoreIdentity::new(id().text()), "identity"),
    ] {
        match PersistentSet::open(&path, &other, opts(Abandoned::Seen)) {
            Err(DedupError::IdentityMismatch { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{other:?}"),
        }
    }
    let (new, set) = run_once(&path, Abandoned::Seen, &[1, 2, 3]);
    assert!(set.identity_adopted());
    drop(set);
    assert_eq!(
        new,
        [false, true, true],
        "run 2 unfinished: written again, not lost"
    );
    assert_eq!(
        format_of(&path),
        meta_value("store_format", &STORE_FORMAT.to_le_bytes())
    );
    // now it has the whole identity: the legacy fields are not asked again
    let set = PersistentSet::open(
        &path,
        &StoreIdentity::new(id().text()),
        opts(Abandoned::Seen),
    );
    assert!(!set.unwrap().identity_adopted());
}

#[test]
fn a_format_2_store_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let big: Vec<u128> = (0..5000u128).map(|i| i * 1_000_003 + 11).collect();
    // Run 2 was an atomic run that never finished: its keys count as new.
    let discarded = 2u32.to_le_bytes();
    legacy_store(
        &path,
        2,
        &[(1, &big), (2, &[3, 4])],
        2000,
        &[("discarded_runs", &discarded)],
    );
    let set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    assert_eq!(set.upgraded_from(), Some(2));
    let warning = set.report().warning.unwrap_or_default();
    assert!(
        warning.contains("upgraded from format 2 to format 5"),
        "{warning}"
    );
    let mut all: Vec<Fingerprint> = big.iter().chain(&[3, 4]).map(|&v| Fingerprint(v)).collect();
    all.sort();
    assert_eq!(set.fingerprints().unwrap(), all);
    drop(set);
    assert_eq!(
        format_of(&path),
        meta_value("store_format", &STORE_FORMAT.to_le_bytes())
    );
    // format 5: the chunks moved to the runs' files, cut again in chunks of WRITE_FPS
    {
        let db = Database::create(&path).unwrap();
        let txn = db.begin_read().unwrap();
        assert_eq!(txn.open_table(CHUNKS).unwrap().len().unwrap(), 0);
    }
    let len1 = std::fs::metadata(run_file(&path, 1)).unwrap().len();
    assert_eq!(
        len1,
        (5000u64.div_ceil(W as u64) as usize * files::SLOT) as u64
    );
    let (new, set) = run_once(
        &path,
        Abandoned::Seen,
        &[big[0], big[2500], big[4999], 3, 5],
    );
    assert_eq!(set.upgraded_from(), None, "upgraded once");
    assert_eq!(new, [false, false, false, true, true]);
    assert!(set.contains(Fingerprint(big[4000])).unwrap());
    assert_eq!(set.len(), 5003);
    // A format-2 store whose chunk is out of order is damaged, not upgraded.
    let path = dir.path().join("bad.redb");
    legacy_store(&path, 2, &[(1, &[9, 8])], 2000, &[("discarded_runs", &[])]);
    let err = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap_err();
    assert!(matches!(err, DedupError::CorruptStore { .. }), "{err}");
}

#[test]
fn not_a_store_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk");
    std::fs::write(&path, b"this is not a redb file at all, not even close").unwrap();
    let err = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap_err();
    assert!(matches!(err, DedupError::CorruptStore { .. }), "{err}");
    let err = PersistentSet::open(dir.path().join("no/such/dir"), &id(), opts(Abandoned::Seen))
        .unwrap_err();
    assert!(matches!(err, DedupError::Store { .. }), "{err}");
}

#[test]
fn damaged_chunk_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    set.insert_batch(&[Fingerprint(5)], &mut Vec::new())
        .unwrap();
    set.sync().unwrap();
    drop(set);
    // the chunk's slot holds three bytes of chunk
    patch(&run_file(&path, 1), 0, |slot| {
        slot[..7].copy_from_slice(&[3, 0, 0, 0, 1, 2, 3]);
    });
    // The open reads every run (for the filter); without it, every lookup path checks.
    let err = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap_err();
    assert!(matches!(err, DedupError::CorruptStore { .. }), "{err}");
    let mut set = PersistentSet::open_unfiltered(&path, &id(), opts(Abandoned::Seen)).unwrap();
    let err = set
        .insert_batch(&[Fingerprint(5)], &mut Vec::new())
        .unwrap_err();
    assert!(matches!(err, DedupError::CorruptStore { .. }), "{err}");
    assert!(set.contains(Fingerprint(5)).is_err());
    assert!(set.fingerprints().is_err());
}

#[test]
fn levels_merge_and_sparse_lookups_agree_with_memory() {
    // 40 batches of 1,000 into a store that grows to ~30k keys over several levels, then
    // batches of 3 (sparse lookups, one chunk read per candidate and run).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    let mut mem = MemorySet::new();
    let mut st = 77u64;
    let mut next = |range: u64| {
        st = st
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Fingerprint(((st >> 24) % range) as u128 * 0x0000_0abc_def1_2345_6789_abcd_ef12_3457)
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..40 {
        let fps: Vec<Fingerprint> = (0..1000).map(|_| next(60_000)).collect();
        set.insert_batch(&fps, &mut a).unwrap();
        mem.insert_batch(&fps, &mut b).unwrap();
        assert_eq!(a, b);
        set.sync().unwrap();
    }
    assert!(set.runs() < 10, "{} runs", set.runs());
    assert!(set.runs.iter().any(|r| r.level >= 2));
    for _ in 0..30 {
        let fps: Vec<Fingerprint> = (0..3).map(|_| next(60_000)).collect();
        set.insert_batch(&fps, &mut a).unwrap();
        mem.insert_batch(&fps, &mut b).unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(set.len(), mem.len());
    let mut all: Vec<Fingerprint> = mem.iter().collect();
    all.sort();
    assert_eq!(set.fingerprints().unwrap(), all);
}

/// Changes the store at `path` with redb directly.
fn edit(path: &Path, f: impl FnOnce(&redb::WriteTransaction)) {
    let db = Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    f(&txn);
    txn.commit().unwrap();
}

/// The file of run `no` of the store at `path`.
pub(super) fn run_file(path: &Path, no: u64) -> PathBuf {
    files::runs_dir(path).join(format!("run-{no}"))
}

/// Changes slot `slot` of a run file in place (the same file, as an open store holds it).
pub(super) fn patch(file: &Path, slot: usize, f: impl FnOnce(&mut [u8])) {
    use std::os::unix::fs::FileExt;
    let at = (slot * files::SLOT) as u64;
    let handle = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(file)
        .unwrap();
    let mut buf = vec![0u8; files::SLOT];
    handle.read_exact_at(&mut buf, at).unwrap();
    f(&mut buf);
    handle.write_all_at(&buf, at).unwrap();
}

/// A store of one run of 2.5 chunks of fingerprints (three chunks; the second holds `fps[W..2W]`,
/// `W` = [`WRITE_FPS`]) and one of two more; returns the fingerprints of the first.
fn three_chunk_store(path: &Path) -> Vec<u128> {
    let fps: Vec<u128> = (0..(5 * W / 2) as u128)
        .map(|i| (i << 100) + i * 7 + 1)
        .collect();
    let (_, set) = run_once(path, Abandoned::Seen, &fps);
    set.finish().unwrap();
    let (_, set) = run_once(path, Abandoned::Seen, &[3, 5]);
    set.finish().unwrap();
    fps
}

pub(super) fn assert_corrupt(r: Result<impl std::fmt::Debug>, what: &str, case: &str) {
    match r {
        Err(DedupError::CorruptStore { detail, .. }) => {
            assert!(
                detail.contains(what),
                "{case}: {detail:?} does not say {what:?}"
            )
        }
        other => panic!("{case}: {other:?}"),
    }
}

#[test]
fn a_flipped_byte_of_a_chunk_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let fps = three_chunk_store(&path);
    let file = run_file(&path, 1);
    let good = std::fs::read(&file).unwrap();
    let body = 4 + W * 16;
    // In the chunk's length (4,001 bytes; more than a slot), in a fingerprint, in the next
    // chunk's key, the last-chunk mark, the checksum.
    for at in [0, 1, 4 + 16 * (W / 2) + 5, body + 3, body + 16, body + 31] {
        std::fs::write(&file, &good).unwrap();
        // A store open (its fences read) whose file changes under it: the sparse path checks.
        let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
        // byte 1 of the length: 4,000 + 4,096, more than a slot holds
        patch(&file, 1, |slot| {
            slot[at] ^= if at == 1 { 0x10 } else { 0x01 }
        });
        let case = format!("byte {at}");
        let what = if at == 1 {
            "run 1, slot 1: a chunk of 8096 bytes".to_owned()
        } else {
            format!("run 1, chunk {:#034x}", fps[W])
        };
        let what = what.as_str();
        // One chunk read (sparse, by the fences), a pass over the run (dense), the whole store.
        assert_corrupt(set.contains(Fingerprint(fps[W + W / 2])), what, &case);
        let probe = [Fingerprint(fps[W + W / 2]), Fingerprint(fps[5 * W / 2 - 1])];
        assert_corrupt(set.insert_batch(&probe, &mut Vec::new()), what, &case);
        assert_corrupt(set.fingerprints(), what, &case);
        // Keys outside the chunk are still answered (the run's other chunks are whole).
        assert!(set.contains(Fingerprint(fps[10])).unwrap());
        drop(set);
        // The open reads every run for the filter; without it, every lookup path checks.
        let opened = PersistentSet::open(&path, &id(), opts(Abandoned::Seen));
        assert_corrupt(opened, what, &case);
        let mut set = PersistentSet::open_unfiltered(&path, &id(), opts(Abandoned::Seen)).unwrap();
        assert_corrupt(set.contains(Fingerprint(fps[W + W / 2])), what, &case);
        assert_corrupt(set.insert_batch(&probe, &mut Vec::new()), what, &case);
        assert!(set.contains(Fingerprint(fps[10])).unwrap());
    }
}

#[test]
fn a_lost_moved_or_foreign_chunk_or_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let fps = three_chunk_store(&path);
    let (one, two) = (run_file(&path, 1), run_file(&path, 2));
    let (good1, good2) = (std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let slot = |i: usize| good1[i * files::SLOT..(i + 1) * files::SLOT].to_vec();
    // (case, the damage, what the error says, whether the open of the files finds it)
    type Damage<'a> = Box<dyn Fn() + 'a>;
    let cases: Vec<(&str, Damage, &str, bool)> = vec![
        (
            "slots swapped",
            Box::new(|| {
                let (a, b) = (slot(1), slot(2));
                patch(&one, 1, |s| s.copy_from_slice(&b));
                patch(&one, 2, |s| s.copy_from_slice(&a));
            }),
            "checksum",
            false,
        ),
        (
            "a slot of run 2",
            Box::new(|| patch(&one, 1, |s| s.copy_from_slice(&good2[..files::SLOT]))),
            "checksum",
            false,
        ),
        (
            "the last slot cut",
            Box::new(|| std::fs::write(&one, &good1[..2 * files::SLOT]).unwrap()),
            "bytes",
            true,
        ),
        (
            "the file removed",
            Box::new(|| std::fs::remove_file(&one).unwrap()),
            "missing",
            true,
        ),
        (
            "the file of run 2 in its place",
            Box::new(|| std::fs::write(&one, &good2).unwrap()),
            "bytes",
            true,
        ),
    ];
    for (case, damage, what, at_open) in cases {
        std::fs::write(&one, &good1).unwrap();
        std::fs::write(&two, &good2).unwrap();
        damage();
        let opened = PersistentSet::open(&path, &id(), opts(Abandoned::Seen));
        assert_corrupt(opened, "run 1", case);
        let unfiltered = PersistentSet::open_unfiltered(&path, &id(), opts(Abandoned::Seen));
        if at_open {
            assert_corrupt(unfiltered, what, case);
            continue;
        }
        let mut set = unfiltered.unwrap();
        assert_corrupt(set.contains(Fingerprint(fps[W + W / 2])), what, case);
        let probe = [Fingerprint(fps[W + W / 2]), Fingerprint(fps[5 * W / 2 - 1])];
        assert_corrupt(set.insert_batch(&probe, &mut Vec::new()), "run 1", case);
        assert_corrupt(set.fingerprints(), "run 1", case);
    }
}

#[test]
fn a_lost_or_emptied_database_file_beside_run_files_is_damage_not_a_new_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    three_chunk_store(&path);
    for case in ["emptied", "removed"] {
        if case == "emptied" {
            std::fs::write(&path, b"").unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
        let opened = PersistentSet::open(&path, &id(), opts(Abandoned::Seen));
        assert_corrupt(opened, "holds run files", case);
        assert!(run_file(&path, 1).exists(), "{case}: the runs are kept");
    }
}

#[test]
fn a_run_file_no_list_names_is_removed_at_open_and_a_listed_one_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    three_chunk_store(&path);
    // what a write killed before its commit leaves: a file whose run is not listed
    let stray = run_file(&path, 9);
    std::fs::write(&stray, vec![7u8; files::SLOT]).unwrap();
    let other = files::runs_dir(&path).join("notes.txt");
    std::fs::write(&other, b"not a run file").unwrap();
    let set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    assert!(!stray.exists());
    assert!(other.exists(), "only run files are removed");
    assert!(run_file(&path, 1).exists() && run_file(&path, 2).exists());
    assert_eq!(set.len(), (5 * W / 2 + 2) as u64);
}

#[test]
fn a_damaged_run_record_or_counter_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    three_chunk_store(&path);
    let good = std::fs::read(&path).unwrap();
    type Edit = Box<dyn Fn(&redb::WriteTransaction)>;
    let flip_run: Edit = Box::new(|txn| {
        let mut t = txn.open_table(RUNS).unwrap();
        let mut v = t.get(1u64).unwrap().unwrap().value().to_vec();
        v[9] ^= 0x01; // the length
        t.insert(1u64, &v[..]).unwrap();
    });
    let lose_run: Edit = Box::new(|txn| {
        txn.open_table(RUNS).unwrap().remove(2u64).unwrap();
    });
    let flip_count: Edit = Box::new(|txn| {
        let mut t = txn.open_table(META).unwrap();
        let mut v = t.get("count").unwrap().unwrap().value().to_vec();
        v[0] ^= 0xFF;
        t.insert("count", &v[..]).unwrap();
    });
    let bare_format: Edit = Box::new(|txn| {
        let mut t = txn.open_table(META).unwrap();
        t.insert("store_format", &3u32.to_le_bytes()[..]).unwrap();
    });
    let no_meta: Edit = Box::new(|txn| {
        txn.delete_table(META).unwrap();
    });
    let old_counter: Edit = Box::new(|txn| {
        let mut t = txn.open_table(META).unwrap();
        let v = meta_value("next_run_no", &1u64.to_le_bytes());
        t.insert("next_run_no", &v[..]).unwrap();
    });
    for (case, f, what) in [
        ("run length", flip_run, "run 1: checksum mismatch"),
        ("run lost", lose_run, "digest"),
        ("count", flip_count, "meta count: checksum mismatch"),
        ("bare format", bare_format, "without its checksum"),
        ("no meta", no_meta, "store_format missing"),
        ("run number reused", old_counter, "past the counters"),
    ] {
        std::fs::write(&path, &good).unwrap();
        edit(&path, f);
        assert_corrupt(
            PersistentSet::open(&path, &id(), opts(Abandoned::Seen)),
            what,
            case,
        );
    }
}

#[test]
fn a_panic_inside_the_database_is_a_typed_error() {
    let path = Path::new("seen.redb");
    let err = format::guarded(path, "testing", || -> Result<()> {
        panic!("page 7 is odd")
    })
    .unwrap_err();
    assert_corrupt(Err::<(), _>(err), "while testing (page 7 is odd)", "panic");
    // The hook prints again for the thread afterwards, and errors pass through.
    let err = format::guarded(path, "testing", || -> Result<()> {
        Err(DedupError::InvalidConfig("x".into()))
    });
    assert!(matches!(err, Err(DedupError::InvalidConfig(_))));
}

#[test]
fn contains_answers_as_insert_batch_for_a_discarded_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let (_, set) = run_once(&path, Abandoned::New, &[1, 2]);
    assert!(set.contains(Fingerprint(1)).unwrap(), "this run's own keys");
    drop(set); // killed: never finished, its keys count as new
    let (new, set) = run_once(&path, Abandoned::New, &[2]);
    assert_eq!(new, [true]);
    assert!(!set.contains(Fingerprint(1)).unwrap());
    assert!(set.contains(Fingerprint(2)).unwrap());
    set.finish().unwrap();
    let set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    assert!(!set.contains(Fingerprint(1)).unwrap() && set.contains(Fingerprint(2)).unwrap());
}

#[test]
fn fenced_lookups_agree_with_a_set_and_the_fences_with_the_files() {
    // A store grown over many syncs (runs merged at several levels), then every kind of probe
    // through the fences with a filter that says "maybe" for all: stored keys, absent keys
    // between them, below the smallest, above the largest, and each fence itself.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seen.redb");
    let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
    let mut mem = MemorySet::new();
    let mut st = 5u64;
    let mut next = || {
        st = st
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Fingerprint(u128::from(st >> 20) << 66 | 1)
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..24 {
        let fps: Vec<Fingerprint> = (0..200 + round * 97).map(|_| next()).collect();
        set.insert_batch(&fps, &mut a).unwrap();
        mem.insert_batch(&fps, &mut b).unwrap();
        assert_eq!(a, b);
        set.sync().unwrap();
    }
    assert!(set.runs.iter().any(|r| r.level >= 2), "{:?}", set.runs);
    // The fences of every run (merged ones included) are the first fingerprints of the chunks
    // in its file (read here from the slots: length, then the fingerprints).
    for run in &set.runs {
        let bytes = std::fs::read(run_file(&path, run.no)).unwrap();
        let keys: Vec<u128> = bytes
            .chunks(files::SLOT)
            .map(|slot| u128::from_le_bytes(slot[4..20].try_into().unwrap()))
            .collect();
        assert!(keys.len() > 1 || run.len <= W as u64, "{run:?}");
        assert_eq!(
            set.fences.of(run.no).map(|f| f.all()),
            Some(&keys[..]),
            "run {}",
            run.no
        );
    }
    // no file of a run merged away is left
    let listed = std::fs::read_dir(files::runs_dir(&path)).unwrap().count();
    assert_eq!(listed, set.runs.len());
    set.filter = StoreFilter::all_maybe();
    let stored: Vec<Fingerprint> = mem.iter().collect();
    let mut probes: Vec<Fingerprint> = stored.iter().step_by(7).copied().collect();
    probes.extend(stored.iter().step_by(5).map(|f| Fingerprint(f.0 + 2)));
    probes.extend([Fingerprint(0), Fingerprint(u128::MAX)]);
    for run in &set.runs {
        probes.extend(
            set.fences
                .of(run.no)
                .unwrap()
                .all()
                .iter()
                .map(|&f| Fingerprint(f)),
        );
    }
    for chunk in probes.chunks(3) {
        set.insert_batch(chunk, &mut a).unwrap();
        mem.insert_batch(chunk, &mut b).unwrap();
        assert_eq!(a, b, "{chunk:?}");
    }
}

//! The persistent seen-set for crawler frontiers: fingerprints kept across runs in a redb file
//! (the list of runs, identity, counters) and a folder of run files.
//!
//! `format.rs` holds the on-disk encoding (tables, checksummed values, identity), `files.rs`
//! the runs' files, `open.rs` the opening transaction, `runs.rs` the lookups in runs and their
//! merges, `upgrade.rs` the upgrade of older formats; this file the public API.

mod batch;
mod fences;
mod files;
mod filter;
mod format;
mod helpers;
mod open;
mod runs;
#[cfg(test)]
mod sync_tests;
#[cfg(test)]
mod tests;
mod upgrade;

use crate::{DedupError, Fingerprint, Result, SeenSet};
use files::RunFiles;
use filter::{StoreFilter, Unsynced};
use format::{FP_BYTES, META, RunInfo, StoreCtx, begin_write, encode_tags, guarded, meta_put};
use redb::Database;
use runs::{RunReader, lookup_one_run};
use std::path::{Path, PathBuf};

/// The version of the store's layout (tables, chunk encoding, meta keys). Recorded in the
/// store; a store of a later layout is refused with [`DedupError::IdentityMismatch`].
///
/// ```
/// assert_eq!(linksieve_dedup::STORE_FORMAT, 5);
/// ```
///
/// Format 5 keeps each run's chunks in a file of its own (`<path>.runs/run-<n>`) where format 4
/// kept them in the database, so that a lookup is one positioned read of 4 KiB rather than a
/// descent of redb's tree (see [`PersistentSet`]). A store of format 4 or older is upgraded at
/// its first open: every run is read, checked and written to its file, then the database's
/// chunks table is emptied, in the opening transaction (a store killed meanwhile is still of
/// its old format, and upgrades at the next open).
///
/// Format 4 records the keys' identity whole, as the caller's opaque text ([`StoreIdentity`])
/// where format 3 kept a rung, a form and a rule-set version: a format-3 store whose fields
/// match the caller's [`StoreIdentity::with_legacy`] takes the new identity at its first open
/// (nothing else changes).
///
/// Format 3 gives every value a checksum (each chunk of a run, each run's record, each `meta`
/// entry) and each chunk the first fingerprint of the run's next chunk, so that a damaged store
/// is found (see *Damage* on [`PersistentSet`]). A store of format 2 or 1 is upgraded when it is
/// opened, in the opening transaction: every chunk, run and meta entry is stored again with its
/// checksum, after the checks that need none (lengths, order, each run's length); this writes
/// the whole store once. Upgrading rather than refusing keeps the crawler's history: a store
/// that had to be rebuilt would count every key as new once more.
///
/// Format 2 records which process runs wrote a discarded (atomic) output (`discarded_runs`)
/// where format 1 kept a "last completed run" mark; a format-1 store is upgraded too (runs
/// after that mark count as discarded, as format 1 counted them for `--out`).
pub const STORE_FORMAT: u32 = 5;

/// Lookup answers, ordered: a candidate keeps the largest it gets.
const ABSENT: u8 = 0;
const IN_ABANDONED: u8 = 1;
const SEEN: u8 = 2;

/// What the keys of a store are: recorded when the store is made, compared at every open. An
/// opaque text to this crate: its caller puts in it every option that changes a key (linksieve
/// writes its key identity as JSON: hash, rung, form, rules, profile, `--nfc`, `--input-mode`), so a
/// store refuses keys made another way.
///
/// ```
/// use linksieve_dedup::StoreIdentity;
/// let id = StoreIdentity::new(r#"{"rung":"scheme"}"#);
/// assert_eq!(id.text(), r#"{"rung":"scheme"}"#);
/// assert_eq!(id.legacy(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreIdentity {
    text: String,
    legacy: Option<(String, String, u32)>,
}

impl StoreIdentity {
    /// An identity from its text.
    ///
    /// ```
    /// let id = linksieve_dedup::StoreIdentity::new("scheme uri 0");
    /// assert_eq!(id.text(), "scheme uri 0");
    /// ```
    pub fn new(text: impl Into<String>) -> Self {
        StoreIdentity {
            text: text.into(),
            legacy: None,
        }
    }

    /// What a store made before [`STORE_FORMAT`] 4 recorded for the same keys (their rung,
    /// form and rule-set version): such a store whose fields match takes this identity at its
    /// first open ([`PersistentSet::identity_adopted`]); one whose fields differ is refused.
    ///
    /// ```
    /// let id = linksieve_dedup::StoreIdentity::new("{}").with_legacy("scheme", "uri", 0);
    /// assert_eq!(id.legacy(), Some(("scheme", "uri", 0)));
    /// ```
    pub fn with_legacy(mut self, rung: &str, form: &str, ruleset_version: u32) -> Self {
        self.legacy = Some((rung.to_owned(), form.to_owned(), ruleset_version));
        self
    }

    /// The text.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::StoreIdentity::new("x").text(), "x");
    /// ```
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The fields a store of format 3 or older recorded, when given.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::StoreIdentity::new("x").legacy(), None);
    /// ```
    pub fn legacy(&self) -> Option<(&str, &str, u32)> {
        self.legacy
            .as_ref()
            .map(|(r, f, v)| (r.as_str(), f.as_str(), *v))
    }
}

/// What this run's output is, which says how the keys it commits count if it never finishes
/// (killed, or stopped by an error): recorded in the store at open, so that every later run,
/// whatever its own output, counts them the same way.
///
/// ```
/// use linksieve_dedup::Abandoned;
/// assert_eq!(Abandoned::default(), Abandoned::Seen);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Abandoned {
    /// A stream (the default): what the run printed was kept, so its synced keys count as
    /// seen (a caller syncs only keys it has printed; see the crash contract on
    /// [`PersistentSet`]).
    #[default]
    Seen,
    /// Atomic (a temporary file renamed into place at the end): a run that never finishes has
    /// no output, so every later run counts its synced keys as new once more (and records them
    /// again under its own run), and the rerun's output is complete.
    New,
}

/// Options of [`PersistentSet::open`].
///
/// ```
/// use linksieve_dedup::{Abandoned, PersistentOptions};
/// let o = PersistentOptions { abandoned: Abandoned::New, ..PersistentOptions::default() };
/// assert_eq!(o.cache_bytes, 256 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct PersistentOptions {
    /// What this run's output is: how its keys count if it never finishes.
    pub abandoned: Abandoned,
    /// The database's page cache limit, in bytes (default 256 MiB). The store takes at most
    /// 1/64 of the bytes its file holds at open (at least 4 MiB) of it: the in-memory filter
    /// answers for the keys, the cache holds the tree's inner pages, and the system's page
    /// cache the rest (so the process's memory stays under 2 bytes per stored key).
    pub cache_bytes: usize,
    /// The threads a batch's single reads in one run may be split over, the calling one
    /// included (64 or more reads; each thread takes 32 or more): 0 (the default) as many as
    /// the machine has cores, at most 4; 1 reads on the calling thread only. Where `pread` is
    /// missing (not Unix), always 1. The other threads are the store's helpers, started at the
    /// first batch that splits its reads and kept until the store is dropped; after a share
    /// each spins for up to 200 us waiting for the next one before it blocks.
    pub read_threads: usize,
}

impl Default for PersistentOptions {
    fn default() -> Self {
        PersistentOptions {
            abandoned: Abandoned::Seen,
            cache_bytes: 256 << 20,
            read_threads: 0,
        }
    }
}

/// The persistent seen-set (`--seen PATH`): fingerprints kept across runs, so that a crawler
/// frontier writes only keys no earlier run wrote.
///
/// **Answer now, record at sync.** [`insert_batch`](SeenSet::insert_batch) answers at once and
/// writes nothing: the keys it answers new are *unsynced*, kept in memory (a repeat in this
/// process is answered seen). [`sync`](SeenSet::sync) records them in the store as a new run,
/// in one durable write transaction; the caller calls it once it has delivered them (written
/// and flushed its output, or returned them to its own caller), per its
/// [`CommitPolicy`](crate::CommitPolicy). A batch of duplicates only costs no commit: `sync`
/// with nothing unsynced does nothing. [`finish`](PersistentSet::finish) and
/// [`finish_with_output`](PersistentSet::finish_with_output) sync first.
///
/// **Filter.** A blocked Bloom filter over every stored key is kept in memory: built at open
/// (one sequential read of the store), fed by each sync, built again larger when the store has
/// grown by a third since. It has 11 bits per stored key when built (1.4 bytes, 0.84 % false
/// "maybe"; 8.25 bits, 2.3 %, just before it is rebuilt). A key it has certainly not stored
/// costs no disk read; a "maybe" is looked up in the runs, so the filter never drops a key.
/// The first fingerprint of every chunk (its *fence*, 16 bytes a chunk) is kept in memory too,
/// so a lookup reads the one chunk that may hold a key by its position. Every chunk read is checked
/// (its checksum, its order, its place in the run's chain).
///
/// **Store.** A log-structured set: immutable sorted *runs* of fingerprints, each in a file
/// of its own in the folder beside the store's path (`<path>.runs/run-<n>`), cut in chunks of
/// 248 (3,968 bytes, one 4 KiB slot each): about 17 bytes of disk per key. The store's path is
/// a [redb](https://www.redb.org) file that lists the runs and holds the identity and
/// counters; a run is listed only once its file is written and synced, and a file no list names
/// (a crash between the two) is removed at the next open. Copy or move a store as the file and
/// its folder together. A lookup reads the one chunk that may hold a candidate in each run
/// (one positioned read), the largest runs first (or makes one sequential pass over a run
/// when the candidates are many against it). Runs of one level are
/// merged four at a time (k-way) into a run of the next level, so each fingerprint is
/// rewritten about `log4(keys / sync)` times and the number of runs stays logarithmic. (A
/// B-tree keyed by fingerprint, one entry per key or blocks of keys, rewrites every leaf for
/// every large batch of random keys; the crate README has the measurements of both layouts.)
/// [`bulk_load`](PersistentSet::bulk_load) writes a sorted stream into an empty store as one
/// run.
///
/// **Identity.** A `meta` table records [`STORE_FORMAT`], [`FINGERPRINT_VERSION`](crate::FINGERPRINT_VERSION) and the
/// caller's [`StoreIdentity`] when the store is made; [`open`](PersistentSet::open) refuses any
/// other with [`DedupError::IdentityMismatch`]. It also keeps the key count and run numbers.
///
/// **Crash contract.** A synced key is never lost: `sync` returns only after the run is
/// durably committed (fsync, two-phase commit), and every later run answers it seen. A key
/// answered new but not yet synced when the process dies (`kill -9`, a panic, a drop without
/// `sync`) is not in the store: the next run answers it new again. So a caller that syncs only
/// keys it has delivered never loses one, and delivers at most the unsynced keys of a crash
/// twice (at least once, never lost). A run whose output is a file renamed into place at the
/// end opens with [`Abandoned::New`]: the store records it as *discarded* until it finishes,
/// and every later run counts the keys of a discarded run (synced or not) as new (each run of
/// fingerprints is tagged with the process run that wrote it, for this). Such a run ends with
/// [`finish_with_output`](PersistentSet::finish_with_output), which syncs, puts its output in
/// place and marks the run finished as one step that a kill cannot split; a streaming run
/// ends with [`finish`](PersistentSet::finish). Only one process can open a store at a time
/// (redb locks the file).
///
/// **Damage.** Every value carries a checksum over its key and contents (XXH3-64): each chunk
/// of a run (over its run number and first fingerprint too), each run's record (tag, level, length, first fingerprint) and each `meta` entry,
/// and `meta` keeps a digest of the list of runs. Each chunk names the first fingerprint of the
/// run's next chunk, so a lookup also finds a chunk that is missing, moved or of another run.
/// Every read checks what it reads, and the open checks the counters against the runs and
/// each run's file length against its chunks (a missing or cut file is found there). A
/// mismatch is [`DedupError::CorruptStore`] naming the run and chunk or the entry, never a
/// wrong answer; a panic inside redb on a damaged page is caught and reported the same way.
/// redb's own page checksums are not enough for this: redb 2.6.4 verifies them only when it
/// repairs a file that was not closed cleanly, and then silently rolls back to the previous
/// commit (see `guarded` in `format.rs`). What a checksum cannot see is a store rolled back
/// as a whole to an earlier consistent commit (a damaged commit slot of redb's header): the
/// keys of the commits after it count as new again.
///
/// ```
/// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("seen.redb");
/// let id = StoreIdentity::new("scheme uri 0");
/// let mut new = Vec::new();
///
/// let mut run1 = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
/// run1.insert_batch(&[Fingerprint(1), Fingerprint(2), Fingerprint(1)], &mut new).unwrap();
/// assert_eq!(new, [true, true, false]); // write keys 1 and 2, flush, then:
/// run1.sync().unwrap();
/// run1.insert_batch(&[Fingerprint(5)], &mut new).unwrap();
/// drop(run1); // killed before it synced 5
///
/// let mut run2 = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
/// run2.insert_batch(&[Fingerprint(2), Fingerprint(5)], &mut new).unwrap();
/// assert_eq!(new, [false, true]); // 5 is new again
/// run2.finish().unwrap(); // syncs 5
///
/// let mut run3 = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
/// run3.insert_batch(&[Fingerprint(5), Fingerprint(3)], &mut new).unwrap();
/// assert_eq!(new, [false, true]);
/// assert_eq!(run3.len(), 4);
/// drop(run3);
///
/// let other = StoreIdentity::new("scheme surt 0");
/// assert!(PersistentSet::open(&path, &other, PersistentOptions::default()).is_err());
/// ```
pub struct PersistentSet {
    /// `None` only while dropped (the database is closed under [`guarded`]).
    db: Option<Database>,
    path: PathBuf,
    run: u32,
    /// Process runs with atomic output that did not finish (this one among them until it does):
    /// their keys count as new (see [`Abandoned`]).
    discarded: Vec<u32>,
    /// Keys in the store (synced).
    len: u64,
    /// Keys in the store when it was opened.
    len_at_open: u64,
    /// The store took this run's identity at this open (see [`StoreIdentity::with_legacy`]).
    adopted: bool,
    /// The format this open upgraded the store from.
    upgraded_from: Option<u32>,
    cache_bytes: usize,
    runs: Vec<RunInfo>,
    next_no: u64,
    /// Every stored key is in it (a "maybe" is looked up in the runs).
    filter: StoreFilter,
    /// Keys answered new and not yet recorded.
    unsynced: Unsynced,
    /// Of the unsynced keys, those not stored at all (the others are in discarded runs).
    unsynced_added: u64,
    /// The first fingerprint of every chunk of the runs (see [`fences`]).
    fences: fences::Fences,
    /// The runs' files (see [`files`]).
    files: RunFiles,
    /// The positions of `runs`, the largest run first: the order of lookups.
    by_size: Vec<usize>,
    sorted: Vec<(u128, usize)>,
    status: Vec<u8>,
    /// Scratch of the lookups (see `batch.rs`), kept from one call to the next.
    pending: Vec<(u128, usize)>,
    pending_status: Vec<u8>,
}

/// The positions of `runs`, the largest run first.
fn runs_by_size(runs: &[RunInfo]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(runs[i].len));
    order
}

impl std::fmt::Debug for PersistentSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistentSet")
            .field("path", &self.path)
            .field("run", &self.run)
            .field("discarded", &self.discarded)
            .field("len", &self.len)
            .field("unsynced", &self.unsynced.len())
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

/// The bytes a file holds on disk: its length, or less where it is sparse (redb grows its file
/// by doubling, with a tail that holds nothing to cache).
fn held_bytes(m: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.len().min(m.blocks().saturating_mul(512))
    }
    #[cfg(not(unix))]
    {
        m.len()
    }
}

impl Drop for PersistentSet {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            // redb writes its allocator state when it closes, which may panic on a damaged file.
            let _ = guarded(&self.path, "closing", || {
                drop(db);
                Ok(())
            });
        }
    }
}

impl PersistentSet {
    /// Opens the store at `path`, making it if there is no file there, and starts a new run.
    /// A new store records `identity` (with [`STORE_FORMAT`] and [`FINGERPRINT_VERSION`](crate::FINGERPRINT_VERSION)); an
    /// existing one must have recorded the same, or [`DedupError::IdentityMismatch`] says which
    /// field differs. A store left by a killed process is recovered by redb (its last
    /// committed transaction). A store of an older format is upgraded (see [`STORE_FORMAT`]); a
    /// damaged one is [`DedupError::CorruptStore`].
    ///
    /// ```
    /// use linksieve_dedup::{DedupError, PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("seen.redb");
    /// let set = PersistentSet::open(&path, &StoreIdentity::new("scheme uri 0"), PersistentOptions::default()).unwrap();
    /// assert_eq!(set.run_id(), 1);
    /// drop(set);
    /// let err = PersistentSet::open(&path, &StoreIdentity::new("syntax uri 0"), PersistentOptions::default()).unwrap_err();
    /// assert!(matches!(err, DedupError::IdentityMismatch { field: "identity", .. }));
    /// ```
    pub fn open(
        path: impl AsRef<Path>,
        identity: &StoreIdentity,
        options: PersistentOptions,
    ) -> Result<PersistentSet> {
        let mut set = Self::open_unfiltered(path, identity, options)?;
        (set.filter, set.fences) = StoreFilter::build(&set.path, &set.files, &set.runs, set.len)?;
        Ok(set)
    }

    /// [`open`](Self::open) with a filter that answers "maybe" for every key (so every lookup
    /// reads the runs); `open` builds the real one.
    fn open_unfiltered(
        path: impl AsRef<Path>,
        identity: &StoreIdentity,
        options: PersistentOptions,
    ) -> Result<PersistentSet> {
        let path = path.as_ref().to_path_buf();
        if !path.exists() {
            // A new database file is made beside the target and renamed into place, so that a
            // process killed while redb writes the file's first pages never leaves a half-made
            // store behind (that file would not open again).
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let tmp = path.with_file_name(format!(".{name}.creating-{}", std::process::id()));
            drop(Database::builder().create(&tmp).ctx(&tmp)?);
            // Put in place only if nothing is there yet (a hard link fails on an existing name:
            // exclusive, unlike a rename): of two processes that create one store at once, one
            // makes it and the other opens that one (or finds it locked), never replaces it
            // under the first, whose keys would go to a file no longer in the folder.
            // A file system without hard links gets the rename (not exclusive there).
            let placed = match std::fs::hard_link(&tmp, &path) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    std::fs::rename(&tmp, &path)
                }
                linked => linked,
            };
            let _ = std::fs::remove_file(&tmp);
            match placed {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(DedupError::Io {
                        op: "create seen store",
                        path: path.clone(),
                        source: e,
                    });
                }
            }
        }
        let file = std::fs::metadata(&path).map_or(0, |m| held_bytes(&m));
        let cache_bytes = options.cache_bytes.min(
            usize::try_from(file / 64)
                .unwrap_or(usize::MAX)
                .max(4 << 20),
        );
        let (db, opened, files) = guarded(&path, "opening it", || {
            let mut db = Database::builder()
                .set_cache_size(cache_bytes)
                .create(&path)
                .ctx(&path)?;
            // the folder is made once the database is open: under its lock
            let mut files = RunFiles::new(&path)?;
            let opened = Self::start(&db, &path, &files, identity, options.abandoned)?;
            if opened.upgraded_from.is_some() {
                // the chunks left the database: give their pages back
                db.compact().ctx(&path)?;
            }
            files.open_runs(&opened.runs)?;
            files.read_threads = options.read_threads;
            Ok((db, opened, files))
        })?;
        if let Some(tmp) = opened.stale {
            // Best effort: what is left is a stray file, never a wrong answer.
            let _ = std::fs::remove_file(tmp);
        }
        Ok(PersistentSet {
            db: Some(db),
            path,
            run: opened.run,
            discarded: opened.discarded,
            len: opened.len,
            len_at_open: opened.len,
            adopted: opened.adopted,
            upgraded_from: opened.upgraded_from,
            cache_bytes,
            by_size: runs_by_size(&opened.runs),
            runs: opened.runs,
            next_no: opened.next_no,
            filter: StoreFilter::all_maybe(),
            fences: fences::Fences::default(),
            files,
            unsynced: Unsynced::default(),
            unsynced_added: 0,
            sorted: Vec::new(),
            status: Vec::new(),
            pending: Vec::new(),
            pending_status: Vec::new(),
        })
    }

    /// The folder of run files of the store at `path` (its name with `.runs` added): part of
    /// the store, to copy or move with its file, and never to write into.
    ///
    /// ```
    /// use linksieve_dedup::PersistentSet;
    /// use std::path::Path;
    /// assert_eq!(PersistentSet::runs_folder(Path::new("/a/seen.redb")), Path::new("/a/seen.redb.runs"));
    /// ```
    pub fn runs_folder(path: &Path) -> PathBuf {
        files::runs_dir(path)
    }

    fn db(&self) -> &Database {
        self.db
            .as_ref()
            .expect("the database is open until the set is dropped")
    }

    /// Marks this run finished (durably): its keys are seen by every later run. Call it when the
    /// run's output is complete (for a stream: flushed). A run with atomic output uses
    /// [`finish_with_output`](Self::finish_with_output) instead.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.finish().unwrap();
    /// ```
    pub fn finish(mut self) -> Result<()> {
        SeenSet::sync(&mut self)?;
        self.discarded.retain(|&t| t != self.run);
        self.write_meta(&[("discarded_runs", &encode_tags(&self.discarded))], &[])
    }

    /// Puts this run's output in place and marks the run finished, as one step that a kill
    /// cannot split: `publish` must make `tmp` disappear (rename it onto the output) and
    /// return `Ok` only once it has. The store first records `tmp` durably; if the process
    /// dies before the run is marked finished, the next [`open`](Self::open) finds out
    /// whether the rename happened: `tmp` gone, the run counts as finished; `tmp` still there,
    /// its output is discarded (the file is removed) and its keys count as new again. When
    /// `publish` fails, the same is decided at once (the run stays discarded if `tmp` is still
    /// there, and the caller may remove it), and its error is returned.
    ///
    /// ```
    /// use linksieve_dedup::{Abandoned, Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let (store, tmp, out) = (dir.path().join("s"), dir.path().join(".out.tmp"), dir.path().join("out"));
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let atomic = PersistentOptions { abandoned: Abandoned::New, ..Default::default() };
    /// let mut set = PersistentSet::open(&store, &id, atomic.clone()).unwrap();
    /// let mut new = Vec::new();
    /// set.insert_batch(&[Fingerprint(7)], &mut new).unwrap();
    /// std::fs::write(&tmp, "key 7\n").unwrap();
    /// set.finish_with_output(&tmp, || std::fs::rename(&tmp, &out)).unwrap();
    /// assert!(out.exists());
    /// let mut next = PersistentSet::open(&store, &id, atomic).unwrap();
    /// next.insert_batch(&[Fingerprint(7)], &mut new).unwrap();
    /// assert_eq!(new, [false]);
    /// ```
    pub fn finish_with_output(
        mut self,
        tmp: &Path,
        publish: impl FnOnce() -> std::io::Result<()>,
    ) -> Result<()> {
        SeenSet::sync(&mut self)?;
        // Absolute: the next open may run in another directory.
        let tmp_abs = std::path::absolute(tmp).map_err(|e| DedupError::Io {
            op: "resolve the temporary output's path",
            path: tmp.to_path_buf(),
            source: e,
        })?;
        let mut marker = self.run.to_le_bytes().to_vec();
        marker.extend_from_slice(tmp_abs.as_os_str().as_encoded_bytes());
        self.write_meta(&[("publishing", &marker)], &[])?;
        let published = publish();
        // After an error, the file says what happened, now rather than at the next open (the
        // caller may remove a file that is still there, which would read as "renamed").
        let in_place = published.is_ok() || !tmp_abs.exists();
        if in_place {
            self.discarded.retain(|&t| t != self.run);
        }
        self.write_meta(
            &[("discarded_runs", &encode_tags(&self.discarded))],
            &["publishing"],
        )?;
        published.map_err(|e| DedupError::Io {
            op: "put the output in place",
            path: tmp.to_path_buf(),
            source: e,
        })
    }

    /// Sets and removes meta entries in one durable transaction.
    fn write_meta(&self, set: &[(&str, &[u8])], remove: &[&str]) -> Result<()> {
        let path = &self.path;
        guarded(path, "writing", || {
            let txn = begin_write(self.db(), path)?;
            {
                let mut meta = txn.open_table(META).ctx(path)?;
                for &(k, v) in set {
                    meta_put(path, &mut meta, k, v)?;
                }
                for &k in remove {
                    meta.remove(k).ctx(path)?;
                }
            }
            txn.commit().ctx(path)
        })
    }

    /// True when the store was made before it recorded its keys' identity whole (format 3 or
    /// older) and took this run's identity at this open ([`StoreIdentity::with_legacy`]): the
    /// caller may say so, as the old store could not tell which of the options it did not
    /// record its keys were made with.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let set = PersistentSet::open(dir.path().join("s"), &StoreIdentity::new("k"), PersistentOptions::default()).unwrap();
    /// assert!(!set.identity_adopted());
    /// ```
    pub fn identity_adopted(&self) -> bool {
        self.adopted
    }

    /// The format this open upgraded the store from (see [`STORE_FORMAT`]); `None` when the
    /// store was of the current format already, or new. The set's report warns of it too.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// assert_eq!(set.upgraded_from(), None);
    /// ```
    pub fn upgraded_from(&self) -> Option<u32> {
        self.upgraded_from
    }

    /// This run's number (1 for the first run of a store).
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let p = dir.path().join("s");
    /// drop(PersistentSet::open(&p, &id, PersistentOptions::default()).unwrap());
    /// assert_eq!(PersistentSet::open(&p, &id, PersistentOptions::default()).unwrap().run_id(), 2);
    /// ```
    pub fn run_id(&self) -> u32 {
        self.run
    }

    /// The number of keys the set knows: those in the store, and those answered new by this
    /// process and not yet synced ([`unsynced`](SeenSet::unsynced)).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(4)], &mut Vec::new()).unwrap();
    /// assert_eq!((set.len(), set.unsynced()), (1, 1));
    /// set.sync().unwrap();
    /// assert_eq!((set.len(), set.unsynced()), (1, 0));
    /// ```
    pub fn len(&self) -> u64 {
        self.len + self.unsynced_added
    }

    /// True when the set knows no key (see [`len`](Self::len)).
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// assert!(PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of runs in the store now (for measurements).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// for v in 0..4u128 {
    ///     set.insert_batch(&[Fingerprint(v)], &mut Vec::new()).unwrap();
    ///     set.sync().unwrap(); // a run of one key
    /// }
    /// assert_eq!(set.runs(), 1); // four runs of level 0 were merged into one
    /// ```
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// True when the set knows the fingerprint as seen, as `insert_batch` would answer:
    /// unsynced in this process, or synced by this run or by a run whose keys count (not one
    /// discarded, see [`Abandoned`]).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(4)], &mut Vec::new()).unwrap();
    /// assert!(set.contains(Fingerprint(4)).unwrap());
    /// assert!(!set.contains(Fingerprint(5)).unwrap());
    /// ```
    pub fn contains(&self, fp: Fingerprint) -> Result<bool> {
        if self.unsynced.contains(&fp.0) {
            return Ok(true);
        }
        let cand = [(fp.0, 0usize)];
        let mut status = [ABSENT];
        for run in &self.runs {
            let class = self.class(run.tag);
            let fences = self.fences.of(run.no);
            lookup_one_run(
                &self.path,
                &self.files,
                run,
                fences,
                &cand,
                &mut status,
                class,
            )?;
            if status[0] == SEEN {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// All fingerprints the set knows (in the store, and unsynced in this process), in
    /// increasing order, each once (a read transaction; for tests and exports). Every run is
    /// read whole and checked.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(9), Fingerprint(4)], &mut Vec::new()).unwrap();
    /// set.insert_batch(&[Fingerprint(1)], &mut Vec::new()).unwrap();
    /// assert_eq!(set.fingerprints().unwrap(), [Fingerprint(1), Fingerprint(4), Fingerprint(9)]);
    /// ```
    pub fn fingerprints(&self) -> Result<Vec<Fingerprint>> {
        let mut out = Vec::new();
        for run in &self.runs {
            let mut reader = RunReader::new(*run);
            while let Some(v) = reader.next(&self.path, &self.files)? {
                out.push(Fingerprint(v));
            }
        }
        out.extend(self.unsynced.iter().map(|&v| Fingerprint(v)));
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The bytes the store takes on disk: its database file (including pages redb keeps free
    /// for reuse; see [`compact`](PersistentSet::compact)) and its runs' files.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// assert!(set.disk_bytes().unwrap() > 0);
    /// ```
    pub fn disk_bytes(&self) -> Result<u64> {
        std::fs::metadata(&self.path)
            .map(|m| m.len() + self.files.bytes())
            .map_err(|source| DedupError::Io {
                op: "stat seen store",
                path: self.path.clone(),
                source,
            })
    }

    /// Gives the database file's free pages back to the file system (redb's compaction); true
    /// when it did. The runs' files hold no free space.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.compact().unwrap();
    /// ```
    pub fn compact(&mut self) -> Result<bool> {
        let path = &self.path;
        match self.db.as_mut() {
            Some(db) => guarded(path, "compacting", || db.compact().ctx(path)),
            None => Ok(false),
        }
    }

    /// What this open changed in the store that its user should know: an upgrade of its
    /// format, an identity taken.
    fn open_warning(&self) -> Option<String> {
        let mut said = Vec::new();
        if let Some(from) = self.upgraded_from {
            said.push(format!(
                "the store was upgraded from format {from} to format {STORE_FORMAT} (its runs \
                 now live in the folder {}: copy or move it with the store's file)",
                files::runs_dir(&self.path).display()
            ));
        }
        if self.adopted {
            said.push(
                "the store was made before it recorded every option that changes a key \
                 (such as --nfc and --input-mode): it now records this run's"
                    .to_owned(),
            );
        }
        (!said.is_empty()).then(|| said.join("; "))
    }

    /// Whether the keys of process run `tag` count as new (its output was discarded).
    fn is_discarded(&self, tag: u32) -> bool {
        tag != self.run && self.discarded.contains(&tag)
    }

    /// How a lookup hit in a run counts: seen, or only in a discarded run (see [`Abandoned`]).
    fn class(&self, tag: u32) -> u8 {
        if self.is_discarded(tag) {
            IN_ABANDONED
        } else {
            SEEN
        }
    }
}

impl SeenSet for PersistentSet {
    fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
        self.contains(fp)
    }

    /// Answers at once, writing nothing: a key unsynced in this process is seen; a key the
    /// in-memory filter has certainly never stored is new (no disk read); a "maybe" is looked
    /// up in the store's runs (one read transaction). The keys answered new become unsynced
    /// until [`sync`](SeenSet::sync). On error no answer may be used and nothing new is
    /// unsynced from this batch but the keys answered before the error (a damaged store is
    /// [`DedupError::CorruptStore`]).
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        new.clear();
        new.resize(fps.len(), false);
        if fps.is_empty() {
            return Ok(());
        }
        self.answer(fps, new)
    }

    /// Keys in the store plus the unsynced keys that were in no run.
    fn len(&self) -> u64 {
        self.len + self.unsynced_added
    }

    fn durable(&self) -> bool {
        true
    }

    fn finish(self: Box<Self>) -> Result<()> {
        PersistentSet::finish(*self)
    }

    fn finish_with_output(
        self: Box<Self>,
        tmp: &Path,
        publish: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Result<()> {
        PersistentSet::finish_with_output(*self, tmp, publish)
    }

    fn report(&self) -> crate::SetReport {
        crate::SetReport {
            keys_at_open: Some(self.len_at_open),
            warning: self.open_warning(),
            ..Default::default()
        }
    }

    /// The filter, the fences, the unsynced keys, scratch buffers, plus what the page cache can
    /// hold: the smaller of its limit set at open and the bytes the store file holds (a small
    /// store never fills a large cache).
    fn memory_bytes(&self) -> usize {
        let file = std::fs::metadata(&self.path).map_or(0, |m| held_bytes(&m));
        std::mem::size_of::<Self>()
            + self
                .cache_bytes
                .min(usize::try_from(file).unwrap_or(usize::MAX))
            + self.filter.memory_bytes()
            + self.fences.memory_bytes()
            + self.unsynced.capacity() * (FP_BYTES + 1)
            + self.sorted.capacity() * std::mem::size_of::<(u128, usize)>()
            + self.status.capacity()
            + self.runs.capacity() * std::mem::size_of::<RunInfo>()
    }

    /// Records the unsynced keys as a new run of the store (merging runs when a level is full)
    /// in one durable write transaction (fsync, two-phase commit); nothing to do, and no
    /// commit, when none is unsynced. On error the keys stay unsynced (a later call may try
    /// again).
    fn sync(&mut self) -> Result<()> {
        self.sync_now()
    }

    fn unsynced(&self) -> u64 {
        self.unsynced.len() as u64
    }
}

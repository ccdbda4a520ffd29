//! The persistent seen-set for crawler frontiers: fingerprints kept across runs in a redb file.

use crate::{DedupError, FINGERPRINT_VERSION, Fingerprint, Result, SeenSet};
use redb::{Database, ReadableTable, TableDefinition};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

/// The version of the store's layout (tables, chunk encoding, meta keys). Recorded in the
/// store; a store of another layout is refused with [`DedupError::IdentityMismatch`].
///
/// ```
/// assert_eq!(linksieve_dedup::STORE_FORMAT, 2);
/// ```
///
/// Format 2 records which process runs wrote a discarded (atomic) output (`discarded_runs`)
/// where format 1 kept a "last completed run" mark; a format-1 store is upgraded when it is
/// opened (runs after that mark count as discarded, as format 1 counted them for `--out`).
pub const STORE_FORMAT: u32 = 2;

/// Run chunks: key = (run number, first fingerprint of the chunk), value = sorted fingerprints
/// (16 bytes each, little-endian).
const CHUNKS: TableDefinition<(u64, u128), &[u8]> = TableDefinition::new("run_chunks");
/// Runs: key = run number, value = tag (u32: the process run that wrote it), level (u32),
/// fingerprints (u64), all little-endian.
const RUNS: TableDefinition<u64, &[u8]> = TableDefinition::new("runs");
/// Identity and counters.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// Fingerprints per chunk: 32,000 bytes of value, which with the key and the page header fits
/// one 32 KiB page of redb.
const CHUNK_FPS: usize = 2000;
const FP_BYTES: usize = 16;
/// Runs of one level merged into one run of the next level.
const FANOUT: usize = 4;

/// Lookup answers, ordered: a candidate keeps the largest it gets.
const ABSENT: u8 = 0;
const IN_ABANDONED: u8 = 1;
const SEEN: u8 = 2;

/// What keys of a store are: recorded when the store is made, compared at every open. Keys made
/// with another rung, form or rule set are different strings, so a store refuses to mix them.
///
/// ```
/// use linksieve_dedup::StoreIdentity;
/// let id = StoreIdentity::new("scheme", "uri", 0);
/// assert_eq!(id.rung, "scheme");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreIdentity {
    /// The ladder rung of the keys (`"scheme"`...).
    pub rung: String,
    /// The key form (`"uri"`, `"iri"`, `"surt"`...).
    pub form: String,
    /// The version of the crawler rule set (0 when none).
    pub ruleset_version: u32,
}

impl StoreIdentity {
    /// An identity from its parts.
    ///
    /// ```
    /// let id = linksieve_dedup::StoreIdentity::new("protocol", "surt", 3);
    /// assert_eq!(id.ruleset_version, 3);
    /// ```
    pub fn new(rung: impl Into<String>, form: impl Into<String>, ruleset_version: u32) -> Self {
        StoreIdentity {
            rung: rung.into(),
            form: form.into(),
            ruleset_version,
        }
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
    /// A stream (the default): what the run printed was kept, so its keys count as seen. A key
    /// committed by the killed run just before it could print it is never printed (at most the
    /// batch in flight).
    #[default]
    Seen,
    /// Atomic (a temporary file renamed into place at the end): a run that never finishes has
    /// no output, so every later run counts its keys as new once more (and commits them again
    /// under its own run), and the rerun's output is complete.
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
    /// The database's page cache limit, in bytes (default 256 MiB).
    pub cache_bytes: usize,
}

impl Default for PersistentOptions {
    fn default() -> Self {
        PersistentOptions {
            abandoned: Abandoned::Seen,
            cache_bytes: 256 << 20,
        }
    }
}

/// The persistent seen-set (`--seen PATH`): fingerprints kept across runs, so that a crawler
/// frontier writes only keys no earlier run wrote.
///
/// **Store.** One [redb](https://www.redb.org) file holding a log-structured set: immutable
/// sorted *runs* of fingerprints, each cut in chunks of 2,000 (32,000 bytes, one 32 KiB page),
/// keyed by (run number, first fingerprint). A batch is sorted and deduplicated, looked up in
/// every run (a sequential merge over the run's chunks, or one chunk read per candidate when
/// the batch is small against the run), and its new fingerprints become a new run, all in one
/// write transaction. Runs of one level are merged four at a time (k-way) into a run of the
/// next level, so each fingerprint is rewritten about `log4(keys / batch)` times and the number
/// of runs stays logarithmic. (A B-tree keyed by fingerprint, one entry per key or blocks of
/// keys, rewrites every leaf for every large batch of random keys; the crate README has the
/// measurements of both layouts.) The runs are also the filter: the answer new/seen comes from the merge, so nothing has to
/// be kept in memory between batches but the list of runs.
///
/// **Identity.** A `meta` table records [`STORE_FORMAT`], [`FINGERPRINT_VERSION`] and the
/// caller's [`StoreIdentity`] when the store is made; [`open`](PersistentSet::open) refuses any
/// other with [`DedupError::IdentityMismatch`]. It also keeps the key count and run numbers.
///
/// **Crash contract.** [`insert_batch`](SeenSet::insert_batch) returns only after the batch is
/// durably committed (fsync, two-phase commit). The caller must write a batch's new keys to its
/// output only after that. Then a `kill -9` at any moment never loses from the store a key that
/// was written to the output as new, and a rerun over the same input catches up: keys of
/// batches that were not committed are new to it and get committed and written. Keys of the
/// batch that was committed but not yet written when the process died count as seen when the
/// run streamed its output ([`Abandoned::Seen`]). A run whose output is a file renamed into
/// place at the end opens with [`Abandoned::New`]: the store records it as *discarded* until
/// it finishes, and every later run counts the keys of a discarded run as new (each run of
/// fingerprints is tagged with the process run that wrote it, for this). Such a run ends with
/// [`finish_with_output`](PersistentSet::finish_with_output), which puts its output in place
/// and marks the run finished as one step that a kill cannot split; a streaming run ends with
/// [`finish`](PersistentSet::finish). Only one process can open a store at a time (redb locks
/// the file).
///
/// ```
/// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("seen.redb");
/// let id = StoreIdentity::new("scheme", "uri", 0);
/// let mut new = Vec::new();
///
/// let mut run1 = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
/// run1.insert_batch(&[Fingerprint(1), Fingerprint(2), Fingerprint(1)], &mut new).unwrap();
/// assert_eq!(new, [true, true, false]); // committed: now write keys 1 and 2
/// run1.finish().unwrap();
///
/// let mut run2 = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
/// run2.insert_batch(&[Fingerprint(2), Fingerprint(3)], &mut new).unwrap();
/// assert_eq!(new, [false, true]);
/// assert_eq!(run2.len(), 3);
/// drop(run2);
///
/// let other = StoreIdentity::new("scheme", "surt", 0);
/// assert!(PersistentSet::open(&path, &other, PersistentOptions::default()).is_err());
/// ```
pub struct PersistentSet {
    db: Database,
    path: PathBuf,
    run: u32,
    /// Process runs with atomic output that did not finish (this one among them until it does):
    /// their keys count as new (see [`Abandoned`]).
    discarded: Vec<u32>,
    len: u64,
    cache_bytes: usize,
    runs: Vec<RunInfo>,
    next_no: u64,
    sorted: Vec<(u128, usize)>,
    status: Vec<u8>,
    fresh: Vec<u128>,
}

/// One run of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunInfo {
    no: u64,
    /// The process run that wrote it (for merged runs of finished runs: the largest of theirs).
    tag: u32,
    level: u32,
    len: u64,
}

impl RunInfo {
    fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.tag.to_le_bytes());
        b[4..8].copy_from_slice(&self.level.to_le_bytes());
        b[8..].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    fn decode(path: &Path, no: u64, v: &[u8]) -> Result<RunInfo> {
        if v.len() != 16 {
            return Err(corrupt(
                path,
                format!("run {no}: {} bytes of info", v.len()),
            ));
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&v[8..]);
        Ok(RunInfo {
            no,
            tag: u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
            level: u32::from_le_bytes([v[4], v[5], v[6], v[7]]),
            len: u64::from_le_bytes(len),
        })
    }
}

impl std::fmt::Debug for PersistentSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistentSet")
            .field("path", &self.path)
            .field("run", &self.run)
            .field("discarded", &self.discarded)
            .field("len", &self.len)
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

/// Maps the database's errors to [`DedupError::Store`].
trait StoreCtx<T> {
    fn ctx(self, path: &Path) -> Result<T>;
}

impl<T, E: Into<redb::Error>> StoreCtx<T> for std::result::Result<T, E> {
    fn ctx(self, path: &Path) -> Result<T> {
        self.map_err(|e| DedupError::Store {
            path: path.to_path_buf(),
            source: Box::new(e.into()),
        })
    }
}

/// Runs a redb call that may panic on a damaged file (redb 2.6 asserts on a file shorter than
/// its header's layout, for one: a store truncated by a full disk or a partial copy) and turns
/// that panic into [`DedupError::CorruptStore`]. A last resort, used only around opening: the
/// panic hook is silenced meanwhile so that the user sees one clear error, not a backtrace.
fn guarded<T>(path: &Path, f: impl FnOnce() -> T) -> Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    r.map_err(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        corrupt(path, format!("the database file cannot be opened ({why})"))
    })
}

fn corrupt(path: &Path, detail: impl Into<String>) -> DedupError {
    DedupError::CorruptStore {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

fn read_u64(path: &Path, key: &str, v: &[u8]) -> Result<u64> {
    match v.len() {
        4 => Ok(u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as u64),
        8 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(v);
            Ok(u64::from_le_bytes(b))
        }
        n => Err(corrupt(path, format!("meta {key}: {n} bytes"))),
    }
}

fn read_u32(path: &Path, key: &str, v: &[u8]) -> Result<u32> {
    u32::try_from(read_u64(path, key, v)?)
        .map_err(|_| corrupt(path, format!("meta {key}: out of range")))
}

/// The fingerprint at position `i` of a chunk (the caller checked the length).
#[inline]
fn fp_at(blob: &[u8], i: usize) -> u128 {
    let mut b = [0u8; FP_BYTES];
    b.copy_from_slice(&blob[i * FP_BYTES..(i + 1) * FP_BYTES]);
    u128::from_le_bytes(b)
}

fn check_chunk(path: &Path, blob: &[u8]) -> Result<usize> {
    if blob.is_empty() || blob.len() % FP_BYTES != 0 {
        return Err(corrupt(path, format!("chunk of {} bytes", blob.len())));
    }
    Ok(blob.len() / FP_BYTES)
}

impl PersistentSet {
    /// Opens the store at `path`, making it if there is no file there, and starts a new run.
    /// A new store records `identity` (with [`STORE_FORMAT`] and [`FINGERPRINT_VERSION`]); an
    /// existing one must have recorded the same, or [`DedupError::IdentityMismatch`] says which
    /// field differs. A store left by a killed process is recovered by redb (its last
    /// committed transaction).
    ///
    /// ```
    /// use linksieve_dedup::{DedupError, PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("seen.redb");
    /// let set = PersistentSet::open(&path, &StoreIdentity::new("scheme", "uri", 0), PersistentOptions::default()).unwrap();
    /// assert_eq!(set.run_id(), 1);
    /// drop(set);
    /// let err = PersistentSet::open(&path, &StoreIdentity::new("syntax", "uri", 0), PersistentOptions::default()).unwrap_err();
    /// assert!(matches!(err, DedupError::IdentityMismatch { field: "rung", .. }));
    /// ```
    pub fn open(
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
            std::fs::rename(&tmp, &path).map_err(|e| DedupError::Io {
                op: "create seen store",
                path: path.clone(),
                source: e,
            })?;
        }
        let db = guarded(&path, || {
            Database::builder()
                .set_cache_size(options.cache_bytes)
                .create(&path)
        })?
        .ctx(&path)?;
        let mut txn = db.begin_write().ctx(&path)?;
        txn.set_quick_repair(true);
        let (run, discarded, len, next_no, runs, stale) = {
            let mut meta = txn.open_table(META).ctx(&path)?;
            txn.open_table(CHUNKS).ctx(&path)?;
            let runs_table = txn.open_table(RUNS).ctx(&path)?;
            let format = meta
                .get("store_format")
                .ctx(&path)?
                .map(|v| v.value().to_vec());
            match format {
                None => {
                    let fields: [(&str, &[u8]); 9] = [
                        ("store_format", &STORE_FORMAT.to_le_bytes()),
                        ("fingerprint_version", &FINGERPRINT_VERSION.to_le_bytes()),
                        ("rung", identity.rung.as_bytes()),
                        ("form", identity.form.as_bytes()),
                        ("ruleset_version", &identity.ruleset_version.to_le_bytes()),
                        ("count", &0u64.to_le_bytes()),
                        ("next_run", &1u32.to_le_bytes()),
                        ("discarded_runs", &[]),
                        ("next_run_no", &1u64.to_le_bytes()),
                    ];
                    for (k, v) in fields {
                        meta.insert(k, v).ctx(&path)?;
                    }
                }
                Some(f) => {
                    let format = read_u32(&path, "store_format", &f)?;
                    check_identity(&path, &meta, format, identity)?;
                }
            }
            let mut runs = Vec::new();
            for entry in runs_table.iter().ctx(&path)? {
                let (k, v) = entry.ctx(&path)?;
                runs.push(RunInfo::decode(&path, k.value(), v.value())?);
            }
            let stored = meta
                .get("discarded_runs")
                .ctx(&path)?
                .map(|v| v.value().to_vec());
            let mut discarded = match stored {
                Some(v) => decode_tags(&path, &v)?,
                None => upgrade_format_1(&path, &mut meta, &runs)?,
            };
            let get = |key: &str| -> Result<u64> {
                let v = meta
                    .get(key)
                    .ctx(&path)?
                    .ok_or_else(|| corrupt(&path, format!("meta {key} missing")))?;
                read_u64(&path, key, v.value())
            };
            let run = u32::try_from(get("next_run")?)
                .ok()
                .filter(|&r| r < u32::MAX)
                .ok_or_else(|| corrupt(&path, "run numbers exhausted"))?;
            let len = get("count")?;
            let next_no = get("next_run_no")?;
            // A run killed while it put its output in place (see `finish_with_output`): the
            // temporary file is still there when the rename did not happen (the run's output
            // is discarded, and the file is removed below, once this is committed); gone when
            // it did (the run finished).
            let stale = match meta.remove("publishing").ctx(&path)? {
                Some(v) => {
                    let (tag, tmp) = decode_publishing(&path, v.value())?;
                    if tmp.exists() {
                        Some(tmp)
                    } else {
                        discarded.retain(|&t| t != tag);
                        None
                    }
                }
                None => None,
            };
            if options.abandoned == Abandoned::New {
                discarded.push(run);
            }
            meta.insert("discarded_runs", &encode_tags(&discarded)[..])
                .ctx(&path)?;
            meta.insert("next_run", &(run + 1).to_le_bytes()[..])
                .ctx(&path)?;
            (run, discarded, len, next_no, runs, stale)
        };
        txn.commit().ctx(&path)?;
        if let Some(tmp) = stale {
            // Best effort: what is left is a stray file, never a wrong answer.
            let _ = std::fs::remove_file(tmp);
        }
        Ok(PersistentSet {
            db,
            path,
            run,
            discarded,
            len,
            cache_bytes: options.cache_bytes,
            runs,
            next_no,
            sorted: Vec::new(),
            status: Vec::new(),
            fresh: Vec::new(),
        })
    }

    /// Marks this run finished (durably): its keys are seen by every later run. Call it when the
    /// run's output is complete (for a stream: flushed). A run with atomic output uses
    /// [`finish_with_output`](Self::finish_with_output) instead.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.finish().unwrap();
    /// ```
    pub fn finish(mut self) -> Result<()> {
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
    /// let id = StoreIdentity::new("scheme", "uri", 0);
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
        let mut txn = self.db.begin_write().ctx(&self.path)?;
        txn.set_quick_repair(true);
        {
            let mut meta = txn.open_table(META).ctx(&self.path)?;
            for &(k, v) in set {
                meta.insert(k, v).ctx(&self.path)?;
            }
            for &k in remove {
                meta.remove(k).ctx(&self.path)?;
            }
        }
        txn.commit().ctx(&self.path)
    }

    /// This run's number (1 for the first run of a store).
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let p = dir.path().join("s");
    /// drop(PersistentSet::open(&p, &id, PersistentOptions::default()).unwrap());
    /// assert_eq!(PersistentSet::open(&p, &id, PersistentOptions::default()).unwrap().run_id(), 2);
    /// ```
    pub fn run_id(&self) -> u32 {
        self.run
    }

    /// The number of keys in the store.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(4)], &mut Vec::new()).unwrap();
    /// assert_eq!(set.len(), 1);
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the store holds no key.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// assert!(PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of runs in the store now (for measurements).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// for v in 0..4u128 { set.insert_batch(&[Fingerprint(v)], &mut Vec::new()).unwrap(); }
    /// assert_eq!(set.runs(), 1); // four runs of level 0 were merged into one
    /// ```
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// True when the store holds the fingerprint (committed by any run, this one included).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(4)], &mut Vec::new()).unwrap();
    /// assert!(set.contains(Fingerprint(4)).unwrap());
    /// assert!(!set.contains(Fingerprint(5)).unwrap());
    /// ```
    pub fn contains(&self, fp: Fingerprint) -> Result<bool> {
        let txn = self.db.begin_read().ctx(&self.path)?;
        let table = txn.open_table(CHUNKS).ctx(&self.path)?;
        let cand = [(fp.0, 0usize)];
        let mut status = [ABSENT];
        for run in &self.runs {
            lookup_sparse(&self.path, &table, run.no, &cand, &mut status, SEEN)?;
            if status[0] != ABSENT {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// All fingerprints in the store, in increasing order, each once (a read transaction; for
    /// tests, exports and rebuilding filters).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(9), Fingerprint(4)], &mut Vec::new()).unwrap();
    /// set.insert_batch(&[Fingerprint(1)], &mut Vec::new()).unwrap();
    /// assert_eq!(set.fingerprints().unwrap(), [Fingerprint(1), Fingerprint(4), Fingerprint(9)]);
    /// ```
    pub fn fingerprints(&self) -> Result<Vec<Fingerprint>> {
        let txn = self.db.begin_read().ctx(&self.path)?;
        let table = txn.open_table(CHUNKS).ctx(&self.path)?;
        let mut out = Vec::new();
        for entry in table.iter().ctx(&self.path)? {
            let (_, blob) = entry.ctx(&self.path)?;
            let blob = blob.value();
            let n = check_chunk(&self.path, blob)?;
            out.extend((0..n).map(|i| Fingerprint(fp_at(blob, i))));
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The size of the store file in bytes (including pages redb keeps free for reuse; see
    /// [`compact`](PersistentSet::compact)).
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// assert!(set.disk_bytes().unwrap() > 0);
    /// ```
    pub fn disk_bytes(&self) -> Result<u64> {
        std::fs::metadata(&self.path)
            .map(|m| m.len())
            .map_err(|source| DedupError::Io {
                op: "stat seen store",
                path: self.path.clone(),
                source,
            })
    }

    /// Gives free pages back to the file system (redb's compaction); true when it did.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.compact().unwrap();
    /// ```
    pub fn compact(&mut self) -> Result<bool> {
        self.db.compact().ctx(&self.path)
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

    /// Runs that may be merged together: of the same process run, or both of runs whose keys
    /// count as seen for good (the merged run takes the larger tag, which must count the same).
    fn compatible(&self, a: &RunInfo, b: &RunInfo) -> bool {
        a.tag == b.tag || !(self.discarded.contains(&a.tag) || self.discarded.contains(&b.tag))
    }

    /// Merges groups of [`FANOUT`] runs of one level, until no group is left.
    fn merge_levels(
        &self,
        chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
        runs_table: &mut redb::Table<'_, u64, &[u8]>,
        runs: &mut Vec<RunInfo>,
        next_no: &mut u64,
    ) -> Result<()> {
        loop {
            let group: Option<Vec<usize>> = runs.iter().enumerate().find_map(|(i, a)| {
                let g: Vec<usize> = (i..runs.len())
                    .filter(|&j| runs[j].level == a.level && self.compatible(a, &runs[j]))
                    .take(FANOUT)
                    .collect();
                (g.len() == FANOUT).then_some(g)
            });
            let Some(group) = group else {
                return Ok(());
            };
            let sources: Vec<RunInfo> = group.iter().map(|&i| runs[i]).collect();
            let merged = RunInfo {
                no: *next_no,
                tag: sources.iter().map(|r| r.tag).max().unwrap_or(0),
                level: sources[0].level + 1,
                len: merge_runs(&self.path, chunks, &sources, *next_no)?,
            };
            *next_no += 1;
            for r in &sources {
                chunks
                    .retain_in((r.no, 0u128)..=(r.no, u128::MAX), |_, _| false)
                    .ctx(&self.path)?;
                runs_table.remove(r.no).ctx(&self.path)?;
            }
            runs_table
                .insert(merged.no, &merged.encode()[..])
                .ctx(&self.path)?;
            runs.retain(|r| !sources.contains(r));
            runs.push(merged);
        }
    }
}

/// A list of process runs, as stored: u32 little-endian each.
fn encode_tags(tags: &[u32]) -> Vec<u8> {
    tags.iter().flat_map(|t| t.to_le_bytes()).collect()
}

fn decode_tags(path: &Path, v: &[u8]) -> Result<Vec<u32>> {
    if v.len() % 4 != 0 {
        return Err(corrupt(
            path,
            format!("meta discarded_runs: {} bytes", v.len()),
        ));
    }
    Ok(v.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The `publishing` marker: the run (u32 little-endian), then its temporary output's path.
fn decode_publishing(path: &Path, v: &[u8]) -> Result<(u32, PathBuf)> {
    if v.len() <= 4 {
        return Err(corrupt(path, format!("meta publishing: {} bytes", v.len())));
    }
    let tag = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
    #[cfg(unix)]
    let tmp = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&v[4..]));
    #[cfg(not(unix))]
    let tmp = PathBuf::from(String::from_utf8_lossy(&v[4..]).into_owned());
    Ok((tag, tmp))
}

/// Format 1 kept `last_completed_run`: every run after it was unfinished, and counted as
/// discarded by a run with atomic output. Upgraded in the open transaction: those runs are
/// recorded as discarded (a rerun writes their keys again rather than lose them).
fn upgrade_format_1(
    path: &Path,
    meta: &mut redb::Table<'_, &str, &[u8]>,
    runs: &[RunInfo],
) -> Result<Vec<u32>> {
    let last = match meta.remove("last_completed_run").ctx(path)? {
        Some(v) => read_u32(path, "last_completed_run", v.value())?,
        None => return Err(corrupt(path, "meta discarded_runs missing")),
    };
    let mut tags: Vec<u32> = runs.iter().map(|r| r.tag).filter(|&t| t > last).collect();
    tags.sort_unstable();
    tags.dedup();
    meta.insert("store_format", &STORE_FORMAT.to_le_bytes()[..])
        .ctx(path)?;
    Ok(tags)
}

fn check_identity(
    path: &Path,
    meta: &redb::Table<'_, &str, &[u8]>,
    format: u32,
    id: &StoreIdentity,
) -> Result<()> {
    let mismatch = |field: &'static str, stored: String, requested: String| {
        Err(DedupError::IdentityMismatch {
            path: path.to_path_buf(),
            field,
            stored,
            requested,
        })
    };
    if format != STORE_FORMAT && format != 1 {
        return mismatch("store format", format.to_string(), STORE_FORMAT.to_string());
    }
    let get = |key: &str| -> Result<Vec<u8>> {
        Ok(meta
            .get(key)
            .ctx(path)?
            .ok_or_else(|| corrupt(path, format!("meta {key} missing")))?
            .value()
            .to_vec())
    };
    let fpv = read_u32(path, "fingerprint_version", &get("fingerprint_version")?)?;
    if fpv != FINGERPRINT_VERSION {
        return mismatch(
            "fingerprint version",
            fpv.to_string(),
            FINGERPRINT_VERSION.to_string(),
        );
    }
    for (key, field, want) in [("rung", "rung", &id.rung), ("form", "form", &id.form)] {
        let stored = String::from_utf8_lossy(&get(key)?).into_owned();
        if &stored != want {
            return mismatch(field, stored, want.clone());
        }
    }
    let rules = read_u32(path, "ruleset_version", &get("ruleset_version")?)?;
    if rules != id.ruleset_version {
        return mismatch(
            "rule-set version",
            rules.to_string(),
            id.ruleset_version.to_string(),
        );
    }
    Ok(())
}

/// Looks the sorted, unique candidates up in one run: one sequential pass over its chunks.
fn lookup_dense(
    path: &Path,
    chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    no: u64,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    let mut j = 0;
    if cands.is_empty() {
        return Ok(());
    }
    for entry in chunks.range((no, 0u128)..=(no, u128::MAX)).ctx(path)? {
        let (_, blob) = entry.ctx(path)?;
        let blob = blob.value();
        let n = check_chunk(path, blob)?;
        // Skip the chunk if all its fingerprints are below the next candidate.
        if fp_at(blob, n - 1) < cands[j].0 {
            continue;
        }
        for i in 0..n {
            let v = fp_at(blob, i);
            while j < cands.len() && cands[j].0 < v {
                j += 1;
            }
            if j == cands.len() {
                return Ok(());
            }
            if cands[j].0 == v {
                status[j] = status[j].max(class);
                j += 1;
                if j == cands.len() {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// Looks each candidate up in one run by reading the one chunk that may hold it.
fn lookup_sparse(
    path: &Path,
    chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    no: u64,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    for (j, &(fp, _)) in cands.iter().enumerate() {
        if status[j] >= class {
            continue;
        }
        let mut range = chunks.range((no, 0u128)..=(no, fp)).ctx(path)?;
        let Some(entry) = range.next_back() else {
            continue;
        };
        let (_, blob) = entry.ctx(path)?;
        let blob = blob.value();
        let n = check_chunk(path, blob)?;
        // Binary search over the chunk's fingerprints.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match fp_at(blob, mid).cmp(&fp) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    status[j] = class;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Writes sorted fingerprints as run `no`, in chunks.
fn write_run(
    path: &Path,
    chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
    no: u64,
    fps: &[u128],
    bytes: &mut Vec<u8>,
) -> Result<()> {
    for chunk in fps.chunks(CHUNK_FPS) {
        bytes.clear();
        for v in chunk {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        chunks.insert((no, chunk[0]), bytes.as_slice()).ctx(path)?;
    }
    Ok(())
}

/// A source run being merged: its chunks are read one at a time by key, so that the table is
/// free for writing the output between reads.
struct MergeSource {
    no: u64,
    last_key: Option<u128>,
    buf: Vec<u128>,
    pos: usize,
    done: bool,
}

impl MergeSource {
    fn next(
        &mut self,
        path: &Path,
        chunks: &redb::Table<'_, (u64, u128), &[u8]>,
    ) -> Result<Option<u128>> {
        if self.pos == self.buf.len() {
            if self.done {
                return Ok(None);
            }
            let lower = match self.last_key {
                None => Bound::Included((self.no, 0u128)),
                Some(k) => Bound::Excluded((self.no, k)),
            };
            let mut range = chunks
                .range::<(u64, u128)>((lower, Bound::Included((self.no, u128::MAX))))
                .ctx(path)?;
            match range.next() {
                None => {
                    self.done = true;
                    return Ok(None);
                }
                Some(entry) => {
                    let (k, blob) = entry.ctx(path)?;
                    let blob = blob.value();
                    let n = check_chunk(path, blob)?;
                    self.last_key = Some(k.value().1);
                    self.buf.clear();
                    self.buf.extend((0..n).map(|i| fp_at(blob, i)));
                    self.pos = 0;
                }
            }
        }
        let v = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(v))
    }
}

/// Merges the source runs (k-way, equal fingerprints once) into run `no`; returns its length.
fn merge_runs(
    path: &Path,
    chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
    sources: &[RunInfo],
    no: u64,
) -> Result<u64> {
    let mut srcs: Vec<MergeSource> = sources
        .iter()
        .map(|r| MergeSource {
            no: r.no,
            last_key: None,
            buf: Vec::with_capacity(CHUNK_FPS),
            pos: 0,
            done: false,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(srcs.len());
    for (i, s) in srcs.iter_mut().enumerate() {
        if let Some(v) = s.next(path, chunks)? {
            heap.push(Reverse((v, i)));
        }
    }
    let mut out: Vec<u128> = Vec::with_capacity(CHUNK_FPS);
    let mut bytes = Vec::with_capacity(CHUNK_FPS * FP_BYTES);
    let mut len = 0u64;
    let mut last = None;
    while let Some(Reverse((v, i))) = heap.pop() {
        if last != Some(v) {
            last = Some(v);
            out.push(v);
            len += 1;
            if out.len() == CHUNK_FPS {
                write_run(path, chunks, no, &out, &mut bytes)?;
                out.clear();
            }
        }
        if let Some(next) = srcs[i].next(path, chunks)? {
            heap.push(Reverse((next, i)));
        }
    }
    if !out.is_empty() {
        write_run(path, chunks, no, &out, &mut bytes)?;
    }
    Ok(len)
}

impl SeenSet for PersistentSet {
    /// Sorts the batch, looks it up in the store's runs, writes its new fingerprints as a new
    /// run (merging runs when a level is full) in one write transaction, and commits durably
    /// before returning (see the crash contract on [`PersistentSet`]). On error nothing of the
    /// batch is committed and no answer may be used.
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        new.clear();
        new.resize(fps.len(), false);
        if fps.is_empty() {
            return Ok(());
        }
        let path = self.path.clone();
        self.sorted.clear();
        self.sorted
            .extend(fps.iter().enumerate().map(|(i, fp)| (fp.0, i)));
        self.sorted.sort_unstable();
        // Sorted by (fingerprint, position): the first of equal ones is the first occurrence.
        self.sorted.dedup_by_key(|e| e.0);
        self.status.clear();
        self.status.resize(self.sorted.len(), ABSENT);

        let mut txn = self.db.begin_write().ctx(&path)?;
        txn.set_quick_repair(true);
        let mut runs = self.runs.clone();
        let mut next_no = self.next_no;
        let mut added = 0u64;
        {
            let mut chunks = txn.open_table(CHUNKS).ctx(&path)?;
            let mut runs_table = txn.open_table(RUNS).ctx(&path)?;
            for run in &self.runs {
                let class = self.class(run.tag);
                let run_chunks = run.len.div_ceil(CHUNK_FPS as u64);
                if (self.sorted.len() as u64) * 2 < run_chunks {
                    lookup_sparse(
                        &path,
                        &chunks,
                        run.no,
                        &self.sorted,
                        &mut self.status,
                        class,
                    )?;
                } else {
                    lookup_dense(
                        &path,
                        &chunks,
                        run.no,
                        &self.sorted,
                        &mut self.status,
                        class,
                    )?;
                }
            }
            self.fresh.clear();
            for (&(fp, idx), &st) in self.sorted.iter().zip(&self.status) {
                // A key only in discarded runs was never in an output that was kept.
                if st != SEEN {
                    new[idx] = true;
                    self.fresh.push(fp);
                    added += (st == ABSENT) as u64;
                }
            }
            if !self.fresh.is_empty() {
                let info = RunInfo {
                    no: next_no,
                    tag: self.run,
                    level: 0,
                    len: self.fresh.len() as u64,
                };
                next_no += 1;
                let mut bytes = Vec::with_capacity(CHUNK_FPS * FP_BYTES);
                write_run(&path, &mut chunks, info.no, &self.fresh, &mut bytes)?;
                runs_table.insert(info.no, &info.encode()[..]).ctx(&path)?;
                runs.push(info);
                self.merge_levels(&mut chunks, &mut runs_table, &mut runs, &mut next_no)?;
            }
            let mut meta = txn.open_table(META).ctx(&path)?;
            meta.insert("count", &(self.len + added).to_le_bytes()[..])
                .ctx(&path)?;
            meta.insert("next_run_no", &next_no.to_le_bytes()[..])
                .ctx(&path)?;
        }
        txn.commit().ctx(&path)?;
        self.len += added;
        self.runs = runs;
        self.next_no = next_no;
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }

    /// Scratch buffers plus the page cache limit given at open.
    fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.cache_bytes
            + self.sorted.capacity() * std::mem::size_of::<(u128, usize)>()
            + self.status.capacity()
            + self.fresh.capacity() * FP_BYTES
            + self.runs.capacity() * std::mem::size_of::<RunInfo>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemorySet;

    fn id() -> StoreIdentity {
        StoreIdentity::new("scheme", "uri", 0)
    }

    fn opts(abandoned: Abandoned) -> PersistentOptions {
        PersistentOptions {
            abandoned,
            cache_bytes: 16 << 20,
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
            }
            if run != 1 {
                set.finish().unwrap();
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
        for (other, field) in [
            (StoreIdentity::new("protocol", "uri", 0), "rung"),
            (StoreIdentity::new("scheme", "iri", 0), "form"),
            (StoreIdentity::new("scheme", "uri", 2), "rule-set version"),
        ] {
            match PersistentSet::open(&path, &other, opts(Abandoned::Seen)) {
                Err(DedupError::IdentityMismatch { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{other:?}"),
            }
        }
        // A store of another fingerprint version is refused too.
        {
            let db = Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            txn.open_table(META)
                .unwrap()
                .insert("fingerprint_version", &2u32.to_le_bytes()[..])
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

    /// Opens a run of the store at `path`, inserts `fps`, and returns the answers and the set.
    fn run_once(path: &Path, output: Abandoned, fps: &[u128]) -> (Vec<bool>, PersistentSet) {
        let mut set = PersistentSet::open(path, &id(), opts(output)).unwrap();
        let mut new = Vec::new();
        let fps: Vec<Fingerprint> = fps.iter().map(|&f| Fingerprint(f)).collect();
        set.insert_batch(&fps, &mut new).unwrap();
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

    #[test]
    fn a_format_1_store_is_upgraded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        let (_, set) = run_once(&path, Abandoned::Seen, &[1]);
        set.finish().unwrap();
        drop(run_once(&path, Abandoned::Seen, &[2]));
        {
            // Back to format 1: run 1 finished, run 2 not.
            let db = Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            {
                let mut meta = txn.open_table(META).unwrap();
                meta.insert("store_format", &1u32.to_le_bytes()[..])
                    .unwrap();
                meta.insert("last_completed_run", &1u32.to_le_bytes()[..])
                    .unwrap();
                meta.remove("discarded_runs").unwrap();
            }
            txn.commit().unwrap();
        }
        let (new, _) = run_once(&path, Abandoned::Seen, &[1, 2, 3]);
        assert_eq!(
            new,
            [false, true, true],
            "run 2 unfinished: written again, not lost"
        );
        let db = Database::create(&path).unwrap();
        let txn = db.begin_read().unwrap();
        let meta = txn.open_table(META).unwrap();
        let format = meta.get("store_format").unwrap().unwrap().value().to_vec();
        assert_eq!(format, STORE_FORMAT.to_le_bytes());
    }

    #[test]
    fn not_a_store_is_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk");
        std::fs::write(&path, b"this is not a redb file at all, not even close").unwrap();
        let err = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap_err();
        assert!(matches!(err, DedupError::Store { .. }), "{err}");
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
        drop(set);
        {
            let db = Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            txn.open_table(CHUNKS)
                .unwrap()
                .insert((1u64, 5u128), &[1u8, 2, 3][..])
                .unwrap();
            txn.commit().unwrap();
        }
        let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
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
}

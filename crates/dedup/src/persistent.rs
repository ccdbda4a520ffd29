//! The persistent seen-set for crawler frontiers: fingerprints kept across runs in a redb file.

use crate::{DedupError, FINGERPRINT_VERSION, Fingerprint, Result, SeenSet};
use redb::{Database, ReadableTable, TableDefinition};
use std::ops::Bound;
use std::path::{Path, PathBuf};

/// The version of the store's layout (tables, block encoding, meta keys). Recorded in the
/// store; a store of another layout is refused with [`DedupError::IdentityMismatch`].
///
/// ```
/// assert_eq!(linksieve_dedup::STORE_FORMAT, 1);
/// ```
pub const STORE_FORMAT: u32 = 1;

/// Fingerprint blocks: key = the block's lower fence, value = sorted entries.
const BLOCKS: TableDefinition<u128, &[u8]> = TableDefinition::new("fingerprint_blocks");
/// Identity and counters.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// Bytes of one entry in a block: the fingerprint (u128 LE) and the run that stored it (u32 LE).
const ENTRY_BYTES: usize = 20;
/// A block is split when it holds more entries than this (about 7.8 KiB of value).
const MAX_BLOCK: usize = 400;
/// Blocks made by a split hold about this many entries.
const SPLIT_TARGET: usize = 300;

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

/// How a run treats keys committed by an earlier run that never called
/// [`PersistentSet::finish`] (it crashed or was killed).
///
/// ```
/// use linksieve_dedup::Abandoned;
/// assert_eq!(Abandoned::default(), Abandoned::Seen);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Abandoned {
    /// They count as seen (the default): right when that run's output was streamed, so what it
    /// printed was kept. A key committed by the killed run just before it could print it is
    /// never printed (at most the batch in flight).
    #[default]
    Seen,
    /// They count as new once more, and are re-tagged with this run: right when that run's
    /// output was discarded (written to a temporary file that was never renamed), so the
    /// rerun's output is complete.
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
    /// How keys committed by an unfinished earlier run count.
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
/// **Store.** One [redb](https://www.redb.org) file. Fingerprints are kept in sorted blocks of
/// at most 400 entries (20 bytes each: the fingerprint and the number of the run that stored
/// it), keyed by the block's lower fence, the first block's fence being 0; a full block is split
/// in blocks of about 300. A batch is sorted, and each block it touches is read, merged and
/// written once, in one write transaction, so a batch of a million keys costs tens of thousands
/// of tree operations instead of a million. The blocks are also the filter: the answer new/seen
/// comes from the merge, so no Bloom filter or in-memory copy is needed in front, and memory
/// stays at one batch plus the page cache.
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
/// batch that was committed but not yet written when the process died count as
/// [`Abandoned::Seen`] by default; a caller whose output of a killed run is discarded (atomic
/// output) opens with [`Abandoned::New`] to write them again. A run that completes calls
/// [`finish`](PersistentSet::finish); its keys are then seen for every later run. Only one
/// process can open a store at a time (redb locks the file).
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
    last_completed: u32,
    abandoned: Abandoned,
    len: u64,
    cache_bytes: usize,
    sorted: Vec<(u128, usize)>,
    block: Vec<(u128, u32)>,
    merged: Vec<(u128, u32)>,
    bytes: Vec<u8>,
}

impl std::fmt::Debug for PersistentSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistentSet")
            .field("path", &self.path)
            .field("run", &self.run)
            .field("last_completed", &self.last_completed)
            .field("len", &self.len)
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
        let db = Database::builder()
            .set_cache_size(options.cache_bytes)
            .create(&path)
            .ctx(&path)?;
        let mut txn = db.begin_write().ctx(&path)?;
        txn.set_quick_repair(true);
        let (run, last_completed, len) = {
            let mut meta = txn.open_table(META).ctx(&path)?;
            // Make sure the blocks table exists, so that readers never see it missing.
            txn.open_table(BLOCKS).ctx(&path)?;
            let format = meta
                .get("store_format")
                .ctx(&path)?
                .map(|v| v.value().to_vec());
            match format {
                None => {
                    let fields: [(&str, &[u8]); 8] = [
                        ("store_format", &STORE_FORMAT.to_le_bytes()),
                        ("fingerprint_version", &FINGERPRINT_VERSION.to_le_bytes()),
                        ("rung", identity.rung.as_bytes()),
                        ("form", identity.form.as_bytes()),
                        ("ruleset_version", &identity.ruleset_version.to_le_bytes()),
                        ("count", &0u64.to_le_bytes()),
                        ("next_run", &1u32.to_le_bytes()),
                        ("last_completed_run", &0u32.to_le_bytes()),
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
            let last_completed = u32::try_from(get("last_completed_run")?)
                .map_err(|_| corrupt(&path, "last_completed_run out of range"))?;
            let len = get("count")?;
            meta.insert("next_run", &(run + 1).to_le_bytes()[..])
                .ctx(&path)?;
            (run, last_completed, len)
        };
        txn.commit().ctx(&path)?;
        Ok(PersistentSet {
            db,
            path,
            run,
            last_completed,
            abandoned: options.abandoned,
            len,
            cache_bytes: options.cache_bytes,
            sorted: Vec::new(),
            block: Vec::new(),
            merged: Vec::new(),
            bytes: Vec::new(),
        })
    }

    /// Marks this run complete (durably): its keys are seen by every later run whatever their
    /// [`Abandoned`] policy. Call it when the run's output is complete and in place.
    ///
    /// ```
    /// use linksieve_dedup::{PersistentOptions, PersistentSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.finish().unwrap();
    /// ```
    pub fn finish(self) -> Result<()> {
        let mut txn = self.db.begin_write().ctx(&self.path)?;
        txn.set_quick_repair(true);
        {
            let mut meta = txn.open_table(META).ctx(&self.path)?;
            meta.insert("last_completed_run", &self.run.to_le_bytes()[..])
                .ctx(&self.path)?;
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
        let table = txn.open_table(BLOCKS).ctx(&self.path)?;
        let mut range = table.range(..=fp.0).ctx(&self.path)?;
        let Some(entry) = range.next_back() else {
            return Ok(false);
        };
        let (_, blob) = entry.ctx(&self.path)?;
        let mut block = Vec::new();
        decode_block(&self.path, blob.value(), &mut block)?;
        Ok(block.binary_search_by_key(&fp.0, |e| e.0).is_ok())
    }

    /// All fingerprints in the store, in increasing order (a read transaction; for tests,
    /// exports and rebuilding filters).
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme", "uri", 0);
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// set.insert_batch(&[Fingerprint(9), Fingerprint(4)], &mut Vec::new()).unwrap();
    /// assert_eq!(set.fingerprints().unwrap(), [Fingerprint(4), Fingerprint(9)]);
    /// ```
    pub fn fingerprints(&self) -> Result<Vec<Fingerprint>> {
        let txn = self.db.begin_read().ctx(&self.path)?;
        let table = txn.open_table(BLOCKS).ctx(&self.path)?;
        let mut out = Vec::new();
        let mut block = Vec::new();
        for entry in table.iter().ctx(&self.path)? {
            let (_, blob) = entry.ctx(&self.path)?;
            decode_block(&self.path, blob.value(), &mut block)?;
            out.extend(block.iter().map(|e| Fingerprint(e.0)));
        }
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

    /// Merges the sorted unique candidates `sorted[range]` into `self.block` (the block's
    /// entries), writing the result to `self.merged`; marks new ones. Returns (changed, added).
    fn merge_block(&mut self, lo: usize, hi: usize, new: &mut [bool]) -> (bool, u64) {
        let renew = self.abandoned == Abandoned::New;
        let mut changed = false;
        let mut added = 0u64;
        self.merged.clear();
        let mut a = 0;
        for &(fp, idx) in &self.sorted[lo..hi] {
            while a < self.block.len() && self.block[a].0 < fp {
                self.merged.push(self.block[a]);
                a += 1;
            }
            if a < self.block.len() && self.block[a].0 == fp {
                let tag = self.block[a].1;
                // Abandoned: stored by a run after the last completed one, before this one.
                if renew && tag > self.last_completed && tag < self.run {
                    new[idx] = true;
                    self.merged.push((fp, self.run));
                    changed = true;
                } else {
                    self.merged.push(self.block[a]);
                }
                a += 1;
            } else {
                new[idx] = true;
                self.merged.push((fp, self.run));
                changed = true;
                added += 1;
            }
        }
        self.merged.extend_from_slice(&self.block[a..]);
        (changed, added)
    }
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
    if format != STORE_FORMAT {
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

fn decode_block(path: &Path, blob: &[u8], out: &mut Vec<(u128, u32)>) -> Result<()> {
    out.clear();
    if blob.len() % ENTRY_BYTES != 0 {
        return Err(corrupt(path, format!("block of {} bytes", blob.len())));
    }
    out.reserve(blob.len() / ENTRY_BYTES);
    let mut last = None;
    for e in blob.chunks_exact(ENTRY_BYTES) {
        let mut fp = [0u8; 16];
        fp.copy_from_slice(&e[..16]);
        let fp = u128::from_le_bytes(fp);
        let run = u32::from_le_bytes([e[16], e[17], e[18], e[19]]);
        if last.is_some_and(|l| l >= fp) {
            return Err(corrupt(path, "block entries out of order"));
        }
        last = Some(fp);
        out.push((fp, run));
    }
    Ok(())
}

fn encode_block(entries: &[(u128, u32)], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(entries.len() * ENTRY_BYTES);
    for &(fp, run) in entries {
        out.extend_from_slice(&fp.to_le_bytes());
        out.extend_from_slice(&run.to_le_bytes());
    }
}

impl SeenSet for PersistentSet {
    /// Sorts the batch, merges it into the blocks it touches in one write transaction, and
    /// commits durably before returning (see the crash contract on [`PersistentSet`]). On error
    /// nothing of the batch is committed and no answer may be used.
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

        let mut txn = self.db.begin_write().ctx(&path)?;
        txn.set_quick_repair(true);
        let mut added_total = 0u64;
        {
            let mut table = txn.open_table(BLOCKS).ctx(&path)?;
            let mut i = 0;
            while i < self.sorted.len() {
                let fp = self.sorted[i].0;
                // The block holding fp: the last fence <= fp (the first block's fence is 0).
                let fence = {
                    let mut range = table.range(..=fp).ctx(&path)?;
                    match range.next_back() {
                        Some(entry) => {
                            let (k, v) = entry.ctx(&path)?;
                            decode_block(&path, v.value(), &mut self.block)?;
                            k.value()
                        }
                        None => {
                            self.block.clear();
                            0
                        }
                    }
                };
                // The next fence bounds the candidates that fall in this block.
                let next = {
                    let mut range = table
                        .range::<u128>((Bound::Excluded(fp), Bound::Unbounded))
                        .ctx(&path)?;
                    match range.next() {
                        Some(entry) => Some(entry.ctx(&path)?.0.value()),
                        None => None,
                    }
                };
                let end = i + self.sorted[i..].partition_point(|e| next.is_none_or(|n| e.0 < n));
                let (changed, added) = self.merge_block(i, end, new);
                added_total += added;
                if changed {
                    let parts = if self.merged.len() > MAX_BLOCK {
                        self.merged.len().div_ceil(SPLIT_TARGET)
                    } else {
                        1
                    };
                    let n = self.merged.len();
                    for p in 0..parts {
                        let (a, b) = (p * n / parts, (p + 1) * n / parts);
                        let key = if p == 0 { fence } else { self.merged[a].0 };
                        encode_block(&self.merged[a..b], &mut self.bytes);
                        table.insert(key, self.bytes.as_slice()).ctx(&path)?;
                    }
                }
                i = end;
            }
            let mut meta = txn.open_table(META).ctx(&path)?;
            meta.insert("count", &(self.len + added_total).to_le_bytes()[..])
                .ctx(&path)?;
        }
        txn.commit().ctx(&path)?;
        self.len += added_total;
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
            + (self.block.capacity() + self.merged.capacity()) * std::mem::size_of::<(u128, u32)>()
            + self.bytes.capacity()
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

    #[test]
    fn abandoned_runs_follow_the_policy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        let fps = [10u128, 20, 30].map(Fingerprint);
        let mut new = Vec::new();
        {
            let mut done = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
            done.insert_batch(&fps[..1], &mut new).unwrap();
            done.finish().unwrap();
        }
        {
            // Run 2 commits 20 and is dropped without finish (as if killed).
            let mut killed = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
            killed.insert_batch(&fps[1..2], &mut new).unwrap();
        }
        {
            let mut keep = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
            keep.insert_batch(&fps, &mut new).unwrap();
            assert_eq!(new, [false, false, true]);
            // Not finished either: 30 is now abandoned too.
        }
        let mut redo = PersistentSet::open(&path, &id(), opts(Abandoned::New)).unwrap();
        redo.insert_batch(&fps, &mut new).unwrap();
        assert_eq!(new, [false, true, true]);
        redo.insert_batch(&fps, &mut new).unwrap();
        assert_eq!(new, [false, false, false]);
        assert_eq!(redo.len(), 3);
        redo.finish().unwrap();
        let mut later = PersistentSet::open(&path, &id(), opts(Abandoned::New)).unwrap();
        later.insert_batch(&fps, &mut new).unwrap();
        assert_eq!(new, [false, false, false]);
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
    fn damaged_block_is_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        {
            let db = Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            txn.open_table(BLOCKS)
                .unwrap()
                .insert(0u128, &[1u8, 2, 3][..])
                .unwrap();
            txn.commit().unwrap();
        }
        let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
        let err = set
            .insert_batch(&[Fingerprint(5)], &mut Vec::new())
            .unwrap_err();
        assert!(matches!(err, DedupError::CorruptStore { .. }), "{err}");
        assert!(set.contains(Fingerprint(5)).is_err());
    }
}

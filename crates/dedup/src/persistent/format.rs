//! The store's on-disk encoding: its tables, the checksummed values of run chunks, runs and
//! meta entries, the identity check, the upgrade of older formats, and the mapping of the
//! database's errors and panics to [`DedupError`].

use super::{STORE_FORMAT, StoreIdentity};
use crate::{DedupError, FINGERPRINT_VERSION, Result};
use redb::{ReadableTable, ReadableTableMetadata, TableDefinition};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Run chunks of a store of format 4 or older (format 5 keeps them in the runs' files, see
/// [`super::files`], and leaves this table empty): key = (run number, first fingerprint of the
/// chunk), value = the chunk: its sorted fingerprints (16 bytes each, little-endian), then a
/// trailer of 32 bytes: the first fingerprint of the run's next chunk (u128, 0 for the last
/// chunk), 1 for the last chunk of the run else 0 (u64), and the checksum (u64; see
/// [`encode_chunk`]).
pub(super) const CHUNKS: TableDefinition<(u64, u128), &[u8]> = TableDefinition::new("run_chunks");
/// Runs: key = run number, value = tag (u32: the process run that wrote it), level (u32),
/// fingerprints (u64), first fingerprint (u128), checksum (u64), all little-endian.
pub(super) const RUNS: TableDefinition<u64, &[u8]> = TableDefinition::new("runs");
/// Identity and counters: each value is its payload, then a checksum (u64) over the key and
/// the payload.
pub(super) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// The most fingerprints a chunk may hold: 32,000 bytes of value (with the trailer 32,032),
/// which with the key and the page header fits one 32 KiB page of redb. Runs written before
/// [`WRITE_FPS`] have chunks of this size, and are read as they are.
pub(super) const CHUNK_FPS: usize = 2000;
/// Fingerprints per chunk written now: 3,968 bytes (with the trailer 4,000), which with its
/// length fits one 4 KiB slot of a run file, so that a lookup of one key reads 4 KiB (a chunk
/// of 2,000 cost eight times that: measured, the copy dominated).
pub(super) const WRITE_FPS: usize = 248;
pub(super) const FP_BYTES: usize = 16;
/// The bytes after a chunk's fingerprints: next first fingerprint, last-chunk mark, checksum.
const CHUNK_TRAILER: usize = 32;
/// The bytes of a run's value.
const RUN_BYTES: usize = 40;
/// The bytes of a checksum.
const SUM_BYTES: usize = 8;

/// Seeds of the checksums, one per kind of value, so that a value moved to another table does
/// not check.
const CHUNK_SEED: u64 = 0x6c73_2d63_6875_6e6b;
const RUN_SEED: u64 = 0x6c73_2d72_756e_7300;
const META_SEED: u64 = 0x6c73_2d6d_6574_6100;
const DIGEST_SEED: u64 = 0x6c73_2d72_756e_6c73;

/// XXH3-64 of `body`, seeded by the XXH3-64 of `key` under `seed`: the value's checksum covers
/// the key it is stored under.
fn checksum(seed: u64, key: &[u8], body: &[u8]) -> u64 {
    xxh3_64_with_seed(body, xxh3_64_with_seed(key, seed))
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn le_u128(b: &[u8]) -> u128 {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[..16]);
    u128::from_le_bytes(a)
}

/// A write transaction of the store's database, with redb's default commit (checksums, one
/// fsync; no quick repair): its tables are small (the runs and `meta`), so the repair after a
/// crash reads them whole, and the allocator state is not saved at every commit (that took 40 %
/// of the time of a run syncing at every call).
pub(super) fn begin_write(db: &redb::Database, path: &Path) -> Result<redb::WriteTransaction> {
    db.begin_write().ctx(path)
}

/// A [`DedupError::CorruptStore`] for the store at `path`.
pub(super) fn corrupt(path: &Path, detail: impl Into<String>) -> DedupError {
    DedupError::CorruptStore {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// Maps the database's errors: those that only a damaged file gives (redb's `Corrupted`, a
/// table of another type, a page past the end of the file, no magic number, a lock poisoned
/// by an earlier panic) to [`DedupError::CorruptStore`], the others to [`DedupError::Store`].
pub(super) trait StoreCtx<T> {
    fn ctx(self, path: &Path) -> Result<T>;
}

impl<T, E: Into<redb::Error>> StoreCtx<T> for std::result::Result<T, E> {
    fn ctx(self, path: &Path) -> Result<T> {
        self.map_err(|e| match e.into() {
            redb::Error::Corrupted(why) => corrupt(path, why),
            // the opening transaction makes every table: one missing later is damage (a
            // header flip that rolled the file back to before they were made)
            e @ (redb::Error::TableTypeMismatch { .. }
            | redb::Error::TableDoesNotExist(_)
            | redb::Error::TableIsMultimap(_)
            | redb::Error::TableIsNotMultimap(_)
            | redb::Error::TypeDefinitionChanged { .. }
            | redb::Error::LockPoisoned(_)) => corrupt(path, e.to_string()),
            redb::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                corrupt(path, format!("a page past the end of the file ({io})"))
            }
            // redb's only use of this kind: the file does not start with its magic number.
            redb::Error::Io(io) if io.kind() == std::io::ErrorKind::InvalidData => {
                corrupt(path, "not a redb file (no magic number)")
            }
            e => DedupError::Store {
                path: path.to_path_buf(),
                source: Box::new(e),
            },
        })
    }
}

thread_local! {
    /// True while this thread runs a call under [`guarded`]: its panics are not printed.
    static SILENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Wraps the panic hook in place at the first call (once per process) so that it stays quiet
/// for a thread in [`guarded`] and prints as before for every other thread.
fn quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !SILENT.with(|s| s.get()) {
                hook(info);
            }
        }));
    });
}

/// Runs `f`, which calls redb, and turns a panic inside it into [`DedupError::CorruptStore`].
///
/// redb 2.6.4 keeps an XXH3-128 checksum of every page in its parent (a Merkle tree), but
/// verifies them only when it repairs a file that was not closed cleanly (and then rolls back
/// to the previous commit when they fail) or in `Database::check_integrity`; an ordinary open
/// and ordinary reads trust the pages. On a damaged page it may return garbage (which the
/// store's own checksums catch), an error (`Corrupted`, a short read), or panic: it asserts on
/// a file shorter than its header's layout, indexes slices by offsets read from the page, and
/// calls `unreachable!` on an unknown page type. Those panics are caught here, and not printed
/// (the panic hook, wrapped once, stays quiet for this thread meanwhile), so that the user
/// sees one clear error, not a backtrace. A hook set later by the application replaces the
/// wrapper: the panic is then printed, and still caught.
pub(super) fn guarded<T>(path: &Path, what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    if std::thread::panicking() {
        // Already unwinding (a drop): the hook cannot be set, and a second panic aborts.
        return f();
    }
    quiet_hook();
    let was = SILENT.with(|s| s.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    SILENT.with(|s| s.set(was));
    r.unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(corrupt(
            path,
            format!("the database failed a check of its own while {what} ({why})"),
        ))
    })
}

/// A chunk of a run, checked: its fingerprints and the first fingerprint of the next chunk.
pub(super) struct Chunk<'a> {
    fps: &'a [u8],
    /// The first fingerprint of the run's next chunk; `None` for the last chunk.
    pub(super) next: Option<u128>,
}

impl Chunk<'_> {
    /// The number of fingerprints (at least 1).
    pub(super) fn len(&self) -> usize {
        self.fps.len() / FP_BYTES
    }

    /// The fingerprint at position `i`.
    #[inline]
    pub(super) fn fp(&self, i: usize) -> u128 {
        le_u128(&self.fps[i * FP_BYTES..])
    }

    /// True when the chunk holds `fp` (a binary search: its fingerprints increase).
    pub(super) fn find(&self, fp: u128) -> bool {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.fp(mid).cmp(&fp) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

/// Encodes a chunk of run `no` into `out`: its sorted fingerprints (at least one), the first
/// fingerprint of the run's next chunk, and a checksum over the run number, the first
/// fingerprint (the chunk's key) and all of that.
pub(super) fn encode_chunk(no: u64, fps: &[u128], next: Option<u128>, out: &mut Vec<u8>) {
    out.clear();
    for v in fps {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&next.unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&u64::from(next.is_none()).to_le_bytes());
    let sum = checksum(CHUNK_SEED, &chunk_key(no, fps[0]), out);
    out.extend_from_slice(&sum.to_le_bytes());
}

fn chunk_key(no: u64, first: u128) -> [u8; 24] {
    let mut k = [0u8; 24];
    k[..8].copy_from_slice(&no.to_le_bytes());
    k[8..].copy_from_slice(&first.to_le_bytes());
    k
}

/// Decodes the chunk stored under `key` while reading run `no`, checking its length, its key,
/// its checksum and that its fingerprints increase from the key and stay below the next
/// chunk's (every read: 0.3 us or so for a chunk of [`WRITE_FPS`]).
pub(super) fn decode_chunk<'a>(
    path: &Path,
    no: u64,
    key: (u64, u128),
    v: &'a [u8],
) -> Result<Chunk<'a>> {
    let (kno, first) = key;
    let name = || format!("run {no}, chunk {first:#034x}");
    if kno != no {
        return Err(corrupt(path, format!("{}: read under run {kno}", name())));
    }
    let n = v.len().saturating_sub(CHUNK_TRAILER) / FP_BYTES;
    if !v.len().is_multiple_of(FP_BYTES) || n == 0 || n > CHUNK_FPS {
        return Err(corrupt(path, format!("{}: {} bytes", name(), v.len())));
    }
    let body = n * FP_BYTES;
    let trailer = &v[body..];
    let last = le_u64(&trailer[16..]);
    let sum = le_u64(&trailer[24..]);
    if sum != checksum(CHUNK_SEED, &chunk_key(no, first), &v[..v.len() - SUM_BYTES]) {
        return Err(corrupt(path, format!("{}: checksum mismatch", name())));
    }
    if last > 1 {
        return Err(corrupt(path, format!("{}: last-chunk mark {last}", name())));
    }
    let chunk = Chunk {
        fps: &v[..body],
        next: (last == 0).then(|| le_u128(trailer)),
    };
    let mut prev = chunk.fp(0);
    let ordered = prev == first
        && (1..n).all(|i| {
            let f = chunk.fp(i);
            let up = f > prev;
            prev = f;
            up
        })
        && chunk.next.is_none_or(|next| next > prev);
    if !ordered {
        return Err(corrupt(
            path,
            format!("{}: fingerprints out of order", name()),
        ));
    }
    Ok(chunk)
}

/// One run of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RunInfo {
    pub(super) no: u64,
    /// The process run that wrote it (for merged runs of finished runs: the largest of theirs).
    pub(super) tag: u32,
    pub(super) level: u32,
    /// Its number of fingerprints (at least 1).
    pub(super) len: u64,
    /// Its smallest fingerprint: the key of its first chunk.
    pub(super) first: u128,
}

impl RunInfo {
    pub(super) fn encode(&self) -> [u8; RUN_BYTES] {
        let mut b = [0u8; RUN_BYTES];
        b[..4].copy_from_slice(&self.tag.to_le_bytes());
        b[4..8].copy_from_slice(&self.level.to_le_bytes());
        b[8..16].copy_from_slice(&self.len.to_le_bytes());
        b[16..32].copy_from_slice(&self.first.to_le_bytes());
        let sum = checksum(RUN_SEED, &self.no.to_le_bytes(), &b[..32]);
        b[32..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    pub(super) fn decode(path: &Path, no: u64, v: &[u8]) -> Result<RunInfo> {
        if v.len() != RUN_BYTES {
            return Err(corrupt(
                path,
                format!("run {no}: {} bytes of info", v.len()),
            ));
        }
        if le_u64(&v[32..]) != checksum(RUN_SEED, &no.to_le_bytes(), &v[..32]) {
            return Err(corrupt(path, format!("run {no}: checksum mismatch")));
        }
        let run = RunInfo {
            no,
            tag: u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
            level: u32::from_le_bytes([v[4], v[5], v[6], v[7]]),
            len: le_u64(&v[8..]),
            first: le_u128(&v[16..]),
        };
        if run.len == 0 || run.level >= 64 {
            return Err(corrupt(
                path,
                format!("run {no}: length {}, level {}", run.len, run.level),
            ));
        }
        Ok(run)
    }
}

/// The `runs_digest` meta entry: the number of runs and a checksum over their list, so that a
/// run lost from the `runs` table (a damaged page of it) is found.
pub(super) fn runs_digest(runs: &[RunInfo]) -> [u8; 16] {
    let mut sorted: Vec<&RunInfo> = runs.iter().collect();
    sorted.sort_by_key(|r| r.no);
    let mut all = Vec::with_capacity(runs.len() * (8 + RUN_BYTES));
    for r in sorted {
        all.extend_from_slice(&r.no.to_le_bytes());
        all.extend_from_slice(&r.encode());
    }
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&(runs.len() as u64).to_le_bytes());
    d[8..].copy_from_slice(&xxh3_64_with_seed(&all, DIGEST_SEED).to_le_bytes());
    d
}

/// A meta value as stored: the payload, then its checksum over the key and the payload.
pub(super) fn meta_value(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = payload.to_vec();
    v.extend_from_slice(&checksum(META_SEED, key.as_bytes(), payload).to_le_bytes());
    v
}

/// Sets a meta entry (with its checksum).
pub(super) fn meta_put(
    path: &Path,
    meta: &mut redb::Table<'_, &str, &[u8]>,
    key: &str,
    payload: &[u8],
) -> Result<()> {
    meta.insert(key, &meta_value(key, payload)[..]).ctx(path)?;
    Ok(())
}

/// Reads a meta entry, checking its checksum: its payload, or `None` when there is none.
pub(super) fn meta_get(
    path: &Path,
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<Option<Vec<u8>>> {
    let Some(v) = meta.get(key).ctx(path)? else {
        return Ok(None);
    };
    unseal(path, key, v.value()).map(Some)
}

/// The payload of meta value `v` of `key`, its checksum checked.
pub(super) fn unseal(path: &Path, key: &str, v: &[u8]) -> Result<Vec<u8>> {
    let Some(n) = v.len().checked_sub(SUM_BYTES) else {
        return Err(corrupt(path, format!("meta {key}: {} bytes", v.len())));
    };
    if le_u64(&v[n..]) != checksum(META_SEED, key.as_bytes(), &v[..n]) {
        return Err(corrupt(path, format!("meta {key}: checksum mismatch")));
    }
    Ok(v[..n].to_vec())
}

/// Reads a meta entry that must be there.
pub(super) fn meta_need(
    path: &Path,
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<Vec<u8>> {
    meta_get(path, meta, key)?.ok_or_else(|| corrupt(path, format!("meta {key} missing")))
}

pub(super) fn read_u64(path: &Path, key: &str, v: &[u8]) -> Result<u64> {
    match v.len() {
        4 => Ok(u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as u64),
        8 => Ok(le_u64(v)),
        n => Err(corrupt(path, format!("meta {key}: {n} bytes"))),
    }
}

pub(super) fn read_u32(path: &Path, key: &str, v: &[u8]) -> Result<u32> {
    u32::try_from(read_u64(path, key, v)?)
        .map_err(|_| corrupt(path, format!("meta {key}: out of range")))
}

/// A list of process runs, as stored: u32 little-endian each.
pub(super) fn encode_tags(tags: &[u32]) -> Vec<u8> {
    tags.iter().flat_map(|t| t.to_le_bytes()).collect()
}

pub(super) fn decode_tags(path: &Path, v: &[u8]) -> Result<Vec<u32>> {
    if !v.len().is_multiple_of(4) {
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
pub(super) fn decode_publishing(path: &Path, v: &[u8]) -> Result<(u32, PathBuf)> {
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

/// The format recorded in a store: `None` for a new store (every table empty). Formats 1 and 2
/// stored it as a bare u32, format 3 on as a meta value with its checksum.
pub(super) fn stored_format(
    path: &Path,
    meta: &redb::Table<'_, &str, &[u8]>,
    others_empty: bool,
) -> Result<Option<u32>> {
    let Some(v) = meta.get("store_format").ctx(path)? else {
        if meta.len().ctx(path)? > 0 || !others_empty {
            return Err(corrupt(path, "meta store_format missing"));
        }
        return Ok(None);
    };
    let v = v.value();
    match v.len() {
        4 => match u32::from_le_bytes([v[0], v[1], v[2], v[3]]) {
            f @ (1 | 2) => Ok(Some(f)),
            f => Err(corrupt(
                path,
                format!("meta store_format: {f} without its checksum"),
            )),
        },
        12 => read_u32(path, "store_format", &unseal(path, "store_format", v)?).map(Some),
        n => Err(corrupt(path, format!("meta store_format: {n} bytes"))),
    }
}

/// What [`check_identity`] found: the same identity, or a store made before the identity was
/// recorded whole (format 3 and older: rung, form and rule-set version only) whose fields match
/// the requested identity's [`StoreIdentity::with_legacy`]: it adopts the requested identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IdentityCheck {
    Same,
    Adopt,
}

/// Compares the identity recorded in the store (read by `get`, with or without checksums)
/// with the requested one.
pub(super) fn check_identity(
    path: &Path,
    format: u32,
    get: impl Fn(&str) -> Result<Option<Vec<u8>>>,
    id: &StoreIdentity,
) -> Result<IdentityCheck> {
    let mismatch = |field: &'static str, stored: String, requested: String| {
        Err(DedupError::IdentityMismatch {
            path: path.to_path_buf(),
            field,
            stored,
            requested,
        })
    };
    let need = |key: &str| get(key)?.ok_or_else(|| corrupt(path, format!("meta {key} missing")));
    if !(1..=STORE_FORMAT).contains(&format) {
        return mismatch("store format", format.to_string(), STORE_FORMAT.to_string());
    }
    let fpv = read_u32(path, "fingerprint_version", &need("fingerprint_version")?)?;
    if fpv != FINGERPRINT_VERSION {
        return mismatch(
            "fingerprint version",
            fpv.to_string(),
            FINGERPRINT_VERSION.to_string(),
        );
    }
    if let Some(stored) = get("identity")? {
        let stored = String::from_utf8_lossy(&stored).into_owned();
        return if stored == id.text() {
            Ok(IdentityCheck::Same)
        } else {
            mismatch("identity", stored, id.text().to_owned())
        };
    }
    // a store of format 3 or older: rung, form and rule-set version
    let rung = String::from_utf8_lossy(&need("rung")?).into_owned();
    let form = String::from_utf8_lossy(&need("form")?).into_owned();
    let rules = read_u32(path, "ruleset_version", &need("ruleset_version")?)?;
    let Some((want_rung, want_form, want_rules)) = id.legacy() else {
        return mismatch(
            "identity",
            format!("rung {rung}, form {form}, rule-set version {rules}"),
            id.text().to_owned(),
        );
    };
    if rung != want_rung {
        return mismatch("rung", rung, want_rung.to_owned());
    }
    if form != want_form {
        return mismatch("form", form, want_form.to_owned());
    }
    if rules != want_rules {
        return mismatch(
            "rule-set version",
            rules.to_string(),
            want_rules.to_string(),
        );
    }
    Ok(IdentityCheck::Adopt)
}

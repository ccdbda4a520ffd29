//! The run files (format 5): each run's chunks in a file of its own, in the folder beside the
//! database file (`<store>.runs/run-<number>`), read with positioned reads. A file holds one
//! slot of [`SLOT`] bytes per chunk, in the run's order: the chunk's length (u32,
//! little-endian), the chunk as [`encode_chunk`](super::format::encode_chunk) makes it (its
//! checksum covers the run number and its first fingerprint), then zeros. So chunk `i` of a
//! run is at `i * SLOT`, found in memory by the run's fences, and read with one system call:
//! a stored key costs one read of 4 KiB from the page cache, with no tree to descend.
//!
//! A run file is written and synced, and the folder synced, before the transaction that lists
//! the run commits; a file whose run the database does not list (a write that never
//! committed, or a run merged away before its file was removed) is removed at the next open,
//! which holds the database's lock. The files are never changed once written.

use super::filter::FoldHasher;
use super::format::{RunInfo, WRITE_FPS, corrupt};
use super::helpers::Helpers;
use crate::{DedupError, Result};
use std::collections::HashMap;
use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::Write;
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The bytes of a chunk's slot in a run file: the page size, so that a chunk read is one page.
pub(super) const SLOT: usize = 4096;
/// The bytes before a chunk in its slot: its length.
const LEN_BYTES: usize = 4;
/// Slots read at once by a sequential reader (128 KiB).
pub(super) const BLOCK_SLOTS: usize = 32;

/// The folder of run files of the store at `store`: its name with `.runs` added.
pub(super) fn runs_dir(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_owned();
    name.push(".runs");
    PathBuf::from(name)
}

/// The number of slots (chunks) of a run: every run of format 5 is cut in chunks of
/// [`WRITE_FPS`].
pub(super) fn slots_of(run: &RunInfo) -> u64 {
    run.len.div_ceil(WRITE_FPS as u64)
}

fn file_name(no: u64) -> String {
    format!("run-{no}")
}

/// The run number a file's name gives, when it is a run file's name.
fn run_no(name: &std::ffi::OsStr) -> Option<u64> {
    let n = name.to_str()?.strip_prefix("run-")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

fn io<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> DedupError + 'a {
    move |source| DedupError::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

/// The folder of run files and an open handle on the file of each listed run.
#[derive(Debug)]
pub(super) struct RunFiles {
    /// The database file (named in errors about the store's content).
    store: PathBuf,
    dir: PathBuf,
    files: HashMap<u64, Arc<File>, BuildHasherDefault<FoldHasher>>,
    /// [`crate::PersistentOptions::read_threads`].
    pub(super) read_threads: usize,
    /// The threads that take a share of a batch's reads (started at the first such batch).
    pub(super) helpers: Helpers,
}

impl RunFiles {
    /// The run folder of the store at `store`, made when there is none (a new store, or one
    /// upgraded from format 4), with no run file open yet.
    pub(super) fn new(store: &Path) -> Result<RunFiles> {
        let dir = runs_dir(store);
        std::fs::create_dir_all(&dir).map_err(io("create the run folder", &dir))?;
        Ok(RunFiles {
            store: store.to_path_buf(),
            dir,
            files: HashMap::default(),
            read_threads: 0,
            helpers: Helpers::default(),
        })
    }

    /// True when the folder holds a run file: a store being made must find none (else its
    /// database file was lost or emptied, and its runs are still here).
    pub(super) fn holds_run_files(&self) -> Result<bool> {
        let listing = std::fs::read_dir(&self.dir).map_err(io("list the run folder", &self.dir))?;
        for entry in listing {
            let entry = entry.map_err(io("list the run folder", &self.dir))?;
            if run_no(&entry.file_name()).is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Opens the files of `runs` (the runs the store lists), checking that each is there with
    /// one slot per chunk, and removes the run files of runs not listed. Called under the
    /// database's lock, once its list of runs is read.
    pub(super) fn open_runs(&mut self, runs: &[RunInfo]) -> Result<()> {
        let listing = std::fs::read_dir(&self.dir).map_err(io("list the run folder", &self.dir))?;
        for entry in listing {
            let entry = entry.map_err(io("list the run folder", &self.dir))?;
            if let Some(no) = run_no(&entry.file_name())
                && !runs.iter().any(|r| r.no == no)
            {
                // Best effort: a stray file takes room but is never read.
                let _ = std::fs::remove_file(entry.path());
            }
        }
        self.adopt(runs)
    }

    /// Opens the files of the runs of `runs` not open yet, and closes those of runs no longer
    /// listed.
    pub(super) fn adopt(&mut self, runs: &[RunInfo]) -> Result<()> {
        self.files.retain(|no, _| runs.iter().any(|r| r.no == *no));
        for run in runs {
            if self.files.contains_key(&run.no) {
                continue;
            }
            let path = self.dir.join(file_name(run.no));
            let file = match File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(corrupt(
                        &self.store,
                        format!("run {}: its file {} is missing", run.no, path.display()),
                    ));
                }
                Err(e) => return Err(io("open a run file", &path)(e)),
            };
            let len = file.metadata().map_err(io("stat a run file", &path))?.len();
            let want = slots_of(run) * SLOT as u64;
            if len != want {
                return Err(corrupt(
                    &self.store,
                    format!(
                        "run {}: its file {} has {len} bytes, {want} expected",
                        run.no,
                        path.display()
                    ),
                ));
            }
            self.files.insert(run.no, Arc::new(file));
        }
        Ok(())
    }

    /// Reads slots of run `run` from slot `first` into `buf` (a whole number of slots). A run
    /// not listed yet (written by the write under way, and merged by it) has its file opened
    /// for the read.
    pub(super) fn read_into(&self, run: &RunInfo, first: u64, buf: &mut [u8]) -> Result<()> {
        match self.files.get(&run.no) {
            Some(file) => read_slots(file, &self.store, &self.dir, run, first, buf),
            None => {
                let path = self.dir.join(file_name(run.no));
                let file = File::open(&path).map_err(io("open a run file", &path))?;
                read_slots(&file, &self.store, &self.dir, run, first, buf)
            }
        }
    }

    /// What another thread needs to read the slots of run `run`, when its file is open (a
    /// listed run).
    pub(super) fn slot_reader(&self, run: &RunInfo) -> Option<SlotReader> {
        Some(SlotReader {
            file: self.files.get(&run.no)?.clone(),
            store: self.store.clone(),
            dir: self.dir.clone(),
            run: *run,
        })
    }

    /// Makes the file of run `no` (replacing a stray one of that number).
    pub(super) fn create(&self, no: u64) -> Result<SlotWriter> {
        let path = self.dir.join(file_name(no));
        let file = File::create(&path).map_err(io("create a run file", &path))?;
        Ok(SlotWriter {
            out: std::io::BufWriter::with_capacity(BLOCK_SLOTS * SLOT, file),
            path,
            slot: vec![0; SLOT],
        })
    }

    /// Syncs the folder, so that the files made in it stay after a crash.
    pub(super) fn sync_dir(&self) -> Result<()> {
        #[cfg(unix)]
        {
            File::open(&self.dir)
                .and_then(|d| d.sync_all())
                .map_err(io("sync the run folder", &self.dir))?;
        }
        Ok(())
    }

    /// Removes the files of runs `nos` (best effort: a file left is removed at the next open).
    pub(super) fn remove(&mut self, nos: impl IntoIterator<Item = u64>) {
        for no in nos {
            self.files.remove(&no);
            let _ = std::fs::remove_file(self.dir.join(file_name(no)));
        }
    }

    /// Removes the files of runs `nos`, which no list names (a write that failed).
    pub(super) fn remove_unlisted(&self, nos: impl IntoIterator<Item = u64>) {
        for no in nos {
            let _ = std::fs::remove_file(self.dir.join(file_name(no)));
        }
    }

    /// The bytes the run files of the listed runs take.
    pub(super) fn bytes(&self) -> u64 {
        self.files
            .values()
            .map(|f| f.metadata().map_or(0, |m| m.len()))
            .sum()
    }
}

/// Reads slots of run `run` from slot `first` into `buf` (a whole number of slots) from its
/// file `file`; `store` and `dir` name the store and its run folder in errors.
fn read_slots(
    file: &File,
    store: &Path,
    dir: &Path,
    run: &RunInfo,
    first: u64,
    buf: &mut [u8],
) -> Result<()> {
    let at = first * SLOT as u64;
    #[cfg(unix)]
    let read = file.read_exact_at(buf, at);
    #[cfg(not(unix))]
    let read = {
        use std::io::{Read, Seek};
        let mut f = file;
        f.seek(std::io::SeekFrom::Start(at))
            .and_then(|_| f.read_exact(buf))
    };
    read.map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            let end = first + (buf.len() / SLOT) as u64;
            corrupt(
                store,
                format!("run {}: its file ends before slot {end}", run.no),
            )
        } else {
            io("read a run file", &dir.join(file_name(run.no)))(e)
        }
    })
}

/// The slots of one run, readable from another thread: its open file, shared.
pub(super) struct SlotReader {
    file: Arc<File>,
    store: PathBuf,
    dir: PathBuf,
    /// The run.
    pub(super) run: RunInfo,
}

impl SlotReader {
    /// [`RunFiles::read_into`] for this reader's run.
    pub(super) fn read_into(&self, first: u64, buf: &mut [u8]) -> Result<()> {
        read_slots(&self.file, &self.store, &self.dir, &self.run, first, buf)
    }

    /// The store's path (for errors).
    pub(super) fn store(&self) -> &Path {
        &self.store
    }
}

/// The chunk in a slot read by [`RunFiles::read_into`]: its bytes, without the length before
/// them and the zeros after.
pub(super) fn slot_chunk<'a>(
    store: &Path,
    run: &RunInfo,
    i: u64,
    slot: &'a [u8],
) -> Result<&'a [u8]> {
    let mut len = [0u8; LEN_BYTES];
    len.copy_from_slice(&slot[..LEN_BYTES]);
    let len = u32::from_le_bytes(len) as usize;
    if len > SLOT - LEN_BYTES {
        return Err(corrupt(
            store,
            format!("run {}, slot {i}: a chunk of {len} bytes", run.no),
        ));
    }
    Ok(&slot[LEN_BYTES..LEN_BYTES + len])
}

/// Writes a run file one slot at a time.
pub(super) struct SlotWriter {
    out: std::io::BufWriter<File>,
    path: PathBuf,
    slot: Vec<u8>,
}

impl SlotWriter {
    /// Writes the next chunk (at most `SLOT - 4` bytes) in its slot.
    pub(super) fn write(&mut self, chunk: &[u8]) -> Result<()> {
        debug_assert!(chunk.len() <= SLOT - LEN_BYTES);
        self.slot.fill(0);
        self.slot[..LEN_BYTES].copy_from_slice(&(chunk.len() as u32).to_le_bytes());
        self.slot[LEN_BYTES..LEN_BYTES + chunk.len()].copy_from_slice(chunk);
        self.out
            .write_all(&self.slot)
            .map_err(io("write a run file", &self.path))
    }

    /// Flushes the file and syncs it to the disk.
    pub(super) fn finish(self) -> Result<()> {
        let path = self.path;
        let file = self
            .out
            .into_inner()
            .map_err(|e| io("write a run file", &path)(e.into_error()))?;
        file.sync_data().map_err(io("sync a run file", &path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_folder() {
        assert_eq!(
            runs_dir(Path::new("/a/seen.redb")),
            Path::new("/a/seen.redb.runs")
        );
        assert_eq!(run_no("run-12".as_ref()), Some(12));
        for not in ["run-", "run-1x", "run-+1", "x-1", "run-1.tmp"] {
            assert_eq!(run_no(not.as_ref()), None, "{not}");
        }
    }
}

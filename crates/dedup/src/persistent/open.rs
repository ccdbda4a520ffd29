//! Opening a store: making it, checking its identity or upgrading it, and reading its state
//! (the runs and counters, checked against each other) in one write transaction.

use super::files::RunFiles;
use super::format::{
    CHUNKS, IdentityCheck, META, RUNS, RunInfo, StoreCtx, begin_write, check_identity, corrupt,
    decode_publishing, decode_tags, encode_tags, meta_get, meta_need, meta_put, read_u64,
    runs_digest, stored_format,
};
use super::{Abandoned, PersistentSet, STORE_FORMAT, StoreIdentity, upgrade};
use crate::{FINGERPRINT_VERSION, Result};
use redb::{Database, ReadableTable, ReadableTableMetadata};
use std::path::{Path, PathBuf};

/// What [`PersistentSet::open`] reads from the store.
pub(super) struct Opened {
    pub(super) run: u32,
    pub(super) discarded: Vec<u32>,
    pub(super) len: u64,
    pub(super) next_no: u64,
    pub(super) runs: Vec<RunInfo>,
    /// The temporary output of a run killed while it put it in place, to remove.
    pub(super) stale: Option<PathBuf>,
    /// The store was made before it recorded its keys' identity whole, and took this one.
    pub(super) adopted: bool,
    /// The format the store had, when this open upgraded it.
    pub(super) upgraded_from: Option<u32>,
}

impl PersistentSet {
    /// The open's transaction: makes, checks or upgrades the store (a store of format 4 or
    /// older gets its runs' files in `files`), reads its state and records the new run.
    pub(super) fn start(
        db: &Database,
        path: &Path,
        files: &RunFiles,
        identity: &StoreIdentity,
        abandoned: Abandoned,
    ) -> Result<Opened> {
        let txn = begin_write(db, path)?;
        let mut adopted = false;
        let mut upgraded_from = None;
        let opened = {
            let mut meta = txn.open_table(META).ctx(path)?;
            let mut chunks = txn.open_table(CHUNKS).ctx(path)?;
            let mut runs_table = txn.open_table(RUNS).ctx(path)?;
            let empty = chunks.is_empty().ctx(path)? && runs_table.is_empty().ctx(path)?;
            match stored_format(path, &meta, empty)? {
                None if files.holds_run_files()? => {
                    // A database file lost, emptied or replaced by a new one beside the runs
                    // of a store: making a new store here would remove them.
                    return Err(corrupt(
                        path,
                        format!(
                            "the store's file is new or empty, but its folder {} holds run \
                             files (the keys of a store whose file was lost): move that folder \
                             away to start a new store",
                            super::files::runs_dir(path).display()
                        ),
                    ));
                }
                None => {
                    let fields: [(&str, &[u8]); 8] = [
                        ("store_format", &STORE_FORMAT.to_le_bytes()),
                        ("fingerprint_version", &FINGERPRINT_VERSION.to_le_bytes()),
                        ("identity", identity.text().as_bytes()),
                        ("count", &0u64.to_le_bytes()),
                        ("next_run", &1u32.to_le_bytes()),
                        ("discarded_runs", &[]),
                        ("next_run_no", &1u64.to_le_bytes()),
                        ("runs_digest", &runs_digest(&[])),
                    ];
                    for (k, v) in fields {
                        meta_put(path, &mut meta, k, v)?;
                    }
                }
                Some(format) if format < STORE_FORMAT => {
                    // format 3 is format 4 without the whole identity; format 4 kept the runs'
                    // chunks in the database
                    let check = if format < 3 {
                        let raw = |key: &str| -> Result<Option<Vec<u8>>> {
                            Ok(meta.get(key).ctx(path)?.map(|v| v.value().to_vec()))
                        };
                        let check = check_identity(path, format, raw, identity)?;
                        upgrade::upgrade(path, format, &mut meta, &mut runs_table, &mut chunks)?;
                        check
                    } else {
                        let check =
                            check_identity(path, format, |k| meta_get(path, &meta, k), identity)?;
                        meta_put(path, &mut meta, "store_format", &STORE_FORMAT.to_le_bytes())?;
                        check
                    };
                    adopted = check == IdentityCheck::Adopt;
                    upgrade::chunks_to_files(path, files, &runs_table, &mut chunks)?;
                    upgraded_from = Some(format);
                }
                Some(format) => {
                    let check =
                        check_identity(path, format, |k| meta_get(path, &meta, k), identity)?;
                    adopted = check == IdentityCheck::Adopt;
                }
            }
            if adopted {
                meta_put(path, &mut meta, "identity", identity.text().as_bytes())?;
            }
            let mut opened = Self::read_state(path, &mut meta, &runs_table, abandoned)?;
            opened.adopted = adopted;
            opened.upgraded_from = upgraded_from;
            opened
        };
        txn.commit().ctx(path)?;
        Ok(opened)
    }

    /// Reads the runs and counters (checked against each other) and records the new run.
    fn read_state(
        path: &Path,
        meta: &mut redb::Table<'_, &str, &[u8]>,
        runs_table: &redb::Table<'_, u64, &[u8]>,
        abandoned: Abandoned,
    ) -> Result<Opened> {
        let mut runs = Vec::new();
        for entry in runs_table.iter().ctx(path)? {
            let (k, v) = entry.ctx(path)?;
            runs.push(RunInfo::decode(path, k.value(), v.value())?);
        }
        if meta_need(path, meta, "runs_digest")? != runs_digest(&runs) {
            return Err(corrupt(
                path,
                format!(
                    "the list of runs ({} read) does not match its digest",
                    runs.len()
                ),
            ));
        }
        let mut discarded = decode_tags(path, &meta_need(path, meta, "discarded_runs")?)?;
        let get = |key: &str| read_u64(path, key, &meta_need(path, meta, key)?);
        let run = u32::try_from(get("next_run")?)
            .ok()
            .filter(|&r| r < u32::MAX)
            .ok_or_else(|| corrupt(path, "run numbers exhausted"))?;
        let len = get("count")?;
        let next_no = get("next_run_no")?;
        if let Some(r) = runs.iter().find(|r| r.no >= next_no || r.tag >= run) {
            return Err(corrupt(
                path,
                format!(
                    "run {} (of process run {}): past the counters (next run {next_no}, next \
                     process run {run})",
                    r.no, r.tag
                ),
            ));
        }
        if discarded.iter().any(|&t| t >= run) {
            return Err(corrupt(
                path,
                "meta discarded_runs: a process run not begun",
            ));
        }
        let total = runs.iter().fold(0u64, |s, r| s.saturating_add(r.len));
        if len > total {
            return Err(corrupt(
                path,
                format!("meta count {len}: more than the {total} fingerprints of the runs"),
            ));
        }
        // A run killed while it put its output in place (see `finish_with_output`): the
        // temporary file is still there when the rename did not happen (the run's output is
        // discarded, and the file is removed once this is committed); gone when it did (the
        // run finished).
        let stale = match meta_get(path, meta, "publishing")? {
            Some(v) => {
                meta.remove("publishing").ctx(path)?;
                let (tag, tmp) = decode_publishing(path, &v)?;
                if tmp.exists() {
                    Some(tmp)
                } else {
                    discarded.retain(|&t| t != tag);
                    None
                }
            }
            None => None,
        };
        if abandoned == Abandoned::New {
            discarded.push(run);
        }
        meta_put(path, meta, "discarded_runs", &encode_tags(&discarded))?;
        meta_put(path, meta, "next_run", &(run + 1).to_le_bytes())?;
        Ok(Opened {
            run,
            discarded,
            len,
            next_no,
            runs,
            stale,
            adopted: false,
            upgraded_from: None,
        })
    }
}

//! Upgrading a store of an older format to the current one, in the transaction that opens it:
//! the checksums of format 3 (for formats 1 and 2), then the runs' chunks moved from the
//! database to the runs' files of format 5.

use super::STORE_FORMAT;
use super::files::RunFiles;
use super::format::{
    CHUNK_FPS, FP_BYTES, RunInfo, StoreCtx, corrupt, decode_chunk, decode_tags, encode_chunk,
    encode_tags, meta_put, read_u32, runs_digest,
};
use super::runs::{RunWriter, missing};
use crate::Result;
use redb::{ReadableTable, Table};
use std::path::Path;

/// Meta entries whose payload stays as it was (stored again with a checksum).
const KEPT: [&str; 8] = [
    "fingerprint_version",
    "rung",
    "form",
    "ruleset_version",
    "count",
    "next_run",
    "next_run_no",
    "publishing",
];

/// Upgrades a store of format 1 or 2: every chunk is stored again with the first fingerprint
/// of the next chunk and a checksum (after checking what can be checked without one: lengths,
/// order, the run's length), every run with its first fingerprint and a checksum, every meta
/// entry with a checksum, and the list of runs' digest. A format-1 store also gets its list of
/// discarded runs: format 1 kept `last_completed_run`, and every run after it was unfinished
/// and counted as discarded by a run with atomic output; those runs are recorded as discarded
/// (a rerun writes their keys again rather than lose them). One transaction, so the whole
/// store is written once (the file may need twice its size meanwhile).
pub(super) fn upgrade(
    path: &Path,
    format: u32,
    meta: &mut Table<'_, &str, &[u8]>,
    runs_table: &mut Table<'_, u64, &[u8]>,
    chunks: &mut Table<'_, (u64, u128), &[u8]>,
) -> Result<()> {
    // Runs as formats 1 and 2 stored them: tag (u32), level (u32), length (u64).
    let mut old = Vec::new();
    for entry in runs_table.iter().ctx(path)? {
        let (k, v) = entry.ctx(path)?;
        let (no, v) = (k.value(), v.value());
        if v.len() != 16 {
            return Err(corrupt(
                path,
                format!("run {no}: {} bytes of info", v.len()),
            ));
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&v[8..]);
        let tag = u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        let level = u32::from_le_bytes([v[4], v[5], v[6], v[7]]);
        old.push((no, tag, level, u64::from_le_bytes(len)));
    }
    let discarded = if format == 1 {
        let last = match meta.remove("last_completed_run").ctx(path)? {
            Some(v) => read_u32(path, "last_completed_run", v.value())?,
            None => return Err(corrupt(path, "meta last_completed_run missing")),
        };
        let mut tags: Vec<u32> = old.iter().map(|r| r.1).filter(|&t| t > last).collect();
        tags.sort_unstable();
        tags.dedup();
        tags
    } else {
        let v = meta
            .get("discarded_runs")
            .ctx(path)?
            .map(|v| v.value().to_vec())
            .ok_or_else(|| corrupt(path, "meta discarded_runs missing"))?;
        decode_tags(path, &v)?
    };
    let mut runs = Vec::with_capacity(old.len());
    let (mut fps, mut bytes) = (Vec::with_capacity(CHUNK_FPS), Vec::new());
    for (no, tag, level, len) in old {
        let mut keys = Vec::new();
        for entry in chunks.range((no, 0u128)..=(no, u128::MAX)).ctx(path)? {
            keys.push(entry.ctx(path)?.0.value().1);
        }
        let mut count = 0u64;
        let mut prev = None;
        for (i, &key) in keys.iter().enumerate() {
            fps.clear();
            {
                let v = chunks
                    .get((no, key))
                    .ctx(path)?
                    .ok_or_else(|| corrupt(path, format!("run {no}: chunk {key:#034x} gone")))?;
                let v = v.value();
                if v.is_empty() || v.len() % FP_BYTES != 0 || v.len() / FP_BYTES > CHUNK_FPS {
                    return Err(corrupt(
                        path,
                        format!("run {no}, chunk {key:#034x}: {} bytes", v.len()),
                    ));
                }
                fps.extend(v.chunks_exact(FP_BYTES).map(|b| {
                    let mut a = [0u8; FP_BYTES];
                    a.copy_from_slice(b);
                    u128::from_le_bytes(a)
                }));
            }
            let ordered = fps[0] == key
                && fps.windows(2).all(|w| w[0] < w[1])
                && prev.is_none_or(|p| p < key);
            if !ordered {
                return Err(corrupt(
                    path,
                    format!("run {no}, chunk {key:#034x}: fingerprints out of order"),
                ));
            }
            prev = fps.last().copied();
            count += fps.len() as u64;
            encode_chunk(no, &fps, keys.get(i + 1).copied(), &mut bytes);
            chunks.insert((no, key), bytes.as_slice()).ctx(path)?;
        }
        if count != len || keys.is_empty() {
            return Err(corrupt(
                path,
                format!("run {no}: {count} fingerprints, {len} recorded"),
            ));
        }
        let run = RunInfo {
            no,
            tag,
            level,
            len,
            first: keys[0],
        };
        runs_table.insert(no, &run.encode()[..]).ctx(path)?;
        runs.push(run);
    }
    for key in KEPT {
        let v = meta.get(key).ctx(path)?.map(|v| v.value().to_vec());
        if let Some(v) = v {
            meta_put(path, meta, key, &v)?;
        }
    }
    meta_put(path, meta, "discarded_runs", &encode_tags(&discarded))?;
    meta_put(path, meta, "runs_digest", &runs_digest(&runs))?;
    meta_put(path, meta, "store_format", &STORE_FORMAT.to_le_bytes())
}

/// Moves the runs' chunks of a store of format 4 or older (after the upgrades above) from the
/// database's chunks table to the runs' files, cut again in chunks of
/// [`WRITE_FPS`](super::format::WRITE_FPS) (older runs have chunks of up to [`CHUNK_FPS`]),
/// every chunk and chain checked as it is read; syncs the files and the folder, then empties
/// the table. The run records stay as they are (a run keeps its number, length and first
/// fingerprint). Killed before the transaction commits, the store is still of its old format
/// and the files made are removed at the next open, which upgrades again.
pub(super) fn chunks_to_files(
    path: &Path,
    files: &RunFiles,
    runs_table: &Table<'_, u64, &[u8]>,
    chunks: &mut Table<'_, (u64, u128), &[u8]>,
) -> Result<()> {
    let mut runs = Vec::new();
    for entry in runs_table.iter().ctx(path)? {
        let (k, v) = entry.ctx(path)?;
        runs.push(RunInfo::decode(path, k.value(), v.value())?);
    }
    for run in &runs {
        let mut writer = RunWriter::new(run.no);
        let mut expect = Some(run.first);
        for entry in chunks
            .range((run.no, 0u128)..=(run.no, u128::MAX))
            .ctx(path)?
        {
            let (k, v) = entry.ctx(path)?;
            let key = k.value();
            match expect {
                Some(want) if want == key.1 => {}
                Some(want) => return Err(missing(path, run, want)),
                None => {
                    return Err(corrupt(
                        path,
                        format!("run {}, chunk {:#034x}: after the last", run.no, key.1),
                    ));
                }
            }
            let chunk = decode_chunk(path, run.no, key, v.value())?;
            for i in 0..chunk.len() {
                writer.push(files, chunk.fp(i))?;
            }
            expect = chunk.next;
        }
        if let Some(want) = expect {
            return Err(missing(path, run, want));
        }
        let (len, first, _) = writer.finish(files)?;
        if len != run.len || first != run.first {
            return Err(corrupt(
                path,
                format!("run {}: {len} fingerprints, {} recorded", run.no, run.len),
            ));
        }
    }
    files.sync_dir()?;
    chunks.retain(|_, _| false).ctx(path)
}

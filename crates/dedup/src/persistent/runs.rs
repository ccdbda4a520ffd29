//! The runs of the store: looking candidates up in a run (a merge over its chunks, or one chunk
//! per candidate), writing a run, and merging runs (k-way). Every chunk read is checked (see
//! [`decode_chunk`]) and so is the chain of a run's chunks: its first chunk is keyed by the
//! run's first fingerprint, each chunk names the first fingerprint of the next, the last says it
//! is the last, and their lengths add up to the run's. So a chunk lost or moved under another
//! key is found, never read as a key that is absent.

use super::fences::chunk_of;
use super::format::{
    CHUNK_FPS, FP_BYTES, RunInfo, StoreCtx, WRITE_FPS, corrupt, decode_chunk, encode_chunk,
};
use crate::Result;
use redb::ReadableTable;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

/// Runs of one level merged into one run of the next level.
pub(super) const FANOUT: usize = 4;

/// A chunk that a run's chain names but that is not there.
fn missing(path: &Path, run: &RunInfo, key: u128) -> crate::DedupError {
    corrupt(path, format!("run {}, chunk {key:#034x}: missing", run.no))
}

/// Looks the sorted, unique candidates up in one run, the cheaper way: one pass over its
/// chunks when the candidates are many for its chunks, else one chunk read for each, found by
/// the run's fences when this process has them (see [`lookup_each`]). A candidate found gets
/// at least `class` in `status`. Every chunk read is checked.
#[allow(clippy::too_many_arguments)]
pub(super) fn lookup_one_run(
    path: &Path,
    chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    run: &RunInfo,
    fences: Option<&[u128]>,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    let run_chunks = fences.map_or(run.len.div_ceil(WRITE_FPS as u64), |f| f.len() as u64);
    if (cands.len() as u64) * 2 >= run_chunks {
        lookup_dense(path, chunks, run, cands, status, class)
    } else {
        lookup_each(path, chunks, run, fences, cands, status, class)
    }
}

/// Looks the sorted, unique candidates up in one run: one sequential pass over its chunks.
/// A candidate found gets at least `class` in `status`.
fn lookup_dense(
    path: &Path,
    chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    run: &RunInfo,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    let mut j = 0;
    if cands.is_empty() {
        return Ok(());
    }
    let mut expect = Some(run.first);
    let mut count = 0u64;
    for entry in chunks
        .range((run.no, 0u128)..=(run.no, u128::MAX))
        .ctx(path)?
    {
        let (k, blob) = entry.ctx(path)?;
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
        let chunk = decode_chunk(path, run.no, key, blob.value())?;
        expect = chunk.next;
        count += chunk.len() as u64;
        if count > run.len {
            return Err(corrupt(
                path,
                format!("run {}: more than its {} fingerprints", run.no, run.len),
            ));
        }
        // Skip the chunk if all its fingerprints are below the next candidate.
        if chunk.last() < cands[j].0 {
            continue;
        }
        for i in 0..chunk.len() {
            let v = chunk.fp(i);
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
    if let Some(want) = expect {
        return Err(missing(path, run, want));
    }
    if count != run.len {
        return Err(corrupt(
            path,
            format!("run {}: {count} fingerprints, {} recorded", run.no, run.len),
        ));
    }
    Ok(())
}

/// Looks each candidate up in one run by reading the one chunk that may hold it: the last
/// whose key is not above it. With the run's fences (see [`super::fences`]) that chunk is
/// named by them and read by its key, and it must name the next fence as its next (else the
/// run changed under the fences: damage); without them it is the last entry of a range of the
/// tree, and the next chunk must start above the candidate (else it was lost). Either way the
/// chunk must exist when the candidate is not below the run's first fingerprint.
fn lookup_each(
    path: &Path,
    chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    run: &RunInfo,
    fences: Option<&[u128]>,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    for (j, &(fp, _)) in cands.iter().enumerate() {
        if status[j] >= class {
            continue;
        }
        // the chunk, and with fences the next chunk's first fingerprint they expect
        let (key, blob, next_fence) = match fences {
            Some(fences) => {
                let Some(i) = chunk_of(fences, fp) else {
                    continue;
                };
                let key = (run.no, fences[i]);
                let blob = chunks
                    .get(key)
                    .ctx(path)?
                    .ok_or_else(|| missing(path, run, fences[i]))?;
                (key, blob, Some(fences.get(i + 1).copied()))
            }
            None => {
                let mut range = chunks.range((run.no, 0u128)..=(run.no, fp)).ctx(path)?;
                let Some(entry) = range.next_back() else {
                    if fp >= run.first {
                        return Err(missing(path, run, run.first));
                    }
                    continue;
                };
                let (k, blob) = entry.ctx(path)?;
                let key = k.value();
                if key.1 > fp {
                    return Err(corrupt(
                        path,
                        format!("run {}, chunk {:#034x}: out of place", run.no, key.1),
                    ));
                }
                (key, blob, None)
            }
        };
        let chunk = decode_chunk(path, run.no, key, blob.value())?;
        if next_fence.is_some_and(|want| chunk.next != want) {
            return Err(corrupt(
                path,
                format!(
                    "run {}, chunk {:#034x}: its next chunk is not the one read at open",
                    run.no, key.1
                ),
            ));
        }
        if let Some(next) = chunk.next.filter(|&next| next <= fp) {
            return Err(missing(path, run, next));
        }
        if chunk.find(fp) {
            status[j] = class;
        }
    }
    Ok(())
}

/// Writes a run's fingerprints (pushed in increasing order) in chunks: a full chunk is written
/// once the next fingerprint is known, since each chunk names the first of the next.
pub(super) struct RunWriter {
    no: u64,
    /// The first fingerprint of each chunk written: the run's fences.
    firsts: Vec<u128>,
    buf: Vec<u128>,
    bytes: Vec<u8>,
    len: u64,
    first: u128,
}

impl RunWriter {
    pub(super) fn new(no: u64) -> RunWriter {
        RunWriter {
            no,
            firsts: Vec::new(),
            buf: Vec::with_capacity(WRITE_FPS),
            bytes: Vec::with_capacity(WRITE_FPS * FP_BYTES + 32),
            len: 0,
            first: 0,
        }
    }

    fn write(
        &mut self,
        path: &Path,
        chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
        next: Option<u128>,
    ) -> Result<()> {
        encode_chunk(self.no, &self.buf, next, &mut self.bytes);
        self.firsts.push(self.buf[0]);
        chunks
            .insert((self.no, self.buf[0]), self.bytes.as_slice())
            .ctx(path)?;
        self.buf.clear();
        Ok(())
    }

    /// Adds the next fingerprint (larger than the one before).
    pub(super) fn push(
        &mut self,
        path: &Path,
        chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
        v: u128,
    ) -> Result<()> {
        debug_assert!(self.buf.last().is_none_or(|&l| l < v));
        if self.buf.len() == WRITE_FPS {
            self.write(path, chunks, Some(v))?;
        }
        if self.len == 0 {
            self.first = v;
        }
        self.buf.push(v);
        self.len += 1;
        Ok(())
    }

    /// Writes the last chunk; returns the run's length and first fingerprint, and its fences.
    pub(super) fn finish(
        mut self,
        path: &Path,
        chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
    ) -> Result<(u64, u128, Vec<u128>)> {
        if !self.buf.is_empty() {
            self.write(path, chunks, None)?;
        }
        Ok((self.len, self.first, self.firsts))
    }
}

/// Reads a run in order, one chunk at a time by its key (the previous chunk names it), so that
/// the table is free for writing between reads; checks the chain and the run's length.
pub(super) struct RunReader {
    run: RunInfo,
    /// The key of each chunk read, when asked for ([`RunReader::fenced`]): the run's fences.
    firsts: Option<Vec<u128>>,
    next_key: Option<u128>,
    buf: Vec<u128>,
    pos: usize,
    read: u64,
}

impl RunReader {
    pub(super) fn new(run: RunInfo) -> RunReader {
        RunReader {
            run,
            firsts: None,
            next_key: Some(run.first),
            buf: Vec::with_capacity(CHUNK_FPS),
            pos: 0,
            read: 0,
        }
    }

    pub(super) fn next(
        &mut self,
        path: &Path,
        chunks: &impl ReadableTable<(u64, u128), &'static [u8]>,
    ) -> Result<Option<u128>> {
        if self.pos == self.buf.len() {
            let Some(key) = self.next_key else {
                if self.read != self.run.len {
                    return Err(corrupt(
                        path,
                        format!(
                            "run {}: {} fingerprints, {} recorded",
                            self.run.no, self.read, self.run.len
                        ),
                    ));
                }
                return Ok(None);
            };
            let no = self.run.no;
            let blob = chunks
                .get((no, key))
                .ctx(path)?
                .ok_or_else(|| missing(path, &self.run, key))?;
            let chunk = decode_chunk(path, no, (no, key), blob.value())?;
            if let Some(firsts) = &mut self.firsts {
                firsts.push(key);
            }
            self.buf.clear();
            self.buf.extend((0..chunk.len()).map(|i| chunk.fp(i)));
            self.pos = 0;
            self.next_key = chunk.next;
            self.read += chunk.len() as u64;
            if self.read > self.run.len {
                return Err(corrupt(
                    path,
                    format!("run {no}: more than its {} fingerprints", self.run.len),
                ));
            }
        }
        let v = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(v))
    }

    /// A reader that gathers the run's fences as it reads (see [`RunReader::fences`]).
    pub(super) fn fenced(run: RunInfo) -> RunReader {
        RunReader {
            firsts: Some(Vec::new()),
            ..RunReader::new(run)
        }
    }

    /// The fences gathered, once the run was read to its end by a [`fenced`](Self::fenced)
    /// reader.
    pub(super) fn fences(self) -> Option<Vec<u128>> {
        self.firsts.filter(|_| self.next_key.is_none())
    }
}

/// Merges the source runs (k-way, equal fingerprints once) into run `no`; returns its length,
/// first fingerprint and fences.
fn merge_runs(
    path: &Path,
    chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
    sources: &[RunInfo],
    no: u64,
) -> Result<(u64, u128, Vec<u128>)> {
    let mut srcs: Vec<RunReader> = sources.iter().map(|&r| RunReader::new(r)).collect();
    let mut heap = BinaryHeap::with_capacity(srcs.len());
    for (i, s) in srcs.iter_mut().enumerate() {
        if let Some(v) = s.next(path, &*chunks)? {
            heap.push(Reverse((v, i)));
        }
    }
    let mut out = RunWriter::new(no);
    let mut last = None;
    while let Some(Reverse((v, i))) = heap.pop() {
        if last != Some(v) {
            last = Some(v);
            out.push(path, chunks, v)?;
        }
        if let Some(next) = srcs[i].next(path, &*chunks)? {
            heap.push(Reverse((next, i)));
        }
    }
    out.finish(path, chunks)
}

/// Merges groups of [`FANOUT`] runs of one level, until no group is left; `compatible` says
/// which runs may be merged together. The fences of each merged run go to `fences`.
pub(super) fn merge_levels(
    path: &Path,
    chunks: &mut redb::Table<'_, (u64, u128), &[u8]>,
    runs_table: &mut redb::Table<'_, u64, &[u8]>,
    runs: &mut Vec<RunInfo>,
    next_no: &mut u64,
    compatible: impl Fn(&RunInfo, &RunInfo) -> bool,
    fences: &mut Vec<(u64, Vec<u128>)>,
) -> Result<()> {
    loop {
        let group: Option<Vec<usize>> = runs.iter().enumerate().find_map(|(i, a)| {
            let g: Vec<usize> = (i..runs.len())
                .filter(|&j| runs[j].level == a.level && compatible(a, &runs[j]))
                .take(FANOUT)
                .collect();
            (g.len() == FANOUT).then_some(g)
        });
        let Some(group) = group else {
            return Ok(());
        };
        let sources: Vec<RunInfo> = group.iter().map(|&i| runs[i]).collect();
        let (len, first, firsts) = merge_runs(path, chunks, &sources, *next_no)?;
        fences.push((*next_no, firsts));
        let merged = RunInfo {
            no: *next_no,
            tag: sources.iter().map(|r| r.tag).max().unwrap_or(0),
            level: sources[0].level + 1,
            len,
            first,
        };
        *next_no += 1;
        for r in &sources {
            chunks
                .retain_in((r.no, 0u128)..=(r.no, u128::MAX), |_, _| false)
                .ctx(path)?;
            runs_table.remove(r.no).ctx(path)?;
        }
        runs_table
            .insert(merged.no, &merged.encode()[..])
            .ctx(path)?;
        runs.retain(|r| !sources.contains(r));
        runs.push(merged);
    }
}

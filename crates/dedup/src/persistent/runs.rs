//! The runs of the store: looking candidates up in a run (a merge over its chunks, or one chunk
//! per candidate), writing a run, and merging runs (k-way). A run's chunks are the slots of its
//! file (see [`super::files`]). Every chunk read is checked (see [`decode_chunk`]) and so is the
//! chain of a run's chunks: its first chunk starts with the run's first fingerprint, each chunk
//! names the first fingerprint of the next, the last says it is the last, and their lengths add
//! up to the run's. So a chunk lost, moved or left from another run is found, never read as a
//! key that is absent.

use super::fences::RunFences;
use super::files::{BLOCK_SLOTS, RunFiles, SLOT, SlotWriter, slot_chunk, slots_of};
use super::format::{FP_BYTES, RunInfo, WRITE_FPS, corrupt, decode_chunk, encode_chunk};
use super::helpers::{Sent, Share};
use crate::Result;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;
use std::sync::Arc;

/// Runs of one level merged into one run of the next level.
pub(super) const FANOUT: usize = 4;

/// A chunk that a run's chain names but that is not there.
pub(super) fn missing(path: &Path, run: &RunInfo, key: u128) -> crate::DedupError {
    corrupt(path, format!("run {}, chunk {key:#034x}: missing", run.no))
}

/// Looks the sorted, unique candidates up in one run, the cheaper way: one pass over its
/// chunks when the candidates are many for its chunks (or this process has no fences for it),
/// else one chunk read for each, found by the run's fences (see [`lookup_each`]). A candidate
/// found gets at least `class` in `status`. Every chunk read is checked.
pub(super) fn lookup_one_run(
    path: &Path,
    files: &RunFiles,
    run: &RunInfo,
    fences: Option<&Arc<RunFences>>,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    match fences {
        Some(fences) if (cands.len() as u64) * 2 < slots_of(run) => {
            lookup_each(path, files, run, fences, cands, status, class)
        }
        _ => lookup_dense(path, files, run, cands, status, class),
    }
}

/// Looks the sorted, unique candidates up in one run: one sequential pass over its chunks.
/// A candidate found gets at least `class` in `status`.
fn lookup_dense(
    path: &Path,
    files: &RunFiles,
    run: &RunInfo,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    let mut j = 0;
    if cands.is_empty() {
        return Ok(());
    }
    let mut reader = RunReader::new(*run);
    while reader.next_chunk(path, files)? {
        let fps = &reader.buf;
        // Skip the chunk if all its fingerprints are below the next candidate.
        if fps.last().is_some_and(|&l| l < cands[j].0) {
            continue;
        }
        for &v in fps {
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

/// Candidates a thread of [`lookup_each`] takes at least: below that, handing a share to a
/// helper (and waiting for its answer) costs about what the reads it takes over do (on the
/// project's 2-core VM a read of a cached slot took 2.9 us at 1e8 keys:
/// `docs/benchmarks/2026-11-27-frontier-read-threads.md`).
const READS_PER_THREAD: usize = 32;

/// The threads [`lookup_each`] may spread a run's reads over: `asked`
/// ([`crate::PersistentOptions::read_threads`]), or for 0 the cores, at most 4.
fn read_threads(asked: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    match asked {
        0 => *CORES
            .get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4))),
        n => n,
    }
}

/// Looks each candidate up in one run by reading the one chunk that may hold it (see
/// [`lookup_each_here`]). Many candidates are split over [`read_threads`] threads, this one
/// and the store's helpers (`helpers.rs`): their reads are independent positioned reads of one
/// file, so the lookup takes the time of one share (issue 31: a batch of 256 with half its keys
/// stored makes 128 reads, most of them in the largest run). The sequential pass
/// ([`lookup_dense`]) stays on one thread: split, it would read the run once a thread.
fn lookup_each(
    path: &Path,
    files: &RunFiles,
    run: &RunInfo,
    fences: &Arc<RunFences>,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    // positioned reads of a shared file handle are independent only where `pread` exists
    let threads = if cfg!(unix) {
        read_threads(files.read_threads).min(cands.len() / READS_PER_THREAD)
    } else {
        1
    };
    let here = |c: &[(u128, usize)], st: &mut [u8]| {
        let read = |i, buf: &mut [u8]| files.read_into(run, i, buf);
        lookup_each_here(path, &read, run, fences, c, st, class)
    };
    if threads < 2 {
        return here(cands, status);
    }
    let per = cands.len().div_ceil(threads);
    let (mine, rest) = cands.split_at(per);
    let (mine_st, rest_st) = status.split_at_mut(per);
    // the other shares to the helpers (a run whose file is not open yet is read here)
    let sent: Vec<Sent> = rest
        .chunks(per)
        .zip(rest_st.chunks(per))
        .enumerate()
        .map(|(n, (c, st))| {
            let Some(reader) = files.slot_reader(run) else {
                return Sent::Here;
            };
            files.helpers.send(n, look, |(mut cands, mut status)| {
                cands.clear();
                cands.extend_from_slice(c);
                status.clear();
                status.extend_from_slice(st);
                Share::new(reader, fences.clone(), cands, status, class)
            })
        })
        .collect();
    let mut acc = here(mine, mine_st);
    // the answers, and the first error in the candidates' order
    for ((c, st), sent) in rest.chunks(per).zip(rest_st.chunks_mut(per)).zip(sent) {
        let answer = match sent {
            Sent::To(n) => files.helpers.answer(n),
            Sent::Here => None,
        };
        let r = match answer {
            Some(share) => {
                st.copy_from_slice(&share.status);
                files.helpers.keep(share.cands, share.status);
                share.result
            }
            None => here(c, st),
        };
        acc = acc.and(r);
    }
    acc
}

/// A helper's lookup of its share (see [`lookup_each`]).
fn look(share: &mut Share) {
    let read = |i, buf: &mut [u8]| share.reader.read_into(i, buf);
    share.result = lookup_each_here(
        share.reader.store(),
        &read,
        &share.reader.run,
        &share.fences,
        &share.cands,
        &mut share.status,
        share.class,
    );
}

/// Looks each candidate up in one run by reading the one chunk that may hold it: the last
/// whose first fingerprint is not above it, named by the run's fences (see [`super::fences`]),
/// one positioned read of its slot (`read(i, buf)` reads slot `i`). The chunk must start with
/// that fence and name the next fence as its next, else the run changed under the fences:
/// damage.
fn lookup_each_here(
    path: &Path,
    read: &dyn Fn(u64, &mut [u8]) -> Result<()>,
    run: &RunInfo,
    fences: &RunFences,
    cands: &[(u128, usize)],
    status: &mut [u8],
    class: u8,
) -> Result<()> {
    let mut slot = [0u8; SLOT];
    for (j, &(fp, _)) in cands.iter().enumerate() {
        if status[j] >= class {
            continue;
        }
        let Some(i) = fences.chunk_of(fp) else {
            continue;
        };
        let fences = fences.all();
        read(i as u64, &mut slot)?;
        let blob = slot_chunk(path, run, i as u64, &slot)?;
        let chunk = decode_chunk(path, run.no, (run.no, fences[i]), blob)?;
        if chunk.next != fences.get(i + 1).copied() {
            return Err(corrupt(
                path,
                format!(
                    "run {}, chunk {:#034x}: its next chunk is not the one read at open",
                    run.no, fences[i]
                ),
            ));
        }
        if chunk.find(fp) {
            status[j] = class;
        }
    }
    Ok(())
}

/// Writes a run's fingerprints (pushed in increasing order) in chunks, into the run's file
/// (made at the first chunk): a full chunk is written once the next fingerprint is known,
/// since each chunk names the first of the next.
pub(super) struct RunWriter {
    no: u64,
    out: Option<SlotWriter>,
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
            out: None,
            firsts: Vec::new(),
            buf: Vec::with_capacity(WRITE_FPS),
            bytes: Vec::with_capacity(WRITE_FPS * FP_BYTES + 32),
            len: 0,
            first: 0,
        }
    }

    fn write(&mut self, files: &RunFiles, next: Option<u128>) -> Result<()> {
        encode_chunk(self.no, &self.buf, next, &mut self.bytes);
        self.firsts.push(self.buf[0]);
        let out = match &mut self.out {
            Some(out) => out,
            None => self.out.insert(files.create(self.no)?),
        };
        out.write(&self.bytes)?;
        self.buf.clear();
        Ok(())
    }

    /// Adds the next fingerprint (larger than the one before).
    pub(super) fn push(&mut self, files: &RunFiles, v: u128) -> Result<()> {
        debug_assert!(self.buf.last().is_none_or(|&l| l < v));
        if self.buf.len() == WRITE_FPS {
            self.write(files, Some(v))?;
        }
        if self.len == 0 {
            self.first = v;
        }
        self.buf.push(v);
        self.len += 1;
        Ok(())
    }

    /// Writes the last chunk and syncs the file; returns the run's length and first
    /// fingerprint, and its fences. An empty run makes no file.
    pub(super) fn finish(mut self, files: &RunFiles) -> Result<(u64, u128, Vec<u128>)> {
        if !self.buf.is_empty() {
            self.write(files, None)?;
        }
        if let Some(out) = self.out.take() {
            out.finish()?;
        }
        Ok((self.len, self.first, self.firsts))
    }
}

/// Reads a run in order from its file, [`BLOCK_SLOTS`] slots a read; checks each chunk, the
/// chain and the run's length.
pub(super) struct RunReader {
    run: RunInfo,
    /// The first fingerprint of each chunk read, when asked for ([`RunReader::fenced`]): the
    /// run's fences.
    firsts: Option<Vec<u128>>,
    next_key: Option<u128>,
    /// The next slot to read, and the slots read ahead: `block` holds `block_first..`.
    slot: u64,
    block: Vec<u8>,
    block_first: u64,
    /// The fingerprints of the chunk read last, and the position of the next in it.
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
            slot: 0,
            block: Vec::new(),
            block_first: 0,
            buf: Vec::with_capacity(WRITE_FPS),
            pos: 0,
            read: 0,
        }
    }

    /// Reads the next chunk into `buf`; false after the last (its checks done).
    fn next_chunk(&mut self, path: &Path, files: &RunFiles) -> Result<bool> {
        let no = self.run.no;
        let Some(key) = self.next_key else {
            if self.read != self.run.len {
                return Err(corrupt(
                    path,
                    format!(
                        "run {no}: {} fingerprints, {} recorded",
                        self.read, self.run.len
                    ),
                ));
            }
            return Ok(false);
        };
        let slots = slots_of(&self.run);
        if self.slot >= slots {
            return Err(missing(path, &self.run, key));
        }
        let held = (self.block.len() / SLOT) as u64;
        if self.slot < self.block_first || self.slot >= self.block_first + held {
            let n = (slots - self.slot).min(BLOCK_SLOTS as u64) as usize;
            self.block.resize(n * SLOT, 0);
            files.read_into(&self.run, self.slot, &mut self.block)?;
            self.block_first = self.slot;
        }
        let at = (self.slot - self.block_first) as usize * SLOT;
        let blob = slot_chunk(path, &self.run, self.slot, &self.block[at..at + SLOT])?;
        let chunk = decode_chunk(path, no, (no, key), blob)?;
        if let Some(firsts) = &mut self.firsts {
            firsts.push(key);
        }
        self.buf.clear();
        self.buf.extend((0..chunk.len()).map(|i| chunk.fp(i)));
        self.pos = 0;
        self.next_key = chunk.next;
        self.slot += 1;
        self.read += chunk.len() as u64;
        if self.read > self.run.len {
            return Err(corrupt(
                path,
                format!("run {no}: more than its {} fingerprints", self.run.len),
            ));
        }
        Ok(true)
    }

    pub(super) fn next(&mut self, path: &Path, files: &RunFiles) -> Result<Option<u128>> {
        if self.pos == self.buf.len() && !self.next_chunk(path, files)? {
            return Ok(None);
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
    files: &RunFiles,
    sources: &[RunInfo],
    no: u64,
) -> Result<(u64, u128, Vec<u128>)> {
    let mut srcs: Vec<RunReader> = sources.iter().map(|&r| RunReader::new(r)).collect();
    let mut heap = BinaryHeap::with_capacity(srcs.len());
    for (i, s) in srcs.iter_mut().enumerate() {
        if let Some(v) = s.next(path, files)? {
            heap.push(Reverse((v, i)));
        }
    }
    let mut out = RunWriter::new(no);
    let mut last = None;
    while let Some(Reverse((v, i))) = heap.pop() {
        if last != Some(v) {
            last = Some(v);
            out.push(files, v)?;
        }
        if let Some(next) = srcs[i].next(path, files)? {
            heap.push(Reverse((next, i)));
        }
    }
    out.finish(files)
}

/// Merges groups of [`FANOUT`] runs of one level, until no group is left; `compatible` says
/// which runs may be merged together. The fences of each merged run go to `fences`, and the
/// numbers of the runs merged away to `merged_away` (their files are removed once the list of
/// runs without them is committed).
pub(super) fn merge_levels(
    path: &Path,
    files: &RunFiles,
    runs: &mut Vec<RunInfo>,
    next_no: &mut u64,
    compatible: impl Fn(&RunInfo, &RunInfo) -> bool,
    fences: &mut Vec<(u64, Vec<u128>)>,
    merged_away: &mut Vec<u64>,
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
        let no = *next_no;
        *next_no += 1;
        let (len, first, firsts) = merge_runs(path, files, &sources, no)?;
        fences.push((no, firsts));
        let merged = RunInfo {
            no,
            tag: sources.iter().map(|r| r.tag).max().unwrap_or(0),
            level: sources[0].level + 1,
            len,
            first,
        };
        merged_away.extend(sources.iter().map(|r| r.no));
        runs.retain(|r| !sources.contains(r));
        runs.push(merged);
    }
}

#[cfg(test)]
mod tests {
    use super::super::helpers::Helpers;
    use super::super::tests::{assert_corrupt, id, opts, patch, run_file};
    use super::*;
    use crate::{Abandoned, Fingerprint, MemorySet, PersistentSet, SeenSet};

    /// A helper that stops (a panic) answers nothing; the next share starts a new one, which
    /// answers as the calling thread would.
    #[test]
    fn a_helper_that_stops_is_started_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        let mut set = PersistentSet::open(&path, &id(), opts(Abandoned::Seen)).unwrap();
        let stored: Vec<Fingerprint> = (1..=10_000u128)
            .map(|i| Fingerprint(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)))
            .collect();
        set.insert_batch(&stored, &mut Vec::new()).unwrap();
        set.sync().unwrap();
        let run = set.runs[0];
        let mut cands: Vec<(u128, usize)> = stored.iter().take(40).map(|f| (f.0, 0)).collect();
        cands.push((1, 0)); // below the run's first fingerprint: not there
        cands.sort_unstable();
        let share = |_| {
            Share::new(
                set.files.slot_reader(&run).unwrap(),
                set.fences.of(run.no).unwrap().clone(),
                cands.clone(),
                vec![0; cands.len()],
                2,
            )
        };
        fn stops(_: &mut Share) {
            panic!("a helper that stops (this test's)");
        }
        let helpers = Helpers::default();
        assert!(matches!(helpers.send(0, stops, share), Sent::To(0)));
        assert!(helpers.answer(0).is_none());
        assert!(matches!(helpers.send(0, look, share), Sent::To(0)));
        let back = helpers.answer(0).expect("a new helper answers");
        assert!(back.result.is_ok());
        let want: Vec<u8> = cands
            .iter()
            .map(|&(fp, _)| if fp == 1 { 0 } else { 2 })
            .collect();
        assert_eq!(back.status, want);
        // an answer never taken (a batch that ended early) is not taken as the next share's
        assert!(matches!(helpers.send(0, look, share), Sent::To(0)));
        let one = |_| {
            Share::new(
                set.files.slot_reader(&run).unwrap(),
                set.fences.of(run.no).unwrap().clone(),
                vec![cands[1]],
                vec![0],
                3,
            )
        };
        assert!(matches!(helpers.send(0, look, one), Sent::To(0)));
        assert_eq!(
            helpers.answer(0).expect("the second share's answer").status,
            [3]
        );
        // the calling thread's lookup agrees
        let mut here = vec![0; cands.len()];
        let fences = set.fences.of(run.no).unwrap();
        lookup_each_here(
            &path,
            &|i, buf: &mut [u8]| set.files.read_into(&run, i, buf),
            &run,
            fences,
            &cands,
            &mut here,
            2,
        )
        .unwrap();
        assert_eq!(here, want);
    }

    /// Batches whose candidates a run's reads spread over threads ([`lookup_each`]) answer as
    /// a set does, and a damaged chunk that only a later share reads is still an error.
    #[test]
    fn reads_spread_over_threads_answer_as_a_set_and_find_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seen.redb");
        // two threads asked for: the split is taken on a machine of one core too
        let split = crate::PersistentOptions {
            read_threads: 2,
            ..opts(Abandoned::Seen)
        };
        let mut set = PersistentSet::open(&path, &id(), split).unwrap();
        let mut mem = MemorySet::new();
        let stored: Vec<Fingerprint> = (1..=100_000u128)
            .map(|i| Fingerprint(i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)))
            .collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        set.insert_batch(&stored, &mut a).unwrap();
        mem.insert_batch(&stored, &mut b).unwrap();
        set.sync().unwrap();
        let run = set.runs[0];
        assert_eq!(set.runs.len(), 1);
        // every key a "maybe", so every candidate is read; 150 candidates of a run of 404
        // slots: one read each, split over the two threads
        set.filter = super::super::filter::StoreFilter::all_maybe();
        let batch = 150;
        assert!(batch >= 2 * READS_PER_THREAD && (batch as u64) * 2 < slots_of(&run));
        for (k, part) in stored.chunks(2 * batch).take(20).enumerate() {
            // half stored, half absent (next to stored ones)
            let probes: Vec<Fingerprint> = part
                .iter()
                .take(batch)
                .enumerate()
                .map(|(i, f)| if i % 2 == 0 { *f } else { Fingerprint(f.0 ^ 1) })
                .collect();
            set.insert_batch(&probes, &mut a).unwrap();
            mem.insert_batch(&probes, &mut b).unwrap();
            assert_eq!(a, b, "batch {k}");
        }
        // damage, under the open store, in the chunk of the largest fingerprint, which the
        // last share reads
        let slots = slots_of(&run) as usize;
        patch(&run_file(&path, run.no), slots - 1, |slot| slot[100] ^= 1);
        let mut sorted = stored.clone();
        sorted.sort_unstable();
        let probes: Vec<Fingerprint> = sorted
            .iter()
            .step_by(400)
            .take(batch - 1)
            .copied()
            .chain([*sorted.last().unwrap()])
            .collect();
        assert_corrupt(
            set.insert_batch(&probes, &mut a),
            &format!("run {}", run.no),
            "last share",
        );
    }
}

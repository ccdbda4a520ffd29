//! Answering a batch (the unsynced keys, the filter, then the runs for a "maybe"), recording the
//! unsynced keys as a new run (`sync`), and loading a sorted stream as one run (`bulk_load`).

use super::filter::StoreFilter;
use super::format::{
    CHUNKS, META, RUNS, RunInfo, StoreCtx, guarded, meta_put, read_chunks, runs_digest,
};
use super::runs::{RunWriter, lookup_one_run, merge_levels};
use super::{ABSENT, PersistentSet, SEEN};
use crate::{DedupError, Fingerprint, Result};

/// What a committed write of a run left: the runs, the next run number, the new run's length
/// and the fences of the runs it wrote (merged ones included).
pub(super) struct Written {
    runs: Vec<RunInfo>,
    next_no: u64,
    len: u64,
    fences: Vec<(u64, Vec<u128>)>,
}

impl PersistentSet {
    /// Answers a batch without writing: a key unsynced here is seen; a key the filter has
    /// certainly never stored is new; a "maybe" is looked up in the runs. The new keys become
    /// unsynced. `new` has the batch's length, all false.
    pub(super) fn answer(&mut self, fps: &[Fingerprint], new: &mut [bool]) -> Result<()> {
        self.sorted.clear();
        for (i, fp) in fps.iter().enumerate() {
            let v = fp.0;
            if self.unsynced.contains(&v) {
                continue;
            }
            if self.filter.maybe(v) {
                self.sorted.push((v, i));
            } else {
                // Certainly not stored: new at its first occurrence in the batch.
                new[i] = self.unsynced.insert(v);
                self.unsynced_added += u64::from(new[i]);
            }
        }
        if self.sorted.is_empty() {
            return Ok(());
        }
        self.sorted.sort_unstable();
        // Sorted by (fingerprint, position): the first of equal ones is the first occurrence.
        self.sorted.dedup_by_key(|e| e.0);
        self.status.clear();
        self.status.resize(self.sorted.len(), ABSENT);
        // The largest runs first: they hold most keys, and a key found seen is not looked up
        // again in the other runs.
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.runs[i].len));
        let path = self.path.clone();
        // The candidates not yet seen: (fingerprint, position in `sorted`), and their status.
        let mut pending: Vec<(u128, usize)> = Vec::with_capacity(self.sorted.len());
        let mut st: Vec<u8> = Vec::with_capacity(self.sorted.len());
        guarded(&path, "reading", || {
            // The kept read transaction, or a new one; put back below once the lookups are done
            // (after an error it is dropped, and the next call opens another).
            let chunks = match self.reader.take() {
                Some(chunks) => chunks,
                None => read_chunks(&path, &self.db().begin_read().ctx(&path)?)?,
            };
            for &r in &order {
                pending.clear();
                pending.extend(
                    self.sorted
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| self.status[j] != SEEN)
                        .map(|(j, &(v, _))| (v, j)),
                );
                if pending.is_empty() {
                    break;
                }
                st.clear();
                st.extend(pending.iter().map(|&(_, j)| self.status[j]));
                let run = &self.runs[r];
                let class = self.class(run.tag);
                let fences = self.fences.of(run.no);
                lookup_one_run(&path, &chunks, run, fences, &pending, &mut st, class)?;
                for (&(_, j), &s) in pending.iter().zip(&st) {
                    self.status[j] = s;
                }
            }
            self.reader = Some(chunks);
            Ok(())
        })?;
        for (&(v, idx), &st) in self.sorted.iter().zip(&self.status) {
            // A key only in discarded runs was never in an output that was kept.
            if st != SEEN {
                new[idx] = true;
                self.unsynced.insert(v);
                self.unsynced_added += u64::from(st == ABSENT);
            }
        }
        Ok(())
    }

    /// Writes the unsynced keys as a new run (merging runs when a level is full) in one
    /// durable write transaction; nothing to do when none is unsynced.
    pub(super) fn sync_now(&mut self) -> Result<()> {
        if self.unsynced.is_empty() {
            return Ok(());
        }
        let mut fresh: Vec<u128> = self.unsynced.iter().copied().collect();
        fresh.sort_unstable();
        let added = self.unsynced_added;
        let path = self.path.clone();
        // The write frees pages that a read transaction still open would keep from reuse.
        self.reader = None;
        let written = guarded(&path, "recording keys", || {
            self.write_run(false, fresh.iter().map(|&v| Ok(v)), added)
        })?;
        self.len += added;
        self.adopt(written);
        self.unsynced.clear();
        self.unsynced_added = 0;
        for &v in &fresh {
            self.filter.insert(v);
        }
        self.refresh_filter()
    }

    /// Builds the filter again when the store has outgrown it. The filter in place holds every
    /// key already, so an error here leaves a correct (only fuller) filter.
    fn refresh_filter(&mut self) -> Result<()> {
        if self.filter.outgrown(self.len) {
            (self.filter, self.fences) =
                StoreFilter::build(&self.path, self.db(), &self.runs, self.len)?;
        }
        Ok(())
    }

    /// Takes the runs a committed write left, and their fences.
    fn adopt(&mut self, written: Written) {
        self.runs = written.runs;
        self.next_no = written.next_no;
        for (no, firsts) in written.fences {
            self.fences.insert(no, firsts);
        }
        self.fences.retain(&self.runs);
    }

    /// One write transaction: the fingerprints of `fps` (strictly increasing, else an error and
    /// nothing written) as a new run, then merges, counters and the runs' digest; returns the
    /// new list of runs, the next run number, the run's length and the new runs' fences. The
    /// run's level is 0 and the count grows by `added`, or for a `bulk` load the level is
    /// `log4` of its length (the level a run built by merges of single keys would reach, so
    /// that small runs merge among themselves long before they merge with it) and the count
    /// grows by its length. The
    /// filter is not touched.
    fn write_run(
        &self,
        bulk: bool,
        fps: impl Iterator<Item = Result<u128>>,
        added: u64,
    ) -> Result<Written> {
        let path = &self.path;
        let mut txn = self.db().begin_write().ctx(path)?;
        txn.set_quick_repair(true);
        let mut runs = self.runs.clone();
        let mut next_no = self.next_no;
        let mut fences = Vec::new();
        let run_len;
        {
            let mut chunks = txn.open_table(CHUNKS).ctx(path)?;
            let mut runs_table = txn.open_table(RUNS).ctx(path)?;
            let mut writer = RunWriter::new(next_no);
            let mut last: Option<u128> = None;
            for (i, v) in fps.enumerate() {
                let v = v?;
                if last.is_some_and(|l| l >= v) {
                    return Err(DedupError::InvalidConfig(format!(
                        "bulk load: fingerprint {i} ({v:#034x}) is not above the one before: \
                         the stream must be sorted and free of repeats"
                    )));
                }
                last = Some(v);
                writer.push(path, &mut chunks, v)?;
            }
            let (len, first, firsts) = writer.finish(path, &mut chunks)?;
            let (level, added) = if bulk {
                (len.max(1).ilog2() / 2, len)
            } else {
                (0, added)
            };
            run_len = len;
            if len > 0 {
                let info = RunInfo {
                    no: next_no,
                    tag: self.run,
                    level,
                    len,
                    first,
                };
                fences.push((info.no, firsts));
                next_no += 1;
                runs_table.insert(info.no, &info.encode()[..]).ctx(path)?;
                runs.push(info);
                // Runs that may be merged together: of the same process run, or both of runs
                // whose keys count as seen for good (the merged run takes the larger tag, which
                // must count the same).
                let discarded = &self.discarded;
                let compatible = |a: &RunInfo, b: &RunInfo| {
                    a.tag == b.tag || !(discarded.contains(&a.tag) || discarded.contains(&b.tag))
                };
                merge_levels(
                    path,
                    &mut chunks,
                    &mut runs_table,
                    &mut runs,
                    &mut next_no,
                    compatible,
                    &mut fences,
                )?;
            }
            let mut meta = txn.open_table(META).ctx(path)?;
            meta_put(path, &mut meta, "count", &(self.len + added).to_le_bytes())?;
            meta_put(path, &mut meta, "next_run_no", &next_no.to_le_bytes())?;
            meta_put(path, &mut meta, "runs_digest", &runs_digest(&runs))?;
        }
        txn.commit().ctx(path)?;
        Ok(Written {
            runs,
            next_no,
            len: run_len,
            fences,
        })
    }

    /// Loads a sorted stream of fingerprints (strictly increasing: sorted, no repeats) into an
    /// empty store as one run, in one durable write transaction, without the per-batch path:
    /// for migrating a crawler's existing seen-set, or filling a store for a benchmark.
    /// Returns the number of keys loaded. The keys count as this run's (see
    /// [`Abandoned`](crate::Abandoned)). A store that holds keys (or unsynced ones) is refused,
    /// and so is a stream out of order (nothing is written then), with
    /// [`DedupError::InvalidConfig`]. The iterator's lower size hint sizes the filter.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, PersistentOptions, PersistentSet, SeenSet, StoreIdentity};
    /// let dir = tempfile::tempdir().unwrap();
    /// let id = StoreIdentity::new("scheme uri 0");
    /// let mut set = PersistentSet::open(dir.path().join("s"), &id, PersistentOptions::default()).unwrap();
    /// assert_eq!(set.bulk_load((1..=5000u128).map(Fingerprint)).unwrap(), 5000);
    /// let mut new = Vec::new();
    /// set.insert_batch(&[Fingerprint(4321), Fingerprint(9999)], &mut new).unwrap();
    /// assert_eq!(new, [false, true]);
    /// assert!(set.bulk_load([Fingerprint(1)]).is_err()); // not empty any more
    /// ```
    pub fn bulk_load(&mut self, fps: impl IntoIterator<Item = Fingerprint>) -> Result<u64> {
        if self.len > 0 || !self.runs.is_empty() || !self.unsynced.is_empty() {
            return Err(DedupError::InvalidConfig(
                "bulk load: the store is not empty (a bulk load makes a store's first run)".into(),
            ));
        }
        let fps = fps.into_iter();
        let mut filter = StoreFilter::with_room(fps.size_hint().0 as u64)?;
        let stream = fps.map(|fp| {
            filter.insert(fp.0);
            Ok(fp.0)
        });
        let path = self.path.clone();
        self.reader = None;
        let written = guarded(&path, "loading keys", || self.write_run(true, stream, 0))?;
        self.len = written.len;
        self.adopt(written);
        self.filter = filter;
        self.refresh_filter()?;
        Ok(self.len)
    }
}

//! Answering a batch (the unsynced keys, the filter, then the runs for a "maybe"), recording the
//! unsynced keys as a new run (`sync`), and loading a sorted stream as one run (`bulk_load`).

use super::filter::StoreFilter;
use super::format::{META, RUNS, RunInfo, StoreCtx, begin_write, guarded, meta_put, runs_digest};
use super::runs::{RunWriter, lookup_one_run, merge_levels};
use super::{ABSENT, PersistentSet, SEEN};
use crate::{DedupError, Fingerprint, Result};

/// What a committed write of a run left: the runs, the next run number, the new run's length,
/// the fences of the runs it wrote (merged ones included) and the runs merged away (whose
/// files are to be removed).
pub(super) struct Written {
    runs: Vec<RunInfo>,
    next_no: u64,
    len: u64,
    fences: Vec<(u64, Vec<u128>)>,
    merged_away: Vec<u64>,
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
        // The largest runs first (`by_size`): they hold most keys, and a key found seen is not
        // looked up again in the other runs. The candidates not yet seen: (fingerprint,
        // position in `sorted`), and their status (buffers kept from call to call).
        let mut pending = std::mem::take(&mut self.pending);
        let mut st = std::mem::take(&mut self.pending_status);
        let looked = self.look_up_pending(&mut pending, &mut st);
        (self.pending, self.pending_status) = (pending, st);
        looked?;
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

    /// Looks the candidates of `sorted` up in the runs, the largest first, until each is seen
    /// or every run was read; their answers go to `status`.
    fn look_up_pending(
        &mut self,
        pending: &mut Vec<(u128, usize)>,
        st: &mut Vec<u8>,
    ) -> Result<()> {
        for &r in &self.by_size {
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
            lookup_one_run(&self.path, &self.files, run, fences, pending, st, class)?;
            for (&(_, j), &s) in pending.iter().zip(st.iter()) {
                self.status[j] = s;
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
        let written = guarded(&path, "recording keys", || {
            self.write_run(false, fresh.iter().map(|&v| Ok(v)), added)
        })?;
        self.len += added;
        self.adopt(written)?;
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
                StoreFilter::build(&self.path, &self.files, &self.runs, self.len)?;
        }
        Ok(())
    }

    /// Takes the runs a committed write left, their fences and their files, and removes the
    /// files of the runs merged away.
    fn adopt(&mut self, written: Written) -> Result<()> {
        self.runs = written.runs;
        self.next_no = written.next_no;
        for (no, firsts) in written.fences {
            self.fences.insert(no, firsts);
        }
        self.fences.retain(&self.runs);
        self.files.remove(written.merged_away);
        self.by_size = super::runs_by_size(&self.runs);
        self.files.adopt(&self.runs)
    }

    /// Writes the fingerprints of `fps` (strictly increasing, else an error and nothing
    /// recorded) as a new run, then merges, each in a file of its own, synced; then one write
    /// transaction lists the new runs (without the runs merged away) with the counters and the
    /// runs' digest. Returns the new list of runs, the next run number, the run's length, the
    /// new runs' fences and the runs merged away. The run's level is 0 and the count grows by
    /// `added`, or for a `bulk` load the level is `log4` of its length (the level a run built
    /// by merges of single keys would reach, so that small runs merge among themselves long
    /// before they merge with it) and the count grows by its length. The filter is not touched.
    /// On an error, the files made are removed (a file left by a crash is removed at the next
    /// open: no list names it).
    fn write_run(
        &self,
        bulk: bool,
        fps: impl Iterator<Item = Result<u128>>,
        added: u64,
    ) -> Result<Written> {
        let mut next_no = self.next_no;
        let written = self.write_run_files(bulk, fps, added, &mut next_no);
        if written.is_err() {
            let made: Vec<u64> = (self.next_no..next_no).collect();
            self.files.remove_unlisted(made);
        }
        written
    }

    fn write_run_files(
        &self,
        bulk: bool,
        fps: impl Iterator<Item = Result<u128>>,
        added: u64,
        next_no: &mut u64,
    ) -> Result<Written> {
        let path = &self.path;
        let files = &self.files;
        let mut runs = self.runs.clone();
        let mut fences = Vec::new();
        let mut merged_away = Vec::new();
        let mut writer = RunWriter::new(*next_no);
        *next_no += 1;
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
            writer.push(files, v)?;
        }
        let (len, first, firsts) = writer.finish(files)?;
        let (level, added) = if bulk {
            (len.max(1).ilog2() / 2, len)
        } else {
            (0, added)
        };
        if len > 0 {
            let info = RunInfo {
                no: *next_no - 1,
                tag: self.run,
                level,
                len,
                first,
            };
            fences.push((info.no, firsts));
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
                files,
                &mut runs,
                next_no,
                compatible,
                &mut fences,
                &mut merged_away,
            )?;
            files.sync_dir()?;
        } else {
            // nothing written: the run's number is not used
            *next_no -= 1;
        }
        let txn = begin_write(self.db(), path)?;
        {
            let mut runs_table = txn.open_table(RUNS).ctx(path)?;
            for &no in &merged_away {
                runs_table.remove(no).ctx(path)?;
            }
            for r in runs.iter().filter(|r| r.no >= self.next_no) {
                runs_table.insert(r.no, &r.encode()[..]).ctx(path)?;
            }
            let mut meta = txn.open_table(META).ctx(path)?;
            meta_put(path, &mut meta, "count", &(self.len + added).to_le_bytes())?;
            meta_put(path, &mut meta, "next_run_no", &next_no.to_le_bytes())?;
            meta_put(path, &mut meta, "runs_digest", &runs_digest(&runs))?;
        }
        txn.commit().ctx(path)?;
        Ok(Written {
            runs,
            next_no: *next_no,
            len,
            fences,
            merged_away,
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
        let written = guarded(&path, "loading keys", || self.write_run(true, stream, 0))?;
        self.len = written.len;
        self.adopt(written)?;
        self.filter = filter;
        self.refresh_filter()?;
        Ok(self.len)
    }
}

//! The spill set behind the one seen-set trait: batch inserts (a merge pass each) and the
//! late answers of a stream (pushed items answered when the budget fills).

use super::{Pending, Run, SpillSet};
use crate::{DedupError, Fingerprint, Result, SeenSet};

/// Tokens are `T::default()` when pushed through the trait ([`SeenSet::submit`]); the answers
/// come back in order.
impl<T: Send + Default> SeenSet for SpillSet<T> {
    fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
        self.contains(fp)
    }

    /// Each item holds its share of `held` (the first one the remainder), so the part of a
    /// batch still waiting after a merge in its middle is counted again.
    fn submit(
        &mut self,
        fps: &[Fingerprint],
        held: usize,
        answers: &mut std::collections::VecDeque<bool>,
    ) -> Result<()> {
        let n = fps.len().max(1);
        let (share, rest) = (held / n, held % n);
        for (i, &f) in fps.iter().enumerate() {
            let bytes = if i == 0 { share + rest } else { share };
            if let Some(ready) = self.push_holding(f, T::default(), bytes)? {
                answers.extend(ready.into_iter().map(|(_, new)| new));
            }
        }
        Ok(())
    }

    fn answer_rest(&mut self, answers: &mut std::collections::VecDeque<bool>) -> Result<()> {
        answers.extend(self.flush()?.into_iter().map(|(_, new)| new));
        Ok(())
    }

    /// One merge pass per [`batch_capacity`](SpillSet::batch_capacity) fingerprints of the
    /// batch; a batch much smaller than that still costs a full pass, so prefer
    /// [`push`](SpillSet::push) / [`flush`](SpillSet::flush) for streams. Fails with
    /// [`DedupError::PendingItems`] if pushed items are waiting.
    fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
        if !self.core.pending.is_empty() {
            return Err(DedupError::PendingItems(self.core.pending.len()));
        }
        new.clear();
        new.resize(fps.len(), false);
        let cap = self.core.capacity;
        for (c, chunk) in fps.chunks(cap).enumerate() {
            let base = c * cap;
            self.core.pending.reserve_exact(chunk.len());
            self.core
                .pending
                .extend(chunk.iter().enumerate().map(|(i, fp)| Pending {
                    hi: (fp.0 >> 64) as u64,
                    lo: fp.0 as u64,
                    idx: i as u32,
                }));
            self.core.resolve(|idx| new[base + idx] = true)?;
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.core.len
    }

    /// Pending items and answers held now, plus, once runs are on disk, the I/O buffers a merge
    /// of them uses (none before the first spill: a figure of what the set holds, not of its
    /// budget).
    fn memory_bytes(&self) -> usize {
        let runs = self.core.runs.len();
        let buffers = if runs == 0 {
            0
        } else {
            self.core.io_buf * (runs.min(self.core.max_runs) + 2)
        };
        std::mem::size_of::<Self>()
            + self.core.pending.capacity() * std::mem::size_of::<Pending>()
            + self.answers.capacity() * std::mem::size_of::<(T, bool)>()
            + self.core.runs.capacity() * std::mem::size_of::<Run>()
            + buffers
    }
}

//! Batches that wait for the seen-set's answers, in input order: one piece of bookkeeping for
//! `run`'s sink (a batch is a chunk's links) and `dedup` (a batch is a block of lines).
//!
//! A seen-set answers in the order it was asked, at once (memory, approx) or later and in bulk
//! (a spill set at its merges, a persistent set at its commits), so the answers form one queue
//! and each belongs to the first item still waiting. The caller takes the front batch, gives
//! its items the answers there are, and puts it back where they run out.

use std::collections::VecDeque;

/// Batches waiting for answers, the answers not yet given, and how far the front batch got.
pub(crate) struct Ordered<B> {
    waiting: VecDeque<B>,
    /// Items of the front batch already answered.
    next: usize,
    answers: VecDeque<bool>,
}

impl<B> Default for Ordered<B> {
    fn default() -> Self {
        Ordered {
            waiting: VecDeque::new(),
            next: 0,
            answers: VecDeque::new(),
        }
    }
}

impl<B> Ordered<B> {
    /// Where the seen-set appends its answers (`Dedup::submit`, `Dedup::finish`).
    pub(crate) fn answers(&mut self) -> &mut VecDeque<bool> {
        &mut self.answers
    }

    /// A batch whose items were just submitted, after those already waiting.
    pub(crate) fn push(&mut self, batch: B) {
        self.waiting.push_back(batch);
    }

    /// The front batch, taken out, and the index of its first item without an answer; the
    /// caller then calls [`answer`](Self::answer) for its items from there, and
    /// [`put_back`](Self::put_back) when the answers run out before the batch's end.
    pub(crate) fn take(&mut self) -> Option<(B, usize)> {
        let b = self.waiting.pop_front()?;
        Some((b, std::mem::take(&mut self.next)))
    }

    /// The next answer, if the seen-set has given it.
    pub(crate) fn answer(&mut self) -> Option<bool> {
        self.answers.pop_front()
    }

    /// The front batch back, answered up to (not including) item `next`.
    pub(crate) fn put_back(&mut self, batch: B, next: usize) {
        self.waiting.push_front(batch);
        self.next = next;
    }
}

#[cfg(test)]
mod tests {
    use super::Ordered;

    /// Answers that come late and in bulk reach their items in order, across batches.
    #[test]
    fn late_answers_reach_their_items_in_order() {
        let mut o: Ordered<Vec<u32>> = Ordered::default();
        o.push(vec![1, 2, 3]);
        o.push(vec![4]);
        let mut got = Vec::new();
        let mut drain = |o: &mut Ordered<Vec<u32>>| {
            while let Some((b, mut i)) = o.take() {
                while i < b.len() {
                    let Some(new) = o.answer() else { break };
                    got.push((b[i], new));
                    i += 1;
                }
                if i < b.len() {
                    o.put_back(b, i);
                    break;
                }
            }
        };
        o.answers().extend([true, false]);
        drain(&mut o);
        o.answers().extend([true, true]);
        drain(&mut o);
        assert_eq!(got, [(1, true), (2, false), (3, true), (4, true)]);
        assert!(o.take().is_none());
    }
}

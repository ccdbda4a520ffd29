//! Threads that take a share of a batch's chunk reads (issue 31: a batch of 256 keys with half
//! of them stored makes about 128 reads of 4 KiB, most in the largest run).
//!
//! A thread started for each batch cost 60-150 us on the project's 2-core VM, as much as 20 to
//! 50 reads, and a thread that blocks between batches as much again to wake. So each helper
//! is started once, at the first batch that splits its reads, and kept: after a share it waits
//! for the next one spinning for [`SPIN`], then blocks; the calling thread waits for the
//! helpers' shares the same way. Batches that follow each other closely (a frontier's) find
//! the helpers awake; a store idle for longer costs one wake-up. A helper's share goes and
//! comes back by value (the candidates, their answers, the run's file and fences, shared),
//! and the buffers are kept for the next batch.
//!
//! A helper that stopped (a panic) is replaced by the calling thread: it reads that share
//! itself, and a new helper is started at the next batch.

use super::fences::RunFences;
use super::files::SlotReader;
use crate::Result;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a helper waits for a share, and the calling thread for the helpers' answers,
/// spinning before it blocks.
const SPIN: Duration = Duration::from_micros(200);

/// One share of a batch's reads: what to look up, and (back from the helper) the answers.
pub(super) struct Share {
    /// The run's slots.
    pub(super) reader: SlotReader,
    /// The run's fences.
    pub(super) fences: Arc<RunFences>,
    /// The candidates, sorted, and their places in the batch.
    pub(super) cands: Vec<(u128, usize)>,
    /// Each candidate's status, raised to `class` where found.
    pub(super) status: Vec<u8>,
    /// The status a candidate found gets.
    pub(super) class: u8,
    /// The lookup's outcome (set by the helper).
    pub(super) result: Result<()>,
    /// Which share of its helper this is (set by [`Helpers::send`]): an answer to an earlier
    /// share, never taken because its batch ended early, is told from this one's.
    seq: u64,
}

impl Share {
    /// A share of run `reader.run`'s lookups: `cands` with their `status`, to raise to `class`.
    pub(super) fn new(
        reader: SlotReader,
        fences: Arc<RunFences>,
        cands: Vec<(u128, usize)>,
        status: Vec<u8>,
        class: u8,
    ) -> Share {
        Share {
            reader,
            fences,
            cands,
            status,
            class,
            result: Ok(()),
            seq: 0,
        }
    }
}

/// A running helper: where to send a share, where its answer comes back.
struct Helper {
    shares: Option<SyncSender<Share>>,
    done: Option<Receiver<Share>>,
    thread: Option<JoinHandle<()>>,
    /// The number of the last share sent to it.
    seq: u64,
}

impl Helper {
    /// Starts a helper that answers each share with `look` (`None` if no thread can start).
    fn start(n: usize, look: fn(&mut Share)) -> Option<Helper> {
        let (shares, rx) = sync_channel::<Share>(1);
        let (tx, done) = sync_channel::<Share>(1);
        let thread = std::thread::Builder::new()
            .name(format!("linksieve-read-{n}"))
            .spawn(move || {
                while let Some(mut share) = wait(&rx) {
                    look(&mut share);
                    if tx.send(share).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Helper {
            shares: Some(shares),
            done: Some(done),
            thread: Some(thread),
            seq: 0,
        })
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // the helper sees its channels closed and returns (after the share it may be reading)
        self.shares = None;
        self.done = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The next message of `rx`, spinning for [`SPIN`] before blocking; `None` once the sender is
/// gone.
fn wait<T>(rx: &Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if start.elapsed() < SPIN => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

/// The buffers of a share (candidates, statuses), kept for the next batch.
type Buffers = (Vec<(u128, usize)>, Vec<u8>);

/// The helpers of one store, and the buffers of the shares they answered.
#[derive(Default)]
pub(super) struct Helpers(Mutex<Pool>);

impl std::fmt::Debug for Helpers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let running = pool.helpers.iter().flatten().count();
        write!(f, "Helpers({running} running)")
    }
}

#[derive(Default)]
struct Pool {
    helpers: Vec<Option<Helper>>,
    spares: Vec<Buffers>,
}

/// What [`Helpers::send`] did with a share.
pub(super) enum Sent {
    /// Helper `n` has it.
    To(usize),
    /// No helper could take it: the caller reads it.
    Here,
}

impl Helpers {
    /// Gives helper `n` the share `fill` makes, in buffers kept from an earlier share where
    /// there are some. A helper that is not running is started, to answer its shares with
    /// `look`.
    pub(super) fn send(
        &self,
        n: usize,
        look: fn(&mut Share),
        fill: impl FnOnce(Buffers) -> Share,
    ) -> Sent {
        let mut pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if pool.helpers.len() <= n {
            pool.helpers.resize_with(n + 1, || None);
        }
        if pool.helpers[n].is_none() {
            pool.helpers[n] = Helper::start(n, look);
        }
        let Pool { helpers, spares } = &mut *pool;
        let Some(helper) = helpers[n].as_mut() else {
            return Sent::Here; // no thread could start: the kept buffers stay kept
        };
        helper.seq += 1;
        let mut share = fill(spares.pop().unwrap_or_default());
        share.seq = helper.seq;
        let sent = helper
            .shares
            .as_ref()
            .is_some_and(|s| s.send(share).is_ok());
        if sent {
            Sent::To(n)
        } else {
            pool.helpers[n] = None; // it stopped: started again at the next batch
            Sent::Here
        }
    }

    /// Helper `n`'s answer to the share sent to it; `None` if it stopped before answering (the
    /// caller then reads that share itself).
    pub(super) fn answer(&self, n: usize) -> Option<Share> {
        let pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let got = pool.helpers.get(n)?.as_ref().and_then(|h| {
            // answers to earlier shares, never taken (their batch ended early), are dropped
            std::iter::from_fn(|| wait(h.done.as_ref()?)).find(|share| share.seq == h.seq)
        });
        drop(pool);
        if got.is_none() {
            let mut pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(h) = pool.helpers.get_mut(n) {
                *h = None;
            }
        }
        got
    }

    /// Keeps a share's buffers for the next batch (not its run's file and fences, which a merge
    /// may retire).
    pub(super) fn keep(&self, cands: Vec<(u128, usize)>, status: Vec<u8>) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .spares
            .push((cands, status));
    }
}

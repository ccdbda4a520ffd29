//! The lease keeper: a thread that renews a run's lease every quarter of it, on a connection of
//! its own, while the process lives. A run that makes no call for longer than its lease (a
//! consumer paused, a crawl waiting on slow pages) keeps its claims; a process that dies, is
//! stopped (`SIGSTOP`, a frozen machine) or is cut off from the server stops renewing, and its
//! lease expires as before. The set's own calls still renew when the keeper has not lately
//! (its server unreachable), and learn from it that the lease was lost (a named run taken
//! over).

use super::conn::{Conn, int};
use super::url::SetUrl;
use redis::{Cmd, RedisResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The thread and what it tells the set. Dropped (a set dropped unfinished: a run that
/// died), it stops the thread without waiting for it, and the lease expires.
pub(super) struct Keeper {
    /// Dropped to stop the thread (it wakes at once).
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    told: Arc<Told>,
}

/// What the thread found.
struct Told {
    start: Instant,
    /// Milliseconds after `start` of the last renewal that held (`u64::MAX`: none yet).
    renewed_ms: AtomicU64,
    /// The lease is no longer this process's (taken over, or expired): the thread has ended.
    lost: AtomicBool,
}

impl Keeper {
    /// Connects, then renews every `lease / 4` with `renew` (its first answer 1 while the lease
    /// is this process's, 0 once lost), on a connection checked first as the set's are
    /// ([`Conn::revive_if_idle`]). A failed renewal is tried again at the next tick on a new
    /// connection (a renewal can be repeated; a claim cannot, and the keeper sends none).
    pub(super) fn start(url: &SetUrl, renew: Vec<Cmd>) -> RedisResult<Keeper> {
        let mut conn = Some(Conn::connect(url)?);
        let (stop, stopped) = mpsc::channel::<()>();
        let told = Arc::new(Told {
            start: Instant::now(),
            renewed_ms: AtomicU64::new(u64::MAX),
            lost: AtomicBool::new(false),
        });
        let every = url.lease / 4;
        let url = url.clone();
        let t = Arc::clone(&told);
        let thread = std::thread::Builder::new()
            .name("linksieve-lease".into())
            .spawn(move || {
                // stopped, or the set dropped: either way the sender is gone or has sent
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let c = match conn.take().map_or_else(|| Conn::connect(&url), Ok) {
                        Ok(c) => conn.insert(c),
                        Err(_) => continue,
                    };
                    // the lease runs from the renewal's sending, at the latest
                    let sent = t.start.elapsed().as_millis() as u64;
                    // a connection the server closed while idle is opened again first
                    match c.revive_if_idle().and_then(|_| c.run(renew.clone())) {
                        Ok(a) if a.first().map(int) == Some(1) => {
                            t.renewed_ms.store(sent, Ordering::Release);
                        }
                        Ok(_) => {
                            t.lost.store(true, Ordering::Release);
                            return;
                        }
                        Err(_) => conn = None,
                    }
                }
            })?;
        Ok(Keeper {
            stop: Some(stop),
            thread: Some(thread),
            told,
        })
    }

    /// Whether the keeper found the lease lost.
    pub(super) fn lost(&self) -> bool {
        self.told.lost.load(Ordering::Acquire)
    }

    /// Whether the keeper renewed the lease within `d`.
    pub(super) fn renewed_within(&self, d: Duration) -> bool {
        let at = self.told.renewed_ms.load(Ordering::Acquire);
        let now = self.told.start.elapsed().as_millis() as u64;
        at != u64::MAX && now.saturating_sub(at) < d.as_millis() as u64
    }

    /// Stops the thread and waits for it (a renewal under way ends within the command
    /// timeout), so that nothing renews or registers the run after this.
    pub(super) fn stop(&mut self) {
        self.stop = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

//! When a durable seen-set records what it answered: the commit policy.
//!
//! A durable set (a persistent store, a shared server) answers "new" at once and keeps the key
//! *unsynced*: known to this process (a repeat is answered "seen") but not yet recorded for
//! other runs. The caller delivers the keys (writes and flushes its output, or returns them to
//! its own caller) and then calls [`SeenSet::sync`](crate::SeenSet::sync) when the policy says
//! so. A crash between answer and sync costs only this: keys answered new since the last sync
//! are answered new again by the next run (delivered twice, never lost).

use crate::{DedupError, Result};
use std::time::Duration;

/// When to record the unsynced keys: after every call, after N keys, after T of time, or only
/// at the end. Both limits may be set: the first reached triggers a sync.
///
/// Parsed from `every` (each call), `end` (only when the set is finished), a count of keys
/// (`10000`), a time (`250ms`, `2s`), or a count and a time joined by `,` (`100000,1s`).
///
/// ```
/// use linksieve_dedup::CommitPolicy;
/// use std::time::Duration;
/// let p: CommitPolicy = "100000,1s".parse().unwrap();
/// assert_eq!(p, CommitPolicy { keys: Some(100_000), time: Some(Duration::from_secs(1)) });
/// assert!(p.due(100_000, Duration::ZERO));
/// assert!(p.due(1, Duration::from_secs(1)));
/// assert!(!p.due(1, Duration::from_millis(10)));
/// assert!("every".parse::<CommitPolicy>().unwrap().due(1, Duration::ZERO));
/// assert!(!"end".parse::<CommitPolicy>().unwrap().due(u64::MAX, Duration::MAX));
/// assert_eq!(p.to_string(), "100000,1s");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitPolicy {
    /// Sync once this many keys are unsynced (`Some(1)`: every call that answered a key new).
    pub keys: Option<u64>,
    /// Sync once this much time passed since the last sync, at the next call.
    pub time: Option<Duration>,
}

impl CommitPolicy {
    /// Sync after every call that answered some key new.
    ///
    /// ```
    /// assert!(linksieve_dedup::CommitPolicy::EVERY.due(1, std::time::Duration::ZERO));
    /// ```
    pub const EVERY: CommitPolicy = CommitPolicy {
        keys: Some(1),
        time: None,
    };

    /// Sync only when the set is finished (or closed).
    ///
    /// ```
    /// assert!(!linksieve_dedup::CommitPolicy::END.due(1 << 40, std::time::Duration::MAX));
    /// ```
    pub const END: CommitPolicy = CommitPolicy {
        keys: None,
        time: None,
    };

    /// True when `unsynced` keys waiting `since` the last sync call for a sync now. Nothing
    /// unsynced is never due.
    ///
    /// ```
    /// let p = linksieve_dedup::CommitPolicy { keys: Some(10), time: None };
    /// assert!(!p.due(0, std::time::Duration::MAX));
    /// assert!(p.due(10, std::time::Duration::ZERO));
    /// ```
    pub fn due(&self, unsynced: u64, since: Duration) -> bool {
        unsynced > 0
            && (self.keys.is_some_and(|k| unsynced >= k) || self.time.is_some_and(|t| since >= t))
    }

    /// The most unsynced keys a caller lets wait when a sync is due but its output has not
    /// delivered them yet (a pipe whose reader has not drained it): at this many, it waits for
    /// the output instead, so that a reader that keeps up but never empties the pipe does not
    /// make the unsynced keys (memory, and what a crash delivers twice) grow without bound.
    /// Four times the policy's count of keys, at least [`Self::MIN_BACKLOG`]; 1,000,000 for a
    /// policy of time alone; none for [`END`](Self::END), which waits for the end by design.
    ///
    /// ```
    /// use linksieve_dedup::CommitPolicy;
    /// assert_eq!(CommitPolicy::EVERY.backlog(), Some(CommitPolicy::MIN_BACKLOG));
    /// assert_eq!("1000000".parse::<CommitPolicy>().unwrap().backlog(), Some(4_000_000));
    /// assert_eq!("1s".parse::<CommitPolicy>().unwrap().backlog(), Some(1_000_000));
    /// assert_eq!(CommitPolicy::END.backlog(), None);
    /// ```
    pub fn backlog(&self) -> Option<u64> {
        match (self.keys, self.time) {
            (None, None) => None,
            (None, Some(_)) => Some(1_000_000),
            (Some(k), _) => Some(k.saturating_mul(4).max(Self::MIN_BACKLOG)),
        }
    }

    /// The least [`backlog`](Self::backlog) of a policy with a count of keys.
    ///
    /// ```
    /// assert_eq!(linksieve_dedup::CommitPolicy::MIN_BACKLOG, 100_000);
    /// ```
    pub const MIN_BACKLOG: u64 = 100_000;
}

impl std::str::FromStr for CommitPolicy {
    type Err = DedupError;

    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            DedupError::InvalidConfig(format!(
                "commit policy {s:?}: expected `every`, `end`, a number of keys (1 to 10^12), a \
                 time (`250ms`, `2s`: 1 ms to 1 day), or a number and a time joined by `,`"
            ))
        };
        match s.trim() {
            "every" => return Ok(CommitPolicy::EVERY),
            "end" => return Ok(CommitPolicy::END),
            _ => {}
        }
        let mut p = CommitPolicy::END;
        for part in s.split(',').map(str::trim) {
            if let Some(ms) = part.strip_suffix("ms") {
                let ms: u64 = ms.parse().map_err(|_| bad())?;
                p.time = Some(Duration::from_millis(ms));
            } else if let Some(secs) = part.strip_suffix('s') {
                let secs: u64 = secs.parse().map_err(|_| bad())?;
                p.time = Some(Duration::from_secs(secs));
            } else {
                let n: u64 = part.parse().map_err(|_| bad())?;
                if !(1..=1_000_000_000_000).contains(&n) || p.keys.is_some() {
                    return Err(bad());
                }
                p.keys = Some(n);
            }
        }
        if p.time
            .is_some_and(|t| t < Duration::from_millis(1) || t > Duration::from_secs(86_400))
        {
            return Err(bad());
        }
        if p == CommitPolicy::END {
            return Err(bad());
        }
        Ok(p)
    }
}

impl std::fmt::Display for CommitPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.keys, self.time) {
            (None, None) => f.write_str("end"),
            (Some(1), None) => f.write_str("every"),
            (k, t) => {
                let t = t.map(|t| {
                    if t.as_millis() % 1000 == 0 {
                        format!("{}s", t.as_secs())
                    } else {
                        format!("{}ms", t.as_millis())
                    }
                });
                let parts: Vec<String> = k.map(|k| k.to_string()).into_iter().chain(t).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_it_cannot_read() {
        for s in ["", "0", "x", "1,2", "0ms", "2d", "90000s", "-1", "1e3"] {
            assert!(s.parse::<CommitPolicy>().is_err(), "{s}");
        }
        for s in ["every", "end", "1", "250ms", "2s", "100000,1s", "1s,10"] {
            let p: CommitPolicy = s.parse().unwrap();
            assert_eq!(p.to_string().parse::<CommitPolicy>().unwrap(), p, "{s}");
        }
    }
}

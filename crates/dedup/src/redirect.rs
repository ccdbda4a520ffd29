//! Redirects and canonical links over a seen-set: a target is never dropped as a duplicate of
//! its own redirect chain, and a permanent redirect's source is remembered as seen.
//!
//! The rules (issue 31; scrapy#1225, scrapy#6895, StormCrawler#239, Heritrix's
//! `FrontierPreparer`):
//! - A request reached by redirects is checked with its chain (the keys of the requests that
//!   redirected to it, oldest first, each with the status that redirected it). A target whose
//!   key equals a key of its own chain is fetched (not a duplicate): a page that redirects to
//!   itself (to set a cookie), or to a URL equal after canonicalization (query order). The
//!   chain bounds this: the redirect middleware's hop limit ends a loop.
//! - Otherwise the target is checked as any key is: seen, it is dropped, whatever flag a retry
//!   left on the request (the caller must not bypass the check for redirect targets).
//! - The source of a permanent redirect (301, 308) becomes an *alias*: recorded as seen in the
//!   same [`SeenSet::insert_batch`] call as the target's check (one batch, one commit), so the
//!   source found again later as a link is answered seen. A temporary redirect (302, 303, 307,
//!   or any other reason) records nothing: its source may serve a page later.
//! - A canonical link (`<link rel=canonical>`, same site: the caller checks the scope) recorded
//!   with [`record_edge`] makes both its source and its target seen.

use crate::{Fingerprint, Result, SeenSet};

/// The status of a hop or edge that is a canonical link rather than an HTTP redirect.
///
/// ```
/// assert_eq!(linksieve_dedup::redirect::CANONICAL, 0);
/// ```
pub const CANONICAL: u16 = 0;

/// One earlier request of a redirect chain: its key and the status that redirected it (301,
/// 302, 303, 307, 308; any other value, e.g. 0 for a meta refresh, counts as temporary).
///
/// ```
/// use linksieve_dedup::{Fingerprint, redirect::Hop};
/// assert!(Hop { key: Fingerprint(1), status: 308 }.permanent());
/// assert!(!Hop { key: Fingerprint(1), status: 302 }.permanent());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The key of the request that was redirected.
    pub key: Fingerprint,
    /// The status of its redirect.
    pub status: u16,
}

impl Hop {
    /// True for a permanent redirect (301 Moved Permanently, 308 Permanent Redirect: RFC 9110
    /// 15.4.2, 15.4.9), whose source becomes an alias of its target.
    ///
    /// ```
    /// use linksieve_dedup::{Fingerprint, redirect::Hop};
    /// assert!(Hop { key: Fingerprint(1), status: 301 }.permanent());
    /// ```
    pub fn permanent(&self) -> bool {
        matches!(self.status, 301 | 308)
    }
}

/// Checks `target`, reached through `chain` (oldest first), in one batch of `set`: true when it
/// is to be fetched (new, or equal to a key of its chain), false when it is a duplicate. The
/// sources of the chain's permanent redirects are recorded as seen in the same batch. `scratch`
/// is reused between calls (no allocation once it is large enough).
///
/// ```
/// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet, redirect::{Hop, check}};
/// let (a, b) = (Fingerprint(1), Fingerprint(2));
/// let mut set = MemorySet::new();
/// let mut scratch = (Vec::new(), Vec::new());
/// assert!(SeenSet::insert_one(&mut set, a).unwrap()); // a scheduled, fetched: 302 to itself
/// assert!(check(&mut set, a, &[Hop { key: a, status: 302 }], &mut scratch).unwrap());
/// // a found again later: seen; b reached from a by a 301 makes a an alias (already seen)
/// assert!(check(&mut set, b, &[Hop { key: a, status: 301 }], &mut scratch).unwrap());
/// assert!(!check(&mut set, b, &[], &mut scratch).unwrap());
/// ```
pub fn check(
    set: &mut dyn SeenSet,
    target: Fingerprint,
    chain: &[Hop],
    scratch: &mut (Vec<Fingerprint>, Vec<bool>),
) -> Result<bool> {
    let in_chain = chain.iter().any(|h| h.key == target);
    let (batch, new) = scratch;
    batch.clear();
    // the target first: an alias of the same batch never changes its answer
    batch.push(target);
    batch.extend(chain.iter().filter(|h| h.permanent()).map(|h| h.key));
    set.insert_batch(batch, new)?;
    Ok(in_chain || new.first().copied().unwrap_or(false))
}

/// Records an edge `source -> target` found outside a request's chain (a redirect seen in a
/// WARC, a sitemap, a `<link rel=canonical>`), in one batch: a permanent redirect makes
/// `source` seen; a [`CANONICAL`] link makes `source` and `target` seen (the target's content
/// is the page already fetched); a temporary redirect records nothing. Returns the number of
/// keys the edge made seen that were new.
///
/// ```
/// use linksieve_dedup::{Fingerprint, MemorySet, SeenSet, redirect::{CANONICAL, record_edge}};
/// let mut set = MemorySet::new();
/// assert_eq!(record_edge(&mut set, Fingerprint(1), Fingerprint(2), 301).unwrap(), 1);
/// assert_eq!(record_edge(&mut set, Fingerprint(3), Fingerprint(4), 302).unwrap(), 0);
/// assert_eq!(record_edge(&mut set, Fingerprint(3), Fingerprint(4), CANONICAL).unwrap(), 2);
/// assert!(set.contains(Fingerprint(1)) && !set.contains(Fingerprint(2)));
/// ```
pub fn record_edge(
    set: &mut dyn SeenSet,
    source: Fingerprint,
    target: Fingerprint,
    status: u16,
) -> Result<usize> {
    let keys: &[Fingerprint] = match status {
        CANONICAL => &[source, target],
        301 | 308 => &[source],
        _ => return Ok(0),
    };
    let mut new = Vec::with_capacity(2);
    set.insert_batch(keys, &mut new)?;
    Ok(new.iter().filter(|&&n| n).count())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemorySet, PersistentOptions, PersistentSet, StoreIdentity};

    /// A set that counts its batches (each a commit for a durable set).
    struct Counting(MemorySet, usize);

    impl SeenSet for Counting {
        fn insert_batch(&mut self, fps: &[Fingerprint], new: &mut Vec<bool>) -> Result<()> {
            self.1 += 1;
            self.0.insert_batch(fps, new)
        }
        fn len(&self) -> u64 {
            SeenSet::len(&self.0)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
        fn knows(&mut self, fp: Fingerprint) -> Result<bool> {
            Ok(self.0.contains(fp))
        }
    }

    fn hop(k: u128, status: u16) -> Hop {
        Hop {
            key: Fingerprint(k),
            status,
        }
    }

    fn check1(set: &mut dyn SeenSet, target: u128, chain: &[Hop]) -> bool {
        check(
            set,
            Fingerprint(target),
            chain,
            &mut (Vec::new(), Vec::new()),
        )
        .unwrap()
    }

    #[test]
    fn a_target_in_its_own_chain_is_fetched_scrapy_1225() {
        let mut set = MemorySet::new();
        // a self-redirect: a was scheduled (seen), then redirected to itself (302, 307)
        assert!(check1(&mut set, 1, &[]));
        assert!(check1(&mut set, 1, &[hop(1, 302)]));
        assert!(check1(&mut set, 1, &[hop(1, 307), hop(1, 302)]));
        // a longer chain: a -> b -> a (the key of a is in the chain)
        assert!(check1(&mut set, 2, &[hop(1, 302)]));
        assert!(check1(&mut set, 1, &[hop(1, 302), hop(2, 302)]));
        // out of its chain, the same key is a duplicate
        assert!(!check1(&mut set, 1, &[]));
        assert!(!check1(&mut set, 1, &[hop(2, 302)]));
    }

    #[test]
    fn a_redirect_target_seen_elsewhere_is_a_duplicate_scrapy_6895() {
        let mut set = MemorySet::new();
        assert!(check1(&mut set, 9, &[])); // the target, found first as a link
        assert!(check1(&mut set, 5, &[])); // the source, retried then redirected to 9
        assert!(!check1(&mut set, 9, &[hop(5, 302)]));
        // the other order: the redirect first, then the link
        assert!(check1(&mut set, 10, &[hop(5, 302)]));
        assert!(!check1(&mut set, 10, &[]));
    }

    #[test]
    fn a_permanent_source_is_an_alias_in_the_same_batch() {
        let mut set = Counting(MemorySet::new(), 0);
        // 1 (never checked: a start request) -301-> 2 -302-> 3 -308-> 4
        assert!(check1(
            &mut set,
            4,
            &[hop(1, 301), hop(2, 302), hop(3, 308)]
        ));
        assert_eq!(set.1, 1, "one batch");
        assert!(set.0.contains(Fingerprint(1)) && set.0.contains(Fingerprint(3)));
        assert!(
            !set.0.contains(Fingerprint(2)),
            "a temporary source stays new"
        );
        assert!(!check1(&mut set, 1, &[]));
        assert!(check1(&mut set, 2, &[]));
        // a target equal to a permanent source of its own chain is still fetched
        assert!(check1(&mut set, 7, &[hop(7, 301)]));
        assert!(!check1(&mut set, 7, &[]));
    }

    #[test]
    fn edges() {
        let mut set = MemorySet::new();
        assert_eq!(
            record_edge(&mut set, Fingerprint(1), Fingerprint(2), 308).unwrap(),
            1
        );
        assert_eq!(
            record_edge(&mut set, Fingerprint(1), Fingerprint(2), 308).unwrap(),
            0
        );
        for s in [302, 303, 307, 200, 999] {
            assert_eq!(
                record_edge(&mut set, Fingerprint(5), Fingerprint(6), s).unwrap(),
                0
            );
        }
        assert_eq!(set.len(), 1);
        assert_eq!(
            record_edge(&mut set, Fingerprint(5), Fingerprint(6), CANONICAL).unwrap(),
            2
        );
    }

    #[test]
    fn on_a_persistent_store_the_alias_outlives_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let id = StoreIdentity::new("scheme uri 0");
        let mut set = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
        assert!(check1(&mut set, 2, &[hop(1, 301)]));
        set.sync().unwrap();
        set.finish().unwrap();
        let mut set = PersistentSet::open(&path, &id, PersistentOptions::default()).unwrap();
        assert!(!check1(&mut set, 1, &[]));
        assert!(!check1(&mut set, 2, &[]));
        assert!(check1(&mut set, 2, &[hop(2, 302)]));
    }
}

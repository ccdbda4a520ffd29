//! The URL of a shared seen-set: server(s), database, and the set's options.
//!
//! ```text
//! redis://[USER[:PASSWORD]@]HOST[:PORT][/DB][?OPTIONS]             one server (Redis, Valkey)
//! rediss://...                                                     the same over TLS
//! redis+cluster://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...][/][?OPTIONS]   Redis Cluster
//! rediss+cluster://...                                             Redis Cluster over TLS
//! ```
//!
//! Options (`&`-separated): `prefix` (the set's name, the start of every key: default
//! `linksieve`), `expect` and `shards` (the layout, fixed when the set is made), `lease`,
//! `connect_timeout` and `timeout` (durations: `500ms`, `30s`, `2m`), `run` (a run name).

use crate::{DedupError, Result};
use std::time::Duration;

/// Default number of keys the layout is sized for (`expect=`).
///
/// ```
/// assert_eq!(linksieve_dedup::DEFAULT_EXPECT, 10_000_000);
/// ```
pub const DEFAULT_EXPECT: u64 = 10_000_000;
/// Default number of hash-tagged shards (`shards=`).
///
/// ```
/// assert!(linksieve_dedup::DEFAULT_SHARDS.is_power_of_two());
/// ```
pub const DEFAULT_SHARDS: u32 = 64;
/// Default lease of a run (`lease=`).
///
/// ```
/// assert_eq!(linksieve_dedup::DEFAULT_LEASE.as_secs(), 30);
/// ```
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);
/// Default connect timeout (`connect_timeout=`).
///
/// ```
/// assert_eq!(linksieve_dedup::DEFAULT_CONNECT_TIMEOUT.as_secs(), 5);
/// ```
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default command timeout (`timeout=`).
///
/// ```
/// assert_eq!(linksieve_dedup::DEFAULT_TIMEOUT.as_secs(), 10);
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed shared seen-set URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetUrl {
    /// `redis://...` URLs for the client: one, or one per cluster seed node.
    pub nodes: Vec<String>,
    /// A Redis Cluster.
    pub cluster: bool,
    /// The URL without its password (for messages).
    pub shown: String,
    pub prefix: String,
    pub expect: Option<u64>,
    pub shards: Option<u32>,
    pub lease: Duration,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub run: Option<String>,
}

fn bad(url: &str, why: impl std::fmt::Display) -> DedupError {
    DedupError::InvalidConfig(format!("seen-set URL {url}: {why}"))
}

/// A duration: digits then `ms`, `s` or `m` (`s` when no unit).
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = s[..digits].parse().ok()?;
    match &s[digits..] {
        "ms" => Some(Duration::from_millis(n)),
        "" | "s" => Some(Duration::from_secs(n)),
        "m" => n.checked_mul(60).map(Duration::from_secs),
        _ => None,
    }
}

/// The name characters allowed in a prefix and a run name (no `{`, `}`: they make hash tags).
fn name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/@".contains(&b))
}

impl SetUrl {
    pub(crate) fn parse(url: &str) -> Result<SetUrl> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad(url, "expected redis://, rediss://, redis+cluster://"))?;
        let (tls, cluster) = match scheme {
            "redis" => (false, false),
            "rediss" => (true, false),
            "redis+cluster" => (false, true),
            "rediss+cluster" => (true, true),
            _ => {
                return Err(bad(
                    url,
                    format!("unknown scheme {scheme:?} (redis://, rediss://, redis+cluster://)"),
                ));
            }
        };
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (auth, hosts) = match authority.rsplit_once('@') {
            Some((a, h)) => (Some(a), h),
            None => (None, authority),
        };
        let db: u32 = match path {
            "" => 0,
            p => p
                .parse()
                .map_err(|_| bad(url, "the path must be a database number"))?,
        };
        if cluster && db != 0 {
            return Err(bad(url, "a Redis Cluster has only database 0"));
        }
        let hosts: Vec<&str> = hosts.split(',').collect();
        if hosts.iter().any(|h| h.is_empty()) {
            return Err(bad(url, "a host is empty"));
        }
        if !cluster && hosts.len() > 1 {
            return Err(bad(
                url,
                "several hosts: use redis+cluster:// for a cluster",
            ));
        }
        let node_scheme = if tls { "rediss" } else { "redis" };
        let auth_part = auth.map(|a| format!("{a}@")).unwrap_or_default();
        let nodes = hosts
            .iter()
            .map(|h| format!("{node_scheme}://{auth_part}{h}/{db}"))
            .collect();
        let shown_auth = match auth {
            Some(a) => match a.split_once(':') {
                Some((user, _)) => format!("{user}:***@"),
                None => format!("{a}@"),
            },
            None => String::new(),
        };
        let shown_query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        let mut out = SetUrl {
            nodes,
            cluster,
            shown: format!(
                "{scheme}://{shown_auth}{}/{path}{shown_query}",
                hosts.join(",")
            ),
            prefix: "linksieve".to_owned(),
            expect: None,
            shards: None,
            lease: DEFAULT_LEASE,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            run: None,
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let dur = || {
                parse_duration(v)
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| bad(url, format!("{k}: expected a duration (500ms, 30s, 2m)")))
            };
            match k {
                "prefix" if name_ok(v) => out.prefix = v.to_owned(),
                "prefix" => return Err(bad(url, "prefix: 1 to 128 of A-Z a-z 0-9 - _ . : / @")),
                "run" if name_ok(v) => out.run = Some(v.to_owned()),
                "run" => return Err(bad(url, "run: 1 to 128 of A-Z a-z 0-9 - _ . : / @")),
                "expect" => {
                    out.expect = Some(
                        v.parse()
                            .ok()
                            .filter(|&n: &u64| (1..=1 << 40).contains(&n))
                            .ok_or_else(|| bad(url, "expect: a number of keys, 1 to 2^40"))?,
                    )
                }
                "shards" => {
                    out.shards = Some(
                        v.parse()
                            .ok()
                            .filter(|&n: &u32| n.is_power_of_two() && n <= 4096)
                            .ok_or_else(|| bad(url, "shards: a power of two, 1 to 4096"))?,
                    )
                }
                // its keeper renews it every quarter: not faster than every 250 ms
                "lease" => {
                    out.lease = Some(dur()?)
                        .filter(|d| {
                            (Duration::from_secs(1)..=Duration::from_secs(86_400)).contains(d)
                        })
                        .ok_or_else(|| bad(url, "lease: a duration from 1s to 1440m (a day)"))?
                }
                "connect_timeout" => out.connect_timeout = dur()?,
                "timeout" => out.timeout = dur()?,
                _ => return Err(bad(url, format!("unknown option {k:?}"))),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_server() {
        let u =
            SetUrl::parse("redis://127.0.0.1:6379/2?prefix=crawl&lease=5s&timeout=250ms").unwrap();
        assert_eq!(u.nodes, ["redis://127.0.0.1:6379/2"]);
        assert!(!u.cluster);
        assert_eq!(u.prefix, "crawl");
        assert_eq!(u.lease, Duration::from_secs(5));
        assert_eq!(u.timeout, Duration::from_millis(250));
        assert_eq!(u.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
    }

    #[test]
    fn cluster_and_password_hidden() {
        let u =
            SetUrl::parse("rediss+cluster://me:secret@a:7000,b:7001/?prefix=x&shards=256").unwrap();
        assert_eq!(
            u.nodes,
            ["rediss://me:secret@a:7000/0", "rediss://me:secret@b:7001/0"]
        );
        assert!(u.cluster);
        assert_eq!(u.shards, Some(256));
        assert!(!u.shown.contains("secret"), "{}", u.shown);
    }

    #[test]
    fn refusals() {
        for url in [
            "http://a/",
            "redis://a:1/x",
            "redis://a:1,b:2/",
            "redis+cluster://a:1/3",
            "redis://a/?prefix={x}",
            "redis://a/?shards=3",
            "redis://a/?lease=0s",
            "redis://a/?lease=999ms",
            "redis://a/?lease=1441m",
            "redis://a/?lease=5h",
            "redis://a/?bogus=1",
        ] {
            assert!(SetUrl::parse(url).is_err(), "{url}");
        }
        for (url, lease) in [
            ("redis://a/?lease=1s", 1),
            ("redis://a/?lease=1440m", 86_400),
        ] {
            assert_eq!(
                SetUrl::parse(url).unwrap().lease,
                Duration::from_secs(lease)
            );
        }
    }
}

//! The run summary: every byte, link and key accounted for, so nothing is lost silently.

use crate::OutlinkStats;
use linksieve_iri::Rung;
use std::collections::BTreeMap;

/// An input that could not be read (or not to its end).
///
/// ```
/// let f = linksieve_pipeline::InputFailure { input: "a.gz".into(), error: "unexpected end of file".into() };
/// assert_eq!(f.input, "a.gz");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct InputFailure {
    /// The input's name.
    pub input: String,
    /// What went wrong.
    pub error: String,
}

/// Counters of one run. Printed as the summary on stderr and written by `--stats FILE` as JSON.
///
/// ```
/// let s = linksieve_pipeline::RunStats::default();
/// assert_eq!(s.links_found, 0);
/// assert!(s.to_json().contains("\"unique_keys\": 0"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RunStats {
    /// Inputs (files, stdin) opened.
    pub inputs: u64,
    /// Inputs that could not be read, with the reason.
    pub inputs_failed: Vec<InputFailure>,
    /// Bytes read, after decompression.
    pub bytes_read: u64,
    /// Bytes not scanned, by reason (WARC headers and non-payload records, HTTP headers, input
    /// errors after a partial read).
    pub bytes_skipped: BTreeMap<String, u64>,
    /// Byte sequences that were not valid in their encoding (each decoded as U+FFFD, which no link
    /// contains).
    pub malformed_sequences: u64,
    /// Candidates longer than the maximum link length, skipped.
    pub too_long: u64,
    /// Links found by the scanner.
    pub links_found: u64,
    /// Links without a key, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Keys written (new keys).
    pub unique_keys: u64,
    /// Links whose key was seen before, by the lowest rung at which they were (the string rung
    /// catches exact repeats; each higher rung what only it merges). Rungs below the chosen one
    /// are tracked in one Bloom filter (a tag per rung, about 1% false positives), so these split
    /// the exact total `duplicates` approximately.
    pub duplicates_by_rung: BTreeMap<&'static str, u64>,
    /// Links whose key was seen before (exact, except in `approx` mode, where it includes
    /// [`approx_filter_seen`](RunStats::approx_filter_seen)).
    pub duplicates: u64,
    /// `approx` mode: links the filter reported seen that no lower rung caught, so either
    /// duplicates at the chosen rung or new keys wrongly dropped (the filter cannot tell which;
    /// [`expected_false_drops`](RunStats::expected_false_drops) estimates how many are drops).
    /// They are not counted under `duplicates_by_rung`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approx_filter_seen: Option<u64>,
    /// Keys in the persistent seen-set when the run started (`--seen`).
    pub store_keys_at_open: Option<u64>,
    /// `--seen`: how many times the store recorded the keys delivered (see `--commit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_commits: Option<u64>,
    /// `approx` mode: the expected number of new keys wrongly dropped as seen.
    pub expected_false_drops: Option<f64>,
    /// `approx` mode: one standard error of `expected_false_drops`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_false_drops_error: Option<f64>,
    /// The seen-set's warning (an `approx` filter grown or overfilled past `--expected`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen_set_warning: Option<String>,
    /// WARC payloads by the transfer and content codings undone (`chunked`, `gzip`, `deflate`,
    /// `br`, `zstd`), and those declared but not found (read as they were stored).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub payload_codings: BTreeMap<String, u64>,
    /// The encodings inputs were decoded with, by number of streams.
    pub encodings: BTreeMap<&'static str, u64>,
    /// Documents read as HTML and the outlinks of their attributes (absent when none was).
    #[serde(skip_serializing_if = "OutlinkStats::is_empty")]
    pub outlinks: OutlinkStats,
    /// The links WARC responses state outside their HTML (absent when there were none).
    #[serde(skip_serializing_if = "RecordLinkStats::is_empty")]
    pub record_links: RecordLinkStats,
    /// HTML documents over the size read whole (64 MiB), read as text: their attributes unread.
    #[serde(skip_serializing_if = "is_zero")]
    pub html_too_large: u64,
    /// `--format edges`: the graph's counters (absent in the other formats).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<EdgeStats>,
    /// Memory held by the seen-set at the end, in bytes.
    pub seen_set_bytes: u64,
    /// The process's peak resident set when the run ended, in bytes ([`peak_rss_bytes`]; `None`
    /// where the system does not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// The run was interrupted (SIGINT); what was read was flushed.
    pub interrupted: bool,
}

impl RunStats {
    /// Adds a rejected link.
    pub(crate) fn reject(&mut self, reason: String) {
        *self.rejected.entry(reason).or_default() += 1;
    }

    /// Adds skipped bytes.
    pub(crate) fn skip(&mut self, reason: &str, n: u64) {
        if n > 0 {
            *self.bytes_skipped.entry(reason.to_owned()).or_default() += n;
        }
    }

    /// Counts a WARC payload under a coding.
    pub(crate) fn coding(&mut self, what: String) {
        *self.payload_codings.entry(what).or_default() += 1;
    }

    /// Counts a duplicate caught at `rung`.
    pub(crate) fn duplicate(&mut self, rung: Rung, n: u64) {
        self.duplicates += n;
        *self.duplicates_by_rung.entry(rung.name()).or_default() += n;
    }

    /// Links rejected in total.
    ///
    /// ```
    /// assert_eq!(linksieve_pipeline::RunStats::default().rejected_total(), 0);
    /// ```
    pub fn rejected_total(&self) -> u64 {
        self.rejected.values().sum()
    }

    /// The summary as text, one fact a line, for stderr.
    ///
    /// ```
    /// let text = linksieve_pipeline::RunStats::default().summary();
    /// assert!(text.contains("links found: 0"));
    /// ```
    pub fn summary(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "linksieve run summary{}",
            if self.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "  inputs: {} read, {} failed",
            self.inputs,
            self.inputs_failed.len()
        );
        for f in &self.inputs_failed {
            let _ = writeln!(s, "    failed: {}: {}", f.input, f.error);
        }
        let _ = writeln!(s, "  bytes read: {}", self.bytes_read);
        for (why, n) in &self.bytes_skipped {
            let _ = writeln!(s, "  bytes skipped ({why}): {n}");
        }
        if !self.payload_codings.is_empty() {
            let c: Vec<String> = self
                .payload_codings
                .iter()
                .map(|(k, v)| format!("{k} x{v}"))
                .collect();
            let _ = writeln!(s, "  WARC payloads decoded: {}", c.join(", "));
        }
        if !self.encodings.is_empty() {
            let e: Vec<String> = self
                .encodings
                .iter()
                .map(|(k, v)| format!("{k} x{v}"))
                .collect();
            let _ = writeln!(s, "  encodings: {}", e.join(", "));
        }
        let _ = writeln!(
            s,
            "  malformed byte sequences: {}",
            self.malformed_sequences
        );
        let _ = writeln!(s, "  overlong candidates skipped: {}", self.too_long);
        let o = &self.outlinks;
        if o.documents > 0 || self.html_too_large > 0 {
            let _ = writeln!(
                s,
                "  HTML documents: {} read as HTML, {} over 64 MiB read as text",
                o.documents, self.html_too_large
            );
            let _ = writeln!(
                s,
                "  outlinks in attributes: {} found, {} resolved, {} invalid, {} not keyed (javascript:, data:, about:, blob:, vbscript:; --all-schemes keys them), {} tags too long to read",
                o.found, o.resolved, o.invalid, o.not_keyed, o.skipped_tags
            );
            if o.no_base > 0 {
                let _ = writeln!(
                    s,
                    "  relative outlinks not resolved: {} (their documents have no address: give it with --base URL)",
                    o.no_base
                );
            }
        }
        let r = &self.record_links;
        if !r.is_empty() {
            let _ = writeln!(
                s,
                "  record links (WARC heads, robots.txt, WAT): {} redirects, {} Link fields, {} sitemaps, {} WAT links; {} not keyed, {} without a base",
                r.redirects, r.link_fields, r.sitemaps, r.wat, r.not_keyed, r.no_base
            );
        }
        let _ = writeln!(s, "  links found: {}", self.links_found);
        let _ = writeln!(s, "  links rejected: {}", self.rejected_total());
        for (why, n) in &self.rejected {
            let _ = writeln!(s, "    {why}: {n}");
        }
        if let Some(e) = &self.edges {
            let _ = writeln!(
                s,
                "  edges: {} written, {} links over them, from {} documents; {} documents with no node (no address, or no host node), {} links to no node or within one host; {} sorted runs spilled",
                e.edges,
                e.links,
                e.documents,
                e.documents_without_node,
                e.links_without_edge,
                e.runs
            );
        } else {
            let _ = writeln!(s, "  unique keys: {}", self.unique_keys);
            let _ = writeln!(s, "  duplicates: {}", self.duplicates);
            for (rung, n) in &self.duplicates_by_rung {
                let _ = writeln!(s, "    caught at the {rung} rung: {n}");
            }
        }
        if let Some(n) = self.approx_filter_seen {
            let _ = writeln!(
                s,
                "    reported seen by the approx filter (duplicates at the chosen rung, or new keys wrongly dropped): {n}"
            );
        }
        if let Some(n) = self.store_keys_at_open {
            let _ = writeln!(
                s,
                "  persistent seen-set: {n} keys from earlier runs, {} new, recorded in {} commits",
                self.unique_keys,
                self.store_commits.unwrap_or(0)
            );
        }
        if let Some(x) = self.expected_false_drops {
            let _ = writeln!(
                s,
                "  expected keys wrongly dropped (approx): {x:.3}{}",
                plus_minus(self.expected_false_drops_error)
            );
        }
        if let Some(w) = &self.seen_set_warning {
            let _ = writeln!(s, "  warning: {w}");
        }
        let _ = writeln!(s, "  seen-set memory: {} bytes", self.seen_set_bytes);
        if let Some(peak) = self.peak_rss_bytes {
            let _ = writeln!(s, "  peak memory (RSS): {peak} bytes");
        }
        s
    }

    /// The counters as a JSON object (for `--stats FILE`).
    ///
    /// ```
    /// let mut s = linksieve_pipeline::RunStats::default();
    /// s.links_found = 3;
    /// assert!(s.to_json().contains("\"links_found\": 3"));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// The counters of `--format edges`.
///
/// ```
/// let mut e = linksieve_pipeline::EdgeStats { edges: 2, ..Default::default() };
/// e = e + linksieve_pipeline::EdgeStats { documents: 1, ..Default::default() };
/// assert_eq!((e.edges, e.documents), (2, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EdgeStats {
    /// Documents whose links became edges (those with a node).
    pub documents: u64,
    /// Documents read as HTML with no node: no address (a file without `--base`), or, with
    /// `--graph host`, an address with no host node.
    pub documents_without_node: u64,
    /// Links of those documents that made no edge: to a URL with no host node, or within
    /// the document's own host (`--graph host`).
    pub links_without_edge: u64,
    /// Links counted over the edges.
    pub links: u64,
    /// Edges written: distinct (source, target) pairs.
    pub edges: u64,
    /// Sorted runs the edge set wrote to disk (0: the edges fit in `--memory`).
    pub runs: u64,
}

impl std::ops::Add for EdgeStats {
    type Output = EdgeStats;
    fn add(self, o: EdgeStats) -> EdgeStats {
        EdgeStats {
            documents: self.documents + o.documents,
            documents_without_node: self.documents_without_node + o.documents_without_node,
            links_without_edge: self.links_without_edge + o.links_without_edge,
            links: self.links + o.links,
            edges: self.edges + o.edges,
            runs: self.runs + o.runs,
        }
    }
}

/// The links WARC responses state outside their HTML (`linksieve_inputs::RecordLink`): found,
/// by kind, and those that made no key for a reason other than a parse error (which are
/// counted under `rejected`).
///
/// ```
/// let mut r = linksieve_pipeline::RecordLinkStats { redirects: 1, ..Default::default() };
/// r += linksieve_pipeline::RecordLinkStats { sitemaps: 2, ..Default::default() };
/// assert_eq!((r.redirects, r.sitemaps, r.is_empty()), (1, 2, false));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecordLinkStats {
    /// The `Location` of redirects (301, 302, 303, 307, 308).
    pub redirects: u64,
    /// URI-references of `Link` header fields.
    pub link_fields: u64,
    /// robots.txt `Sitemap:` lines.
    pub sitemaps: u64,
    /// Links of the HTML a WAT record describes (elements, `<meta>`).
    pub wat: u64,
    /// In a scheme that is not keyed (`javascript:`, `data:`, ...).
    pub not_keyed: u64,
    /// Relative, in a record without a target URI (and no `--base`).
    pub no_base: u64,
}

impl RecordLinkStats {
    /// True when none was found.
    ///
    /// ```
    /// assert!(linksieve_pipeline::RecordLinkStats::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == RecordLinkStats::default()
    }
}

impl std::ops::AddAssign for RecordLinkStats {
    fn add_assign(&mut self, o: RecordLinkStats) {
        self.redirects += o.redirects;
        self.link_fields += o.link_fields;
        self.sitemaps += o.sitemaps;
        self.wat += o.wat;
        self.not_keyed += o.not_keyed;
        self.no_base += o.no_base;
    }
}

/// For `skip_serializing_if`.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The peak resident set of this process so far, in bytes: the kernel's high-water mark
/// (`VmHWM` of `/proc/self/status` on Linux; `None` elsewhere or when it cannot be read). It
/// covers the whole process, so a program that runs several jobs sees the largest of them.
///
/// ```
/// if cfg!(target_os = "linux") {
///     assert!(linksieve_pipeline::peak_rss_bytes().unwrap() > 0);
/// }
/// ```
pub fn peak_rss_bytes() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// A `NAME:   N kB` field of a Linux `/proc` file, in bytes (`None` where there is none).
pub(crate) fn proc_kib(path: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..]
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// Adds the counters of another part of the run (the reader's, the sink's): numbers and
/// per-reason counts add, lists append (these first), a flag set on either side stays set, an
/// estimate or a warning set on the other side replaces this one, the peak is the larger. Every
/// field is named, so a new counter cannot be forgotten here.
///
/// ```
/// use linksieve_pipeline::RunStats;
/// let mut reader = RunStats { inputs: 2, bytes_read: 10, malformed_sequences: 1, ..Default::default() };
/// reader += RunStats { links_found: 3, unique_keys: 2, malformed_sequences: 4, ..Default::default() };
/// assert_eq!((reader.inputs, reader.links_found, reader.malformed_sequences), (2, 3, 5));
/// ```
impl std::ops::AddAssign for RunStats {
    fn add_assign(&mut self, o: RunStats) {
        let RunStats {
            inputs,
            inputs_failed,
            bytes_read,
            bytes_skipped,
            malformed_sequences,
            too_long,
            links_found,
            rejected,
            unique_keys,
            duplicates_by_rung,
            duplicates,
            approx_filter_seen,
            store_keys_at_open,
            store_commits,
            expected_false_drops,
            expected_false_drops_error,
            seen_set_warning,
            payload_codings,
            encodings,
            outlinks,
            record_links,
            html_too_large,
            edges,
            seen_set_bytes,
            peak_rss_bytes,
            interrupted,
        } = o;
        self.edges = match (self.edges.take(), edges) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.outlinks += outlinks;
        self.record_links += record_links;
        self.html_too_large += html_too_large;
        fn add_map<K: Ord>(a: &mut BTreeMap<K, u64>, b: BTreeMap<K, u64>) {
            for (k, v) in b {
                *a.entry(k).or_default() += v;
            }
        }
        self.inputs += inputs;
        self.inputs_failed.extend(inputs_failed);
        self.bytes_read += bytes_read;
        add_map(&mut self.bytes_skipped, bytes_skipped);
        self.malformed_sequences += malformed_sequences;
        self.too_long += too_long;
        self.links_found += links_found;
        add_map(&mut self.rejected, rejected);
        self.unique_keys += unique_keys;
        add_map(&mut self.duplicates_by_rung, duplicates_by_rung);
        self.duplicates += duplicates;
        self.approx_filter_seen = match (self.approx_filter_seen, approx_filter_seen) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.store_keys_at_open = store_keys_at_open.or(self.store_keys_at_open);
        self.store_commits = store_commits.or(self.store_commits);
        self.expected_false_drops = expected_false_drops.or(self.expected_false_drops);
        self.expected_false_drops_error =
            expected_false_drops_error.or(self.expected_false_drops_error);
        self.seen_set_warning = seen_set_warning.or(self.seen_set_warning.take());
        add_map(&mut self.payload_codings, payload_codings);
        add_map(&mut self.encodings, encodings);
        self.seen_set_bytes += seen_set_bytes;
        self.peak_rss_bytes = self.peak_rss_bytes.max(peak_rss_bytes);
        self.interrupted |= interrupted;
    }
}

/// ` ± E (one standard error)` for an estimate's error, nothing without one.
pub(crate) fn plus_minus(error: Option<f64>) -> String {
    error.map_or_else(String::new, |e| format!(" ± {e:.3} (one standard error)"))
}

/// The end of a run or a dedup, as a caller that handles both reports it: the counters as
/// JSON and as text, the inputs that failed (to add those the caller could not even list) and
/// whether SIGINT stopped it.
///
/// ```
/// use linksieve_pipeline::{DedupStats, Report, RunStats};
/// fn status(r: &dyn Report) -> u8 {
///     if r.was_interrupted() { 130 } else { 0 }
/// }
/// assert_eq!(status(&RunStats::default()), 0);
/// assert_eq!(status(&DedupStats { interrupted: true, ..Default::default() }), 130);
/// ```
pub trait Report {
    /// The inputs that could not be read.
    fn failures_mut(&mut self) -> &mut Vec<InputFailure>;
    /// The counters as a JSON object.
    fn to_json(&self) -> String;
    /// The counters as text, one fact a line.
    fn summary(&self) -> String;
    /// SIGINT stopped the run.
    fn was_interrupted(&self) -> bool;
    /// Bytes read (after decompression), for the throughput.
    fn bytes_read(&self) -> u64;
    /// The seen-set's warning (answers weaker than asked), also in the summary: a caller that
    /// prints no summary still prints this.
    fn warning(&self) -> Option<&str>;
}

impl Report for RunStats {
    fn failures_mut(&mut self) -> &mut Vec<InputFailure> {
        &mut self.inputs_failed
    }
    fn to_json(&self) -> String {
        RunStats::to_json(self)
    }
    fn summary(&self) -> String {
        RunStats::summary(self)
    }
    fn was_interrupted(&self) -> bool {
        self.interrupted
    }
    fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
    fn warning(&self) -> Option<&str> {
        self.seen_set_warning.as_deref()
    }
}

impl Report for crate::DedupStats {
    fn failures_mut(&mut self) -> &mut Vec<InputFailure> {
        &mut self.inputs_failed
    }
    fn to_json(&self) -> String {
        crate::DedupStats::to_json(self)
    }
    fn summary(&self) -> String {
        crate::DedupStats::summary(self)
    }
    fn was_interrupted(&self) -> bool {
        self.interrupted
    }
    fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
    fn warning(&self) -> Option<&str> {
        self.seen_set_warning.as_deref()
    }
}

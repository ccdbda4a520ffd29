//! The stages of `linksieve run`:
//!
//! ```text
//! reader thread ──(tokens: at most `in_flight` chunks alive)──> rayon workers ──> reorder ──> sink
//!   open, decompress,                                            decode, scan,     by chunk    dedup,
//!   split WARC records,                                          normalize,        sequence    write
//!   cut streams into chunks                                      fingerprint
//! ```
//!
//! Chunks are cut at line ends (or spaces) of the raw bytes, which is safe in every
//! ASCII-compatible encoding WHATWG defines: LF and SP are never trail bytes there. Each chunk is
//! scanned with a look-ahead tail (the maximum link length) so that a link that crosses the cut is
//! found whole by the chunk it starts in; the next chunk ignores hits that start inside the
//! previous chunk. UTF-16 and ISO-2022-JP streams, where bytes cannot be cut without decoding,
//! are scanned in order by the reader thread and only their normalization runs in parallel.
//!
//! A plain file (not compressed, not WARC, in an encoding that can be cut) is not read by the
//! reader at all beyond its first 64 KiB (to decide the encoding): the reader hands out range
//! numbers, and each worker reads its own range with `pread` and finds the cuts at both ends
//! itself ([`read_range`]). No thread copies input for another, and each chunk is scanned on
//! the core that read it while it is still in that core's cache. Line numbers are counted per
//! chunk by the workers and made absolute by the sink, in sequence order.
//!
//! With one thread (`threads == 1`) there is no reader thread, pool or queue: each chunk is
//! worked and sunk on the calling thread as soon as it is cut.
//!
//! Output order is the order of first occurrence in the input: the sink takes chunk results in
//! sequence order, so the output is the same for every thread count. A token is taken for each
//! chunk before it is read and returned when the sink is done with it, so memory outside the
//! seen-set is bounded by `in_flight` chunks whatever the input size (backpressure, not
//! buffering).
//!
//! One job per file: [`chunk`] (what passes between the stages), [`schedule`] (one thread, or
//! the reader thread, the pool and the reorder), [`reader`] (inputs, containers, encodings,
//! chunks), [`cut`] (where chunks are cut), [`ranges`] (`pread` ranges of plain files),
//! [`worker`] (scan, normalize, fingerprint) and [`sink`] (seen-set, per-rung counts, output).

mod chunk;
mod cut;
mod late;
mod ranges;
mod reader;
mod schedule;
mod sink;
#[cfg(test)]
mod tests;
mod worker;

use crate::delivery::Output;
use crate::keyer::{DocumentLinkText, Keyer, LinkBuffers, document_link, found_link};
use crate::keying::{KeyError, Keying};
use crate::ordered::Ordered;
use crate::outlinks::{DocumentItem, DocumentOptions, Unresolved, read_document};
use crate::printer::{KeyRow, LinkFrom, OutputFormat, Printer, RejectedRow};
use crate::stats::{InputFailure, RunStats};
pub(crate) use chunk::MAX_DOCUMENT;
use chunk::*;
use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use cut::*;
use encoding_rs::Encoding;
use late::*;
pub(crate) use late::{decides_late, detect_encoding_after_ascii, first_non_ascii};
use linksieve_dedup::Fingerprint;
use linksieve_dedup::{CommitPolicy, DedupError, SeenSet};
use linksieve_inputs::{Compression, InputSpec, decompress, open_file};
use linksieve_inputs::{RecordLinkKind, RecordLinks, WarcError, WarcHeader, WarcRecords};
use linksieve_iri::{Climb, InputMode, NormalizeError, Rung, WebUrl, web_to_iri};
use linksieve_scan::{EncodingChoice, Hit, HitRef, LinkKind, ScanOptions, Scanner};
use ranges::*;
pub(crate) use reader::fill;
use reader::*;
use schedule::*;
use sink::*;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use worker::*;

/// Options of a run.
///
/// ```
/// let o = linksieve_pipeline::RunOptions::default();
/// assert_eq!(o.chunk_size, 1 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (0: one per core); 1 runs everything on the calling thread.
    pub threads: usize,
    /// Bytes per chunk (at least 4 KiB).
    pub chunk_size: usize,
    /// Chunks alive at once (read, in work, or waiting for the sink); 0: 4 per thread.
    pub in_flight: usize,
    /// Scanner options (encoding choice, modes, maximum link length).
    pub scan: ScanOptions,
    /// How found links are read (3987bis 6); LEIRI by default, since links in running text often
    /// hold characters that only LEIRIs allow (`|`, `{`, `^`).
    pub input: InputMode,
    /// How links are keyed: the rung, the key form and the protocol rules, or a profile.
    pub keying: Keying,
    /// Read files as HTML (`--html`): their URL-valued attributes resolved against the base
    /// ([`crate::read_document`]), character references in links of the text undone. WARC
    /// responses with an HTML media type are read so without it.
    pub html: bool,
    /// The base URL of files read as HTML, and of WARC records without a target URI
    /// (`--base`): their relative links resolve against it.
    pub base: Option<WebUrl>,
    /// Key `javascript:`, `data:` and the other [`crate::NOT_KEYED_SCHEMES`] URLs of HTML
    /// attributes too (`--all-schemes`; counted, not keyed, by default).
    pub all_schemes: bool,
    /// Output format.
    pub format: OutputFormat,
    /// Write `key<TAB>count` at the end instead of keys as they come (first-occurrence order).
    pub counts: bool,
    /// Which WARC records are scanned.
    pub warc_records: WarcRecords,
    /// Key the links WARC responses state outside their HTML ([`linksieve_inputs::RecordLink`]:
    /// a redirect's `Location`, `Link` header fields, robots.txt `Sitemap:` lines) as outlinks
    /// of the record (on by default; `--no-record-links` turns it off).
    pub record_links: bool,
    /// Told of each input that cannot be read (or not to its end) when it happens, before the
    /// run ends (the CLI prints it to stderr at once); the failure is in the summary too.
    pub on_input_failure: Option<FailureHook>,
    /// When a durable seen-set records the keys it answered new, once they are delivered
    /// (`--commit`; see [`crate::seen::DEFAULT_COMMIT`]). `--counts` delivers at the end only.
    pub commit: CommitPolicy,
    /// The graph [`OutputFormat::Edges`] writes.
    pub edges: EdgeOptions,
}

/// What `--format edges` writes: the links of each HTML document (a file read with `--html`,
/// a WARC response) that has an address (its record's target URI, or `--base`) as edges from
/// the document's node to each link's node, each pair once with its count and link types;
/// and each visited page (the document, a WARC response, a WAT record of one) as a node, the
/// row `page<TAB>page<TAB>0<TAB>node`. Links in plain text have no source document and make no
/// edge. The seen-set is not asked: every edge is written, once, whatever earlier runs wrote.
///
/// ```
/// use linksieve_pipeline::{EdgeOptions, InputSpec, OutputFormat, RunOptions, run};
/// let dir = std::env::temp_dir().join(format!("ls-edges-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let page = dir.join("p.html");
/// std::fs::write(&page, "<a href=/a>a</a> <img src=//cdn.example.net/i.png> <a href=/a>again</a>").unwrap();
/// let opts = RunOptions {
///     html: true,
///     base: linksieve_iri::WebUrl::parse("http://example.com/").ok(),
///     format: OutputFormat::Edges,
///     edges: EdgeOptions { graph: linksieve_graph::Graph::Host, ..EdgeOptions::default() },
///     ..RunOptions::default()
/// };
/// let mut out = Vec::new();
/// run(&[InputSpec::File(page)], &opts, &mut linksieve_dedup::MemorySet::new(), &mut out, &Default::default(), &Default::default()).unwrap();
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "com.example\tcom.example\t0\tnode\ncom.example\tnet.example.cdn\t1\timg\n"
/// );
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct EdgeOptions {
    /// What a node is (`--graph`).
    pub graph: linksieve_graph::Graph,
    /// A leading `www.` of a host node (`--www`).
    pub www: linksieve_graph::Www,
    /// The edge set's memory budget (`--memory`): past it, sorted runs go to `temp_dir`.
    pub memory: usize,
    /// Where the edge set's runs go (the system's temporary folder when `None`).
    pub temp_dir: Option<std::path::PathBuf>,
}

impl Default for EdgeOptions {
    fn default() -> Self {
        EdgeOptions {
            graph: linksieve_graph::Graph::Page,
            www: linksieve_graph::Www::Keep,
            memory: crate::seen::DEFAULT_SPILL_BUDGET,
            temp_dir: None,
        }
    }
}

/// A callback for input failures as they happen (see [`RunOptions::on_input_failure`]).
///
/// ```
/// use linksieve_pipeline::{FailureHook, InputSpec, RunOptions, run};
/// use std::sync::{Arc, Mutex};
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let s = seen.clone();
/// let opts = RunOptions {
///     on_input_failure: Some(FailureHook::new(move |f| s.lock().unwrap().push(f.input.clone()))),
///     ..RunOptions::default()
/// };
/// let inputs = [InputSpec::File("/no/such/input".into())];
/// run(&inputs, &opts, &mut linksieve_dedup::MemorySet::new(), &mut Vec::new(), &Default::default(), &Default::default()).unwrap();
/// assert_eq!(*seen.lock().unwrap(), ["/no/such/input"]);
/// ```
#[derive(Clone)]
pub struct FailureHook(Arc<dyn Fn(&InputFailure) + Send + Sync>);

impl FailureHook {
    /// Wraps `f`.
    ///
    /// ```
    /// let h = linksieve_pipeline::FailureHook::new(|f| assert_eq!(f.input, "a"));
    /// h.call(&linksieve_pipeline::InputFailure { input: "a".into(), error: "gone".into() });
    /// ```
    pub fn new(f: impl Fn(&InputFailure) + Send + Sync + 'static) -> FailureHook {
        FailureHook(Arc::new(f))
    }

    /// Tells of one failure.
    ///
    /// ```
    /// let h = linksieve_pipeline::FailureHook::new(|_| {});
    /// h.call(&linksieve_pipeline::InputFailure::default());
    /// ```
    pub fn call(&self, f: &InputFailure) {
        (self.0)(f)
    }
}

impl std::fmt::Debug for FailureHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FailureHook")
    }
}

/// Records an input failure in `stats`, telling `hook` first.
pub(crate) fn record_failure(
    failures: &mut Vec<InputFailure>,
    hook: Option<&FailureHook>,
    f: InputFailure,
) {
    if let Some(h) = hook {
        h.call(&f);
    }
    failures.push(f);
}

impl RunOptions {
    /// The largest chunk: 256 MiB (a chunk and its look-ahead are held per chunk in flight).
    pub const MAX_CHUNK: usize = 256 << 20;
    /// The longest link: 16 MiB.
    pub const MAX_LINK_LEN: usize = 16 << 20;
    /// The most worker threads: 1024 (each holds up to four chunks).
    pub const MAX_THREADS: usize = 1024;

    /// Whether the options are in their ranges: `chunk_size` at most [`Self::MAX_CHUNK`]
    /// (below 4 KiB counts as 4 KiB), `scan.max_link_len` at most [`Self::MAX_LINK_LEN`],
    /// `threads` at most [`Self::MAX_THREADS`]. [`run`] checks them first, so an option out of
    /// range is an error, never an allocation that aborts or an overflow.
    ///
    /// ```
    /// use linksieve_pipeline::RunOptions;
    /// assert!(RunOptions::default().check().is_ok());
    /// let o = RunOptions { chunk_size: usize::MAX, ..RunOptions::default() };
    /// assert!(o.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), RunError> {
        let bad = |what: &str, v: usize, max: usize| {
            Err(RunError::Options(format!("{what} {v} is more than {max}")))
        };
        if self.chunk_size > Self::MAX_CHUNK {
            return bad("chunk size", self.chunk_size, Self::MAX_CHUNK);
        }
        if self.scan.max_link_len > Self::MAX_LINK_LEN {
            return bad("longest link", self.scan.max_link_len, Self::MAX_LINK_LEN);
        }
        if self.threads > Self::MAX_THREADS {
            return bad("threads", self.threads, Self::MAX_THREADS);
        }
        if cfg!(not(feature = "parquet")) && self.format == OutputFormat::Parquet {
            return Err(RunError::Options(
                "--format parquet: this linksieve was built without the `parquet` feature"
                    .to_owned(),
            ));
        }
        if self.format == OutputFormat::Parquet && self.counts {
            return Err(RunError::Options(
                "--counts writes text lines: it is for --format keys".to_owned(),
            ));
        }
        if self.format == OutputFormat::Edges && self.counts {
            return Err(RunError::Options(
                "edges are counted already: --counts is for keys".to_owned(),
            ));
        }
        Ok(())
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 0,
            chunk_size: 1 << 20,
            in_flight: 0,
            scan: ScanOptions::default(),
            input: InputMode::Leiri,
            keying: Keying::default(),
            html: false,
            base: None,
            all_schemes: false,
            format: OutputFormat::Keys,
            counts: false,
            warc_records: WarcRecords::Content,
            record_links: true,
            on_input_failure: None,
            commit: crate::seen::DEFAULT_COMMIT,
            edges: EdgeOptions::default(),
        }
    }
}

/// Why a run stopped.
///
/// ```
/// let e = linksieve_pipeline::RunError::Output(std::io::Error::other("disk full"));
/// assert!(e.to_string().contains("disk full"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing the output failed (a closed pipe included: the caller decides what that means).
    #[error("writing output: {0}")]
    Output(#[source] io::Error),
    /// The seen-set failed.
    #[error(transparent)]
    Dedup(#[from] DedupError),
    /// The edge set of `--format edges` could not write or read its sorted runs.
    #[error("the edge set: {0}")]
    Edges(#[source] linksieve_graph::GraphError),
    /// A worker thread could not be started.
    #[error("starting worker threads: {0}")]
    Threads(String),
    /// An option is outside its range (see [`RunOptions::check`]).
    #[error("invalid run options: {0}")]
    Options(String),
}

/// Shared progress counter (bytes read so far), for a progress bar.
pub type Progress = Arc<AtomicU64>;

/// Runs the whole job: reads `inputs`, writes new keys to `out`, returns the counters.
/// `cancel` stops reading (SIGINT); what was read is still processed and written.
///
/// ```
/// use linksieve_pipeline::{run, InputSpec, RunOptions};
/// let dir = std::env::temp_dir().join(format!("ls-run-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = dir.join("a.txt");
/// std::fs::write(&f, "see HTTP://Example.COM:80/a and http://example.com/a, or <http://example.com/b>").unwrap();
/// let mut out = Vec::new();
/// let stats = run(&[InputSpec::File(f)], &RunOptions::default(), &mut linksieve_dedup::MemorySet::new(), &mut out, &Default::default(), &Default::default()).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "http://example.com/a\nhttp://example.com/b\n");
/// assert_eq!((stats.links_found, stats.unique_keys, stats.duplicates), (3, 2, 1));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn run(
    inputs: &[InputSpec],
    opts: &RunOptions,
    dedup: &mut dyn SeenSet,
    out: &mut dyn Output,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    opts.check()?;
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let mut sink = Sink::new(opts, dedup, out);
    // the reader's counters, then the sink's (its failed inputs after the reader's)
    let result = if threads == 1 {
        sequential(inputs, opts, &mut sink, progress, cancel)
    } else {
        parallel(inputs, opts, threads, &mut sink, progress, cancel)
    }
    .and_then(|stats| sink.finish().map(|()| stats));
    match result {
        Ok(mut stats) => {
            stats += sink.take_stats();
            Ok(stats)
        }
        Err(e) => {
            if matches!(e, RunError::Output(_)) {
                sink.cut_partial();
            }
            Err(e)
        }
    }
}

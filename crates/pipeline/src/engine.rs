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

use crate::dedup::{Dedup, DedupError};
use crate::html::unescape_link;
use crate::keyer::Keyer;
use crate::keyer::keyable;
use crate::row::tsv;
use crate::source::{Compression, InputSpec, decompress, open_file};
use crate::stats::{InputFailure, RunStats};
use crate::warc::{self, Block, Payload, WarcError, WarcRecords, read_warc_header};
use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use encoding_rs::Encoding;
use linksieve_dedup::Fingerprint;
use linksieve_iri::{InputMode, KeyForm, Level, NormalizeError, NormalizeOptions};
use linksieve_scan::{EncodingChoice, Hit, HitRef, LinkKind, ScanOptions, Scanner};
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, BufRead, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What `linksieve run` writes for each new key.
///
/// ```
/// assert_eq!(linksieve_pipeline::OutputFormat::default(), linksieve_pipeline::OutputFormat::Keys);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// The key, one per line.
    #[default]
    Keys,
    /// The engine row of [`crate::write_row`]: `key<TAB>canonical<TAB>original<TAB>provenance`,
    /// with `key` the fingerprint in hex and `provenance` `INPUT:LINE:OFFSET` (or the WARC
    /// record's target URI); fields escaped with [`crate::tsv`].
    Tsv,
    /// One JSON object per new key: key, original, file, offset, line, provenance, and `rung`,
    /// the lowest rung at which the original (with its implied scheme, see
    /// [`crate::implied_scheme`]) already has this key. Diagnostics are objects too:
    /// `{"rejected", "error", "file", "offset", "line", "provenance"}` for a link without a key
    /// and `{"input", "error"}` for an input that could not be read.
    Jsonl,
}

impl OutputFormat {
    /// Whether the output shows line numbers: without them neither the reader nor the scanner
    /// counts lines (a pass over every input byte saved).
    fn shows_lines(self) -> bool {
        self != OutputFormat::Keys
    }
}

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
    /// The rung, the key form and the protocol rules.
    pub normalize: NormalizeOptions,
    /// Undo HTML character references in found links (`--html`).
    pub html: bool,
    /// Output format.
    pub format: OutputFormat,
    /// Write `key<TAB>count` at the end instead of keys as they come (first-occurrence order).
    pub counts: bool,
    /// Which WARC records are scanned.
    pub warc_records: WarcRecords,
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
            normalize: NormalizeOptions::default(),
            html: false,
            format: OutputFormat::Keys,
            counts: false,
            warc_records: WarcRecords::Content,
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
    /// A worker thread could not be started.
    #[error("starting worker threads: {0}")]
    Threads(String),
    /// An option is outside its range (see [`RunOptions::check`]).
    #[error("invalid run options: {0}")]
    Options(String),
}

/// Shared progress counter (bytes read so far), for a progress bar.
pub type Progress = Arc<AtomicU64>;

/// Where a link came from.
#[derive(Debug)]
struct StreamMeta {
    input: String,
    provenance: Option<String>,
}

/// One unit of work.
enum Job {
    /// Raw bytes to decode and scan: `bytes[..body]` is this chunk, the rest look-ahead.
    Scan {
        meta: Arc<StreamMeta>,
        bytes: Vec<u8>,
        body: usize,
        offset: u64,
        /// The stream's first chunk (its lines are counted from 1).
        stream_start: bool,
        encoding: &'static Encoding,
        /// The chunk starts inside a token (no clean cut before it): hits before its
        /// [`token_end`] belong to the previous chunk.
        mid_token: bool,
        /// The chunk after this one starts inside a token: this chunk takes the hits up to the
        /// [`token_end`] of its look-ahead.
        next_mid_token: bool,
        /// Where `bytes` goes when the chunk is scanned, for the reader to fill again.
        recycle: Sender<Vec<u8>>,
    },
    /// Range `k` of a plain file that the worker reads itself (see [`Reader::ranges`]).
    #[cfg(unix)]
    Range {
        meta: Arc<StreamMeta>,
        file: Arc<std::fs::File>,
        /// The file's first byte after the BOM, and its size when it was opened.
        start: u64,
        len: u64,
        k: u64,
        encoding: &'static Encoding,
        /// Buffers to read into and to give back.
        free: (Sender<Vec<u8>>, Receiver<Vec<u8>>),
    },
    /// Hits already found in order (sequential streams): normalize only.
    Hits {
        meta: Arc<StreamMeta>,
        hits: Vec<Hit>,
        offset: u64,
    },
}

/// One link, normalized. Its texts are ranges of its chunk's [`ChunkOut::text`]: a chunk's keys
/// cross to the sink (and are freed there) as one allocation, not one per link.
struct Item {
    fp: u128,
    /// `text[start..key_end]` is the key; `text[key_end..end]` the link as found, empty when the
    /// link is its own key.
    start: usize,
    key_end: usize,
    end: usize,
    offset: u64,
    line: u64,
    /// uri-form fingerprints at the rungs below the chosen one (string, syntax, scheme).
    lower: [u128; 3],
    /// The lowest rung whose key already equals the final one.
    reached: Level,
    /// The link came from a legacy encoding (keyed with NFC).
    legacy: bool,
    /// Later links of the same chunk with exactly this text: duplicates caught at the string
    /// rung, counted without being keyed again.
    repeats: u32,
}

/// A link without a key: counted by reason; listed in `--format jsonl`.
struct Rejected {
    reason: String,
    error: String,
    original: String,
    offset: u64,
    line: u64,
}

/// What a worker returns for a chunk.
#[derive(Default)]
struct ChunkOut {
    /// Where the chunk's links came from (`None` only for the reader's closing message).
    meta: Option<Arc<StreamMeta>>,
    /// The keys and originals of `items`, one after another.
    text: String,
    items: Vec<Item>,
    rejected: Vec<Rejected>,
    links: u64,
    malformed: u64,
    too_long: u64,
    /// The first chunk of a stream: the sink counts lines from 1 again.
    stream_start: bool,
    /// Line feeds in the chunk (counted only when the output shows lines). Item lines are
    /// counted from the chunk's first byte; the sink adds the lines of the stream's earlier
    /// chunks, in sequence order.
    body_lines: u64,
    /// The input could not be read to its end (a range read failed or came up short).
    failed: Option<InputFailure>,
    stats: Option<RunStats>,
}

impl ChunkOut {
    /// The heap bytes the chunk holds while its items wait for decisions (counted against a
    /// spill set's budget), one byte of decision per item included.
    fn held_bytes(&self) -> usize {
        self.text.capacity()
            + self.items.capacity() * std::mem::size_of::<Item>()
            + self.items.len()
            + self.rejected.capacity() * std::mem::size_of::<Rejected>()
            + self
                .rejected
                .iter()
                .map(|r| r.reason.capacity() + r.error.capacity() + r.original.capacity())
                .sum::<usize>()
    }

    fn key(&self, item: &Item) -> &str {
        &self.text[item.start..item.key_end]
    }

    /// The link as found.
    fn original(&self, item: &Item) -> &str {
        if item.end > item.key_end {
            &self.text[item.key_end..item.end]
        } else {
            self.key(item)
        }
    }
}

/// Hashes of the texts keyed so far in a chunk -> their item, to count exact repeats without
/// keying them again. The hash is checked against the stored text (no false merges). One per
/// worker thread ([`REPEATS`]): it is not needed once the chunk is worked, so it does not wait
/// with the chunk for the chunk's decisions.
#[derive(Default)]
struct Repeats(std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<Prehashed>>);

thread_local! {
    /// The worker thread's [`Repeats`], emptied after each chunk and reused.
    static REPEATS: std::cell::RefCell<Repeats> = Default::default();
}

/// A chunk's growable buffers, handed back by the sink when it is done with the chunk and
/// reused by the next job (fresh ones fault in new pages for every chunk: `run -j1` on the
/// 324 MB URL list took 78 K to 353 K page faults, depending on the allocator's mmap threshold,
/// and 13 K with the pool).
#[derive(Default)]
struct Spare {
    text: String,
    items: Vec<Item>,
    rejected: Vec<Rejected>,
}

/// The pool of [`Spare`]s: the sink sends, jobs take (or start empty when none is there). It
/// holds at most as many as there are chunks in flight ([`Sink::spare_limit`]): the chunks
/// that waited for a spill set's decisions are freed, not pooled.
type Spares = (Sender<Spare>, Receiver<Spare>);

/// The identity hasher for keys that are already hashes.
#[derive(Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed here; fold anything else for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Runs the whole job: reads `inputs`, writes new keys to `out`, returns the counters.
/// `cancel` stops reading (SIGINT); what was read is still processed and written.
///
/// ```
/// use linksieve_pipeline::{run, InputSpec, RunOptions, dedup::MemoryDedup};
/// let dir = std::env::temp_dir().join(format!("ls-run-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = dir.join("a.txt");
/// std::fs::write(&f, "see HTTP://Example.COM:80/a and http://example.com/a, or <http://example.com/b>").unwrap();
/// let mut out = Vec::new();
/// let stats = run(&[InputSpec::File(f)], &RunOptions::default(), &mut MemoryDedup::default(), &mut out, &Default::default(), &Default::default()).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "http://example.com/a\nhttp://example.com/b\n");
/// assert_eq!((stats.links_found, stats.unique_keys, stats.duplicates), (3, 2, 1));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn run(
    inputs: &[InputSpec],
    opts: &RunOptions,
    dedup: &mut dyn Dedup,
    out: &mut dyn Write,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    opts.check()?;
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let mut stats = RunStats::default();
    let mut sink = Sink::new(opts, dedup, out);
    let reader_stats = if threads == 1 {
        sequential(inputs, opts, &mut sink, progress, cancel)?
    } else {
        parallel(inputs, opts, threads, &mut sink, progress, cancel)?
    };
    sink.finish()?;
    stats.merge_reader(reader_stats);
    sink.fill(&mut stats);
    Ok(stats)
}

/// One thread (`-j1`): the reader hands each chunk to the worker code and then to the sink on
/// the calling thread, in order; no queue, no hand-off (like ripgrep's `-j1`). For one process
/// per core, as the Spark driver runs it.
fn sequential(
    inputs: &[InputSpec],
    opts: &RunOptions,
    sink: &mut Sink<'_>,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    let spares = sink.spares.1.clone();
    let mut r = Reader::new(opts, Dispatch::Inline(sink), spares, progress, cancel);
    r.read_all(inputs);
    let (stats, error) = (std::mem::take(&mut r.stats), r.error.take());
    drop(r);
    // The calling thread's repeat table is not kept past the run.
    drop(REPEATS.take());
    if let Some(e) = error {
        return Err(e);
    }
    sink.reader_done(&stats)?;
    Ok(stats)
}

/// `threads` workers: the reader on its own thread, rayon workers, the sink on the calling
/// thread taking chunk results in sequence order.
fn parallel(
    inputs: &[InputSpec],
    opts: &RunOptions,
    threads: usize,
    sink: &mut Sink<'_>,
    progress: &Progress,
    cancel: &Arc<AtomicBool>,
) -> Result<RunStats, RunError> {
    let in_flight = if opts.in_flight == 0 {
        4 * threads
    } else {
        opts.in_flight
    }
    .max(2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("linksieve-worker-{i}"))
        .build()
        .map_err(|e| RunError::Threads(e.to_string()))?;
    let (token_tx, token_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (result_tx, result_rx) = unbounded::<(u64, ChunkOut)>();
    sink.spare_limit = in_flight;
    std::thread::scope(|scope| -> Result<RunStats, RunError> {
        let reader_tx = result_tx.clone();
        let (pool, token_rx) = (&pool, &token_rx);
        let spares = sink.spares.1.clone();
        let reader = scope.spawn(move || {
            let dispatch = Dispatch::Pool {
                pool,
                token_rx,
                result_tx: reader_tx,
            };
            let mut r = Reader::new(opts, dispatch, spares, progress, cancel);
            r.read_all(inputs);
            // The last message carries the reader's counters.
            let seq = r.seq;
            let stats = std::mem::take(&mut r.stats);
            if let Dispatch::Pool { result_tx, .. } = &r.dispatch {
                let _ = result_tx.send((
                    seq,
                    ChunkOut {
                        stats: Some(stats),
                        ..ChunkOut::default()
                    },
                ));
            }
            drop(r);
        });
        drop(result_tx);
        let res = sink.consume(&result_rx, &token_tx);
        if res.is_err() {
            // Stop the reader: it waits for tokens that the sink no longer returns.
            cancel.store(true, Ordering::Relaxed);
            for _ in 0..in_flight {
                let _ = token_tx.try_send(());
            }
            // Drain so that workers can finish.
            while result_rx.recv().is_ok() {
                let _ = token_tx.try_send(());
            }
        }
        let _ = reader.join();
        res
    })
}

impl RunStats {
    fn merge_reader(&mut self, r: RunStats) {
        self.inputs = r.inputs;
        self.inputs_failed = r.inputs_failed;
        self.bytes_read = r.bytes_read;
        self.bytes_skipped = r.bytes_skipped;
        self.payload_codings = r.payload_codings;
        self.encodings = r.encodings;
        self.interrupted = r.interrupted;
        // what the reader scanned itself (UTF-16, ISO-2022-JP streams); the sink adds the
        // workers' counts
        self.malformed_sequences += r.malformed_sequences;
        self.too_long += r.too_long;
    }
}

/// The reader's state.
struct Reader<'a, 's> {
    opts: &'a RunOptions,
    dispatch: Dispatch<'a, 's>,
    /// Chunk buffers the workers are done with (reused: fresh large buffers cost page faults).
    free: (Sender<Vec<u8>>, Receiver<Vec<u8>>),
    /// Chunk result buffers the sink is done with.
    spares: Receiver<Spare>,
    /// The sink's error, inline: it stops the reading.
    error: Option<RunError>,
    seq: u64,
    stats: RunStats,
    progress: &'a Progress,
    cancel: &'a Arc<AtomicBool>,
}

/// Encodings whose bytes can be cut at LF and SP without decoding: every WHATWG encoding but
/// UTF-16 and ISO-2022-JP (and `replacement`, which decodes to one U+FFFD).
fn cuttable(enc: &'static Encoding) -> bool {
    enc != encoding_rs::UTF_16LE
        && enc != encoding_rs::UTF_16BE
        && enc != encoding_rs::ISO_2022_JP
        && enc != encoding_rs::REPLACEMENT
}

/// Where the reader's chunks go.
enum Dispatch<'a, 's> {
    /// To rayon workers, at most `in_flight` chunks alive (tokens), results to the sink's queue.
    Pool {
        pool: &'a rayon::ThreadPool,
        token_rx: &'a Receiver<()>,
        result_tx: Sender<(u64, ChunkOut)>,
    },
    /// Worked and sunk at once on this thread.
    Inline(&'a mut Sink<'s>),
}

impl<'a, 's> Reader<'a, 's> {
    fn new(
        opts: &'a RunOptions,
        dispatch: Dispatch<'a, 's>,
        spares: Receiver<Spare>,
        progress: &'a Progress,
        cancel: &'a Arc<AtomicBool>,
    ) -> Self {
        Reader {
            opts,
            dispatch,
            free: unbounded(),
            spares,
            error: None,
            seq: 0,
            stats: RunStats::default(),
            progress,
            cancel,
        }
    }

    fn read_all(&mut self, inputs: &[InputSpec]) {
        for spec in inputs {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            self.input(spec);
        }
    }

    fn input(&mut self, spec: &InputSpec) {
        let name = spec.name();
        // Each input is opened once (a FIFO or `/dev/fd/N` cannot be opened again without
        // losing what its writer sent): the range path gets the handle and gives it back when
        // the input is not a plain file it can read in ranges.
        let reader: Box<dyn Read + Send> = match spec {
            InputSpec::Stdin => Box::new(io::stdin()),
            InputSpec::File(path) => match open_file(path) {
                #[cfg(unix)]
                Ok(file) => match self.ranges(file, &name) {
                    Ok(()) => return,
                    Err(file) => Box::new(file),
                },
                #[cfg(not(unix))]
                Ok(file) => Box::new(file),
                Err(e) => return self.failed(name, &e),
            },
        };
        let (r, _compression) = match decompress(reader) {
            Ok(x) => x,
            Err(e) => return self.failed(name, &e),
        };
        let mut r = Counted {
            inner: r,
            progress: self.progress.clone(),
            count: 0,
        };
        // A first read that fails (a damaged gzip header) fails the input: a decoder may
        // answer "end" to the reads after its error, which would read as an empty input.
        let is_warc = match r.fill_buf() {
            Ok(b) => b.starts_with(b"WARC/"),
            Err(e) => return self.failed(name, &e),
        };
        self.stats.inputs += 1;
        let result = if is_warc {
            self.warc(&name, &mut r)
        } else {
            let meta = Arc::new(StreamMeta {
                input: name.clone(),
                provenance: None,
            });
            self.stream(&meta, &mut r, 0, self.opts.scan.encoding)
                .map(|_| ())
                .map_err(WarcError::Io)
        };
        self.stats.bytes_read += r.count;
        if let Err(e) = result {
            self.stats.inputs_failed.push(InputFailure {
                input: name,
                error: e.to_string(),
            });
        }
    }

    /// A plain file (uncompressed, not WARC) in an encoding that can be cut: its chunks are
    /// ranges that the workers read themselves (`pread`, see [`read_range`]); the reader only
    /// decides the encoding and hands out range numbers. So no thread copies input for another,
    /// and each chunk is scanned on the core that read it. A file is read up to the size it had
    /// when it was opened. Gives the file back, having counted nothing, when it takes the
    /// streaming path instead: not a regular file, compressed, WARC, an encoding that cannot be
    /// cut (UTF-16, ISO-2022-JP), or an error (which the streaming path then reports). `pread`
    /// does not move the file's offset, so the streaming path reads it from its start.
    #[cfg(unix)]
    fn ranges(&mut self, file: std::fs::File, name: &str) -> Result<(), std::fs::File> {
        let len = match file.metadata() {
            Ok(m) if m.is_file() => m.len(),
            _ => return Err(file),
        };
        let mut head = vec![0u8; (linksieve_scan::AUTO_WINDOW as u64).min(len) as usize];
        if !matches!(pread_full(&file, &mut head, 0), Ok(n) if n == head.len()) {
            return Err(file);
        }
        if Compression::sniff(&head) != Compression::None || head.starts_with(b"WARC/") {
            return Err(file);
        }
        let whole = head.len() as u64 == len;
        let (encoding, bom) =
            linksieve_scan::detect_encoding(self.opts.scan.encoding, &head, whole)
                .unwrap_or((encoding_rs::UTF_8, 0));
        if !cuttable(encoding) {
            return Err(file);
        }
        self.stats.inputs += 1;
        *self.stats.encodings.entry(encoding.name()).or_default() += 1;
        let start = bom as u64;
        self.stats.skip("byte order marks", start);
        self.stats.bytes_read += start;
        self.progress.fetch_add(start, Ordering::Relaxed);
        let meta = Arc::new(StreamMeta {
            input: name.to_owned(),
            provenance: None,
        });
        let file = Arc::new(file);
        let chunk = self.opts.chunk_size.max(4096) as u64;
        let mut k = 0;
        while start + k * chunk < len {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            self.submit(Job::Range {
                meta: meta.clone(),
                file: file.clone(),
                start,
                len,
                k,
                encoding,
                free: self.free.clone(),
            });
            let n = chunk.min(len - start - k * chunk);
            self.stats.bytes_read += n;
            self.progress.fetch_add(n, Ordering::Relaxed);
            k += 1;
        }
        Ok(())
    }

    /// An input that could not be opened or read from its start.
    fn failed(&mut self, input: String, e: &io::Error) {
        self.stats.inputs_failed.push(InputFailure {
            input,
            error: e.to_string(),
        });
    }

    /// A WARC (or WET) file, record by record (see [`crate::warc`]): each scanned payload is a
    /// stream, decoded with the charset its headers declare (else `--encoding`); the rest is
    /// counted as skipped. A payload that cannot be decoded (a damaged gzip body, a chunk cut
    /// short) is scanned up to the damage and reported as a failure of the input naming the
    /// record; the next record is read, since its place is known from `Content-Length`. A block
    /// that ends before its `Content-Length` ends the input with an error.
    fn warc(&mut self, name: &str, mut r: &mut dyn BufRead) -> Result<(), WarcError> {
        let mut offset = 0u64;
        while let Some(h) = read_warc_header(&mut r)? {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                return Ok(());
            }
            let record_at = offset;
            offset += h.header_len;
            self.stats.skip("WARC record headers", h.header_len);
            let mut block = Block::new(r, h.content_length);
            let (skipped, failure) = match warc::payload(&h, &mut block, self.opts.warc_records) {
                Ok(Payload::Skip(why)) => (Some(why), None),
                Ok(Payload::Scan {
                    head_len,
                    charset,
                    codings,
                    undeclared,
                    mut reader,
                }) => {
                    self.stats.skip("HTTP response headers", head_len);
                    for c in codings {
                        self.stats.coding(c.to_owned());
                    }
                    for c in undeclared {
                        self.stats
                            .coding(format!("{c} declared, body not so (read as it is)"));
                    }
                    let meta = Arc::new(StreamMeta {
                        input: name.to_owned(),
                        provenance: h.target_uri.clone(),
                    });
                    let choice = charset
                        .map(EncodingChoice::Fixed)
                        .unwrap_or(self.opts.scan.encoding);
                    let scanned = self.stream(&meta, &mut reader, offset + head_len, choice);
                    (None, scanned.err())
                }
                Err(e) => (None, Some(e)),
            };
            let rest = block.drain()?;
            let short = block.left();
            offset += h.content_length - short;
            if short > 0 {
                return Err(WarcError::Truncated {
                    offset: record_at,
                    declared: h.content_length,
                    read: h.content_length - short,
                });
            }
            if let Some(why) = skipped {
                self.stats.skip(&why, rest);
                continue;
            }
            let Some(e) = failure else {
                self.stats
                    .skip("WARC blocks after their payload's end", rest);
                continue;
            };
            self.stats
                .skip("WARC payloads after a decoding error", rest);
            if h.truncated.is_some() {
                // The crawler cut it (WARC-Truncated): its codings end early by design.
                self.stats.coding("cut short (WARC-Truncated)".to_owned());
            } else {
                self.stats.inputs_failed.push(InputFailure {
                    input: name.to_owned(),
                    error: format!(
                        "WARC record at byte {record_at} ({}): {e}",
                        h.target_uri.as_deref().unwrap_or("no target URI")
                    ),
                });
            }
        }
        Ok(())
    }

    /// Takes a token (waits while `in_flight` chunks are alive) and gives the job a sequence
    /// number.
    fn submit(&mut self, job: Job) {
        match &mut self.dispatch {
            Dispatch::Pool {
                pool,
                token_rx,
                result_tx,
            } => {
                if token_rx.recv().is_err() {
                    return;
                }
                let seq = self.seq;
                self.seq += 1;
                let tx = result_tx.clone();
                let opts = self.opts.clone();
                let spares = self.spares.clone();
                pool.spawn(move || {
                    let out = work(job, &opts, &spares);
                    let _ = tx.send((seq, out));
                });
            }
            Dispatch::Inline(sink) => {
                if self.error.is_some() {
                    return;
                }
                if let Err(e) = sink.chunk(work(job, self.opts, &self.spares)) {
                    self.error = Some(e);
                    // Stop reading: nothing more can be written.
                    self.cancel.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Reads one stream to its end, cutting it into chunks; returns the bytes read.
    fn stream(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut dyn BufRead,
        base: u64,
        choice: EncodingChoice,
    ) -> io::Result<u64> {
        // A read error (truncated compression, a vanished file) ends the stream like its end, so
        // that what was read before it is still scanned; the error is reported after that.
        let mut fused = Fused {
            inner: r,
            err: None,
        };
        let total = self.stream_fused(meta, &mut fused, base, choice)?;
        match fused.err {
            Some(e) => Err(e),
            None => Ok(total),
        }
    }

    fn stream_fused(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut dyn BufRead,
        base: u64,
        choice: EncodingChoice,
    ) -> io::Result<u64> {
        let chunk = self.opts.chunk_size.max(4096);
        let tail = self.opts.scan.max_link_len.max(64);
        // a chunk's look-ahead is `tail`, twice that before a cut inside a token (see
        // `Worker::scan`)
        let mut buf: Vec<u8> = Vec::with_capacity(chunk + 2 * tail);
        let mut eof = false;
        // Decide the encoding on the first 64 KiB, as the scanner would.
        while buf.len() < linksieve_scan::AUTO_WINDOW && !eof {
            eof = fill(r, &mut buf, linksieve_scan::AUTO_WINDOW)?;
        }
        let (encoding, bom) =
            linksieve_scan::detect_encoding(choice, &buf, eof).unwrap_or((encoding_rs::UTF_8, 0));
        *self.stats.encodings.entry(encoding.name()).or_default() += 1;
        let mut total = buf.len() as u64;
        if !cuttable(encoding) {
            return self.sequential(meta, r, buf, eof, base, encoding, total);
        }
        buf.drain(..bom);
        self.stats.skip("byte order marks", bom as u64);
        let mut offset = base + bom as u64;
        let mut stream_start = true;
        let mut mid_token = false;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            while !eof && buf.len() < chunk + 2 * tail {
                let before = buf.len();
                eof = fill(r, &mut buf, chunk + 2 * tail)?;
                total += (buf.len() - before) as u64;
            }
            if buf.is_empty() {
                break;
            }
            let (cut, clean) = if eof && buf.len() <= chunk {
                (buf.len(), true)
            } else {
                cut_point(&buf[..chunk], encoding)
            };
            let end = (cut + if clean { tail } else { 2 * tail }).min(buf.len());
            // The chunk takes the buffer; what follows the cut moves to a recycled one.
            let mut next = self.free.1.try_recv().unwrap_or_default();
            next.clear();
            next.reserve(chunk + 2 * tail);
            next.extend_from_slice(&buf[cut..]);
            let mut bytes = std::mem::replace(&mut buf, next);
            bytes.truncate(end);
            let job = Job::Scan {
                meta: meta.clone(),
                bytes,
                body: cut,
                offset,
                stream_start,
                encoding,
                mid_token,
                next_mid_token: !clean,
                recycle: self.free.0.clone(),
            };
            self.submit(job);
            stream_start = false;
            offset += cut as u64;
            mid_token = !clean;
            if eof && buf.is_empty() {
                break;
            }
        }
        Ok(total)
    }

    /// Streams that cannot be cut without decoding: scanned here, in order; normalized by workers.
    #[allow(clippy::too_many_arguments)]
    fn sequential(
        &mut self,
        meta: &Arc<StreamMeta>,
        r: &mut dyn BufRead,
        mut buf: Vec<u8>,
        mut eof: bool,
        base: u64,
        encoding: &'static Encoding,
        mut total: u64,
    ) -> io::Result<u64> {
        // decode_all: the summary counts every malformed sequence, not only those near links.
        let mut scanner = Scanner::new(&ScanOptions {
            encoding: EncodingChoice::Fixed(encoding),
            decode_all: true,
            lines: self.opts.format.shows_lines(),
            html: self.opts.html,
            ..self.opts.scan
        });
        let mut hits = Vec::new();
        let mut noted = linksieve_scan::ScanStats::default();
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                self.stats.interrupted = true;
                break;
            }
            // Feeding cannot fail before `finish`.
            let _ = scanner.feed(&buf, &mut hits);
            buf.clear();
            if eof {
                let _ = scanner.finish(&mut hits);
            }
            let s = *scanner.stats();
            if !hits.is_empty() || eof {
                let job = Job::Hits {
                    meta: meta.clone(),
                    hits: std::mem::take(&mut hits),
                    offset: base,
                };
                self.submit(job);
                self.stats.malformed_sequences += s.malformed_sequences - noted.malformed_sequences;
                self.stats.too_long += s.too_long - noted.too_long;
                noted = s;
            }
            if eof {
                break;
            }
            let before = buf.len();
            eof = fill(r, &mut buf, 1 << 20)?;
            total += (buf.len() - before) as u64;
        }
        Ok(total)
    }
}

/// Counts the bytes consumed from an input (after decompression), for the summary and the
/// progress bar.
struct Counted {
    inner: Box<dyn BufRead + Send>,
    progress: Progress,
    count: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.count += n as u64;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        self.inner.consume(n);
    }
}

/// A reader that reports its first error as the end of the input and keeps the error.
struct Fused<'a> {
    inner: &'a mut dyn BufRead,
    err: Option<io::Error>,
}

impl Read for Fused<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.err.is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => {
                self.err = Some(e);
                Ok(0)
            }
            r => r,
        }
    }
}

impl BufRead for Fused<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.err.is_some() {
            return Ok(&[]);
        }
        match self.inner.fill_buf() {
            // Asked again to return the borrow: the buffer is full, so nothing is read twice.
            Ok(_) => self.inner.fill_buf(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.err = Some(e);
                Ok(&[])
            }
        }
    }
    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

/// Reads until `buf` holds `want` bytes or the input ends; returns true at the end (on an
/// error, `buf` keeps what was read before it). Reads straight into `buf`: a `BufReader` with
/// nothing buffered passes a read this large through to the file, so the input is not copied
/// once more through the reader's own buffer.
pub(crate) fn fill(r: &mut dyn BufRead, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    let mut len = buf.len();
    if len >= want {
        return Ok(false);
    }
    buf.resize(want, 0);
    let res = loop {
        if len == want {
            break Ok(false);
        }
        match r.read(&mut buf[len..]) {
            Ok(0) => break Ok(true),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    buf.truncate(len);
    res
}

/// Where to cut a chunk of raw bytes: [`cut_in`] its second half.
fn cut_point(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
    let half = w.len() / 2;
    let (cut, clean) = cut_in(&w[half..], enc);
    ((half + cut).max(1), clean)
}

/// Where to cut in the window `w`: after its last LF, else after its last space or tab, else
/// (a very long line without spaces: minified JSON, CR-only or NUL-separated text) at its last
/// [`hard_boundary`] byte, else after the last byte below 0x30, which is never a trail
/// byte of a WHATWG multi-byte encoding (gb18030 uses 0x30-0x39 as trail bytes), or at a UTF-8
/// character boundary; at the window's end when there is none of these. The flag says whether
/// the cut is clean: no link crosses it and no link start depends on a byte before it, so the
/// next chunk keeps every hit it finds.
fn cut_in(w: &[u8], enc: &'static Encoding) -> (usize, bool) {
    if let Some(p) = memchr::memrchr(b'\n', w) {
        return (p + 1, true);
    }
    if let Some(p) = memchr::memrchr2(b' ', b'\t', w) {
        return (p + 1, true);
    }
    // the rare path (a window of 8-512 KiB with no space): one pass backwards
    if let Some(p) = w.iter().rposition(|&b| hard_boundary(b)) {
        // a line break is cut after, as LF; the others before, so that the next chunk sees
        // the `<` or `"` a link after it may be wrapped in
        return (
            if matches!(w[p], b'\r' | 0x0b | 0x0c) {
                p + 1
            } else {
                p
            },
            true,
        );
    }
    let cut = if enc == encoding_rs::UTF_8 {
        (0..w.len())
            .rev()
            .find(|&i| w[i] & 0xC0 != 0x80)
            .unwrap_or(w.len())
    } else if enc.is_single_byte() {
        w.len()
    } else {
        w.iter().rposition(|&b| b < 0x30).map_or(w.len(), |p| p + 1)
    };
    (cut, false)
}

/// A byte that no link of the boundary table holds in any ASCII-compatible encoding, inside a
/// `<…>` wrapper too (`crates/scan/src/boundary.rs`: C0 controls are `Stop` or line breaks,
/// `"` `<` `>` are `Stop` and never `wrapper_char`s) and that is never a trail byte of a WHATWG
/// multi-byte encoding (all are below 0x40): a link ends before it, and the scanner's look-backs
/// (scheme, e-mail local part, host) stop at it, so a chunk may be cut there cleanly.
fn hard_boundary(b: u8) -> bool {
    b < 0x20 || matches!(b, b'"' | b'<' | b'>')
}

/// Where a chunk that starts inside a token may take hits from: after the first space, tab,
/// line end or [`hard_boundary`] byte of `bytes` (hits before it may be the tail of a link that
/// crossed the cut, which the chunk before found whole), `bytes.len()` when there is none.
fn token_end(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| b == b' ' || hard_boundary(b))
        .unwrap_or(bytes.len())
}

/// A worker's job: scan (if needed) and normalize.
fn work(job: Job, opts: &RunOptions, spares: &Receiver<Spare>) -> ChunkOut {
    let spare = spares.try_recv().unwrap_or_default();
    let mut w = Worker {
        opts,
        keyer: Keyer::new(opts.input, &opts.normalize),
        out: ChunkOut {
            text: spare.text,
            items: spare.items,
            rejected: spare.rejected,
            ..ChunkOut::default()
        },
        repeats: REPEATS.take(),
        scratch: Default::default(),
        implied: String::new(),
    };
    match job {
        Job::Hits { meta, hits, offset } => {
            w.out.meta = Some(meta);
            // the sequential scanner counted the lines from the stream's start
            w.out.stream_start = true;
            for h in hits {
                w.link(
                    &h.text,
                    &h.trimmed.trailing,
                    h.kind,
                    h.from_legacy,
                    offset + h.start,
                    h.line,
                );
            }
        }
        Job::Scan {
            meta,
            bytes,
            body,
            offset,
            stream_start,
            encoding,
            mid_token,
            next_mid_token,
            recycle,
        } => {
            w.out.meta = Some(meta);
            w.out.stream_start = stream_start;
            w.scan(&bytes, body, offset, encoding, (mid_token, next_mid_token));
            let _ = recycle.send(bytes);
        }
        #[cfg(unix)]
        Job::Range {
            meta,
            file,
            start,
            len,
            k,
            encoding,
            free,
        } => {
            w.out.stream_start = k == 0;
            let mut buf = free.1.try_recv().unwrap_or_default();
            match read_range(&file, start, len, k, encoding, opts, &mut buf) {
                Ok(r) => w.scan(
                    &buf[r.from..r.to],
                    r.body,
                    r.offset,
                    encoding,
                    (r.mid_token, r.next_mid_token),
                ),
                Err(e) => {
                    w.out.failed = Some(InputFailure {
                        input: meta.input.clone(),
                        error: e.to_string(),
                    })
                }
            }
            w.out.meta = Some(meta);
            let _ = free.0.send(buf);
        }
    }
    let Worker {
        out, mut repeats, ..
    } = w;
    repeats.0.clear();
    REPEATS.set(repeats);
    out
}

/// Reads `buf.len()` bytes of `file` from offset `at`, fewer where the file ends first;
/// returns how many.
#[cfg(unix)]
fn pread_full(file: &std::fs::File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A range's chunk in its buffer: `buf[from..to]`, of which the first `body` bytes are the
/// chunk (the rest look-ahead), starting at input offset `offset`.
#[cfg(unix)]
struct RangeChunk {
    from: usize,
    to: usize,
    body: usize,
    offset: u64,
    mid_token: bool,
    next_mid_token: bool,
}

/// Bytes before a range's nominal start in which its cut is looked for (see [`Reader::ranges`]).
#[cfg(unix)]
fn cut_window(chunk: u64) -> u64 {
    (chunk / 2).min(16 << 10)
}

/// Reads range `k` of a file (from `start`, `len` bytes at opening) into `buf` and finds its
/// chunk. Range `k` nominally covers `start + k * C .. start + (k + 1) * C` (C the chunk size);
/// its chunk runs from the cut before its nominal start to the cut before its nominal end, each
/// found by [`cut_in`] in the [`cut_window`] bytes before the nominal boundary, so that two
/// neighbouring ranges agree on their common cut without knowing each other. A file that ended
/// before its size at opening is an error (what was read is not scanned twice: the chunks
/// before it were already).
#[cfg(unix)]
fn read_range(
    file: &std::fs::File,
    start: u64,
    len: u64,
    k: u64,
    encoding: &'static Encoding,
    opts: &RunOptions,
    buf: &mut Vec<u8>,
) -> io::Result<RangeChunk> {
    let chunk = opts.chunk_size.max(4096) as u64;
    let tail = opts.scan.max_link_len.max(64) as u64;
    let window = cut_window(chunk);
    let nominal = start + k * chunk;
    let next = (nominal + chunk).min(len);
    let from = if k == 0 { start } else { nominal - window };
    // look-ahead: `tail`, twice that before a cut inside a token (see `Worker::scan`)
    let to = (next + 2 * tail).min(len);
    // no clear(): a reused buffer is zeroed only where it grows (a memset of every chunk
    // before the read overwrites it was 2% of `run` on sparse text)
    buf.resize((to - from) as usize, 0);
    let got = pread_full(file, buf, from)?;
    buf.truncate(got);
    // A short read that still covers the range is scanned (only its look-ahead is short: the
    // next range reports the file); one that does not is the error.
    if (got as u64) < next - from {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the file ended at byte {} while it was read ({len} bytes when opened)",
                from + got as u64
            ),
        ));
    }
    let len = len.min(from + got as u64);
    // the cut at a nominal boundary `b` (after `start`): in the window before it
    let cut = |b: u64| -> (u64, bool) {
        let lo = b - window;
        let (c, clean) = cut_in(&buf[(lo - from) as usize..(b - from) as usize], encoding);
        (lo + c as u64, clean)
    };
    let (c0, clean0) = if k == 0 { (start, true) } else { cut(nominal) };
    let (c1, clean1) = if next == len { (len, true) } else { cut(next) };
    Ok(RangeChunk {
        from: (c0 - from) as usize,
        to: ((c1 + if clean1 { tail } else { 2 * tail }).min(len) - from) as usize,
        body: (c1 - c0) as usize,
        offset: c0,
        mid_token: !clean0,
        next_mid_token: !clean1,
    })
}

/// Malformed sequences in UTF-8 bytes, as a WHATWG decoder counts them (one U+FFFD for each
/// maximal subpart, as `String::from_utf8_lossy` and encoding_rs replace them).
fn malformed_utf8(mut b: &[u8]) -> u64 {
    // valid input, the common case, is checked with SIMD (several times the speed of
    // `str::from_utf8` on ASCII); only invalid input is walked sequence by sequence
    if simdutf8::basic::from_utf8(b).is_ok() {
        return 0;
    }
    let mut n = 0;
    while let Err(e) = std::str::from_utf8(b) {
        n += 1;
        match e.error_len() {
            Some(len) => b = &b[e.valid_up_to() + len..],
            // a sequence cut off by the end
            None => break,
        }
    }
    n
}

/// A worker's state for one chunk.
struct Worker<'a> {
    opts: &'a RunOptions,
    keyer: Keyer,
    out: ChunkOut,
    repeats: Repeats,
    /// The final key in `uri` form (when the chosen form is another) and a lower rung's key.
    scratch: [String; 2],
    /// A find without a scheme, with its implied one (`keyer::keyable`).
    implied: String,
}

impl Worker<'_> {
    /// Scans one chunk of a stream: `bytes[..body]` is the chunk, the rest look-ahead; it starts
    /// at input offset `offset`; `mid_token` says whether it starts inside a token, and
    /// whether the next chunk does.
    fn scan(
        &mut self,
        bytes: &[u8],
        body: usize,
        offset: u64,
        encoding: &'static Encoding,
        (mid_token, next_mid_token): (bool, bool),
    ) {
        let opts = self.opts;
        let lines = opts.format.shows_lines();
        // UTF-8 is scanned in place (decoded only around candidates: no copy of the chunk)
        // and validated on its own for the count of malformed sequences; other encodings are
        // decoded whole, which counts them.
        let utf8 = encoding == encoding_rs::UTF_8;
        let mut scanner = Scanner::new(&ScanOptions {
            encoding: EncodingChoice::Exact(encoding),
            decode_all: !utf8,
            lines,
            html: opts.html,
            ..opts.scan
        });
        // Which hits are this chunk's. At a clean cut, those that start before it. At a cut
        // inside a token (no clean cut in the window, see `cut_in`), a hit that starts just
        // after the cut may be the tail of a link that crossed it, which the chunk before
        // found whole in its look-ahead: the hits from the cut to the token's end, or to
        // `tail` bytes after the cut where the token is longer, belong to the chunk before,
        // so that every start is owned by exactly one chunk and none is lost (issue #18 item
        // 1: minified text, CR-only and NUL-separated lines). The chunk before a cut inside a
        // token gets twice the look-ahead, so that a link it owns that starts up to `tail`
        // bytes after the cut is found whole. (A hit after `tail` bytes of a token cannot be
        // the tail of a link that crossed the cut: links are at most `tail` bytes long.)
        let tail = opts.scan.max_link_len.max(64);
        let token_end = |b: &[u8]| token_end(&b[..b.len().min(tail)]);
        let from = if mid_token { token_end(bytes) } else { 0 } as u64;
        let until = if next_mid_token {
            body + token_end(&bytes[body..])
        } else {
            body
        } as u64;
        let mut take = |h: HitRef<'_>| {
            if h.start < until && h.start >= from {
                self.link(
                    h.text,
                    h.trimmed.trailing,
                    h.kind,
                    h.from_legacy,
                    offset + h.start,
                    h.line,
                );
            }
        };
        // Malformed sequences of the body only: the look-ahead is the next chunk's body.
        let _ = scanner.feed_with(&bytes[..body], &mut take);
        let malformed = if utf8 {
            malformed_utf8(&bytes[..body])
        } else {
            scanner.stats().malformed_sequences
        };
        let _ = scanner.feed_with(&bytes[body..], &mut take);
        let _ = scanner.finish_with(&mut take);
        self.out.malformed = malformed;
        // An overlong candidate that crosses the cut may be counted by both chunks.
        self.out.too_long = scanner.stats().too_long;
        if lines {
            self.out.body_lines = memchr::memchr_iter(b'\n', &bytes[..body]).count() as u64;
        }
    }

    /// Keys one link found at input offset `offset`, line `line`.
    fn link(
        &mut self,
        found: &str,
        trailing: &str,
        kind: LinkKind,
        legacy: bool,
        offset: u64,
        line: u64,
    ) {
        self.out.links += 1;
        let html = self.opts.html;
        let unescaped = html.then(|| unescape_link(found, trailing, self.opts.scan.ascii_only));
        let original = unescaped.as_deref().unwrap_or(found);
        // the text keyed: a find without a scheme gets its implied one
        let text = keyable(original, kind, &mut self.implied);
        // One hash of the text: the string rung's fingerprint, the key when the link is its own
        // key, and (its low half) the chunk's repeat index.
        let fp = |s: &str| Fingerprint::of(s.as_bytes()).0;
        let fp_text = fp(text);
        let hash = fp_text as u64;
        if let Some(&i) = self.repeats.0.get(&hash) {
            let item = &self.out.items[i as usize];
            if item.legacy == legacy && self.out.original(item) == original {
                self.out.items[i as usize].repeats += 1;
                return;
            }
        }
        let keyer = &self.keyer;
        let level = keyer.options().level;
        let start = self.out.text.len();
        if let Err(e) = keyer.key_into(text, legacy, &mut self.out.text) {
            self.out.rejected.push(Rejected {
                reason: reason(&e),
                error: e.to_string(),
                original: original.to_owned(),
                offset,
                line,
            });
            return;
        }
        let key_end = self.out.text.len();
        // uri-form keys at the rungs below: for "duplicates caught by each rung" and `reached`.
        let [scratch, below] = &mut self.scratch;
        let final_uri: &str = if keyer.options().form == KeyForm::Uri {
            &self.out.text[start..key_end]
        } else {
            scratch.clear();
            let _ = keyer.uri_key_into(text, legacy, level, scratch);
            scratch
        };
        // A link that is its own key is its own key at every rung below (a fixed point propagates
        // down the ladder; crates/iri/tests/ladder_properties.rs): no rung below needs computing.
        let (lower, reached) = if final_uri == text {
            ([fp_text; 3], Level::String)
        } else {
            let mut lower = [0u128; 3];
            let mut reached = level;
            for (i, rung) in LOWER_RUNGS.into_iter().enumerate() {
                if rung >= level {
                    break;
                }
                let (k, f) = if rung == Level::String {
                    (text, fp_text)
                } else {
                    below.clear();
                    let _ = keyer.uri_key_into(text, legacy, rung, below);
                    (below.as_str(), fp(below))
                };
                lower[i] = f;
                if k == final_uri && reached == level {
                    reached = rung;
                }
            }
            (lower, reached)
        };
        let key = &self.out.text[start..key_end];
        // The original is stored only when it differs from its key.
        let fp_key = if key == text { fp_text } else { fp(key) };
        if key != original {
            self.out.text.push_str(original);
        }
        let i = self.out.items.len() as u32;
        self.out.items.push(Item {
            fp: fp_key,
            start,
            key_end,
            end: self.out.text.len(),
            offset,
            line,
            lower,
            reached,
            legacy,
            repeats: 0,
        });
        self.repeats.0.insert(hash, i);
    }
}

/// A reason for the summary: the error without its positions and characters, so that reasons
/// group.
fn reason(e: &NormalizeError) -> String {
    use linksieve_iri::{InputError, ParseErrorKind};
    match e {
        NormalizeError::Input {
            source: InputError::Parse(p),
            ..
        } => match p.kind {
            ParseErrorKind::InvalidChar(_) => format!("invalid character in {}", p.component),
            ParseErrorKind::InvalidPercentEncoding => {
                format!("'%' not followed by two hex digits in {}", p.component)
            }
            ParseErrorKind::InvalidIpLiteral => "invalid IP-literal".to_owned(),
            ParseErrorKind::ColonInFirstSegment => {
                "colon in the first segment of a relative path".to_owned()
            }
        },
        NormalizeError::Input { source, .. } => source.to_string(),
        NormalizeError::Relative { .. } => "relative reference (no scheme)".to_owned(),
    }
}

/// The rungs that can lie below the chosen one; rung `i` is tag `i` of the sink's Bloom filter.
const LOWER_RUNGS: [Level; 3] = [Level::String, Level::Syntax, Level::Scheme];

/// Keys per lower rung the sink's Bloom filter is sized for.
const LOWER_RUNG_KEYS: usize = 4 << 20;

/// Keys per lower rung the first, cache-resident stage of that filter takes.
const LOWER_RUNG_SMALL_KEYS: usize = 64 << 10;

/// The sink: reorders chunk results, deduplicates, writes.
struct Sink<'a> {
    opts: &'a RunOptions,
    dedup: &'a mut dyn Dedup,
    out: io::BufWriter<&'a mut dyn Write>,
    lower: linksieve_dedup::StagedBits,
    /// Where finished chunks' buffers go back to the jobs.
    spares: Spares,
    /// The most spares pooled (the chunks in flight; 1 with one thread).
    spare_limit: usize,
    /// Chunks whose items wait for decisions; `done` of the front chunk's items (and rejected
    /// links) are written.
    pending: VecDeque<ChunkOut>,
    done: (usize, usize),
    decisions: VecDeque<bool>,
    counts: Vec<(String, u64)>,
    count_index: std::collections::HashMap<u128, usize>,
    /// The line of the next chunk's first byte in its stream.
    line_base: u64,
    stats: RunStats,
}

impl<'a> Sink<'a> {
    fn new(opts: &'a RunOptions, dedup: &'a mut dyn Dedup, out: &'a mut dyn Write) -> Self {
        // Rungs below the chosen one: blocked Bloom filters of 512-bit blocks, each rung's
        // keys under its own tag (a link that is its own key at every rung costs one cache
        // miss, not one per rung), at about 10 bits per key (about 1% false positives) and 7
        // hashes. Staged: a filter for 64 K keys per rung (80 KB a rung, stays in cache) takes
        // the first keys; one for 4 M keys per rung (5 MB a rung; allocated up front, its pages
        // untouched until then) takes the keys after them.
        // A run with few distinct links (sparse text: 7 K keys in 340 MB) then never misses
        // the cache here. Sized directly: `BloomSet::new` searches for the best parameters,
        // which costs ~30 ms at this size, a fixed start-up cost of every run.
        let rungs = LOWER_RUNGS
            .iter()
            .filter(|&&r| r < opts.normalize.level)
            .count();
        let lower = linksieve_dedup::StagedBits::new(
            rungs * LOWER_RUNG_SMALL_KEYS,
            rungs * LOWER_RUNG_KEYS,
            10,
            7,
        );
        // an approx set's "seen" answers are counted apart (see `account`)
        let approx_filter_seen = dedup.expected_false_drops().map(|_| 0);
        Sink {
            opts,
            dedup,
            out: io::BufWriter::with_capacity(1 << 16, out),
            lower,
            spares: unbounded(),
            spare_limit: 1,
            pending: VecDeque::new(),
            done: (0, 0),
            decisions: VecDeque::new(),
            counts: Vec::new(),
            count_index: Default::default(),
            line_base: 1,
            stats: RunStats {
                approx_filter_seen,
                ..RunStats::default()
            },
        }
    }

    fn consume(
        &mut self,
        rx: &Receiver<(u64, ChunkOut)>,
        tokens: &Sender<()>,
    ) -> Result<RunStats, RunError> {
        let mut next = 0u64;
        let mut waiting: BTreeMap<u64, ChunkOut> = BTreeMap::new();
        let mut reader_stats = RunStats::default();
        for (seq, out) in rx.iter() {
            waiting.insert(seq, out);
            while let Some(out) = waiting.remove(&next) {
                next += 1;
                if let Some(s) = out.stats {
                    self.reader_done(&s)?;
                    reader_stats = s;
                    continue;
                }
                self.chunk(out)?;
                let _ = tokens.try_send(());
            }
        }
        Ok(reader_stats)
    }

    /// The reader's closing message: its counters (and, in JSONL, the inputs it could not read).
    fn reader_done(&mut self, s: &RunStats) -> Result<(), RunError> {
        for f in &s.inputs_failed {
            self.input_failed(f)?;
        }
        Ok(())
    }

    /// An input that could not be read (to its end): an object in JSONL, else only counted.
    fn input_failed(&mut self, f: &InputFailure) -> Result<(), RunError> {
        if self.opts.format == OutputFormat::Jsonl && !self.opts.counts {
            let v = serde_json::json!({"input": f.input, "error": f.error});
            writeln!(self.out, "{v}").map_err(RunError::Output)?;
        }
        Ok(())
    }

    fn chunk(&mut self, mut c: ChunkOut) -> Result<(), RunError> {
        // The chunk's lines are counted from its first byte: add the stream's earlier lines.
        if c.stream_start {
            self.line_base = 1;
        }
        if self.opts.format.shows_lines() && self.line_base > 1 {
            let add = self.line_base - 1;
            c.items.iter_mut().for_each(|i| i.line += add);
            c.rejected.iter_mut().for_each(|r| r.line += add);
        }
        self.line_base += c.body_lines;
        // A file that shrank fails in each of its later ranges: reported once.
        if let Some(f) = c.failed.take()
            && self
                .stats
                .inputs_failed
                .last()
                .is_none_or(|last| last.input != f.input)
        {
            self.input_failed(&f)?;
            self.stats.inputs_failed.push(f);
        }
        self.stats.links_found += c.links;
        self.stats.malformed_sequences += c.malformed;
        self.stats.too_long += c.too_long;
        let fps: Vec<Fingerprint> = c.items.iter().map(|i| Fingerprint(i.fp)).collect();
        // The chunk waits in `pending` until its decisions come: a spill set counts it.
        self.dedup
            .submit_holding(&fps, c.held_bytes(), &mut self.decisions)?;
        // counted now (the reason is not written): moved, not copied
        for r in &mut c.rejected {
            self.stats.reject(std::mem::take(&mut r.reason));
        }
        if !c.items.is_empty() || !c.rejected.is_empty() {
            self.pending.push_back(c);
        } else {
            self.recycle(c);
        }
        self.drain()?;

        if self.dedup.durable() {
            // What was committed is written now, not when the buffer fills (see PersistentDedup).
            self.out.flush().map_err(RunError::Output)?;
        }
        Ok(())
    }

    /// Writes the pending items that have a decision, in order, and the chunks' rejected
    /// links among them at their places in the input (so that the JSONL rows do not depend on
    /// where chunks were cut).
    fn drain(&mut self) -> Result<(), RunError> {
        while let Some(c) = self.pending.pop_front() {
            let (mut i, mut r) = self.done;
            while i < c.items.len() {
                let Some(new) = self.decisions.pop_front() else {
                    break;
                };
                let item = &c.items[i];
                while let Some(rej) = c.rejected.get(r).filter(|x| x.offset < item.offset) {
                    self.write_rejected(&c, rej)?;
                    r += 1;
                }
                self.account(&c, item, new);
                if new {
                    self.write(&c, item)?;
                }
                i += 1;
            }
            if i < c.items.len() {
                // Decisions owed (a persistent set commits in batches): resume here.
                self.done = (i, r);
                self.pending.push_front(c);
                break;
            }
            for rej in &c.rejected[r..] {
                self.write_rejected(&c, rej)?;
            }
            self.done = (0, 0);
            self.recycle(c);
        }
        Ok(())
    }

    /// Hands a finished chunk's buffers back to the jobs, emptied; frees them when the pool
    /// is full.
    fn recycle(&self, c: ChunkOut) {
        if self.spares.0.len() >= self.spare_limit {
            return;
        }
        let mut spare = Spare {
            text: c.text,
            items: c.items,
            rejected: c.rejected,
        };
        spare.text.clear();
        spare.items.clear();
        spare.rejected.clear();
        let _ = self.spares.0.send(spare);
    }

    /// A link without a key: an object in JSONL, else only counted (in [`Sink::chunk`]).
    fn write_rejected(&mut self, c: &ChunkOut, r: &Rejected) -> Result<(), RunError> {
        if self.opts.format != OutputFormat::Jsonl || self.opts.counts {
            return Ok(());
        }
        let meta = c.meta.as_ref();
        let v = serde_json::json!({
            "rejected": r.original,
            "error": r.error,
            "file": meta.map(|m| &m.input),
            "offset": r.offset,
            "line": r.line,
            "provenance": meta.and_then(|m| m.provenance.as_ref()),
        });
        writeln!(self.out, "{v}").map_err(RunError::Output)
    }

    fn account(&mut self, c: &ChunkOut, item: &Item, new: bool) {
        let level = self.opts.normalize.level;
        let mut caught = None;
        for (i, rung) in LOWER_RUNGS.into_iter().enumerate() {
            if rung >= level {
                break;
            }
            let seen = !self
                .lower
                .insert_tagged(Fingerprint(item.lower[i]), i as u8);
            if seen && caught.is_none() && !new {
                caught = Some(rung);
            }
        }
        if new {
            self.stats.unique_keys += 1;
        } else if let Some(rung) = caught {
            self.stats.duplicate(rung, 1);
        } else if let Some(n) = &mut self.stats.approx_filter_seen {
            // an approx filter's "seen" may be a wrong drop: not a duplicate of the rung
            *n += 1;
            self.stats.duplicates += 1;
        } else {
            self.stats.duplicate(level, 1);
        }
        // Exact repeats in the chunk: the string rung caught them (the first one's fingerprints
        // are in the filters now).
        let repeats = u64::from(item.repeats);
        if repeats > 0 {
            self.stats.duplicate(Level::String, repeats);
        }
        if self.opts.counts {
            let n = 1 + repeats;
            match self.count_index.get(&item.fp) {
                Some(&i) => self.counts[i].1 += n,
                None if new => {
                    self.count_index.insert(item.fp, self.counts.len());
                    self.counts.push((c.key(item).to_owned(), n));
                }
                None => {}
            }
        }
    }

    fn write(&mut self, c: &ChunkOut, item: &Item) -> Result<(), RunError> {
        if self.opts.counts {
            return Ok(());
        }
        let w = &mut self.out;
        let key = c.key(item);
        let (input, provenance) = match &c.meta {
            Some(m) => (m.input.as_str(), m.provenance.as_deref()),
            None => ("", None),
        };
        let res = match self.opts.format {
            OutputFormat::Keys => w
                .write_all(key.as_bytes())
                .and_then(|()| w.write_all(b"\n")),
            OutputFormat::Tsv => {
                let provenance = match provenance {
                    Some(target) => target.to_owned(),
                    None => format!("{input}:{}:{}", item.line, item.offset),
                };
                crate::write_row(
                    w,
                    Some(Fingerprint(item.fp)),
                    key,
                    c.original(item),
                    &provenance,
                )
            }
            OutputFormat::Jsonl => {
                let v = serde_json::json!({
                    "key": key,
                    "original": c.original(item),
                    "file": input,
                    "offset": item.offset,
                    "line": item.line,
                    "provenance": provenance,
                    "rung": item.reached.name(),
                });
                writeln!(w, "{v}")
            }
        };
        res.map_err(RunError::Output)
    }

    fn finish(&mut self) -> Result<(), RunError> {
        self.dedup.finish(&mut self.decisions)?;
        self.drain()?;
        if self.opts.counts {
            for (k, n) in std::mem::take(&mut self.counts) {
                writeln!(self.out, "{}\t{n}", tsv(&k)).map_err(RunError::Output)?;
            }
        }
        self.out.flush().map_err(RunError::Output)
    }

    fn fill(&self, stats: &mut RunStats) {
        stats.links_found = self.stats.links_found;
        // inputs that failed partway through a range read (the reader's come first)
        stats
            .inputs_failed
            .extend(self.stats.inputs_failed.iter().cloned());
        stats.malformed_sequences += self.stats.malformed_sequences;
        stats.too_long += self.stats.too_long;
        stats.rejected = self.stats.rejected.clone();
        stats.unique_keys = self.stats.unique_keys;
        stats.duplicates = self.stats.duplicates;
        stats.duplicates_by_rung = self.stats.duplicates_by_rung.clone();
        stats.store_keys_at_open = self.dedup.store_keys_at_open();
        stats.expected_false_drops = self.dedup.expected_false_drops();
        stats.expected_false_drops_error = self.dedup.false_drops_error();
        stats.approx_filter_seen = self.stats.approx_filter_seen;
        stats.seen_set_warning = self.dedup.warning();
        stats.seen_set_bytes = self.dedup.memory_bytes() as u64;
        stats.peak_rss_bytes = crate::peak_rss_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::malformed_utf8;

    /// A fresh temporary folder for one test, and the path of `name` in it.
    #[cfg(unix)]
    fn temp_file(tag: &str, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("ls-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join(name);
        (dir, f)
    }

    /// Neighbouring ranges agree on their common cut without knowing each other: the chunks
    /// tile the file from the first byte after the BOM to its end, each with its look-ahead,
    /// for lines, long lines (cut at spaces) and one long token (cut at a character boundary).
    #[cfg(unix)]
    #[test]
    fn ranges_tile_the_file() {
        use super::{RunOptions, read_range};
        let (dir, f) = temp_file("ranges", "r.txt");
        let lines: String = (0..3000)
            .map(|i| format!("line {i} http://a{i}.example/\n"))
            .collect();
        let spaces = "wörd ".repeat(4000);
        let token = "é".repeat(20_000);
        for text in [lines, spaces, token] {
            let bytes = [b"\xEF\xBB\xBF", text.as_bytes()].concat();
            std::fs::write(&f, &bytes).unwrap();
            let file = std::fs::File::open(&f).unwrap();
            let len = bytes.len() as u64;
            for chunk in [4096usize, 5000, 65536] {
                let opts = RunOptions {
                    chunk_size: chunk,
                    ..RunOptions::default()
                };
                let mut at = 3u64;
                let mut buf = Vec::new();
                for k in 0..(len - 3).div_ceil(chunk as u64) {
                    let r =
                        read_range(&file, 3, len, k, encoding_rs::UTF_8, &opts, &mut buf).unwrap();
                    assert_eq!(r.offset, at, "chunk {chunk}, range {k}");
                    at += r.body as u64;
                    let c = &buf[r.from..r.to];
                    assert_eq!(c, &bytes[r.offset as usize..r.offset as usize + c.len()]);
                    assert!(
                        std::str::from_utf8(&c[..r.body]).is_ok(),
                        "cut in a character"
                    );
                    assert_eq!(
                        r.mid_token,
                        k > 0 && !matches!(bytes[r.offset as usize - 1], b'\n' | b' ')
                    );
                }
                assert_eq!(at, len, "chunk {chunk}");
            }
        }
        // a file that ends before the range does (it shrank after opening) is an error, not a
        // short chunk
        let file = std::fs::File::open(&f).unwrap();
        let len = std::fs::metadata(&f).unwrap().len();
        let e = read_range(
            &file,
            0,
            len + 10,
            0,
            encoding_rs::UTF_8,
            &RunOptions::default(),
            &mut Vec::new(),
        );
        assert_eq!(
            e.err().map(|e| e.kind()),
            Some(std::io::ErrorKind::UnexpectedEof)
        );
        std::fs::remove_dir_all(dir).ok();
    }

    /// A file that is shorter than its size at opening: the ranges before the end are scanned,
    /// each later range fails, and the sink reports the input once.
    #[cfg(unix)]
    #[test]
    fn a_file_that_shrank_is_one_input_failure() {
        use super::{Job, RunOptions, Sink, StreamMeta, work};
        use std::sync::Arc;
        let (dir, f) = temp_file("shrank", "s.txt");
        let text: String = (0..2000)
            .map(|i| format!("see http://s{i}.example/\n"))
            .collect();
        std::fs::write(&f, &text).unwrap();
        let opts = RunOptions {
            chunk_size: 4096,
            ..RunOptions::default()
        };
        let file = Arc::new(std::fs::File::open(&f).unwrap());
        let meta = Arc::new(StreamMeta {
            input: "s.txt".into(),
            provenance: None,
        });
        // as if the file had been 5 chunks longer when it was opened
        let len = text.len() as u64 + 5 * 4096;
        let free = crossbeam_channel::unbounded();
        let mut dedup = crate::dedup::MemoryDedup::default();
        let mut out = Vec::new();
        let mut sink = Sink::new(&opts, &mut dedup, &mut out);
        for k in 0..len.div_ceil(4096) {
            let job = Job::Range {
                meta: meta.clone(),
                file: file.clone(),
                start: 0,
                len,
                k,
                encoding: encoding_rs::UTF_8,
                free: free.clone(),
            };
            sink.chunk(work(job, &opts, &sink.spares.1.clone()))
                .unwrap();
        }
        assert_eq!(sink.stats.inputs_failed.len(), 1);
        assert_eq!(sink.stats.inputs_failed[0].input, "s.txt");
        // every full range before the end was scanned
        assert!(sink.stats.unique_keys >= 1900, "{}", sink.stats.unique_keys);
        drop(sink);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn malformed_utf8_counts_as_encoding_rs_does() {
        let cases: [&[u8]; 9] = [
            b"plain ascii",
            b"caf\xC3\xA9",
            b"\xFF",
            b"a\xC3",
            b"\xE2\x82",
            b"\xE2\x82x\xF0\x9F\x98",
            b"\xC0\xAF\xED\xA0\x80",
            b"\xF4\x90\x80\x80\x80",
            b"\x80\x80\x80ok\xF8",
        ];
        for b in cases {
            let (_, had) = encoding_rs::UTF_8.decode_without_bom_handling(b);
            let mut dec = encoding_rs::UTF_8.new_decoder_without_bom_handling();
            let mut out = String::with_capacity(64);
            let (mut errors, mut rest) = (0u64, b);
            loop {
                let (r, read) = dec.decode_to_string_without_replacement(rest, &mut out, true);
                rest = &rest[read..];
                match r {
                    encoding_rs::DecoderResult::Malformed(..) => errors += 1,
                    _ => break,
                }
            }
            assert_eq!(malformed_utf8(b), errors, "{b:?}");
            assert_eq!(errors > 0, had, "{b:?}");
        }
    }
}

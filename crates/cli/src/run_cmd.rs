//! `linksieve run`: the main job. Argument parsing, the progress bar, signals and the output file;
//! the work is `linksieve_pipeline::run`.

use crate::ladder_cmds::{LadderArgs, LinkInputMode, options};
use anyhow::{Context, Result, bail};
use clap::Args;
use linksieve_dedup::{CommitPolicy, SeenSet};
use linksieve_graph::{Graph, Www};
use linksieve_iri::{InputMode, KeyForm};
use linksieve_pipeline::Report;
use linksieve_pipeline::delivery::FdOutput;
use linksieve_pipeline::output::{AtomicOutput, check_target, same_file};
use linksieve_pipeline::seen::{DEFAULT_SPILL_BUDGET, KeyIdentity, SeenKind, SeenOptions};
use linksieve_pipeline::{
    EdgeOptions, FailureHook, InputFailure, InputSpec, OutputFormat, RunError, RunOptions,
    WarcRecords, expand_inputs,
};
use linksieve_scan::{EncodingChoice, ScanOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// `linksieve run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    ladder: LadderArgs,
    /// Form of the keys.
    #[arg(long, value_enum, default_value_t = KeyForm::Uri)]
    form: KeyForm,
    #[command(flatten)]
    input: LinkInputMode,
    /// Input encoding: any WHATWG label, or `auto` (BOM, else UTF-8 if valid, else a guess).
    #[arg(long, default_value = "auto", value_name = "LABEL")]
    encoding: String,
    /// Also find `www.` and bare domains (public-suffix check).
    #[arg(long)]
    schemeless: bool,
    /// Also find bare e-mail addresses.
    #[arg(long)]
    email: bool,
    /// Longest link in bytes (256 to 16M); longer candidates are counted and skipped.
    #[arg(long, default_value = "64K", value_parser = parse_link_len, value_name = "BYTES")]
    max_link_len: usize,
    /// Read files as HTML: the URLs of their attributes (`a href`, `img src`, `srcset`, ...)
    /// resolved against the document base, and the links of their text with character
    /// references undone. WARC responses with an HTML media type are read so without it.
    #[arg(long)]
    html: bool,
    /// The address of files read as HTML (and of WARC records without a target URI): their
    /// relative links resolve against it (a `<base href>` still wins).
    #[arg(long, value_name = "URL")]
    base: Option<String>,
    /// Key `javascript:`, `data:`, `about:`, `blob:` and `vbscript:` URLs of HTML attributes
    /// too (counted, not keyed, by default).
    #[arg(long)]
    all_schemes: bool,
    /// Worker threads, 1 to 256 (default 0: one per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
    /// Bytes per chunk of input, 4K to 256M (e.g. 1M).
    #[arg(long, default_value = "1M", value_parser = parse_chunk_size, value_name = "SIZE")]
    chunk_size: usize,
    #[command(flatten)]
    seen: SeenArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Keys)]
    format: OutputFormat,
    /// Write `key<TAB>count` at the end (first-occurrence order) instead of keys.
    #[arg(long)]
    counts: bool,
    /// With --format edges: what a node is: `page` (its key, the default), `host` or `domain`
    /// (reversed names, as Common Crawl's graphs write them).
    #[arg(long, value_enum, value_name = "LEVEL")]
    graph: Option<Graph>,
    /// With --format edges --graph host: keep or strip a leading `www.` (default `keep`).
    #[arg(long, value_enum, value_name = "WHAT")]
    www: Option<Www>,
    /// WARC records to scan: `content` (response payloads, resource and conversion records,
    /// not `metadata:` targets or media without text) or `all` (every record's block).
    #[arg(long, value_enum, default_value_t = WarcRecords::Content, value_name = "WHICH")]
    warc_records: WarcRecords,
    /// Do not key the links WARC responses state outside their HTML: a redirect's `Location`,
    /// `Link` header fields, robots.txt `Sitemap:` lines (keyed by default).
    #[arg(long)]
    no_record_links: bool,
    #[command(flatten)]
    io: IoArgs,
}

/// Inputs, output file, summary: shared by `run` and `dedup`.
#[derive(Args, Debug)]
pub struct IoArgs {
    /// Write the output to FILE atomically (a temporary file renamed at the end).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Inputs: files, directories (recursive), `-` for stdin (the default).
    inputs: Vec<PathBuf>,
}

impl IoArgs {
    /// The inputs (`-`, stdin, when none is given), directories expanded, and those that could
    /// not be listed.
    fn inputs(&self) -> (Vec<InputSpec>, Vec<linksieve_pipeline::InputProblem>) {
        let (inputs, problems) = if self.inputs.is_empty() {
            expand_inputs(&[PathBuf::from("-")])
        } else {
            expand_inputs(&self.inputs)
        };
        for p in &problems {
            tell(&InputFailure {
                input: p.path.display().to_string(),
                error: p.error.to_string(),
            });
        }
        (inputs, problems)
    }
}

/// An input that failed, said on stderr when it happens (under `-q` too), as ripgrep does; the
/// summary lists it again at the end.
pub(crate) fn tell(f: &InputFailure) {
    eprintln!("linksieve: {}: {}", f.input, f.error);
}

/// [`tell`] as the pipeline's hook.
fn hook() -> FailureHook {
    FailureHook::new(tell)
}

/// The seen-set options, shared by `run` and `dedup`.
#[derive(Args, Debug)]
pub struct SeenArgs {
    /// Seen-set.
    #[arg(long, value_enum, default_value_t = SeenKind::Memory)]
    dedup: SeenKind,
    /// Memory budget of `--dedup spill` (default 512M; the process stays within it plus
    /// 32 MiB + 16 x --chunk-size per thread), or the most an `--dedup approx` filter may grow
    /// to, or the edge set's budget of `run --format edges` (default 512M; sorted runs spill to
    /// the temporary folder past it). 64K to 1T.
    #[arg(long, value_parser = parse_memory, value_name = "SIZE")]
    memory: Option<usize>,
    /// False-positive rate of `--dedup approx`.
    #[arg(long, default_value_t = 0.001, value_name = "P")]
    fp_rate: f64,
    /// Expected unique keys, to size `--dedup approx`: 0 to 10^10 (the filter grows past it).
    #[arg(long, default_value_t = 10_000_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(..=MAX_EXPECTED))]
    expected: u64,
    /// A persistent seen-set: only keys no earlier run wrote are written. A file and the folder
    /// PATH.runs beside it (one process at a time), or a set shared by many processes on a
    /// Redis or Valkey server:
    /// `redis://HOST:PORT/DB?prefix=NAME`, `rediss://...` (TLS), `redis+cluster://H:P,H:P/?...`.
    #[arg(long, value_name = "PATH|URL")]
    seen: Option<PathBuf>,
    /// With --seen: when the store records the keys written (once delivered): `every` (each
    /// batch), `end`, a number of keys (1 to 10^12), a time (1ms to 1 day: `250ms`, `2s`), or
    /// both (`100000,1s`, the default; with --out: `1000000`). A kill costs at most the keys
    /// since the last record, written again by the next run.
    #[arg(long, value_parser = parse_commit, value_name = "POLICY")]
    commit: Option<CommitPolicy>,
}

/// `--commit`: see [`CommitPolicy`]'s forms.
fn parse_commit(s: &str) -> Result<CommitPolicy, String> {
    s.parse()
        .map_err(|e: linksieve_dedup::DedupError| e.to_string())
}

impl SeenArgs {
    /// A shared seen-set's URL: a `--seen` value that starts with `redis://`, `rediss://`,
    /// `redis+cluster://` or `rediss+cluster://`.
    fn shared(&self) -> Option<&str> {
        let s = self.seen.as_deref()?.to_str()?;
        [
            "redis://",
            "rediss://",
            "redis+cluster://",
            "rediss+cluster://",
        ]
        .iter()
        .any(|p| s.starts_with(p))
        .then_some(s)
    }

    /// The `--seen` store's path (not a shared set's URL).
    fn store(&self) -> Option<&Path> {
        self.seen.as_deref().filter(|_| self.shared().is_none())
    }

    /// The factory's options.
    fn options(&self) -> SeenOptions {
        SeenOptions {
            kind: self.dedup,
            memory: self.memory,
            fp_rate: self.fp_rate,
            expected: self.expected,
            store: self.store().map(Path::to_path_buf),
            spill_dir: None,
            shared: self.shared().map(str::to_owned),
            commit: self.commit,
        }
    }

    /// The seen-set these options ask for (see [`SeenOptions::open`]).
    fn open(&self, id: &KeyIdentity, atomic: bool) -> Result<Box<dyn SeenSet>> {
        if self.commit.is_some() && self.seen.is_none() {
            bail!("--commit is for a --seen store");
        }
        let o = self.options();
        let d = o.open(&id.store(), atomic);
        match &self.seen {
            Some(_) if self.shared().is_some() => d.context("--seen (the shared set)"),
            Some(path) => d.with_context(|| format!("--seen {}", path.display())),
            None => match d {
                // the filter's bits could not be had: the options that size it
                Err(e @ linksieve_dedup::DedupError::OutOfMemory { .. }) => {
                    Err(e).with_context(|| {
                        format!(
                            "--dedup approx with --expected {} and --fp-rate {}: lower --expected, \
                         raise --fp-rate, or bound the filter with --memory",
                            self.expected, self.fp_rate
                        )
                    })
                }
                d => Ok(d?),
            },
        }
    }
}

impl SeenArgs {
    /// The commit policy of a `--seen` store (see [`SeenOptions::commit_policy`]).
    fn policy(&self, atomic: bool) -> CommitPolicy {
        self.options().commit_policy(atomic)
    }
}

/// `linksieve dedup`: the dedup stage alone, on lines.
#[derive(Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    seen: SeenArgs,
    /// With --seen: the rung, rules and form the lines were keyed with (the store's identity).
    #[command(flatten)]
    ladder: LadderArgs,
    /// With --seen: the form the lines were keyed in.
    #[arg(long, value_enum, default_value_t = KeyForm::Uri)]
    form: KeyForm,
    #[command(flatten)]
    input: LinkInputMode,
    #[command(flatten)]
    io: IoArgs,
}

/// Runs `linksieve dedup`: exit 0, 1 when an input could not be read, 130 after SIGINT.
pub fn dedup(a: &DedupArgs) -> Result<ExitCode> {
    let keying = options(&a.ladder, InputMode::Strict, a.form)?;
    let (inputs, problems) = a.io.inputs();
    check_paths(&a.io, a.seen.store())?;
    let mut dedup = a
        .seen
        .open(&KeyIdentity::of(&keying, a.input.mode), a.io.out.is_some())?;
    let commit = a.seen.policy(a.io.out.is_some());
    let cancel = cancel_on_sigint()?;
    let (mut out, tmp) = open_output(a.io.out.as_deref())?;
    let started = Instant::now();
    let hook = hook();
    let result = linksieve_pipeline::dedup_lines(
        &inputs,
        dedup.as_mut(),
        &mut out,
        &cancel,
        Some(&hook),
        commit,
    );
    drop(out);
    let end = End {
        io: &a.io,
        tmp,
        problems,
        started,
    };
    end.conclude(result, dedup)
}

/// First SIGINT: the returned flag is set (stop reading, flush, summary, exit 130); a second one
/// ends the process at once.
fn cancel_on_sigint() -> Result<Arc<AtomicBool>> {
    let cancel = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        cancel.clone(),
    )?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, cancel.clone())?;
    Ok(cancel)
}

/// The files a run writes, checked against each other and against what is there before any
/// work (usage errors): `--out` and `--stats` are regular files or new names in a folder that
/// exists (never a symlink, a device, a FIFO, a socket or a directory: a rename would replace
/// it); the `--seen` store, if there, is a regular file; no two of them name one file (by path,
/// symlink or hard link), since the later write would replace the other.
fn check_paths(io: &IoArgs, seen: Option<&Path>) -> Result<()> {
    for (flag, path) in [("--out", &io.out), ("--stats", &io.stats)] {
        if let Some(p) = path {
            check_target(p).with_context(|| flag.to_owned())?;
        }
    }
    if let Some(store) = seen
        && let Ok(m) = std::fs::metadata(store)
        && !m.is_file()
    {
        bail!(
            "--seen {} is not a regular file: a store is a file that linksieve made",
            store.display()
        );
    }
    if let Some(store) = seen {
        // a file in the store's folder of runs would replace one of its runs
        let folder = linksieve_dedup::PersistentSet::runs_folder(store);
        for (flag, p) in [
            ("--out", io.out.as_deref()),
            ("--stats", io.stats.as_deref()),
        ] {
            if let Some(p) = p
                && let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty())
                && same_file(dir, &folder)
            {
                bail!(
                    "{flag} {} is in the folder of the --seen store's runs ({}): it would \
                     replace part of the store",
                    p.display(),
                    folder.display()
                );
            }
        }
    }
    let named = [
        ("--out", io.out.as_deref()),
        ("--stats", io.stats.as_deref()),
        ("--seen", seen),
    ];
    for (i, (fa, a)) in named.iter().enumerate() {
        for (fb, b) in &named[i + 1..] {
            if let (Some(a), Some(b)) = (a, b)
                && same_file(a, b)
            {
                bail!(
                    "{fa} {} and {fb} {} name one file: one would replace the other",
                    a.display(),
                    b.display()
                );
            }
        }
    }
    Ok(())
}

/// Standard output, or a temporary file beside `path` that `End::conclude` renames into place
/// (call it after the seen store is opened: it removes strays of killed runs).
fn open_output(path: Option<&Path>) -> Result<(FdOutput, Option<AtomicOutput>)> {
    Ok(match path {
        Some(path) => {
            let tmp =
                AtomicOutput::create(path).with_context(|| format!("--out {}", path.display()))?;
            (tmp.writer()?, Some(tmp))
        }
        None => (FdOutput::stdout().context("standard output")?, None),
    })
}

/// An output step that failed at run time (`--out`'s temporary file or rename, `--stats`):
/// the program ends with `EXIT_OUTPUT` (4), not the usage status.
#[derive(Debug)]
pub struct OutputFailure(pub String);

impl std::fmt::Display for OutputFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Keys a store answered new and did not record because the output failed or was closed: the
/// program ends with exit status 4.
#[derive(Debug)]
pub struct Unrecorded(pub String);

impl std::fmt::Display for Unrecorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How `run` and `dedup` end.
struct End<'a> {
    io: &'a IoArgs,
    /// The temporary output file (renamed to `--out` at the end).
    tmp: Option<AtomicOutput>,
    /// Inputs that could not even be listed.
    problems: Vec<linksieve_pipeline::InputProblem>,
    /// When the work started (for the elapsed time and the throughput).
    started: Instant,
}

impl End<'_> {
    /// A closed pipe is a quiet success (unless a store was left with keys it could not record:
    /// then it says so, exit 4); other errors go up, with what the store did not record. After
    /// a run: the output file into place, then (only then) the durable set's run ended (after
    /// SIGINT too: every key a store recorded was delivered first); the summary; the exit
    /// status: 130 after SIGINT, 1 when an input could not be read, else 0.
    fn conclude<S: Report>(
        self,
        result: Result<S, RunError>,
        dedup: Box<dyn SeenSet>,
    ) -> Result<ExitCode> {
        let mut stats = match result {
            Ok(s) => s,
            Err(e) => {
                let unrecorded = dedup.unsynced();
                drop(dedup);
                let pipe = matches!(&e, RunError::Output(io) if io.kind() == std::io::ErrorKind::BrokenPipe);
                if pipe && unrecorded == 0 {
                    return Ok(ExitCode::SUCCESS);
                }
                let e = anyhow::Error::from(e);
                if unrecorded == 0 {
                    return Err(e);
                }
                let what = if pipe {
                    "the output was closed"
                } else {
                    "the output failed"
                };
                return Err(e.context(Unrecorded(format!(
                    "{what}: the store did not record the last {unrecorded} keys answered new \
                     (the next run writes them; those already delivered, a second time)"
                ))));
            }
        };
        match (self.tmp, &self.io.out) {
            (Some(tmp), Some(path)) => tmp
                .persist(Some(dedup))
                .with_context(|| format!("--out {}", path.display()))?,
            _ => dedup.finish()?,
        }
        stats
            .failures_mut()
            .extend(
                self.problems
                    .into_iter()
                    .map(|p| linksieve_pipeline::InputFailure {
                        input: p.path.display().to_string(),
                        error: p.error.to_string(),
                    }),
            );
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = stats.bytes_read() as f64 / elapsed.max(1e-9);
        if let Some(path) = &self.io.stats {
            let mut json: serde_json::Value = serde_json::from_str(&stats.to_json())?;
            if let Some(o) = json.as_object_mut() {
                o.insert("elapsed_seconds".into(), elapsed.into());
                o.insert("bytes_per_second".into(), rate.round().into());
            }
            let text = serde_json::to_string_pretty(&json)? + "\n";
            write_stats(path, &text)
                .context(OutputFailure(format!("--stats {}", path.display())))?;
        }
        if !self.io.quiet {
            eprint!("{}", stats.summary());
            eprintln!(
                "  elapsed: {elapsed:.3} s, {:.1} MB/s (bytes read)",
                rate / 1e6
            );
        } else if let Some(w) = stats.warning() {
            eprintln!("linksieve: warning: {w}");
        }
        Ok(if stats.was_interrupted() {
            ExitCode::from(130)
        } else if !stats.failures_mut().is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// Writes the `--stats` JSON whole or not at all, as `--out` is written (a temporary file beside
/// it, renamed over it): never through a symlink, never into a device or a FIFO.
fn write_stats(path: &Path, json: &str) -> Result<()> {
    let tmp = AtomicOutput::create(path)?;
    let mut w = tmp.writer()?;
    w.write_all(json.as_bytes())?;
    w.flush()?;
    drop(w);
    tmp.persist(None)?;
    Ok(())
}

/// The largest `--expected`: 10^10 keys (an approx filter of about 20 GB at `--fp-rate`
/// 0.001; past it the filter grows by stages).
pub const MAX_EXPECTED: u64 = linksieve_dedup::MAX_EXPECTED_ITEMS;

/// A size argument within `min..=max` bytes, with its unit (see [`parse_size`]).
fn size_in(s: &str, min: usize, max: usize) -> Result<usize, String> {
    let n = parse_size(s)?;
    if !(min..=max).contains(&n) {
        return Err(format!(
            "{s:?} is outside {}..={}",
            show_size(min),
            show_size(max)
        ));
    }
    Ok(n)
}

/// `1048576` as `1M`: the unit a size was documented with.
fn show_size(n: usize) -> String {
    for (unit, m) in [
        ("T", 1usize << 40),
        ("G", 1 << 30),
        ("M", 1 << 20),
        ("K", 1 << 10),
    ] {
        if n >= m && n.is_multiple_of(m) {
            return format!("{}{unit}", n / m);
        }
    }
    n.to_string()
}

/// `--chunk-size`: 4K to 256M.
fn parse_chunk_size(s: &str) -> Result<usize, String> {
    size_in(s, 4 << 10, 256 << 20)
}

/// `--memory`: 64K to 1T (small budgets are for tests and tiny machines).
pub(crate) fn parse_memory(s: &str) -> Result<usize, String> {
    let r = linksieve_pipeline::seen::MEMORY_RANGE;
    size_in(s, *r.start(), *r.end())
}

/// `--max-link-len`: 256 bytes to 16M.
pub fn parse_link_len(s: &str) -> Result<usize, String> {
    size_in(s, 256, 16 << 20)
}

/// `-j`: 0 (one per core) to 256.
fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    if n > 256 {
        return Err(format!("{n} is outside 0..=256"));
    }
    Ok(n)
}

/// `512`, `64K`, `1M`, `2G`, `1T` (powers of 1024).
fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("unknown unit in {s:?} (K, M, G or T)")),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    num.trim()
        .parse::<usize>()
        .map_err(|e| format!("{s:?}: {e}"))?
        .checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// Runs `linksieve run`: exit 0, 1 when an input could not be read, 130 after SIGINT.
pub fn run(a: &RunArgs) -> Result<ExitCode> {
    let mode = a.input.mode;
    let keying = options(&a.ladder, mode, a.form)?;
    let encoding =
        EncodingChoice::from_label(&a.encoding).map_err(|e| anyhow::anyhow!("--encoding: {e}"))?;
    let edges = a.format == OutputFormat::Edges;
    if a.format == OutputFormat::Parquet && a.io.out.is_none() && std::io::stdout().is_terminal() {
        bail!("--format parquet writes a binary file: give --out FILE (or redirect stdout)");
    }
    if !edges && (a.graph.is_some() || a.www.is_some()) {
        bail!("--graph and --www are for --format edges");
    }
    if a.www.is_some() && a.graph != Some(Graph::Host) {
        bail!("--www is for --graph host (a domain folds www. in; a page is its key)");
    }
    if edges && (a.counts || a.seen.seen.is_some() || a.seen.dedup != SeenKind::Memory) {
        bail!(
            "--format edges writes each edge once with its count: --counts, --seen and --dedup \
             are for keys (--memory bounds the edge set)"
        );
    }
    let opts = RunOptions {
        threads: a.threads,
        chunk_size: a.chunk_size,
        in_flight: 0,
        scan: ScanOptions {
            encoding,
            schemeless: a.schemeless,
            email: a.email,
            max_link_len: a.max_link_len,
            ..ScanOptions::default()
        },
        input: mode,
        keying,
        html: a.html,
        base: a
            .base
            .as_deref()
            .map(linksieve_iri::WebUrl::parse)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--base: not a valid web address: {e}"))?,
        all_schemes: a.all_schemes,
        format: a.format,
        counts: a.counts,
        warc_records: a.warc_records,
        record_links: !a.no_record_links,
        on_input_failure: Some(hook()),
        commit: a.seen.policy(a.io.out.is_some()),
        edges: EdgeOptions {
            graph: a.graph.unwrap_or_default(),
            www: a.www.unwrap_or_default(),
            memory: a.seen.memory.unwrap_or(DEFAULT_SPILL_BUDGET),
            temp_dir: None,
        },
    };
    let (inputs, problems) = a.io.inputs();
    check_paths(&a.io, a.seen.store())?;
    let mut dedup = if edges {
        // every edge is written once; no seen-set is asked
        Box::new(linksieve_dedup::MemorySet::new())
    } else {
        a.seen.open(
            &KeyIdentity::of(&opts.keying, opts.input),
            a.io.out.is_some(),
        )?
    };
    let cancel = cancel_on_sigint()?;
    let progress: Arc<AtomicU64> = Arc::default();
    let bar = progress_bar(&inputs, &progress, a.io.quiet);
    let (mut out, tmp) = open_output(a.io.out.as_deref())?;
    let started = Instant::now();
    let result =
        linksieve_pipeline::run(&inputs, &opts, dedup.as_mut(), &mut out, &progress, &cancel);
    drop(out);
    if let Some((stop, handle)) = bar {
        stop.store(true, Ordering::Relaxed);
        let _ = handle.join();
    }
    let end = End {
        io: &a.io,
        tmp,
        problems,
        started,
    };
    end.conclude(result, dedup)
}

/// The inputs' total size in bytes as stored (compressed ones too), when every input is a
/// regular file: then the progress bar can show a percentage and the time left.
fn total_size(inputs: &[InputSpec]) -> Option<u64> {
    inputs
        .iter()
        .map(|i| match i {
            InputSpec::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            InputSpec::Stdin | InputSpec::Skipped { .. } => None,
        })
        .sum()
}

/// A progress bar on stderr when it is a terminal (silent otherwise): bytes read, the rate and
/// the elapsed time; with a known total (every input a regular file) a bar, the percentage and
/// the time left.
fn progress_bar(
    inputs: &[InputSpec],
    progress: &Arc<AtomicU64>,
    quiet: bool,
) -> Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let total = total_size(inputs);
    let (bar, template) = match total {
        Some(t) => (
            indicatif::ProgressBar::new(t),
            "{spinner} {percent:>3}% {bytes}/{total_bytes} {bytes_per_sec} {elapsed} left {eta} [{wide_bar}]",
        ),
        None => (
            indicatif::ProgressBar::no_length(),
            "{spinner} {bytes} {bytes_per_sec} {elapsed_precise}",
        ),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let (s, p) = (stop.clone(), progress.clone());
    let handle = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            bar.set_position(p.load(Ordering::Relaxed));
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        bar.finish_and_clear();
    });
    Some((stop, handle))
}

//! `linksieve run`: the main job. Argument parsing, the progress bar, signals and the output file;
//! the work is `linksieve_pipeline::run`.

use crate::ladder_cmds::{FormArg, LadderArgs, options, store_identity};
use crate::lines::Mode;
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use linksieve_dedup::{Abandoned, PersistentOptions, PersistentSet, SpillConfig, StoreIdentity};
use linksieve_iri::InputMode;
use linksieve_pipeline::dedup::{ApproxDedup, Dedup, MemoryDedup, PersistentDedup, SpillDedup};
use linksieve_pipeline::{
    InputSpec, OutputFormat, RunError, RunOptions, WarcRecords, expand_inputs,
};
use linksieve_scan::{EncodingChoice, ScanOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Seen-set kinds.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum DedupArg {
    /// Exact, in RAM.
    Memory,
    /// Exact for any number of keys: sorted runs on disk, k-way merge (with --memory).
    Spill,
    /// A Bloom filter (with --fp-rate): may drop new keys; the expected number is reported.
    Approx,
}

/// Output formats of `run`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RunFormat {
    /// One key per line.
    Keys,
    /// `key<TAB>canonical<TAB>original<TAB>provenance`: the key's fingerprint in hex, the key,
    /// the first original, `INPUT:LINE:OFFSET` or the WARC record's target URI; fields escaped.
    Tsv,
    /// One JSON object per new key.
    Jsonl,
}

/// `linksieve run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    ladder: LadderArgs,
    /// Form of the keys.
    #[arg(long, value_enum, default_value_t = FormArg::Uri)]
    form: FormArg,
    /// How found links are read before parsing (LEIRI accepts what text often holds: `|`, `{`).
    #[arg(long, value_enum, default_value_t = Mode::Leiri)]
    input: Mode,
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
    /// Undo HTML character references (`&amp;`, `&#xE9;`, `&eacute;`) in found links.
    #[arg(long)]
    html: bool,
    /// Worker threads, 1 to 256 (default 0: one per core).
    #[arg(long, short = 'j', default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
    /// Bytes per chunk of input, 4K to 256M (e.g. 1M).
    #[arg(long, default_value = "1M", value_parser = parse_chunk_size, value_name = "SIZE")]
    chunk_size: usize,
    #[command(flatten)]
    seen: SeenArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RunFormat::Keys)]
    format: RunFormat,
    /// Write `key<TAB>count` at the end (first-occurrence order) instead of keys.
    #[arg(long)]
    counts: bool,
    /// WARC records to scan: `content` (response payloads, resource and conversion records,
    /// not `metadata:` targets or media without text) or `all` (every record's block).
    #[arg(long, value_enum, default_value_t = WarcRecordsArg::Content, value_name = "WHICH")]
    warc_records: WarcRecordsArg,
    #[command(flatten)]
    io: IoArgs,
}

/// `--warc-records`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum WarcRecordsArg {
    Content,
    All,
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
        if self.inputs.is_empty() {
            expand_inputs(&[PathBuf::from("-")])
        } else {
            expand_inputs(&self.inputs)
        }
    }
}

/// The seen-set options, shared by `run` and `dedup`.
#[derive(Args, Debug)]
pub struct SeenArgs {
    /// Seen-set.
    #[arg(long, value_enum, default_value_t = DedupArg::Memory)]
    dedup: DedupArg,
    /// Memory budget of `--dedup spill` (default 512M; the process stays within it plus
    /// 32 MiB + 16 x --chunk-size per thread), or the most an `--dedup approx` filter may grow
    /// to. 64K to 1T.
    #[arg(long, value_parser = parse_memory, value_name = "SIZE")]
    memory: Option<usize>,
    /// False-positive rate of `--dedup approx`.
    #[arg(long, default_value_t = 0.001, value_name = "P")]
    fp_rate: f64,
    /// Expected unique keys, to size `--dedup approx`: 0 to 10^10 (the filter grows past it).
    #[arg(long, default_value_t = 10_000_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(..=MAX_EXPECTED))]
    expected: u64,
    /// A persistent seen-set: only keys no earlier run wrote are written.
    #[arg(long, value_name = "PATH")]
    seen: Option<PathBuf>,
}

impl SeenArgs {
    /// The seen-set these options ask for; a persistent one is opened with `id` (and refuses a
    /// store made with another). `atomic`: the output goes to a file renamed into place at the
    /// end (`--out`) rather than to a stream.
    fn open(&self, id: &StoreIdentity, atomic: bool) -> Result<Box<dyn Dedup>> {
        if self.memory.is_some() && !matches!(self.dedup, DedupArg::Spill | DedupArg::Approx) {
            bail!("--memory sets the budget of --dedup spill or approx");
        }
        let Some(path) = &self.seen else {
            return Ok(match self.dedup {
                DedupArg::Memory => Box::new(MemoryDedup::default()),
                DedupArg::Spill => {
                    let budget = self.memory.unwrap_or(512 << 20);
                    Box::new(SpillDedup::new(SpillConfig::new(budget))?)
                }
                DedupArg::Approx => {
                    let d = ApproxDedup::new(self.expected, self.fp_rate)?;
                    Box::new(match self.memory {
                        Some(m) => d.with_max_bytes(m),
                        None => d,
                    })
                }
            });
        };
        // With --out the output of a killed run is never renamed into place, so keys it committed
        // must count as new again; on a stream they were (probably) printed.
        let abandoned = if atomic {
            Abandoned::New
        } else {
            Abandoned::Seen
        };
        let set = PersistentSet::open(
            path,
            id,
            PersistentOptions {
                abandoned,
                ..Default::default()
            },
        )
        .with_context(|| format!("--seen {}", path.display()))?;
        // Atomic output: large batches (fast). A stream: commit each chunk, so that a kill -9
        // leaves at most one chunk's keys committed but not written.
        let batch = if atomic {
            linksieve_pipeline::dedup::PERSISTENT_BATCH
        } else {
            0
        };
        Ok(Box::new(PersistentDedup::new(set, batch)))
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
    #[arg(long, value_enum, default_value_t = FormArg::Uri)]
    form: FormArg,
    #[command(flatten)]
    io: IoArgs,
}

/// Runs `linksieve dedup`: exit 0, 1 when an input could not be read, 130 after SIGINT.
pub fn dedup(a: &DedupArgs) -> Result<ExitCode> {
    let normalize = options(&a.ladder, InputMode::Strict, a.form.into())?;
    let (inputs, problems) = a.io.inputs();
    out_is_not_the_store(a.io.out.as_deref(), a.seen.seen.as_deref())?;
    let mut dedup = a
        .seen
        .open(&store_identity(&normalize), a.io.out.is_some())?;
    let cancel = cancel_on_sigint()?;
    let (mut out, tmp) = open_output(a.io.out.as_deref())?;
    let result = linksieve_pipeline::dedup_lines(&inputs, dedup.as_mut(), &mut out, &cancel);
    let result = flushed(result, out);
    let end = End {
        io: &a.io,
        tmp,
        problems,
    };
    end.conclude(result, dedup.as_mut())
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

/// `--out` and `--seen` naming one file (by path, symlink or hard link) is a usage error: the
/// output's rename would replace the store with the key list.
fn out_is_not_the_store(out: Option<&Path>, seen: Option<&Path>) -> Result<()> {
    let (Some(out), Some(seen)) = (out, seen) else {
        return Ok(());
    };
    // the path as it will be, for a file not made yet: its folder resolved, then its name
    let resolved = |p: &Path| -> PathBuf {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        match (std::fs::canonicalize(dir), p.file_name()) {
            (Ok(d), Some(n)) => d.join(n),
            _ => p.to_path_buf(),
        }
    };
    let same = match (std::fs::metadata(out), std::fs::metadata(seen)) {
        #[cfg(unix)]
        (Ok(a), Ok(b)) => {
            use std::os::unix::fs::MetadataExt;
            (a.dev(), a.ino()) == (b.dev(), b.ino())
        }
        _ => resolved(out) == resolved(seen),
    };
    if same {
        bail!(
            "--out {} is the --seen store: the output would replace it",
            out.display()
        );
    }
    Ok(())
}

/// Standard output, or a temporary file beside `path` that `End::conclude` renames into place
/// (call it after the seen store is opened: it removes strays of killed runs).
fn open_output(path: Option<&Path>) -> Result<(Box<dyn Write>, Option<tempfile_path::Tmp>)> {
    Ok(match path {
        Some(path) => {
            let tmp = tempfile_path::Tmp::create(path)?;
            (Box::new(tmp.file()?), Some(tmp))
        }
        None => (Box::new(std::io::stdout().lock()), None),
    })
}

/// The result with the output flushed (a failed flush is an output error), the output closed.
fn flushed<S>(result: Result<S, RunError>, mut out: Box<dyn Write + '_>) -> Result<S, RunError> {
    let result = match result {
        Ok(s) => out.flush().map(|()| s).map_err(RunError::Output),
        e => e,
    };
    drop(out);
    result
}

/// The counters `run` and `dedup` report at the end.
trait Report {
    fn failures(&mut self) -> &mut Vec<linksieve_pipeline::InputFailure>;
    fn json(&self) -> String;
    fn text(&self) -> String;
    fn interrupted(&self) -> bool;
}

/// Both counters have the same fields for this.
macro_rules! report {
    ($t:ty) => {
        impl Report for $t {
            fn failures(&mut self) -> &mut Vec<linksieve_pipeline::InputFailure> {
                &mut self.inputs_failed
            }
            fn json(&self) -> String {
                self.to_json()
            }
            fn text(&self) -> String {
                self.summary()
            }
            fn interrupted(&self) -> bool {
                self.interrupted
            }
        }
    };
}
report!(linksieve_pipeline::RunStats);
report!(linksieve_pipeline::DedupStats);

/// An output step that failed at run time (`--out`'s temporary file or rename, `--stats`):
/// the program ends with `EXIT_OUTPUT` (3), not the usage status.
#[derive(Debug)]
pub struct OutputFailure(pub String);

impl std::fmt::Display for OutputFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How `run` and `dedup` end.
struct End<'a> {
    io: &'a IoArgs,
    /// The temporary output file (renamed to `--out` at the end).
    tmp: Option<tempfile_path::Tmp>,
    /// Inputs that could not even be listed.
    problems: Vec<linksieve_pipeline::InputProblem>,
}

impl End<'_> {
    /// A closed pipe is a quiet success; other errors go up. After a run: the output file into
    /// place, then (only then) the persistent set's keys marked final (after SIGINT too: every
    /// key committed to the store was written before the run returned); the summary; the exit
    /// status: 130 after SIGINT, 1 when an input could not be read, else 0.
    fn conclude<S: Report>(
        self,
        result: Result<S, RunError>,
        dedup: &mut dyn Dedup,
    ) -> Result<ExitCode> {
        let mut stats = match result {
            Ok(s) => s,
            Err(RunError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                return Ok(ExitCode::SUCCESS);
            }
            Err(e) => return Err(e.into()),
        };
        match (self.tmp, &self.io.out) {
            (Some(tmp), Some(path)) => tmp
                .persist(path, dedup.as_persistent())
                .context(OutputFailure(format!("--out {}", path.display())))?,
            _ => {
                if let Some(p) = dedup.as_persistent() {
                    p.complete()?;
                }
            }
        }
        stats.failures().extend(self.problems.into_iter().map(|p| {
            linksieve_pipeline::InputFailure {
                input: p.path.display().to_string(),
                error: p.error.to_string(),
            }
        }));
        if let Some(path) = &self.io.stats {
            std::fs::write(path, stats.json())
                .context(OutputFailure(format!("--stats {}", path.display())))?;
        }
        if !self.io.quiet {
            eprint!("{}", stats.text());
        }
        Ok(if stats.interrupted() {
            ExitCode::from(130)
        } else if !stats.failures().is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }
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
        if n >= m && n % m == 0 {
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
fn parse_memory(s: &str) -> Result<usize, String> {
    size_in(s, 64 << 10, 1 << 40)
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

/// `512`, `64K`, `1M`, `2G` (powers of 1024).
fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => return Err(format!("unknown unit in {s:?} (K, M or G)")),
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
    let mode = a.input.into();
    let normalize = options(&a.ladder, mode, a.form.into())?;
    let encoding =
        EncodingChoice::from_label(&a.encoding).map_err(|e| anyhow::anyhow!("--encoding: {e}"))?;
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
        normalize,
        html: a.html,
        format: match a.format {
            RunFormat::Keys => OutputFormat::Keys,
            RunFormat::Tsv => OutputFormat::Tsv,
            RunFormat::Jsonl => OutputFormat::Jsonl,
        },
        counts: a.counts,
        warc_records: match a.warc_records {
            WarcRecordsArg::Content => WarcRecords::Content,
            WarcRecordsArg::All => WarcRecords::All,
        },
    };
    let (inputs, problems) = a.io.inputs();
    out_is_not_the_store(a.io.out.as_deref(), a.seen.seen.as_deref())?;
    let mut dedup = a
        .seen
        .open(&store_identity(&opts.normalize), a.io.out.is_some())?;
    let cancel = cancel_on_sigint()?;
    let progress: Arc<AtomicU64> = Arc::default();
    let bar = progress_bar(&inputs, &progress, a.io.quiet);
    let (mut out, tmp) = open_output(a.io.out.as_deref())?;
    let result =
        linksieve_pipeline::run(&inputs, &opts, dedup.as_mut(), &mut out, &progress, &cancel);
    let result = flushed(result, out);
    if let Some((stop, handle)) = bar {
        stop.store(true, Ordering::Relaxed);
        let _ = handle.join();
    }
    let end = End {
        io: &a.io,
        tmp,
        problems,
    };
    end.conclude(result, dedup.as_mut())
}

/// A progress bar on stderr when it is a terminal (silent otherwise).
fn progress_bar(
    inputs: &[InputSpec],
    progress: &Arc<AtomicU64>,
    quiet: bool,
) -> Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = inputs
        .iter()
        .filter_map(|i| match i {
            InputSpec::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            InputSpec::Stdin => None,
        })
        .sum();
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {bytes}/{total_bytes} {bytes_per_sec} {elapsed_precise}",
        )
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

/// `--out`: a temporary file beside the target, renamed over it at the end (atomic on one file
/// system).
mod tempfile_path {
    use anyhow::{Context, Result};
    use linksieve_pipeline::dedup::PersistentDedup;
    use std::fs::{File, OpenOptions};
    use std::path::{Path, PathBuf};

    /// The temporary output: created new (never an existing file, never through a symlink)
    /// and locked (`flock`) for as long as this run lives, which is how another run tells a
    /// live run's file from a killed run's, across PID namespaces and hosts too.
    pub struct Tmp {
        path: PathBuf,
        file: File,
    }

    /// Opens `path` only if it is a new file: `O_CREAT|O_EXCL` (which fails on any existing
    /// name, a planted symlink included) and `O_NOFOLLOW`.
    fn create_new(path: &Path) -> std::io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true).write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, NOFOLLOW);
        o.open(path)
    }

    #[cfg(unix)]
    const NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;

    /// Takes the lock (`flock`, exclusive) without waiting: false when another open file holds
    /// it (a live run). Where there is no `flock`, every file counts as unlocked.
    fn try_lock(f: &File) -> std::io::Result<bool> {
        #[cfg(unix)]
        {
            use rustix::fs::{FlockOperation, flock};
            match flock(f, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => Ok(true),
                Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
                Err(e) => Err(e.into()),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = f;
            Ok(true)
        }
    }

    impl Tmp {
        pub fn create(target: &Path) -> Result<Tmp> {
            let dir = target
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let name = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            remove_strays(dir, &name);
            // a name no one can guess in advance; an existing one is never opened, only
            // another name tried
            let seed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            let mut last = None;
            for attempt in 0..64u64 {
                let tag = xxhash_rust::xxh3::xxh3_64(
                    &[seed, u64::from(std::process::id()), attempt]
                        .map(u64::to_le_bytes)
                        .concat(),
                );
                let path = dir.join(format!(
                    ".{name}.linksieve-{}-{tag:016x}.tmp",
                    std::process::id()
                ));
                match create_new(&path) {
                    Ok(file) => {
                        let locked = try_lock(&file)
                            .with_context(|| format!("--out: cannot lock {}", path.display()))?;
                        anyhow::ensure!(locked, "--out: {} is locked", path.display());
                        return Ok(Tmp { path, file });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                    Err(e) => {
                        return Err(e)
                            .with_context(|| format!("--out: cannot create {}", path.display()));
                    }
                }
            }
            Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
                .context("--out: no free temporary name beside the target")
        }

        pub fn file(&self) -> Result<std::io::BufWriter<File>> {
            let f = self
                .file
                .try_clone()
                .with_context(|| format!("--out: cannot open {}", self.path.display()))?;
            Ok(std::io::BufWriter::new(f))
        }

        /// Renames the file onto `target` durably (the file's data, then the rename, are on
        /// disk when it returns). With a persistent seen-set, the store does the rename as part
        /// of marking the run finished, so that a kill between the two is recovered.
        pub fn persist(mut self, target: &Path, store: Option<&mut PersistentDedup>) -> Result<()> {
            self.file
                .sync_all()
                .with_context(|| format!("--out: cannot sync {}", self.path.display()))?;
            let rename = || {
                std::fs::rename(&self.path, target)?;
                // The rename itself made durable: the directory's entry.
                File::open(
                    target
                        .parent()
                        .filter(|p| !p.as_os_str().is_empty())
                        .unwrap_or(Path::new(".")),
                )?
                .sync_all()
            };
            let done: Result<()> = match store {
                Some(store) => store
                    .complete_with_output(&self.path, rename)
                    .map_err(Into::into),
                None => rename().map_err(Into::into),
            };
            done.with_context(|| format!("--out: cannot rename to {}", target.display()))?;
            self.path = PathBuf::new();
            Ok(())
        }
    }

    /// Removes the temporary outputs of this target that killed runs left
    /// (`.NAME.linksieve-*.tmp` that no live run holds locked). Called only after the seen
    /// store was opened: the store decides a run killed while it renamed its output by whether
    /// that run's file is still there (`PersistentSet::finish_with_output`), and removes it
    /// itself. A symlink at such a name is removed, never followed.
    fn remove_strays(dir: &Path, name: &str) {
        let prefix = format!(".{name}.linksieve-");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let file = e.file_name();
            let ours = file
                .to_str()
                .is_some_and(|f| f.starts_with(&prefix) && f.ends_with(".tmp"));
            if !ours {
                continue;
            }
            let stale = match e.file_type() {
                Ok(t) if t.is_file() => open_nofollow(&e.path())
                    // held by a live run: not lockable; our lock is dropped with `f`
                    .is_ok_and(|f| matches!(try_lock(&f), Ok(true))),
                Ok(t) => t.is_symlink(),
                Err(_) => false,
            };
            if stale {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    fn open_nofollow(path: &Path) -> std::io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, NOFOLLOW);
        o.open(path)
    }

    impl Drop for Tmp {
        fn drop(&mut self) {
            if !self.path.as_os_str().is_empty() {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

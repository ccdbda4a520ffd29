//! `linksieve run`: the main job. Argument parsing, the progress bar, signals and the output file;
//! the work is `linksieve_pipeline::run`.

use crate::ladder_cmds::{FormArg, LadderArgs, options, store_identity};
use crate::lines::Mode;
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use linksieve_dedup::{Abandoned, PersistentOptions, PersistentSet, SpillConfig, StoreIdentity};
use linksieve_iri::InputMode;
use linksieve_pipeline::dedup::{ApproxDedup, Dedup, MemoryDedup, PersistentDedup, SpillDedup};
use linksieve_pipeline::{InputSpec, OutputFormat, RunError, RunOptions, expand_inputs};
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
    /// Longest link in bytes; longer candidates are counted and skipped.
    #[arg(long, default_value_t = linksieve_scan::DEFAULT_MAX_LINK_LEN, value_name = "BYTES")]
    max_link_len: usize,
    /// Undo HTML character references (`&amp;`, `&#xE9;`, `&eacute;`) in found links.
    #[arg(long)]
    html: bool,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Bytes per chunk of input (e.g. 1M).
    #[arg(long, default_value = "1M", value_parser = parse_size, value_name = "SIZE")]
    chunk_size: usize,
    #[command(flatten)]
    seen: SeenArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RunFormat::Keys)]
    format: RunFormat,
    /// Write `key<TAB>count` at the end (first-occurrence order) instead of keys.
    #[arg(long)]
    counts: bool,
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
    /// Memory budget of `--dedup spill` (e.g. 512M), or the most an `--dedup approx` filter may
    /// grow to.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    memory: Option<usize>,
    /// False-positive rate of `--dedup approx`.
    #[arg(long, default_value_t = 0.001, value_name = "P")]
    fp_rate: f64,
    /// Expected unique keys, to size `--dedup approx`.
    #[arg(long, default_value_t = 10_000_000, value_name = "N")]
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
            (Some(tmp), Some(path)) => tmp.persist(path, dedup.as_persistent())?,
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
                .with_context(|| format!("--stats {}", path.display()))?;
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
    };
    let (inputs, problems) = a.io.inputs();
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
    use std::path::{Path, PathBuf};

    pub struct Tmp {
        path: PathBuf,
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
            let path = dir.join(format!(".{name}.linksieve-{}.tmp", std::process::id()));
            Ok(Tmp { path })
        }

        pub fn file(&self) -> Result<std::io::BufWriter<std::fs::File>> {
            let f = std::fs::File::create(&self.path)
                .with_context(|| format!("--out: cannot create {}", self.path.display()))?;
            Ok(std::io::BufWriter::new(f))
        }

        /// Renames the file onto `target` durably (the file's data, then the rename, are on
        /// disk when it returns). With a persistent seen-set, the store does the rename as part
        /// of marking the run finished, so that a kill between the two is recovered.
        pub fn persist(mut self, target: &Path, store: Option<&mut PersistentDedup>) -> Result<()> {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&self.path)
                .and_then(|f| f.sync_all())
                .with_context(|| format!("--out: cannot sync {}", self.path.display()))?;
            let rename = || {
                std::fs::rename(&self.path, target)?;
                // The rename itself made durable: the directory's entry.
                std::fs::File::open(
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

    /// Removes the temporary outputs of this target that killed runs left (`.NAME.linksieve-PID.tmp`
    /// whose process is gone; Linux, where `/proc` says). Called only after the seen store was
    /// opened: the store decides a run killed while it renamed its output by whether that
    /// run's file is still there (`PersistentSet::finish_with_output`), and removes it itself.
    fn remove_strays(dir: &Path, name: &str) {
        if !cfg!(target_os = "linux") {
            return;
        }
        let prefix = format!(".{name}.linksieve-");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let file = e.file_name();
            let pid = file
                .to_str()
                .and_then(|f| f.strip_prefix(&prefix))
                .and_then(|r| r.strip_suffix(".tmp"))
                .and_then(|p| p.parse::<u32>().ok());
            if let Some(pid) = pid
                && pid != std::process::id()
                && !Path::new(&format!("/proc/{pid}")).exists()
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    impl Drop for Tmp {
        fn drop(&mut self) {
            if !self.path.as_os_str().is_empty() {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

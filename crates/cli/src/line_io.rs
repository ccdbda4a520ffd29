//! The line-command convention shared by `parse`, `resolve`, `to-uri`, `to-iri`, `check` and
//! `normalize`: items come from the arguments, from files (`--file`) or from stdin (no items, or
//! `-`), one per line; each gives one output line (text), one JSON object (`--format jsonl`) or
//! one engine row (`--format tsv`); rejected items are reported and counted, and the exit status
//! is 1 when there was one.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use std::fmt::Display;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Output format of the line commands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One result per line; errors on stderr as `line N: <reason> at byte K`.
    #[default]
    Text,
    /// One JSON object per input line: `{"input", "output"}` or `{"input", "error"}`.
    Jsonl,
    /// The engine row `fingerprint<TAB>key<TAB>original<TAB>provenance`: the output's fingerprint
    /// in hex, the output, the input line, `FILE:LINE` (`-` for stdin, `arg` for arguments);
    /// fields escaped. Errors on stderr as `FILE:LINE: <reason>`.
    Tsv,
}

/// Options every line command takes.
#[derive(Args, Debug, Clone)]
pub struct LineArgs {
    #[command(flatten)]
    pub input: crate::ladder_cmds::IriInputMode,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Read items, one per line, from FILE (`-` for stdin); repeatable.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// What an operation returns for one item.
pub struct Reply {
    /// The text-mode output line.
    pub text: String,
    /// The `output` value in JSONL mode.
    pub json: Value,
    /// True when the item counts as rejected although there is output (`check` with errors).
    pub rejected: bool,
}

impl Reply {
    /// A plain string result.
    pub fn text(s: String) -> Self {
        Reply {
            json: Value::String(s.clone()),
            text: s,
            rejected: false,
        }
    }
}

/// Runs `op` over every item and prints the results; returns the exit status.
pub fn run<E: Display>(
    items: &[String],
    args: &LineArgs,
    op: impl Fn(&str) -> Result<Reply, E>,
) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut n = 0usize;
    let mut rejected = 0usize;
    // `source` and `line` name the item in `--format tsv` (`arg:3`, `-:12`, `list.txt:7`).
    let mut each = |item: Result<&str, String>,
                    (source, line): (&str, usize),
                    out: &mut BufWriter<_>|
     -> Result<()> {
        n += 1;
        let (input, result) = match item {
            Ok(s) => (s, op(s).map_err(|e| e.to_string())),
            Err(e) => ("", Err(e)),
        };
        if !matches!(
            result,
            Ok(Reply {
                rejected: false,
                ..
            })
        ) {
            rejected += 1;
        }
        match (args.format, result) {
            (Format::Text, Ok(r)) => writeln!(out, "{}", r.text)?,
            (Format::Text, Err(e)) => {
                out.flush()?;
                eprintln!("line {n}: {e}");
            }
            (Format::Jsonl, Ok(r)) => {
                writeln!(out, "{}", json!({"input": input, "output": r.json}))?
            }
            (Format::Jsonl, Err(e)) => writeln!(out, "{}", json!({"input": input, "error": e}))?,
            (Format::Tsv, Ok(r)) => {
                let provenance = format!("{source}:{line}");
                linksieve_pipeline::write_row(out, None, &r.text, input, &provenance)?
            }
            (Format::Tsv, Err(e)) => {
                out.flush()?;
                eprintln!("{source}:{line}: {e}");
            }
        }
        Ok(())
    };
    let use_stdin = (items.is_empty() && args.files.is_empty()) || items.iter().any(|i| i == "-");
    for (i, item) in items.iter().filter(|i| *i != "-").enumerate() {
        each(Ok(item), ("arg", i + 1), &mut out)?;
    }
    let mut sources: Vec<PathBuf> = args.files.clone();
    if use_stdin {
        sources.push(PathBuf::from("-"));
    }
    for path in &sources {
        let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
            Box::new(std::io::stdin().lock())
        } else {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            Box::new(std::io::BufReader::with_capacity(1 << 16, f))
        };
        let name = path.display().to_string();
        let mut line = 0;
        for_each_line(reader, |item| {
            line += 1;
            each(item, (&name, line), &mut out)
        })?;
    }
    out.flush()?;
    Ok(if rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Calls `f` with each line of `reader` (without `\n` / `\r\n`, and without a UTF-8 BOM at the
/// start), or with an error text for a line that is not UTF-8.
fn for_each_line(
    mut reader: impl BufRead,
    mut f: impl FnMut(Result<&str, String>) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let mut line = buf.as_slice();
        line = line.strip_suffix(b"\n").unwrap_or(line);
        line = line.strip_suffix(b"\r").unwrap_or(line);
        if first {
            line = line.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(line);
            first = false;
        }
        match std::str::from_utf8(line) {
            Ok(s) => f(Ok(s))?,
            Err(e) => f(Err(format!("invalid UTF-8 at byte {}", e.valid_up_to())))?,
        }
    }
}

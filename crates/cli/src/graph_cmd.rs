//! `linksieve graph`: edge rows (`run --format edges`) into a graph folder in Common Crawl's
//! text layout, or the check of such a folder.

use crate::run_cmd::{parse_memory, tell};
use anyhow::{Context, Result};
use clap::Args;
use linksieve_graph::{
    EdgeSet, GraphError, GraphFileOptions, check_graph_dir, read_edge_rows, write_graph_dir,
};
use linksieve_pipeline::seen::DEFAULT_SPILL_BUDGET;
use linksieve_pipeline::{InputFailure, expand_inputs, open_input};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `linksieve graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// The graph folder to write: `vertices.txt.gz` (`id<TAB>name`, names sorted, IDs from 0)
    /// and `edges.txt.gz` (`s<TAB>t`, sorted), each replaced whole at the end; made when missing.
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    out: Option<PathBuf>,
    /// Check the graph folder DIR instead (IDs from 0 in name order, names sorted, edges of
    /// vertex IDs sorted, no self-loops): exit 1 at the first line that breaks a rule.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["out", "weights", "memory", "inputs", "format"]
    )]
    check: Option<PathBuf>,
    /// Write each edge's count as a third column of `edges.txt.gz` (`s<TAB>t<TAB>count`).
    #[arg(long)]
    weights: bool,
    /// The folder's files: `text` (gzip, as Common Crawl publishes them) or `parquet`
    /// (`vertices.parquet`: id, name; `edges.parquet`: s, t[, count]; zstd).
    #[arg(long, value_enum, default_value_t = GraphFormat::Text, value_name = "FORMAT")]
    format: GraphFormat,
    /// Bytes the sorts hold in memory, 64K to 1T (default 512M); past it they write sorted
    /// runs to TMPDIR.
    #[arg(long, value_parser = parse_memory, value_name = "SIZE")]
    memory: Option<usize>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Edge rows, `source<TAB>target[<TAB>count[<TAB>...]]` (what `run --format edges`
    /// writes): files (compressed ones too), directories, `-` for stdin (the default).
    inputs: Vec<PathBuf>,
}

/// The files of a graph folder (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// `vertices.txt.gz` and `edges.txt.gz`.
    Text,
    /// `vertices.parquet` and `edges.parquet`.
    Parquet,
}

/// Runs `linksieve graph`: exit 0, 1 when an input could not be read or a row was rejected
/// (or, with `--check`, the folder breaks a rule), 4 when the folder could not be written.
pub fn run(a: &GraphArgs) -> Result<ExitCode> {
    if let Some(dir) = &a.check {
        return Ok(match check_graph_dir(dir) {
            Ok(t) => {
                if !a.quiet {
                    eprintln!(
                        "linksieve graph: {}: {} vertices, {} edges, sorted",
                        dir.display(),
                        t.vertices,
                        t.edges
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("linksieve: {}: {e}", dir.display());
                ExitCode::from(1)
            }
        });
    }
    let Some(out) = &a.out else {
        anyhow::bail!("--out DIR is required");
    };
    let budget = a.memory.unwrap_or(DEFAULT_SPILL_BUDGET);
    let temp_base = std::env::temp_dir();
    // the rows' set takes half the budget; the three sorts of the files the rest
    let mut set = EdgeSet::new(budget / 2, &temp_base);
    let args = if a.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        a.inputs.clone()
    };
    let (inputs, problems) = expand_inputs(&args);
    let mut failed = !problems.is_empty();
    for p in &problems {
        tell(&InputFailure {
            input: p.path.display().to_string(),
            error: p.error.to_string(),
        });
    }
    let (mut lines, mut rejected) = (0, 0);
    for input in &inputs {
        let name = input.name();
        let rows = open_input(input)
            .map_err(GraphError::Input)
            .and_then(|(mut r, _)| read_edge_rows(&mut r, &mut set));
        match rows {
            Ok(rows) => {
                lines += rows.lines;
                rejected += rows.rejected.len();
                for (line, why) in &rows.rejected {
                    eprintln!("linksieve: {name}:{line}: {why}");
                }
            }
            Err(GraphError::Input(e)) => {
                failed = true;
                tell(&InputFailure {
                    input: name.to_string(),
                    error: e.to_string(),
                });
            }
            Err(e) => return Err(e).context("the edge rows' sort"),
        }
    }
    let opts = GraphFileOptions {
        weights: a.weights,
        budget,
        temp_base,
        parquet: a.format == GraphFormat::Parquet,
    };
    let t = write_graph_dir(set, &opts, out).with_context(|| format!("--out {}", out.display()))?;
    if !a.quiet {
        eprintln!(
            "linksieve graph: {lines} lines read, {rejected} rejected; {} vertices, {} edges \
             ({} self-loops left out) written to {}",
            t.vertices,
            t.edges,
            t.self_loops,
            out.display()
        );
    }
    Ok(if failed || rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

//! `linksieve`: find every IRI in text of any encoding, reduce each to a canonical key, write
//! each key once. This binary only parses arguments and prints; the work is in the library
//! crates.

mod graph_cmd;
mod iri_cmds;
mod ladder_cmds;
mod line_io;
mod run_cmd;
mod scan_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Find, normalize and deduplicate IRIs (RFC 3986 / RFC 3987 / draft-ietf-iri-3987bis).
#[derive(Parser, Debug)]
#[command(name = "linksieve", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse IRI references and print their components (3987bis 2.2)
    Parse(iri_cmds::ParseArgs),
    /// Resolve references against a base (RFC 3986 5.2)
    Resolve(iri_cmds::ResolveArgs),
    /// Map IRIs to URIs (3987bis 3.3-3.6)
    ToUri(iri_cmds::ToUriArgs),
    /// Convert URIs to IRIs (3987bis 3.7)
    ToIri(iri_cmds::PlainArgs),
    /// Check bidi rules and characters not appropriate in IRIs (3987bis 4.1, 4.2, 5.1, 6.3)
    Check(iri_cmds::PlainArgs),
    /// The main job: find every IRI in the inputs, key it on the ladder, write each key once
    Run(Box<run_cmd::RunArgs>),
    /// Edge rows (`run --format edges`) into graph files as Common Crawl publishes them, or check them
    Graph(graph_cmd::GraphArgs),
    /// The dedup stage alone: each distinct line once, in first-occurrence order (keys made elsewhere)
    Dedup(Box<run_cmd::DedupArgs>),
    /// Find IRIs in running text
    Scan(scan_cmd::ScanArgs),
    /// Normalize IRIs to keys on a rung of the comparison ladder (draft-ietf-iri-comparison 4)
    Normalize(ladder_cmds::NormalizeArgs),
    /// Compare two IRIs up the comparison ladder: the lowest rung where they are equivalent
    Compare(ladder_cmds::CompareArgs),
    /// Print the identity of the keys these options make (hash, rung, form, rule-set version)
    Identity(ladder_cmds::IdentityArgs),
}

fn main() -> ExitCode {
    quiet_caught_panics();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Parse(a) => iri_cmds::parse(a),
        Command::Resolve(a) => iri_cmds::resolve(a),
        Command::ToUri(a) => iri_cmds::to_uri(a),
        Command::ToIri(a) => iri_cmds::to_iri(a),
        Command::Check(a) => iri_cmds::check(a),
        Command::Run(a) => run_cmd::run(a),
        Command::Dedup(a) => run_cmd::dedup(a),
        Command::Graph(a) => graph_cmd::run(a),
        Command::Scan(a) => scan_cmd::run(a),
        Command::Normalize(a) => ladder_cmds::normalize(a),
        Command::Compare(a) => ladder_cmds::compare(a),
        Command::Identity(a) => ladder_cmds::identity(a),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) && e.downcast_ref::<run_cmd::Unrecorded>().is_none() => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("linksieve: {}", message(&e));
            ExitCode::from(exit_status(&e))
        }
    }
}

/// Leaves unprinted a panic that a library catches and returns as an error (which `main`
/// prints): the Parquet reader's on a damaged file (`linksieve_columnar::read_table`). Every
/// other panic is printed as Rust prints it.
fn quiet_caught_panics() {
    #[cfg(feature = "parquet")]
    {
        let print = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !linksieve_columnar::reader_panic_is_caught() {
                print(info);
            }
        }));
    }
}

/// Exit status of a run-time failure of the output (`--out`, stdout, `--stats`): a write or
/// rename that failed (disk full, no permission), or a closed output that left a store with
/// keys it could not record. The same as a store's failure (both are run-time failures of
/// where the results go).
pub const EXIT_OUTPUT: u8 = 4;
/// Exit status of a run-time failure of a seen-set's storage: the `--seen` store is damaged,
/// locked by another process or cannot be written; a spill file (of a seen-set or of the
/// edge set of `--format edges`) failed.
pub const EXIT_STORE: u8 = 4;

/// The status an error ends the program with: [`EXIT_OUTPUT`], [`EXIT_STORE`], else 2 (the
/// arguments or what they name: usage). A store made for other keys, or an invalid seen-set
/// configuration, is a usage error.
fn exit_status(e: &anyhow::Error) -> u8 {
    use linksieve_dedup::DedupError;
    use linksieve_pipeline::RunError;
    use linksieve_pipeline::output::OutputError;
    let store = |d: &DedupError| match d {
        DedupError::InvalidConfig(_) | DedupError::IdentityMismatch { .. } => 2,
        _ => EXIT_STORE,
    };
    // the store first: an output step that failed in the store (the rename `--out` does
    // with `--seen`) is the store's failure
    for c in e.chain() {
        if let Some(d) = c.downcast_ref::<DedupError>() {
            return store(d);
        }
        if let Some(RunError::Dedup(d)) = c.downcast_ref::<RunError>() {
            return store(d);
        }
        if let Some(OutputError::Store(d)) = c.downcast_ref::<OutputError>() {
            return store(d);
        }
    }
    // `OutputFailure` is a context (anyhow finds it on the error, not in its chain)
    let output = e.downcast_ref::<run_cmd::OutputFailure>().is_some()
        || e.downcast_ref::<run_cmd::Unrecorded>().is_some()
        || e.chain().any(|c| {
            matches!(
                c.downcast_ref::<RunError>(),
                Some(RunError::Output(_) | RunError::Edges(_))
            ) || c.downcast_ref::<OutputError>().is_some()
                || c.downcast_ref::<linksieve_graph::GraphError>().is_some()
        });
    if output { EXIT_OUTPUT } else { 2 }
}

/// The error and its causes, each said once: a cause whose text its error already holds (a
/// `thiserror` message that formats its source) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for c in e.chain() {
        let text = c.to_string();
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
    }
    out
}

/// A closed stdout (`| head`) ends the program quietly.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

//! `linksieve`: find every IRI in text of any encoding, reduce each to a canonical key, write
//! each key once. This binary only parses arguments and prints; the work is in the library
//! crates.

mod iri_cmds;
mod ladder_cmds;
mod lines;
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
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Parse(a) => iri_cmds::parse(a),
        Command::Resolve(a) => iri_cmds::resolve(a),
        Command::ToUri(a) => iri_cmds::to_uri(a),
        Command::ToIri(a) => iri_cmds::to_iri(a),
        Command::Check(a) => iri_cmds::check(a),
        Command::Run(a) => run_cmd::run(a),
        Command::Dedup(a) => run_cmd::dedup(a),
        Command::Scan(a) => scan_cmd::run(a),
        Command::Normalize(a) => ladder_cmds::normalize(a),
        Command::Compare(a) => ladder_cmds::compare(a),
        Command::Identity(a) => ladder_cmds::identity(a),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("linksieve: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// A closed stdout (`| head`) ends the program quietly.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

//! The `pipeline` target: `linksieve run` (crates/pipeline) on small inputs.
//!
//! Input layout: byte 0 picks the options (bit 0 schemeless, bit 1 email, bits 2-3 the output
//! format: keys, tsv, jsonl; bit 4 `--html`; bits 5-6 the rung: scheme, syntax, protocol,
//! string); the rest is the content of the one input file.
//!
//! Oracle: with 1 and 2 worker threads and chunks of 4 and 8 KiB (the smallest chunk the
//! pipeline takes), the output is byte for byte the same, and so are the counters that do not
//! depend on how the input was cut: inputs, failures, bytes read, links found, rejected links by
//! reason, too-long candidates, unique keys and duplicates.

use linksieve_dedup::MemorySet;
use linksieve_iri::{NormalizeOptions, Rung};
use linksieve_pipeline::{InputSpec, Keying, OutputFormat, RunOptions, RunStats};
use linksieve_scan::ScanOptions;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The input file of this process (one per process, rewritten for every input).
fn input_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("linksieve-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join("input")
    })
}

/// The counters compared between runs.
fn comparable(s: &RunStats) -> impl PartialEq + std::fmt::Debug + use<> {
    (
        s.inputs,
        s.inputs_failed.clone(),
        s.bytes_read,
        s.links_found,
        s.rejected.clone(),
        s.too_long,
        s.unique_keys,
        s.duplicates,
    )
}

/// Runs the pipeline on `data` with every thread count and chunk size and compares.
#[allow(clippy::needless_update)]
pub fn run(data: &[u8]) {
    let (flags, content) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let path = input_path();
    std::fs::write(path, content).expect("write the input file");
    let format = match flags >> 2 & 3 {
        1 => OutputFormat::Tsv,
        2 => OutputFormat::Jsonl,
        _ => OutputFormat::Keys,
    };
    let rung =
        [Rung::Scheme, Rung::Syntax, Rung::Protocol, Rung::String][usize::from(flags >> 5 & 3)];
    let inputs = [InputSpec::File(path.clone())];
    let mut first: Option<(Vec<u8>, RunStats, usize, usize)> = None;
    for threads in [1, 2] {
        for chunk_size in [4096, 8192] {
            let opts = RunOptions {
                threads,
                chunk_size,
                scan: ScanOptions {
                    schemeless: flags & 1 != 0,
                    email: flags & 2 != 0,
                    ..ScanOptions::default()
                },
                keying: Keying {
                    ladder: NormalizeOptions {
                        rung,
                        ..NormalizeOptions::default()
                    },
                    profile: None,
                },
                html: flags & 0x10 != 0,
                format,
                ..RunOptions::default()
            };
            let mut out = Vec::new();
            let stats = linksieve_pipeline::run(
                &inputs,
                &opts,
                &mut MemorySet::new(),
                &mut out,
                &Default::default(),
                &Default::default(),
            )
            .unwrap_or_else(|e| {
                panic!("run failed with {threads} threads, chunks of {chunk_size}: {e}")
            });
            match &first {
                None => first = Some((out, stats, threads, chunk_size)),
                Some((o, s, t, c)) => {
                    assert!(
                        out == *o,
                        "output differs: {threads} threads, chunks of {chunk_size}:\n{}\nvs {t} threads, chunks of {c}:\n{}",
                        String::from_utf8_lossy(&out),
                        String::from_utf8_lossy(o)
                    );
                    assert_eq!(
                        comparable(&stats),
                        comparable(s),
                        "counters differ: {threads} threads, chunks of {chunk_size} vs {t} threads, chunks of {c}"
                    );
                }
            }
        }
    }
}

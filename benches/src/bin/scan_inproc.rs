//! In-process counterpart of `linksieve scan` for `scripts/bench-scan.sh` and profiling:
//! `linksieve_scan` (`auto` encoding, scheme links only) reading each file in 1 MiB chunks as
//! the command does. Prints the number of links to stdout (or, with `--print`, the links, one a
//! line, as `linksieve scan` does) and the time spent to stderr.
//!
//! usage: scan_inproc [--print] [--decode-all] [--schemeless] [--email] [--encoding LABEL]
//!                    [--chunk BYTES] FILE...

use std::io::{Read, Write};
use std::time::Instant;

use linksieve_scan::{ScanOptions, Scanner};

fn main() {
    let mut print = false;
    let mut opts = ScanOptions::default();
    let mut chunk = 1usize << 20;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--print" => print = true,
            "--decode-all" => opts.decode_all = true,
            "--schemeless" => opts.schemeless = true,
            "--email" => opts.email = true,
            "--encoding" => {
                let label = args.next().unwrap_or_default();
                match linksieve_scan::EncodingChoice::from_label(&label) {
                    Ok(e) => opts.encoding = e,
                    Err(e) => {
                        eprintln!("scan_inproc: {e}");
                        std::process::exit(2);
                    }
                }
            }
            "--chunk" => {
                chunk = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(chunk)
                    .max(1)
            }
            _ => files.push(a),
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut total = 0usize;
    let mut bytes = 0u64;
    let t = Instant::now();
    let mut buf = vec![0u8; chunk];
    for path in &files {
        let mut f = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("scan_inproc: {path}: {e}");
                std::process::exit(1);
            }
        };
        let mut s = Scanner::new(&opts);
        let mut sink = |h: linksieve_scan::HitRef<'_>| {
            total += 1;
            if print {
                let _ = out.write_all(h.text.as_bytes());
                let _ = out.write_all(b"\n");
            }
        };
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => {
                    eprintln!("scan_inproc: {path}: {e}");
                    std::process::exit(1);
                }
            };
            bytes += n as u64;
            let _ = s.feed_with(&buf[..n], &mut sink);
        }
        let _ = s.finish_with(&mut sink);
        let st = s.stats();
        eprintln!(
            "scan_inproc: {path}: {} candidates, {} skipped bytes, {} malformed",
            st.candidates, st.skipped_bytes, st.malformed_sequences
        );
    }
    let secs = t.elapsed().as_secs_f64();
    if !print {
        let _ = writeln!(out, "{total}");
    }
    let _ = out.flush();
    eprintln!(
        "scan_inproc: {total} links in {bytes} bytes, {secs:.3} s ({:.0} MB/s)",
        bytes as f64 / secs / 1e6
    );
}

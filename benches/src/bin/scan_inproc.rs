//! In-process counterpart of `scan_linkify` for `scripts/bench-scan.sh`: `linksieve_scan`
//! (`auto` encoding, scheme links only) on each file read whole into memory. Prints the number
//! of links to stdout and the time spent scanning to stderr.

use std::time::Instant;

use linksieve_scan::{ScanOptions, scan_bytes};

fn main() {
    let mut total = 0usize;
    let mut bytes = 0usize;
    let mut secs = 0f64;
    for path in std::env::args().skip(1) {
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("scan_inproc: {path}: {e}");
                std::process::exit(1);
            }
        };
        let t = Instant::now();
        let r = scan_bytes(&data, &ScanOptions::default());
        secs += t.elapsed().as_secs_f64();
        total += r.hits.len();
        bytes += data.len();
    }
    println!("{total}");
    eprintln!(
        "scan_inproc: {total} links in {bytes} bytes, {:.3} s scanning",
        secs
    );
}

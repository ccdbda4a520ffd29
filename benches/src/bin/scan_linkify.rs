//! Peer baseline for `scripts/bench-scan.sh`: the `linkify` crate (robinst/linkify) finding
//! URLs (scheme required, no e-mail) in each file, read whole into memory. linkify takes a
//! `&str`, so non-UTF-8 input is converted with `String::from_utf8_lossy` first (it has no
//! legacy decoding). Prints the number of links to stdout and the time spent finding them to
//! stderr.

use std::time::Instant;

fn main() {
    let mut total = 0usize;
    let mut bytes = 0usize;
    let mut secs = 0f64;
    for path in std::env::args().skip(1) {
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("scan_linkify: {path}: {e}");
                std::process::exit(1);
            }
        };
        let t = Instant::now();
        let text = String::from_utf8_lossy(&data);
        let mut finder = linkify::LinkFinder::new();
        finder.kinds(&[linkify::LinkKind::Url]);
        let n = finder.links(&text).count();
        secs += t.elapsed().as_secs_f64();
        total += n;
        bytes += data.len();
    }
    println!("{total}");
    eprintln!(
        "scan_linkify: {total} links in {bytes} bytes, {:.3} s finding",
        secs
    );
}

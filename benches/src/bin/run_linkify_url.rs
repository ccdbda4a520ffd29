//! The peer of `linksieve run` in scripts/bench.sh: what a user writes today without linksieve,
//! the `linkify` crate to find URLs, the `url` crate to normalize them (WHATWG parse + serialize)
//! and a `HashSet` to keep each once, in first-occurrence order. One thread.
//!
//!   run_linkify_url FILE...    (keys to stdout, one per line)

use std::collections::HashSet;
use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let mut finder = linkify::LinkFinder::new();
    finder.kinds(&[linkify::LinkKind::Url]);
    let mut seen: HashSet<String> = HashSet::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path)?;
        let text = String::from_utf8_lossy(&bytes);
        for link in finder.links(&text) {
            if let Ok(u) = url::Url::parse(link.as_str()) {
                let key = u.as_str();
                if !seen.contains(key) {
                    writeln!(out, "{key}")?;
                    seen.insert(key.to_owned());
                }
            }
        }
    }
    out.flush()
}

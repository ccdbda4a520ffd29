//! The line contract for engines (Spark, Hadoop streaming, shell pipelines): one row per key,
//! `key<TAB>canonical<TAB>original<TAB>provenance`, written by `run`, `scan` and `normalize` with
//! `--format tsv`.
//!
//! - `key`: the 128-bit fingerprint of the canonical key (XXH3-128, seed 0,
//!   [`linksieve_dedup::FINGERPRINT_VERSION`]) as 32 lowercase hex digits: the value the local
//!   seen-sets store, fixed-width, so an engine shuffles and joins on it cheaply.
//! - `canonical`: the canonical key itself (the rung and form chosen).
//! - `original`: the text as found (a link) or as given (a line).
//! - `provenance`: where it came from (`INPUT:LINE:OFFSET` for links, `INPUT:LINE` for lines,
//!   the record's target URI for links in WARC records).
//!
//! Every field is escaped with [`tsv`]: no field ever holds a raw tab or line break.

use linksieve_dedup::Fingerprint;
use std::borrow::Cow;
use std::io::{self, Write};

/// Escapes a TSV field: `\` `TAB` `LF` `CR` as `\\` `\t` `\n` `\r`, so no field holds a raw tab or
/// newline (the text convention of PostgreSQL's `COPY`).
///
/// ```
/// assert_eq!(linksieve_pipeline::tsv("a\tb\nc\\d"), "a\\tb\\nc\\\\d");
/// ```
pub fn tsv(s: &str) -> Cow<'_, str> {
    if !s.contains(['\t', '\n', '\r', '\\']) {
        return s.into();
    }
    let mut o = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        match c {
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.into()
}

/// Writes one engine row, `key<TAB>canonical<TAB>original<TAB>provenance` and a line feed, with
/// `key` the fingerprint of `canonical` (computed when `fp` is `None`). `provenance` is escaped
/// like the other fields.
///
/// ```
/// let mut out = Vec::new();
/// linksieve_pipeline::write_row(&mut out, None, "http://example.com/", "HTTP://example.com", "a.txt:1:4").unwrap();
/// let row = String::from_utf8(out).unwrap();
/// let fields: Vec<&str> = row.trim_end().split('\t').collect();
/// assert_eq!(fields.len(), 4);
/// assert_eq!(fields[0].len(), 32);
/// assert_eq!(&fields[1..], ["http://example.com/", "HTTP://example.com", "a.txt:1:4"]);
/// ```
pub fn write_row(
    w: &mut impl Write,
    fp: Option<Fingerprint>,
    canonical: &str,
    original: &str,
    provenance: &str,
) -> io::Result<()> {
    let fp = fp.unwrap_or_else(|| Fingerprint::of(canonical.as_bytes()));
    writeln!(
        w,
        "{:032x}\t{}\t{}\t{}",
        fp.0,
        tsv(canonical),
        tsv(original),
        tsv(provenance)
    )
}

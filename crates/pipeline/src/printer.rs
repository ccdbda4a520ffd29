//! Every output format of `run`, in one place: the keys, the engine rows, the JSONL objects
//! (keys, rejected links, inputs that could not be read) and `--counts`.
//!
//! The engine row is the line contract for engines (Spark, Hadoop streaming, shell pipelines):
//! one row per key, `fingerprint<TAB>key<TAB>original<TAB>provenance`, written by `run`, `scan`
//! and `normalize` with `--format tsv`.
//!
//! - `fingerprint`: the 128-bit fingerprint of the key (XXH3-128, seed 0,
//!   [`linksieve_dedup::FINGERPRINT_VERSION`]) as 32 lowercase hex digits: the value the local
//!   seen-sets store, fixed-width, so an engine shuffles and joins on it cheaply.
//! - `key`: the key itself (the rung and form chosen).
//! - `original`: the text as found (a link) or as given (a line).
//! - `provenance`: where it came from (`INPUT:LINE:OFFSET` for links, `INPUT:LINE` for lines,
//!   the record's target URI for links in WARC records).
//!
//! Every field is escaped with [`tsv`]: no field ever holds a raw tab or line break.

use crate::delivery::Output;
use crate::stats::InputFailure;
use linksieve_dedup::Fingerprint;
use std::borrow::Cow;
use std::io::{self, Write};

/// What `linksieve run` writes for each new key.
///
/// ```
/// assert_eq!(linksieve_pipeline::OutputFormat::default(), linksieve_pipeline::OutputFormat::Keys);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum OutputFormat {
    /// The key, one per line.
    #[default]
    #[cfg_attr(feature = "clap", value(help = "One key per line"))]
    Keys,
    /// The engine row of [`crate::write_row`]: `fingerprint<TAB>key<TAB>original<TAB>provenance`,
    /// with `key` the fingerprint in hex and `provenance` `INPUT:LINE:OFFSET` (or the WARC
    /// record's target URI); fields escaped with [`crate::tsv`].
    #[cfg_attr(
        feature = "clap",
        value(
            help = "`fingerprint<TAB>key<TAB>original<TAB>provenance`: the key's fingerprint in hex, the key, the first original, `INPUT:LINE:OFFSET` or the WARC record's target URI; fields escaped"
        )
    )]
    Tsv,
    /// One JSON object per new key: key, original, file, offset, line, provenance, and `rung`,
    /// the lowest rung at which the original (with its implied scheme, see
    /// [`crate::implied_scheme`]) already has this key. Diagnostics are objects too:
    /// `{"rejected", "error", "file", "offset", "line", "provenance"}` for a link without a key
    /// and `{"input", "error"}` for an input that could not be read.
    #[cfg_attr(feature = "clap", value(help = "One JSON object per new key"))]
    Jsonl,
    /// The link graph of the HTML documents and WARC responses (see [`crate::EdgeOptions`]):
    /// `source<TAB>target<TAB>count<TAB>types` for each (source, target) pair once, sorted by
    /// source then target (byte order), written at the end; `types` the
    /// [`linksieve_graph::LinkTypes`] of its links, comma-separated; fields escaped.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "The link graph (see --graph): `source<TAB>target<TAB>count<TAB>types` for each pair once, sorted, at the end"
        )
    )]
    Edges,
    /// A Parquet table of the new keys (zstd; needs the `parquet` feature): `url` (the key),
    /// `fingerprint` (16 bytes, big endian: the TSV `fingerprint` in hex), `original`, `warc_filename` (the
    /// input), `offset`, `line`, `provenance` (the WARC record's target URI, or null), `rung`,
    /// `url_host_name`, `url_host_registered_domain`, `link_type` (an edge type name, or null
    /// outside documents and records). Written a row group at a time; readable once the run
    /// ends (its footer is written last), which is when a durable seen-set records its keys.
    #[cfg_attr(
        feature = "clap",
        value(
            help = "A Parquet table of the new keys (url, fingerprint, original, warc_filename, offset, line, provenance, rung, url_host_name, url_host_registered_domain, link_type)"
        )
    )]
    Parquet,
}

/// The columns of `--format parquet`, in order (Common Crawl's names where it has one).
#[cfg(feature = "parquet")]
const PARQUET_COLUMNS: [linksieve_columnar::Column; 11] = {
    use linksieve_columnar::Column::*;
    [
        Str("url"),
        Fingerprint("fingerprint"),
        Str("original"),
        Str("warc_filename"),
        Int("offset"),
        Int("line"),
        OptStr("provenance"),
        Str("rung"),
        OptStr("url_host_name"),
        OptStr("url_host_registered_domain"),
        OptStr("link_type"),
    ]
};

impl OutputFormat {
    /// Whether the output shows line numbers: without them neither the reader nor the scanner
    /// counts lines (a pass over every input byte saved).
    pub(crate) fn shows_lines(self) -> bool {
        matches!(
            self,
            OutputFormat::Tsv | OutputFormat::Jsonl | OutputFormat::Parquet
        )
    }
}

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

/// Writes one engine row, `fingerprint<TAB>key<TAB>original<TAB>provenance` and a line feed, with
/// `fingerprint` that of `key` (computed when `fp` is `None`). `provenance` is escaped
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
    key: &str,
    original: &str,
    provenance: &str,
) -> io::Result<()> {
    let fp = fp.unwrap_or_else(|| Fingerprint::of(key.as_bytes()));
    writeln!(
        w,
        "{:032x}\t{}\t{}\t{}",
        fp.0,
        tsv(key),
        tsv(original),
        tsv(provenance)
    )
}

/// An empty table of [`PARQUET_COLUMNS`].
#[cfg(feature = "parquet")]
fn new_table() -> io::Result<linksieve_columnar::Table> {
    linksieve_columnar::Table::new("links", &PARQUET_COLUMNS).map_err(columnar_error)
}

/// A failure of the Parquet writer as an output error (its I/O error as it was).
#[cfg(feature = "parquet")]
fn columnar_error(e: linksieve_columnar::ColumnarError) -> io::Error {
    match e {
        linksieve_columnar::ColumnarError::Io(e) => e,
        e => io::Error::other(e),
    }
}

/// A new key and where its link was found, as the sink hands it to the [`Printer`].
pub(crate) struct KeyRow<'a> {
    pub(crate) fp: u128,
    pub(crate) key: &'a str,
    pub(crate) original: &'a str,
    pub(crate) input: &'a str,
    pub(crate) offset: u64,
    pub(crate) line: u64,
    /// The WARC record's target URI, for links in WARC records.
    pub(crate) provenance: Option<&'a str>,
    /// The lowest rung at which the original already has this key.
    pub(crate) rung: &'static str,
    /// Where a link of a document read as HTML was found (`None` for other inputs).
    pub(crate) from: Option<LinkFrom<'a>>,
    /// Its edge type's name (`None` where `from` is; the Parquet table's `link_type`).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    pub(crate) link_type: Option<&'static str>,
}

/// Where an outlink was found.
pub(crate) enum LinkFrom<'a> {
    /// In the text of a document read as HTML.
    Text,
    /// In an attribute (of a document, or as a WAT record lists it).
    Attribute {
        tag: &'a str,
        attr: &'a str,
        rel: Option<&'a str>,
    },
    /// In a WARC record's HTTP head, or its robots.txt.
    Record(&'a linksieve_inputs::RecordLinkKind),
}

/// A link without a key, as the sink hands it to the [`Printer`].
pub(crate) struct RejectedRow<'a> {
    pub(crate) original: &'a str,
    pub(crate) error: &'a str,
    pub(crate) input: Option<&'a str>,
    pub(crate) offset: u64,
    pub(crate) line: u64,
    pub(crate) provenance: Option<&'a str>,
}

/// Writes `run`'s output in the chosen format (buffered: [`flush`](Printer::flush) at the
/// end). With `--counts`, only [`count`](Printer::count) writes: the keys and the
/// diagnostics are not shown.
pub(crate) struct Printer<'a> {
    out: io::BufWriter<&'a mut dyn Output>,
    format: OutputFormat,
    counts: bool,
    /// `--format parquet`: the table being written (made at the first key, or at the end).
    #[cfg(feature = "parquet")]
    table: Option<linksieve_columnar::Table>,
}

impl<'a> Printer<'a> {
    pub(crate) fn new(out: &'a mut dyn Output, format: OutputFormat, counts: bool) -> Self {
        Printer {
            out: io::BufWriter::with_capacity(1 << 16, out),
            format,
            counts,
            #[cfg(feature = "parquet")]
            table: None,
        }
    }

    /// `--format parquet`: a key's row.
    #[cfg(feature = "parquet")]
    fn parquet_row(&mut self, r: &KeyRow<'_>) -> io::Result<()> {
        use linksieve_columnar::Value::*;
        if self.table.is_none() {
            self.table = Some(new_table()?);
        }
        let host = linksieve_graph::url_host_name(r.key);
        let domain = linksieve_graph::registered_domain(r.key);
        let row = [
            Str(r.key),
            Fingerprint(r.fp),
            Str(r.original),
            Str(r.input),
            Int(r.offset as i64),
            Int(r.line as i64),
            OptStr(r.provenance),
            Str(r.rung),
            OptStr(host.as_deref()),
            OptStr(domain.as_deref()),
            OptStr(r.link_type),
        ];
        let (table, out) = (self.table.as_mut(), &mut self.out);
        table
            .map_or(Ok(()), |t| t.push(&row, out))
            .map_err(columnar_error)
    }

    /// `--format parquet`: writes the last row group and the footer (an empty table when no
    /// key was new).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        #[cfg(feature = "parquet")]
        if self.format == OutputFormat::Parquet && !self.counts {
            let table = match self.table.take() {
                Some(t) => t,
                None => new_table()?,
            };
            table.finish(&mut self.out).map_err(columnar_error)?;
        }
        Ok(())
    }

    /// A new key, in the chosen format.
    pub(crate) fn key(&mut self, r: &KeyRow<'_>) -> io::Result<()> {
        if self.counts {
            return Ok(());
        }
        let w = &mut self.out;
        match self.format {
            // the sink writes edges, not keys, in this format (see `Printer::edge`)
            OutputFormat::Edges => Ok(()),
            #[cfg(feature = "parquet")]
            OutputFormat::Parquet => self.parquet_row(r),
            // refused by `RunOptions::check`
            #[cfg(not(feature = "parquet"))]
            OutputFormat::Parquet => Ok(()),
            OutputFormat::Keys => w
                .write_all(r.key.as_bytes())
                .and_then(|()| w.write_all(b"\n")),
            OutputFormat::Tsv => {
                let provenance = match r.provenance {
                    Some(target) => Cow::Borrowed(target),
                    None => Cow::Owned(format!("{}:{}:{}", r.input, r.line, r.offset)),
                };
                write_row(w, Some(Fingerprint(r.fp)), r.key, r.original, &provenance)
            }
            OutputFormat::Jsonl => {
                let mut v = serde_json::json!({
                    "key": r.key,
                    "original": r.original,
                    "file": r.input,
                    "offset": r.offset,
                    "line": r.line,
                    "provenance": r.provenance,
                    "rung": r.rung,
                });
                match &r.from {
                    None => {}
                    Some(LinkFrom::Text) => v["from"] = "text".into(),
                    Some(LinkFrom::Attribute { tag, attr, rel }) => {
                        v["from"] = "attribute".into();
                        v["tag"] = (*tag).into();
                        v["attr"] = (*attr).into();
                        if let Some(rel) = rel {
                            v["rel"] = (*rel).into();
                        }
                    }
                    Some(LinkFrom::Record(kind)) => {
                        use linksieve_inputs::RecordLinkKind::*;
                        let (from, header) = match kind {
                            Redirect(_) => ("header", Some("location")),
                            LinkHeader => ("header", Some("link")),
                            Sitemap => ("sitemap", None),
                            // the sink shows these as attributes
                            Element { .. } => ("attribute", None),
                        };
                        v["from"] = from.into();
                        if let Some(h) = header {
                            v["header"] = h.into();
                        }
                        if let Some(status) = kind.status() {
                            v["status"] = status.into();
                        }
                    }
                }
                writeln!(w, "{v}")
            }
        }
    }

    /// A link without a key: an object in JSONL, nothing in the other formats (it is counted).
    pub(crate) fn rejected(&mut self, r: &RejectedRow<'_>) -> io::Result<()> {
        if self.format != OutputFormat::Jsonl || self.counts {
            return Ok(());
        }
        let v = serde_json::json!({
            "rejected": r.original,
            "error": r.error,
            "file": r.input,
            "offset": r.offset,
            "line": r.line,
            "provenance": r.provenance,
        });
        writeln!(self.out, "{v}")
    }

    /// An input that could not be read (to its end): an object in JSONL, nothing in the other
    /// formats (it is in the summary).
    pub(crate) fn input_failed(&mut self, f: &InputFailure) -> io::Result<()> {
        if self.format != OutputFormat::Jsonl || self.counts {
            return Ok(());
        }
        let v = serde_json::json!({"input": f.input, "error": f.error});
        writeln!(self.out, "{v}")
    }

    /// A `--counts` line: the key and how many links had it.
    pub(crate) fn count(&mut self, key: &str, n: u64) -> io::Result<()> {
        writeln!(self.out, "{}\t{n}", tsv(key))
    }

    /// An edges row: `source<TAB>target<TAB>count<TAB>types`, the names escaped.
    pub(crate) fn edge(&mut self, e: &linksieve_graph::Edge<'_>) -> io::Result<()> {
        writeln!(
            self.out,
            "{}\t{}\t{}\t{}",
            tsv(e.source),
            tsv(e.target),
            e.count,
            e.types
        )
    }

    /// The output, for delivery (see [`crate::delivery`]).
    pub(crate) fn output(&mut self) -> &mut io::BufWriter<&'a mut dyn Output> {
        &mut self.out
    }
}

//! `linksieve scan`: find IRIs in running text of any encoding (the `linksieve_scan` crate).
//! Reads files or stdin (`-`) in chunks; prints one link per line (text) or one JSON object per
//! link (`--format jsonl`) or one engine row per link (`--format tsv`, keyed on the ladder like
//! `run`). Exit status: 0, or 1 when an input could not be read; usage errors (an unknown
//! encoding label) are 2, from `main`.

use std::io::{BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::ladder_cmds::{LadderArgs, LinkInputMode, options};
use anyhow::{Context, Result};
use clap::ValueEnum;
use linksieve_iri::WebUrl;
use linksieve_iri::{InputMode, KeyForm};
use linksieve_pipeline::{
    Document, DocumentItem, DocumentLink, DocumentOptions, FoundLink, Keyer, LinkBuffers,
    found_link, read_document,
};
use linksieve_scan::chunk::kept_before_error;
use linksieve_scan::{EncodingChoice, HitRef, ReadScanError, ScanOptions, ScanStats};
use serde_json::json;

/// Output format of `scan`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ScanFormat {
    /// One link per line, exactly the link text.
    #[default]
    Text,
    /// One JSON object per link: link, file, start, end, line, kind, trimmed, trailing,
    /// encoding, from_legacy, nfc_changed.
    Jsonl,
    /// The engine row `fingerprint<TAB>key<TAB>original<TAB>provenance` per link: the key's
    /// fingerprint in hex, the key at `--rung`/`--form`, the link text, `FILE:LINE:OFFSET`.
    /// A link without a key is reported on stderr and counted (`--stats`), not written.
    Tsv,
}

/// Options of `linksieve scan`.
#[derive(clap::Args, Debug, Clone)]
pub struct ScanArgs {
    /// Input encoding: any WHATWG label (utf-8, shift_jis, gbk, windows-1251, ...) or `auto`
    /// (BOM, else UTF-16 by its NUL pattern, else UTF-8 if the first 64 KiB validate, else a
    /// chardetng guess). A BOM always wins.
    #[arg(long, value_name = "LABEL|auto", default_value = "auto")]
    pub encoding: String,
    /// Also find links without a scheme: www.example.com, example.com/path (public-suffix
    /// check), bare IPv4 and IPv6 addresses.
    #[arg(long)]
    pub schemeless: bool,
    /// Also find bare e-mail addresses.
    #[arg(long)]
    pub email: bool,
    /// URIs only: a non-ASCII character ends a link.
    #[arg(long)]
    pub ascii_only: bool,
    /// Read each file as an HTML document, as `run --html` does (whole): the URLs of its
    /// attributes resolved against its base, then the links of its text with character
    /// references decoded (the link printed and keyed is the decoded one; `--format jsonl`
    /// gives the text as written in `raw`). Offsets are those of the document decoded to UTF-8.
    #[arg(long)]
    pub html: bool,
    /// `--html`: the documents' address; their relative links resolve against it (a `<base
    /// href>` still wins).
    #[arg(long, value_name = "URL", requires = "html")]
    pub base: Option<String>,
    /// `--html`: resolve `javascript:`, `data:`, `about:`, `blob:` and `vbscript:` URLs too.
    #[arg(long, requires = "html")]
    pub all_schemes: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,
    /// Longest link in bytes (256 to 16M); longer candidates are counted and skipped.
    #[arg(long, value_name = "BYTES", default_value = "64K",
          value_parser = crate::run_cmd::parse_link_len)]
    pub max_link_len: usize,
    /// Print counters (bytes, links, malformed input, skipped candidates) to stderr. Decodes
    /// all of the input to count malformed sequences exactly (without it, input in an
    /// ASCII-compatible encoding is decoded only around candidates).
    #[arg(long)]
    pub stats: bool,
    /// `--format tsv`: the ladder's rung and rules for the keys.
    #[command(flatten)]
    pub ladder: LadderArgs,
    /// `--format tsv`: the form of the keys.
    #[arg(long, value_enum, default_value_t = KeyForm::Uri)]
    pub form: KeyForm,
    #[command(flatten)]
    pub input: LinkInputMode,
    /// Files to read; `-` or none for standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `linksieve scan`.
pub fn run(args: &ScanArgs) -> Result<ExitCode> {
    let encoding = EncodingChoice::from_label(&args.encoding)?;
    let opts = ScanOptions {
        encoding,
        schemeless: args.schemeless,
        email: args.email,
        ascii_only: args.ascii_only,
        max_link_len: args.max_link_len,
        decode_all: args.stats,
        // the text format is the links alone
        lines: args.format != ScanFormat::Text,
        html: args.html,
    };
    let input: InputMode = args.input.mode;
    let document = args.html.then(|| -> Result<DocumentOptions> {
        Ok(DocumentOptions {
            url: args
                .base
                .as_deref()
                .map(WebUrl::parse)
                .transpose()
                .map_err(|e| anyhow::anyhow!("--base: not a valid web address: {e}"))?,
            encoding,
            all_schemes: args.all_schemes,
            foreign_as_html: false,
            transport: None,
        })
    });
    let document = document.transpose()?;
    let mut printer = HitPrinter {
        format: args.format,
        keyer: Keyer::new(input, &options(&args.ladder, input, args.form)?),
        rejected: 0,
        html: args.html.then_some(args.ascii_only),
        legacy_document: false,
        bufs: LinkBuffers::default(),
        out: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
    };
    let stdin_only = [PathBuf::from("-")];
    let files: &[PathBuf] = if args.files.is_empty() {
        &stdin_only
    } else {
        &args.files
    };
    let mut failed = false;
    let mut total = ScanStats::default();
    for path in files {
        let scanned = match &document {
            Some(d) => scan_document(path, &opts, d, &mut printer),
            None => scan_one(path, &opts, &mut printer),
        };
        match scanned {
            Ok(s) => total += s,
            Err(e) if is_broken_pipe(&e) => return Err(e),
            Err(e) => {
                failed = true;
                printer.out.flush().context("writing output")?;
                if args.format == ScanFormat::Jsonl {
                    let line = json!({"file": name(path), "error": format!("{e:#}")});
                    writeln!(printer.out, "{line}").context("writing output")?;
                } else {
                    eprintln!("linksieve scan: {}: {e:#}", name(path));
                }
            }
        }
    }
    printer.out.flush().context("writing output")?;
    if args.stats {
        eprintln!(
            "linksieve scan: {} bytes, {} links, {} malformed sequences ({} bytes), {} candidates too long",
            total.bytes_in,
            total.hits,
            total.malformed_sequences,
            total.malformed_bytes,
            total.too_long
        );
        if args.format == ScanFormat::Tsv {
            eprintln!("linksieve scan: {} links without a key", printer.rejected);
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "-".to_owned()
    } else {
        path.display().to_string()
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Where hits go: the output and, for `--format tsv`, how they are keyed.
struct HitPrinter<W> {
    format: ScanFormat,
    keyer: Keyer,
    /// Links without a key (`--format tsv`).
    rejected: u64,
    /// `--html` (with `--ascii-only`'s value): links are printed with their references decoded.
    html: Option<bool>,
    /// `--html`: the link being printed was decoded from a legacy (non-Unicode) encoding
    /// ([`DocumentItem::from_legacy`], which `run --html` asks too), so it is keyed with NFC.
    legacy_document: bool,
    /// The buffers of `found_link`, kept from link to link.
    bufs: LinkBuffers,
    out: W,
}

/// Opens one input (`-`: stdin) as `run` does, its compression undone (gzip, zstd, bzip2, xz;
/// another container is an error). A WARC file is refused: `scan` reads text, and read as text
/// a WARC's headers and compressed payloads would give wrong links; `run` reads its records.
fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let spec = linksieve_pipeline::InputSpec::from_arg(path);
    let (mut r, _) = linksieve_pipeline::open_input(&spec).context("cannot open")?;
    if r.fill_buf().context("cannot read")?.starts_with(b"WARC/") {
        anyhow::bail!(
            "a WARC file: `linksieve scan` reads text; `linksieve run` reads WARC records"
        );
    }
    Ok(r)
}

/// Scans one input (`-`: stdin) and prints its hits.
fn scan_one<W: Write>(
    path: &Path,
    opts: &ScanOptions,
    printer: &mut HitPrinter<W>,
) -> Result<ScanStats> {
    let file = name(path);
    let mut reader = open(path)?;
    linksieve_scan::scan_reader(&mut reader, opts, |h| printer.write_hit(&h, &file)).map_err(|e| {
        match e {
            ReadScanError::Read(e) => anyhow::Error::new(e).context("cannot read"),
            ReadScanError::OnHit(e) => e,
        }
    })
}

/// `--html`: reads one input whole as an HTML document and prints its links in document order.
fn scan_document<W: Write>(
    path: &Path,
    opts: &ScanOptions,
    document: &DocumentOptions,
    printer: &mut HitPrinter<W>,
) -> Result<ScanStats> {
    let file = name(path);
    let mut bytes = Vec::new();
    // a read error: what was read is scanned up to its last clean cut (as `run` does), then
    // the input fails
    let read = open(path)?.read_to_end(&mut bytes);
    if read.is_err() {
        let enc = document.transport.unwrap_or(encoding_rs::UTF_8);
        bytes.truncate(kept_before_error(&bytes, enc));
    }
    let doc = read_document(&bytes, document);
    let scanned = doc.text_links(opts);
    let mut result = Ok(());
    doc.in_order(&scanned.hits, opts.ascii_only, |item| {
        if result.is_ok() {
            printer.legacy_document = item.from_legacy(&doc);
            result = match item {
                DocumentItem::Text(h) => printer.write_hit(&h.as_hit_ref(), &file),
                DocumentItem::Attribute(l) => printer.write_outlink(l, &doc, &file),
            };
        }
    });
    printer.legacy_document = false;
    result?;
    read.context("cannot read")?;
    let mut stats = scanned.stats;
    stats.malformed_sequences = doc.malformed;
    Ok(stats)
}

impl<W: Write> HitPrinter<W> {
    /// An outlink of a document (`--html`): its URL, or why it has none.
    fn write_outlink(&mut self, l: &DocumentLink, doc: &Document, file: &str) -> Result<()> {
        let out = &mut self.out;
        let line = l.line;
        match self.format {
            ScanFormat::Text => {
                if let Ok(u) = &l.url {
                    writeln!(out, "{}", u.as_str())?;
                }
            }
            ScanFormat::Jsonl => {
                let mut v = json!({
                    "link": l.url.as_ref().ok().map(|u| u.as_str()),
                    "value": l.value,
                    "file": file,
                    "start": l.start,
                    "end": l.end,
                    "line": line,
                    "from": "attribute",
                    "tag": l.tag,
                    "attr": l.attr,
                    "encoding": doc.encoding.name(),
                });
                if let Some(rel) = &l.rel {
                    v["rel"] = json!(rel);
                }
                if let Err(e) = &l.url {
                    v["error"] = json!(e.to_string());
                }
                writeln!(out, "{v}")?;
            }
            ScanFormat::Tsv => {
                let Ok(u) = &l.url else {
                    return Ok(());
                };
                let provenance = format!("{file}:{line}:{}", l.start);
                let keyed = linksieve_iri::web_to_iri(u)
                    .map_err(|e| e.to_string())
                    .and_then(|iri| {
                        self.keyer
                            .key(iri.as_str(), self.legacy_document)
                            .map_err(|e| e.to_string())
                    });
                match keyed {
                    Ok(key) => {
                        linksieve_pipeline::write_row(out, None, &key, &l.value, &provenance)?
                    }
                    Err(e) => {
                        self.rejected += 1;
                        eprintln!(
                            "linksieve scan: {}: no key for {:?}: {e}",
                            linksieve_pipeline::tsv(&provenance),
                            l.value
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn write_hit(&mut self, h: &HitRef<'_>, file: &str) -> Result<()> {
        // the link as `run` shows and keys it (`--html`: its references decoded; without a
        // scheme: keyed with its implied one)
        let mut bufs = std::mem::take(&mut self.bufs);
        let found = found_link(h.text, h.trimmed.trailing, h.kind, self.html, &mut bufs);
        let written = self.write_found(h, found, file);
        self.bufs = bufs;
        written
    }

    fn write_found(&mut self, h: &HitRef<'_>, found: FoundLink<'_>, file: &str) -> Result<()> {
        let out = &mut self.out;
        let link = found.shown;
        match self.format {
            ScanFormat::Text => {
                out.write_all(link.as_bytes())?;
                out.write_all(b"\n")?;
            }
            ScanFormat::Jsonl => {
                let mut v = json!({
                    "link": link,
                    "file": file,
                    "start": h.start,
                    "end": h.end,
                    "line": h.line,
                    "kind": h.kind.as_str(),
                    "trimmed": h.trimmed.tags(),
                    "trailing": h.trimmed.trailing,
                    "encoding": h.encoding.name(),
                    "from_legacy": h.from_legacy,
                    "nfc_changed": h.nfc_changed,
                });
                if self.html.is_some() {
                    v["raw"] = json!(h.text);
                    v["from"] = json!("text");
                }
                // JSON-escaped links: the text as written
                if let Some(raw) = h.raw.filter(|_| h.trimmed.json_escapes) {
                    v["raw"] = json!(raw);
                }
                writeln!(out, "{v}")?;
            }
            ScanFormat::Tsv => {
                let provenance = format!("{file}:{}:{}", h.line, h.start);
                match self
                    .keyer
                    .key(found.keyed, h.from_legacy || self.legacy_document)
                {
                    Ok(key) => {
                        // the original as `run` shows it: as written where JSON escapes were undone
                        let original = h.raw.filter(|_| h.trimmed.json_escapes).unwrap_or(link);
                        linksieve_pipeline::write_row(out, None, &key, original, &provenance)?
                    }
                    Err(e) => {
                        self.rejected += 1;
                        eprintln!(
                            "linksieve scan: {}: no key for {:?}: {e}",
                            linksieve_pipeline::tsv(&provenance),
                            link
                        );
                    }
                }
            }
        }
        Ok(())
    }
}

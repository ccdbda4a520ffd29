//! The linksieve scanner: find IRIs in running text of any character encoding.
//!
//! Bytes go in, in chunks of any size; [`Hit`]s come out, each with its byte range in the
//! original input, its line, its text (UTF-8), and what was trimmed around it. The pipeline:
//!
//! 1. **decode** (`decode.rs`): one `encoding_rs` decoder for the whole stream; `--encoding`
//!    takes any WHATWG label; a BOM always wins (WHATWG "decode"); `auto` looks at the first
//!    64 KiB: UTF-16 if it has the NUL pattern of UTF-16 text, else UTF-8 if that window is valid
//!    UTF-8, else the guess of `chardetng`. Malformed input is counted and becomes U+FFFD, which
//!    never becomes part of a link.
//! 2. **find** (`find.rs`): memchr for trigger bytes, then a bounded look back and a linear,
//!    table-driven forward scan; the boundary rules are in one table (`boundary.rs`).
//! 3. **report**: offsets are mapped back to the input bytes exactly; links found in text
//!    transcoded from a non-Unicode encoding are NFC-normalised (RFC 3987 3.1 variant B; the
//!    comparison draft 4.2.2) and marked ([`Hit::from_legacy`]); UTF-8 and UTF-16 text is never
//!    normalised (variant C).
//!
//! Results are the same for every way of splitting the input into chunks.
//!
//! ```
//! use linksieve_scan::{scan_bytes, ScanOptions};
//! let text = "Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\n\
//!             but you can probably pick it up from <ftp://ds.internic.\n\
//!             net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n\
//!             ietf/uri/historical.html#WARNING>.";
//! let r = scan_bytes(text.as_bytes(), &ScanOptions::default());
//! let links: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
//! assert_eq!(links, [
//!     "http://www.w3.org/Addressing/",
//!     "ftp://ds.internic.net/rfc/",
//!     "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING",
//! ]);
//! ```

mod boundary;
mod decode;
mod find;
mod host;
mod schemes;
mod tld_data;

use decode::{Choice, Map, Stream};
pub use encoding_rs::Encoding;
use find::{Ctx, LOOKBACK, Opts, Outcome};

/// Errors of the scanner.
///
/// ```
/// use linksieve_scan::{encoding_for_label, ScanError};
/// assert!(matches!(encoding_for_label("no-such"), Err(ScanError::UnknownEncoding(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// The label is not a WHATWG encoding label (nor `auto`).
    #[error(
        "unknown encoding label {0:?} (use a WHATWG label such as utf-8, shift_jis, windows-1252, or auto)"
    )]
    UnknownEncoding(String),
    /// [`Scanner::feed`] or [`Scanner::finish`] was called after [`Scanner::finish`].
    #[error("the scanner was already finished")]
    Finished,
}

/// Looks up a WHATWG encoding label (`utf-8`, `sjis`, `latin1`, `gbk`, ...).
///
/// ```
/// let e = linksieve_scan::encoding_for_label("latin1").unwrap();
/// assert_eq!(e.name(), "windows-1252");
/// ```
pub fn encoding_for_label(label: &str) -> Result<&'static Encoding, ScanError> {
    Encoding::for_label(label.trim().as_bytes())
        .ok_or_else(|| ScanError::UnknownEncoding(label.to_owned()))
}

/// Which encoding to decode with.
///
/// ```
/// use linksieve_scan::EncodingChoice;
/// assert_eq!(EncodingChoice::from_label("auto").unwrap(), EncodingChoice::Auto);
/// assert!(matches!(EncodingChoice::from_label("koi8-r").unwrap(), EncodingChoice::Fixed(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EncodingChoice {
    /// BOM, else UTF-16 by its NUL pattern, else UTF-8 if the first 64 KiB validate, else the
    /// chardetng guess.
    #[default]
    Auto,
    /// This encoding (a BOM still wins, as in WHATWG "decode").
    Fixed(&'static Encoding),
}

impl EncodingChoice {
    /// `auto` or a WHATWG label.
    ///
    /// ```
    /// use linksieve_scan::EncodingChoice;
    /// assert!(EncodingChoice::from_label("bogus").is_err());
    /// ```
    pub fn from_label(label: &str) -> Result<EncodingChoice, ScanError> {
        if label.trim().eq_ignore_ascii_case("auto") {
            Ok(EncodingChoice::Auto)
        } else {
            encoding_for_label(label).map(EncodingChoice::Fixed)
        }
    }
}

/// Default maximum link length: 64 KiB.
pub const DEFAULT_MAX_LINK_LEN: usize = 64 * 1024;

/// What to look for and how to decode.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let opts = ScanOptions { schemeless: true, email: true, ..ScanOptions::default() };
/// let r = scan_bytes(b"see www.example.com or mail me@example.org", &opts);
/// assert_eq!(r.hits.len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanOptions {
    /// How to decode.
    pub encoding: EncodingChoice,
    /// Also find links without a scheme: `www.example.com`, `example.com/path` (the last label
    /// must be a public suffix), bare IPv4 and IPv6 addresses.
    pub schemeless: bool,
    /// Also find bare e-mail addresses (`user@example.com`, public suffix required).
    pub email: bool,
    /// URIs only: every non-ASCII character ends a link.
    pub ascii_only: bool,
    /// Longest link (bytes of UTF-8 text); longer candidates are counted in
    /// [`ScanStats::too_long`] and skipped up to the next whitespace or stop character.
    pub max_link_len: usize,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            encoding: EncodingChoice::Auto,
            schemeless: false,
            email: false,
            ascii_only: false,
            max_link_len: DEFAULT_MAX_LINK_LEN,
        }
    }
}

/// What kind of link a hit is.
///
/// ```
/// use linksieve_scan::{scan_bytes, LinkKind, ScanOptions};
/// let r = scan_bytes(b"mailto:a@b.org http://x.org", &ScanOptions::default());
/// assert_eq!(r.hits[0].kind, LinkKind::Opaque);
/// assert_eq!(r.hits[1].kind, LinkKind::Scheme);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `scheme://...`
    Scheme,
    /// A registered scheme without `//` (`mailto:`, `urn:`, `tel:`, ...), or any scheme inside
    /// `<…>`.
    Opaque,
    /// A host name without a scheme (`schemeless`).
    Bare,
    /// A bare IPv4 or IPv6 address (`schemeless`).
    Ip,
    /// A bare e-mail address (`email`).
    Email,
}

impl LinkKind {
    /// A short lowercase name.
    ///
    /// ```
    /// assert_eq!(linksieve_scan::LinkKind::Email.as_str(), "email");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Scheme => "scheme",
            LinkKind::Opaque => "opaque",
            LinkKind::Bare => "bare",
            LinkKind::Ip => "ip",
            LinkKind::Email => "email",
        }
    }
}

/// A delimiter around a link (RFC 3986 appendix C).
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions, Wrapper};
/// let r = scan_bytes(b"<http://a.example/>", &ScanOptions::default());
/// assert_eq!(r.hits[0].trimmed.wrapper, Some(Wrapper::Angle));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// `<…>`
    Angle,
    /// `"…"`
    Quote,
}

/// What was taken away around (or inside) a link.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let r = scan_bytes(b"Go to http://example.com/path...", &ScanOptions::default());
/// assert_eq!(r.hits[0].trimmed.trailing, "...");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// The delimiters around the link.
    pub wrapper: Option<Wrapper>,
    /// A `URL:` prefix was dropped.
    pub url_prefix: bool,
    /// Whitespace with line breaks inside `<…>` was removed from the link text.
    pub line_breaks: bool,
    /// Trailing punctuation left out of the link.
    pub trailing: String,
    /// The host was cut where text in another script (or a `-`) was glued to it.
    pub host_cut: bool,
}

impl Trimmed {
    /// Short tags for what was trimmed (`angle`, `quote`, `url_prefix`, `line_breaks`,
    /// `trailing`, `host_cut`).
    ///
    /// ```
    /// use linksieve_scan::{scan_bytes, ScanOptions};
    /// let r = scan_bytes(b"<URL:http://x.example/>.", &ScanOptions::default());
    /// assert_eq!(r.hits[0].trimmed.tags(), ["angle", "url_prefix"]);
    /// ```
    pub fn tags(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        match self.wrapper {
            Some(Wrapper::Angle) => v.push("angle"),
            Some(Wrapper::Quote) => v.push("quote"),
            None => {}
        }
        if self.url_prefix {
            v.push("url_prefix");
        }
        if self.line_breaks {
            v.push("line_breaks");
        }
        if !self.trailing.is_empty() {
            v.push("trailing");
        }
        if self.host_cut {
            v.push("host_cut");
        }
        v
    }
}

/// One link found.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let input = b"line one\nsee <http://a.example/x\n  /y> now";
/// let h = &scan_bytes(input, &ScanOptions::default()).hits[0];
/// assert_eq!(h.text, "http://a.example/x/y");
/// assert_eq!(&input[h.start as usize..h.end as usize], b"http://a.example/x\n  /y");
/// assert_eq!(h.line, 2);
/// assert!(h.trimmed.line_breaks);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Byte offset of the link's first byte in the original input.
    pub start: u64,
    /// Byte offset just after the link's last byte in the original input.
    pub end: u64,
    /// 1-based line (counted by LF) where the link starts.
    pub line: u64,
    /// The link text in UTF-8, wrappers and wrapper whitespace removed.
    pub text: String,
    /// What kind of link it is.
    pub kind: LinkKind,
    /// What was trimmed.
    pub trimmed: Trimmed,
    /// The encoding the input was decoded with.
    pub encoding: &'static Encoding,
    /// The text was transcoded from a non-Unicode encoding, so the link was NFC-normalised
    /// (RFC 3987 3.1 variant B).
    pub from_legacy: bool,
    /// NFC normalisation changed the link text.
    pub nfc_changed: bool,
}

/// Counters of one scan.
///
/// ```
/// use linksieve_scan::{scan_bytes, EncodingChoice, ScanOptions, encoding_for_label};
/// let utf8 = EncodingChoice::Fixed(encoding_for_label("utf-8").unwrap());
/// let r = scan_bytes(b"http://a.example/ \xff", &ScanOptions { encoding: utf8, ..Default::default() });
/// assert_eq!(r.stats.malformed_sequences, 1);
/// assert_eq!(r.stats.hits, 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Input bytes fed.
    pub bytes_in: u64,
    /// Malformed byte sequences (each decoded as one U+FFFD).
    pub malformed_sequences: u64,
    /// Bytes in malformed sequences.
    pub malformed_bytes: u64,
    /// Candidates longer than the maximum link length, skipped.
    pub too_long: u64,
    /// Candidate positions examined.
    pub candidates: u64,
    /// Links reported.
    pub hits: u64,
    /// Text bytes visited by the finder (look backs, forward scans, rescans after waiting for
    /// input): a work counter that grows linearly with the input.
    pub work: u64,
}

/// Everything [`scan_bytes`] found.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let r = scan_bytes(b"", &ScanOptions::default());
/// assert!(r.hits.is_empty());
/// assert_eq!(r.encoding.name(), "UTF-8");
/// ```
#[derive(Debug, Clone)]
pub struct ScanResult {
    /// The links, in input order.
    pub hits: Vec<Hit>,
    /// Counters.
    pub stats: ScanStats,
    /// The encoding used.
    pub encoding: &'static Encoding,
}

/// Scans a whole input.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let r = scan_bytes("請看http://example.com/文件。謝謝".as_bytes(), &ScanOptions::default());
/// assert_eq!(r.hits[0].text, "http://example.com/文件");
/// ```
pub fn scan_bytes(input: &[u8], opts: &ScanOptions) -> ScanResult {
    let mut s = Scanner::new(opts);
    let mut hits = Vec::new();
    // `feed` and `finish` fail only after `finish`
    let _ = s.feed(input, &mut hits);
    let _ = s.finish(&mut hits);
    ScanResult {
        hits,
        stats: s.stats,
        encoding: s.encoding().unwrap_or(encoding_rs::UTF_8),
    }
}

/// A streaming scanner: [`feed`](Scanner::feed) chunks, then [`finish`](Scanner::finish).
///
/// ```
/// use linksieve_scan::{Scanner, ScanOptions};
/// let mut s = Scanner::new(&ScanOptions::default());
/// let mut hits = Vec::new();
/// s.feed(b"see http://exa", &mut hits).unwrap();
/// s.feed(b"mple.com/ ok", &mut hits).unwrap();
/// s.finish(&mut hits).unwrap();
/// assert_eq!(hits[0].text, "http://example.com/");
/// assert_eq!((hits[0].start, hits[0].end), (4, 23));
/// ```
pub struct Scanner {
    opts: Opts,
    choice: Choice,
    pending: Vec<u8>,
    stream: Option<(Stream, Map)>,
    legacy: bool,
    text: String,
    base: u64,
    pos: usize,
    floor: usize,
    skipping: bool,
    wait_until: u64,
    line: u64,
    line_pos: u64,
    stats: ScanStats,
    finished: bool,
}

impl Scanner {
    /// A scanner with these options.
    ///
    /// ```
    /// let s = linksieve_scan::Scanner::new(&Default::default());
    /// assert!(s.encoding().is_none());
    /// ```
    pub fn new(opts: &ScanOptions) -> Scanner {
        Scanner {
            opts: Opts {
                schemeless: opts.schemeless,
                email: opts.email,
                ascii_only: opts.ascii_only,
                max_len: opts.max_link_len.max(8),
            },
            choice: match opts.encoding {
                EncodingChoice::Auto => Choice::Auto,
                EncodingChoice::Fixed(e) => Choice::Fixed(e),
            },
            pending: Vec::new(),
            stream: None,
            legacy: false,
            text: String::new(),
            base: 0,
            pos: 0,
            floor: 0,
            skipping: false,
            wait_until: 0,
            line: 1,
            line_pos: 0,
            stats: ScanStats::default(),
            finished: false,
        }
    }

    /// The encoding, once decided (after 64 KiB of input or at [`finish`](Scanner::finish)
    /// with `auto`; after 3 bytes with a label, for the BOM check).
    ///
    /// ```
    /// use linksieve_scan::{EncodingChoice, Scanner, ScanOptions, encoding_for_label};
    /// let opts = ScanOptions {
    ///     encoding: EncodingChoice::Fixed(encoding_for_label("sjis").unwrap()),
    ///     ..Default::default()
    /// };
    /// let mut s = Scanner::new(&opts);
    /// s.feed(b"abc", &mut Vec::new()).unwrap();
    /// assert_eq!(s.encoding().unwrap().name(), "Shift_JIS");
    /// ```
    pub fn encoding(&self) -> Option<&'static Encoding> {
        self.stream.as_ref().map(|(s, _)| s.encoding)
    }

    /// Counters so far.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// s.feed(b"abc", &mut Vec::new()).unwrap();
    /// assert_eq!(s.stats().hits, 0);
    /// ```
    pub fn stats(&self) -> &ScanStats {
        &self.stats
    }

    /// Feeds the next chunk of input; links that are complete are appended to `out`.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut out = Vec::new();
    /// s.feed(b"http://a.example/ and more", &mut out).unwrap();
    /// s.finish(&mut out).unwrap();
    /// assert_eq!(out.len(), 1);
    /// assert!(s.feed(b"x", &mut out).is_err());
    /// ```
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Hit>) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        if self.stream.is_none() {
            self.pending.extend_from_slice(chunk);
            let Some((enc, bom)) = decode::decide(self.choice, &self.pending, false) else {
                return Ok(());
            };
            self.start(enc, bom);
            let pending = std::mem::take(&mut self.pending);
            self.decode(&pending[bom..], false);
        } else {
            self.decode(chunk, false);
        }
        self.run(false, out);
        Ok(())
    }

    /// Ends the input: decodes what is left and reports the remaining links.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut out = Vec::new();
    /// s.feed(b"urn:isbn:0451450523", &mut out).unwrap();
    /// assert!(out.is_empty());
    /// s.finish(&mut out).unwrap();
    /// assert_eq!(out[0].text, "urn:isbn:0451450523");
    /// ```
    pub fn finish(&mut self, out: &mut Vec<Hit>) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        self.finished = true;
        if self.stream.is_none() {
            let (enc, bom) =
                decode::decide(self.choice, &self.pending, true).unwrap_or((encoding_rs::UTF_8, 0));
            let bom = bom.min(self.pending.len());
            self.start(enc, bom);
            let pending = std::mem::take(&mut self.pending);
            self.decode(&pending[bom..], true);
        } else {
            self.decode(&[], true);
        }
        self.run(true, out);
        Ok(())
    }

    fn start(&mut self, enc: &'static Encoding, bom: usize) {
        self.stats.bytes_in += bom as u64;
        self.legacy = !(enc == encoding_rs::UTF_8
            || enc == encoding_rs::UTF_16LE
            || enc == encoding_rs::UTF_16BE);
        self.stream = Some(Stream::new(enc, bom as u64, 0));
    }

    fn decode(&mut self, chunk: &[u8], last: bool) {
        if let Some((stream, map)) = self.stream.as_mut() {
            stream.decode(chunk, last, &mut self.text, self.base, map, &mut self.stats);
        }
    }

    fn run(&mut self, eof: bool, out: &mut Vec<Hit>) {
        let end_abs = self.base + self.text.len() as u64;
        if !eof && end_abs < self.wait_until {
            return;
        }
        let mut ctx = Ctx {
            text: &self.text,
            eof,
            floor: self.floor,
            opts: self.opts,
            work: 0,
        };
        let mut pos = self.pos;
        loop {
            if self.skipping {
                match find::skip_to_stop(&mut ctx, pos) {
                    Some(i) => {
                        pos = i;
                        ctx.floor = i;
                        self.skipping = false;
                    }
                    None => {
                        pos = ctx.text.len();
                        ctx.floor = pos;
                        if eof {
                            self.skipping = false;
                        }
                        break;
                    }
                }
            }
            let Some(t) = find::next_trigger(ctx.text.as_bytes(), pos, &ctx.opts) else {
                pos = ctx.text.len();
                break;
            };
            self.stats.candidates += 1;
            match ctx.examine(t) {
                Ok(Outcome::Hit(f)) => {
                    pos = f.resume;
                    ctx.floor = f.resume;
                    let hit = make_hit(
                        &f,
                        ctx.text,
                        self.base,
                        self.stream.as_mut().map(|(s, m)| (s.encoding, m)),
                        self.legacy,
                        &mut self.line,
                        &mut self.line_pos,
                    );
                    if let Some(h) = hit {
                        self.stats.hits += 1;
                        out.push(h);
                    }
                }
                Ok(Outcome::Reject { resume }) => pos = resume.max(t + 1),
                Ok(Outcome::TooLong { from }) => {
                    self.stats.too_long += 1;
                    self.skipping = true;
                    pos = from;
                }
                Err(find::NeedMore) => {
                    pos = t;
                    let pending = end_abs - (self.base + t as u64);
                    self.wait_until = end_abs + pending.max(4096);
                    break;
                }
            }
        }
        self.stats.work += ctx.work;
        self.floor = ctx.floor;
        self.pos = pos;
        self.compact();
    }

    /// Drops text that no look back can reach any more.
    fn compact(&mut self) {
        let mut keep = self.pos.saturating_sub(LOOKBACK);
        while keep > 0 && !self.text.is_char_boundary(keep) {
            keep -= 1;
        }
        if keep < 64 * 1024 && keep * 2 < self.text.len() {
            return;
        }
        if keep == 0 {
            return;
        }
        let keep_abs = self.base + keep as u64;
        if let Some((_, map)) = self.stream.as_mut() {
            map.src_of(keep_abs, &self.text, self.base);
        }
        count_lines(
            &self.text,
            self.base,
            keep_abs,
            &mut self.line,
            &mut self.line_pos,
        );
        self.text.drain(..keep);
        self.base = keep_abs;
        self.pos -= keep;
        self.floor = self.floor.saturating_sub(keep);
    }
}

fn count_lines(text: &str, base: u64, to: u64, line: &mut u64, line_pos: &mut u64) {
    if to <= *line_pos {
        return;
    }
    let from = (*line_pos - base) as usize;
    let upto = (to - base) as usize;
    *line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..upto]).count() as u64;
    *line_pos = to;
}

fn make_hit(
    f: &find::Found,
    text: &str,
    base: u64,
    stream: Option<(&'static Encoding, &mut Map)>,
    legacy: bool,
    line: &mut u64,
    line_pos: &mut u64,
) -> Option<Hit> {
    let (encoding, map) = stream?;
    let start_abs = base + f.start as u64;
    let end_abs = base + f.end as u64;
    let start = map.src_of(start_abs, text, base);
    let end = map.src_of(end_abs, text, base);
    count_lines(text, base, start_abs, line, line_pos);
    let raw = match &f.joined {
        Some(j) => j.clone(),
        None => text[f.start..f.end].to_owned(),
    };
    let (link, nfc_changed) = if legacy && !raw.is_ascii() {
        use unicode_normalization::UnicodeNormalization;
        let n: String = raw.nfc().collect();
        let changed = n != raw;
        (n, changed)
    } else {
        (raw, false)
    };
    Some(Hit {
        start,
        end,
        line: *line,
        text: link,
        kind: f.kind,
        trimmed: Trimmed {
            wrapper: f.wrapper,
            url_prefix: f.url_prefix,
            line_breaks: f.line_breaks,
            trailing: text.get(f.end..f.trimmed_to).unwrap_or("").to_owned(),
            host_cut: f.host_cut,
        },
        encoding,
        from_legacy: legacy,
        nfc_changed,
    })
}

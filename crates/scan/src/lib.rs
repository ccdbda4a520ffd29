//! The linksieve scanner: find IRIs in running text of any character encoding.
//!
//! Bytes go in, in chunks of any size; [`Hit`]s come out, each with its byte range in the
//! original input, its line, its text (UTF-8), and what was trimmed around it. The pipeline:
//!
//! 1. **decode** (`decode.rs`): one `encoding_rs` decoder for the whole stream; `--encoding`
//!    takes any WHATWG label; a BOM always wins (WHATWG "decode"); `auto` looks at the first
//!    64 KiB: UTF-16 if it has the NUL pattern of UTF-16 text, else ISO-2022-JP by its escape
//!    sequences, else UTF-8 if that window is valid UTF-8, else the guess of `chardetng`. Malformed input is counted and becomes U+FFFD, which
//!    never becomes part of a link. In the ASCII-compatible encodings (UTF-8, the single-byte
//!    ones, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030) the candidates are found in the input
//!    bytes, where `:` `.` `/` are never part of a multi-byte character, and links are found in
//!    place where the bytes are their own text (valid UTF-8; ASCII); only what a candidate
//!    needs beyond that is decoded (see `Engine`, and [`ScanOptions::decode_all`]).
//! 2. **find** (`trigger.rs`, `find.rs`): candidates 64 bytes at a time (trigger bytes and a
//!    cheap look at their neighbours), then a bounded look back and a linear, table-driven
//!    forward scan; the boundary rules are in one table (`boundary.rs`).
//! 3. **report**: offsets are mapped back to the input bytes exactly; links found in text
//!    transcoded from a non-Unicode encoding are NFC-normalised (RFC 3987 3.1 variant B; the
//!    comparison draft 4.2.2) and marked ([`Hit::from_legacy`]); UTF-8 and UTF-16 text is never
//!    normalised (variant C). [`Scanner::feed_with`] hands links over without copying them.
//!
//! Results are the same for every way of splitting the input into chunks, and with or without
//! [`ScanOptions::decode_all`].
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
mod delimit;
mod find;
mod host;
mod schemes;
mod tld_data;
mod trigger;

use decode::{Choice, Family, Map, Stream};
pub use delimit::link_end;
pub use encoding_rs::Encoding;
use find::{Ctx, LOOKBACK, Opts, Outcome};
use trigger::{Cands, Hay, Triggers};

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
    /// BOM, else UTF-16 by its NUL pattern, else ISO-2022-JP by its escape sequences, else
    /// UTF-8 if the first 64 KiB validate, else the chardetng guess.
    #[default]
    Auto,
    /// This encoding (a BOM still wins, as in WHATWG "decode").
    Fixed(&'static Encoding),
    /// This encoding and no BOM sniffing: for a slice of a stream whose encoding and BOM were
    /// already decided (the chunks of `linksieve run`), where bytes that look like a BOM are text.
    Exact(&'static Encoding),
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

/// Bytes that `auto` looks at before deciding (also the most input the scanner holds back
/// before its first hit).
///
/// ```
/// assert_eq!(linksieve_scan::AUTO_WINDOW, 65536);
/// ```
pub const AUTO_WINDOW: usize = decode::AUTO_WINDOW;

/// Decides the encoding of a stream from its start, as the scanner does: the BOM wins (except for
/// [`EncodingChoice::Exact`]), then the label, then (`auto`) UTF-16 by its NUL pattern, ISO-2022-JP by its escapes, UTF-8 if
/// the first [`AUTO_WINDOW`] bytes validate, else the chardetng guess. `prefix` is the start of
/// the stream; `last` says it is all of it. Returns the encoding and the length of the BOM, or
/// `None` when more input is needed.
///
/// ```
/// use linksieve_scan::{detect_encoding, EncodingChoice};
/// assert_eq!(detect_encoding(EncodingChoice::Auto, b"\xef\xbb\xbfhi", true).map(|(e, n)| (e.name(), n)), Some(("UTF-8", 3)));
/// assert_eq!(detect_encoding(EncodingChoice::Auto, b"hi", false), None);
/// ```
pub fn detect_encoding(
    choice: EncodingChoice,
    prefix: &[u8],
    last: bool,
) -> Option<(&'static Encoding, usize)> {
    decode::decide(choice.into(), prefix, last)
}

impl From<EncodingChoice> for Choice {
    fn from(c: EncodingChoice) -> Choice {
        match c {
            EncodingChoice::Auto => Choice::Auto,
            EncodingChoice::Fixed(e) => Choice::Fixed(e),
            EncodingChoice::Exact(e) => Choice::Exact(e),
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
    /// Decode every input byte. Off (the default), input in an ASCII-compatible encoding
    /// (UTF-8, the single-byte encodings, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK, gb18030) is
    /// decoded only around candidates, which are found in the raw bytes; the links are the
    /// same either way, but [`ScanStats::malformed_sequences`] and
    /// [`ScanStats::malformed_bytes`] then count only the decoded part
    /// ([`ScanStats::skipped_bytes`] says how much was not).
    ///
    /// ```
    /// use linksieve_scan::{encoding_for_label, scan_bytes, EncodingChoice, ScanOptions};
    /// let mut input = b"\xff ".repeat(2000);
    /// input.extend_from_slice(b"http://a.example/");
    /// let utf8 = EncodingChoice::Fixed(encoding_for_label("utf-8").unwrap());
    /// let lazy = scan_bytes(&input, &ScanOptions { encoding: utf8, ..Default::default() });
    /// let all = scan_bytes(&input, &ScanOptions { encoding: utf8, decode_all: true, ..Default::default() });
    /// assert_eq!(lazy.hits, all.hits);
    /// assert_eq!(all.stats.malformed_sequences, 2000);
    /// assert!(lazy.stats.skipped_bytes > 0);
    /// assert_eq!(all.stats.skipped_bytes, 0);
    /// ```
    pub decode_all: bool,
    /// Count lines, for [`Hit::line`]. On by default; a caller that never reads the line (a
    /// list of links, a set of keys) turns it off and saves a pass over the input bytes, and
    /// every hit then has line 0.
    ///
    /// ```
    /// use linksieve_scan::{scan_bytes, ScanOptions};
    /// let input = b"a\nb\nhttp://a.example/";
    /// assert_eq!(scan_bytes(input, &ScanOptions::default()).hits[0].line, 3);
    /// let off = ScanOptions { lines: false, ..Default::default() };
    /// assert_eq!(scan_bytes(input, &off).hits[0].line, 0);
    /// ```
    pub lines: bool,
    /// The text is HTML whose links will have their character references decoded (`run
    /// --html`): a link's extent is made wide enough to hold the link of the decoded text.
    /// A reference to an opening bracket (`&#40;`, `&lpar;`, `&laquo;`) opens a pair, so that
    /// a closing bracket after it does not end the link; one to `?` starts the query; after
    /// any `&` text glued in another script is not cut. The caller then decodes the link and
    /// ends it with [`link_end`] (the scanner's hits keep the raw text).
    ///
    /// ```
    /// use linksieve_scan::{scan_bytes, ScanOptions};
    /// let t = b"(http://ex.com/w&#40;x) y)";
    /// assert_eq!(scan_bytes(t, &ScanOptions::default()).hits[0].text, "http://ex.com/w&#40;x");
    /// let html = ScanOptions { html: true, ..ScanOptions::default() };
    /// assert_eq!(scan_bytes(t, &html).hits[0].text, "http://ex.com/w&#40;x)");
    /// ```
    pub html: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            encoding: EncodingChoice::Auto,
            schemeless: false,
            email: false,
            ascii_only: false,
            max_link_len: DEFAULT_MAX_LINK_LEN,
            decode_all: false,
            lines: true,
            html: false,
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
        tags(
            self.wrapper,
            self.url_prefix,
            self.line_breaks,
            !self.trailing.is_empty(),
            self.host_cut,
        )
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

/// A link as [`Scanner::feed_with`] reports it: a [`Hit`] whose text borrows the scanner's
/// buffers instead of owning a copy.
///
/// ```
/// use linksieve_scan::Scanner;
/// let mut s = Scanner::new(&Default::default());
/// let mut hits = Vec::new();
/// s.feed_with(b"(see <http://a.example/x>, 'mailto:me@b.example')", |h| hits.push(h.to_hit())).unwrap();
/// s.finish_with(|h| hits.push(h.to_hit())).unwrap();
/// assert_eq!(hits.len(), 2);
/// assert_eq!(hits[1].text, "mailto:me@b.example");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitRef<'a> {
    /// Byte offset of the link's first byte in the original input.
    pub start: u64,
    /// Byte offset just after the link's last byte in the original input.
    pub end: u64,
    /// 1-based line (counted by LF) where the link starts.
    pub line: u64,
    /// The link text in UTF-8, wrappers and wrapper whitespace removed.
    pub text: &'a str,
    /// What kind of link it is.
    pub kind: LinkKind,
    /// What was trimmed.
    pub trimmed: TrimmedRef<'a>,
    /// The encoding the input was decoded with.
    pub encoding: &'static Encoding,
    /// The text was transcoded from a non-Unicode encoding, so the link was NFC-normalised.
    pub from_legacy: bool,
    /// NFC normalisation changed the link text.
    pub nfc_changed: bool,
}

impl HitRef<'_> {
    /// An owned copy.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut v = Vec::new();
    /// s.finish_with(|h| v.push(h.to_hit())).unwrap();
    /// assert!(v.is_empty());
    /// ```
    pub fn to_hit(&self) -> Hit {
        Hit {
            start: self.start,
            end: self.end,
            line: self.line,
            text: self.text.to_owned(),
            kind: self.kind,
            trimmed: Trimmed {
                wrapper: self.trimmed.wrapper,
                url_prefix: self.trimmed.url_prefix,
                line_breaks: self.trimmed.line_breaks,
                trailing: self.trimmed.trailing.to_owned(),
                host_cut: self.trimmed.host_cut,
            },
            encoding: self.encoding,
            from_legacy: self.from_legacy,
            nfc_changed: self.nfc_changed,
        }
    }
}

/// [`Trimmed`] with borrowed trailing punctuation.
///
/// ```
/// let mut s = linksieve_scan::Scanner::new(&Default::default());
/// let mut tags = Vec::new();
/// s.feed_with(b"<URL:http://x.example/>.", |h| tags = h.trimmed.tags()).unwrap();
/// s.finish_with(|h| tags = h.trimmed.tags()).unwrap();
/// assert_eq!(tags, ["angle", "url_prefix"]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrimmedRef<'a> {
    /// The delimiters around the link.
    pub wrapper: Option<Wrapper>,
    /// A `URL:` prefix was dropped.
    pub url_prefix: bool,
    /// Whitespace with line breaks inside `<…>` was removed from the link text.
    pub line_breaks: bool,
    /// Trailing punctuation left out of the link.
    pub trailing: &'a str,
    /// The host was cut where text in another script (or a `-`) was glued to it.
    pub host_cut: bool,
}

impl TrimmedRef<'_> {
    /// Short tags for what was trimmed (see [`Trimmed::tags`]).
    ///
    /// ```
    /// let t = linksieve_scan::TrimmedRef { trailing: ".", ..Default::default() };
    /// assert_eq!(t.tags(), ["trailing"]);
    /// ```
    pub fn tags(&self) -> Vec<&'static str> {
        tags(
            self.wrapper,
            self.url_prefix,
            self.line_breaks,
            !self.trailing.is_empty(),
            self.host_cut,
        )
    }
}

fn tags(
    wrapper: Option<Wrapper>,
    url_prefix: bool,
    line_breaks: bool,
    trailing: bool,
    host_cut: bool,
) -> Vec<&'static str> {
    let mut v = Vec::new();
    match wrapper {
        Some(Wrapper::Angle) => v.push("angle"),
        Some(Wrapper::Quote) => v.push("quote"),
        None => {}
    }
    if url_prefix {
        v.push("url_prefix");
    }
    if line_breaks {
        v.push("line_breaks");
    }
    if trailing {
        v.push("trailing");
    }
    if host_cut {
        v.push("host_cut");
    }
    v
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
    /// Input bytes the decoder never saw (see [`ScanOptions::decode_all`]): scanned in place
    /// where they are their own text, or far from any candidate. Set when the scan finishes.
    pub skipped_bytes: u64,
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
    trig: Triggers,
    decode_all: bool,
    lines: bool,
    choice: Choice,
    pending: Vec<u8>,
    eng: Option<Engine>,
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
                ascii_only: opts.ascii_only,
                max_len: opts.max_link_len.max(8),
                html: opts.html,
            },
            trig: Triggers {
                schemeless: opts.schemeless,
                email: opts.email,
            },
            decode_all: opts.decode_all,
            lines: opts.lines,
            choice: opts.encoding.into(),
            pending: Vec::new(),
            eng: None,
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
        self.eng.as_ref().map(|e| e.stream.encoding)
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
        self.feed_with(chunk, |h| out.push(h.to_hit()))
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
        self.finish_with(|h| out.push(h.to_hit()))
    }

    /// [`feed`](Scanner::feed) without copying: each link is passed to `sink` as a [`HitRef`]
    /// that borrows the scanner's text.
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// let mut n = 0;
    /// s.feed_with(b"see http://a.example/ and http://b.example/ ", |h| n += h.text.len()).unwrap();
    /// s.finish_with(|h| n += h.text.len()).unwrap();
    /// assert_eq!(n, 34);
    /// ```
    pub fn feed_with(
        &mut self,
        chunk: &[u8],
        mut sink: impl FnMut(HitRef<'_>),
    ) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        self.stats.bytes_in += chunk.len() as u64;
        let (opts, trig) = (self.opts, self.trig);
        if self.eng.is_none() {
            // a first chunk that decides the encoding (always, for a fixed one) is scanned
            // where it lies, without a copy into `pending`
            if self.pending.is_empty()
                && let Some((enc, bom)) = decode::decide(self.choice, chunk, false)
            {
                self.start(enc, bom, chunk, &mut sink);
                return Ok(());
            }
            self.pending.extend_from_slice(chunk);
            let Some((enc, bom)) = decode::decide(self.choice, &self.pending, false) else {
                return Ok(());
            };
            let pending = std::mem::take(&mut self.pending);
            self.start(enc, bom, &pending, &mut sink);
        } else if let Some(eng) = self.eng.as_mut() {
            eng.feed(chunk, opts, trig, &mut self.stats, &mut sink);
        }
        Ok(())
    }

    /// [`finish`](Scanner::finish) without copying (see [`feed_with`](Scanner::feed_with)).
    ///
    /// ```
    /// let mut s = linksieve_scan::Scanner::new(&Default::default());
    /// s.feed_with(b"mailto:a@b.example", |_| {}).unwrap();
    /// let mut got = Vec::new();
    /// s.finish_with(|h| got.push(h.text.to_owned())).unwrap();
    /// assert_eq!(got, ["mailto:a@b.example"]);
    /// ```
    pub fn finish_with(&mut self, mut sink: impl FnMut(HitRef<'_>)) -> Result<(), ScanError> {
        if self.finished {
            return Err(ScanError::Finished);
        }
        self.finished = true;
        let (opts, trig) = (self.opts, self.trig);
        if self.eng.is_none() {
            let (enc, bom) =
                decode::decide(self.choice, &self.pending, true).unwrap_or((encoding_rs::UTF_8, 0));
            let bom = bom.min(self.pending.len());
            let pending = std::mem::take(&mut self.pending);
            self.start(enc, bom, &pending, &mut sink);
        }
        if let Some(eng) = self.eng.as_mut() {
            eng.finish(opts, trig, &mut self.stats, &mut sink);
        }
        Ok(())
    }

    /// The encoding is decided: starts the engine on the input's first bytes (`bom` of them a
    /// byte order mark).
    fn start(&mut self, enc: &'static Encoding, bom: usize, first: &[u8], sink: &mut Sink<'_>) {
        let (opts, trig) = (self.opts, self.trig);
        let mut eng = Engine::new(enc, bom, self.decode_all, self.lines, trig);
        eng.feed(&first[bom..], opts, trig, &mut self.stats, sink);
        self.eng = Some(eng);
    }
}

/// Input collected before it is looked at: small chunks are gathered so that the per-chunk
/// work (the look back carried over to the next chunk) is spread over enough input.
const BATCH: usize = 16 * 1024;
/// The least gap worth skipping when the text window restarts (bytes): decoding UTF-8 is a
/// validated copy, decoding the other encodings costs more than restarting.
const MIN_SKIP_UTF8: u64 = 512;
const MIN_SKIP_LEGACY: u64 = 32;
/// Input decoded after a candidate when the text window takes it; doubles while more is needed.
const FWD0: u64 = 96;
const FWD_MAX: u64 = 64 * 1024;
/// Input looked at in place after a candidate at first: it grows while candidates are dense
/// (up to the whole chunk), so that sparse text is validated only around candidates.
const DWIN0: u64 = 1024;
const DWIN_MAX: u64 = 1 << 22;
/// How far back from where a window must start a restart point is looked for.
const SYNC_SCAN: u64 = 256;

type Sink<'s> = dyn FnMut(HitRef<'_>) + 's;

/// Where the engine of an ASCII-compatible encoding is (see [`Engine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Candidates are looked for in the input bytes, and each is decided in place where the
    /// bytes around it are their own text.
    Raw,
    /// The text window holds the decoded text around a candidate that needs it.
    Text,
}

/// Decoding and finding for one stream.
///
/// **Text window.** A decoder for the whole stream writes decoded text into `text`, which the
/// finder scans (`run`). This is how UTF-16, ISO-2022-JP and the `replacement` encoding are
/// always scanned, and every encoding with [`ScanOptions::decode_all`].
///
/// **In place** (`lazy`). For the ASCII-compatible stateless encodings (UTF-8, the single-byte
/// encodings, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030) the candidates are looked for in
/// the input bytes (`trigger.rs`: `:` `.` `/` are never part of a multi-byte character there).
/// Around a candidate, from a byte where decoding restarts exactly (`Family::is_sync`) far
/// enough back for every look back of the finder (`reach_of`), the input bytes are their own
/// text as long as they are valid UTF-8 (UTF-8) or ASCII (the others): the finder runs right on
/// them (`run_direct`), over every candidate up to where that stops, with no copy, no decoder
/// and input offsets for free. A valid UTF-8 chunk is one such window. A candidate that needs
/// more (a non-ASCII character, malformed input, the next chunk) or is too long is handed to
/// the text window (`enter_text`), which restarts decoding at a restart point before it (or
/// goes on where it stopped) and starts the finder right at that candidate, with the floor and
/// line count carried over; when the finder there has decided everything, scanning goes back
/// to the input bytes (`leave_text`). Every candidate is decided once, on exactly the text the
/// whole decoded stream has around it, so the links are those of decoding everything; each
/// input byte is looked at a bounded number of times, so the work stays linear.
struct Engine {
    stream: Stream,
    map: Map,
    family: Family,
    legacy: bool,
    lazy: bool,
    /// input bytes a window starts before its candidate at most (see `reach_of`)
    reach: u64,
    /// `.` and `@` are triggers (schemeless, email): they look back over up to `HOST_MAX`
    wide: bool,
    min_skip: u64,
    /// least text to wait for after a candidate asked for more
    min_wait: u64,
    /// the decoder got its last input
    done: bool,
    // the text window and its finder
    text: String,
    base: u64,
    pos: usize,
    floor: usize,
    skipping: bool,
    wait_until: u64,
    /// count lines ([`ScanOptions::lines`]); off, `line` stays 0
    lines: bool,
    /// `line` is the line at text offset `line_pos` (text mode)
    line: u64,
    line_pos: u64,
    // in place
    mode: Mode,
    /// raw mode: every candidate before this input offset is decided
    cur: u64,
    /// links never start before this input offset (the end of the last link)
    floor_raw: u64,
    /// raw mode: `line` is the line at this input offset
    line_raw: u64,
    /// input kept for the next chunk, from `rbuf_abs` on: what the text window has not
    /// decoded yet (text mode), or what a candidate of the next chunk may look back at (raw
    /// mode; `rbuf_abs` is then a character boundary)
    rbuf: Vec<u8>,
    rbuf_abs: u64,
    /// the (up to) eight input bytes before `rbuf_abs`
    before: [u8; 8],
    fwd: u64,
    dwin: u64,
    /// NFC of the current link (legacy encodings)
    nfc: String,
    /// input offset of the first byte after the BOM, and input bytes given to the decoder
    first: u64,
    decoded: u64,
}

/// The bytes of `raw` from input offset `from` to `to` (`raw` starts at `abs`).
#[inline]
fn span(raw: &[u8], abs: u64, from: u64, to: u64) -> &[u8] {
    &raw[(from - abs) as usize..(to - abs) as usize]
}

impl Engine {
    fn new(
        enc: &'static Encoding,
        bom: usize,
        decode_all: bool,
        lines: bool,
        trig: Triggers,
    ) -> Engine {
        let (stream, map) = Stream::new(enc, bom as u64, 0);
        let family = Family::of(enc);
        let lazy = family.lazy() && !decode_all;
        let wide = trig.schemeless || trig.email;
        let reach = if wide {
            // `.` and `@` look back over a host or a local part; an IPv6 address; two input
            // bytes per text byte at most
            2 * (find::HOST_MAX as u64 + 64)
        } else {
            // a scheme, `URL:` and `<` before it
            2 * (find::SCHEME_MAX as u64 + 16)
        };
        Engine {
            stream,
            map,
            family,
            legacy: !(enc == encoding_rs::UTF_8
                || enc == encoding_rs::UTF_16LE
                || enc == encoding_rs::UTF_16BE),
            lazy,
            reach,
            wide,
            min_skip: if family == Family::Utf8 {
                MIN_SKIP_UTF8
            } else {
                MIN_SKIP_LEGACY
            },
            min_wait: if !lazy {
                4096
            } else if family == Family::Utf8 {
                256
            } else {
                16
            },
            done: false,
            text: String::new(),
            base: 0,
            pos: 0,
            floor: 0,
            skipping: false,
            wait_until: 0,
            lines,
            line: lines as u64,
            line_pos: 0,
            mode: Mode::Text,
            cur: bom as u64,
            floor_raw: bom as u64,
            line_raw: bom as u64,
            rbuf: Vec::new(),
            rbuf_abs: bom as u64,
            before: [0; 8],
            fwd: FWD0,
            dwin: DWIN0,
            nfc: String::new(),
            first: bom as u64,
            decoded: 0,
        }
    }

    fn feed(
        &mut self,
        chunk: &[u8],
        opts: Opts,
        trig: Triggers,
        stats: &mut ScanStats,
        sink: &mut Sink<'_>,
    ) {
        if !self.lazy {
            self.decode(chunk, false, stats);
            self.run(false, opts, trig, stats, sink);
            return;
        }
        if chunk.len() < BATCH {
            self.rbuf.extend_from_slice(chunk);
            if self.rbuf.len() < BATCH {
                return;
            }
            let r = std::mem::take(&mut self.rbuf);
            let abs = self.rbuf_abs;
            self.pump(&r, abs, false, opts, trig, stats, sink);
            self.keep(&r, abs);
            return;
        }
        if !self.rbuf.is_empty() {
            let mut r = std::mem::take(&mut self.rbuf);
            let abs = self.rbuf_abs;
            self.pump(&r, abs, false, opts, trig, stats, sink);
            // the chunk cannot look back into `r` in place: the text window takes what is
            // left of it, and the chunk starts where the decoder stands
            let end = abs + r.len() as u64;
            match self.mode {
                Mode::Text => {
                    let dec = self.stream.src_pos();
                    self.decode(span(&r, abs, dec, end), false, stats);
                    self.run(false, opts, trig, stats, sink);
                }
                Mode::Raw => {
                    let hay = Hay {
                        b: &r,
                        before: self.before,
                        eof: false,
                    };
                    self.enter_text(&hay, abs, end, self.reach, false, opts, trig, stats, sink);
                }
            }
            self.before = last8(&self.before, &r, r.len());
            r.clear();
            self.rbuf = r;
            self.rbuf_abs = end;
        }
        let abs = self.rbuf_abs;
        self.pump(chunk, abs, false, opts, trig, stats, sink);
        self.keep(chunk, abs);
    }

    fn finish(&mut self, opts: Opts, trig: Triggers, stats: &mut ScanStats, sink: &mut Sink<'_>) {
        if !self.lazy {
            self.decode(&[], true, stats);
            self.run(true, opts, trig, stats, sink);
            return;
        }
        let r = std::mem::take(&mut self.rbuf);
        let abs = self.rbuf_abs;
        self.pump(&r, abs, true, opts, trig, stats, sink);
        let end = abs + r.len() as u64;
        stats.skipped_bytes = (end - self.first).saturating_sub(self.decoded);
    }

    /// Keeps the end of `raw` (from `abs`) that the next chunk needs, after [`Engine::pump`].
    fn keep(&mut self, raw: &[u8], abs: u64) {
        let end = abs + raw.len() as u64;
        let dec = self.stream.src_pos();
        let keep = match self.mode {
            // what the text window has not decoded
            Mode::Text => dec,
            // every candidate is decided: what a candidate of the next chunk may look back at
            // (`pump` found the point)
            Mode::Raw => self.keep_point(raw, abs).unwrap_or(dec),
        };
        let keep = keep.clamp(abs, end);
        if self.mode == Mode::Raw && keep > self.line_raw {
            let from = self.line_raw.max(abs);
            self.line += lf(self.lines, span(raw, abs, from, keep));
            self.line_raw = keep;
        }
        let k = (keep - abs) as usize;
        self.before = last8(&self.before, raw, k);
        if raw.as_ptr() == self.rbuf.as_ptr() {
            self.rbuf.drain(..k);
        } else {
            let mut r = std::mem::take(&mut self.rbuf);
            r.clear();
            r.extend_from_slice(&raw[k..]);
            self.rbuf = r;
        }
        self.rbuf_abs = keep;
    }

    /// In raw mode at the end of `raw` (from `abs`), with every candidate decided: where the
    /// input kept for the look back of the next chunk's candidates can start. A restart point
    /// near the end, or where the decoder stands if that is close; `None` when there is no
    /// such point (then the text window has to take the end of `raw`).
    fn keep_point(&self, raw: &[u8], abs: u64) -> Option<u64> {
        let end = abs + raw.len() as u64;
        let dec = self.stream.src_pos();
        let want = end.saturating_sub(self.reach + 64);
        if dec >= abs && dec + SYNC_SCAN >= want {
            return Some(dec.min(end));
        }
        let lo = (abs + 1).max(dec).max(want.saturating_sub(SYNC_SCAN));
        self.sync_in(raw, abs, lo, want)
    }

    /// Decodes `chunk` (the next input bytes) onto the text window.
    fn decode(&mut self, chunk: &[u8], last: bool, stats: &mut ScanStats) {
        if self.done {
            return;
        }
        self.done = last;
        self.decoded += chunk.len() as u64;
        self.stream
            .decode(chunk, last, &mut self.text, self.base, &mut self.map, stats);
    }

    /// The finder of the text window has decided everything it holds.
    fn idle(&self) -> bool {
        !self.skipping && self.pos >= self.text.len()
    }

    /// Finds the links in `raw` (input from offset `abs` on; `last`: nothing follows), in
    /// place where it can (see [`Engine`]).
    #[allow(clippy::too_many_arguments)]
    fn pump(
        &mut self,
        raw: &[u8],
        abs: u64,
        last: bool,
        opts: Opts,
        trig: Triggers,
        stats: &mut ScanStats,
        sink: &mut Sink<'_>,
    ) {
        let end = abs + raw.len() as u64;
        let hay = Hay {
            b: raw,
            before: self.before,
            eof: last,
        };
        let mut cands = Cands::new();
        // a candidate to look at again with a wider window
        let mut again = None;
        loop {
            if self.mode == Mode::Text {
                if !self.idle() {
                    // the finder waits for more text: decode on
                    let dec = self.stream.src_pos();
                    if dec >= end {
                        if !last {
                            return;
                        }
                        self.decode(&[], true, stats);
                        self.run(true, opts, trig, stats, sink);
                        continue;
                    }
                    let text_end = self.base + self.text.len() as u64;
                    let want = if self.skipping {
                        self.fwd
                    } else {
                        self.wait_until.saturating_sub(text_end).max(self.min_wait)
                    };
                    self.fwd = (self.fwd * 2).min(FWD_MAX);
                    let e = end.min(dec + want);
                    let fin = last && e == end;
                    self.decode(span(raw, abs, dec, e), fin, stats);
                    self.run(fin, opts, trig, stats, sink);
                    continue;
                }
                self.leave_text();
            }
            let from = self.cur.max(abs);
            let next = if let Some(k) = again.take() {
                Some(k)
            } else if from < end {
                cands.next(&hay, (from - abs) as usize, trig)
            } else {
                None
            };
            let Some(k) = next else {
                self.cur = self.cur.max(end);
                if last {
                    // malformed input the decoder still holds is counted
                    self.decode(&[], true, stats);
                } else if self.keep_point(raw, abs).is_none() {
                    // no restart point near the end: the text window takes the end, so that
                    // the next chunk goes on from where the decoder stands
                    self.enter_text(&hay, abs, end, self.reach, false, opts, trig, stats, sink);
                }
                return;
            };
            let t = abs + k as u64;
            let run = self.scheme_run(&hay, k);
            let back = self.reach_of(&hay, k, run);
            if let Some(y) = self.direct_start(&hay, abs, k, back, run) {
                let (text, z, stop) = self.direct(raw, abs, y, t, end);
                if z > t {
                    let fin = last && z == end;
                    let (undecided, seen) =
                        self.run_direct(raw, abs, text, y, t, fin, opts, trig, stats, sink);
                    // candidates close together: look at more in place at once next time
                    let dense = seen >= 2 && (z - t) / seen <= 512;
                    let grown = (self.dwin * 2).min(DWIN_MAX);
                    match undecided {
                        None => {
                            self.dwin = if dense { grown } else { DWIN0 };
                            self.cur = z;
                            continue;
                        }
                        Some((t2, more)) if more && !stop => {
                            // the window ended where the input goes on as text: look again from
                            // that candidate, with a wider window (so each candidate is looked
                            // at a logarithmic number of times, on a geometric series of input)
                            self.cur = t2;
                            self.dwin = (self.dwin * 4).min(DWIN_MAX);
                            again = Some((t2 - abs) as usize);
                            continue;
                        }
                        Some((t2, _)) => {
                            self.dwin = if dense { grown } else { DWIN0 };
                            let k2 = (t2 - abs) as usize;
                            let back = self.reach_of(&hay, k2, self.scheme_run(&hay, k2));
                            self.enter_text(&hay, abs, t2, back, last, opts, trig, stats, sink);
                            continue;
                        }
                    }
                }
            }
            self.enter_text(&hay, abs, t, back, last, opts, trig, stats, sink);
        }
    }

    /// How far before the candidate at `k` its window must start. The finder looks back from
    /// a `:` over the scheme and then at most seven text bytes (`URL: ` and `<`), at most seven
    /// characters; the scheme is a suffix of the run of ASCII scheme bytes before the `:` in
    /// the input (its characters are those ASCII bytes). `.` and `@` look back over up to
    /// `HOST_MAX` text bytes.
    fn reach_of(&self, hay: &Hay<'_>, k: usize, run: Option<usize>) -> u64 {
        match run {
            Some(run) if !self.wide && hay.b.get(k) == Some(&b':') => {
                run as u64 + 8 * self.family.max_char_len()
            }
            _ => self.reach,
        }
    }

    /// The run of scheme bytes before the `:` at `k` (see [`Engine::reach_of`]); `None` for
    /// other triggers, and when `.` and `@` are triggers too.
    fn scheme_run(&self, hay: &Hay<'_>, k: usize) -> Option<usize> {
        (!self.wide && hay.b.get(k) == Some(&b':')).then(|| hay.scheme_run(k, find::SCHEME_MAX + 1))
    }

    /// Where a window in place for the candidate at `k` starts: a restart point at or before
    /// `t - back`; or, when the bytes before the scheme are ASCII (each its own character from
    /// a restart point on, so that the seven text bytes the finder looks at before a scheme are
    /// seven input bytes), one at or before the scheme and eight bytes.
    fn direct_start(
        &self,
        hay: &Hay<'_>,
        abs: u64,
        k: usize,
        back: u64,
        run: Option<usize>,
    ) -> Option<u64> {
        let raw = hay.b;
        let t = abs + k as u64;
        if let Some(run) = run {
            let tight = (run + 8) as u64;
            if tight < back && t > abs + tight {
                let want = t - tight;
                let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
                if let Some(y) = self.sync_in(raw, abs, lo, want) {
                    if span(raw, abs, y, t).is_ascii() {
                        return Some(y);
                    }
                }
            }
        }
        let want = t.checked_sub(back).filter(|&w| w > abs)?;
        let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
        self.sync_in(raw, abs, lo, want)
    }

    /// The last restart point (`Family::is_sync`) in `[lo, hi]` (input offsets, `lo` after the
    /// first byte of `raw`).
    fn sync_in(&self, raw: &[u8], abs: u64, lo: u64, hi: u64) -> Option<u64> {
        let end = abs + raw.len() as u64;
        let hi = hi.min(end.saturating_sub(1));
        if lo > hi || lo <= abs {
            return None;
        }
        let fam = self.family;
        let (lo, hi) = ((lo - abs) as usize, (hi - abs) as usize);
        (lo..=hi)
            .rev()
            .find(|&i| fam.is_sync_after(raw[i - 1], raw[i]))
            .map(|i| abs + i as u64)
    }

    /// The input bytes from `y` (a restart point) that are their own text, up to `dwin` bytes
    /// past the candidate at `t`: valid UTF-8 (UTF-8) or ASCII (the others). Returns them, their
    /// end, and whether they stop there for good (malformed or non-ASCII input, or the end of
    /// `raw`) rather than at the window's width.
    fn direct<'r>(
        &self,
        raw: &'r [u8],
        abs: u64,
        y: u64,
        t: u64,
        end: u64,
    ) -> (&'r str, u64, bool) {
        let lim = end.min(t + self.dwin);
        let b = span(raw, abs, y, lim);
        let (n, stop) = if self.family == Family::Utf8 {
            // SIMD validation: the window is most of the input on text dense with links
            match simdutf8::compat::from_utf8(b) {
                Ok(text) => return (text, lim, lim == end),
                // a sequence cut by the window's width is not an error
                Err(e) => (e.valid_up_to(), e.error_len().is_some() || lim == end),
            }
        } else {
            let n = Encoding::ascii_valid_up_to(b);
            (n, n < b.len() || lim == end)
        };
        let text = simdutf8::basic::from_utf8(&b[..n]).unwrap_or_default();
        (text, y + text.len() as u64, stop)
    }

    /// Runs the finder on `text`, the input bytes from `y` on, which are their own text, from
    /// the candidate at `t`. Returns the first candidate it cannot decide there, if any, and
    /// whether that is for want of more input (rather than being too long); and how many
    /// candidates it looked at.
    #[allow(clippy::too_many_arguments)]
    fn run_direct(
        &mut self,
        raw: &[u8],
        abs: u64,
        text: &str,
        y: u64,
        t: u64,
        eof: bool,
        opts: Opts,
        trig: Triggers,
        stats: &mut ScanStats,
        sink: &mut Sink<'_>,
    ) -> (Option<(u64, bool)>, u64) {
        let w = text.as_bytes();
        let mut ctx = Ctx {
            text,
            eof,
            floor: self.floor_raw.saturating_sub(y) as usize,
            opts,
            work: 0,
        };
        let hay = Hay {
            b: w,
            before: [0; 8],
            eof,
        };
        let mut cands = Cands::new();
        let mut pos = (t - y) as usize;
        let mut out = None;
        let mut seen = 0;
        while let Some(k) = cands.next(&hay, pos, trig) {
            stats.candidates += 1;
            seen += 1;
            match ctx.examine(k) {
                Ok(Outcome::Hit(f)) => {
                    pos = f.resume;
                    ctx.floor = f.resume;
                    let (start, end) = (y + f.start as u64, y + f.end as u64);
                    if start > self.line_raw {
                        let from = self.line_raw.max(abs);
                        self.line += lf(self.lines, span(raw, abs, from, start));
                        self.line_raw = start;
                    }
                    self.floor_raw = y + f.resume as u64;
                    let link: &str = match &f.joined {
                        Some(j) => j,
                        None => &text[f.start..f.end],
                    };
                    sink(HitRef {
                        start,
                        end,
                        line: self.line,
                        text: link,
                        kind: f.kind,
                        trimmed: trimmed_ref(&f, text),
                        encoding: self.stream.encoding,
                        // the window is ASCII in a legacy encoding: NFC changes nothing
                        from_legacy: self.legacy,
                        nfc_changed: false,
                    });
                    stats.hits += 1;
                }
                Ok(Outcome::Reject { resume }) => pos = resume.max(k + 1),
                Ok(Outcome::TooLong { .. }) => {
                    out = Some((y + k as u64, false));
                    break;
                }
                Err(find::NeedMore) => {
                    out = Some((y + k as u64, true));
                    break;
                }
            }
        }
        stats.work += ctx.work;
        (out, seen)
    }

    /// Hands the candidate at input offset `target` (a character boundary in `hay`, which
    /// starts at `abs`) to the text window: restarts decoding at a restart point at least
    /// `back` bytes before it (or goes on from where the decoder stands), decodes up to it,
    /// carries the floor and the line count over, and runs the finder from there.
    #[allow(clippy::too_many_arguments)]
    fn enter_text(
        &mut self,
        hay: &Hay<'_>,
        abs: u64,
        target: u64,
        back: u64,
        last: bool,
        opts: Opts,
        trig: Triggers,
        stats: &mut ScanStats,
        sink: &mut Sink<'_>,
    ) {
        let raw = hay.b;
        let end = abs + raw.len() as u64;
        let dec0 = self.stream.src_pos();
        let want = target.saturating_sub(back);
        let restart = if dec0 < abs {
            // the decoder stands in input that is gone: `abs` is a restart point then
            let lo = (abs + 1).max(want.saturating_sub(SYNC_SCAN));
            Some(self.sync_in(raw, abs, lo, want).unwrap_or(abs))
        } else if want >= dec0 + self.min_skip {
            let lo = (dec0 + self.min_skip).max(want.saturating_sub(SYNC_SCAN));
            self.sync_in(raw, abs, lo, want)
        } else {
            None
        };
        let start = match restart {
            Some(y) => {
                self.skip_to(y);
                if self.line_raw < y {
                    let from = self.line_raw.max(abs);
                    self.line += lf(self.lines, span(raw, abs, from, y));
                    self.line_raw = y;
                }
                self.line_pos = self.base;
                self.floor = 0;
                y
            }
            None => dec0,
        };
        // decode up to `target`, taking the text offsets of the floor, the line count and
        // `target` on the way (each either before `start`, where the window already agrees,
        // or at a character boundary after it)
        let mut points = [(self.floor_raw, 0u8), (self.line_raw, 1), (target, 2)];
        points.sort_unstable();
        for (p, kind) in points {
            let at = if p < start {
                // only `target` can be there, right at the end of the text
                self.text.len()
            } else {
                let dec = self.stream.src_pos();
                if p > dec {
                    self.decode(span(raw, abs, dec, p), false, stats);
                }
                self.text.len()
            };
            match kind {
                0 if p >= start => self.floor = at,
                1 if p >= start => self.line_pos = self.base + at as u64,
                2 => self.pos = at,
                _ => {}
            }
        }
        self.mode = Mode::Text;
        self.fwd = FWD0;
        let dec = self.stream.src_pos();
        let e = end.min(target.max(dec) + self.fwd);
        let fin = last && e == end;
        if e > dec || fin {
            self.decode(span(raw, abs, dec, e), fin, stats);
        }
        self.run(fin, opts, trig, stats, sink);
    }

    /// The text window has decided everything: back to the input bytes.
    fn leave_text(&mut self) {
        let t_end = self.base + self.text.len() as u64;
        count_lines(
            self.lines,
            &self.text,
            self.base,
            t_end,
            &mut self.line,
            &mut self.line_pos,
        );
        // where the decoder stands: past the end of the text only by a sequence it holds
        // unfinished, which has neither a line feed nor a trigger. (Not the offset map: links
        // found later may start before the end of the text, and the map only goes forward.)
        let r = self.stream.src_pos();
        self.line_raw = r;
        self.cur = self.cur.max(r);
        self.mode = Mode::Raw;
    }

    /// Restarts the text window empty at input offset `y` (a restart point at or after where
    /// the decoder stands); what lies between is not decoded.
    fn skip_to(&mut self, y: u64) {
        let t_end = self.base + self.text.len() as u64;
        self.map.src_of(t_end, &self.text, self.base);
        self.text.clear();
        self.base = t_end;
        self.pos = 0;
        self.floor = 0;
        self.wait_until = 0;
        self.line_pos = t_end;
        self.map.restart(t_end, y);
        self.stream.reset(y, t_end);
    }

    fn run(
        &mut self,
        eof: bool,
        opts: Opts,
        trig: Triggers,
        stats: &mut ScanStats,
        sink: &mut Sink<'_>,
    ) {
        let end_abs = self.base + self.text.len() as u64;
        if !eof && end_abs < self.wait_until {
            return;
        }
        let Engine {
            stream,
            map,
            legacy,
            text,
            base,
            pos: self_pos,
            floor,
            skipping,
            wait_until,
            lines,
            line,
            line_pos,
            nfc,
            min_wait,
            floor_raw,
            ..
        } = self;
        let (base, legacy, encoding, lines) = (*base, *legacy, stream.encoding, *lines);
        let text: &str = text;
        let mut ctx = Ctx {
            text,
            eof,
            floor: *floor,
            opts,
            work: 0,
        };
        let hay = Hay {
            b: text.as_bytes(),
            before: [0; 8],
            eof,
        };
        let mut cands = Cands::new();
        let mut pos = *self_pos;
        *wait_until = 0;
        loop {
            if *skipping {
                match find::skip_to_stop(&mut ctx, pos) {
                    Some(i) => {
                        pos = i;
                        ctx.floor = i;
                        *floor_raw = map.src_of(base + i as u64, text, base);
                        *skipping = false;
                    }
                    None => {
                        pos = text.len();
                        ctx.floor = pos;
                        if eof {
                            *skipping = false;
                        }
                        break;
                    }
                }
            }
            let Some(t) = cands.next(&hay, pos, trig) else {
                pos = text.len();
                break;
            };
            stats.candidates += 1;
            match ctx.examine(t) {
                Ok(Outcome::Hit(f)) => {
                    pos = f.resume;
                    ctx.floor = f.resume;
                    let end = emit(
                        &f, text, base, map, encoding, legacy, lines, line, line_pos, nfc, sink,
                    );
                    // after `<…>` the closing `>` (one byte) is passed over too
                    *floor_raw = end + (f.resume - f.end) as u64;
                    stats.hits += 1;
                }
                Ok(Outcome::Reject { resume }) => pos = resume.max(t + 1),
                Ok(Outcome::TooLong { from }) => {
                    stats.too_long += 1;
                    *skipping = true;
                    pos = from;
                }
                Err(find::NeedMore) => {
                    pos = t;
                    let pending = end_abs - (base + t as u64);
                    *wait_until = end_abs + pending.max(*min_wait);
                    break;
                }
            }
        }
        stats.work += ctx.work;
        *floor = ctx.floor;
        *self_pos = pos;
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
        self.map.src_of(keep_abs, &self.text, self.base);
        count_lines(
            self.lines,
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

/// The eight bytes before offset `upto` of `raw`, which follows the eight bytes `prev`.
fn last8(prev: &[u8; 8], raw: &[u8], upto: usize) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (i, o) in out.iter_mut().enumerate() {
        // position upto - 8 + i of raw, which may fall into prev
        let p = upto as isize - 8 + i as isize;
        *o = if p >= 0 {
            raw[p as usize]
        } else {
            prev[(8 + p) as usize]
        };
    }
    out
}

fn count_lines(on: bool, text: &str, base: u64, to: u64, line: &mut u64, line_pos: &mut u64) {
    if to <= *line_pos {
        return;
    }
    let from = (*line_pos - base) as usize;
    let upto = (to - base) as usize;
    *line += lf(on, &text.as_bytes()[from..upto]);
    *line_pos = to;
}

/// Line feeds in `b` when lines are counted (`on`), else 0.
#[inline]
fn lf(on: bool, b: &[u8]) -> u64 {
    if on { count_lf(b) } else { 0 }
}

/// Line feeds in `b`: byte-sized counters per block so that the loop vectorizes (the spans
/// between links are short, where a call into `memchr` costs more than the counting).
fn count_lf(b: &[u8]) -> u64 {
    let mut n = 0u64;
    let mut blocks = b.chunks_exact(128);
    for block in &mut blocks {
        let mut k = 0u8;
        for &x in block {
            k += (x == b'\n') as u8;
        }
        n += k as u64;
    }
    let mut small = blocks.remainder().chunks_exact(16);
    let mut k = 0u8;
    for block in &mut small {
        for &x in block {
            k += (x == b'\n') as u8;
        }
    }
    for &x in small.remainder() {
        k += (x == b'\n') as u8;
    }
    n + k as u64
}

/// What the link finder trimmed around `f`, found in `text`.
fn trimmed_ref<'a>(f: &find::Found, text: &'a str) -> TrimmedRef<'a> {
    TrimmedRef {
        wrapper: f.wrapper,
        url_prefix: f.url_prefix,
        line_breaks: f.line_breaks,
        trailing: text.get(f.end..f.trimmed_to).unwrap_or(""),
        host_cut: f.host_cut,
    }
}

/// Reports a link found in the text window; returns its end as an input offset.
#[allow(clippy::too_many_arguments)]
fn emit(
    f: &find::Found,
    text: &str,
    base: u64,
    map: &mut Map,
    encoding: &'static Encoding,
    legacy: bool,
    lines: bool,
    line: &mut u64,
    line_pos: &mut u64,
    nfc: &mut String,
    sink: &mut Sink<'_>,
) -> u64 {
    let start_abs = base + f.start as u64;
    let end_abs = base + f.end as u64;
    let start = map.src_of(start_abs, text, base);
    let end = map.src_of(end_abs, text, base);
    count_lines(lines, text, base, start_abs, line, line_pos);
    let raw: &str = match &f.joined {
        Some(j) => j,
        None => &text[f.start..f.end],
    };
    let (link, nfc_changed) = if legacy && !raw.is_ascii() {
        use unicode_normalization::UnicodeNormalization;
        nfc.clear();
        nfc.extend(raw.nfc());
        let changed = nfc.as_str() != raw;
        (nfc.as_str(), changed)
    } else {
        (raw, false)
    };
    sink(HitRef {
        start,
        end,
        line: *line,
        text: link,
        kind: f.kind,
        trimmed: trimmed_ref(f, text),
        encoding,
        from_legacy: legacy,
        nfc_changed,
    });
    end
}

#[cfg(test)]
mod tests {
    #[test]
    fn count_lf_counts_exactly_at_every_length_and_alignment() {
        // every byte value, LFs at irregular places, all lengths up to three blocks
        let data: Vec<u8> = (0..400u32)
            .map(|i| match i % 7 {
                0 | 3 => b'\n',
                _ => (i.wrapping_mul(37) % 256) as u8,
            })
            .collect();
        for start in 0..9 {
            for end in start..data.len() {
                let s = &data[start..end];
                let naive = s.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(super::count_lf(s), naive, "{start}..{end}");
            }
        }
    }
}

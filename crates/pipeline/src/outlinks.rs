//! HTML outlinks resolved as a browser resolves them: one document's bytes, its address and its
//! encoding in, each URL-valued attribute out with its byte span and the URL it names. `run`
//! and `scan` read HTML through [`read_document`]; so can any library user.
//!
//! The steps, after the HTML and URL Standards:
//! 1. The encoding (HTML "determining the character encoding"): a BOM; else the one the
//!    transport declares (the HTTP `Content-Type` charset of a WARC record); else the user's
//!    exact choice; else a `<meta charset>` or `<meta http-equiv=content-type>` in the first
//!    1024 bytes (the prescan); else detection (BOM-less UTF-8, else `chardetng`) on the first
//!    64 KiB, or, when those are ASCII, on the 64 KiB from the first non-ASCII byte.
//! 2. The attributes: [`linksieve_scan::html`] tokenizes the text and reports each URL of a
//!    URL-valued attribute, decoded and stripped of ASCII whitespace.
//! 3. The base (HTML "document base URL"): the first `<base href>`, parsed against the
//!    document's address (the fallback base URL); else that address, also when the first
//!    `<base href>` does not parse or is a `javascript:` or `data:` URL (browsers refuse those
//!    as a base; a later `<base>` is not looked at). It applies to every link of the document,
//!    before the `<base>` element too.
//! 4. Each URL is parsed against the base by the WHATWG URL parser of `linksieve_iri` (3987bis
//!    6.2), with the document's encoding for the query of a special URL (URL Standard "encoding
//!    override"; 3987bis 3.5, RFC 3987 3.1).

use crate::html::unescape_link;
use linksieve_iri::{WebError, WebUrl, parse_web};
use linksieve_scan::html::{HtmlScanner, HtmlStats};
use linksieve_scan::{Encoding, EncodingChoice, Hit, ScanOptions, ScanResult, Scanner};

/// Schemes whose URLs name no resource to fetch: found and counted, not keyed, unless
/// [`DocumentOptions::all_schemes`] is set.
///
/// ```
/// assert!(linksieve_pipeline::NOT_KEYED_SCHEMES.contains(&"javascript"));
/// ```
pub const NOT_KEYED_SCHEMES: [&str; 5] = ["javascript", "data", "about", "blob", "vbscript"];

/// How [`read_document`] reads a document.
///
/// ```
/// let o = linksieve_pipeline::DocumentOptions::default();
/// assert!(o.url.is_none() && !o.all_schemes);
/// ```
#[derive(Clone, Debug, Default)]
pub struct DocumentOptions {
    /// The document's address: the WARC record's target URI, or the user's `--base`. Relative
    /// links of a document without one and without `<base href>` are not resolved.
    pub url: Option<WebUrl>,
    /// The encoding the transport declares (an HTTP `Content-Type` charset).
    pub transport: Option<&'static Encoding>,
    /// The user's choice (`--encoding`): `Exact` or `Fixed` is used when neither a BOM nor the
    /// transport says otherwise; `Auto` lets the prescan and detection decide.
    pub encoding: EncodingChoice,
    /// Resolve `javascript:`, `data:` and the other [`NOT_KEYED_SCHEMES`] too.
    pub all_schemes: bool,
    /// Read SVG and MathML as HTML, as libxml2 does ([`HtmlScanner::foreign_as_html`]): for
    /// the links lxml's tree holds (Python's `extract(element_text=True)`).
    pub foreign_as_html: bool,
}

/// Why a link has no URL.
///
/// ```
/// use linksieve_pipeline::{read_document, DocumentOptions, Unresolved};
/// let d = read_document(b"<a href=x.html>", &DocumentOptions::default());
/// assert_eq!(d.links[0].url, Err(Unresolved::NoBase));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unresolved {
    /// A relative URL in a document with no address and no `<base href>`.
    #[error("relative URL without a base (give the document's address with --base URL)")]
    NoBase,
    /// The WHATWG parser failed.
    #[error("not a valid URL: {0}")]
    Invalid(WebError),
    /// A scheme of [`NOT_KEYED_SCHEMES`].
    #[error("{0}: URL not keyed")]
    NotKeyed(&'static str),
}

/// One outlink of a document.
///
/// ```
/// use linksieve_pipeline::{read_document, DocumentOptions};
/// let opts = DocumentOptions { url: linksieve_iri::WebUrl::parse("http://ex.com/a/b").ok(), ..Default::default() };
/// let d = read_document(b"<link rel=next href='../c?q=1'>", &opts);
/// let l = &d.links[0];
/// assert_eq!((l.tag, l.attr, l.rel.as_deref(), l.value.as_str()), ("link", "href", Some("next"), "../c?q=1"));
/// assert_eq!(l.url.as_ref().unwrap().as_str(), "http://ex.com/c?q=1");
/// assert_eq!(&d.text[l.start..l.end], "../c?q=1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentLink {
    /// The element, lowercase.
    pub tag: &'static str,
    /// The attribute, lowercase.
    pub attr: &'static str,
    /// The `rel` of `a`, `area` and `link`.
    pub rel: Option<String>,
    /// The URL as written (character references decoded, ASCII whitespace stripped).
    pub value: String,
    /// The URL it resolves to, or why it has none.
    pub url: Result<WebUrl, Unresolved>,
    /// Byte span of the value in the decoded text ([`Document::text`]).
    pub start: usize,
    /// End of the span.
    pub end: usize,
    /// The line it starts on (1 for the first).
    pub line: u64,
}

impl DocumentLink {
    /// True when its value (as written, character references undone) is longer than
    /// `max_link_len` bytes: like an overlong candidate of the text, it is counted and not
    /// keyed.
    ///
    /// ```
    /// use linksieve_pipeline::{read_document, DocumentOptions};
    /// let page = format!("<a href='/{}'>", "x".repeat(300));
    /// let d = read_document(page.as_bytes(), &DocumentOptions::default());
    /// assert!(d.links[0].overlong(256) && !d.links[0].overlong(1024));
    /// ```
    pub fn overlong(&self, max_link_len: usize) -> bool {
        self.value.len() > max_link_len
    }
}

/// Counters of the outlinks of one or more documents (they add).
///
/// ```
/// use linksieve_pipeline::{read_document, DocumentOptions};
/// let d = read_document(b"<a href=javascript:go()><a href=x><img src='http://[x'>", &DocumentOptions::default());
/// let s = d.stats;
/// assert_eq!((s.found, s.resolved, s.not_keyed, s.no_base, s.invalid), (3, 0, 1, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct OutlinkStats {
    /// Documents read.
    pub documents: u64,
    /// URLs found in attributes (the `<base href>` itself not counted).
    pub found: u64,
    /// Resolved to a URL.
    pub resolved: u64,
    /// Relative, in a document without a base.
    pub no_base: u64,
    /// Rejected by the URL parser.
    pub invalid: u64,
    /// In a scheme that is not keyed.
    pub not_keyed: u64,
    /// Tags longer than the tokenizer's limit: their attributes were not read.
    pub skipped_tags: u64,
}

impl OutlinkStats {
    /// True when no document was read.
    ///
    /// ```
    /// assert!(linksieve_pipeline::OutlinkStats::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == OutlinkStats::default()
    }
}

impl std::ops::AddAssign for OutlinkStats {
    fn add_assign(&mut self, o: OutlinkStats) {
        self.documents += o.documents;
        self.found += o.found;
        self.resolved += o.resolved;
        self.no_base += o.no_base;
        self.invalid += o.invalid;
        self.not_keyed += o.not_keyed;
        self.skipped_tags += o.skipped_tags;
    }
}

/// What [`read_document`] gives: the decoded text, how it was read, and its outlinks in
/// document order.
///
/// ```
/// use linksieve_pipeline::{read_document, DocumentOptions};
/// let d = read_document("<meta charset=koi8-r><a href='?q=\u{0434}'>".as_bytes(), &DocumentOptions::default());
/// assert_eq!(d.encoding.name(), "KOI8-R");
/// ```
#[derive(Clone, Debug)]
pub struct Document {
    /// The document decoded (U+FFFD for malformed sequences).
    pub text: String,
    /// The encoding it was decoded with.
    pub encoding: &'static Encoding,
    /// Bytes of a byte order mark dropped from its start.
    pub bom: usize,
    /// Malformed byte sequences met while decoding.
    pub malformed: u64,
    /// The base URL its links were resolved against.
    pub base: Option<WebUrl>,
    /// The outlinks, in document order (a `srcset` gives one per candidate).
    pub links: Vec<DocumentLink>,
    /// Counters.
    pub stats: OutlinkStats,
}

/// A link of a document, in document order ([`Document::in_order`]).
#[derive(Clone, Copy, Debug)]
pub enum DocumentItem<'d> {
    /// Found in the text.
    Text(&'d Hit),
    /// An outlink of an attribute.
    Attribute(&'d DocumentLink),
}

impl DocumentItem<'_> {
    /// Whether the item's text was decoded from a legacy (non-Unicode) encoding: the
    /// document's, or (for a link of the text) the scanner's. Such text is keyed with Unicode
    /// NFC (3987bis 3.1: text transcoded from a legacy encoding), by `run`, `scan` and the
    /// Python module alike: the one place that decides it.
    ///
    /// ```
    /// use linksieve_pipeline::{read_document, DocumentItem, DocumentOptions};
    /// let page = b"<meta charset=windows-1252><a href='http://a.example/'>http://t.example/</a>";
    /// let d = read_document(page, &DocumentOptions::default());
    /// let hits = d.text_links(&Default::default()).hits;
    /// let mut legacy = Vec::new();
    /// d.in_order(&hits, false, |i| legacy.push(i.from_legacy(&d)));
    /// assert_eq!(legacy, [true, true]);
    /// ```
    pub fn from_legacy(&self, doc: &Document) -> bool {
        doc.encoding != encoding_rs::UTF_8 || matches!(self, DocumentItem::Text(h) if h.from_legacy)
    }
}

impl Document {
    /// The links written in the document's text: the scanner over the decoded text with
    /// `opts` (and `html` on: character references undone where a link ends). Offsets are
    /// those of [`Document::text`]. An overlong candidate (longer than `max_link_len`) that
    /// starts inside the value of an outlink's attribute is that outlink's, not counted in
    /// `stats.too_long` (the outlink is checked against `max_link_len` on its own, see
    /// [`DocumentLink::overlong`]), so that each is counted once.
    ///
    /// ```
    /// use linksieve_pipeline::{read_document, DocumentOptions};
    /// let d = read_document(b"<p>see http://a.example/x&amp;y</p>", &DocumentOptions::default());
    /// let hits = d.text_links(&Default::default()).hits;
    /// assert_eq!(hits[0].text, "http://a.example/x&amp;y");
    /// let long = format!("<a href='http://a.example/{0}'> http://b.example/{0}", "x".repeat(300));
    /// let d = read_document(long.as_bytes(), &DocumentOptions::default());
    /// let opts = linksieve_scan::ScanOptions { max_link_len: 256, ..Default::default() };
    /// assert_eq!(d.text_links(&opts).stats.too_long, 1);
    /// ```
    pub fn text_links(&self, opts: &ScanOptions) -> ScanResult {
        let mut s = Scanner::new(&ScanOptions {
            encoding: EncodingChoice::Exact(encoding_rs::UTF_8),
            html: true,
            ..*opts
        });
        s.record_overlong();
        let mut hits = Vec::new();
        // `feed` and `finish` fail only after `finish`
        let _ = s.feed(self.text.as_bytes(), &mut hits);
        let _ = s.finish(&mut hits);
        let mut stats = *s.stats();
        // the links are in document order: their spans do not overlap and rise
        let inside = s
            .overlong_starts()
            .iter()
            .filter(|&&at| {
                let i = self.links.partition_point(|l| (l.end as u64) <= at);
                self.links.get(i).is_some_and(|l| l.start as u64 <= at)
            })
            .count();
        stats.too_long -= inside as u64;
        ScanResult {
            hits,
            stats,
            encoding: encoding_rs::UTF_8,
        }
    }

    /// Calls `f` with the links of the text (`hits`, from [`Document::text_links`]) and the
    /// outlinks, merged in document order. A link of the text found inside an attribute value
    /// that is exactly that value (an absolute URL, once its character references are undone)
    /// is the outlink, not a second link; one that is not (in `href=&quot;http://x/&quot;` the
    /// value holds the quotes) stays a link of the text.
    ///
    /// ```
    /// use linksieve_pipeline::{read_document, DocumentItem, DocumentOptions};
    /// let d = read_document(b"http://t.example/ <a href='http://a.example/'>", &DocumentOptions::default());
    /// let hits = d.text_links(&Default::default()).hits;
    /// let mut seen = Vec::new();
    /// d.in_order(&hits, false, |i| seen.push(match i {
    ///     DocumentItem::Text(h) => format!("text {}", h.text),
    ///     DocumentItem::Attribute(l) => format!("{} {}", l.attr, l.value),
    /// }));
    /// assert_eq!(seen, ["text http://t.example/", "href http://a.example/"]);
    /// ```
    pub fn in_order<'d>(
        &'d self,
        hits: &'d [Hit],
        ascii_only: bool,
        mut f: impl FnMut(DocumentItem<'d>),
    ) {
        let mut hits = hits.iter().peekable();
        for l in &self.links {
            while let Some(h) = hits.next_if(|h| h.start < l.end as u64) {
                let inside = h.start >= l.start as u64
                    && unescape_link(&h.text, &h.trimmed.trailing, ascii_only) == l.value;
                if !inside {
                    f(DocumentItem::Text(h));
                }
            }
            f(DocumentItem::Attribute(l));
        }
        hits.for_each(|h| f(DocumentItem::Text(h)));
    }
}

/// The HTML prescan's window (HTML "prescan a byte stream to determine its encoding").
const PRESCAN: usize = 1024;

/// Decides the encoding of a document (step 1 of the module's list) and the length of its BOM.
fn encoding_of(bytes: &[u8], opts: &DocumentOptions) -> (&'static Encoding, usize) {
    if let Some((e, n)) = Encoding::for_bom(bytes) {
        return (e, n);
    }
    if let Some(e) = opts.transport {
        return (e, 0);
    }
    match opts.encoding {
        EncodingChoice::Exact(e) | EncodingChoice::Fixed(e) => return (e, 0),
        EncodingChoice::Auto => {}
    }
    // The prescan: the head read as ASCII-compatible text (windows-1252 decodes every byte).
    let head = &bytes[..bytes.len().min(PRESCAN)];
    let (text, _, _) = encoding_rs::WINDOWS_1252.decode(head);
    let mut s = HtmlScanner::new();
    s.feed(&text, |_| {});
    if let Some(c) = s.charset() {
        return (c.encoding, 0);
    }
    let decided = linksieve_scan::detect_encoding(EncodingChoice::Auto, bytes, true)
        .unwrap_or((encoding_rs::UTF_8, 0));
    // an ASCII start: decided at the first non-ASCII byte, as `run` decides for text
    let head = &bytes[..bytes.len().min(linksieve_scan::AUTO_WINDOW)];
    if crate::engine::decides_late(
        EncodingChoice::Auto,
        head,
        head.len() == bytes.len(),
        decided,
    ) && let Some(p) = crate::engine::first_non_ascii(bytes)
    {
        let end = bytes.len().min(p + linksieve_scan::AUTO_WINDOW);
        return (
            crate::engine::detect_encoding_after_ascii(&bytes[p..end], end == bytes.len()),
            0,
        );
    }
    decided
}

/// Reads one HTML document: decodes it, finds its outlinks and resolves each against the
/// document's base.
///
/// ```
/// use linksieve_pipeline::{read_document, DocumentOptions};
/// let opts = DocumentOptions { url: linksieve_iri::WebUrl::parse("http://ex.com/dir/page").ok(), ..Default::default() };
/// let page = br#"<a href="x.html">x</a><base href="/other/"><img srcset="a.png 1x, b.png 2x">"#;
/// let d = read_document(page, &opts);
/// let urls: Vec<_> = d.links.iter().map(|l| l.url.as_ref().unwrap().as_str()).collect();
/// assert_eq!(urls, ["http://ex.com/other/x.html", "http://ex.com/other/a.png", "http://ex.com/other/b.png"]);
/// assert_eq!(d.base.unwrap().as_str(), "http://ex.com/other/");
/// ```
pub fn read_document(bytes: &[u8], opts: &DocumentOptions) -> Document {
    let (encoding, bom) = encoding_of(bytes, opts);
    let (text, malformed) = decode(&bytes[bom..], encoding);
    let mut scanner = HtmlScanner::new();
    if opts.foreign_as_html {
        scanner = scanner.foreign_as_html();
    }
    let mut links = Vec::new();
    scanner.feed(&text, |o| {
        if o.tag == "base" {
            return;
        }
        links.push(DocumentLink {
            tag: o.tag,
            attr: o.attr,
            rel: o.rel.map(|r| r.into_owned()),
            value: o.value.into_owned(),
            url: Err(Unresolved::NoBase),
            start: o.start,
            end: o.end,
            line: 0,
        });
    });
    let summary = scanner.finish();
    let html: HtmlStats = summary.stats;
    // HTML "document base URL": the first <base href>, parsed against the fallback base URL;
    // one that fails to parse, or is a `javascript:` or `data:` URL (which browsers refuse as
    // a base: Chromium's "'data:' URLs may not be used as base URLs"), leaves the fallback.
    let base = match (&summary.base, &opts.url) {
        (Some(b), url) => parse_web(&b.href, url.as_ref(), None)
            .ok()
            .filter(|b| !matches!(b.scheme(), "javascript" | "data"))
            .or_else(|| url.clone()),
        (None, url) => url.clone(),
    };
    let query_encoding = Some(encoding).filter(|e| *e != encoding_rs::UTF_8);
    let mut stats = OutlinkStats {
        documents: 1,
        skipped_tags: html.skipped_tags,
        ..OutlinkStats::default()
    };
    let (mut line, mut counted) = (1, 0);
    for l in &mut links {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..l.start]).count() as u64;
        counted = l.start;
        l.line = line;
        stats.found += 1;
        l.url = resolve(&l.value, base.as_ref(), query_encoding, opts.all_schemes);
        match &l.url {
            Ok(_) => stats.resolved += 1,
            Err(Unresolved::NoBase) => stats.no_base += 1,
            Err(Unresolved::Invalid(_)) => stats.invalid += 1,
            Err(Unresolved::NotKeyed(_)) => stats.not_keyed += 1,
        }
    }
    Document {
        text,
        encoding,
        bom,
        malformed,
        base,
        links,
        stats,
    }
}

/// Resolves one value against the base (URL Standard "basic URL parser" with a base and an
/// encoding).
pub(crate) fn resolve(
    value: &str,
    base: Option<&WebUrl>,
    encoding: Option<&'static Encoding>,
    all_schemes: bool,
) -> Result<WebUrl, Unresolved> {
    match parse_web(value, base, encoding) {
        // the scheme as the parser reads it (`java\tscript:` is `javascript:`)
        Ok(u) if !all_schemes => match NOT_KEYED_SCHEMES.iter().find(|s| **s == u.scheme()) {
            Some(s) => Err(Unresolved::NotKeyed(s)),
            None => Ok(u),
        },
        Ok(u) => Ok(u),
        Err(WebError::MissingScheme) if base.is_none() => Err(Unresolved::NoBase),
        Err(e) => Err(Unresolved::Invalid(e)),
    }
}

/// Decodes a whole document; returns the text and the count of malformed sequences (each
/// replaced by U+FFFD).
fn decode(bytes: &[u8], encoding: &'static Encoding) -> (String, u64) {
    if encoding == encoding_rs::UTF_8
        && let Ok(s) = std::str::from_utf8(bytes)
    {
        return (s.to_owned(), 0);
    }
    let mut d = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(
        d.max_utf8_buffer_length(bytes.len())
            .unwrap_or(bytes.len() * 3),
    );
    let mut malformed = 0;
    let mut rest = bytes;
    loop {
        let (r, read) = d.decode_to_string_without_replacement(rest, &mut out, true);
        rest = &rest[read..];
        match r {
            encoding_rs::DecoderResult::InputEmpty => break,
            encoding_rs::DecoderResult::OutputFull => out.reserve(rest.len() * 3 + 16),
            encoding_rs::DecoderResult::Malformed(_, _) => {
                malformed += 1;
                out.push('\u{FFFD}');
            }
        }
    }
    (out, malformed)
}

#[cfg(test)]
mod tests;

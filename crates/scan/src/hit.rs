//! What the scanner reports: [`Hit`] (owned) and [`HitRef`] (borrowed), with the link's
//! [`LinkKind`] and what was [`Trimmed`] around it. [`Maker`] builds every hit, for both modes of
//! the engine.

#[cfg(doc)]
use crate::Scanner;
use crate::find::Found;
use encoding_rs::Encoding;

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
    /// The link was written with JSON string escapes (`http:\/\/host\/a`, `\u0026`), which
    /// the link text has undone; [`Hit::raw`] is the text as written.
    pub json_escapes: bool,
}

impl Trimmed {
    /// Short tags for what was trimmed (`angle`, `quote`, `url_prefix`, `line_breaks`,
    /// `trailing`, `host_cut`, `json_escapes`).
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
            self.json_escapes,
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
    /// The link text in UTF-8, wrappers and wrapper whitespace removed, JSON string escapes
    /// undone.
    pub text: String,
    /// The link as written (the input between `start` and `end`, decoded to UTF-8) when `text`
    /// differs from it: JSON string escapes undone ([`Trimmed::json_escapes`]) or whitespace
    /// removed inside `<…>` ([`Trimmed::line_breaks`]); `None` otherwise.
    pub raw: Option<String>,
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
    /// The link text in UTF-8, wrappers and wrapper whitespace removed, JSON string escapes
    /// undone.
    pub text: &'a str,
    /// The link as written when `text` differs from it (see [`Hit::raw`]).
    pub raw: Option<&'a str>,
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

impl Hit {
    /// The hit as a [`HitRef`] borrowing its text.
    ///
    /// ```
    /// let hits = linksieve_scan::scan_bytes(b"see http://a.example/.", &Default::default()).hits;
    /// let r = hits[0].as_hit_ref();
    /// assert_eq!((r.text, r.trimmed.trailing), ("http://a.example/", "."));
    /// ```
    pub fn as_hit_ref(&self) -> HitRef<'_> {
        HitRef {
            start: self.start,
            end: self.end,
            line: self.line,
            text: &self.text,
            raw: self.raw.as_deref(),
            kind: self.kind,
            trimmed: TrimmedRef {
                wrapper: self.trimmed.wrapper,
                url_prefix: self.trimmed.url_prefix,
                line_breaks: self.trimmed.line_breaks,
                trailing: &self.trimmed.trailing,
                host_cut: self.trimmed.host_cut,
                json_escapes: self.trimmed.json_escapes,
            },
            encoding: self.encoding,
            from_legacy: self.from_legacy,
            nfc_changed: self.nfc_changed,
        }
    }
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
            raw: self.raw.map(str::to_owned),
            kind: self.kind,
            trimmed: Trimmed {
                wrapper: self.trimmed.wrapper,
                url_prefix: self.trimmed.url_prefix,
                line_breaks: self.trimmed.line_breaks,
                trailing: self.trimmed.trailing.to_owned(),
                host_cut: self.trimmed.host_cut,
                json_escapes: self.trimmed.json_escapes,
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
    /// The link was written with JSON string escapes, which the link text has undone.
    pub json_escapes: bool,
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
            self.json_escapes,
        )
    }
}

fn tags(
    wrapper: Option<Wrapper>,
    url_prefix: bool,
    line_breaks: bool,
    trailing: bool,
    host_cut: bool,
    json_escapes: bool,
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
    if json_escapes {
        v.push("json_escapes");
    }
    v
}

/// Builds the hits of one stream: the one place a [`HitRef`] is made, for links found in place
/// in the input bytes and for links found in the decoded text window alike.
pub(crate) struct Maker {
    /// The encoding the stream is decoded with.
    encoding: &'static Encoding,
    /// The text is transcoded from a non-Unicode encoding: non-ASCII links are NFC-normalised
    /// (RFC 3987 3.1 variant B). UTF-8 and UTF-16 text never is (variant C).
    legacy: bool,
    /// The NFC form of the current link.
    nfc: String,
}

impl Maker {
    pub(crate) fn new(encoding: &'static Encoding) -> Maker {
        Maker {
            encoding,
            legacy: !(encoding == encoding_rs::UTF_8
                || encoding == encoding_rs::UTF_16LE
                || encoding == encoding_rs::UTF_16BE),
            nfc: String::new(),
        }
    }

    /// The hit of the link `f`, found in `text`, at input offsets `start..end` on `line`.
    /// `decoded`: `text` is the decoded text window; else it is input bytes found in place,
    /// UTF-8 or (in a legacy encoding) ASCII, which NFC never changes, so it is not tried.
    // inlined into both finder loops, as the code it replaces was: a call per hit costs 1.5% of
    // the instructions on text dense with links
    #[inline(always)]
    pub(crate) fn hit<'a>(
        &'a mut self,
        f: &'a Found,
        text: &'a str,
        (start, end): (u64, u64),
        line: u64,
        decoded: bool,
    ) -> HitRef<'a> {
        let raw: &str = match &f.joined {
            Some(j) => j,
            None => &text[f.start..f.end],
        };
        let (link, nfc_changed) = if decoded && self.legacy && !raw.is_ascii() {
            use unicode_normalization::UnicodeNormalization;
            self.nfc.clear();
            self.nfc.extend(raw.nfc());
            let changed = self.nfc != raw;
            (self.nfc.as_str(), changed)
        } else {
            (raw, false)
        };
        HitRef {
            start,
            end,
            line,
            text: link,
            raw: f.joined.as_ref().map(|_| &text[f.start..f.end]),
            kind: f.kind,
            trimmed: TrimmedRef {
                wrapper: f.wrapper,
                url_prefix: f.url_prefix,
                line_breaks: f.line_breaks,
                trailing: text.get(f.end..f.trimmed_to).unwrap_or(""),
                host_cut: f.host_cut,
                json_escapes: f.json_escapes,
            },
            encoding: self.encoding,
            from_legacy: self.legacy,
            nfc_changed,
        }
    }
}

//! The links a record states outside a payload read as HTML: the `Location` of a redirect
//! (RFC 9110 10.2.2), the URI-references of its `Link` header fields (RFC 8288 3), the
//! `Sitemap:` lines of a robots.txt (RFC 9309 2.2.4, which leaves them to other records: the
//! sitemaps protocol's "Specifying the Sitemap location in your robots.txt file"), the kinds
//! Common Crawl's graphs take from WARC records besides HTML (cc-pyspark
//! `wat_extract_links.py`, `hostlinks_extract_fastwarc.py`), and the links a WAT record lists
//! (`warc/wat.rs`).

/// A link a response record states outside its HTML ([`RecordLinkKind`]): in its HTTP head,
/// or on a line of a robots.txt.
///
/// ```
/// let mut r = std::io::Cursor::new(b"HTTP/1.1 301 Moved\r\nLocation: /new\r\n\r\n".to_vec());
/// let h = linksieve_inputs::read_http_head(&mut r).unwrap();
/// assert_eq!(h.links[0].value, "/new");
/// assert_eq!(h.links[0].kind, linksieve_inputs::RecordLinkKind::Redirect(301));
/// assert_eq!(h.links[0].at, 30);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLink {
    /// Where its value starts: in [`read_http_head`](crate::read_http_head)'s answer, the
    /// offset from the head's first byte; in what [`walk`](crate::walk) hands to
    /// [`Records::scan`](crate::Records::scan), the offset in the input.
    pub at: u64,
    /// The URI-reference as written (resolved against the record's target URI by the caller).
    pub value: String,
    /// Where it was written.
    pub kind: RecordLinkKind,
}

/// Where a [`RecordLink`] was written.
///
/// ```
/// use linksieve_inputs::RecordLinkKind;
/// assert_eq!(RecordLinkKind::Redirect(308).status(), Some(308));
/// assert_eq!(RecordLinkKind::Sitemap.status(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordLinkKind {
    /// The `Location` field of a redirect: status 301, 302, 303, 307 or 308 (the five that
    /// redirect to the `Location`, RFC 9110 15.4; cc-pyspark takes the same five). The first
    /// `Location` field counts, as in cc-pyspark.
    Redirect(u16),
    /// A URI-reference of a `Link` header field (RFC 8288 3: `<URI-Reference>; params`).
    LinkHeader,
    /// A `Sitemap:` line of a robots.txt (a `200` response to `/robots.txt`).
    Sitemap,
    /// An attribute of an HTML element, as a WAT record lists it (`"path": "A@/href"`: the
    /// element and attribute in lower case, and the element's `rel`); a `<meta>` that names a
    /// URL is element `meta`, attribute `content`.
    Element {
        /// The element, lower case.
        tag: Cow<'static, str>,
        /// The attribute, lower case.
        attr: Cow<'static, str>,
        /// The element's `rel`.
        rel: Option<String>,
    },
}

use std::borrow::Cow;

/// The links one record states ([`RecordLink`]), with the base its HTML declares, if any.
///
/// ```
/// let r = linksieve_inputs::RecordLinks::default();
/// assert!(r.links.is_empty() && r.base.is_none() && !r.document && !r.visited);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordLinks {
    /// The links, in the order written.
    pub links: Vec<RecordLink>,
    /// The base URL an HTML document declares (a WAT record's `Head.Base`), as written:
    /// [`RecordLinkKind::Element`] links resolve against it (itself resolved against the
    /// target URI), the others against the target URI.
    pub base: Option<String>,
    /// The page's address when the record names one of its own (a WAT record's
    /// `WARC-Target-URI`, that of the response it describes).
    pub target: Option<String>,
    /// The links are those of an HTML document (a WAT record's `HTML-Metadata`).
    pub document: bool,
    /// The record is of a visited URL: a `response` record, or a WAT record describing one.
    /// cc-pyspark makes each such URL a node of its graphs, links or none
    /// (`wat_extract_links.py`: "every visited URL should be a node"); [`walk`](crate::walk)
    /// tells such a record's links even when it has none.
    pub visited: bool,
}

impl RecordLinkKind {
    /// The status of a redirect.
    ///
    /// ```
    /// assert_eq!(linksieve_inputs::RecordLinkKind::LinkHeader.status(), None);
    /// ```
    pub fn status(&self) -> Option<u16> {
        match self {
            RecordLinkKind::Redirect(s) => Some(*s),
            _ => None,
        }
    }
}

/// The statuses whose `Location` is a redirect's target.
pub(super) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// The URI-references of one `Link` field value starting at offset `at` (RFC 8288 3:
/// `#link-value`, each `"<" URI-Reference ">" *( OWS ";" OWS link-param )`): each `<...>`
/// outside a quoted parameter value. Returns (offset of the reference, reference).
pub(super) fn link_header_refs(value: &str, at: u64, out: &mut Vec<RecordLink>) {
    let b = value.as_bytes();
    let mut i = 0;
    let mut quoted = false;
    while i < b.len() {
        match b[i] {
            b'"' => quoted = !quoted,
            b'\\' if quoted => i += 1,
            b'<' if !quoted => {
                let Some(len) = value[i + 1..].find('>') else {
                    return;
                };
                out.push(RecordLink {
                    at: at + i as u64 + 1,
                    value: value[i + 1..i + 1 + len].trim().to_owned(),
                    kind: RecordLinkKind::LinkHeader,
                });
                i += len + 1;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The most bytes of a robots.txt read for its `Sitemap:` lines (RFC 9309 2.5: crawlers must
/// parse at least 500 KiB).
pub(super) const MAX_ROBOTS: usize = 512 << 10;

/// True for a target URI whose path is `/robots.txt` (RFC 9309 2.3), no query.
pub(super) fn is_robots_txt(target: &str) -> bool {
    let Some((_, rest)) = target.split_once("://") else {
        return false;
    };
    let path = rest.find('/').map_or("", |p| &rest[p..]);
    path.split('#').next() == Some("/robots.txt")
}

/// The `Sitemap:` lines of a robots.txt's first bytes (`body`, which starts at offset `at`):
/// the field name matched without regard to case, the value up to white space, as cc-pyspark's
/// `robotstxt_sitemap_pattern` (`^Sitemap:\s*(\S+)`); a value that is not UTF-8 is skipped,
/// as there.
pub(super) fn sitemap_lines(body: &[u8], at: u64, out: &mut Vec<RecordLink>) {
    let mut start = 0;
    for line in body.split(|&c| c == b'\n') {
        let line_at = start;
        start += line.len() + 1;
        let Some(name) = line.get(..8) else { continue };
        if !name.eq_ignore_ascii_case(b"sitemap:") {
            continue;
        }
        let rest = &line[8..];
        let ws = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
        let value = &rest[ws..];
        let len = value
            .iter()
            .position(|c| c.is_ascii_whitespace())
            .unwrap_or(value.len());
        if len == 0 {
            continue;
        }
        if let Ok(v) = std::str::from_utf8(&value[..len]) {
            out.push(RecordLink {
                at: at + (line_at + 8 + ws) as u64,
                value: v.to_owned(),
                kind: RecordLinkKind::Sitemap,
            });
        }
    }
}

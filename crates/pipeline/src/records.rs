//! The outlinks of each record of a WARC or WAT file, record by record ([`read_records`]): what
//! `linksieve run --format edges` makes edges of (an HTML payload's attributes and text links,
//! a record's redirect `Location`, `Link` fields and robots.txt `Sitemap:` lines, a WAT record's
//! link list; not the links of a text payload, which `run` keys but no document is the source
//! of), resolved and keyed as `run` keys them, with each link's type, grouped by the record it
//! came from. The Python module's `linksieve.records` iterates over them, so that a
//! cc-pyspark-style job needs no WARC reader of its own.

use crate::engine::MAX_DOCUMENT;
use crate::keyer::{DocumentLinkText, Keyer, LinkBuffers, document_link};
use crate::outlinks::{DocumentItem, DocumentOptions, Unresolved, read_document, resolve};
use encoding_rs::Encoding;
use linksieve_graph::LinkType;
use linksieve_inputs::{
    RecordLink, RecordLinkKind, RecordLinks, Records, WarcError, WarcHeader, WarcRecords, walk,
};
use linksieve_iri::WebUrl;
use linksieve_scan::ScanOptions;
use std::borrow::Cow;
use std::io::{self, BufRead, Read};

/// What [`read_records`] reads and how it keys.
///
/// ```
/// let o = linksieve_pipeline::RecordOptions::default();
/// assert!(o.record_links && !o.all_schemes);
/// ```
pub struct RecordOptions {
    /// Keys the links: `linksieve run`'s default (LEIRI input, the scheme rung, the uri form)
    /// unless chosen otherwise.
    pub keyer: Keyer,
    /// The records read (`--warc-records`).
    pub records: WarcRecords,
    /// Read the links a record states outside its HTML (`run --no-record-links` turns off).
    pub record_links: bool,
    /// How text is scanned (the encoding of a payload without a declared charset included).
    pub scan: ScanOptions,
    /// Keep `javascript:`, `data:` and the other schemes `run` does not key.
    pub all_schemes: bool,
}

impl Default for RecordOptions {
    fn default() -> RecordOptions {
        RecordOptions {
            keyer: Keyer::new(linksieve_iri::InputMode::Leiri, &Default::default()),
            records: WarcRecords::Content,
            record_links: true,
            scan: ScanOptions::default(),
            all_schemes: false,
        }
    }
}

/// One record and its outlinks, in the order written (a record's header links first).
///
/// ```
/// let r = linksieve_pipeline::RecordOutlinks::default();
/// assert!(r.links.is_empty() && r.failure.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordOutlinks {
    /// Where the record's `WARC/` line starts in the input (decompressed).
    pub offset: u64,
    /// `WARC-Type`, lowercase.
    pub record_type: String,
    /// `WARC-Target-URI`.
    pub target_uri: Option<String>,
    /// The page's key: of the address its links resolve against (a WAT record's page, else
    /// the target URI), keyed as its links are; the source node of its edges.
    pub page: Option<String>,
    /// The outlinks.
    pub links: Vec<Outlink>,
    /// Its page is a node of the graph, links or none: a response record, a WAT record of
    /// one, or an HTML payload read (`run --format edges` writes the row
    /// `page<TAB>page<TAB>0<TAB>node`; [`linksieve_graph::LinkType::Node`]).
    pub node: bool,
    /// Why its payload could not be read to the end (what was read before is in `links`).
    pub failure: Option<String>,
}

/// One outlink of a record.
///
/// ```
/// use linksieve_pipeline::Outlink;
/// let l = Outlink { key: Ok("http://a.example/".into()), ..Outlink::default() };
/// assert_eq!(l.link_type, linksieve_graph::LinkType::Text);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outlink {
    /// Its type in a graph (`a`, `img`, `redirect-301`, `text`...).
    pub link_type: LinkType,
    /// As written (an attribute's value, a header's reference, a link found in text).
    pub value: String,
    /// The URL an attribute or a record link resolves to; `None` for a link found in text.
    pub url: Option<String>,
    /// Its key, or why it has none.
    pub key: Result<String, String>,
    /// The element of an attribute (lowercase), else `None`.
    pub tag: Option<Cow<'static, str>>,
    /// The attribute, else `None`.
    pub attr: Option<Cow<'static, str>>,
    /// The element's `rel`.
    pub rel: Option<String>,
    /// Where it is written: in the input (decompressed) for a link of the HTTP head, a
    /// robots.txt or a WAT record; for a link of an HTML payload, the payload's offset plus its
    /// byte offset in the document decoded to UTF-8 (as `run` reports it).
    pub offset: u64,
}

impl Default for Outlink {
    fn default() -> Outlink {
        Outlink {
            link_type: LinkType::Text,
            value: String::new(),
            url: None,
            key: Err(String::new()),
            tag: None,
            attr: None,
            rel: None,
            offset: 0,
        }
    }
}

/// The type of a record link in a graph.
pub(crate) fn record_link_type(kind: &RecordLinkKind) -> LinkType {
    match kind {
        RecordLinkKind::Redirect(status) => LinkType::redirect(*status).unwrap_or(LinkType::Other),
        RecordLinkKind::LinkHeader => LinkType::LinkHeader,
        RecordLinkKind::Sitemap => LinkType::Sitemap,
        // a WAT's `<meta>` that names a URL (og:image, ...): no refresh
        RecordLinkKind::Element { tag, .. } if tag == "meta" => LinkType::Other,
        RecordLinkKind::Element { tag, attr, rel } => {
            LinkType::of_attribute(tag, attr, rel.as_deref())
        }
    }
}

/// What a record's links resolve against: a `Location` against the page's address `url`
/// (RFC 9110 10.2.2), a `Link` field's reference too (RFC 8288 3.2), a sitemap likewise, a
/// WAT record's links against the base it declares (`Head.Base`, itself against `url`; HTML
/// "document base URL": a base that does not parse leaves the address).
pub(crate) struct RecordBase {
    url: Option<WebUrl>,
    base: Option<WebUrl>,
}

impl RecordBase {
    /// The bases of `links`, stated by the record at address `url`.
    pub(crate) fn new(url: Option<WebUrl>, links: &RecordLinks) -> RecordBase {
        let base = links
            .base
            .as_deref()
            .and_then(|b| resolve(b, url.as_ref(), None, false).ok())
            .or_else(|| url.clone());
        RecordBase { url, base }
    }

    /// The URL of one link (URL Standard "basic URL parser" against its base).
    pub(crate) fn resolve(&self, l: &RecordLink, all_schemes: bool) -> Result<WebUrl, Unresolved> {
        let against = match l.kind {
            RecordLinkKind::Element { .. } => self.base.as_ref(),
            _ => self.url.as_ref(),
        };
        resolve(&l.value, against, None, all_schemes)
    }
}

/// Reads a WARC or WAT file (decompressed) record by record and hands each record that has a
/// payload read or links stated to `each`, with its outlinks; `each` answers false to stop.
/// A record whose payload fails to decode is handed with its `failure` (the walk goes on); a
/// file cut inside a record ends with the error, after the records before it (and the cut one,
/// with what was read of it and the error as its `failure`, when some of it was read).
///
/// ```
/// use linksieve_pipeline::{RecordOptions, read_records};
/// let body = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=/b>b</a>";
/// let warc = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\n\
///      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
///     body.len()
/// );
/// let mut records = Vec::new();
/// read_records(&mut warc.as_bytes(), &RecordOptions::default(), |r| { records.push(r); true }).unwrap();
/// assert_eq!(records[0].page.as_deref(), Some("http://a.example/"));
/// assert_eq!(records[0].links[0].key.as_deref(), Ok("http://a.example/b"));
/// assert_eq!(records[0].links[0].link_type.name(), "a");
/// ```
pub fn read_records(
    r: &mut dyn BufRead,
    opts: &RecordOptions,
    each: impl FnMut(RecordOutlinks) -> bool,
) -> Result<(), WarcError> {
    let mut reader = RecordReader {
        opts,
        each,
        current: None,
        stopped: false,
        bufs: LinkBuffers::default(),
    };
    let walked = walk(r, opts.records, &mut reader);
    // a record the file's end cut: what was read of it, with the reason
    if let (Err(e), Some((record, _))) = (&walked, &mut reader.current) {
        record.failure.get_or_insert_with(|| e.to_string());
    }
    reader.flush();
    walked
}

/// The walk's [`Records`]: collects the record being read, hands it on when the next begins.
struct RecordReader<'o, F> {
    opts: &'o RecordOptions,
    each: F,
    /// The record being read, and whether it had a payload read or links stated.
    current: Option<(RecordOutlinks, bool)>,
    stopped: bool,
    bufs: LinkBuffers,
}

impl<F: FnMut(RecordOutlinks) -> bool> RecordReader<'_, F> {
    fn flush(&mut self) {
        if let Some((record, true)) = self.current.take()
            && !self.stopped
        {
            self.stopped = !(self.each)(record);
        }
    }

    /// The record being read, marked as read.
    fn record(&mut self) -> &mut RecordOutlinks {
        let (record, read) = self.current.get_or_insert_with(Default::default);
        *read = true;
        record
    }

    /// The page's address: a WAT record's own, else the target URI.
    fn address(target: Option<&str>, h: &WarcHeader) -> Option<WebUrl> {
        target
            .or(h.target_uri.as_deref())
            .and_then(|u| WebUrl::parse(u).ok())
    }

    /// Keys the page's address, once a record (its header links and its payload both ask).
    fn set_page(&mut self, url: Option<&WebUrl>) {
        let keyer = &self.opts.keyer;
        let (record, read) = self.current.get_or_insert_with(Default::default);
        *read = true;
        if record.page.is_none() {
            record.page = url.and_then(|u| keyer.key(u.as_str(), false).ok());
        }
    }

    /// Reads an HTML payload as `run` does: whole, up to [`MAX_DOCUMENT`] (`run` scans a
    /// larger one as text, whose links are no edges: here it is a failure of the record).
    fn document(
        &mut self,
        h: &WarcHeader,
        at: u64,
        charset: Option<&'static Encoding>,
        reader: &mut dyn BufRead,
    ) -> io::Result<()> {
        let mut bytes = Vec::new();
        // After a read error (the file ends inside the record, a damaged gzip body), what was
        // read is kept up to its last clean cut (as `run` does), and the error reported.
        let read = reader.take(MAX_DOCUMENT as u64 + 1).read_to_end(&mut bytes);
        if read.is_err() {
            let enc = charset.unwrap_or(encoding_rs::UTF_8);
            bytes.truncate(linksieve_scan::chunk::kept_before_error(&bytes, enc));
        }
        if bytes.len() > MAX_DOCUMENT {
            self.record().failure = Some(format!(
                "an HTML payload over {} MiB is not read as HTML",
                MAX_DOCUMENT >> 20
            ));
            return io::copy(reader, &mut io::sink()).map(|_| ());
        }
        let opts = self.opts;
        let url = Self::address(None, h);
        self.set_page(url.as_ref());
        self.record().node = true;
        let doc = read_document(
            &bytes,
            &DocumentOptions {
                url,
                transport: charset,
                encoding: opts.scan.encoding,
                all_schemes: opts.all_schemes,
                foreign_as_html: false,
            },
        );
        let scanned = doc.text_links(&opts.scan);
        let base = at + doc.bom as u64;
        let (ascii_only, max_len) = (opts.scan.ascii_only, opts.scan.max_link_len);
        let mut bufs = std::mem::take(&mut self.bufs);
        let mut out = Vec::new();
        doc.in_order(&scanned.hits, ascii_only, |item| {
            let legacy = item.from_legacy(&doc);
            let mut link = match &item {
                DocumentItem::Text(h) => Outlink {
                    offset: base + h.start,
                    ..Outlink::default()
                },
                DocumentItem::Attribute(l) => Outlink {
                    link_type: LinkType::of_attribute(l.tag, l.attr, l.rel.as_deref()),
                    value: l.value.clone(),
                    url: l.url.as_ref().ok().map(|u| u.as_str().to_owned()),
                    tag: Some(Cow::Borrowed(l.tag)),
                    attr: Some(Cow::Borrowed(l.attr)),
                    rel: l.rel.clone(),
                    offset: base + l.start as u64,
                    ..Outlink::default()
                },
            };
            match document_link(&item, ascii_only, max_len, &mut bufs) {
                DocumentLinkText::Keyed(f) => {
                    if let DocumentItem::Text(_) = item {
                        link.value = f.shown.to_owned();
                    }
                    link.key = opts.keyer.key(f.keyed, legacy).map_err(|e| e.to_string());
                }
                DocumentLinkText::Invalid(e) => link.key = Err(e),
                DocumentLinkText::NotKeyed => return,
                DocumentLinkText::TooLong => {
                    link.key = Err(format!("longer than the longest link ({max_len} bytes)"));
                }
            }
            out.push(link);
        });
        self.bufs = bufs;
        self.record().links.extend(out);
        read.map(|_| ())
    }
}

impl<F: FnMut(RecordOutlinks) -> bool> Records for RecordReader<'_, F> {
    fn stop(&mut self) -> bool {
        self.stopped
    }
    fn record(&mut self, h: &WarcHeader, at: u64) {
        self.flush();
        let record = RecordOutlinks {
            offset: at,
            record_type: h.record_type.clone(),
            target_uri: h.target_uri.clone(),
            ..RecordOutlinks::default()
        };
        self.current = Some((record, false));
    }
    fn skip(&mut self, _why: &str, _n: u64) {}
    fn coding(&mut self, _what: String) {}
    fn links(&mut self, h: &WarcHeader, mut links: RecordLinks) {
        if !self.opts.record_links {
            links.links.clear();
        }
        if links.links.is_empty() && !links.visited {
            return;
        }
        let url = Self::address(links.target.as_deref(), h);
        self.set_page(url.as_ref());
        self.record().node |= links.visited;
        let base = RecordBase::new(url, &links);
        let (keyer, max_len) = (&self.opts.keyer, self.opts.scan.max_link_len);
        let mut out = Vec::with_capacity(links.links.len());
        for l in links.links {
            let url = match base.resolve(&l, self.opts.all_schemes) {
                Err(Unresolved::NotKeyed(_)) => continue,
                r => r,
            };
            let key = if l.value.len() > max_len {
                Err(format!("longer than the longest link ({max_len} bytes)"))
            } else {
                match &url {
                    Ok(u) => linksieve_iri::web_to_iri(u)
                        .map_err(|e| e.to_string())
                        .and_then(|iri| keyer.key(iri.as_str(), false).map_err(|e| e.to_string())),
                    Err(e) => Err(e.to_string()),
                }
            };
            let (tag, attr, rel) = match &l.kind {
                RecordLinkKind::Element { tag, attr, rel } => {
                    (Some(tag.clone()), Some(attr.clone()), rel.clone())
                }
                _ => (None, None, None),
            };
            out.push(Outlink {
                link_type: record_link_type(&l.kind),
                url: url.ok().map(|u| u.as_str().to_owned()),
                key,
                tag,
                attr,
                rel,
                offset: l.at,
                value: l.value,
            });
        }
        self.record().links.extend(out);
    }
    fn scan(
        &mut self,
        h: &WarcHeader,
        at: u64,
        charset: Option<&'static Encoding>,
        html: bool,
        reader: &mut dyn BufRead,
    ) -> io::Result<()> {
        if html {
            return self.document(h, at, charset, reader);
        }
        // the links of a text payload are no edges in `run` (no document is their source)
        let url = Self::address(None, h);
        self.set_page(url.as_ref());
        io::copy(reader, &mut io::sink()).map(|_| ())
    }
    fn record_failed(&mut self, error: String) {
        self.record().failure = Some(error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: &str, uri: &str, ctype: &str, block: &str) -> String {
        format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nContent-Type: {ctype}\r\n\
             Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    }

    fn http(head: &str, body: &str) -> String {
        format!("HTTP/1.1 {head}\r\n\r\n{body}")
    }

    const RESPONSE: &str = "application/http; msgtype=response";

    fn read(warc: &str) -> Vec<RecordOutlinks> {
        let mut out = Vec::new();
        read_records(&mut warc.as_bytes(), &RecordOptions::default(), |r| {
            out.push(r);
            true
        })
        .unwrap_or_else(|e| panic!("{e}"));
        out
    }

    #[test]
    fn records_are_grouped_and_placed_at_their_version_line() {
        let warc = [
            record(
                "warcinfo",
                "urn:x",
                "application/warc-fields",
                "software: t\r\n",
            ),
            record(
                "response",
                "http://a.example/d/p",
                RESPONSE,
                &http(
                    "200 OK\r\nContent-Type: text/html\r\nLink: </s.css>; rel=preload",
                    "<a href=q>q</a> see http://t.example/x",
                ),
            ),
            record(
                "request",
                "http://a.example/d/p",
                "application/http; msgtype=request",
                "GET / HTTP/1.1\r\n\r\n",
            ),
            record(
                "response",
                "http://a.example/r",
                RESPONSE,
                &http("301 Moved\r\nLocation: /d/p", ""),
            ),
        ]
        .concat();
        let got = read(&warc);
        let starts: Vec<u64> = warc
            .match_indices("WARC/1.1")
            .map(|(i, _)| i as u64)
            .collect();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].offset, got[1].offset), (starts[1], starts[3]));
        let links: Vec<(&str, Option<&str>)> = got[0]
            .links
            .iter()
            .map(|l| (l.link_type.name(), l.key.as_deref().ok()))
            .collect();
        assert_eq!(
            links,
            [
                ("link-header", Some("http://a.example/s.css")),
                ("a", Some("http://a.example/d/q")),
                ("text", Some("http://t.example/x")),
            ]
        );
        assert_eq!(got[1].page.as_deref(), Some("http://a.example/r"));
        assert_eq!(got[1].links[0].link_type.name(), "redirect-301");
        assert_eq!(got[1].links[0].url.as_deref(), Some("http://a.example/d/p"));
        // the header link sits where its value is written
        let at = got[0].links[0].offset as usize;
        assert_eq!(&warc[at..at + 6], "/s.css");
    }

    #[test]
    fn a_text_payload_gives_its_sitemaps_not_its_text() {
        let robots = http(
            "200 OK\r\nContent-Type: text/plain",
            "Sitemap: http://a.example/sm.xml\nsee http://b.example/\n",
        );
        let got = read(&record(
            "response",
            "http://a.example/robots.txt",
            RESPONSE,
            &robots,
        ));
        let types: Vec<&str> = got[0].links.iter().map(|l| l.link_type.name()).collect();
        assert_eq!(types, ["sitemap"]);
    }

    #[test]
    fn stopping_delivers_no_more() {
        let page = http("200 OK\r\nContent-Type: text/html", "<a href=/x>x</a>");
        let warc = [
            record("response", "http://a.example/1", RESPONSE, &page),
            record("response", "http://a.example/2", RESPONSE, &page),
        ]
        .concat();
        let mut n = 0;
        read_records(&mut warc.as_bytes(), &RecordOptions::default(), |_| {
            n += 1;
            false
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 1);
    }

    #[test]
    fn a_cut_file_fails_after_its_records() {
        let page = http("200 OK\r\nContent-Type: text/html", "<a href=/x>x</a>");
        let warc = [
            record("response", "http://a.example/1", RESPONSE, &page),
            record("response", "http://a.example/2", RESPONSE, &page),
        ]
        .concat();
        let cut = &warc[..warc.len() - 20];
        let mut got = Vec::new();
        let r = read_records(&mut cut.as_bytes(), &RecordOptions::default(), |r| {
            got.push((r.target_uri, r.links.len(), r.failure));
            true
        });
        assert!(matches!(r, Err(WarcError::Truncated { .. })), "{r:?}");
        assert_eq!(got[0], (Some("http://a.example/1".to_owned()), 1, None));
        // the cut one: what was read of it, and why it ends there
        assert_eq!(got[1].0.as_deref(), Some("http://a.example/2"));
        let second = warc.rfind("WARC/1.1").unwrap_or(0);
        let why = format!("WARC record at byte {second} declares Content-Length");
        assert!(
            got[1].2.as_deref().is_some_and(|e| e.starts_with(&why)),
            "{:?}",
            got[1]
        );
    }

    /// A payload cut inside a link: the links before the cut are read, the cut one is not
    /// (it would be a link the page never held), and the record says why it ends.
    #[test]
    fn a_cut_payload_gives_its_complete_links_and_not_the_cut_one() {
        let page = http(
            "200 OK\r\nContent-Type: text/html",
            "<a href=/x>x</a> see http://a.example/whole and http://b.example/a-long-path now",
        );
        let warc = record("response", "http://a.example/1", RESPONSE, &page);
        let cut = &warc[..warc.find("a-long").unwrap_or(0) + 3];
        let mut got = Vec::new();
        let r = read_records(&mut cut.as_bytes(), &RecordOptions::default(), |r| {
            got.push(r);
            true
        });
        assert!(matches!(r, Err(WarcError::Truncated { .. })), "{r:?}");
        let keys: Vec<_> = got[0].links.iter().map(|l| l.key.clone()).collect();
        let want = ["http://a.example/x", "http://a.example/whole"].map(|k| Ok(k.to_owned()));
        assert_eq!(keys, want);
        assert!(got[0].failure.is_some());
    }
}

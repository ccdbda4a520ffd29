//! Unit tests of the WARC reader's pieces (chunked bodies, payloads across reads, heads).

use super::chunked::chunk_size;
use super::payload::binary_media;
use super::*;

fn chunked(parts: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::new();
    for p in parts {
        v.extend_from_slice(format!("{:x};x=y\r\n", p.len()).as_bytes());
        v.extend_from_slice(p);
        v.extend_from_slice(b"\r\n");
    }
    v.extend_from_slice(b"0\r\nX-Trailer: 1\r\n\r\n");
    v
}

/// The bytes a chunked `body` carries, read as the payload reader reads them.
fn dechunked(body: Vec<u8>) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    let mut r = io::Cursor::new(body);
    let size = Dechunk::first_size(&mut r, &mut line)?.expect("a chunk-size line");
    let mut d = Dechunk {
        inner: r,
        left: None,
        done: false,
        line,
    };
    d.start(size)?;
    let mut out = Vec::new();
    d.read_to_end(&mut out)?;
    Ok(out)
}

#[test]
fn dechunks_across_one_byte_chunks_and_trailers() {
    // the empty part ends the body: what follows it is not data
    let body = chunked(&[b"a".as_slice(), b"bc", b"", b"defgh"]);
    assert_eq!(dechunked(body).unwrap(), b"abc");
}

#[test]
fn a_chunk_cut_short_is_an_error() {
    assert_eq!(
        dechunked(b"5\r\nab".to_vec()).unwrap_err().kind(),
        io::ErrorKind::UnexpectedEof
    );
}

/// A response read one byte per read (every boundary falls inside the head, a chunk-size
/// line and the gzip header), after an interim 100 head, with zstd inside gzip inside
/// chunked: the payload comes out whole.
#[test]
fn payload_across_one_byte_reads() {
    use std::io::Write;
    let body = b"see http://a.example/x and more".repeat(50);
    let z = zstd::encode_all(&body[..], 1).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&z).unwrap();
    let gz = gz.finish().unwrap();
    let mut chunks = Vec::new();
    for part in gz.chunks(5) {
        chunks.extend_from_slice(format!("{:X}\r\n", part.len()).as_bytes());
        chunks.extend_from_slice(part);
        chunks.extend_from_slice(b"\r\n");
    }
    chunks.extend_from_slice(b"0\r\n\r\n");
    let head = format!(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: {}\r\nContent-Encoding: zstd, gzip\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain; charset=iso-8859-2\r\n\r\n",
        "c".repeat(100_000)
    );
    let block = [head.as_bytes(), &chunks].concat();
    check_one_byte_reads(&block, head.len(), &["chunked", "gzip", "zstd"], &body);
    // the same without the transfer coding: the gzip magic number is sniffed across reads
    let head = head.replace("Transfer-Encoding: chunked\r\n", "");
    let block = [head.as_bytes(), &gz].concat();
    check_one_byte_reads(&block, head.len(), &["gzip", "zstd"], &body);
}

fn check_one_byte_reads(block: &[u8], head: usize, want: &[&str], body: &[u8]) {
    let mut inner = BufReader::with_capacity(1, io::Cursor::new(block.to_vec()));
    let mut b = Block::new(&mut inner, block.len() as u64);
    let h = WarcHeader {
        record_type: "response".into(),
        content_length: block.len() as u64,
        ..WarcHeader::default()
    };
    let Payload::Scan {
        head_len,
        charset,
        codings,
        mut reader,
        ..
    } = payload(
        &h,
        &mut b,
        WarcRecords::Content,
        &mut RecordLinks::default(),
    )
    .unwrap()
    else {
        panic!("scanned")
    };
    assert_eq!(head_len, head as u64);
    assert_eq!(charset.unwrap().name(), "ISO-8859-2");
    assert_eq!(codings, want);
    let mut out = Vec::new();
    reader.read_to_end(&mut out).unwrap();
    assert_eq!(out, body);
    drop(reader);
    assert_eq!(b.left(), 0);
}

#[test]
fn chunk_size_lines() {
    assert_eq!(chunk_size(b"1A\r\n"), Some(26));
    assert_eq!(chunk_size(b"0;name=v\n"), Some(0));
    assert_eq!(chunk_size(b"<html>\n"), None);
    assert_eq!(chunk_size(b"12"), None);
}

#[test]
fn media_types() {
    assert!(binary_media("image/png"));
    assert!(!binary_media("image/svg+xml; charset=utf-8"));
    assert!(binary_media("Application/Octet-Stream"));
    assert!(!binary_media("text/html"));
    assert!(!binary_media(""));
}

#[test]
fn folded_http_fields_are_unfolded() {
    // RFC 9112 5.2: obs-fold in a response reads as SP; warcio unfolds them the same way
    let mut r = std::io::Cursor::new(
        b"HTTP/1.1 200 OK\r\nX-Long: a\r\n b: c\r\nContent-Type: text/html;\r\n\tcharset=koi8-r\r\n\
          Content-Encoding: gzip,\r\n br\r\n\r\nbody"
            .to_vec(),
    );
    let h = read_http_head(&mut r).unwrap();
    assert_eq!(h.content_type.as_deref(), Some("text/html; charset=koi8-r"));
    assert_eq!(h.codings, ["gzip", "br"]);
    assert_eq!(h.charset().unwrap().name(), "KOI8-R");
}

#[test]
fn folded_warc_fields_are_unfolded() {
    let mut r = std::io::Cursor::new(
        b"WARC/1.0\r\nWARC-Type:\r\n resource\r\nX-Note: a\r\n Content-Length: 99\r\n\
          WARC-Target-URI: <http://e.x/\r\n\t  path>\r\nContent-Length: 3\r\n\r\nabc"
            .to_vec(),
    );
    let h = read_warc_header(&mut r).unwrap().unwrap();
    assert_eq!(h.record_type, "resource");
    // the folded line that looks like a field is part of X-Note
    assert_eq!(h.content_length, 3);
    assert_eq!(h.target_uri.as_deref(), Some("http://e.x/ path"));
    let mut r = std::io::Cursor::new(b"WARC/1.0\r\n continued\r\n\r\n".to_vec());
    assert!(
        read_warc_header(&mut r).is_err(),
        "a continuation with no field before it"
    );
}

fn response(target: &str, http: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

#[test]
fn redirects_link_fields_and_sitemaps_are_record_links_at_their_offsets() {
    let mut warc = response(
        "http://a.example/old",
        b"HTTP/1.1 301 Moved Permanently\r\nLocation:   /new \r\nLocation: /second\r\n\
          Link: <https://cdn.example/s.css>; rel=\"preload; <not-a-link>\", \r\n <//b.example/x>;rel=canonical\r\n\
          Content-Length: 0\r\n\r\n",
    );
    // a Location of a 200 is no redirect; a Link is a link whatever the status
    warc.extend(response(
        "http://a.example/ok",
        b"HTTP/1.1 200 OK\r\nLocation: /not-a-redirect\r\nLink: </ok-link>\r\n\r\nbody",
    ));
    let robots = b"User-agent: *\nDisallow: /x\nsitemap:  https://a.example/s1.xml  # one\r\n\
                   Sitemap:\n  Sitemap: http://indented.example/no\nSITEMAP:/rel.xml\n";
    let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".to_vec();
    http.extend_from_slice(robots);
    warc.extend(response("https://a.example/robots.txt", &http));
    // robots.txt with another status, or at another path: no sitemaps
    let mut http404 = b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec();
    http404.extend_from_slice(robots);
    warc.extend(response("https://b.example/robots.txt", &http404));
    let mut other = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
    other.extend_from_slice(robots);
    warc.extend(response("https://b.example/x/robots.txt", &other));

    let mut all = AllLinks::default();
    walk(&mut warc.as_slice(), WarcRecords::Content, &mut all).unwrap();
    let links: Vec<&RecordLink> = all.0.iter().flat_map(|r| &r.links).collect();
    let got: Vec<(&str, RecordLinkKind)> = links
        .iter()
        .map(|l| (l.value.as_str(), l.kind.clone()))
        .collect();
    use RecordLinkKind::*;
    assert_eq!(
        got,
        [
            ("/new", Redirect(301)),
            ("https://cdn.example/s.css", LinkHeader),
            ("//b.example/x", LinkHeader),
            ("/ok-link", LinkHeader),
            ("https://a.example/s1.xml", Sitemap),
            ("/rel.xml", Sitemap),
        ]
    );
    // each offset is where the value is written in the input (the folded Link's second line
    // is counted as unfolded: three bytes short, its CRLF and the fold's space)
    for l in &links {
        let at = l.at as usize;
        let shift = usize::from(l.value == "//b.example/x") * 3;
        assert_eq!(
            &warc[at + shift..at + shift + l.value.len()],
            l.value.as_bytes(),
            "{l:?}"
        );
    }
}

#[test]
fn record_links_that_are_not_utf8_are_skipped() {
    let mut r = io::Cursor::new(b"HTTP/1.1 302 Found\r\nLocation: /caf\xe9\r\n\r\n".to_vec());
    assert!(read_http_head(&mut r).unwrap().links.is_empty());
}

/// A WAT `metadata` record holding `json`.
fn wat_record(target: &str, json: &str) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {target}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        json.len()
    )
    .into_bytes();
    r.extend_from_slice(json.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// Every record's links, with the base and target each record declared, how many payloads
/// were scanned, and the errors of their readers.
#[derive(Default)]
struct AllLinks(Vec<RecordLinks>, u64, Vec<io::ErrorKind>);

impl Records for AllLinks {
    fn stop(&mut self) -> bool {
        false
    }
    fn skip(&mut self, _why: &str, _n: u64) {}
    fn coding(&mut self, _what: String) {}
    fn links(&mut self, _h: &WarcHeader, links: RecordLinks) {
        self.0.push(links);
    }
    fn scan(
        &mut self,
        _h: &WarcHeader,
        _at: u64,
        _charset: Option<&'static Encoding>,
        _html: bool,
        reader: &mut dyn BufRead,
    ) -> io::Result<()> {
        self.1 += 1;
        let read = io::copy(reader, &mut io::sink());
        if let Err(e) = &read {
            self.2.push(e.kind());
        }
        read.map(|_| ())
    }
    fn record_failed(&mut self, error: String) {
        self.0.push(RecordLinks {
            base: Some(error),
            ..Default::default()
        });
    }
}

#[test]
fn wat_records_give_the_links_cc_pyspark_takes() {
    let json = r#"{"Container":{"Filename":"x.warc.gz"},"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://a.example/dir/p"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Response-Message":{"Status":"200"},"Headers":{"Content-Type":"text/html","Link":"</l1>; rel=preload","Location":"/not-a-redirect"},"HTML-Metadata":{"Head":{"Base":"http://b.example/","Link":[{"path":"LINK@/href","url":"s.css","rel":"stylesheet"}],"Metas":[{"property":"og:image","content":"/og.png"},{"name":"description","content":"no link"},{"name":"x","content":"https://abs.example/m"}],"Scripts":[{"path":"SCRIPT@/src","url":"j.js"}]},"Links":[{"path":"A@/href","url":"a.html","text":"a"},{"path":"A@/href","href":"relative-href-only"},{"path":"A@/href","href":"//proto.example/x"},{"path":"IMG@/src","url":"https:\/\/escaped.example\/i.png"}]}}}}}"#;
    let mut warc = wat_record("http://a.example/dir/p", json);
    // a request's envelope, and a 301's (its Location read)
    warc.extend(wat_record(
        "http://a.example/",
        r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"request"},"Payload-Metadata":{"HTTP-Request-Metadata":{}}}}"#,
    ));
    warc.extend(wat_record(
        "http://a.example/old",
        r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://a.example/old"},"Payload-Metadata":{"HTTP-Response-Metadata":{"Response-Message":{"Status":"301"},"Headers":{"Location":"/new"}}}}}"#,
    ));
    warc.extend(wat_record("http://a.example/bad", "{\"Envelope\": [}"));
    let mut all = AllLinks::default();
    walk(&mut warc.as_slice(), WarcRecords::Content, &mut all).unwrap();
    assert_eq!(all.0.len(), 3, "{:?}", all.0);
    // a WAT record's text is not scanned under `content`
    assert_eq!(all.1, 0);
    let page = &all.0[0];
    assert_eq!(page.base.as_deref(), Some("http://b.example/"));
    assert_eq!(page.target.as_deref(), Some("http://a.example/dir/p"));
    assert!(page.document);
    let el = |tag: &'static str, attr: &'static str, rel: Option<&str>| RecordLinkKind::Element {
        tag: tag.into(),
        attr: attr.into(),
        rel: rel.map(Into::into),
    };
    let got: Vec<(&str, RecordLinkKind)> = page
        .links
        .iter()
        .map(|l| (l.value.as_str(), l.kind.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("/l1", RecordLinkKind::LinkHeader),
            ("s.css", el("link", "href", Some("stylesheet"))),
            ("/og.png", el("meta", "content", None)),
            ("https://abs.example/m", el("meta", "content", None)),
            ("j.js", el("script", "src", None)),
            ("a.html", el("a", "href", None)),
            ("//proto.example/x", el("a", "href", None)),
            ("https://escaped.example/i.png", el("img", "src", None)),
        ]
    );
    // offsets: where each value is written (the escaped one: the record's start)
    for l in &page.links {
        let at = l.at as usize;
        if l.value.contains("escaped") {
            assert!(!warc[at..].starts_with(l.value.as_bytes()));
        } else {
            assert_eq!(&warc[at..at + l.value.len()], l.value.as_bytes(), "{l:?}");
        }
    }
    assert_eq!(all.0[1].links[0].kind, RecordLinkKind::Redirect(301));
    assert!(!all.0[1].document);
    // JSON that does not parse: a failure naming the record
    let failed = all.0[2].base.as_deref().unwrap();
    assert!(
        failed.contains("http://a.example/bad") && failed.contains("WAT JSON"),
        "{failed}"
    );
}

#[test]
fn every_response_is_told_as_visited_links_or_none() {
    let mut warc = response(
        "http://a.example/i.png",
        b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG",
    );
    warc.extend(response(
        "dns:a.example",
        b"20261128 a.example. 300 IN A 192.0.2.1",
    ));
    // a request and a resource are no visit; a WAT request envelope neither, a response one is
    warc.extend(
        b"WARC/1.1\r\nWARC-Type: request\r\nWARC-Target-URI: http://a.example/\r\n\
          Content-Length: 0\r\n\r\n\r\n\r\n",
    );
    warc.extend(
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.example/r\r\n\
          Content-Type: text/plain\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
    );
    warc.extend(wat_record(
        "http://a.example/",
        r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"request","WARC-Target-URI":"http://a.example/"}}}"#,
    ));
    warc.extend(wat_record(
        "http://b.example/",
        r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://b.example/"}}}"#,
    ));
    let mut all = AllLinks::default();
    walk(&mut warc.as_slice(), WarcRecords::Content, &mut all).unwrap();
    let told: Vec<_> = all
        .0
        .iter()
        .map(|r| (r.visited, r.links.len(), r.target.as_deref()))
        .collect();
    assert_eq!(
        told,
        [
            (true, 0, None),
            (true, 0, None),
            (true, 0, Some("http://b.example/"))
        ]
    );
}

#[test]
fn wat_fields_of_another_type_read_as_absent() {
    // a writer's list for `rel`, a number for a `url`, null for `Base`: the record still reads
    let json = r#"{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"http://a.example/"},"Payload-Metadata":{"HTTP-Response-Metadata":{"HTML-Metadata":{"Head":{"Base":null},"Links":[{"path":"A@/href","url":7},{"path":"A@/href","url":"/x","rel":["a","b"],"text":{"nested":[1,2]}},{"path":"VIDEO@/Poster","url":"/v.png"}]}}}}}"#;
    let warc = wat_record("http://a.example/", json);
    let mut all = AllLinks::default();
    walk(&mut warc.as_slice(), WarcRecords::Content, &mut all).unwrap();
    let links = &all.0[0];
    assert_eq!(links.base, None);
    assert_eq!(links.links.len(), 2);
    assert_eq!(links.links[0].value, "/x");
    assert!(matches!(
        &links.links[0].kind,
        RecordLinkKind::Element { rel: None, .. }
    ));
    // a path of no usual element: its names lower-cased all the same
    let RecordLinkKind::Element { tag, attr, .. } = &links.links[1].kind else {
        panic!("{:?}", links.links[1]);
    };
    assert_eq!((tag.as_ref(), attr.as_ref()), ("video", "poster"));
}

/// An input that ends inside a record's block is an error to the payload's reader (what it
/// read may end in a cut link), not the payload's end, and the walk reports the record cut.
#[test]
fn an_input_that_ends_inside_a_block_is_an_error_to_its_reader() {
    let body = b"see http://a.example/x and http://b.example/long-path now\n";
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
    let whole = response("http://s.example/", &[&head[..], body].concat());
    let mut all = AllLinks::default();
    walk(&mut &whole[..], WarcRecords::Content, &mut all).expect("a whole record");
    assert_eq!((all.1, &all.2[..]), (1, &[][..]));
    // cut inside the second link of the payload
    let cut = &whole[..whole.len() - 4 - body.len() + 40];
    let mut all = AllLinks::default();
    let e = walk(&mut &cut[..], WarcRecords::Content, &mut all).unwrap_err();
    assert!(matches!(e, WarcError::Truncated { .. }), "{e}");
    assert_eq!(
        (all.1, &all.2[..]),
        (1, &[io::ErrorKind::UnexpectedEof][..])
    );
}

/// A record whose block is not followed by the next record (here its `Content-Length` is 5
/// bytes short) is damaged: nothing of it is used, and the walk ends there.
#[test]
fn a_block_not_followed_by_the_next_record_is_damaged_and_unused() {
    let body = b"see http://a.example/x now\n";
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
    let good = response("http://s.example/", &[&head[..], body].concat());
    let mut short = good.clone();
    let at = short.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0);
    let declared = format!("Content-Length: {}", head.len() + body.len());
    let wrong = format!("Content-Length: {}", head.len() + body.len() - 5);
    let text = String::from_utf8_lossy(&short[..at]).replace(&declared, &wrong);
    short.splice(..at, text.into_bytes());
    let warc = [&good[..], &short[..], &good[..]].concat();
    let mut all = AllLinks::default();
    let e = walk(&mut &warc[..], WarcRecords::Content, &mut all).unwrap_err();
    assert!(
        matches!(e, WarcError::Damaged { offset, .. } if offset == good.len() as u64),
        "{e}"
    );
    assert_eq!(all.1, 1, "only the first record's payload is read");
}

//! WARC and WET files (ISO 28500:2017, WARC/1.0 and 1.1): record headers, which records are
//! scanned, and the payload of each: the HTTP message of a `response` record (RFC 9112) with its
//! transfer coding (RFC 9112 7.1, `chunked`) and content codings (RFC 9110 8.4: `gzip`,
//! `deflate`, `br`, `zstd`) undone, scanned with the charset its head declares.
//!
//! A record's block is read through [`Block`], which never reads past the record's
//! `Content-Length`, so no decoding error, short body or long head can make one record eat the
//! next one's header; a block that ends before its `Content-Length` (the file is cut) is an error
//! of the input, [`WarcError::Truncated`], reported with the record's offset.

use encoding_rs::Encoding;
use std::io::{self, BufRead, BufReader, Read};

/// One WARC record header (ISO 28500; WARC/1.0 and 1.1).
///
/// ```
/// let mut r = std::io::Cursor::new(b"WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: http://e.x/\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n".to_vec());
/// let h = linksieve_pipeline::read_warc_header(&mut r).unwrap().unwrap();
/// assert_eq!(h.record_type, "conversion");
/// assert_eq!(h.target_uri.as_deref(), Some("http://e.x/"));
/// assert_eq!(h.content_length, 5);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarcHeader {
    /// `WARC-Type`, lowercase.
    pub record_type: String,
    /// `WARC-Target-URI`.
    pub target_uri: Option<String>,
    /// `Content-Type` of the record block.
    pub content_type: Option<String>,
    /// `Content-Length` of the record block.
    pub content_length: u64,
    /// `WARC-Truncated`: the crawler cut the block short (ISO 28500 5.13), so its payload may end
    /// inside a chunk or a compressed stream.
    pub truncated: Option<String>,
    /// Bytes of the header, version line and blank line included.
    pub header_len: u64,
}

/// Why a WARC file could not be read on.
///
/// ```
/// let mut r = std::io::Cursor::new(b"WARC/1.0\r\nContent-Length: x\r\n\r\n".to_vec());
/// assert!(linksieve_pipeline::read_warc_header(&mut r).is_err());
/// ```
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The record does not start with a WARC version line, or a header is malformed.
    #[error("malformed WARC record header: {0}")]
    Malformed(String),
    /// The input ends inside a record's block: its `Content-Length` runs past the end.
    #[error(
        "WARC record at byte {offset} declares Content-Length {declared} but the input ends after {read} bytes of it"
    )]
    Truncated {
        /// Offset of the record's header in the (decompressed) input.
        offset: u64,
        /// Its `Content-Length`.
        declared: u64,
        /// The bytes of its block that were there.
        read: u64,
    },
}

/// The longest WARC header line and the longest HTTP head read before giving up on a record.
const MAX_HEADER_LINE: u64 = 1 << 16;
const MAX_HTTP_HEAD: u64 = 1 << 20;

/// Reads the next record header; `None` at the end of the input. Blank lines before a record
/// (the two CRLF that end the previous one) are skipped. A line that starts with a space or a
/// tab continues the field before it (a folded header), and the fold reads as one space.
///
/// ```
/// let mut r = std::io::Cursor::new(Vec::new());
/// assert!(linksieve_pipeline::read_warc_header(&mut r).unwrap().is_none());
/// let mut r = std::io::Cursor::new(b"WARC/1.1\r\nContent-Type: text/plain;\r\n\tcharset=koi8-r\r\nContent-Length: 0\r\n\r\n".to_vec());
/// let h = linksieve_pipeline::read_warc_header(&mut r).unwrap().unwrap();
/// assert_eq!(h.content_type.as_deref(), Some("text/plain; charset=koi8-r"));
/// ```
pub fn read_warc_header<R: BufRead>(r: &mut R) -> Result<Option<WarcHeader>, WarcError> {
    let mut line = Vec::new();
    let mut h = WarcHeader::default();
    let mut len = 0u64;
    loop {
        line.clear();
        let n = r.take(MAX_HEADER_LINE).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        len += n as u64;
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    if !line.starts_with(b"WARC/") {
        return Err(WarcError::Malformed(format!(
            "expected a WARC version line, found {:?}",
            String::from_utf8_lossy(&line[..line.len().min(40)])
        )));
    }
    // (lowercased name, value) of each field, a folded value unfolded
    let mut fields: Vec<(String, String)> = Vec::new();
    loop {
        line.clear();
        let n = r.take(MAX_HEADER_LINE).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Err(WarcError::Malformed(
                "end of input inside a record header".into(),
            ));
        }
        len += n as u64;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        if text.starts_with([' ', '\t']) {
            // ISO 28500 4 (the named-field grammar of RFC 2616 2.2): a line that starts with
            // SP or HT continues the previous field's value; the fold (LWS) reads as one SP.
            let Some((_, value)) = fields.last_mut() else {
                return Err(WarcError::Malformed(format!(
                    "continuation line before any field: {text:?}"
                )));
            };
            let more = text.trim();
            if !value.is_empty() && !more.is_empty() {
                value.push(' ');
            }
            value.push_str(more);
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(WarcError::Malformed(format!(
                "header line without ':': {text:?}"
            )));
        };
        fields.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut have_length = false;
    for (name, value) in fields {
        match name.as_str() {
            "warc-type" => h.record_type = value.to_ascii_lowercase(),
            "warc-target-uri" => h.target_uri = Some(value.trim_matches(['<', '>']).to_owned()),
            "content-type" => h.content_type = Some(value),
            "warc-truncated" => h.truncated = Some(value),
            "content-length" => {
                h.content_length = value
                    .parse()
                    .map_err(|_| WarcError::Malformed(format!("Content-Length {value:?}")))?;
                have_length = true;
            }
            _ => {}
        }
    }
    if !have_length {
        return Err(WarcError::Malformed("record without Content-Length".into()));
    }
    h.header_len = len;
    Ok(Some(h))
}

/// The `charset` parameter of a Content-Type value, as an encoding.
///
/// ```
/// let e = linksieve_pipeline::charset_of("text/html; charset=\"Shift_JIS\"").unwrap();
/// assert_eq!(e.name(), "Shift_JIS");
/// assert!(linksieve_pipeline::charset_of("text/html").is_none());
/// ```
pub fn charset_of(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        if k.trim().eq_ignore_ascii_case("charset") {
            Encoding::for_label(v.trim().trim_matches(['"', '\'']).as_bytes())
        } else {
            None
        }
    })
}

/// Which WARC records are scanned (`--warc-records`).
///
/// ```
/// use linksieve_pipeline::WarcRecords;
/// assert_eq!(WarcRecords::default(), WarcRecords::Content);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarcRecords {
    /// What was archived: `response` payloads, `resource` and `conversion` (WET) blocks, except
    /// a crawler's own files (`metadata:` target URIs, such as wget's log) and media types that
    /// hold no text (images, audio, video, fonts, archives). The rest is counted as skipped.
    #[default]
    Content,
    /// Every record's block (a `response`'s payload still decoded), `request`, `metadata`,
    /// `revisit` and `warcinfo` records included.
    All,
}

/// The HTTP message head at the start of a `response` record's block.
///
/// ```
/// use std::io::BufRead;
/// let mut r = std::io::Cursor::new(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n...".to_vec());
/// let h = linksieve_pipeline::read_http_head(&mut r).unwrap();
/// assert_eq!((h.status, h.chunked, h.codings.as_slice()), (200, true, ["gzip".to_string()].as_slice()));
/// assert_eq!(h.charset().unwrap().name(), "windows-1251");
/// assert_eq!(r.fill_buf().unwrap(), b"...");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpHead {
    /// Bytes of the head (of every head, when interim `1xx` responses come first).
    pub len: u64,
    /// The status code of the final response.
    pub status: u16,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// `Transfer-Encoding` ends in `chunked`.
    pub chunked: bool,
    /// The content codings, in the order they were applied (lowercase; `identity` left out).
    pub codings: Vec<String>,
}

impl HttpHead {
    /// The `charset` of its Content-Type.
    ///
    /// ```
    /// let h = linksieve_pipeline::HttpHead { content_type: Some("text/plain; charset=koi8-r".into()), ..Default::default() };
    /// assert_eq!(h.charset().unwrap().name(), "KOI8-R");
    /// ```
    pub fn charset(&self) -> Option<&'static Encoding> {
        self.content_type.as_deref().and_then(charset_of)
    }
}

/// The HTTP fields [`read_http_head`] reads.
#[derive(Clone, Copy)]
enum HeadField {
    ContentType,
    TransferEncoding,
    ContentEncoding,
}

impl HeadField {
    fn of(name: &str) -> Option<HeadField> {
        let is = |n: &str| name.eq_ignore_ascii_case(n);
        if is("content-type") {
            Some(HeadField::ContentType)
        } else if is("transfer-encoding") {
            Some(HeadField::TransferEncoding)
        } else if is("content-encoding") {
            Some(HeadField::ContentEncoding)
        } else {
            None
        }
    }
}

/// Reads an HTTP response head (status line and header fields up to the empty line, RFC 9112
/// 2.1), line by line however the reads fall, and any interim `1xx` heads before it (RFC 9110
/// 15.2); a field folded onto a line that starts with a space or a tab (obs-fold) is unfolded.
/// The reader must be at `HTTP/`. A head over 1 MiB, or one the input ends inside, is an
/// error.
///
/// ```
/// let mut r = std::io::Cursor::new(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\n\n".to_vec());
/// let h = linksieve_pipeline::read_http_head(&mut r).unwrap();
/// assert_eq!((h.status, h.len), (404, 49));
/// ```
pub fn read_http_head<R: BufRead + ?Sized>(r: &mut R) -> io::Result<HttpHead> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, format!("HTTP head: {m}"));
    let mut head = HttpHead::default();
    let mut line = Vec::new();
    // the fields this reader needs, their folded values unfolded (the others' not kept)
    let mut unfolded: Vec<(Option<HeadField>, String)> = Vec::new();
    loop {
        let mut first = true;
        let mut fields = HttpHead::default();
        loop {
            line.clear();
            let n = r
                .take(MAX_HTTP_HEAD.saturating_sub(head.len))
                .read_until(b'\n', &mut line)?;
            head.len += n as u64;
            if line.last() != Some(&b'\n') {
                return Err(bad(if head.len >= MAX_HTTP_HEAD {
                    "longer than 1 MiB"
                } else {
                    "the record ends inside it"
                }));
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\r', '\n']);
            if first {
                // HTTP/1.1 200 OK
                let code = text.split_ascii_whitespace().nth(1).unwrap_or("");
                fields.status = code.parse().map_err(|_| bad("no status code"))?;
                first = false;
                continue;
            }
            if text.is_empty() {
                break;
            }
            if text.starts_with([' ', '\t']) {
                // RFC 9112 5.2: an obs-fold reads as SP (continuing the previous field)
                if let Some((Some(_), value)) = unfolded.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            let Some((name, value)) = text.split_once(':') else {
                continue; // junk: not a field this reader needs
            };
            let field = HeadField::of(name);
            let value = field.map_or_else(String::new, |_| value.trim().to_owned());
            unfolded.push((field, value));
        }
        for (field, value) in unfolded.drain(..) {
            let value = value.trim();
            match field {
                None => {}
                Some(HeadField::ContentType) => fields.content_type = Some(value.to_owned()),
                // RFC 9112 6.1: chunked, when present, is the last coding
                Some(HeadField::TransferEncoding) => {
                    fields.chunked = value
                        .rsplit(',')
                        .next()
                        .is_some_and(|c| c.trim().eq_ignore_ascii_case("chunked"));
                }
                Some(HeadField::ContentEncoding) => fields.codings.extend(
                    value
                        .split(',')
                        .map(|c| c.trim().to_ascii_lowercase())
                        .filter(|c| !c.is_empty() && c != "identity"),
                ),
            }
        }
        // 1xx responses other than 101 are interim: the final response follows (RFC 9110 15.2),
        // if the record holds more.
        if (100..200).contains(&fields.status) && fields.status != 101 && !r.fill_buf()?.is_empty()
        {
            continue;
        }
        return Ok(HttpHead {
            len: head.len,
            ..fields
        });
    }
}

/// A record's block: reads no further than its `Content-Length`, and can give back what it
/// read (to look at the start of the block, or of a body, however the reads fall).
pub(crate) struct Block<'a> {
    inner: &'a mut dyn BufRead,
    left: u64,
    back: Vec<u8>,
    pos: usize,
}

impl<'a> Block<'a> {
    pub(crate) fn new(inner: &'a mut dyn BufRead, len: u64) -> Block<'a> {
        Block {
            inner,
            left: len,
            back: Vec::new(),
            pos: 0,
        }
    }

    /// Bytes of the block not yet taken from the input.
    pub(crate) fn left(&self) -> u64 {
        self.left
    }

    /// Gives bytes back: the next reads return them first.
    fn unread(&mut self, mut bytes: Vec<u8>) {
        bytes.extend_from_slice(&self.back[self.pos..]);
        self.back = bytes;
        self.pos = 0;
    }

    /// Reads the rest of the block; returns how many bytes that was.
    pub(crate) fn drain(&mut self) -> io::Result<u64> {
        io::copy(self, &mut io::sink())
    }
}

impl Read for Block<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Block<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos < self.back.len() {
            return Ok(&self.back[self.pos..]);
        }
        if self.left == 0 {
            return Ok(&[]);
        }
        let b = self.inner.fill_buf()?;
        let n = b
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        Ok(&b[..n])
    }

    fn consume(&mut self, n: usize) {
        if self.pos < self.back.len() {
            self.pos += n;
            return;
        }
        self.inner.consume(n);
        self.left -= n as u64;
    }
}

/// Reads up to `n` bytes, however the reads fall, and returns them.
fn read_up_to(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut v)?;
    Ok(v)
}

/// A body in the chunked transfer coding, read as the bytes it carries (RFC 9112 7.1). Its
/// trailer fields are read and dropped.
struct Dechunk<R> {
    inner: R,
    /// Bytes left in the current chunk; `None` before a chunk-size line.
    left: Option<u64>,
    done: bool,
    line: Vec<u8>,
}

impl<R: BufRead> Dechunk<R> {
    /// Reads the first chunk-size line: `None` (the reader untouched but for what it gives back
    /// in `line`) when it is not one, as when a writer stored a body already decoded but kept its
    /// `Transfer-Encoding` field.
    fn first_size(r: &mut R, line: &mut Vec<u8>) -> io::Result<Option<u64>> {
        r.take(256).read_until(b'\n', line)?;
        Ok(chunk_size(line))
    }

    fn read_size(&mut self) -> io::Result<()> {
        self.line.clear();
        self.inner
            .by_ref()
            .take(4096)
            .read_until(b'\n', &mut self.line)?;
        let size = chunk_size(&self.line).ok_or_else(|| {
            if self.line.is_empty() {
                io::Error::new(io::ErrorKind::UnexpectedEof, "chunked body: ends early")
            } else {
                io::Error::new(io::ErrorKind::InvalidData, "chunked body: bad chunk size")
            }
        })?;
        self.start(size)
    }

    fn start(&mut self, size: u64) -> io::Result<()> {
        if size == 0 {
            // trailer section: fields up to an empty line (RFC 9112 7.1.2)
            loop {
                self.line.clear();
                let n = self
                    .inner
                    .by_ref()
                    .take(1 << 16)
                    .read_until(b'\n', &mut self.line)?;
                if n == 0 || self.line.iter().all(u8::is_ascii_whitespace) {
                    break;
                }
            }
            self.done = true;
        } else {
            self.left = Some(size);
        }
        Ok(())
    }
}

/// `1a;ext=v\r\n` -> 26.
fn chunk_size(line: &[u8]) -> Option<u64> {
    let text = line.strip_suffix(b"\n")?;
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let hex = text.split(|&b| b == b';').next()?;
    let hex = std::str::from_utf8(hex).ok()?.trim_matches([' ', '\t']);
    if hex.is_empty() || hex.len() > 15 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

impl<R: BufRead> Read for Dechunk<R> {
    /// Fills `buf` across chunks, so that a reader above sees as many bytes as a plain body
    /// would give it (a sniffed magic number is never split).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() && !self.done {
            let Some(left) = self.left else {
                self.read_size()?;
                continue;
            };
            if left == 0 {
                // the CRLF after a chunk's data
                self.line.clear();
                self.inner
                    .by_ref()
                    .take(2)
                    .read_until(b'\n', &mut self.line)?;
                if !matches!(self.line.as_slice(), b"\r\n" | b"\n") {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "chunked body: chunk data longer than its size",
                    ));
                }
                self.left = None;
                continue;
            }
            let want = (buf.len() - n).min(usize::try_from(left).unwrap_or(usize::MAX));
            let got = self.inner.read(&mut buf[n..n + want])?;
            if got == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "chunked body: ends inside a chunk",
                ));
            }
            n += got;
            self.left = Some(left - got as u64);
        }
        Ok(n)
    }
}

/// What to do with one record.
pub(crate) enum Payload<'a> {
    /// Not scanned: counted under this reason.
    Skip(String),
    /// Scanned from this reader.
    Scan {
        /// The HTTP head's bytes (0 for a block without one).
        head_len: u64,
        /// The charset its Content-Type declares.
        charset: Option<&'static Encoding>,
        /// Its media type is HTML (`text/html`, `application/xhtml+xml`).
        html: bool,
        /// The codings undone, for the stats (`chunked`, `gzip`, ...).
        codings: Vec<&'static str>,
        /// Codings a record declared but its body did not have (stored decoded).
        undeclared: Vec<&'static str>,
        reader: Box<dyn BufRead + 'a>,
    },
}

/// True for the media types of HTML documents (`text/html`, `application/xhtml+xml`).
///
/// ```
/// assert!(linksieve_pipeline::html_media("Text/HTML; charset=utf-8"));
/// assert!(!linksieve_pipeline::html_media("text/plain"));
/// ```
pub fn html_media(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    mime.eq_ignore_ascii_case("text/html") || mime.eq_ignore_ascii_case("application/xhtml+xml")
}

/// Media types that hold no text worth scanning. `+xml` and `+json` types (SVG, Atom) do.
fn binary_media(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (top, sub) = mime.split_once('/').unwrap_or((&mime, ""));
    if sub.ends_with("+xml") || sub.ends_with("+json") {
        return false;
    }
    matches!(top, "image" | "audio" | "video" | "font" | "model")
        || (top == "application"
            && matches!(
                sub,
                "octet-stream"
                    | "zip"
                    | "gzip"
                    | "x-gzip"
                    | "x-tar"
                    | "x-7z-compressed"
                    | "x-rar-compressed"
                    | "vnd.rar"
                    | "wasm"
                    | "x-shockwave-flash"
                    | "vnd.ms-fontobject"
                    | "font-woff"
            ))
}

/// Decides whether a record is scanned and opens its payload: the HTTP head of a `response`
/// is read (its length counted, its charset kept), then its transfer and content codings undone.
pub(crate) fn payload<'a>(
    h: &WarcHeader,
    block: &'a mut Block<'_>,
    records: WarcRecords,
) -> io::Result<Payload<'a>> {
    let kind = h.record_type.as_str();
    let all = records == WarcRecords::All;
    let skip = |why: &str| Ok(Payload::Skip(format!("WARC {kind} records{why}")));
    let content_type = h.content_type.as_deref().unwrap_or("");
    match kind {
        "response" => {}
        "resource" | "conversion" => {
            if !all {
                let metadata = h.target_uri.as_deref().is_some_and(|u| {
                    u.get(..9)
                        .is_some_and(|s| s.eq_ignore_ascii_case("metadata:"))
                });
                if metadata {
                    return skip(" (metadata: target)");
                }
                if binary_media(content_type) {
                    return skip(" (media type without text)");
                }
            }
            return Ok(scan_whole(h, block));
        }
        _ if all => return Ok(scan_whole(h, block)),
        _ => return skip(""),
    }
    // A response: an HTTP message when the block starts with `HTTP/`, else (DNS, a whois
    // answer) the block as it is.
    let start = read_up_to(block, 5)?;
    let http = start == b"HTTP/";
    block.unread(start);
    if !http {
        return Ok(scan_whole(h, block));
    }
    let head = read_http_head(block)?;
    if !all && head.content_type.as_deref().is_some_and(binary_media) {
        return skip(" (media type without text)");
    }
    let mut codings = Vec::new();
    let mut undeclared = Vec::new();
    let mut body: Box<dyn BufRead + 'a> = if head.chunked {
        let mut line = Vec::new();
        match Dechunk::first_size(block, &mut line)? {
            Some(size) => {
                codings.push("chunked");
                let mut d = Dechunk {
                    inner: block,
                    left: None,
                    done: false,
                    line,
                };
                d.start(size)?;
                Box::new(BufReader::with_capacity(1 << 16, d))
            }
            None => {
                undeclared.push("chunked");
                block.unread(line);
                Box::new(block)
            }
        }
    } else {
        Box::new(block)
    };
    // Codings were applied in the order listed: undo the last first (RFC 9110 8.4).
    for coding in head.codings.iter().rev() {
        let (name, decoded): (&'static str, Box<dyn BufRead + 'a>) = match coding.as_str() {
            "gzip" | "x-gzip" => {
                let start;
                (start, body) = sniff(body)?;
                if !start.starts_with(&[0x1f, 0x8b]) {
                    undeclared.push("gzip");
                    continue;
                }
                let d = flate2::bufread::MultiGzDecoder::new(body);
                ("gzip", Box::new(BufReader::with_capacity(1 << 16, d)))
            }
            "deflate" => {
                // RFC 9110 8.4.1.2: the zlib format; some servers send raw deflate instead.
                let b;
                (b, body) = sniff(body)?;
                let zlib = b.len() >= 2
                    && b[0] & 0x0f == 8
                    && (u16::from(b[0]) << 8 | u16::from(b[1])) % 31 == 0;
                let d: Box<dyn Read + 'a> = if zlib {
                    Box::new(flate2::bufread::ZlibDecoder::new(body))
                } else {
                    Box::new(flate2::bufread::DeflateDecoder::new(body))
                };
                ("deflate", Box::new(BufReader::with_capacity(1 << 16, d)))
            }
            "br" => {
                let d = brotli_decompressor::Decompressor::new(body, 1 << 16);
                ("br", Box::new(BufReader::with_capacity(1 << 16, d)))
            }
            "zstd" => {
                let d = zstd::stream::read::Decoder::with_buffer(body)?;
                ("zstd", Box::new(BufReader::with_capacity(1 << 16, d)))
            }
            _ => return skip(" (unknown content coding)"),
        };
        codings.push(name);
        body = decoded;
    }
    Ok(Payload::Scan {
        head_len: head.len,
        charset: head.charset(),
        html: head.content_type.as_deref().is_some_and(html_media),
        codings,
        undeclared,
        reader: body,
    })
}

/// The first two bytes of a body (fewer only at its end), however the reads fall, and the body
/// with them given back.
fn sniff<'a>(mut body: Box<dyn BufRead + 'a>) -> io::Result<(Vec<u8>, Box<dyn BufRead + 'a>)> {
    let start = read_up_to(&mut body, 2)?;
    Ok((start.clone(), Box::new(io::Cursor::new(start).chain(body))))
}

/// A block scanned as it is, in the charset of the record's Content-Type.
fn scan_whole<'a>(h: &WarcHeader, block: &'a mut Block<'_>) -> Payload<'a> {
    Payload::Scan {
        head_len: 0,
        charset: h.content_type.as_deref().and_then(charset_of),
        html: h.content_type.as_deref().is_some_and(html_media),
        codings: Vec::new(),
        undeclared: Vec::new(),
        reader: Box::new(block),
    }
}

/// What a walk over a WARC file ([`walk`]) reports, record by record: the caller scans the
/// payloads and keeps the counts.
pub(crate) trait Records {
    /// Stop before the next record (SIGINT).
    fn stop(&mut self) -> bool;
    /// Bytes not scanned, under a reason.
    fn skip(&mut self, why: &str, n: u64);
    /// A coding undone, or declared and not found.
    fn coding(&mut self, what: String);
    /// Scans one payload, whose decoded bytes `reader` yields, from input offset `at`, in
    /// `charset` where the headers declare one; `html`: its media type is HTML. An error is a
    /// failure to decode it: what was read before it is scanned.
    fn scan(
        &mut self,
        h: &WarcHeader,
        at: u64,
        charset: Option<&'static Encoding>,
        html: bool,
        reader: &mut dyn BufRead,
    ) -> io::Result<()>;
    /// A record whose payload failed to decode (the walk goes on with the next record).
    fn record_failed(&mut self, error: String);
}

/// Walks a WARC (or WET) file record by record: each payload to scan ([`payload`]) goes to
/// `to.scan`, with its HTTP charset; the rest is counted as skipped, by reason. A payload that
/// cannot be decoded (a damaged gzip body, a chunk cut short) is scanned up to the damage and
/// reported as a failure naming the record, unless the crawler cut it (`WARC-Truncated`); the
/// next record is read, since its place is known from `Content-Length`. A block that ends
/// before its `Content-Length` ends the walk with [`WarcError::Truncated`].
pub(crate) fn walk(
    mut r: &mut dyn BufRead,
    records: WarcRecords,
    to: &mut impl Records,
) -> Result<(), WarcError> {
    let mut offset = 0u64;
    while let Some(h) = read_warc_header(&mut r)? {
        if to.stop() {
            return Ok(());
        }
        let record_at = offset;
        offset += h.header_len;
        to.skip("WARC record headers", h.header_len);
        let mut block = Block::new(r, h.content_length);
        let (skipped, failure) = match payload(&h, &mut block, records) {
            Ok(Payload::Skip(why)) => (Some(why), None),
            Ok(Payload::Scan {
                head_len,
                charset,
                html,
                codings,
                undeclared,
                mut reader,
            }) => {
                to.skip("HTTP response headers", head_len);
                for c in codings {
                    to.coding(c.to_owned());
                }
                for c in undeclared {
                    to.coding(format!("{c} declared, body not so (read as it is)"));
                }
                let scanned = to.scan(&h, offset + head_len, charset, html, &mut reader);
                (None, scanned.err())
            }
            Err(e) => (None, Some(e)),
        };
        let rest = block.drain()?;
        let short = block.left();
        offset += h.content_length - short;
        if short > 0 {
            return Err(WarcError::Truncated {
                offset: record_at,
                declared: h.content_length,
                read: h.content_length - short,
            });
        }
        if let Some(why) = skipped {
            to.skip(&why, rest);
            continue;
        }
        let Some(e) = failure else {
            to.skip("WARC blocks after their payload's end", rest);
            continue;
        };
        to.skip("WARC payloads after a decoding error", rest);
        if h.truncated.is_some() {
            // The crawler cut it (WARC-Truncated): its codings end early by design.
            to.coding("cut short (WARC-Truncated)".to_owned());
        } else {
            to.record_failed(format!(
                "WARC record at byte {record_at} ({}): {e}",
                h.target_uri.as_deref().unwrap_or("no target URI")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;

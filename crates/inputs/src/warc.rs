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
/// let h = linksieve_inputs::read_warc_header(&mut r).unwrap().unwrap();
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
    /// Bytes of the header, version line and blank line included (and the blank lines before
    /// the version line: `blank_before`).
    pub header_len: u64,
    /// Bytes of blank lines before the version line (the end of the record before).
    pub blank_before: u64,
}

/// Why a WARC file could not be read on.
///
/// ```
/// let mut r = std::io::Cursor::new(b"WARC/1.0\r\nContent-Length: x\r\n\r\n".to_vec());
/// assert!(linksieve_inputs::read_warc_header(&mut r).is_err());
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
    /// The decoder of the input failed inside a record's block or at its end (a gzip member's
    /// CRC): the block may hold other bytes than were written, so nothing of it is read.
    #[error("WARC record at byte {offset} is damaged: {error}")]
    Damaged {
        /// Offset of the record's header in the (decompressed) input.
        offset: u64,
        /// What the decoder said.
        error: io::Error,
    },
}

/// The largest block read whole and checked before its record is used ([`walk`]): 64 MiB.
///
/// ```
/// assert_eq!(linksieve_inputs::CHECKED_BLOCK, 64 << 20);
/// ```
pub const CHECKED_BLOCK: u64 = 64 << 20;

/// Reads what follows a record's block into `carry` (the next header reads it again): the
/// blank lines that end the record and the `WARC/` of the next one. Where each record is a
/// member of its own (gzip, as WARC writers compress, or a zstd frame), reading on makes the
/// decoder finish the member and check it (gzip's CRC-32 and length) before the record is used;
/// and a member damaged so that it decodes to other bytes rarely still ends where its record's
/// `Content-Length` says. So a failed check, or anything but blank lines then `WARC/` (or the
/// end of the input), is an error: the record is damaged.
fn check_record_end(r: &mut dyn BufRead, carry: &mut Vec<u8>) -> io::Result<()> {
    const NEXT: &[u8] = b"WARC/";
    loop {
        if let Some(p) = carry.iter().position(|b| !b.is_ascii_whitespace()) {
            let n = (carry.len() - p).min(NEXT.len());
            if carry[p..p + n] != NEXT[..n] {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "its block is not followed by the next record (a wrong Content-Length, or \
                     bytes other than were written)",
                ));
            }
            if n == NEXT.len() {
                return Ok(());
            }
        } else if carry.len() > MAX_HEADER_LINE as usize {
            return Ok(()); // blank lines without end: the next header says so
        }
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            // the end (a cut next header is the next header's error)
            return Ok(());
        }
        let n = buf.len().min(64);
        carry.extend_from_slice(&buf[..n]);
        r.consume(n);
    }
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
/// assert!(linksieve_inputs::read_warc_header(&mut r).unwrap().is_none());
/// let mut r = std::io::Cursor::new(b"WARC/1.1\r\nContent-Type: text/plain;\r\n\tcharset=koi8-r\r\nContent-Length: 0\r\n\r\n".to_vec());
/// let h = linksieve_inputs::read_warc_header(&mut r).unwrap().unwrap();
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
        if !line.iter().all(u8::is_ascii_whitespace) {
            h.blank_before = len;
            len += n as u64;
            break;
        }
        len += n as u64;
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

/// Which WARC records are scanned (`--warc-records`).
///
/// ```
/// use linksieve_inputs::WarcRecords;
/// assert_eq!(WarcRecords::default(), WarcRecords::Content);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum WarcRecords {
    /// What was archived: `response` payloads, `resource` and `conversion` (WET) blocks, except
    /// a crawler's own files (`metadata:` target URIs, such as wget's log) and media types that
    /// hold no text (images, audio, video, fonts, archives). The rest is counted as skipped.
    #[default]
    #[cfg_attr(feature = "clap", value(help = "What was archived (the default)"))]
    Content,
    /// Every record's block (a `response`'s payload still decoded), `request`, `metadata`,
    /// `revisit` and `warcinfo` records included.
    #[cfg_attr(feature = "clap", value(help = "Every record's block"))]
    All,
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

    /// Reads the rest of the block, or of the input where it ends first (which the caller
    /// tells from [`Block::left`]); returns how many bytes that was.
    pub(crate) fn drain(&mut self) -> io::Result<u64> {
        let mut n = 0;
        loop {
            let k = self.at_hand()?.len();
            if k == 0 {
                return Ok(n);
            }
            self.consume(k);
            n += k as u64;
        }
    }

    /// The bytes at hand: none at the block's end, nor where the input ends first.
    fn at_hand(&mut self) -> io::Result<&[u8]> {
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

/// An input that ends inside a block is an error to the block's readers, not its end: the
/// payload read so far is then known to be cut short (a link at its end may be cut), and the
/// walk reports the block as [`WarcError::Truncated`].
impl BufRead for Block<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let left = self.left;
        let b = self.at_hand()?;
        if b.is_empty() && left > 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the input ends inside a WARC record's block",
            ));
        }
        Ok(b)
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

/// What a walk over a WARC file ([`walk`]) reports, record by record: the caller scans the
/// payloads and keeps the counts (`linksieve run` scans them; [`walk`] has an example).
pub trait Records {
    /// Stop before the next record (SIGINT).
    fn stop(&mut self) -> bool;
    /// A record begins at input offset `at` (its `WARC/` line); what is told next, up to the
    /// next call, is of this record. The default ignores it.
    fn record(&mut self, h: &WarcHeader, at: u64) {
        let _ = (h, at);
    }
    /// Bytes not scanned, under a reason.
    fn skip(&mut self, why: &str, n: u64);
    /// A coding undone, or declared and not found.
    fn coding(&mut self, what: String);
    /// The links a record states outside a payload read as HTML ([`RecordLinks`]: a
    /// redirect's `Location`, `Link` fields, robots.txt `Sitemap:` lines, the links a WAT record
    /// lists), at input offsets, for the caller to resolve; told before its payload is scanned
    /// (or skipped), only when there are some or the record is of a visited URL
    /// ([`RecordLinks::visited`]). The default drops them.
    fn links(&mut self, h: &WarcHeader, links: RecordLinks) {
        let _ = (h, links);
    }
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

/// Walks a WARC (or WET) file record by record: each payload to scan (`warc/payload.rs` chooses
/// them) goes to `to.scan`, with its HTTP charset; the rest is counted as skipped, by reason. A
/// payload that cannot be decoded (a damaged gzip body, a chunk cut short) is scanned up to the
/// damage and reported as a failure naming the record, unless the crawler cut it
/// (`WARC-Truncated`); the next record is read, since its place is known from
/// `Content-Length`. A block that ends before its `Content-Length` ends the walk with
/// [`WarcError::Truncated`]. A block of up to [`CHECKED_BLOCK`] bytes is read whole, and its
/// record used only once what follows it is the next record (read through the end of the
/// record's gzip member, whose CRC the decoder then checks); else the walk ends with
/// [`WarcError::Damaged`] and nothing of the record is used.
///
/// ```
/// use linksieve_inputs::{Records, WarcHeader, WarcRecords, walk};
/// use std::io::{BufRead, Read};
///
/// /// Keeps each payload's text and its target URI.
/// #[derive(Default)]
/// struct Texts(Vec<(String, String)>, u64);
/// impl Records for Texts {
///     fn stop(&mut self) -> bool { false }
///     fn skip(&mut self, _why: &str, n: u64) { self.1 += n }
///     fn coding(&mut self, _what: String) {}
///     fn scan(&mut self, h: &WarcHeader, _at: u64, _charset: Option<&'static encoding_rs::Encoding>,
///             _html: bool, reader: &mut dyn BufRead) -> std::io::Result<()> {
///         let mut text = String::new();
///         reader.read_to_string(&mut text)?;
///         self.0.push((h.target_uri.clone().unwrap_or_default(), text));
///         Ok(())
///     }
///     fn record_failed(&mut self, error: String) { panic!("{error}") }
/// }
///
/// let body = "see http://a.example/";
/// let warc = format!(
///     "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://s.example/\r\n\
///      Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
///     body.len()
/// );
/// let mut texts = Texts::default();
/// walk(&mut warc.as_bytes(), WarcRecords::Content, &mut texts).unwrap();
/// assert_eq!(texts.0, [("http://s.example/".to_owned(), body.to_owned())]);
/// ```
pub fn walk(
    r: &mut dyn BufRead,
    records: WarcRecords,
    to: &mut impl Records,
) -> Result<(), WarcError> {
    let mut offset = 0u64;
    // the blank lines that ended the last record, read to check its member: the next header
    // reads them again, as if they had not been taken
    let mut carry: Vec<u8> = Vec::new();
    // a block read whole (see `CHECKED_BLOCK`)
    let mut whole: Vec<u8> = Vec::new();
    loop {
        let header = read_warc_header(&mut (&carry[..]).chain(&mut *r))?;
        carry.clear();
        let Some(h) = header else {
            return Ok(());
        };
        if to.stop() {
            return Ok(());
        }
        // where its `WARC/` line starts (after the blank lines that end the record before)
        let record_at = offset + h.blank_before;
        to.record(&h, record_at);
        offset += h.header_len;
        to.skip("WARC record headers", h.header_len);
        // A block of up to `CHECKED_BLOCK` is read whole, then its member checked
        // (`check_record_end`), before any of it is used: a damaged member gives no links
        // (its bytes may be other than were written). A decoder's error inside the block is
        // such damage too, but the input's end inside it is a cut (`WarcError::Truncated`):
        // what was there is read, up to the cut.
        let mut in_memory: &[u8];
        let source: &mut dyn BufRead = if h.content_length <= CHECKED_BLOCK {
            whole.clear();
            let read = Block::new(r, h.content_length).read_to_end(&mut whole);
            let checked = match read {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(()),
                Err(e) => Err(e),
                Ok(_) => check_record_end(r, &mut carry),
            };
            if let Err(error) = checked {
                return Err(WarcError::Damaged {
                    offset: record_at,
                    error,
                });
            }
            in_memory = &whole;
            &mut in_memory
        } else {
            &mut *r
        };
        let mut block = Block::new(source, h.content_length);
        // the payload's reader borrows the block until the end of this block
        let (skipped, failure) = {
            let mut links = RecordLinks::default();
            let payload = payload(&h, &mut block, records, &mut links);
            if !links.links.is_empty() || links.visited {
                for l in &mut links.links {
                    l.at += offset;
                }
                to.links(&h, links);
            }
            match payload {
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
            }
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
}

mod chunked;
mod http;
mod links;
mod payload;
#[cfg(test)]
mod tests;
mod wat;

use chunked::Dechunk;
pub use http::{HttpHead, charset_of, read_http_head};
use links::{MAX_ROBOTS, is_redirect, is_robots_txt, link_header_refs, sitemap_lines};
pub use links::{RecordLink, RecordLinkKind, RecordLinks};
pub use payload::html_media;
pub(crate) use payload::{Payload, payload};
use wat::{MAX_WAT, is_wat, wat_links};

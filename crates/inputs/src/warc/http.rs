//! The HTTP message head at the start of a `response` record's block (RFC 9112 2-5), and the
//! charset a Content-Type declares.

use super::*;

/// The `charset` parameter of a Content-Type value, as an encoding.
///
/// ```
/// let e = linksieve_inputs::charset_of("text/html; charset=\"Shift_JIS\"").unwrap();
/// assert_eq!(e.name(), "Shift_JIS");
/// assert!(linksieve_inputs::charset_of("text/html").is_none());
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

/// The HTTP message head at the start of a `response` record's block.
///
/// ```
/// use std::io::BufRead;
/// let mut r = std::io::Cursor::new(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n...".to_vec());
/// let h = linksieve_inputs::read_http_head(&mut r).unwrap();
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
    /// The links it states: a redirect's `Location`, the references of its `Link` fields
    /// ([`RecordLink`]; offsets from the head's first byte), in the order written.
    pub links: Vec<RecordLink>,
}

impl HttpHead {
    /// The `charset` of its Content-Type.
    ///
    /// ```
    /// let h = linksieve_inputs::HttpHead { content_type: Some("text/plain; charset=koi8-r".into()), ..Default::default() };
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
    Location,
    Link,
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
        } else if is("location") {
            Some(HeadField::Location)
        } else if is("link") {
            Some(HeadField::Link)
        } else {
            None
        }
    }
}

/// Reads an HTTP response head (status line and header fields up to the empty line, RFC 9112
/// 2.1), line by line however the reads fall, and any interim `1xx` heads before it (RFC 9110
/// 15.2); a field folded onto a line that starts with a space or a tab (obs-fold) is unfolded.
/// The links of the final head are kept ([`HttpHead::links`]): a `Location` or `Link` value
/// that is not UTF-8 is skipped (as cc-pyspark does), and the offsets of a folded value's
/// later lines are counted as if unfolded.
/// The reader must be at `HTTP/`. A head over 1 MiB, or one the input ends inside, is an
/// error.
///
/// ```
/// let mut r = std::io::Cursor::new(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\n\n".to_vec());
/// let h = linksieve_inputs::read_http_head(&mut r).unwrap();
/// assert_eq!((h.status, h.len), (404, 49));
/// ```
pub fn read_http_head<R: BufRead + ?Sized>(r: &mut R) -> io::Result<HttpHead> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, format!("HTTP head: {m}"));
    let mut head = HttpHead::default();
    let mut line = Vec::new();
    // the fields this reader needs, their folded values unfolded (the others' not kept), and
    // where each value starts
    let mut unfolded: Vec<(Option<HeadField>, String, u64)> = Vec::new();
    loop {
        let mut first = true;
        let mut fields = HttpHead::default();
        loop {
            line.clear();
            let line_at = head.len;
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
            let lossy = String::from_utf8_lossy(&line);
            let utf8 = matches!(lossy, std::borrow::Cow::Borrowed(_));
            let text = lossy.trim_end_matches(['\r', '\n']);
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
                if let Some((Some(_), value, _)) = unfolded.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            let Some((name, value)) = text.split_once(':') else {
                continue; // junk: not a field this reader needs
            };
            let mut field = HeadField::of(name);
            if matches!(field, Some(HeadField::Location | HeadField::Link)) && !utf8 {
                field = None; // not UTF-8
            }
            let value_at = line_at + (text.len() - value.trim_start().len()) as u64;
            let value = field.map_or_else(String::new, |_| value.trim().to_owned());
            unfolded.push((field, value, value_at));
        }
        for (field, value, at) in unfolded.drain(..) {
            let value = value.trim();
            match field {
                None => {}
                Some(HeadField::Location) => {
                    let first = !fields
                        .links
                        .iter()
                        .any(|l| matches!(l.kind, RecordLinkKind::Redirect(_)));
                    if first && is_redirect(fields.status) && !value.is_empty() {
                        fields.links.push(RecordLink {
                            at,
                            value: value.to_owned(),
                            kind: RecordLinkKind::Redirect(fields.status),
                        });
                    }
                }
                Some(HeadField::Link) => link_header_refs(value, at, &mut fields.links),
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

//! Which part of a record is scanned, and how: the payload of a `response` (its HTTP head
//! read, its transfer and content codings undone), a block scanned as it is, or a record skipped.

use super::*;

/// Reads up to `n` bytes, however the reads fall, and returns them.
fn read_up_to(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut v = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut v)?;
    Ok(v)
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
/// assert!(linksieve_inputs::html_media("Text/HTML; charset=utf-8"));
/// assert!(!linksieve_inputs::html_media("text/plain"));
/// ```
pub fn html_media(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    mime.eq_ignore_ascii_case("text/html") || mime.eq_ignore_ascii_case("application/xhtml+xml")
}

/// Media types that hold no text worth scanning. `+xml` and `+json` types (SVG, Atom) do.
pub(super) fn binary_media(content_type: &str) -> bool {
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
/// is read (its length counted, its charset kept, its links put in `links`: offsets from the
/// block's first byte), then its transfer and content codings undone; a robots.txt's
/// `Sitemap:` lines go to `links` too. A skipped payload's head links are kept.
pub(crate) fn payload<'a>(
    h: &WarcHeader,
    block: &'a mut Block<'_>,
    records: WarcRecords,
    links: &mut RecordLinks,
) -> io::Result<Payload<'a>> {
    let kind = h.record_type.as_str();
    let all = records == WarcRecords::All;
    let skip = |why: &str| Ok(Payload::Skip(format!("WARC {kind} records{why}")));
    let content_type = h.content_type.as_deref().unwrap_or("");
    match kind {
        "response" => links.visited = true,
        "metadata" if is_wat(h) => {
            // Common Crawl's WAT: the links its JSON lists; in `all`, its text scanned too
            let json = read_up_to(block, MAX_WAT + 1)?;
            let read = if json.len() > MAX_WAT {
                Ok(" (WAT JSON over 64 MiB: not read)")
            } else {
                wat_links(&json, links).map(|()| " (WAT: the links its JSON lists read)")
            };
            block.unread(json);
            let why = read?;
            return if all {
                Ok(scan_whole(h, block))
            } else {
                skip(why)
            };
        }
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
    let mut head = read_http_head(block)?;
    links.links.append(&mut head.links);
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
    if head.status == 200 && h.target_uri.as_deref().is_some_and(is_robots_txt) {
        // its Sitemap: lines, from its first bytes, which are then scanned as any payload
        let start = read_up_to(&mut body, MAX_ROBOTS)?;
        sitemap_lines(&start, head.len, &mut links.links);
        body = Box::new(io::Cursor::new(start).chain(body));
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

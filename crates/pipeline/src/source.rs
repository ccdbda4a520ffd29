//! Inputs: files, directories (recursive, in sorted order), stdin; compression recognised by
//! content (gzip, including the multi-member files of WARC, zstd, bzip2), not by extension;
//! WARC / WET files split into records whose payloads are scanned with the charset their
//! headers declare, keeping the record's target URI as provenance.

use encoding_rs::Encoding;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Where input comes from.
///
/// ```
/// use linksieve_pipeline::InputSpec;
/// assert_eq!(InputSpec::from_arg("-".as_ref()), InputSpec::Stdin);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSpec {
    /// Standard input.
    Stdin,
    /// A file (directories are expanded before).
    File(PathBuf),
}

impl InputSpec {
    /// `-` is stdin, anything else a path.
    ///
    /// ```
    /// use linksieve_pipeline::InputSpec;
    /// assert!(matches!(InputSpec::from_arg("a.txt".as_ref()), InputSpec::File(_)));
    /// ```
    pub fn from_arg(arg: &Path) -> InputSpec {
        if arg.as_os_str() == "-" {
            InputSpec::Stdin
        } else {
            InputSpec::File(arg.to_path_buf())
        }
    }

    /// The name used in output and diagnostics.
    ///
    /// ```
    /// assert_eq!(linksieve_pipeline::InputSpec::Stdin.name(), "-");
    /// ```
    pub fn name(&self) -> String {
        match self {
            InputSpec::Stdin => "-".to_owned(),
            InputSpec::File(p) => p.display().to_string(),
        }
    }
}

/// An input that could not be listed (an unreadable directory entry), with the reason
/// (reported and counted, never dropped silently). A missing file is no problem here: it stays
/// in the list, and opening it fails where every input is opened, in order.
///
/// ```
/// let (files, problems) = linksieve_pipeline::expand_inputs(&["/no/such/file".into()]);
/// assert!(problems.is_empty());
/// assert!(linksieve_pipeline::open_input(&files[0]).is_err());
/// ```
#[derive(Debug)]
pub struct InputProblem {
    /// The path.
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

/// Expands the command line's inputs: `-` is stdin, a directory is walked recursively (entries
/// in byte order of their names, symlinked directories not followed), a file is itself.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("ls-expand-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("b")).unwrap();
/// std::fs::write(dir.join("b/2.txt"), "x").unwrap();
/// std::fs::write(dir.join("1.txt"), "x").unwrap();
/// let (files, problems) = linksieve_pipeline::expand_inputs(&[dir.clone()]);
/// assert!(problems.is_empty());
/// assert_eq!(files.len(), 2);
/// assert!(files[0].name().ends_with("1.txt"));
/// std::fs::remove_dir_all(dir).unwrap();
/// ```
pub fn expand_inputs(args: &[PathBuf]) -> (Vec<InputSpec>, Vec<InputProblem>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for a in args {
        match InputSpec::from_arg(a) {
            InputSpec::Stdin => files.push(InputSpec::Stdin),
            InputSpec::File(p) => walk(&p, &mut files, &mut problems),
        }
    }
    (files, problems)
}

fn walk(p: &Path, files: &mut Vec<InputSpec>, problems: &mut Vec<InputProblem>) {
    // An input that cannot be looked at (missing, a broken symlink, no permission) stays in
    // the list: opening it fails in the reader, which reports it in order (a JSONL
    // `{"input","error"}` row, the summary) like any input that fails.
    let Ok(meta) = std::fs::metadata(p) else {
        return files.push(InputSpec::File(p.to_path_buf()));
    };
    if !meta.is_dir() {
        files.push(InputSpec::File(p.to_path_buf()));
        return;
    }
    let Ok(entries) = std::fs::read_dir(p) else {
        // opening it fails the same way in the reader (`File::open` needs read permission)
        return files.push(InputSpec::File(p.to_path_buf()));
    };
    let mut children: Vec<PathBuf> = Vec::new();
    for e in entries {
        match e {
            Ok(e) => {
                // Do not follow symlinked directories (no loops); symlinked files are read.
                let is_link_dir = e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir();
                if !is_link_dir {
                    children.push(e.path());
                }
            }
            Err(error) => problems.push(InputProblem {
                path: p.to_path_buf(),
                error,
            }),
        }
    }
    children.sort();
    for c in children {
        walk(&c, files, problems);
    }
}

/// The compression recognised at the start of an input.
///
/// ```
/// assert_eq!(linksieve_pipeline::Compression::sniff(b"\x1f\x8b\x08"), linksieve_pipeline::Compression::Gzip);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip, possibly several members (RFC 1952).
    Gzip,
    /// Zstandard frames (RFC 8878).
    Zstd,
    /// bzip2 streams.
    Bzip2,
}

impl Compression {
    /// Recognises the magic number at the start of `head`.
    ///
    /// ```
    /// use linksieve_pipeline::Compression;
    /// assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
    /// assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
    /// assert_eq!(Compression::sniff(b"http://"), Compression::None);
    /// ```
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }

    /// A short name for summaries.
    ///
    /// ```
    /// assert_eq!(linksieve_pipeline::Compression::Gzip.name(), "gzip");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Opens an input, recognises its compression and returns a reader of the decompressed bytes.
///
/// ```
/// use std::io::Read;
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// std::io::Write::write_all(&mut gz, b"hello").unwrap();
/// let bytes = gz.finish().unwrap();
/// let (mut r, c) = linksieve_pipeline::decompress(Box::new(std::io::Cursor::new(bytes))).unwrap();
/// let mut s = String::new();
/// r.read_to_string(&mut s).unwrap();
/// assert_eq!((s.as_str(), c), ("hello", linksieve_pipeline::Compression::Gzip));
/// ```
pub fn decompress(
    reader: Box<dyn Read + Send>,
) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    let mut br = BufReader::with_capacity(1 << 16, reader);
    let head = peek(&mut br)?;
    let c = Compression::sniff(head);
    let out: Box<dyn BufRead + Send> = match c {
        Compression::None => Box::new(br),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(br),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::with_buffer(br)?,
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            1 << 16,
            bzip2::bufread::MultiBzDecoder::new(br),
        )),
    };
    Ok((out, c))
}

/// Peeks at the start of the input without consuming it. `BufReader` returns what one read
/// gave; a pipe that delivers fewer than 4 bytes first is rare, and a miss only means the input
/// is scanned as uncompressed text, never lost.
pub(crate) fn peek<R: BufRead>(r: &mut R) -> io::Result<&[u8]> {
    r.fill_buf()
}

/// Opens an [`InputSpec`].
///
/// ```
/// let err = linksieve_pipeline::open_input(&linksieve_pipeline::InputSpec::File("/no/such".into()));
/// assert!(err.is_err());
/// ```
pub fn open_input(spec: &InputSpec) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    match spec {
        InputSpec::Stdin => decompress(Box::new(io::stdin())),
        InputSpec::File(p) => decompress(Box::new(open_file(p)?)),
    }
}

/// Opens a file input once (a FIFO's writer is not made to wait for a second open): a
/// directory is an error (it is walked by [`expand_inputs`], never read).
///
/// ```
/// let e = linksieve_pipeline::open_file(std::path::Path::new("/")).unwrap_err();
/// assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
/// ```
pub fn open_file(p: &Path) -> io::Result<std::fs::File> {
    let file = std::fs::File::open(p)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    Ok(file)
}

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
}

/// Reads the next record header; `None` at the end of the input. Blank lines before a record
/// (the two CRLF that end the previous one) are skipped.
///
/// ```
/// let mut r = std::io::Cursor::new(Vec::new());
/// assert!(linksieve_pipeline::read_warc_header(&mut r).unwrap().is_none());
/// ```
pub fn read_warc_header<R: BufRead>(r: &mut R) -> Result<Option<WarcHeader>, WarcError> {
    let mut line = Vec::new();
    let mut h = WarcHeader::default();
    let mut len = 0u64;
    loop {
        line.clear();
        let n = r.take(1 << 16).read_until(b'\n', &mut line)?;
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
    let mut have_length = false;
    loop {
        line.clear();
        let n = r.take(1 << 16).read_until(b'\n', &mut line)?;
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
        let Some((name, value)) = text.split_once(':') else {
            return Err(WarcError::Malformed(format!(
                "header line without ':': {text:?}"
            )));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "warc-type" => h.record_type = value.to_ascii_lowercase(),
            "warc-target-uri" => h.target_uri = Some(value.trim_matches(['<', '>']).to_owned()),
            "content-type" => h.content_type = Some(value.to_owned()),
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

/// Reads the HTTP response head at the start of a `response` record's block: returns its length
/// and the charset of its Content-Type, if any. `None` when the block does not start with an
/// HTTP status line (then the whole block is scanned).
///
/// ```
/// let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n<p>";
/// let (len, cs) = linksieve_pipeline::http_head(block).unwrap();
/// assert_eq!(len, block.len() - 3);
/// assert_eq!(cs.unwrap().name(), "windows-1251");
/// ```
pub fn http_head(block: &[u8]) -> Option<(usize, Option<&'static Encoding>)> {
    if !block.starts_with(b"HTTP/") {
        return None;
    }
    let end = memchr::memmem::find(block, b"\r\n\r\n")
        .map(|p| p + 4)
        .or_else(|| memchr::memmem::find(block, b"\n\n").map(|p| p + 2))?;
    let head = String::from_utf8_lossy(&block[..end]);
    let cs = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("content-type")
            .then(|| charset_of(v))
            .flatten()
    });
    Some((end, cs))
}

//! Inputs: files, directories (recursive, in sorted order), stdin; compression recognised by
//! content (gzip, including the multi-member files of WARC, zstd, bzip2), not by extension.
//! WARC / WET records are read by [`crate::warc`].

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

//! Inputs: files, directories (recursive, in sorted order), stdin; compression recognised by
//! content (gzip, including the multi-member files of WARC; zstd, with the dictionary frame of
//! the IIPC WARC-zstd layout; bzip2; xz and lzma), not by extension. Other containers (zip, 7z,
//! RAR, LZ4, compress, lzip, lzop, Snappy) are refused, never read as text. WARC / WET records
//! are read by `warc.rs` ([`crate::walk`]).

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Where input comes from.
///
/// ```
/// use linksieve_inputs::InputSpec;
/// assert_eq!(InputSpec::from_arg("-".as_ref()), InputSpec::Stdin);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSpec {
    /// Standard input.
    Stdin,
    /// A file (directories are expanded before).
    File(PathBuf),
    /// An entry of a walked directory that is not read: not a regular file, nor a symlink to
    /// one (a FIFO, a socket, a device). Opening it fails with `why` ([`skipped`]), so it is
    /// reported and counted as a failed input when its turn comes.
    Skipped {
        /// The entry.
        path: PathBuf,
        /// What it is.
        why: &'static str,
    },
}

impl InputSpec {
    /// `-` is stdin, anything else a path.
    ///
    /// ```
    /// use linksieve_inputs::InputSpec;
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
    /// assert_eq!(linksieve_inputs::InputSpec::Stdin.name(), "-");
    /// ```
    pub fn name(&self) -> String {
        match self {
            InputSpec::Stdin => "-".to_owned(),
            InputSpec::File(p) | InputSpec::Skipped { path: p, .. } => p.display().to_string(),
        }
    }
}

/// An input that could not be listed (an unreadable directory entry), with the reason
/// (reported and counted, never dropped silently). A missing file is no problem here: it stays
/// in the list, and opening it fails where every input is opened, in order.
///
/// ```
/// let (files, problems) = linksieve_inputs::expand_inputs(&["/no/such/file".into()]);
/// assert!(problems.is_empty());
/// assert!(linksieve_inputs::open_input(&files[0]).is_err());
/// ```
#[derive(Debug)]
pub struct InputProblem {
    /// The path.
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

/// Expands the command line's inputs: `-` is stdin, a directory is walked recursively (entries
/// in byte order of their names, symlinked directories not followed), a file is itself. An
/// input named on the command line is read whatever it is (a FIFO, `/dev/stdin`, a process
/// substitution); inside a walked directory only regular files and symlinks to them are read,
/// and anything else (a FIFO that may never be written, `/dev/zero` that never ends) becomes
/// [`InputSpec::Skipped`], reported as a failed input when its turn comes.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("ls-expand-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("b")).unwrap();
/// std::fs::write(dir.join("b/2.txt"), "x").unwrap();
/// std::fs::write(dir.join("1.txt"), "x").unwrap();
/// let (files, problems) = linksieve_inputs::expand_inputs(&[dir.clone()]);
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
            InputSpec::File(p) if std::fs::metadata(&p).is_ok_and(|m| m.is_dir()) => {
                walk(&p, &mut files, &mut problems);
            }
            // Named on the command line: read as it is. One that cannot be looked at
            // (missing, a broken symlink, no permission) stays in the list too: opening it
            // fails in the reader, which reports it in order (a JSONL `{"input","error"}` row,
            // the summary) like any input that fails.
            spec => files.push(spec),
        }
    }
    (files, problems)
}

/// A directory's entries, sorted, each walked (a directory), listed (a regular file, or one
/// that cannot be looked at: opening it reports why) or skipped (anything else).
fn walk(dir: &Path, files: &mut Vec<InputSpec>, problems: &mut Vec<InputProblem>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        // opening it fails the same way in the reader (`File::open` needs read permission)
        Err(_) => return files.push(InputSpec::File(dir.to_path_buf())),
    };
    let mut children: Vec<(PathBuf, bool)> = Vec::new();
    for e in entries {
        match e {
            Ok(e) => {
                let link = e.file_type().is_ok_and(|t| t.is_symlink());
                children.push((e.path(), link));
            }
            Err(error) => problems.push(InputProblem {
                path: dir.to_path_buf(),
                error,
            }),
        }
    }
    children.sort();
    for (path, link) in children {
        // the entry, or what its symlink points to
        let Ok(meta) = std::fs::metadata(&path) else {
            files.push(InputSpec::File(path));
            continue;
        };
        let t = meta.file_type();
        if t.is_dir() {
            // Symlinked directories are not followed (no loops).
            if !link {
                walk(&path, files, problems);
            }
        } else if t.is_file() {
            files.push(InputSpec::File(path));
        } else {
            let why = special_kind(&t);
            files.push(InputSpec::Skipped { path, why });
        }
    }
}

/// What a file that is neither a regular file nor a directory is, for the report (also what
/// `--out` and `--stats` refuse: `linksieve_pipeline::output::check_target`).
///
/// ```
/// # #[cfg(unix)] {
/// let t = std::fs::metadata("/dev/null").unwrap().file_type();
/// assert_eq!(linksieve_inputs::special_kind(&t), "a character device");
/// # }
/// ```
pub fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        } else if t.is_socket() {
            return "a socket";
        } else if t.is_char_device() {
            return "a character device";
        } else if t.is_block_device() {
            return "a block device";
        }
    }
    let _ = t;
    "not a regular file"
}

/// The compression recognised at the start of an input.
///
/// ```
/// assert_eq!(linksieve_inputs::Compression::sniff(b"\x1f\x8b\x08"), linksieve_inputs::Compression::Gzip);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip, possibly several members (RFC 1952).
    Gzip,
    /// Zstandard frames (RFC 8878), possibly after skippable frames, the first of which may be
    /// the dictionary of the IIPC WARC-zstd layout.
    Zstd,
    /// bzip2 streams.
    Bzip2,
    /// xz streams (the .xz file format), possibly several.
    Xz,
    /// The legacy `.lzma` format ("LZMA alone").
    Lzma,
    /// A container linksieve does not read (named): the input is refused, never read as text.
    Unsupported(&'static str),
}

/// The skippable frames of RFC 8878 3.1.2, as the little-endian numbers they start with.
const ZSTD_SKIPPABLE: std::ops::RangeInclusive<u32> = 0x184D_2A50..=0x184D_2A5F;
/// The dictionary frame of the IIPC WARC-zstd specification ("Dictionary frame format").
const WARC_ZSTD_DICTIONARY: [u8; 4] = [0x5D, 0x2A, 0x4D, 0x18];
const ZSTD_FRAME: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// A dictionary in the format of RFC 8878 5.
const ZSTD_DICTIONARY: [u8; 4] = [0x37, 0xA4, 0x30, 0xEC];
/// The largest dictionary read, compressed or not (the specification asks decoders for 8 MiB
/// at least, and lets them refuse more).
const MAX_DICTIONARY: u64 = 32 << 20;
/// The most memory the xz / lzma decoder may take (xz -9 needs 65 MiB).
const XZ_MEMORY: u64 = 1 << 30;

/// Containers that are not text and that linksieve does not unpack, by their magic numbers.
const UNSUPPORTED: &[(&[u8], &str)] = &[
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"PK\x07\x08", "a zip archive"),
    (b"7z\xBC\xAF\x27\x1C", "a 7z archive"),
    (b"Rar!\x1A\x07", "a RAR archive"),
    (b"\x04\x22\x4D\x18", "an LZ4 frame"),
    (b"\x02\x21\x4C\x18", "an LZ4 legacy frame"),
    (b"\x1F\x9D", "a Unix compress (.Z) file"),
    (b"LZIP", "an lzip file"),
    (b"\x89LZO\x00\r\n\x1A\n", "an lzop file"),
    (b"\xFF\x06\x00\x00sNaPpY", "a Snappy framed stream"),
    (b"MSCF\x00\x00\x00\x00", "a cabinet archive"),
];

impl Compression {
    /// Recognises the magic number at the start of `head`.
    ///
    /// ```
    /// use linksieve_inputs::Compression;
    /// assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
    /// assert_eq!(Compression::sniff(b"\x5d\x2a\x4d\x18"), Compression::Zstd);
    /// assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
    /// assert_eq!(Compression::sniff(b"\xfd7zXZ\x00"), Compression::Xz);
    /// assert_eq!(Compression::sniff(b"PK\x03\x04"), Compression::Unsupported("a zip archive"));
    /// assert_eq!(Compression::sniff(b"http://"), Compression::None);
    /// ```
    pub fn sniff(head: &[u8]) -> Compression {
        let le32 = head
            .first_chunk::<4>()
            .map(|b| u32::from_le_bytes(*b))
            .unwrap_or(0);
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_FRAME) || ZSTD_SKIPPABLE.contains(&le32) {
            Compression::Zstd
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else if head.starts_with(b"\xFD7zXZ\x00") {
            Compression::Xz
        } else if head.starts_with(&[0x5D, 0, 0]) {
            // LZMA alone (no magic number): the properties byte lc=3 lp=0 pb=2 that encoders
            // write, then a dictionary size that is a multiple of 64 KiB (file(1)'s rule)
            Compression::Lzma
        } else if let Some((_, what)) = UNSUPPORTED.iter().find(|(m, _)| head.starts_with(m)) {
            Compression::Unsupported(what)
        } else {
            Compression::None
        }
    }

    /// A short name for summaries.
    ///
    /// ```
    /// assert_eq!(linksieve_inputs::Compression::Gzip.name(), "gzip");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Lzma => "lzma",
            Compression::Unsupported(what) => what,
        }
    }
}

/// Opens an input, recognises its compression and returns a reader of the decompressed bytes.
/// A container that [`Compression::sniff`] names unsupported is an error (`InvalidData`).
///
/// ```
/// use std::io::Read;
/// let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
/// std::io::Write::write_all(&mut gz, b"hello").unwrap();
/// let bytes = gz.finish().unwrap();
/// let (mut r, c) = linksieve_inputs::decompress(Box::new(std::io::Cursor::new(bytes))).unwrap();
/// let mut s = String::new();
/// r.read_to_string(&mut s).unwrap();
/// assert_eq!((s.as_str(), c), ("hello", linksieve_inputs::Compression::Gzip));
/// let zip = std::io::Cursor::new(b"PK\x03\x04 http://e.x/".to_vec());
/// assert!(linksieve_inputs::decompress(Box::new(zip)).is_err());
/// ```
pub fn decompress(
    reader: Box<dyn Read + Send>,
) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    let mut br = BufReader::with_capacity(1 << 16, reader);
    let head = peek(&mut br)?;
    let c = Compression::sniff(head);
    let buffered = |r: Box<dyn Read + Send>| Box::new(BufReader::with_capacity(1 << 16, r));
    let out: Box<dyn BufRead + Send> = match c {
        Compression::None => Box::new(br),
        Compression::Gzip => buffered(Box::new(flate2::bufread::MultiGzDecoder::new(br))),
        Compression::Zstd => match zstd_dictionary(&mut br)? {
            Some(dict) => buffered(Box::new(zstd::stream::read::Decoder::with_dictionary(
                br, &dict,
            )?)),
            None => buffered(Box::new(zstd::stream::read::Decoder::with_buffer(br)?)),
        },
        Compression::Bzip2 => buffered(Box::new(bzip2::bufread::MultiBzDecoder::new(br))),
        Compression::Xz | Compression::Lzma => {
            let stream = if c == Compression::Xz {
                liblzma::stream::Stream::new_stream_decoder(
                    XZ_MEMORY,
                    liblzma::stream::CONCATENATED,
                )
            } else {
                liblzma::stream::Stream::new_lzma_decoder(XZ_MEMORY)
            }
            .map_err(io::Error::from)?;
            buffered(Box::new(liblzma::bufread::XzDecoder::new_stream(
                br, stream,
            )))
        }
        Compression::Unsupported(what) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{what}: not text, and not a compression linksieve reads (gzip, zstd, \
                     bzip2, xz, lzma); unpack it first"
                ),
            ));
        }
    };
    Ok((out, c))
}

/// Reads the dictionary frame that may start a zstd input (IIPC WARC-zstd 1.0, "Dictionary
/// frame format"): a skippable frame (RFC 8878 3.1.2) with the magic number 0x184D2A5D whose
/// data is a dictionary (RFC 8878 5), or a zstd frame holding one. `None`, nothing read, when
/// the input does not start with one; other skippable frames are left to the decoder, which
/// skips them.
fn zstd_dictionary<R: BufRead>(r: &mut R) -> io::Result<Option<Vec<u8>>> {
    if !peek(r)?.starts_with(&WARC_ZSTD_DICTIONARY) {
        return Ok(None);
    }
    let bad = |m: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("zstd dictionary frame: {m}"),
        )
    };
    let mut head = [0u8; 8];
    r.read_exact(&mut head)
        .map_err(|_| bad("the input ends inside its header".into()))?;
    let size = u64::from(u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
    if size > MAX_DICTIONARY {
        return Err(bad(format!(
            "{size} bytes, more than the {MAX_DICTIONARY} read"
        )));
    }
    let mut data = Vec::with_capacity(size as usize);
    r.take(size).read_to_end(&mut data)?;
    if data.len() as u64 != size {
        return Err(bad(format!(
            "the input ends after {} of its {size} bytes",
            data.len()
        )));
    }
    if data.starts_with(&ZSTD_DICTIONARY) {
        Ok(Some(data))
    } else if data.starts_with(&ZSTD_FRAME) {
        // a compressed dictionary: one frame, compressed without a dictionary
        let mut dict = Vec::new();
        zstd::stream::read::Decoder::with_buffer(&data[..])?
            .single_frame()
            .take(MAX_DICTIONARY + 1)
            .read_to_end(&mut dict)?;
        if dict.len() as u64 > MAX_DICTIONARY {
            return Err(bad(format!(
                "decompressed, more than the {MAX_DICTIONARY} bytes read"
            )));
        }
        Ok(Some(dict))
    } else {
        Err(bad("holds neither a dictionary nor a zstd frame".into()))
    }
}

/// Peeks at the start of the input without consuming it. `BufReader` returns what one read
/// gave; a pipe that delivers fewer than 4 bytes first is rare, and a miss only means the input
/// is scanned as uncompressed text, never lost.
pub(crate) fn peek<R: BufRead>(r: &mut R) -> io::Result<&[u8]> {
    r.fill_buf()
}

/// Opens an [`InputSpec`]; a skipped one is an error that says what it is.
///
/// ```
/// let err = linksieve_inputs::open_input(&linksieve_inputs::InputSpec::File("/no/such".into()));
/// assert!(err.is_err());
/// ```
pub fn open_input(spec: &InputSpec) -> io::Result<(Box<dyn BufRead + Send>, Compression)> {
    match spec {
        InputSpec::Stdin => decompress(Box::new(io::stdin())),
        InputSpec::File(p) => decompress(Box::new(open_file(p)?)),
        InputSpec::Skipped { why, .. } => Err(skipped(why)),
    }
}

/// Why an [`InputSpec::Skipped`] is not read.
///
/// ```
/// let e = linksieve_inputs::skipped("a FIFO");
/// assert!(e.to_string().contains("skipped"));
/// ```
pub fn skipped(why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "skipped: {why} in a directory, not a regular file (name it on the command line to \
             read it)"
        ),
    )
}

/// Opens a file input once (a FIFO's writer is not made to wait for a second open): a
/// directory is an error (it is walked by [`expand_inputs`], never read).
///
/// ```
/// let e = linksieve_inputs::open_file(std::path::Path::new("/")).unwrap_err();
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

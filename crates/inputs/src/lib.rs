//! Where linksieve's bytes come from: files, directories (recursive, in sorted order) and
//! stdin; compression recognised by content (gzip, zstd with the IIPC WARC-zstd dictionary
//! frame, bzip2, xz, lzma), never by extension; WARC and WET records (ISO 28500), with the HTTP
//! payload of each `response` record decoded (RFC 9112 transfer coding, RFC 9110 content
//! codings) and the charset its head declares. `linksieve run`, `scan` and `dedup` and the
//! Python module read their inputs through this crate (re-exported by `linksieve-pipeline`).
//!
//! ```
//! use std::io::Read;
//! let (files, problems) = linksieve_inputs::expand_inputs(&["-".into()]);
//! assert!(problems.is_empty());
//! assert_eq!(files, [linksieve_inputs::InputSpec::Stdin]);
//! let (mut r, c) = linksieve_inputs::decompress(Box::new(&b"plain text"[..])).unwrap();
//! let mut s = String::new();
//! r.read_to_string(&mut s).unwrap();
//! assert_eq!((s.as_str(), c), ("plain text", linksieve_inputs::Compression::None));
//! ```

mod source;
mod warc;

pub use source::{
    Compression, InputProblem, InputSpec, decompress, expand_inputs, open_file, open_input,
    skipped, special_kind,
};
pub use warc::{
    CHECKED_BLOCK, HttpHead, RecordLink, RecordLinkKind, RecordLinks, Records, WarcError,
    WarcHeader, WarcRecords, charset_of, html_media, read_http_head, read_warc_header, walk,
};

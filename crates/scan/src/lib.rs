//! The linksieve scanner: find IRIs in running text of any character encoding.
//!
//! Bytes go in, in chunks of any size; [`Hit`]s come out, each with its byte range in the
//! original input, its line, its text (UTF-8), and what was trimmed around it. The pipeline:
//!
//! 1. **decode** (`decode.rs`): one `encoding_rs` decoder for the whole stream; `--encoding`
//!    takes any WHATWG label; a BOM always wins (WHATWG "decode"); `auto` looks at the first
//!    64 KiB: UTF-16 if it has the NUL pattern of UTF-16 text, else ISO-2022-JP by its escape
//!    sequences, else UTF-8 if that window is valid UTF-8, else the guess of `chardetng`. Malformed input is counted and becomes U+FFFD, which
//!    never becomes part of a link. In the ASCII-compatible encodings (UTF-8, the single-byte
//!    ones, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK/gb18030) the candidates are found in the input
//!    bytes, where `:` `.` `/` are never part of a multi-byte character, and links are found in
//!    place where the bytes are their own text (valid UTF-8; ASCII); only what a candidate
//!    needs beyond that is decoded (see `engine/`, and [`ScanOptions::decode_all`]).
//! 2. **find** (`trigger.rs`, `find/`): candidates 64 bytes at a time (trigger bytes and a
//!    cheap look at their neighbours), then a bounded look back and a linear, table-driven
//!    forward scan; the boundary rules are in one table (`boundary.rs`).
//! 3. **report**: offsets are mapped back to the input bytes exactly; links found in text
//!    transcoded from a non-Unicode encoding are NFC-normalised (RFC 3987 3.1 variant B; the
//!    comparison draft 4.2.2) and marked ([`Hit::from_legacy`]); UTF-8 and UTF-16 text is never
//!    normalised (variant C). [`Scanner::feed_with`] hands links over without copying them.
//!
//! Results are the same for every way of splitting the input into chunks, and with or without
//! [`ScanOptions::decode_all`].
//!
//! ```
//! use linksieve_scan::{scan_bytes, ScanOptions};
//! let text = "Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\n\
//!             but you can probably pick it up from <ftp://ds.internic.\n\
//!             net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n\
//!             ietf/uri/historical.html#WARNING>.";
//! let r = scan_bytes(text.as_bytes(), &ScanOptions::default());
//! let links: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
//! assert_eq!(links, [
//!     "http://www.w3.org/Addressing/",
//!     "ftp://ds.internic.net/rfc/",
//!     "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING",
//! ]);
//! ```
//!
//! The source, one job per file: `options.rs` ([`ScanOptions`], [`EncodingChoice`]),
//! `scanner.rs` ([`Scanner`], [`scan_bytes`]), `hit.rs` ([`Hit`], [`HitRef`], and the one place
//! hits are built), `engine/` (decoding and finding for one stream: `raw.rs` in place in the
//! input bytes, `text.rs` in the decoded text window), `decode.rs`, `trigger.rs`, `find/` (the
//! finder: `scheme.rs`, `schemeless.rs`, `extent.rs`), `boundary.rs`, `host.rs`, `schemes.rs`,
//! `delimit.rs` ([`link_end`]) and [`chunk`] (where a stream may be cut into chunks that are
//! scanned apart).
//!
//! [`html`] reads HTML as HTML: the URL-valued attributes of its elements ([`outlinks`],
//! [`HtmlScanner`]), by a streaming tokenizer of its own.

mod boundary;
pub mod chunk;
mod decode;
mod delimit;
mod engine;
mod find;
mod hit;
mod host;
pub mod html;
mod late;
mod options;
mod scanner;
mod schemes;
mod tld_data;
mod trigger;

pub use delimit::link_end;
pub use encoding_rs::Encoding;
pub use hit::{Hit, HitRef, LinkKind, Trimmed, TrimmedRef, Wrapper};
pub use html::{
    AttrKind, DeclaredCharset, DocumentBase, HtmlScanner, HtmlStats, HtmlSummary, Outlink, outlinks,
};
pub use late::{decides_late, detect_encoding_after_ascii, first_non_ascii};
pub use options::{
    AUTO_WINDOW, DEFAULT_MAX_LINK_LEN, EncodingChoice, ScanError, ScanOptions, detect_encoding,
    encoding_for_label,
};
pub use scanner::{ReadScanError, ScanResult, ScanStats, Scanner, scan_bytes, scan_reader};

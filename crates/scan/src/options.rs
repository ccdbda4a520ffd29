//! What to look for and how to decode: [`ScanOptions`], [`EncodingChoice`], and deciding the
//! encoding of a stream from its start ([`detect_encoding`]).

use crate::decode;
#[cfg(doc)]
use crate::{Hit, ScanStats, Scanner, link_end};
use encoding_rs::Encoding;

/// Errors of the scanner.
///
/// ```
/// use linksieve_scan::{encoding_for_label, ScanError};
/// assert!(matches!(encoding_for_label("no-such"), Err(ScanError::UnknownEncoding(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// The label is not a WHATWG encoding label (nor `auto`).
    #[error(
        "unknown encoding label {0:?} (use a WHATWG label such as utf-8, shift_jis, windows-1252, or auto)"
    )]
    UnknownEncoding(String),
    /// [`Scanner::feed`] or [`Scanner::finish`] was called after [`Scanner::finish`].
    #[error("the scanner was already finished")]
    Finished,
}

/// Looks up a WHATWG encoding label (`utf-8`, `sjis`, `latin1`, `gbk`, ...).
///
/// ```
/// let e = linksieve_scan::encoding_for_label("latin1").unwrap();
/// assert_eq!(e.name(), "windows-1252");
/// ```
pub fn encoding_for_label(label: &str) -> Result<&'static Encoding, ScanError> {
    Encoding::for_label(label.trim().as_bytes())
        .ok_or_else(|| ScanError::UnknownEncoding(label.to_owned()))
}

/// Which encoding to decode with.
///
/// ```
/// use linksieve_scan::EncodingChoice;
/// assert_eq!(EncodingChoice::from_label("auto").unwrap(), EncodingChoice::Auto);
/// assert!(matches!(EncodingChoice::from_label("koi8-r").unwrap(), EncodingChoice::Fixed(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EncodingChoice {
    /// BOM, else UTF-16 by its NUL pattern, else ISO-2022-JP by its escape sequences, else
    /// UTF-8 if the first 64 KiB validate, else the chardetng guess.
    #[default]
    Auto,
    /// This encoding (a BOM still wins, as in WHATWG "decode").
    Fixed(&'static Encoding),
    /// This encoding and no BOM sniffing: for a slice of a stream whose encoding and BOM were
    /// already decided (the chunks of `linksieve run`), where bytes that look like a BOM are text.
    Exact(&'static Encoding),
}

impl EncodingChoice {
    /// `auto` or a WHATWG label.
    ///
    /// ```
    /// use linksieve_scan::EncodingChoice;
    /// assert!(EncodingChoice::from_label("bogus").is_err());
    /// ```
    pub fn from_label(label: &str) -> Result<EncodingChoice, ScanError> {
        if label.trim().eq_ignore_ascii_case("auto") {
            Ok(EncodingChoice::Auto)
        } else {
            encoding_for_label(label).map(EncodingChoice::Fixed)
        }
    }
}

/// Bytes that `auto` looks at before deciding (also the most input the scanner holds back
/// before its first hit).
///
/// ```
/// assert_eq!(linksieve_scan::AUTO_WINDOW, 65536);
/// ```
pub const AUTO_WINDOW: usize = decode::AUTO_WINDOW;

/// Decides the encoding of a stream from its start, as the scanner does: the BOM wins (except for
/// [`EncodingChoice::Exact`]), then the label, then (`auto`) UTF-16 by its NUL pattern, ISO-2022-JP by its escapes, UTF-8 if
/// the first [`AUTO_WINDOW`] bytes validate, else the chardetng guess. `prefix` is the start of
/// the stream; `last` says it is all of it. Returns the encoding and the length of the BOM, or
/// `None` when more input is needed.
///
/// ```
/// use linksieve_scan::{detect_encoding, EncodingChoice};
/// assert_eq!(detect_encoding(EncodingChoice::Auto, b"\xef\xbb\xbfhi", true).map(|(e, n)| (e.name(), n)), Some(("UTF-8", 3)));
/// assert_eq!(detect_encoding(EncodingChoice::Auto, b"hi", false), None);
/// ```
pub fn detect_encoding(
    choice: EncodingChoice,
    prefix: &[u8],
    last: bool,
) -> Option<(&'static Encoding, usize)> {
    decode::decide(choice, prefix, last)
}

/// Default maximum link length: 64 KiB.
pub const DEFAULT_MAX_LINK_LEN: usize = 64 * 1024;

/// What to look for and how to decode.
///
/// ```
/// use linksieve_scan::{scan_bytes, ScanOptions};
/// let opts = ScanOptions { schemeless: true, email: true, ..ScanOptions::default() };
/// let r = scan_bytes(b"see www.example.com or mail me@example.org", &opts);
/// assert_eq!(r.hits.len(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanOptions {
    /// How to decode.
    pub encoding: EncodingChoice,
    /// Also find links without a scheme: `www.example.com`, `example.com/path` (the last label
    /// must be a public suffix), bare IPv4 and IPv6 addresses.
    pub schemeless: bool,
    /// Also find bare e-mail addresses (`user@example.com`, public suffix required).
    pub email: bool,
    /// URIs only: every non-ASCII character ends a link.
    pub ascii_only: bool,
    /// Longest link (bytes of UTF-8 text); longer candidates are counted in
    /// [`ScanStats::too_long`] and skipped up to the next whitespace or stop character.
    pub max_link_len: usize,
    /// Decode every input byte. Off (the default), input in an ASCII-compatible encoding
    /// (UTF-8, the single-byte encodings, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK, gb18030) is
    /// decoded only around candidates, which are found in the raw bytes; the links are the
    /// same either way, but [`ScanStats::malformed_sequences`] and
    /// [`ScanStats::malformed_bytes`] then count only the decoded part
    /// ([`ScanStats::skipped_bytes`] says how much was not).
    ///
    /// ```
    /// use linksieve_scan::{encoding_for_label, scan_bytes, EncodingChoice, ScanOptions};
    /// let mut input = b"\xff ".repeat(2000);
    /// input.extend_from_slice(b"http://a.example/");
    /// let utf8 = EncodingChoice::Fixed(encoding_for_label("utf-8").unwrap());
    /// let lazy = scan_bytes(&input, &ScanOptions { encoding: utf8, ..Default::default() });
    /// let all = scan_bytes(&input, &ScanOptions { encoding: utf8, decode_all: true, ..Default::default() });
    /// assert_eq!(lazy.hits, all.hits);
    /// assert_eq!(all.stats.malformed_sequences, 2000);
    /// assert!(lazy.stats.skipped_bytes > 0);
    /// assert_eq!(all.stats.skipped_bytes, 0);
    /// ```
    pub decode_all: bool,
    /// Count lines, for [`Hit::line`]. On by default; a caller that never reads the line (a
    /// list of links, a set of keys) turns it off and saves a pass over the input bytes, and
    /// every hit then has line 0.
    ///
    /// ```
    /// use linksieve_scan::{scan_bytes, ScanOptions};
    /// let input = b"a\nb\nhttp://a.example/";
    /// assert_eq!(scan_bytes(input, &ScanOptions::default()).hits[0].line, 3);
    /// let off = ScanOptions { lines: false, ..Default::default() };
    /// assert_eq!(scan_bytes(input, &off).hits[0].line, 0);
    /// ```
    pub lines: bool,
    /// The text is HTML whose links will have their character references decoded (`run
    /// --html`): a link's extent is made wide enough to hold the link of the decoded text.
    /// A reference to an opening bracket (`&#40;`, `&lpar;`, `&laquo;`) opens a pair, so that
    /// a closing bracket after it does not end the link; one to `?` starts the query; after
    /// any `&` text glued in another script is not cut. The caller then decodes the link and
    /// ends it with [`link_end`] (the scanner's hits keep the raw text).
    ///
    /// ```
    /// use linksieve_scan::{scan_bytes, ScanOptions};
    /// let t = b"(http://ex.com/w&#40;x) y)";
    /// assert_eq!(scan_bytes(t, &ScanOptions::default()).hits[0].text, "http://ex.com/w&#40;x");
    /// let html = ScanOptions { html: true, ..ScanOptions::default() };
    /// assert_eq!(scan_bytes(t, &html).hits[0].text, "http://ex.com/w&#40;x)");
    /// ```
    pub html: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            encoding: EncodingChoice::Auto,
            schemeless: false,
            email: false,
            ascii_only: false,
            max_link_len: DEFAULT_MAX_LINK_LEN,
            decode_all: false,
            lines: true,
            html: false,
        }
    }
}

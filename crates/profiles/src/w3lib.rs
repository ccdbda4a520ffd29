//! The `w3lib` profile: `w3lib.url.canonicalize_url` of w3lib 2.5.0 (Scrapy's request
//! fingerprints), byte for byte; every rule and every departure from RFC 3986 and the URL
//! Standard is written down in `docs/profiles/w3lib.md`.
//!
//! One pass writes the key straight into the caller's buffer, component by component, in the
//! order `canonicalize_url` assembles them. Nothing else is allocated unless the input needs a
//! rare rule: text that is not UTF-8, a tab, newline or surrounding control character, a
//! backslash in a special URL, a bracketed or non-ASCII host, a dot segment, more than
//! [`INLINE_PAIRS`] query pairs, or an encoding other than UTF-8 for a non-ASCII query.

mod fast;
#[cfg(test)]
mod fast_tests;
mod idna;
#[cfg(test)]
mod tests;

use super::{ProfileOptions, Reject};
use encoding_rs::{DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};
use std::borrow::Cow;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "w3lib 2.5.0+1";

/// Why one attempt fails: the library raises, or (under an encoding other than UTF-8) a
/// `UnicodeEncodeError` that `canonicalize_url` answers by starting again in UTF-8.
enum Fail {
    /// `ValueError` and the like: no key.
    Reject(Reject),
    /// `UnicodeEncodeError`.
    Encode,
}

impl From<Reject> for Fail {
    fn from(r: Reject) -> Fail {
        Fail::Reject(r)
    }
}

/// A `ValueError` of the library's, by its message.
fn value_error(reason: &'static str) -> Fail {
    Fail::Reject(Reject::new(reason, None))
}

/// `canonicalize_url(input, keep_blank_values, keep_fragments, encoding, query_separator)`.
///
/// w3lib 2.5.0 url.py `canonicalize_url`: the first attempt uses `encoding`; a
/// `UnicodeEncodeError` (a query or fragment character the encoding cannot write) starts again
/// in UTF-8.
pub(super) fn canonicalize(
    input: &[u8],
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    if fast::try_push(input, o, out) {
        return Ok(());
    }
    canonicalize_full(input, o, out)
}

/// [`canonicalize`] of text (the input as `Profile::canonicalize_into` has it): the same key,
/// with the fast path's copy spared a UTF-8 check.
pub(super) fn canonicalize_str(
    input: &str,
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    if fast::try_push_str(input, o, out) {
        return Ok(());
    }
    full(input.as_bytes(), Some(input), o, out)
}

/// [`canonicalize`] without the fast path: every rule, for every input.
fn canonicalize_full(input: &[u8], o: &ProfileOptions, out: &mut String) -> Result<(), Reject> {
    full(input, std::str::from_utf8(input).ok(), o, out)
}

/// [`canonicalize_full`] of `input`, which is the text `text` where it is UTF-8.
fn full(
    input: &[u8],
    text: Option<&str>,
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    let start = out.len();
    let retry = match attempt(input, text, o.encoding, o, out) {
        Ok(()) => return Ok(()),
        Err(Fail::Reject(r)) => return Err(r),
        Err(Fail::Encode) => o.encoding != UTF_8,
    };
    out.truncate(start);
    if retry {
        match attempt(input, text, UTF_8, o, out) {
            Ok(()) => return Ok(()),
            Err(Fail::Reject(r)) => return Err(r),
            Err(Fail::Encode) => {}
        }
    }
    Err(Reject::new("UnicodeEncodeError: non-ASCII IPv6 host", None))
}

/// One attempt of `canonicalize_url` under one encoding (`text`: the input where it is UTF-8).
fn attempt(
    input: &[u8],
    text: Option<&str>,
    enc: &'static Encoding,
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Fail> {
    // w3lib 2.5.0 url.py _safe_url_split: to_unicode(url, encoding, errors="percentencode").
    // Valid UTF-8 is read as the text it is (a Python str); other input as bytes.
    let text: Cow<'_, str> = match text {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(decode_percentencode(input, enc)),
    };
    // w3lib 2.5.0 _url.py _strip, then _urlsplit's own tab/newline removal and lstrip.
    let s = strip(&text);
    let (scheme, rest) = split_scheme(&s);
    let special = is_special(scheme);
    // _urlsplit: in a special URL, "\" before the query or fragment is "/".
    let rest = backslashes(rest, special);
    let parts = split(&rest)?;
    let w = Writer { o, enc };
    w.write(scheme, &parts, out)
}

/// The components `_urlsplit` finds (before the params split).
struct Parts<'a> {
    /// After `//`, up to the first `/`, `?` or `#`; `None` without `//`.
    netloc: Option<&'a str>,
    /// Whether the authority holds both a `[` and a `]`.
    bracketed: bool,
    path: &'a str,
    query: &'a str,
    fragment: &'a str,
}

/// w3lib 2.5.0 _url.py `_urlsplit`, after the scheme (and the backslash rewriting).
fn split(url: &str) -> Result<Parts<'_>, Fail> {
    let b = url.as_bytes();
    let (netloc, bracketed, rest) = if url.starts_with("//") {
        // the first "/", "?" or "#" after "//"
        let delim = memchr::memchr3(b'/', b'?', b'#', &b[2..]).map_or(b.len(), |p| p + 2);
        let netloc = &url[2..delim];
        let open = memchr::memchr(b'[', netloc.as_bytes()).is_some();
        let close = memchr::memchr(b']', netloc.as_bytes()).is_some();
        if open != close {
            return Err(value_error("Invalid IPv6 URL"));
        }
        (Some(netloc), open, &url[delim..])
    } else {
        (None, false, url)
    };
    // The fragment first, then the query: a "?" after the "#" gives no query.
    let (before_hash, fragment) = match memchr::memchr(b'#', rest.as_bytes()) {
        Some(h) => (&rest[..h], &rest[h + 1..]),
        None => (rest, ""),
    };
    let (path, query) = match memchr::memchr(b'?', before_hash.as_bytes()) {
        Some(q) => (&before_hash[..q], &before_hash[q + 1..]),
        None => (before_hash, ""),
    };
    Ok(Parts {
        netloc,
        bracketed,
        path,
        query,
        fragment,
    })
}

/// The options and facts every component's writer reads.
struct Writer<'o> {
    o: &'o ProfileOptions,
    /// The encoding of this attempt (the query's and fragment's).
    enc: &'static Encoding,
}

impl Writer<'_> {
    /// w3lib 2.5.0 url.py `canonicalize_url` from the split onwards, then `_urlunparse`.
    fn write(&self, scheme: &str, p: &Parts<'_>, out: &mut String) -> Result<(), Fail> {
        // _urlunsplit: "scheme:" when there is a scheme (lower-cased by _urlsplit).
        if !scheme.is_empty() {
            push_ascii_lower(scheme, out);
            out.push(':');
        }
        // The query and fragment are encoded (or fail to be) before anything else is built:
        // a character the encoding cannot write restarts the whole call in UTF-8.
        let query = encode(p.query, self.enc)?;
        let fragment = encode(p.fragment, self.enc)?;
        let netloc_at = out.len();
        if let Some(netloc) = p.netloc {
            out.push_str("//");
            netloc::push(netloc, p.bracketed, out)?;
            if out.len() == netloc_at + 2 {
                out.truncate(netloc_at); // an empty netloc: _urlunsplit decides below
            }
        }
        let has_netloc = out.len() > netloc_at;
        let path_at = out.len();
        push_path(p.path, uses_params(scheme), out);
        // _urlunsplit without a netloc: "//" before a path that starts with "//", or before an
        // absolute path of a scheme in urllib's uses_netloc.
        if !has_netloc {
            let url = &out[path_at..];
            if url.starts_with("//")
                || (!scheme.is_empty() && uses_netloc(scheme) && url.starts_with('/'))
            {
                out.insert_str(path_at, "//");
            }
        }
        if !query.is_empty() {
            query::push(&query, self.o, out);
        }
        if self.o.keep_fragments && !fragment.is_empty() {
            out.push('#');
            push_quoted(&fragment, &PATH_SAFEST, out);
        }
        Ok(())
    }
}

/// `canonicalize_url` steps 2 and 3 on the path: `_split_params` (for a scheme in urllib's
/// `uses_params`: a `;` in the last segment starts the params, RFC 2396 3.3), the path
/// unquoted and quoted again ([`path::push`]; an empty path is `/`), its dot segments removed,
/// then `;` and the params quoted with `_PATH_SAFEST_CHARS` where they are not empty.
fn push_path(path: &str, params: bool, out: &mut String) {
    // the last segment's first ";" (looked for only where the path has a ";" at all)
    let b = path.as_bytes();
    let semi = if params && memchr::memchr(b';', b).is_some() {
        let last = memchr::memrchr(b'/', b).map_or(0, |i| i + 1);
        memchr::memchr(b';', &b[last..]).map(|i| last + i)
    } else {
        None
    };
    let (path, params) = match semi {
        Some(i) => (&path[..i], Some(&path[i + 1..])),
        None => (path, None),
    };
    let path_at = out.len();
    if path.is_empty() {
        out.push('/'); // canonicalize_url step 2: an empty path is "/"
    } else {
        path::push(path, out);
        if out.as_bytes()[path_at] == b'/' && path::has_dot_segment(&out[path_at..]) {
            path::remove_dot_segments(path_at, out);
        }
    }
    if let Some(params) = params.filter(|s| !s.is_empty()) {
        out.push(';');
        push_quoted(params.as_bytes(), &PATH_SAFEST, out);
    }
}

/// `str.encode(encoding)` of a query or fragment; [`Fail::Encode`] where a character has no
/// byte sequence in the encoding.
///
/// The WHATWG labels `latin1`, `iso-8859-1`, `cp1252`, `ascii`... all name windows-1252;
/// Python gives most of them its `latin-1` codec, which this reproduces (U+0000 to U+00FF as
/// one byte each, anything else unencodable). Python's `utf-16-le` and `utf-16-be` codecs are
/// reproduced for the WHATWG UTF-16 encodings (no byte order mark); the WHATWG `replacement`
/// encoding, which has no encoder, writes UTF-8. Other encodings use their WHATWG encoder.
fn encode<'a>(s: &'a str, enc: &'static Encoding) -> Result<Cow<'a, [u8]>, Fail> {
    if enc == UTF_8 || s.is_empty() || (s.is_ascii() && enc.is_ascii_compatible()) {
        return Ok(Cow::Borrowed(s.as_bytes()));
    }
    if enc == WINDOWS_1252 {
        return s
            .chars()
            .map(|c| u8::try_from(u32::from(c)).map_err(|_| Fail::Encode))
            .collect::<Result<Vec<u8>, Fail>>()
            .map(Cow::Owned);
    }
    if enc == UTF_16LE || enc == UTF_16BE {
        let le = enc == UTF_16LE;
        let mut v = Vec::with_capacity(s.len() * 2);
        for u in s.encode_utf16() {
            v.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        return Ok(Cow::Owned(v));
    }
    let (bytes, _, unmappable) = enc.encode(s);
    if unmappable {
        return Err(Fail::Encode);
    }
    Ok(bytes)
}

/// `bytes.decode(encoding, errors="percentencode")` (w3lib 2.5.0 url.py `_quote_byte`): each
/// byte that is not part of a character becomes `%XX`.
fn decode_percentencode(input: &[u8], enc: &'static Encoding) -> String {
    if enc == WINDOWS_1252 {
        return input.iter().map(|&b| char::from(b)).collect(); // Python's latin-1
    }
    let mut s = String::with_capacity(input.len() * 3);
    let mut dec = enc.new_decoder_without_bom_handling();
    let mut src = input;
    loop {
        if let Some(n) = dec.max_utf8_buffer_length_without_replacement(src.len()) {
            s.reserve(n);
        }
        let (res, read) = dec.decode_to_string_without_replacement(src, &mut s, true);
        match res {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {
                s.reserve(16);
                src = &src[read..];
            }
            DecoderResult::Malformed(bad, after) => {
                let end = read.saturating_sub(usize::from(after));
                let start = end.saturating_sub(usize::from(bad));
                for &b in &src[start..end] {
                    push_pct(b, &mut s);
                }
                src = &src[end.max(1).min(src.len())..];
                dec = enc.new_decoder_without_bom_handling();
            }
        }
    }
    s
}

/// w3lib 2.5.0 _url.py `_strip` and the start of `_urlsplit`: C0 controls and spaces off both
/// ends, every tab, LF and CR removed (URL Standard "basic URL parser" steps 1 to 3).
fn strip(s: &str) -> Cow<'_, str> {
    // the characters up to U+0020 are the bytes up to 0x20: trimmed bytes end on boundaries
    let b = s.as_bytes();
    let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c > b' ').map_or(start, |e| e + 1);
    let t = &s[start..end];
    if memchr::memchr3(b'\t', b'\n', b'\r', t.as_bytes()).is_some() {
        Cow::Owned(
            t.chars()
                .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(t)
    }
}

/// `_SCHEME_RE`: `^([a-zA-Z][a-zA-Z0-9+.-]*):`; the scheme (as written) and the rest.
fn split_scheme(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    if b.first().is_some_and(u8::is_ascii_alphabetic) {
        let n = b
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
            .unwrap_or(b.len());
        if b.get(n) == Some(&b':') {
            return (&s[..n], &s[n + 1..]);
        }
    }
    ("", s)
}

/// In a special URL, `\` before the first `?` or `#` is `/` (w3lib 2.5.0 _url.py
/// `_urlsplit`, after URL Standard 4.4 "special authority slashes").
fn backslashes(rest: &str, special: bool) -> Cow<'_, str> {
    if !special {
        return Cow::Borrowed(rest);
    }
    let cut = memchr::memchr2(b'?', b'#', rest.as_bytes()).unwrap_or(rest.len());
    if memchr::memchr(b'\\', &rest.as_bytes()[..cut]).is_none() {
        return Cow::Borrowed(rest);
    }
    let mut s = rest[..cut].replace('\\', "/");
    s.push_str(&rest[cut..]);
    Cow::Owned(s)
}

/// `_SPECIAL_SCHEMES`: the URL Standard's special schemes.
fn is_special(scheme: &str) -> bool {
    ["http", "https", "ftp", "file", "ws", "wss"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// Python 3.11 urllib.parse `uses_params`.
fn uses_params(scheme: &str) -> bool {
    [
        "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu",
        "sip", "sips", "mms", "sftp", "tel",
    ]
    .iter()
    .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// Python 3.11 urllib.parse `uses_netloc` (without `""`, which `_urlunsplit` never tests).
fn uses_netloc(scheme: &str) -> bool {
    [
        "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
        "snews", "prospero", "rtsp", "rtsps", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs",
        "git", "git+ssh", "ws", "wss",
    ]
    .iter()
    .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// A set of bytes that a quoting step leaves as they are.
type ByteSet = [bool; 256];

/// The set of `chars`.
const fn set(chars: &[u8]) -> ByteSet {
    let mut t = [false; 256];
    let mut i = 0;
    while i < chars.len() {
        t[chars[i] as usize] = true;
        i += 1;
    }
    t
}

/// RFC 3986 2.3 unreserved: `RFC3986_UNRESERVED`, which every `_quote` keeps.
const UNRESERVED: ByteSet =
    set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~");

/// `_PATH_SAFEST_CHARS` (also the fragment's): unreserved, reserved but `#[]`, and `%`.
const PATH_SAFEST: ByteSet =
    set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?@!$&'()*+,;=%");

/// `_PATH_SAFE_CHARS`: unreserved, reserved but `#`, `|` and `%` (canonicalize_url step 2).
const PATH_SAFE: ByteSet =
    set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?[]@!$&'()*+,;=|%");

/// `_USERINFO_SAFEST_CHARS`: unreserved and the sub-delims but `;=`.
const USERINFO_SAFEST: ByteSet =
    set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,");

/// `%XX`, upper-case (`_hex_encode_table`).
fn push_pct(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// `_quote(bytes, safe)`: the bytes of `safe` as they are, every other byte `%XX`; runs of
/// safe bytes are copied whole.
fn push_quoted(b: &[u8], safe: &ByteSet, out: &mut String) {
    let mut i = 0;
    while i < b.len() {
        let run = b[i..].iter().take_while(|&&c| safe[usize::from(c)]).count();
        if run > 0 {
            push_ascii(&b[i..i + run], out);
            i += run;
        } else {
            push_pct(b[i], out);
            i += 1;
        }
    }
}

/// Appends bytes that are all ASCII (so text) in one copy.
fn push_ascii(b: &[u8], out: &mut String) {
    out.push_str(std::str::from_utf8(b).unwrap_or_default());
}

/// ASCII letters lower-cased, everything else as it is.
fn push_ascii_lower(s: &str, out: &mut String) {
    out.extend(s.chars().map(|c| c.to_ascii_lowercase()));
}

/// The value of an ASCII hex digit (`_hex_decode_table`).
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The byte of the escape `%XY` at `b[i]`, if `b[i..]` starts with one (`_unquote`).
fn escape_at(b: &[u8], i: usize) -> Option<u8> {
    if b.get(i) != Some(&b'%') {
        return None;
    }
    let hi = hex_value(*b.get(i + 1)?)?;
    let lo = hex_value(*b.get(i + 2)?)?;
    Some(hi << 4 | lo)
}

/// The most query pairs sorted without allocating.
const INLINE_PAIRS: usize = 32;

mod netloc;
mod path;
mod query;

//! The oracles of the linksieve fuzz targets. Each `fuzz_targets/*.rs` file is one line that
//! calls a function here; keeping the checks in a library lets them be read (and reused) in one
//! place. Every check panics with a message that names the property and the input.
//!
//! - [`parse`]: every input mode and both grammars; a strict parse serializes back to the input.
//! - [`convert`]: `to_uri` is idempotent, ASCII and a URI; `to_iri(to_uri(x))` maps back to the
//!   same URI up to hex case and unreserved escapes; every output parses.
//! - [`normalize`]: every rung and key form, with and without NFC and rules, in every input
//!   mode: idempotence, composition up the ladder, monotonicity on pairs, `uri` keys ASCII
//!   URIs, `from_surt` inverting `surt`, and `compare` agreeing with the keys.
//! - [`profile`]: every profile on arbitrary bytes: no panic, the output contract, text and
//!   bytes agreeing.
//! - [`scan`]: arbitrary bytes in eight encodings: the same hits and counters for two chunkings
//!   as for the whole input, hits in order inside the input, every hit an IRI, LEIRI or Web
//!   Address without U+FFFD.
//! - [`pipeline`] (feature `pipeline`): `linksieve run` gives the same output and counters
//!   with 1 and 2 threads and two chunk sizes.
//! - [`differential`] (feature `pipeline`): `linksieve run` writes the keys of the whole input
//!   scanned in one piece, each link keyed alone, first occurrence kept (not `run`'s code).

pub mod convert;
#[cfg(feature = "pipeline")]
pub mod differential;
pub mod normalize;
pub mod parse;
#[cfg(feature = "pipeline")]
pub mod pipeline;
pub mod profile;
pub mod scan;

/// The input as text: invalid UTF-8 becomes U+FFFD, so every input reaches the parsers.
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Splits `s` at the first line feed into two strings (the second empty when there is none).
pub fn split_pair(s: &str) -> (&str, &str) {
    s.split_once('\n').unwrap_or((s, ""))
}

/// Percent-encodings compared loosely: hex digits uppercased and encoded unreserved characters
/// decoded (RFC 3986 6.2.2.1 and 6.2.2.2), as in crates/iri/tests/properties.rs.
pub fn pct_norm(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            if v.is_ascii_alphanumeric() || b"-._~".contains(&v) {
                out.push(v as char);
            } else {
                out.push_str(&s[i..i + 3].to_ascii_uppercase());
            }
            i += 3;
        } else {
            let c = s[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

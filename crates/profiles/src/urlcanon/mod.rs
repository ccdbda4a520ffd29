//! The `urlcanon-semantic` and `urlcanon-aggressive` profiles: IIPC urlcanon 0.3.1's
//! `semantic_precise` and `aggressive` canonicalizers (Heritrix lineage), byte for byte:
//! the key is `str(urlcanon.semantic_precise(input))` / `str(urlcanon.aggressive(input))`.
//!
//! urlcanon reads bytes (a `str` is encoded as UTF-8 first), so the input is bytes. Its output
//! is always ASCII (every field goes through a %-encoding set that holds `\x7f-\xff`, and the
//! IDNA step writes ASCII), so `str()` never fails. The library raises on one input only: a
//! host that its IPv4 reading takes for a negative number (`http://-1/`), which is this
//! profile's one [`Reject`]. Every rule, and where each departs from RFC 3986 and the URL
//! Standard, is in `docs/profiles/urlcanon.md`.
//!
//! ```text
//! parse.rs  parse_url, parse_pathish, default_scheme_http
//! text.rs   tabs, repeated %-decoding, %-encoding, path dots and slashes
//! host.rs   reparse_host, normalize_ip_address, fix_host_dots, punycode_special_host
//! idn.rs    the IDNA of a non-ASCII host
//! rules.rs  the query rules and the rules aggressive adds
//! tables.rs code point tables generated from the Python it reproduces
//! ```

mod host;
mod idn;
mod parse;
mod rules;
mod tables;
mod text;

use super::Reject;
use std::borrow::Cow;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "urlcanon 0.3.1+1";

/// urlcanon `SPECIAL_SCHEMES`: the special schemes and their default ports.
const SPECIAL: [(&[u8], &[u8]); 7] = [
    (b"ftp", b"21"),
    (b"gopher", b"70"),
    (b"http", b"80"),
    (b"https", b"443"),
    (b"ws", b"80"),
    (b"wss", b"443"),
    (b"file", b""),
];

/// `scheme in urlcanon.SPECIAL_SCHEMES`.
fn is_special(scheme: &[u8]) -> bool {
    SPECIAL.iter().any(|(n, _)| *n == scheme)
}

/// `urlcanon.semantic_precise(input)`.
pub(super) fn semantic_precise(input: &[u8], out: &mut String) -> Result<(), Reject> {
    canonicalize(input, false, out)
}

/// `urlcanon.aggressive(input)`.
pub(super) fn aggressive(input: &[u8], out: &mut String) -> Result<(), Reject> {
    canonicalize(input, true, out)
}

/// Has a byte that `remove_tabs_and_newlines` keeps.
fn has_nontab(s: &[u8]) -> bool {
    s.iter().any(|b| !parse::is_tab(*b))
}

/// The steps of `semantic_precise` (canon.py), then those `semantic` and `aggressive` add.
fn canonicalize(input: &[u8], aggressive: bool, out: &mut String) -> Result<(), Reject> {
    // remove_leading_trailing_junk, default_scheme_http (with the parse).
    let u = parse::parse(input);
    // remove_tabs_and_newlines, lowercase_scheme.
    let scheme = text::lower(text::strip_tabs(u.scheme.unwrap_or_default()));
    let port = u.port.map(text::strip_tabs);
    // elide_default_port: compared before %-decoding (`http://h:%380/` keeps `:80`).
    let default = SPECIAL
        .iter()
        .find(|(n, _)| **n == *scheme)
        .map(|(_, p)| *p);
    let port = port.filter(|p| !(default.is_some_and(|d| !d.is_empty() && d == &p[..])));
    // clean_up_userinfo, two_slashes: `//` when there were slashes, an authority, or `file:`.
    let authority =
        has_nontab(u.username) || has_nontab(u.password) || has_nontab(u.host) || port.is_some();
    let slashes = has_nontab(u.slashes) || authority || *scheme == *b"file";
    // pct_decode_repeatedly_except_query (userinfo is decoded, then removed: skipped).
    let scheme = text::pct_decode(scheme);
    let host = text::pct_decode(text::strip_tabs(u.host));
    let port = port.map(text::pct_decode);
    let path = text::pct_decode(text::strip_tabs(u.path));
    let query = u.query.map(text::strip_tabs);
    let fragment = match aggressive {
        // semantic's remove_fragment comes later; nothing reads the fragment before it.
        true => None,
        false => u.fragment.map(|f| text::pct_decode(text::strip_tabs(f))),
    };
    let special = is_special(&scheme);
    // reparse_host, normalize_ip_address, fix_host_dots, punycode_special_host.
    let host = host::canonicalize(host, special)?;
    // remove_userinfo; less_dumb_pct_encode of the path (the other fields are encoded as
    // they are written out); less_dumb_pct_recode_query.
    let mut path = text::pct_encode(path, text::path_set);
    let query = query.map(rules::recode);
    if special {
        // fix_backslashes, leading_slash.
        path = text::backslashes_to_slashes(path);
        if !path.starts_with(b"/") {
            let mut v = Vec::with_capacity(path.len() + 1);
            v.push(b'/');
            v.extend_from_slice(&path);
            path = Cow::Owned(v);
        }
    }
    // normalize_path_dots, collapse_consecutive_slashes (empty_path_to_slash never applies:
    // leading_slash has given every special path a `/`).
    path = text::resolve_dots(path, special);
    if special {
        path = text::collapse_slashes(path);
    }
    // alpha_reorder_query.
    let mut query = query.map(rules::sort);
    let mut scheme = text::pct_encode(scheme, text::google_set);
    let mut host = host;
    if aggressive {
        // https_to_http, strip_www (the `www\d*.` prefix is the same encoded or not),
        // lowercase_path, lowercase_query, the session ids, strip_trailing_slash_unless_empty,
        // remove_redundant_ampersands_from_query, omit_question_mark_if_query_empty, and
        // alpha_reorder_query again (after lower-casing).
        if *scheme == *b"https" {
            scheme = Cow::Borrowed(b"http");
        }
        host = rules::strip_www(host);
        path = rules::strip_path_session_ids(text::lower(path));
        if path.len() > 1 && path.ends_with(b"/") {
            let n = path.len() - 1;
            path = rules::truncate(path, n);
        }
        query = query
            .map(|q| rules::drop_empty_parts(rules::strip_query_session_ids(text::lower(q))))
            .filter(|q| !q.is_empty())
            .map(rules::sort);
    }
    write(
        out,
        &scheme,
        slashes,
        &host,
        port.as_deref(),
        &path,
        query.as_deref(),
        fragment.as_deref(),
    );
    Ok(())
}

/// `bytes(url)`, as `str()` reads it: the scheme (already encoded), `:`, the slashes, the host
/// and port (`GOOGLE_PCT_ENCODE_RE`), the path and query (already encoded), the fragment
/// (`GOOGLE_PCT_ENCODE_RE`).
#[allow(clippy::too_many_arguments)]
fn write(
    out: &mut String,
    scheme: &[u8],
    slashes: bool,
    host: &[u8],
    port: Option<&[u8]>,
    path: &[u8],
    query: Option<&[u8]>,
    fragment: Option<&[u8]>,
) {
    text::push_ascii(out, scheme);
    out.push(':');
    if slashes {
        out.push_str("//");
    }
    text::push_encoded(out, host, text::google_set);
    if let Some(p) = port {
        out.push(':');
        text::push_encoded(out, p, text::google_set);
    }
    text::push_ascii(out, path);
    if let Some(q) = query {
        out.push('?');
        text::push_ascii(out, q);
    }
    if let Some(f) = fragment {
        out.push('#');
        text::push_encoded(out, f, text::google_set);
    }
}

#[cfg(test)]
mod tests;

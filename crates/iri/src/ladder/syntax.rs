//! The syntax rung (CMP 4.2; RFC 3986 6.2.2; RFC 3987 5.3.2).

use super::pct;
use crate::convert::decode_component;
use crate::parse::{Component, IriRef, Parts};
use crate::resolve::{dot_kind, remove_dot_segments};
use std::convert::Infallible;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// The syntax-rung key (URI form) of `iri`.
///
/// 1. With `nfc`: the reference in IRI form (3987bis 3.7 decoding) is put in NFC (CMP 4.2.2),
///    piece by piece between delimiters, see [`nfc_component`].
/// 2. CMP 4.2.3: mapped to the URI form (3987bis 3.3) so that `ros%C3%A9` and `rosé` agree, with
///    uppercase hex (4.2.1) and unreserved characters decoded.
/// 3. CMP 4.2.1: scheme and US-ASCII-only hosts lowercased (IP literals included).
/// 4. CMP 4.2.4: dot segments removed (RFC 3986 5.2.4, `%2E` forms included, since `%2E` is
///    `.`). For a reference with a scheme, an authority or an absolute path, because RFC 3986
///    5.2.2 applies remove_dot_segments to such a path whatever the base. A relative-path
///    reference's dot segments apply to the base path (`../x` != `x`): it loses only those
///    that no base can tell from their removal, see [`relative_dot_segments`].
///
/// Userinfo, path, query and fragment keep their case; an empty query (`?`), an empty port
/// and the fragment are kept (CMP 4.3: delimiters of empty components are significant unless a
/// scheme says otherwise).
pub(super) fn normalize(iri: IriRef<&str>, nfc: bool) -> IriRef<String> {
    if nfc {
        let pre = nfc_form(iri);
        return build(pre.as_ref());
    }
    build(iri)
}

fn build(iri: IriRef<&str>) -> IriRef<String> {
    let lower_scheme: String;
    let mut parts = Parts::of(&iri);
    if let Some(s) = parts.scheme
        && s.bytes().any(|b| b.is_ascii_uppercase())
    {
        lower_scheme = s.to_ascii_lowercase();
        parts.scheme = Some(&lower_scheme);
    }
    let relative = parts.scheme.is_none() && parts.host.is_none() && !parts.path.starts_with('/');
    let mut tmp = String::new();
    let built: Result<_, Infallible> = parts.build(|out, c, text| {
        match c {
            Component::Host if text.starts_with('[') => {
                // IP-literal: hex digits and IPvFuture are case-insensitive (RFC 3986 3.2.2).
                out.push_str(&text.to_ascii_lowercase());
            }
            Component::Host => pct::push_normal(out, text, pct::ascii_only_host(text)),
            Component::Port => out.push_str(text),
            Component::Path if may_have_dots(text) => {
                tmp.clear();
                pct::push_normal(&mut tmp, text, false);
                if relative {
                    relative_dot_segments(out, &tmp);
                } else {
                    remove_dot_segments(out, &tmp);
                }
            }
            _ => pct::push_normal(out, text, false),
        }
        Ok(())
    });
    built.unwrap_or_else(|e| match e {})
}

/// The dot segments of a relative-path reference's path `path` (not empty, not starting with
/// `/`) that can go without changing its target against any base, appending the result to
/// `out`.
///
/// RFC 3986 5.2.2 resolves such a reference to `remove_dot_segments(merge(base, path))`. With a
/// base whose path holds a `/`, the merge puts the base's directory `D/` before `path`, and a
/// path with dot segments names the same target as the one [`remove_dot_segments`] would make
/// of it with the leading `..` segments kept. But 5.2.3 merges a base without a `/` in its path
/// (`urn:a`, `mailto:x`, `foo:`) to `path` alone, and 5.2.4 then turns `abc/..` into `/` and
/// `../abc/../d` into `/d`, while `./` stays empty and `../d` becomes `d`. So only these go:
/// - a `.` segment (`a/./b` is `a/b`, `def/.` is `def/`, `./def` is `def`): 5.2.4 drops it in
///   both cases; `./` stays in front of a first segment that is empty or holds a `:` (RFC 3986
///   4.2), and `.` alone is `./` (an empty reference would be the base itself);
/// - a segment with the `..` after it, unless it is the first segment that is not `..`
///   (`a/b/../c` is `a/c`; `a/..`, `../a/../b` keep theirs);
/// - a final `.` or `..` ends the path with `/` (`a/b/..` is `a/`, `..` is `../`).
///
/// Linear time: each segment is pushed once and popped at most once.
fn relative_dot_segments(out: &mut String, path: &str) {
    let mut kept: Vec<&str> = Vec::new();
    // `kept[..fixed]`: the leading `..` segments and the first other one, never removed
    let (mut fixed, mut other_seen, mut last_dot) = (0, false, false);
    for seg in path.split('/') {
        let kind = dot_kind(seg.as_bytes());
        last_dot = kind != 0;
        match kind {
            1 => {}
            2 if kept.len() > fixed && kept.last() != Some(&"..") => {
                kept.pop();
            }
            _ => {
                kept.push(if kind == 2 { ".." } else { seg });
                if !other_seen {
                    fixed = kept.len();
                    other_seen = kind == 0;
                }
            }
        }
    }
    if last_dot {
        kept.push("");
    }
    if kept
        .first()
        .is_some_and(|s| s.is_empty() || s.contains(':'))
    {
        out.push_str("./");
    }
    for (i, seg) in kept.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(seg);
    }
}

/// True when the path may hold a dot segment (`.` or `%2E` in any case).
fn may_have_dots(path: &str) -> bool {
    memchr::memchr(b'.', path.as_bytes()).is_some()
        || memchr::memmem::find(path.as_bytes(), b"%2").is_some()
}

/// The reference in IRI form (3987bis 3.7 steps 1-5 on every component but the port and IP
/// literals) with each component in NFC per [`nfc_component`].
fn nfc_form(iri: IriRef<&str>) -> IriRef<String> {
    let mut dec = String::new();
    let built: Result<_, Infallible> = Parts::of(&iri).build(|out, c, text| {
        match c {
            Component::Port => out.push_str(text),
            Component::Host if text.starts_with('[') => out.push_str(text),
            _ => {
                dec.clear();
                decode_component(&mut dec, text, c == Component::Query);
                nfc_component(out, &dec);
            }
        }
        Ok(())
    });
    built.unwrap_or_else(|e| match e {})
}

/// NFC (CMP 4.2.2) of a component in IRI form, applied to each piece between "boundaries": the
/// ASCII characters that are not unreserved (delimiters, `%`), the hex digits of a `%HH`, and
/// the characters whose canonical decomposition holds such ASCII (U+037E GREEK QUESTION MARK is
/// canonically `;`, U+1FEF is `` ` ``), which are kept as they are. So NFC never joins a
/// delimiter with a combining mark (`=` + U+0338 would become U+2260), never changes an encoded
/// octet, and never creates a delimiter or a character that IRIs do not allow. Boundaries
/// neither compose nor reorder with their neighbours, so the pieces give the NFC of the whole
/// text otherwise, and the same pieces whether characters arrive raw or percent-encoded.
fn nfc_component(out: &mut String, text: &str) {
    let b = text.as_bytes();
    let mut piece = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let boundary_len = if c < 0x80 {
            if pct::is_unreserved(c) {
                0
            } else if c == b'%' && pct::pct_at(b, i).is_some() {
                3
            } else {
                1
            }
        } else {
            let ch = text[i..].chars().next().unwrap_or('\0');
            if decomposes_to_delimiter(ch) {
                ch.len_utf8()
            } else {
                i += ch.len_utf8();
                continue;
            }
        };
        if boundary_len == 0 {
            i += 1;
            continue;
        }
        nfc_piece(out, &text[piece..i]);
        out.push_str(&text[i..i + boundary_len]);
        i += boundary_len;
        piece = i;
    }
    nfc_piece(out, &text[piece..]);
}

/// True when the canonical decomposition of `c` holds ASCII other than unreserved characters.
fn decomposes_to_delimiter(c: char) -> bool {
    let mut found = false;
    unicode_normalization::char::decompose_canonical(c, |d| {
        found |= d.is_ascii() && !pct::is_unreserved(d as u8);
    });
    found
}

fn nfc_piece(out: &mut String, piece: &str) {
    if piece.is_ascii() || is_nfc_quick(piece.chars()) == IsNormalized::Yes {
        out.push_str(piece);
    } else {
        out.extend(piece.nfc());
    }
}

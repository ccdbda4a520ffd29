//! The path: `_safe_url_split` quotes it with `_PATH_SAFEST_CHARS`, then `canonicalize_url`
//! step 2 unquotes it (`_unquotepath`, which keeps `%25`, `%2F`, `%3B` and `%3F`) and quotes
//! it again with `_PATH_SAFE_CHARS`, and step 3 resolves its dot segments.

use super::{PATH_SAFE, escape_at, push_ascii, push_pct};

/// Appends the path's bytes after the three quoting steps, in one pass.
///
/// The first quoting only escapes bytes that the last one escapes too or that the unquoting
/// turns back (`[`, `]`, `|`), and a `%` starts an escape after it exactly where it starts one
/// before, so the composition reads each byte of the input once: an escape of `%`, `/`, `;` or
/// `?` stays an escape (with upper-case hex), another escape is decoded, and every byte is then
/// kept if `_PATH_SAFE_CHARS` holds it and escaped otherwise.
pub(super) fn push(b: &[u8], out: &mut String) {
    let mut i = 0;
    while i < b.len() {
        let plain = b[i..]
            .iter()
            .take_while(|&&c| c != b'%' && PATH_SAFE[usize::from(c)])
            .count();
        if plain > 0 {
            push_ascii(&b[i..i + plain], out);
            i += plain;
            continue;
        }
        let (c, n) = match escape_at(b, i) {
            Some(c @ (b'%' | b'/' | b';' | b'?')) => {
                // _unquotepath: "%25", "%2f", "%2F", "%3b", "%3B", "%3f", "%3F" stay escapes.
                push_pct(c, out);
                i += 3;
                continue;
            }
            Some(c) => (c, 3),
            None => (b[i], 1),
        };
        if PATH_SAFE[usize::from(c)] {
            out.push(char::from(c));
        } else {
            push_pct(c, out);
        }
        i += n;
    }
}

/// Whether a path (that starts with `/`) has a `.` or `..` segment.
pub(super) fn has_dot_segment(path: &str) -> bool {
    path.contains("/.") && path[1..].split('/').any(|s| s == "." || s == "..")
}

/// w3lib 2.5.0 url.py `_remove_dot_segments` (RFC 3986 5.2.4 on the segments): `..` drops
/// the segment before it (none at the root), `.` is dropped, and a path that ends with a dot
/// segment ends with `/`.
pub(super) fn remove_dot_segments(path: &str) -> String {
    let segments: Vec<&str> = path[1..].split('/').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(segments.len());
    let (last, init) = segments.split_last().unwrap_or((&"", &[]));
    for &s in init {
        match s {
            ".." => {
                kept.pop();
            }
            "." => {}
            _ => kept.push(s),
        }
    }
    match *last {
        ".." => {
            kept.pop();
            kept.push("");
        }
        "." => kept.push(""),
        s => kept.push(s),
    }
    let mut out = String::with_capacity(path.len());
    for s in kept {
        out.push('/');
        out.push_str(s);
    }
    out
}

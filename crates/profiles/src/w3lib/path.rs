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
    memchr::memmem::find(path.as_bytes(), b"/.").is_some()
        && path[1..].split('/').any(|s| s == "." || s == "..")
}

/// w3lib 2.5.0 url.py `_remove_dot_segments` (RFC 3986 5.2.4 on the segments) of `path`
/// (which starts with `/`), appended to `out`: `..` drops the segment before it (none at the
/// root), `.` is dropped, and a path that ends with a dot segment ends with `/`. A kept
/// segment is `/` and its text in `out`, so dropping one cuts `out` at its last `/`.
pub(super) fn push_without_dot_segments(path: &str, out: &mut String) {
    let base = out.len();
    let mut segments = path[1..].split('/').peekable();
    while let Some(s) = segments.next() {
        let last = segments.peek().is_none();
        match s {
            ".." => {
                let cut = out[base..].rfind('/').map_or(base, |i| base + i);
                out.truncate(cut);
                if last {
                    out.push('/');
                }
            }
            "." => {
                if last {
                    out.push('/');
                }
            }
            s => {
                out.push('/');
                out.push_str(s);
            }
        }
    }
}

//! The path: `_safe_url_split` quotes it with `_PATH_SAFEST_CHARS`, then `canonicalize_url`
//! step 2 unquotes it (`_unquotepath`, which keeps `%25`, `%2F`, `%3B` and `%3F`) and quotes
//! it again with `_PATH_SAFE_CHARS`, and step 3 resolves its dot segments.

use super::{PATH_SAFE, escape_at, push_pct};

/// Appends the path's bytes after the three quoting steps, in one pass.
///
/// The first quoting only escapes bytes that the last one escapes too or that the unquoting
/// turns back (`[`, `]`, `|`), and a `%` starts an escape after it exactly where it starts one
/// before, so the composition reads each byte of the input once: an escape of `%`, `/`, `;` or
/// `?` stays an escape (with upper-case hex), another escape is decoded, and every byte is then
/// kept if `_PATH_SAFE_CHARS` holds it and escaped otherwise.
pub(super) fn push(path: &str, out: &mut String) {
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let plain = b[i..]
            .iter()
            .take_while(|&&c| c != b'%' && PATH_SAFE[usize::from(c)])
            .count();
        if plain > 0 {
            // ASCII bytes, after an ASCII byte or at the start, before one or a lead byte:
            // character boundaries
            out.push_str(path.get(i..i + plain).unwrap_or_default());
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
    // a segment is "." or "..": a "/." followed by the end, "/", or "." and then the end or "/"
    let b = path.as_bytes();
    memchr::memchr_iter(b'.', b).any(|i| {
        i > 0
            && b[i - 1] == b'/'
            && matches!(&b[i + 1..], [] | [b'/', ..] | [b'.'] | [b'.', b'/', ..])
    })
}

/// w3lib 2.5.0 url.py `_remove_dot_segments` (RFC 3986 5.2.4 on the segments) on the path
/// written at `out[at..]` (which starts with `/`), in place: `..` drops the segment before it
/// (none at the root), `.` is dropped, and a path that ends with a dot segment ends with `/`.
/// A segment is its `/` and its text, so dropping one removes that range of `out`.
pub(super) fn remove_dot_segments(at: usize, out: &mut String) {
    // `r`: where the segment being read starts (its "/"); those before it are kept
    let mut r = at;
    while r < out.len() {
        let end = memchr::memchr(b'/', &out.as_bytes()[r + 1..]).map_or(out.len(), |k| r + 1 + k);
        let last = end == out.len();
        match &out[r + 1..end] {
            "." if last => out.truncate(r + 1),
            "." => out.replace_range(r..end, ""),
            ".." => {
                // the kept segment before it, if any, goes too
                let start = memchr::memrchr(b'/', &out.as_bytes()[at..r]).map_or(r, |k| at + k);
                if last {
                    out.truncate(start);
                    out.push('/');
                } else {
                    out.replace_range(start..end, "");
                }
                r = start;
            }
            _ => r = end,
        }
        if last {
            return;
        }
    }
}

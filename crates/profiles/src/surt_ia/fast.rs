//! The fast path of `surt-ia`: the common shape of URL, keyed in one pass with no allocation
//! but the query's. It takes an `http://` or `https://` URL of printable ASCII without `%`, whose
//! authority is a host (no user information, no brackets, not all digits and dots, no empty
//! label) and perhaps a port of digits, and whose path has no `.` or `..` segment and no `(`.
//! On such a URL every step of the full path is either a no-op (trimming, tab removal, the
//! decoding and encoding, IDNA, dot collapsing, `attemptIPFormats`, the path session ids) or one
//! that is done here directly: lower-casing, `www\d*.`, the default port, `normalizePath`
//! (which on such a path only merges runs of `/`), the trailing `/`, the query rules (by the
//! full path's own functions), and the SURT writing. Anything else is left to the full path
//! (`false`, `out` untouched); `tests.rs` checks that the two agree.

use super::session::strip_query_session_id;
use super::{ProfileOptions, alpha_reorder_query};
use std::fmt::Write as _;

/// Whether a byte may stand in the URL on the fast path: printable ASCII, not `%`.
#[inline]
fn plain(b: u8) -> bool {
    b.wrapping_sub(0x21) < 0x5E && b != b'%'
}

/// The bytes that end the host on the fast path (or send the URL the long way).
const HOST_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = b"@[]:/?#";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether `f` holds of some two bytes in a row of `s` (branch-free, so that it vectorizes).
#[inline]
fn pairs(s: &[u8], f: impl Fn(u8, u8) -> bool) -> bool {
    let next = s.get(1..).unwrap_or_default();
    s.iter()
        .zip(next)
        .fold(false, |any, (&a, &c)| any | f(a, c))
}

/// The SURT key of `input` appended to `out`, if `input` has the fast path's shape.
pub(super) fn canonicalize(input: &str, o: &ProfileOptions, out: &mut String) -> bool {
    let len = out.len();
    let done = key(input, o, out).is_some();
    if !done {
        out.truncate(len);
    }
    done
}

fn key(url: &str, o: &ProfileOptions, out: &mut String) -> Option<()> {
    // Branch-free scans, so that they vectorize: the bytes, and whether `#` or `?` occur.
    let (mut bad, mut hash, mut quest) = (false, false, false);
    for &c in url.as_bytes() {
        bad |= !plain(c);
        hash |= c == b'#';
        quest |= c == b'?';
    }
    if bad {
        return None;
    }
    // Printable ASCII: every index is a char boundary.
    let (scheme, rest) = if let Some(r) = url.strip_prefix("http://") {
        ("http", r)
    } else if let Some(r) = url.strip_prefix("https://") {
        ("https", r)
    } else {
        return None;
    };
    // `^(https?://)+` keeps its last repetition: leave those to the full path.
    if rest.starts_with("http://") || rest.starts_with("https://") {
        return None;
    }
    let rest = match hash {
        true => &rest[..memchr::memchr(b'#', rest.as_bytes()).unwrap_or(rest.len())],
        false => rest,
    };
    let b = rest.as_bytes();
    // The host: no empty label (so no `..`, no dot at either end), not digits and dots only.
    let host_end = b
        .iter()
        .position(|&c| HOST_STOP[usize::from(c)])
        .unwrap_or(b.len());
    let hb = &b[..host_end];
    let after_dot = hb.first().is_none_or(|&c| c == b'.')
        || hb.last() == Some(&b'.')
        || pairs(hb, |a, c| a == b'.' && c == b'.');
    let ipish = hb.iter().all(|&c| c.is_ascii_digit() || c == b'.');
    if after_dot || ipish {
        return None;
    }
    let mut netloc_end = host_end;
    let mut port = None;
    if b.get(host_end) == Some(&b':') {
        netloc_end = host_end + 1;
        let mut v = 0u32;
        while let Some(&d) = b.get(netloc_end).filter(|d| d.is_ascii_digit()) {
            v = v * 10 + u32::from(d - b'0');
            if v > 65535 {
                return None;
            }
            netloc_end += 1;
        }
        if netloc_end == host_end + 1 {
            return None;
        }
        port = Some(v as u16).filter(|&p| p != 0);
    }
    if !matches!(b.get(netloc_end), None | Some(b'/' | b'?')) {
        return None;
    }
    let mut host = &rest[..host_end];
    let hb = host.as_bytes();
    if o.host_massage && hb.len() > 3 && hb[..3].eq_ignore_ascii_case(b"www") {
        let d = hb[3..].iter().take_while(|c| c.is_ascii_digit()).count();
        if hb.get(3 + d) == Some(&b'.') {
            host = &host[4 + d..];
        }
    }
    let default_port = if scheme == "http" { 80 } else { 443 };
    let port = port.filter(|&p| p != default_port);
    let start = out.len();
    if o.with_scheme {
        out.push_str(scheme);
        out.push_str("://(");
    }
    // hostToSURT: the labels reversed, joined by commas.
    let mut end = host.len();
    for (j, &c) in host.as_bytes().iter().enumerate().rev() {
        if c == b'.' {
            out.push_str(&host[j + 1..end]);
            out.push(',');
            end = j;
        }
    }
    out.push_str(&host[..end]);
    if let Some(p) = port {
        let _ = write!(out, ":{p}");
    }
    if o.trailing_comma {
        out.push(',');
    }
    out.push(')');
    out[start..].make_ascii_lowercase();
    let at_q = match quest {
        true => memchr::memchr(b'?', &b[netloc_end..]),
        false => None,
    };
    let (path, query) = match at_q {
        Some(q) => (
            &rest[netloc_end..netloc_end + q],
            Some(&rest[netloc_end + q + 1..]),
        ),
        None => (&rest[netloc_end..], None),
    };
    write_path(path, out)?;
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        let mut q = q.as_bytes().to_vec();
        // Every session id the rules remove has an `id` in its name.
        if q.windows(2).any(|w| w.eq_ignore_ascii_case(b"id")) {
            strip_query_session_id(&mut q);
        }
        q.make_ascii_lowercase();
        let q = alpha_reorder_query(q);
        if !q.is_empty() {
            out.push('?');
            out.push_str(std::str::from_utf8(&q).ok()?);
        }
    }
    Some(())
}

/// `normalizePath` (runs of `/` merged, `/` for none: with no `.` or `..` segment, empty
/// segments are all it drops), lower-cased, one trailing `/` dropped unless the path is `/`.
/// `None` (with `out` part-written) for a path with a `.` or `..` segment or a `(`.
fn write_path(path: &str, out: &mut String) -> Option<()> {
    let start = out.len();
    out.push('/');
    let pb = path.as_bytes();
    if pb.len() > 1 {
        // `//`, `/.` or `(` send it the long way; most paths have none.
        let odd = pairs(pb, |a, c| {
            (a == b'/') & ((c == b'/') | (c == b'.')) | (c == b'(')
        });
        if !odd {
            out.push_str(&path[1..]);
        } else {
            if memchr::memchr(b'(', pb).is_some() {
                return None;
            }
            // The path starts with `/`; its first segment is the empty one before it.
            let mut s = 1;
            loop {
                let e = pb[s..]
                    .iter()
                    .position(|&c| c == b'/')
                    .map_or(pb.len(), |k| s + k);
                match &pb[s..e] {
                    b"" => {}
                    b"." | b".." => return None,
                    _ => {
                        out.push_str(&path[s..e]);
                        out.push('/');
                    }
                }
                if e == pb.len() {
                    break;
                }
                s = e + 1;
            }
            // `/` and the non-empty segments, each with a `/` after it: the last `/` goes.
            if out.len() > start + 1 {
                out.pop();
            }
        }
        // One trailing `/` goes, unless the path is `/`.
        if out.len() > start + 1 && out.ends_with('/') {
            out.pop();
        }
        out[start..].make_ascii_lowercase();
    }
    Some(())
}

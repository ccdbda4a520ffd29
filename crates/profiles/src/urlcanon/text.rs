//! The byte-string rules of urlcanon 0.3.1 `canon.py` that several fields share: tab removal,
//! repeated %-decoding, %-encoding by a byte set, the path's dot segments and slashes.
//!
//! Each takes and returns a [`Bytes`]: a field that a rule leaves alone stays borrowed, so an
//! input that is already canonical is never copied.

use super::parse::is_tab;
use std::borrow::Cow;

/// A field: borrowed from the input until a rule changes it.
pub(super) type Bytes<'a> = Cow<'a, [u8]>;

/// `Some(rule(s))` where `rule` changes `s`, as a new owned field.
fn apply<'a>(s: Bytes<'a>, rule: impl FnOnce(&[u8]) -> Option<Vec<u8>>) -> Bytes<'a> {
    match rule(&s) {
        Some(v) => Cow::Owned(v),
        None => s,
    }
}

/// canon.py `remove_tabs_and_newlines`: `TAB_AND_NEWLINE_REGEX.sub(b'', field)`.
pub(super) fn strip_tabs(s: &[u8]) -> Bytes<'_> {
    if s.iter().any(|b| is_tab(*b)) {
        Cow::Owned(s.iter().copied().filter(|b| !is_tab(*b)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// `bytes.lower()`: ASCII only (canon.py `lowercase_scheme`, `lowercase_path`,
/// `lowercase_query`).
pub(super) fn lower(s: Bytes<'_>) -> Bytes<'_> {
    apply(s, |s| {
        s.iter()
            .any(u8::is_ascii_uppercase)
            .then(|| s.to_ascii_lowercase())
    })
}

/// The value of an ASCII hex digit (urllib's `_hexdig`: `0-9A-Fa-f`).
const fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Whether `s[i..]` starts with `%HH`.
fn escape_at(s: &[u8], i: usize) -> Option<u8> {
    match s.get(i..i + 3)? {
        [b'%', h, l] => Some(hex(*h)? << 4 | hex(*l)?),
        _ => None,
    }
}

/// Whether `s` holds a `%HH` anywhere.
fn has_escape(s: &[u8]) -> bool {
    memchr::memchr_iter(b'%', s).any(|i| escape_at(s, i).is_some())
}

/// canon.py `pct_decode_token_repeatedly`: `urllib.parse.unquote_to_bytes` until nothing
/// changes, appended to `out`.
///
/// Each pass decodes every `%HH` left to right without looking at what it produced; the
/// passes stop when one changes nothing. A `%HH` rewrite never overlaps another and only
/// shortens the text, so every order of rewrites reaches the same end: this decodes in one
/// pass, rewriting the end of `out` again whenever a decoded byte completes a new `%HH`
/// (`%2541` gives `%41`, then `A`; `%%341` gives `%4` and then `A`, as the passes do).
pub(super) fn pct_decode_into(s: &[u8], out: &mut Vec<u8>) {
    let base = out.len();
    for &b in s {
        out.push(b);
        while out.len() >= base + 3 {
            match escape_at(out, out.len() - 3) {
                Some(d) => {
                    out.truncate(out.len() - 3);
                    out.push(d);
                }
                None => break,
            }
        }
    }
}

/// [`pct_decode_into`] of a field, borrowed when it has no `%HH`.
pub(super) fn pct_decode(s: Bytes<'_>) -> Bytes<'_> {
    apply(s, |s| {
        has_escape(s).then(|| {
            let mut v = Vec::with_capacity(s.len());
            pct_decode_into(s, &mut v);
            v
        })
    })
}

/// canon.py `GOOGLE_PCT_ENCODE_RE` (`[\x00-\x20\x7f-\xff#%]`): the set `less_dumb_pct_encode`
/// uses for the scheme, the host, the port and the fragment.
pub(super) const fn google_set(b: u8) -> bool {
    b <= 0x20 || b >= 0x7f || b == b'#' || b == b'%'
}

/// canon.py `LESS_DUMB_PATH_ENCODE_RE` (`[\x00-\x20\x7f-\xff#%?]`).
pub(super) const fn path_set(b: u8) -> bool {
    google_set(b) || b == b'?'
}

/// canon.py `LESS_DUMB_QUERY_ENCODE_RE` (`[\x00-\x20\x7f-\xff#%&=]`).
pub(super) const fn query_set(b: u8) -> bool {
    google_set(b) || b == b'&' || b == b'='
}

/// Upper-case hex digits, as `'%%%02X'` writes them.
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// canon.py `pct_encode`: each byte of `s` in `set` as `%HH`, appended to `out`.
pub(super) fn pct_encode_into(s: &[u8], set: impl Fn(u8) -> bool, out: &mut Vec<u8>) {
    for &b in s {
        if set(b) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        } else {
            out.push(b);
        }
    }
}

/// canon.py `pct_encode` of a field, borrowed when no byte is in `set`.
pub(super) fn pct_encode(s: Bytes<'_>, set: impl Fn(u8) -> bool + Copy) -> Bytes<'_> {
    apply(s, |s| {
        s.iter().any(|b| set(*b)).then(|| {
            let mut v = Vec::with_capacity(s.len() + 8);
            pct_encode_into(s, set, &mut v);
            v
        })
    })
}

/// Appends `s`, which the encoding rules have made ASCII, to `out`. Every field the profiles
/// write has been through a set that holds `\x7f-\xff` (or is made of ASCII by construction),
/// so `str()` of urlcanon's bytes never fails; a non-ASCII byte here would be a bug, and is
/// written as U+FFFD rather than panicking.
pub(super) fn push_ascii(out: &mut String, s: &[u8]) {
    match std::str::from_utf8(s) {
        Ok(t) => out.push_str(t),
        Err(_) => out.push_str(&String::from_utf8_lossy(s)),
    }
}

/// Appends `s` to `out`, each byte in `set` as `%HH` (the set holds `\x7f-\xff`), the runs
/// between them as they are.
pub(super) fn push_encoded(out: &mut String, s: &[u8], set: impl Fn(u8) -> bool) {
    let mut run = 0;
    for (i, &b) in s.iter().enumerate() {
        if set(b) || !b.is_ascii() {
            push_ascii(out, &s[run..i]);
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
            run = i + 1;
        }
    }
    push_ascii(out, &s[run..]);
}

/// canon.py `fix_backslashes` (special schemes): `path.replace(b'\\', b'/')`.
pub(super) fn backslashes_to_slashes(s: Bytes<'_>) -> Bytes<'_> {
    apply(s, |s| {
        s.contains(&b'\\').then(|| {
            s.iter()
                .map(|&b| if b == b'\\' { b'/' } else { b })
                .collect()
        })
    })
}

/// canon.py `PATH_DOTS_REGEX` (`\A([.]|%2e)([.]|%2e)?\Z`, case-insensitive): `Some(true)`
/// for `..`, `Some(false)` for `.`.
fn dots(seg: &[u8]) -> Option<bool> {
    let unit = |s: &[u8]| -> Option<usize> {
        if s.first() == Some(&b'.') {
            Some(1)
        } else if s.len() >= 3 && s[0] == b'%' && s[1] == b'2' && s[2].eq_ignore_ascii_case(&b'e') {
            Some(3)
        } else {
            None
        }
    };
    let n = unit(seg)?;
    if n == seg.len() {
        return Some(false);
    }
    let m = unit(&seg[n..])?;
    (n + m == seg.len()).then_some(true)
}

/// canon.py `resolve_path_dots`: a path that starts with a separator (`/`, or `\` too for a
/// special scheme) is read as separator, segment, separator, segment...; a `.` segment is
/// dropped with the separator after it, a `..` segment also drops the two elements before it
/// (while more than one is left). Unlike RFC 3986 5.2.4 the separator after a dot segment is
/// dropped even when the segment is last, and empty segments count as elements.
pub(super) fn resolve_dots(s: Bytes<'_>, special: bool) -> Bytes<'_> {
    let is_sep = |b: u8| b == b'/' || (special && b == b'\\');
    if !s.first().is_some_and(|b| is_sep(*b))
        || !s[1..].split(|b| is_sep(*b)).any(|seg| dots(seg).is_some())
    {
        return s;
    }
    let b: &[u8] = &s;
    let mut out = Vec::with_capacity(b.len());
    // The start of each element of `new_path` in `out`.
    let mut starts: Vec<usize> = Vec::new();
    let mut skip_sep = false;
    let mut pos = 0;
    for seg in b[1..].split(|c| is_sep(*c)) {
        let sep = b[pos];
        pos += 1 + seg.len();
        if skip_sep {
            skip_sep = false;
        } else {
            starts.push(out.len());
            out.push(sep);
        }
        match dots(seg) {
            Some(two) => {
                if two {
                    for _ in 0..2 {
                        if starts.len() > 1
                            && let Some(at) = starts.pop()
                        {
                            out.truncate(at);
                        }
                    }
                }
                skip_sep = true;
            }
            None => {
                starts.push(out.len());
                out.extend_from_slice(seg);
            }
        }
    }
    Cow::Owned(out)
}

/// canon.py `collapse_consecutive_slashes` (special schemes): `re.sub(b'//+', b'/', path)`.
pub(super) fn collapse_slashes(s: Bytes<'_>) -> Bytes<'_> {
    apply(s, |s| {
        memchr::memmem::find(s, b"//").map(|_| {
            let mut v = Vec::with_capacity(s.len());
            for &b in s {
                if !(b == b'/' && v.last() == Some(&b'/')) {
                    v.push(b);
                }
            }
            v
        })
    })
}

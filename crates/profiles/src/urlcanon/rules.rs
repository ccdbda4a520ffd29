//! The query rules of urlcanon 0.3.1 `canon.py` (`less_dumb_pct_recode_query`,
//! `alpha_reorder_query`) and the rules only `aggressive` adds (`strip_www`, the session-id
//! regular expressions, `strip_trailing_slash_unless_empty`,
//! `remove_redundant_ampersands_from_query`), hand-written from its regular expressions.

use super::text::{self, Bytes};
use std::borrow::Cow;

/// canon.py `less_dumb_pct_recode_query`: each `&`-part split at its first `=`, each side
/// %-decoded repeatedly and re-encoded with `LESS_DUMB_QUERY_ENCODE_RE` (so a decoded or second
/// `=`, a decoded `&`, and every `%` become escapes).
pub(super) fn recode(q: Bytes<'_>) -> Bytes<'_> {
    let clean = !q.iter().any(|b| text::google_set(*b))
        && q.split(|b| *b == b'&')
            .all(|part| part.iter().filter(|b| **b == b'=').count() < 2);
    if clean {
        return q;
    }
    let mut out = Vec::with_capacity(q.len() + 8);
    let mut scratch = Vec::new();
    let mut token = |t: &[u8], out: &mut Vec<u8>| {
        scratch.clear();
        text::pct_decode_into(t, &mut scratch);
        text::pct_encode_into(&scratch, text::query_set, out);
    };
    for (i, part) in q.split(|b| *b == b'&').enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        match memchr::memchr(b'=', part) {
            Some(e) => {
                token(&part[..e], &mut out);
                out.push(b'=');
                token(&part[e + 1..], &mut out);
            }
            None => token(part, &mut out),
        }
    }
    Cow::Owned(out)
}

/// canon.py `alpha_reorder_query`: the `&`-parts sorted bytewise.
pub(super) fn sort(q: Bytes<'_>) -> Bytes<'_> {
    let mut parts = q.split(|b| *b == b'&');
    let mut prev = parts.next().unwrap_or_default();
    let sorted = parts.all(|p| {
        let ok = prev <= p;
        prev = p;
        ok
    });
    if sorted {
        return q;
    }
    let mut parts: Vec<&[u8]> = q.split(|b| *b == b'&').collect();
    parts.sort_unstable();
    Cow::Owned(parts.join(&b'&'))
}

/// canon.py `remove_redundant_ampersands_from_query` (`^&+|&+$|(?<=&)&+` removed): the
/// non-empty `&`-parts, joined by single `&`s.
pub(super) fn drop_empty_parts(q: Bytes<'_>) -> Bytes<'_> {
    let clean =
        !q.starts_with(b"&") && !q.ends_with(b"&") && memchr::memmem::find(&q, b"&&").is_none();
    if clean {
        return q;
    }
    let mut v = Vec::with_capacity(q.len());
    for part in q.split(|b| *b == b'&').filter(|p| !p.is_empty()) {
        if !v.is_empty() {
            v.push(b'&');
        }
        v.extend_from_slice(part);
    }
    Cow::Owned(v)
}

/// canon.py `WWWN_RE` (`^www\d*\.`): the host without it.
pub(super) fn strip_www(host: Bytes<'_>) -> Bytes<'_> {
    let Some(rest) = host.strip_prefix(b"www") else {
        return host;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if rest.get(digits) != Some(&b'.') {
        return host;
    }
    let cut = 3 + digits + 1;
    match host {
        Cow::Borrowed(h) => Cow::Borrowed(&h[cut..]),
        Cow::Owned(mut h) => {
            h.drain(..cut);
            Cow::Owned(h)
        }
    }
}

/// `s[i..]` starts with `lit`, ASCII case-insensitively (the `(?i)` of
/// `QUERY_SESSIONID_RE`); the index after it.
fn lit(s: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    let end = i.checked_add(lit.len())?;
    s.get(i..end)?.eq_ignore_ascii_case(lit).then_some(end)
}

/// At least `min` bytes of `class` from `i` (greedy); the index after them.
fn run(s: &[u8], i: usize, min: usize, class: impl Fn(u8) -> bool) -> Option<usize> {
    let n = s.get(i..)?.iter().take_while(|b| class(**b)).count();
    (n >= min).then_some(i + n)
}

/// `[0-9a-z]`, case-insensitively.
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// The alternatives of `QUERY_SESSIONID_RE` at `i`: the index after the one that matches.
/// They start differently, so at most one does, and each ends in a greedy run of a class
/// that holds no `&`, so backtracking into it never helps the `(&|$)` after it.
fn session_param(s: &[u8], i: usize) -> Option<usize> {
    if let Some(j) = lit(s, i, b"jsessionid=") {
        return run(s, j, 10, |b| alnum(b) || b == b'$');
    }
    if let Some(j) = lit(s, i, b"sessionid=").or_else(|| lit(s, i, b"phpsessid=")) {
        return run(s, j, 16, alnum);
    }
    if let Some(j) = lit(s, i, b"sid=") {
        return run(s, j, 16, alnum);
    }
    if let Some(j) = lit(s, i, b"aspsessionid") {
        let j = run(s, j, 8, |b| b.is_ascii_alphabetic())?;
        // `[a-z]{8}=`: exactly eight letters; a longer run cannot be followed by `=` there.
        let j = if j - i == 12 + 8 { j } else { return None };
        let j = lit(s, j, b"=")?;
        return run(s, j, 16, alnum);
    }
    if let Some(j) = lit(s, i, b"cfid=") {
        let j = run(s, j, 1, |b| b.is_ascii_digit())?;
        let j = lit(s, j, b"&cftoken=")?;
        return run(s, j, 1, |b| alnum(b) || b == b'-');
    }
    None
}

/// canon.py `strip_session_ids_from_query`: `QUERY_SESSIONID_RE.sub(br'\1\2', query)`, where
/// the pattern is `(&|^)(?:PARAM)(&|$)`: each match, found left to right without overlap,
/// becomes the `&`s it began and ended with.
pub(super) fn strip_query_session_ids(q: Bytes<'_>) -> Bytes<'_> {
    let s: &[u8] = &q;
    let at = |p: usize| -> Option<(usize, bool, bool)> {
        let starts = [
            (s.get(p) == Some(&b'&')).then_some((p + 1, true)),
            (p == 0).then_some((0, false)),
        ];
        starts.into_iter().flatten().find_map(|(j, amp1)| {
            let e = session_param(s, j)?;
            if e == s.len() {
                Some((e, amp1, false))
            } else if s[e] == b'&' {
                Some((e + 1, amp1, true))
            } else {
                None
            }
        })
    };
    let mut out: Option<Vec<u8>> = None;
    let (mut p, mut copied) = (0, 0);
    while p < s.len() {
        match at(p) {
            Some((e, amp1, amp2)) => {
                let v = out.get_or_insert_with(|| Vec::with_capacity(s.len()));
                v.extend_from_slice(&s[copied..p]);
                v.extend(amp1.then_some(b'&'));
                v.extend(amp2.then_some(b'&'));
                copied = e;
                p = e;
            }
            None => p += 1,
        }
    }
    match out {
        Some(mut v) => {
            v.extend_from_slice(&s[copied..]);
            Cow::Owned(v)
        }
        None => q,
    }
}

/// The length of `(?<=/)\([0-9a-z]{24}\)/` or `(?<=/)(?:\((?:[a-z]\([0-9a-z]{24}\))+\)/)` at
/// `i` (canon.py `ASPX_PATH_SESSIONID_RE`; the path is lower-cased by then, and the pattern is
/// case-sensitive).
fn aspx_session(s: &[u8], i: usize) -> Option<usize> {
    if i == 0 || s[i - 1] != b'/' || s.get(i) != Some(&b'(') {
        return None;
    }
    let id = |j: usize| -> Option<usize> {
        let body = s.get(j..j + 24)?;
        (body
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && s.get(j + 24) == Some(&b')'))
        .then_some(j + 25)
    };
    if let Some(j) = id(i + 1)
        && s.get(j) == Some(&b'/')
    {
        return Some(j + 1 - i);
    }
    let mut j = i + 1;
    let mut reps = 0;
    while s.get(j).is_some_and(u8::is_ascii_lowercase) && s.get(j + 1) == Some(&b'(') {
        match id(j + 2) {
            Some(k) => {
                j = k;
                reps += 1;
            }
            None => break,
        }
    }
    (reps > 0 && s.get(j..j + 2) == Some(&b")/"[..])).then(|| j + 2 - i)
}

/// canon.py `strip_session_ids_from_path`: on a path ending in `.aspx` (`ASPX_SUFFIX_RE`,
/// whose `.*` stops at a newline) the `ASPX_PATH_SESSIONID_RE` matches removed, then a final
/// `;jsessionid=` with 32 `[0-9a-z]` (`PATH_SESSIONID_RE`).
pub(super) fn strip_path_session_ids(path: Bytes<'_>) -> Bytes<'_> {
    let mut path = path;
    if path.ends_with(b".aspx") && !path.contains(&b'\n') {
        let s: &[u8] = &path;
        let mut out: Option<Vec<u8>> = None;
        let (mut p, mut copied) = (0, 0);
        while p < s.len() {
            match aspx_session(s, p) {
                Some(n) => {
                    let v = out.get_or_insert_with(|| Vec::with_capacity(s.len()));
                    v.extend_from_slice(&s[copied..p]);
                    p += n;
                    copied = p;
                }
                None => p += 1,
            }
        }
        if let Some(mut v) = out {
            v.extend_from_slice(&s[copied..]);
            path = Cow::Owned(v);
        }
    }
    // `$` also matches before a final newline; the path has none (it is %-encoded).
    let n = path.len();
    let tail = n.checked_sub(44).map(|i| &path[i..]);
    if tail.is_some_and(|t| {
        t.starts_with(b";jsessionid=")
            && t[12..]
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    }) {
        return truncate(path, n - 44);
    }
    path
}

/// The first `n` bytes of a field.
pub(super) fn truncate(s: Bytes<'_>, n: usize) -> Bytes<'_> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[..n]),
        Cow::Owned(mut v) => {
            v.truncate(n);
            Cow::Owned(v)
        }
    }
}

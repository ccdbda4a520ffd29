//! `surt`'s `URLRegexTransformer` (`stripPathSessionID`, `stripQuerySessionID`): the session
//! ids the Internet Archive drops from keys, written out as scans instead of regexes. Each
//! Python regex is anchored and its leading group is greedy, so the match it finds is the one
//! that starts at the rightmost place where the rest matches; the scans look from the right.

/// `stripPathSessionID` on a (lower-cased) path: `^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)
/// ([^?]+\.aspx.*)$` and then `^(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$`, each case-blind,
/// keep groups 1 and 3.
pub(super) fn strip_path_session_id(path: &mut Vec<u8>) {
    for pattern in [nested_session as fn(&[u8]) -> Option<usize>, plain_session] {
        let found = memchr::memrchr_iter(b'/', path).find_map(|slash| {
            let start = slash + 1;
            let len = pattern(&path[start..])?;
            aspx_rest(&path[start + len..]).then_some((start, len))
        });
        if let Some((start, len)) = found {
            path.drain(start..start + len);
        }
    }
}

/// `[0-9a-z]{24}` (case-blind) at the start of `s`.
fn id24(s: &[u8]) -> bool {
    s.len() >= 24 && s[..24].iter().all(u8::is_ascii_alphanumeric)
}

/// `\((?:[a-z]\([0-9a-z]{24}\))+\)/` at the start of `s`: its length.
fn nested_session(s: &[u8]) -> Option<usize> {
    let mut i = 1;
    if s.first() != Some(&b'(') {
        return None;
    }
    let mut n = 0;
    while s.get(i).is_some_and(u8::is_ascii_alphabetic)
        && s.get(i + 1) == Some(&b'(')
        && id24(&s[i + 2..])
        && s.get(i + 26) == Some(&b')')
    {
        i += 27;
        n += 1;
    }
    (n > 0 && s.get(i) == Some(&b')') && s.get(i + 1) == Some(&b'/')).then_some(i + 2)
}

/// `\([0-9a-z]{24}\)/` at the start of `s`: its length.
fn plain_session(s: &[u8]) -> Option<usize> {
    (s.first() == Some(&b'(')
        && id24(&s[1..])
        && s.get(25) == Some(&b')')
        && s.get(26) == Some(&b'/'))
    .then_some(27)
}

/// `[^?]+\.aspx.*` matches all of `s` (case-blind): some `.aspx` after at least one byte, with
/// no `?` before it.
fn aspx_rest(s: &[u8]) -> bool {
    let end = memchr::memchr(b'?', s).unwrap_or(s.len());
    (1..end).any(|k| s.len() >= k + 5 && s[k..k + 5].eq_ignore_ascii_case(b".aspx"))
}

/// `stripQuerySessionID`: for each of `jsessionid=` + 32 alphanumerics, `phpsessid=` + 32,
/// `sid=` + 32, `ASPSESSIONID` + 8 letters + `=` + 24 letters, and `cfid=...&cftoken=...`, the
/// Python `^(.*)(?:ID)(?:&(.*))?$` (case-blind): the rightmost ID that ends the query or is
/// followed by `&` is cut out with that `&`.
pub(super) fn strip_query_session_id(query: &mut Vec<u8>) {
    type Id = fn(&[u8]) -> Option<usize>;
    let ids: [(&[u8], Id); 5] = [
        (b"jsessionid=", |s| alnum_run(s, 32)),
        (b"phpsessid=", |s| alnum_run(s, 32)),
        (b"sid=", |s| alnum_run(s, 32)),
        (b"aspsessionid", |s| {
            (s.len() >= 33
                && s[..8].iter().all(u8::is_ascii_alphabetic)
                && s[8] == b'='
                && s[9..33].iter().all(u8::is_ascii_alphabetic))
            .then_some(33)
        }),
        (b"cfid=", |s| {
            let v = s.iter().take_while(|&&b| b != b'&').count();
            let rest = &s[v..];
            if v == 0 || rest.len() < 9 || !rest[..9].eq_ignore_ascii_case(b"&cftoken=") {
                return None;
            }
            let t = rest[9..].iter().take_while(|&&b| b != b'&').count();
            (t > 0).then_some(v + 9 + t)
        }),
    ];
    for (prefix, id) in ids {
        let found = (0..query.len()).rev().find_map(|i| {
            let at = query.get(i..i + prefix.len())?;
            if !at.eq_ignore_ascii_case(prefix) {
                return None;
            }
            let end = i + prefix.len() + id(&query[i + prefix.len()..])?;
            match query.get(end) {
                None => Some((i, end)),
                Some(b'&') => Some((i, end + 1)),
                Some(_) => None,
            }
        });
        if let Some((i, end)) = found {
            query.drain(i..end);
        }
    }
}

/// `[0-9a-zA-Z]{n}` at the start of `s`: `n`.
fn alnum_run(s: &[u8], n: usize) -> Option<usize> {
    (s.len() >= n && s[..n].iter().all(u8::is_ascii_alphanumeric)).then_some(n)
}

//! The `surt-ia` profile: the Internet Archive's SURT key, as `surt.surt` of the `surt`
//! package 0.3.1 writes it for CDX indexes (`com,example)/path?query`).
//!
//! `surt.surt` parses with `handyurl.parse`, runs `DefaultIAURLCanonicalizer` (the
//! `GoogleURLCanonicalizer` port of the Safe Browsing rules, then `IAURLCanonicalizer`) and
//! writes the host reversed (`hostToSURT`). Every rule is in `docs/profiles/surt-ia.md`; the
//! percent-encoding and Punycode are shared with the `gsb` profile.

mod fast;
mod idna;
mod session;
#[cfg(test)]
mod tests;

use super::gsb::escape::{escape_into, has_escape, needs_escape, unescape_repeatedly};
use super::{ProfileOptions, Reject};
use std::borrow::Cow;

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "surt 0.3.1+1";

/// `surt.surt(input, with_scheme, trailing_comma, host_massage)`.
pub(super) fn canonicalize(
    input: &[u8],
    o: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    let fast = std::str::from_utf8(input).is_ok_and(|s| fast::canonicalize(s, o, out));
    if fast {
        return Ok(());
    }
    full(input, o, out)
}

/// The key of `input` appended to `out` if the fast path takes it (else `out` is untouched).
pub(super) fn canonicalize_fast(input: &str, o: &ProfileOptions, out: &mut String) -> bool {
    fast::canonicalize(input, o, out)
}

/// [`canonicalize`] without the fast path: every rule, step by step.
fn full(input: &[u8], o: &ProfileOptions, out: &mut String) -> Result<(), Reject> {
    if input.is_empty() {
        out.push('-');
        return Ok(());
    }
    let not_utf8 = || Reject::new("the key is not UTF-8", None);
    if input.starts_with(b"filedesc") {
        out.push_str(std::str::from_utf8(input).map_err(|_| not_utf8())?);
        return Ok(());
    }
    let mut url = parse(input)?;
    google(&mut url);
    ia(&mut url, o);
    let mut buf = Vec::with_capacity(input.len() + 8);
    write_surt(&url, o, &mut buf);
    out.push_str(std::str::from_utf8(&buf).map_err(|_| not_utf8())?);
    Ok(())
}

/// `handyurl`: what `handyurl.parse` keeps of a URL (it drops the user information; the
/// fragment is dropped by the canonicalizer).
#[derive(Debug)]
struct Handy<'a> {
    scheme: Cow<'a, [u8]>,
    host: Option<Cow<'a, [u8]>>,
    port: Option<u16>,
    path: Option<Cow<'a, [u8]>>,
    query: Option<Cow<'a, [u8]>>,
}

/// The end of a `^[a-zA-Z][a-zA-Z0-9+.-]*:` scheme (the index of the `:`).
fn scheme_end(url: &[u8]) -> Option<usize> {
    if !url.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = url
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    (url.get(n) == Some(&b':')).then_some(n)
}

/// `handyurl.parse`.
fn parse(input: &[u8]) -> Result<Handy<'_>, Reject> {
    // bytes.strip(), then the tabs and line breaks anywhere.
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C);
    let start = input.iter().position(|b| !ws(b)).unwrap_or(input.len());
    let end = input.iter().rposition(|b| !ws(b)).map_or(start, |i| i + 1);
    let url = &input[start..end];
    let mut url: Cow<[u8]> = if url.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        Cow::Owned(
            url.iter()
                .copied()
                .filter(|b| !matches!(b, b'\t' | b'\n' | b'\r'))
                .collect(),
        )
    } else {
        Cow::Borrowed(url)
    };
    if url.is_empty() {
        // `scheme.startswith` on None raises.
        return Err(Reject::new("no URL", None));
    }
    if scheme_end(&url).is_none() {
        let mut v = b"http://".to_vec();
        v.extend_from_slice(&url);
        url = Cow::Owned(v);
    }
    // `^(https?://)+` becomes its last repetition.
    let mut last = None;
    let mut at = 0;
    loop {
        let rest = &url[at..];
        let n = if rest.starts_with(b"http://") {
            7
        } else if rest.starts_with(b"https://") {
            8
        } else {
            break;
        };
        last = Some(at);
        at += n;
    }
    if let Some(last) = last.filter(|&l| l > 0) {
        url = match url {
            Cow::Borrowed(b) => Cow::Borrowed(&b[last..]),
            Cow::Owned(v) => Cow::Owned(v[last..].to_vec()),
        };
    }
    let colon = scheme_end(&url).ok_or(Reject::new("no scheme", None))?;
    let sub = |r: std::ops::Range<usize>| -> Cow<[u8]> {
        match &url {
            Cow::Borrowed(b) => Cow::Borrowed(&b[r]),
            Cow::Owned(v) => Cow::Owned(v[r].to_vec()),
        }
    };
    // The RFC 2396 regex of handyurl.urlsplit.
    let after = colon + 1;
    let stop = |from: usize, set: &[u8]| {
        url[from..]
            .iter()
            .position(|b| set.contains(b))
            .map_or(url.len(), |i| from + i)
    };
    let (mut netloc, path_start) = if url[after..].starts_with(b"//") {
        let e = stop(after + 2, b"/?#");
        ((after + 2)..e, e)
    } else {
        (after..after, after)
    };
    let path_end = stop(path_start, b"?#");
    let query = if url.get(path_end) == Some(&b'?') {
        let e = stop(path_end + 1, b"#");
        if e > path_end + 1 {
            Some(sub((path_end + 1)..e))
        } else {
            None
        }
    } else {
        None
    };
    // A netloc that ends in `:` loses its colons.
    while netloc.end > netloc.start && url[netloc.end - 1] == b':' {
        netloc.end -= 1;
    }
    // SplitResultBytes._hostinfo, .port, .hostname.
    let nl = &url[netloc.clone()];
    let hostinfo_start = netloc.start + memchr::memrchr(b'@', nl).map_or(0, |i| i + 1);
    let hostinfo = &url[hostinfo_start..netloc.end];
    let (hostname, port) = match memchr::memchr(b'[', hostinfo) {
        Some(ob) => {
            let br = &hostinfo[ob + 1..];
            let cb = memchr::memchr(b']', br).unwrap_or(br.len());
            let after_br = br.get(cb + 1..).unwrap_or(&[]);
            let port = memchr::memchr(b':', after_br).map_or(&[][..], |c| &after_br[c + 1..]);
            let s = hostinfo_start + ob + 1;
            (s..s + cb, port)
        }
        None => {
            let c = memchr::memchr(b':', hostinfo).unwrap_or(hostinfo.len());
            let port = hostinfo.get(c + 1..).unwrap_or(&[]);
            (hostinfo_start..hostinfo_start + c, port)
        }
    };
    let port = if port.is_empty() {
        None
    } else if port.iter().all(u8::is_ascii_digit) {
        let v = port.iter().try_fold(0u32, |v, &d| {
            let v = v * 10 + u32::from(d - b'0');
            (v <= 65535).then_some(v)
        });
        match v {
            Some(0) => None,
            Some(v) => Some(v as u16),
            None => return Err(Reject::new("Port out of range 0-65535", Some(start))),
        }
    } else {
        return Err(Reject::new(
            "Port could not be cast to integer value",
            Some(start),
        ));
    };
    let mut host = (!hostname.is_empty()).then(|| {
        let mut h = sub(hostname);
        // `.hostname` lower-cases up to a `%` (a zone); the canonicalizer lower-cases the rest
        // later, so lower-casing all of it here gives the same key.
        if h.iter().any(u8::is_ascii_uppercase) {
            h.to_mut().make_ascii_lowercase();
        }
        h
    });
    let mut path = (path_end > path_start).then(|| sub(path_start..path_end));
    let scheme = sub(0..colon);
    if scheme.starts_with(b"http")
        && host.is_none()
        && let Some(p) = &path
    {
        // "http:////www.example.com": the host is the first segment of the path.
        let t = p.iter().position(|&b| b != b'/').unwrap_or(p.len());
        let s = memchr::memchr(b'/', &p[t..]).map_or(p.len(), |i| t + i);
        let h = p[t..s].to_vec();
        let mut np = b"/".to_vec();
        np.extend_from_slice(p.get(s + 1..).unwrap_or(&[]));
        host = Some(Cow::Owned(h));
        path = Some(Cow::Owned(np));
    }
    Ok(Handy {
        scheme,
        host,
        port,
        path,
        query,
    })
}

/// `unescapeRepeatedly`, borrowing when there is nothing to decode.
fn unescape(s: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    if !has_escape(&s) {
        return s;
    }
    let mut buf = s.into_owned();
    let mut scratch = Vec::with_capacity(buf.len());
    // Each round shortens the text, so the loop ends.
    let _ = unescape_repeatedly(&mut buf, &mut scratch, None);
    Cow::Owned(buf)
}

/// `escapeOnce` (upper-case hex), borrowing when nothing needs encoding.
fn escape(s: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    if !s.iter().any(|&b| needs_escape(b)) {
        return s;
    }
    let mut buf = Vec::with_capacity(s.len() + 16);
    escape_into(&s, &mut buf);
    Cow::Owned(buf)
}

/// `GoogleURLCanonicalizer.canonicalize`.
fn google(url: &mut Handy<'_>) {
    if let Some(q) = url.query.take() {
        url.query = Some(escape(unescape(q)));
    }
    if let Some(h) = url.host.take().filter(|h| !h.is_empty()) {
        let mut h = unescape(h);
        if !h.is_ascii()
            && let Some(a) = idna::encode(&idna::decode_ignore(&h))
        {
            h = Cow::Owned(a);
        }
        if memchr::memmem::find(&h, b"..").is_some() {
            let mut v = Vec::with_capacity(h.len());
            let mut i = 0;
            while i < h.len() {
                v.push(h[i]);
                i += if h[i] == b'.' && h.get(i + 1) == Some(&b'.') {
                    2
                } else {
                    1
                };
            }
            h = Cow::Owned(v);
        }
        let s = h.iter().position(|&b| b != b'.').unwrap_or(h.len());
        let e = h.iter().rposition(|&b| b != b'.').map_or(s, |i| i + 1);
        let trimmed = &h[s..e];
        url.host = Some(match attempt_ip_formats(trimmed) {
            Some(ip) => Cow::Owned(ip),
            None => {
                let mut v = escape(Cow::Borrowed(trimmed)).into_owned();
                v.make_ascii_lowercase();
                Cow::Owned(v)
            }
        });
    } else {
        url.host = None.or(url.host.take());
    }
    let path = url.path.take().map(unescape);
    let path = if url.host.as_ref().is_some_and(|h| !h.is_empty()) {
        Some(Cow::Owned(normalize_path(path.as_deref())))
    } else {
        path
    };
    url.path = path.map(escape);
}

/// `normalizePath`: drops `.` segments and empty ones (save the last), resolves `..` (one at
/// the start is kept).
fn normalize_path(path: Option<&[u8]>) -> Vec<u8> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return b"/".to_vec();
    };
    let mut kept: Vec<&[u8]> = Vec::new();
    for p in path.split(|&b| b == b'/').skip(1) {
        match p {
            b"." => {}
            b".." if !kept.is_empty() => {
                kept.pop();
            }
            _ => kept.push(p),
        }
    }
    let mut out = Vec::with_capacity(path.len() + 1);
    out.push(b'/');
    if let Some((last, init)) = kept.split_last() {
        for p in init.iter().filter(|p| !p.is_empty()) {
            out.extend_from_slice(p);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

/// `attemptIPFormats`: a host of digits is a 32-bit number (masked); a host that looks like
/// dotted decimal or octal goes to `socket.gethostbyname_ex`, which reads it as `inet_aton`
/// does (anything else fails to resolve).
fn attempt_ip_formats(host: &[u8]) -> Option<Vec<u8>> {
    if host.is_empty() {
        return None;
    }
    if host.iter().all(u8::is_ascii_digit) {
        let v = host.iter().fold(0u32, |v, &d| {
            v.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
        return Some(dotted(v));
    }
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    let shape = parts.len() <= 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
        && (parts[0][0] != b'0' || parts.iter().all(|p| p.iter().all(|&d| d <= b'7')));
    if !shape {
        return None;
    }
    // inet_aton: 0x hex (not reachable here), 0 octal, else decimal.
    let mut vals = [0u32; 4];
    for (i, p) in parts.iter().enumerate() {
        let (digits, radix) = if p.len() > 1 && p[0] == b'0' {
            (&p[1..], 8)
        } else {
            (*p, 10)
        };
        let mut v: u32 = 0;
        for &d in digits {
            let d = char::from(d).to_digit(radix)?;
            v = v.checked_mul(radix)?.checked_add(d)?;
        }
        vals[i] = v;
    }
    let n = parts.len();
    if vals[..n - 1].iter().any(|&v| v > 255) {
        return None;
    }
    let last_max = if n == 1 {
        u32::MAX
    } else {
        u32::MAX >> (8 * (n - 1))
    };
    if vals[n - 1] > last_max {
        return None;
    }
    let mut v = vals[n - 1];
    for (i, &b) in vals[..n - 1].iter().enumerate() {
        v |= b << (8 * (3 - i));
    }
    Some(dotted(v))
}

/// `a.b.c.d` of a 32-bit address.
fn dotted(v: u32) -> Vec<u8> {
    let [a, b, c, d] = v.to_be_bytes();
    format!("{a}.{b}.{c}.{d}").into_bytes()
}

/// `IAURLCanonicalizer.canonicalize` with its defaults (and `host_massage` from the options).
fn ia(url: &mut Handy<'_>, o: &ProfileOptions) {
    if let Some(h) = url.host.as_mut().filter(|h| !h.is_empty()) {
        if h.iter().any(u8::is_ascii_uppercase) {
            h.to_mut().make_ascii_lowercase();
        }
        if o.host_massage && &*url.scheme != b"dns" {
            // `^www\d*\.`
            let d = h
                .get(3..)
                .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
            if h.starts_with(b"www") && h.get(3 + d) == Some(&b'.') {
                *h = match std::mem::take(h) {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[4 + d..]),
                    Cow::Owned(v) => Cow::Owned(v[4 + d..].to_vec()),
                };
            }
        }
    }
    let default_port = match url.scheme.to_ascii_lowercase().as_slice() {
        b"http" => 80,
        b"https" => 443,
        _ => 0,
    };
    if url.port == Some(default_port) {
        url.port = None;
    }
    if let Some(p) = url.path.as_mut().filter(|p| !p.is_empty()) {
        let p = p.to_mut();
        p.make_ascii_lowercase();
        session::strip_path_session_id(p);
        if p.len() > 1 && p.last() == Some(&b'/') {
            p.pop();
        }
    }
    if let Some(q) = url.query.take().filter(|q| !q.is_empty()) {
        let mut q = q.into_owned();
        session::strip_query_session_id(&mut q);
        q.make_ascii_lowercase();
        let q = alpha_reorder_query(q);
        url.query = (!q.is_empty()).then_some(Cow::Owned(q));
    }
}

/// `alphaReorderQuery`: the `&`-separated pairs sorted as Python sorts the tuples
/// `(name,)` / `(name, value)` (split at the first `=`).
fn alpha_reorder_query(q: Vec<u8>) -> Vec<u8> {
    if q.len() <= 1 || memchr::memchr(b'&', &q).is_none() {
        return q;
    }
    let mut pairs: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|a| match memchr::memchr(b'=', a) {
            Some(i) => (&a[..i], Some(&a[i + 1..])),
            None => (a, None),
        })
        .collect();
    pairs.sort();
    let mut out = Vec::with_capacity(q.len());
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

/// `handyurl.geturl_bytes(surt=True, ...)`.
fn write_surt(url: &Handy<'_>, o: &ProfileOptions, s: &mut Vec<u8>) {
    let host = url.host.as_deref().filter(|h| !h.is_empty());
    if o.with_scheme {
        s.extend_from_slice(&url.scheme);
        s.push(b':');
        if host.is_some() {
            if &*url.scheme != b"dns" {
                s.extend_from_slice(b"//");
            }
            s.push(b'(');
        }
    } else if host.is_none() {
        s.extend_from_slice(&url.scheme);
        s.push(b':');
    }
    if let Some(h) = host {
        // hostToSURT: the labels reversed, joined by commas.
        for (i, label) in h.rsplit(|&b| b == b'.').enumerate() {
            if i > 0 {
                s.push(b',');
            }
            s.extend_from_slice(label);
        }
        if let Some(p) = url.port {
            s.extend_from_slice(format!(":{p}").as_bytes());
        }
        if o.trailing_comma {
            s.push(b',');
        }
        s.push(b')');
    }
    match url.path.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => s.extend_from_slice(p),
        None if url.query.is_some() => s.push(b'/'),
        None => {}
    }
    if let Some(q) = &url.query {
        s.push(b'?');
        s.extend_from_slice(q);
    }
}

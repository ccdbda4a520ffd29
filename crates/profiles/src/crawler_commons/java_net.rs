//! What `BasicURLNormalizer` takes from `java.net` (JDK 17): which strings `new URI(s)`
//! accepts and what its raw path and query are, how `new URL(s)` (the built-in stream handlers'
//! `parseURL`) splits a string, `URI.normalize()` on a path, and `URL.toString()`.
//!
//! Only what the normalizer reads is modelled; see `docs/profiles/crawler-commons.md` for what
//! is left out (IPv6 zone ids, non-ASCII digits in a port, ...).

use std::net::Ipv6Addr;

/// Why a `java.net` step threw, in the words of its exception.
pub(super) type JavaError = &'static str;

/// RFC 2396 `mark` (java.net.URI `L_MARK`): unreserved punctuation.
fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&c)
}

/// java.net.URI `L_PATH`: `pchar`, `;` and `/` (RFC 2396 section 3.3).
fn is_path_char(c: u8) -> bool {
    is_unreserved(c) || b":@&=+$,;/".contains(&c)
}

/// java.net.URI `L_URIC`: reserved (with RFC 2732's `[` `]`) and unreserved (RFC 2396 2.1).
fn is_uric(c: u8) -> bool {
    is_unreserved(c) || b";/?:@&=+$,[]".contains(&c)
}

/// java.net.URI `L_REG_NAME` (RFC 2396 section 3.2.1).
fn is_reg_name_char(c: u8) -> bool {
    is_unreserved(c) || b"$,;:@&=+".contains(&c)
}

/// java.net.URI `L_USERINFO` (RFC 2396 section 3.2.2).
fn is_userinfo_char(c: u8) -> bool {
    is_unreserved(c) || b";:&=+$,".contains(&c)
}

/// `Character.isSpaceChar`: general categories Zs, Zl and Zp.
fn is_space_char(c: char) -> bool {
    matches!(
        c,
        '\u{20}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// java.net.URI `checkChars`: each character is `allowed`, a `%XX` escape, or a visible
/// non-ASCII character above U+0080 (RFC 2396's "other" category, a java.net.URI extension).
fn check(s: &str, allowed: fn(u8) -> bool) -> Result<(), JavaError> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii() {
            if c != 0 && allowed(c) {
                i += 1;
            } else if c == b'%' {
                let hex = |j: usize| b.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return Err("URISyntaxException: Malformed escape pair");
                }
                i += 3;
            } else {
                return Err("URISyntaxException: Illegal character");
            }
        } else {
            let ch = s[i..].chars().next().unwrap_or('\0');
            if ch as u32 <= 0x9f || is_space_char(ch) {
                return Err("URISyntaxException: Illegal character");
            }
            i += ch.len_utf8();
        }
    }
    Ok(())
}

/// The parts of `new URI(s)` that the normalizer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct JavaUri<'a> {
    /// `getScheme()`.
    pub scheme: Option<&'a str>,
    /// `getRawPath()`: `None` for an opaque URI (`mailto:x`, `http:x`).
    pub path: Option<&'a str>,
    /// `getRawQuery()`.
    pub query: Option<&'a str>,
}

/// `new URI(s)`: the RFC 2396 grammar as java.net.URI reads it (with its deviations: an empty
/// authority before a path, an empty path, RFC 2732 brackets). Errors where it throws
/// `URISyntaxException`.
pub(super) fn parse_uri(s: &str) -> Result<JavaUri<'_>, JavaError> {
    let b = s.as_bytes();
    let stop = b.iter().position(|c| b"/?#:".contains(c));
    let mut p = 0;
    let mut scheme = None;
    if let Some(q) = stop.filter(|&q| b[q] == b':') {
        let name = &b[..q];
        let ok = name.first().is_some_and(u8::is_ascii_alphabetic)
            && name
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || b"+-.".contains(&c));
        if !ok {
            return Err("URISyntaxException: Illegal character in scheme name");
        }
        scheme = Some(&s[..q]);
        p = q + 1;
        if b.get(p) != Some(&b'/') {
            // An opaque URI: scheme ":" opaque_part (RFC 2396 section 3).
            let end = s[p..].find('#').map_or(b.len(), |e| p + e);
            if end <= p {
                return Err("URISyntaxException: Expected scheme-specific part");
            }
            check(&s[p..end], is_uric)?;
            check(s.get(end + 1..).unwrap_or(""), is_uric)?;
            return Ok(JavaUri {
                scheme,
                path: None,
                query: None,
            });
        }
    }
    if s[p..].starts_with("//") {
        p += 2;
        let end = s[p..].find(['/', '?', '#']).map_or(b.len(), |e| p + e);
        if end > p {
            check_authority(&s[p..end])?;
        } else if end == b.len() {
            return Err("URISyntaxException: Expected authority");
        }
        p = end;
    }
    let end = s[p..].find(['?', '#']).map_or(b.len(), |e| p + e);
    check(&s[p..end], is_path_char)?;
    let path = &s[p..end];
    p = end;
    let mut query = None;
    if b.get(p) == Some(&b'?') {
        let end = s[p..].find('#').map_or(b.len(), |e| p + e);
        check(&s[p + 1..end], is_uric)?;
        query = Some(&s[p + 1..end]);
        p = end;
    }
    if p < b.len() {
        check(&s[p + 1..], is_uric)?;
    }
    Ok(JavaUri {
        scheme,
        path: Some(path),
        query,
    })
}

/// java.net.URI `parseAuthority`: a registry-based authority (RFC 2396 section 3.2.1) takes
/// everything but brackets; with brackets it must be a server `[userinfo@][IPv6]:port`.
fn check_authority(a: &str) -> Result<(), JavaError> {
    if !a.contains(['[', ']']) {
        return check(a, is_reg_name_char);
    }
    let host = match a.find('@') {
        Some(at) => {
            check(&a[..at], is_userinfo_char)?;
            &a[at + 1..]
        }
        None => a,
    };
    let bad = Err("URISyntaxException: Malformed IPv6 address");
    let Some(rest) = host.strip_prefix('[') else {
        return bad;
    };
    let Some((addr, port)) = rest.split_once(']') else {
        return bad;
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|d| d.bytes().all(|c| c.is_ascii_digit()));
    if addr.parse::<Ipv6Addr>().is_err() || !port_ok {
        return bad;
    }
    Ok(())
}

/// The protocols that have a built-in `URLStreamHandler` in JDK 17 (`new URL` throws
/// "unknown protocol" for any other).
const HANDLERS: [&str; 8] = [
    "http", "https", "ftp", "file", "jar", "jmod", "jrt", "mailto",
];

/// The fields of a `java.net.URL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct JavaUrl<'a> {
    /// `getProtocol()`, lower case.
    pub protocol: &'static str,
    /// `getHost()`; never null for the built-in handlers.
    pub host: &'a str,
    /// `getPort()`, -1 when none.
    pub port: i32,
    /// `getAuthority()`.
    pub authority: Option<&'a str>,
    /// `getPath()`.
    pub path: &'a str,
    /// `getQuery()`.
    pub query: Option<&'a str>,
    /// `getRef()`.
    pub fragment: Option<&'a str>,
}

impl JavaUrl<'_> {
    /// `getFile()`: the path and the query.
    pub fn file(&self) -> String {
        let mut f = String::with_capacity(self.path.len() + 1 + self.query.map_or(0, str::len));
        f.push_str(self.path);
        if let Some(q) = self.query {
            f.push('?');
            f.push_str(q);
        }
        f
    }

    /// `getDefaultPort()`.
    pub fn default_port(&self) -> i32 {
        match self.protocol {
            "http" => 80,
            "https" => 443,
            "ftp" => 21,
            _ => -1,
        }
    }

    /// `toString()` (`URLStreamHandler.toExternalForm`): an empty authority is left out, so
    /// `http:///x` comes back as `http:/x`.
    pub fn write_external_form(&self, out: &mut String) {
        out.push_str(self.protocol);
        out.push(':');
        if let Some(a) = self.authority.filter(|a| !a.is_empty()) {
            out.push_str("//");
            out.push_str(a);
        }
        out.push_str(self.path);
        if let Some(q) = self.query {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = self.fragment {
            out.push('#');
            out.push_str(f);
        }
    }
}

/// `Integer.parseInt(s, 10)`: an optional sign and ASCII digits, within `i32`.
fn parse_int(s: &str) -> Result<i32, JavaError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err("NumberFormatException");
    }
    s.parse::<i32>().map_err(|_| "NumberFormatException")
}

/// `new URL(s)` with no context: the `url:` prefix, the protocol and its built-in handler,
/// the `#ref`, then the handler's `parseURL` (`URLStreamHandler.parseURL` for all but
/// `mailto` and `jar`). Errors where it throws `MalformedURLException`.
pub(super) fn parse_url(spec: &str) -> Result<JavaUrl<'_>, JavaError> {
    let b = spec.as_bytes();
    let mut limit = b.len();
    while limit > 0 && b[limit - 1] <= b' ' {
        limit -= 1;
    }
    let mut start = 0;
    while start < limit && b[start] <= b' ' {
        start += 1;
    }
    if spec
        .get(start..start + 4)
        .is_some_and(|p| p.eq_ignore_ascii_case("url:"))
    {
        start += 4;
    }
    let colon = b[start..limit]
        .iter()
        .position(|&c| c == b'/' || c == b':')
        .map(|i| start + i)
        .filter(|&i| b[i] == b':' && b.get(start) != Some(&b'#'))
        .ok_or("MalformedURLException: no protocol")?;
    let protocol = HANDLERS
        .into_iter()
        .find(|h| h.eq_ignore_ascii_case(&spec[start..colon]))
        .ok_or("MalformedURLException: unknown protocol")?;
    start = colon + 1;
    let mut fragment = None;
    if let Some(i) = spec[start..].find('#').map(|i| start + i) {
        fragment = Some(spec.get(i + 1..limit).unwrap_or(""));
        limit = limit.min(i);
    }
    let mut url = JavaUrl {
        protocol,
        host: "",
        port: -1,
        authority: None,
        path: "",
        query: None,
        fragment,
    };
    match protocol {
        "mailto" | "jar" => {
            let file = spec.get(start..limit).unwrap_or("");
            if protocol == "mailto" && file.trim().is_empty() {
                return Err("MalformedURLException: No email address");
            }
            if protocol == "jar" {
                check_jar(file)?;
            }
            // The deprecated six-argument `setURL` splits the file at its last `?`.
            match file.rfind('?') {
                Some(q) => {
                    url.path = &file[..q];
                    url.query = Some(&file[q + 1..]);
                }
                None => url.path = file,
            }
        }
        _ => parse_hierarchical(spec, start, limit, &mut url)?,
    }
    check_host(url.host)?;
    Ok(url)
}

/// The jar handler's `parseURL` for an absolute spec: a `!/` must follow a URL that parses,
/// and nested `jar:` URLs are refused.
fn check_jar(file: &str) -> Result<(), JavaError> {
    let bang = (0..file.len())
        .rev()
        .find(|&i| file.as_bytes()[i] == b'!' && file.as_bytes().get(i + 1) == Some(&b'/'))
        .ok_or("MalformedURLException: no !/ in spec")?;
    if file
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("jar:"))
    {
        return Err("MalformedURLException: Nested JAR URLs are not supported");
    }
    parse_url(&file[..bang]).map(|_| ())
}

/// `URLStreamHandler.parseURL` for a spec with no context URL: the query at the first `?`,
/// an authority after `//` (but not after `////`, a UNC name), the host and port split at
/// the last `@` and the first `:`, and the rest as the path, as it is (no dot removal).
fn parse_hierarchical<'a>(
    spec: &'a str,
    mut start: usize,
    mut limit: usize,
    url: &mut JavaUrl<'a>,
) -> Result<(), JavaError> {
    if start < limit
        && let Some(q) = spec.find('?').filter(|&q| q < limit)
    {
        url.query = Some(&spec[q + 1..limit]);
        limit = q;
    }
    let spec = &spec[..limit];
    let rest = &spec[start..];
    if rest.starts_with("//") && !rest.starts_with("////") {
        start += 2;
        let end = spec[start..].find('/').map_or(limit, |i| start + i);
        let authority = &spec[start..end];
        url.authority = Some(authority);
        let host = match (authority.find('@'), authority.rfind('@')) {
            (Some(a), Some(z)) if a != z => None,
            (Some(a), _) => Some(&authority[a + 1..]),
            _ => Some(authority),
        };
        if let Some(host) = host {
            let (h, port) = split_port(host)?;
            url.host = h;
            if let Some(p) = port {
                url.port = parse_int(p)?;
            }
            if url.port < -1 {
                return Err("MalformedURLException: Invalid port number");
            }
        }
        start = end;
    }
    // With an authority the rest starts with `/` (or is empty); without one it is the path
    // as it is (`http:x` has the path `x`).
    url.path = &spec[start..];
    Ok(())
}

/// The host and the port text of a `host[:port]` or `[v6][:port]` (an empty port is none).
fn split_port(host: &str) -> Result<(&str, Option<&str>), JavaError> {
    let bad = Err("MalformedURLException: Invalid authority field");
    if host.starts_with('[') {
        let Some(end) = host.find(']').filter(|&e| e > 2) else {
            return bad;
        };
        if host[1..end].parse::<Ipv6Addr>().is_err() {
            return Err("MalformedURLException: Invalid host");
        }
        return match &host[end + 1..] {
            "" | ":" => Ok((&host[..=end], None)),
            p if p.starts_with(':') => Ok((&host[..=end], Some(&p[1..]))),
            _ => bad,
        };
    }
    Ok(match host.split_once(':') {
        Some((h, "")) => (h, None),
        Some((h, p)) => (h, Some(p)),
        None => (host, None),
    })
}

/// `IPAddressUtil.checkHostString` (JDK 17): no ASCII control characters, and none of the
/// characters that look like delimiters (`OTHERS`: U+2047, U+2100, U+FF0F, ...).
fn check_host(host: &str) -> Result<(), JavaError> {
    const OTHERS: [u32; 17] = [
        8263, 8264, 8265, 8448, 8449, 8453, 8454, 10868, 65109, 65110, 65119, 65131, 65283, 65295,
        65306, 65311, 65312,
    ];
    let bad = host
        .chars()
        .any(|c| c < ' ' || c == '\u{7f}' || c == '/' || OTHERS.contains(&(c as u32)));
    if bad {
        return Err("MalformedURLException: Illegal character found in host");
    }
    Ok(())
}

/// `URI.normalize()` on a path (RFC 2396 section 5.2 step 6, java.net.URI's way): runs of
/// `/` become one, `.` segments go, a segment and a following `..` go unless it is `..`
/// itself, and leading `..` segments stay. Then `BasicURLNormalizer.getFileWithNormalizedPath`
/// strips leading `/..`, with its off-by-one test (`path.charAt(3) == '/'`), so that
/// `/../..x` loses all six characters.
pub(super) fn normalize_path(path: &str) -> String {
    let b = path.as_bytes();
    let absolute = b.first() == Some(&b'/');
    // Each kept segment: its text, whether a `/` followed it, and its place in the input.
    let mut kept: Vec<(&str, bool, usize)> = Vec::new();
    let mut i = 0;
    let mut n = 0;
    while i < b.len() && b[i] == b'/' {
        i += 1;
    }
    while i < b.len() {
        let end = path[i..].find('/').map_or(b.len(), |e| i + e);
        let seg = &path[i..end];
        let slash = end < b.len();
        i = end;
        while i < b.len() && b[i] == b'/' {
            i += 1;
        }
        match seg {
            "." => {}
            ".." if kept.last().is_some_and(|(s, ..)| *s != "..") => {
                kept.pop();
            }
            _ => kept.push((seg, slash, n)),
        }
        n += 1;
    }
    let mut out = String::with_capacity(path.len() + 2);
    if absolute {
        out.push('/');
    } else if kept
        .first()
        .is_some_and(|&(s, _, k)| k > 0 && s.contains(':'))
    {
        // java.net.URI `maybeAddLeadingDot`: `a/../b:c` must not become a scheme.
        out.push_str("./");
    }
    for (seg, slash, _) in kept {
        out.push_str(seg);
        if slash {
            out.push('/');
        }
    }
    // BasicURLNormalizer.getFileWithNormalizedPath: "URI.normalize() does not normalize
    // leading dot segments".
    let mut start = 0;
    while out[start..].starts_with("/..")
        && (start + 3 == out.len() || out.as_bytes().get(3) == Some(&b'/'))
    {
        start += 3;
    }
    out.drain(..start);
    out
}

//! The `crawler-commons` profile: `BasicURLNormalizer.filter` of crawler-commons 1.6 (Nutch,
//! StormCrawler), run on JDK 17.
//!
//! The normalizer percent-encodes the whole string, hands it to `java.net.URI` and
//! `java.net.URL`, normalizes the host (percent-decoding, lower case, IDNA2003 ToASCII, no
//! trailing dot), drops the default port, fixes the percent-encoding of the path and the
//! query, sorts the query parameters, removes dot segments and empty segments, and rebuilds
//! the URL through `java.net` again. Its rules, and where they depart from RFC 3986 and the
//! URL Standard, are in `docs/profiles/crawler-commons.md`. The `java.net` parts are in
//! [`java_net`], `java.net.IDN` in [`idn`].

mod idn;
mod java_net;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;

use super::{ProfileOptions, Reject};
use java_net::{JavaUrl, parse_uri, parse_url};

/// The library and version reproduced, and linksieve's revision of the reproduction.
pub(super) const VERSION: &str = "crawler-commons 1.6+1";

/// What the `crawler-commons` profile does with internationalized host names
/// (`BasicURLNormalizer.Builder.idnNormalization`; option `idn`).
///
/// ```
/// use linksieve_profiles::{IdnNormalization, Profile};
/// assert_eq!(IdnNormalization::default(), IdnNormalization::Punycode);
/// let p = Profile::parse("crawler-commons:idn=unicode").unwrap();
/// assert_eq!(p.options.idn, IdnNormalization::Unicode);
/// assert_eq!(p.canonicalize("http://xn--bcher-kva.de/").unwrap(), "http://bücher.de/");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IdnNormalization {
    /// `PUNYCODE`, the default: a host that is not ASCII goes through `IDN.toASCII`.
    #[default]
    Punycode,
    /// `UNICODE`: a host holding `xn--` goes through `IDN.toUnicode`.
    Unicode,
    /// `NONE`: the host is left as it is (after percent-decoding and lower-casing).
    None,
}

impl IdnNormalization {
    /// The option's value: `punycode`, `unicode` or `none`.
    ///
    /// ```
    /// assert_eq!(linksieve_profiles::IdnNormalization::None.name(), "none");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            IdnNormalization::Punycode => "punycode",
            IdnNormalization::Unicode => "unicode",
            IdnNormalization::None => "none",
        }
    }

    /// Reads an option value written by [`IdnNormalization::name`].
    ///
    /// ```
    /// use linksieve_profiles::IdnNormalization;
    /// assert_eq!(IdnNormalization::from_name("unicode"), Some(IdnNormalization::Unicode));
    /// assert_eq!(IdnNormalization::from_name("UNICODE"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<IdnNormalization> {
        [Self::Punycode, Self::Unicode, Self::None]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// The query parameter names that the `crawler-commons` profile drops
/// (`BasicURLNormalizer.Builder.queryParamsToRemove`; option `remove_params`, names joined by
/// `|`). Held inline, sorted and without duplicates, so that [`ProfileOptions`] stays `Copy`:
/// at most [`QueryParamNames::CAPACITY`] bytes in all, and no name may hold `,` or `|`.
///
/// ```
/// use linksieve_profiles::{Profile, QueryParamNames};
/// let names = QueryParamNames::parse("sid|jsessionid").unwrap();
/// assert_eq!(names.as_str(), "jsessionid|sid");
/// assert!(names.contains("sid") && !names.contains("SID"));
/// let p = Profile::parse("crawler-commons:remove_params=sid").unwrap();
/// assert_eq!(p.canonicalize("http://a.example/?sid=1&b=2").unwrap(), "http://a.example/?b=2");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct QueryParamNames {
    buf: [u8; QueryParamNames::CAPACITY],
    len: u8,
}

impl QueryParamNames {
    /// The most bytes the names may take, with their `|` separators.
    pub const CAPACITY: usize = 126;

    /// No names: nothing is dropped (the library's default).
    ///
    /// ```
    /// assert!(linksieve_profiles::QueryParamNames::EMPTY.is_empty());
    /// ```
    pub const EMPTY: QueryParamNames = QueryParamNames {
        buf: [0; QueryParamNames::CAPACITY],
        len: 0,
    };

    /// Names joined by `|` (empty names are ignored); `None` when they do not fit or one holds
    /// a `,`.
    ///
    /// ```
    /// use linksieve_profiles::QueryParamNames;
    /// assert_eq!(QueryParamNames::parse("b||a|b").unwrap().as_str(), "a|b");
    /// assert!(QueryParamNames::parse(&"x".repeat(200)).is_none());
    /// ```
    pub fn parse(list: &str) -> Option<QueryParamNames> {
        let mut names: Vec<&str> = list.split('|').filter(|n| !n.is_empty()).collect();
        names.sort_unstable_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        names.dedup();
        let joined = names.join("|");
        if joined.len() > Self::CAPACITY || joined.contains(',') {
            return None;
        }
        let mut set = Self::EMPTY;
        set.buf[..joined.len()].copy_from_slice(joined.as_bytes());
        set.len = u8::try_from(joined.len()).ok()?;
        Some(set)
    }

    /// The names joined by `|`, as [`QueryParamNames::parse`] reads them.
    ///
    /// ```
    /// assert_eq!(linksieve_profiles::QueryParamNames::parse("sid").unwrap().as_str(), "sid");
    /// ```
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Whether there are no names.
    ///
    /// ```
    /// assert!(!linksieve_profiles::QueryParamNames::parse("a").unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `name` is one of the names (compared exactly, as Java's `Set.contains`).
    ///
    /// ```
    /// assert!(linksieve_profiles::QueryParamNames::parse("a|b").unwrap().contains("b"));
    /// ```
    pub fn contains(&self, name: &str) -> bool {
        !name.is_empty() && self.as_str().split('|').any(|n| n == name)
    }
}

impl Default for QueryParamNames {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl fmt::Debug for QueryParamNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "QueryParamNames({:?})", self.as_str())
    }
}

/// `new BasicURLNormalizer(options).filter(input)`: the key, or a [`Reject`] where `filter`
/// returns null or throws. Input that is not UTF-8 is read as a Java `Reader` reads it, with
/// U+FFFD for each bad sequence.
pub(super) fn canonicalize(
    input: &[u8],
    opts: &ProfileOptions,
    out: &mut String,
) -> Result<(), Reject> {
    let text = String::from_utf8_lossy(input);
    // BasicURLNormalizer.filter: "permit empty" (before trimming).
    if text.is_empty() {
        return Ok(());
    }
    // BasicURLNormalizer.filter: String.trim() (every char <= U+0020), then the fragment goes
    // "before escaping, so # sign is not escaped".
    let trimmed = text.trim_matches(|c: char| c <= ' ');
    let trimmed = trimmed.split('#').next().unwrap_or_default();
    let escaped = escape(trimmed);
    let malformed = |_| Reject::new("malformed URL (java.net.URI/URL rejects it)", None);
    // BasicURLNormalizer.parseStringToURL: new URI(s).toURL(), else "http://" + s when s does
    // not start with `scheme:/`.
    let fallback: String;
    let url = match to_url(&escaped) {
        Ok(u) => u,
        Err(_) if !has_scheme(&escaped) => {
            fallback = format!("http://{escaped}");
            to_url(&fallback).map_err(malformed)?
        }
        Err(e) => return Err(malformed(e)),
    };
    // The string that `filter` goes on with is the escaped input, even after the fallback.
    let e: &str = &escaped;
    let protocol = url.protocol;
    let mut host = Cow::Borrowed(url.host);
    let mut port = url.port;
    let mut file = url.file();
    // BasicURLNormalizer.filter: "protocol was lowercased" (or "http://" was put in front).
    let mut changed = !e.starts_with(protocol);
    let mut normalize_path = false;
    if matches!(protocol, "http" | "https" | "ftp") {
        match url.authority {
            Some(authority) => {
                let new_host = normalize_host(url.host, opts)?;
                if new_host != url.host {
                    host = new_host;
                    changed = true;
                } else if authority != new_host {
                    // userinfo, a port or an empty port: rebuilt without them.
                    changed = true;
                }
            }
            None => changed = true,
        }
        if port == url.default_port() {
            port = -1;
            changed = true;
        }
        normalize_path = true;
        if file.is_empty() {
            file.push('/');
            changed = true;
            normalize_path = false;
        } else if !file.starts_with('/') {
            file.insert(0, '/');
            changed = true;
            normalize_path = false;
        }
        changed |= url.fragment.is_some();
    } else if protocol == "file" {
        normalize_path = true;
    }
    let file2 = normalize_file(&file, opts)?;
    if file2 != file {
        changed = true;
        file = file2;
    }
    if normalize_path {
        // BasicURLNormalizer.getFileWithNormalizedPath, on the rebuilt URL when something
        // changed and on the escaped input otherwise.
        let rebuilt;
        let source = if changed {
            rebuilt = rebuild(protocol, &host, port, &file);
            &rebuilt
        } else {
            e
        };
        let file2 = normalized_file(source)?;
        if file2 != file {
            changed = true;
            file = file2;
        }
    }
    if !changed {
        out.push_str(e);
        return Ok(());
    }
    // BasicURLNormalizer.filter: new URI(rebuilt).toURL().toString().
    let rebuilt = rebuild(protocol, &host, port, &file);
    let url = to_url(&rebuilt).map_err(malformed)?;
    url.write_external_form(out);
    Ok(())
}

/// `new URI(s).toURL()`: a URI that java.net.URI accepts, absolute, with a built-in handler.
/// `URL.fromURI` builds a `jrt:` URL from the URI's server-based host, which is not modelled:
/// `jrt:` URLs with an authority are refused.
fn to_url(s: &str) -> Result<JavaUrl<'_>, java_net::JavaError> {
    if parse_uri(s)?.scheme.is_none() {
        return Err("IllegalArgumentException: URI is not absolute");
    }
    let url = parse_url(s)?;
    if url.protocol == "jrt" && url.authority.is_some_and(|a| !a.is_empty()) {
        return Err("jrt: URLs with an authority are not reproduced");
    }
    Ok(url)
}

/// BasicURLNormalizer `hasSchemePattern`: `^[A-Za-z][A-Za-z0-9+.-]*:/` (RFC 2396 section 3.1
/// and a slash).
fn has_scheme(s: &str) -> bool {
    let b = s.as_bytes();
    let n = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || b"+-.".contains(&c)))
        .unwrap_or(b.len());
    b.first().is_some_and(u8::is_ascii_alphabetic) && b[n..].starts_with(b":/")
}

/// `protocol + "://" + host + (":" + port) + file`, as `filter` rebuilds a URL.
fn rebuild(protocol: &str, host: &str, port: i32, file: &str) -> String {
    let mut s = String::with_capacity(protocol.len() + host.len() + file.len() + 10);
    s.push_str(protocol);
    s.push_str("://");
    s.push_str(host);
    if port != -1 {
        s.push(':');
        s.push_str(&port.to_string());
    }
    s.push_str(file);
    s
}

/// BasicURLNormalizer.getFileWithNormalizedPath(new URI(s)): the raw path with
/// `URI.normalize()` when it holds `/.`, `//` or `./` (and leading `/..` stripped), `/` for
/// an empty path, then `?` and the raw query.
fn normalized_file(s: &str) -> Result<String, Reject> {
    let uri =
        parse_uri(s).map_err(|_| Reject::new("malformed URL (java.net.URI rejects it)", None))?;
    // An opaque URI has no path: Java throws a NullPointerException out of `filter`.
    let path = uri.path.ok_or(Reject::new(
        "NullPointerException in BasicURLNormalizer (opaque file: URI)",
        None,
    ))?;
    let mut file = if path.contains("/.") || path.contains("//") || path.contains("./") {
        java_net::normalize_path(path)
    } else {
        path.to_owned()
    };
    if file.is_empty() {
        file.push('/');
    }
    if let Some(q) = uri.query {
        file.push('?');
        file.push_str(q);
    }
    Ok(file)
}

/// BasicURLNormalizer.normalizeHostName: percent-decoding (`URLDecoder`, so `+` becomes a
/// space), `toLowerCase(Locale.ROOT)`, IDN per `opts.idn`, one trailing dot dropped.
fn normalize_host<'a>(host: &'a str, opts: &ProfileOptions) -> Result<Cow<'a, str>, Reject> {
    let mut h = Cow::Borrowed(host);
    if h.contains('%') {
        h = Cow::Owned(url_decode(&h)?);
    }
    if h.chars().any(|c| c.is_uppercase() || !c.is_ascii()) {
        let lower = h.to_lowercase();
        if lower != h {
            h = Cow::Owned(lower);
        }
    }
    match opts.idn {
        IdnNormalization::Punycode if !h.is_ascii() => h = Cow::Owned(idn::to_ascii(&h)?),
        IdnNormalization::Unicode if h.contains("xn--") => h = Cow::Owned(idn::to_unicode(&h)),
        _ => {}
    }
    if h.ends_with('.') {
        let mut s = h.into_owned();
        s.pop();
        h = Cow::Owned(s);
    }
    Ok(h)
}

/// `URLDecoder.decode(s, UTF_8)`: `+` is a space, each run of `%XX` is decoded as UTF-8 with
/// U+FFFD for bad sequences; a `%` without two hex digits throws.
fn url_decode(s: &str) -> Result<String, Reject> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut run = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                run.clear();
                while b.get(i) == Some(&b'%') {
                    let byte = s
                        .get(i + 1..i + 3)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .filter(|_| b[i + 1].is_ascii_hexdigit())
                        .ok_or(Reject::new(
                            "invalid hostname (URLDecoder: illegal escape)",
                            None,
                        ))?;
                    run.push(byte);
                    i += 3;
                }
                out.push_str(&String::from_utf8_lossy(&run));
            }
            b'+' => {
                out.push(' ');
                i += 1;
            }
            _ => {
                let c = s[i..].chars().next().unwrap_or_default();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    Ok(out)
}

/// BasicURLNormalizer `escapedCharacters`: the ASCII bytes that are always percent-encoded
/// (controls, space, `"`, `#`, `<`, `>`, `[`, `]`, `^`, `` ` ``, `{`, `|`, `}`, DEL).
fn must_escape(c: u8) -> bool {
    c <= 0x20 || c >= 0x7f || b"\"#<>[]^`{|}".contains(&c)
}

/// BasicURLNormalizer.escapePath on the whole URL: each UTF-8 byte that [`must_escape`] as
/// `%XX` (upper case), a `%` not followed by two hex digits as `%25`; borrowed when nothing
/// changes.
fn escape(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).is_some_and(u8::is_ascii_hexdigit);
    let needs = |i: usize| must_escape(b[i]) || (b[i] == b'%' && !(hex(i + 1) && hex(i + 2)));
    let Some(first) = (0..b.len()).find(|&i| needs(i)) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for (i, &c) in b.iter().enumerate().skip(first) {
        if needs(i) {
            push_escape(&mut out, c);
        } else {
            out.push(char::from(c));
        }
    }
    Cow::Owned(out)
}

/// `%XX` with upper-case hex digits.
fn push_escape(out: &mut String, c: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(c >> 4)]));
    out.push(char::from(HEX[usize::from(c & 15)]));
}

/// BasicURLNormalizer.unescapePath: `%XX` of an RFC 3986 unreserved character (section 2.3)
/// is decoded, every other `%XX` is upper-cased.
fn unescape(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).is_some_and(u8::is_ascii_hexdigit);
    if !(0..b.len()).any(|i| b[i] == b'%' && hex(i + 1) && hex(i + 2)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        if b[i] == b'%' && hex(i + 1) && hex(i + 2) {
            out.push_str(&s[plain..i]);
            let v = (hex_value(b[i + 1]) << 4) | hex_value(b[i + 2]);
            if v.is_ascii_alphanumeric() || b"-._~".contains(&v) {
                out.push(char::from(v));
            } else {
                push_escape(&mut out, v);
            }
            i += 3;
            plain = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[plain..]);
    Cow::Owned(out)
}

/// The value of an ASCII hex digit.
fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// BasicURLNormalizer.normalizeUrlFile (1.6): unescape the path; for a query, split it at
/// `&` into `name[=value]` pairs, drop empty names and [`ProfileOptions::remove_params`],
/// drop `=` with an empty value, sort by name (stable, UTF-16 order), and drop a `?` with
/// nothing after it.
///
/// 1.6 looks for the query at its index in the file before unescaping (crawler-commons
/// issue #559, fixed after 1.6): when the path held `%XX` of unreserved characters the query
/// is read from too far on, and Java throws `StringIndexOutOfBoundsException` when that is at
/// or past the end.
fn normalize_file(file: &str, opts: &ProfileOptions) -> Result<String, Reject> {
    let Some(q) = file.find('?') else {
        return Ok(unescape(file).into_owned());
    };
    if q + 1 >= file.len() {
        return Ok(unescape(&file[..q]).into_owned());
    }
    let unescaped = unescape(file);
    let oob = || {
        Reject::new(
            "StringIndexOutOfBoundsException in BasicURLNormalizer (crawler-commons issue #559)",
            None,
        )
    };
    let query = unescaped
        .get(q + 1..)
        .filter(|s| !s.is_empty())
        .ok_or_else(oob)?;
    let path = unescaped.get(..q).ok_or_else(oob)?;
    let mut pairs: Vec<(&str, Option<&str>)> = query
        .split('&')
        .filter_map(|pair| {
            let (name, value) = match pair.split_once('=') {
                Some((n, v)) => (n, Some(v).filter(|v| !v.is_empty())),
                None => (pair, None),
            };
            (!name.is_empty() && !opts.remove_params.contains(name)).then_some((name, value))
        })
        .collect();
    pairs.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let mut out = String::with_capacity(file.len());
    if !path.trim().is_empty() {
        out.push_str(path);
    }
    for (i, (name, value)) in pairs.into_iter().enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        out.push_str(name);
        if let Some(v) = value {
            out.push('=');
            out.push_str(v);
        }
    }
    Ok(out)
}

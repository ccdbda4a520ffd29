//! Web mode's own WHATWG URL parser: the URL Standard (url.spec.whatwg.org) as of July 2026,
//! including whatwg/url#914 (ASCII domains are only lowercased).
//!
//! - [`parser`]: 4.4 "basic URL parser", building the serialization (4.5) as it goes;
//! - [`host`]: 3.5 host parsing (domains through [`crate::domain_to_ascii`] in its
//!   [`crate::IdnaProfile::Web`] profile, IPv4, IPv6, opaque hosts) and 3.6 serializing;
//! - [`percent`]: the 1.3 percent-encode sets and the query's encoding override.
//!
//! A [`WebUrl`] is its href plus the offsets of its components, so every accessor is a slice.

mod host;
mod parser;
mod percent;

use encoding_rs::Encoding;
use host::HostInternal;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Why the URL parser returned failure: the validation errors of the URL Standard that are
/// fatal (4.4, 3.5), by name.
///
/// ```
/// use linksieve_iri::{parse_web, WebError};
/// assert_eq!(parse_web("/relative", None, None), Err(WebError::MissingScheme));
/// assert_eq!(parse_web("http://h:99999/", None, None), Err(WebError::PortOutOfRange));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum WebError {
    /// missing-scheme-non-relative-URL: no scheme, and no base (or a base with an opaque path
    /// and a reference that is not a fragment).
    #[error("relative URL without a base it can be resolved against")]
    MissingScheme,
    /// host-missing: a special URL with an empty host, or userinfo or a port without a host.
    #[error("missing host")]
    HostMissing,
    /// port-invalid: the port holds something other than ASCII digits.
    #[error("invalid port")]
    InvalidPort,
    /// port-out-of-range: the port is over 65535.
    #[error("port out of range")]
    PortOutOfRange,
    /// A domain that ends in a number but is not an IPv4 address (IPv4-too-many-parts,
    /// IPv4-non-numeric-part, IPv4-out-of-range-part).
    #[error("invalid IPv4 address")]
    InvalidIpv4,
    /// An IPv6 address that fails the IPv6 parser, or IPv6-unclosed.
    #[error("invalid IPv6 address")]
    InvalidIpv6,
    /// host-invalid-code-point or domain-invalid-code-point: a forbidden host or domain code
    /// point, or an empty domain.
    #[error("invalid host (forbidden code point)")]
    InvalidHost,
    /// domain-to-ASCII: UTS 46 ToASCII failed on a non-ASCII domain.
    #[error("invalid domain (IDNA ToASCII failed)")]
    Idna,
}

/// The special schemes (URL Standard 4.2) and the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Scheme {
    Ftp,
    File,
    Http,
    Https,
    Ws,
    Wss,
    Other,
}

impl Scheme {
    fn from_lowercase(s: &str) -> Scheme {
        match s {
            "ftp" => Scheme::Ftp,
            "file" => Scheme::File,
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            "ws" => Scheme::Ws,
            "wss" => Scheme::Wss,
            _ => Scheme::Other,
        }
    }

    fn is_special(self) -> bool {
        self != Scheme::Other
    }

    /// URL Standard 4.2: the default port.
    fn default_port(self) -> Option<u16> {
        match self {
            Scheme::Ftp => Some(21),
            Scheme::Http | Scheme::Ws => Some(80),
            Scheme::Https | Scheme::Wss => Some(443),
            Scheme::File | Scheme::Other => None,
        }
    }
}

/// A URL record (URL Standard 4.1), held as its serialization (the href, 4.5) and the offsets
/// of its components: every accessor is O(1).
///
/// ```
/// let u = linksieve_iri::WebUrl::parse("HTTPS://user:pw@Example.COM:443/a/./b/../c?q#f").unwrap();
/// assert_eq!(u.as_str(), "https://user:pw@example.com/a/c?q#f");
/// assert_eq!((u.scheme(), u.username(), u.password()), ("https", "user", "pw"));
/// assert_eq!((u.host_str(), u.port(), u.path()), (Some("example.com"), None, "/a/c"));
/// assert_eq!((u.query(), u.fragment()), (Some("q"), Some("f")));
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct WebUrl {
    serialization: String,
    scheme: Scheme,
    /// The `:` after the scheme.
    scheme_end: usize,
    /// The end of the username (the password's `:` or `@` when there is one).
    username_end: usize,
    host_start: usize,
    host_end: usize,
    host: HostInternal,
    port: Option<u16>,
    /// The end of the host and port: where the path starts, or the `/.` that protects it.
    authority_end: usize,
    path_start: usize,
    opaque_path: bool,
    /// The `?` of the query.
    query_start: Option<usize>,
    /// The `#` of the fragment.
    fragment_start: Option<usize>,
}

/// A URL's host (URL Standard 3.1), borrowed from the URL.
///
/// ```
/// use linksieve_iri::{WebHost, WebUrl};
/// let host = |s: &str| WebUrl::parse(s).unwrap().host().map(|h| h.to_string());
/// assert_eq!(host("http://0x7f.1/").as_deref(), Some("127.0.0.1"));
/// assert_eq!(host("http://[0::1]/").as_deref(), Some("[::1]"));
/// assert_eq!(host("file:///etc").as_deref(), Some(""));
/// assert_eq!(host("mailto:a@b").as_deref(), None);
/// assert!(matches!(WebUrl::parse("git://Host/x").unwrap().host(), Some(WebHost::Opaque("Host"))));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WebHost<'a> {
    /// A domain: ASCII, lowercase, after IDNA.
    Domain(&'a str),
    /// An IPv4 address.
    Ipv4(Ipv4Addr),
    /// An IPv6 address.
    Ipv6(Ipv6Addr),
    /// An opaque host (a URL that is not special): its text, percent-encoded.
    Opaque(&'a str),
    /// The empty host (`file:///`, `foo:///`).
    Empty,
}

impl fmt::Display for WebHost<'_> {
    /// The host serializer (URL Standard 3.6).
    ///
    /// ```
    /// use linksieve_iri::WebHost;
    /// assert_eq!(WebHost::Ipv6("2001:db8::1".parse().unwrap()).to_string(), "[2001:db8::1]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebHost::Domain(s) | WebHost::Opaque(s) => f.write_str(s),
            WebHost::Ipv4(a) => write!(f, "{a}"),
            WebHost::Ipv6(a) => {
                let mut s = String::with_capacity(41);
                host::write_ipv6(&mut s, &a.segments());
                write!(f, "[{s}]")
            }
            WebHost::Empty => Ok(()),
        }
    }
}

/// Parses `input` with the URL Standard's URL parser (4.4), against an optional base URL and
/// with an optional document encoding for the query (the encoding override; 3987bis 3.5).
///
/// ```
/// use linksieve_iri::parse_web;
/// let base = parse_web("http://example.com/a/b", None, None).unwrap();
/// assert_eq!(parse_web("../c d", Some(&base), None).unwrap().as_str(), "http://example.com/c%20d");
/// let blank = parse_web("about:blank", None, None).unwrap();
/// assert_eq!(parse_web("#x", Some(&blank), None).unwrap().as_str(), "about:blank#x");
/// let sjis = parse_web("http://h/?≡‽", None, Some(encoding_rs::SHIFT_JIS)).unwrap();
/// assert_eq!(sjis.query(), Some("%81%DF%26%238253%3B"));
/// ```
pub fn parse_web(
    input: &str,
    base: Option<&WebUrl>,
    encoding: Option<&'static Encoding>,
) -> Result<WebUrl, WebError> {
    parser::parse(input, base, encoding)
}

impl WebUrl {
    /// Parses an absolute URL: [`parse_web`] without base and encoding.
    ///
    /// ```
    /// assert!(linksieve_iri::WebUrl::parse("//h/p").is_err());
    /// assert_eq!(linksieve_iri::WebUrl::parse(" http://h ").unwrap().as_str(), "http://h/");
    /// ```
    pub fn parse(input: &str) -> Result<WebUrl, WebError> {
        parser::parse(input, None, None)
    }

    /// `self.serialization[from..to]` (offsets are ASCII positions of the ASCII href).
    fn slice(&self, from: usize, to: usize) -> &str {
        self.serialization.get(from..to).unwrap_or_default()
    }

    /// The href: the URL serializer's output (URL Standard 4.5), ASCII.
    ///
    /// ```
    /// let u = linksieve_iri::WebUrl::parse("http://h/a b").unwrap();
    /// assert_eq!(u.as_str(), "http://h/a%20b");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.serialization
    }

    /// The scheme, lowercase, without its `:`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("HTTP://h").unwrap().scheme(), "http");
    /// ```
    pub fn scheme(&self) -> &str {
        self.slice(0, self.scheme_end)
    }

    /// True when the scheme is special (URL Standard 4.2: ftp, file, http, https, ws, wss).
    ///
    /// ```
    /// assert!(linksieve_iri::WebUrl::parse("ws://h").unwrap().is_special());
    /// assert!(!linksieve_iri::WebUrl::parse("git://h").unwrap().is_special());
    /// ```
    pub fn is_special(&self) -> bool {
        self.scheme.is_special()
    }

    /// The username, percent-encoded (empty when there is none).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://a b@h").unwrap().username(), "a%20b");
    /// ```
    pub fn username(&self) -> &str {
        if self.host == HostInternal::None {
            return "";
        }
        self.slice(self.scheme_end + 3, self.username_end)
    }

    /// The password, percent-encoded (empty when there is none).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://u:p:q@h").unwrap().password(), "p%3Aq");
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://u@h").unwrap().password(), "");
    /// ```
    pub fn password(&self) -> &str {
        if self.username_end < self.host_start
            && self.serialization.as_bytes().get(self.username_end) == Some(&b':')
        {
            return self.slice(self.username_end + 1, self.host_start - 1);
        }
        ""
    }

    /// The serialized host (URL Standard 3.6: IPv6 in brackets), or `None` when the host is
    /// null; `Some("")` for the empty host.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://[::1]:8080").unwrap().host_str(), Some("[::1]"));
    /// assert_eq!(linksieve_iri::WebUrl::parse("urn:x").unwrap().host_str(), None);
    /// ```
    pub fn host_str(&self) -> Option<&str> {
        (self.host != HostInternal::None).then(|| self.slice(self.host_start, self.host_end))
    }

    /// The host, or `None` when it is null.
    ///
    /// ```
    /// use linksieve_iri::{WebHost, WebUrl};
    /// let u = WebUrl::parse("http://192.168.0.1/").unwrap();
    /// assert_eq!(u.host(), Some(WebHost::Ipv4([192, 168, 0, 1].into())));
    /// ```
    pub fn host(&self) -> Option<WebHost<'_>> {
        let text = self.slice(self.host_start, self.host_end);
        Some(match self.host {
            HostInternal::None => return None,
            HostInternal::Empty => WebHost::Empty,
            HostInternal::Domain => WebHost::Domain(text),
            HostInternal::Opaque => WebHost::Opaque(text),
            HostInternal::Ipv4(a) => WebHost::Ipv4(Ipv4Addr::from(a)),
            HostInternal::Ipv6(p) => WebHost::Ipv6(Ipv6Addr::from(p)),
        })
    }

    /// The port, `None` when absent or the scheme's default port (URL Standard 4.1).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h:80").unwrap().port(), None);
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h:0081").unwrap().port(), Some(81));
    /// ```
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The path, serialized (URL Standard 4.5 "URL path serializer"; without the `/.` the href
    /// may hold before it).
    ///
    /// ```
    /// let u = linksieve_iri::WebUrl::parse("web+demo:/.//not-a-host/").unwrap();
    /// assert_eq!((u.as_str(), u.path()), ("web+demo:/.//not-a-host/", "//not-a-host/"));
    /// ```
    pub fn path(&self) -> &str {
        let end = self
            .query_start
            .or(self.fragment_start)
            .unwrap_or(self.serialization.len());
        self.slice(self.path_start, end)
    }

    /// The query without its `?`, or `None` when it is null.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h/?").unwrap().query(), Some(""));
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h/").unwrap().query(), None);
    /// ```
    pub fn query(&self) -> Option<&str> {
        let end = self.fragment_start.unwrap_or(self.serialization.len());
        self.query_start.map(|q| self.slice(q + 1, end))
    }

    /// The fragment without its `#`, or `None` when it is null.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h/#a#b").unwrap().fragment(), Some("a#b"));
    /// ```
    pub fn fragment(&self) -> Option<&str> {
        self.fragment_start
            .map(|f| self.slice(f + 1, self.serialization.len()))
    }

    /// True when the path is opaque (a single string, as in `mailto:` or `data:` URLs).
    ///
    /// ```
    /// assert!(linksieve_iri::WebUrl::parse("data:text/plain,x").unwrap().has_opaque_path());
    /// assert!(!linksieve_iri::WebUrl::parse("foo:/x").unwrap().has_opaque_path());
    /// ```
    pub fn has_opaque_path(&self) -> bool {
        self.opaque_path
    }

    /// The byte range of the host in [`Self::as_str`], when the host is not null or empty.
    pub(crate) fn host_range(&self) -> Option<std::ops::Range<usize>> {
        (self.host_end > self.host_start).then_some(self.host_start..self.host_end)
    }

    /// The position of the fragment's `#` in [`Self::as_str`].
    pub(crate) fn fragment_start(&self) -> Option<usize> {
        self.fragment_start
    }
}

impl fmt::Display for WebUrl {
    /// Writes the href.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::WebUrl::parse("http://h").unwrap().to_string(), "http://h/");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.serialization)
    }
}

impl fmt::Debug for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WebUrl").field(&self.serialization).finish()
    }
}

impl From<WebUrl> for String {
    /// The href, without copying.
    ///
    /// ```
    /// let s: String = linksieve_iri::WebUrl::parse("http://h").unwrap().into();
    /// assert_eq!(s, "http://h/");
    /// ```
    fn from(u: WebUrl) -> String {
        u.serialization
    }
}

impl std::str::FromStr for WebUrl {
    type Err = WebError;

    /// [`WebUrl::parse`].
    ///
    /// ```
    /// let u: linksieve_iri::WebUrl = "http://h/".parse().unwrap();
    /// assert_eq!(u.as_str(), "http://h/");
    /// ```
    fn from_str(s: &str) -> Result<WebUrl, WebError> {
        WebUrl::parse(s)
    }
}

impl AsRef<str> for WebUrl {
    /// The href.
    ///
    /// ```
    /// let u = linksieve_iri::WebUrl::parse("http://h").unwrap();
    /// assert_eq!(AsRef::<str>::as_ref(&u), "http://h/");
    /// ```
    fn as_ref(&self) -> &str {
        &self.serialization
    }
}

#[cfg(test)]
mod tests;

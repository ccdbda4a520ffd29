//! The parser: IRI-reference per 3987bis 2.2, and the same grammar restricted to URIs (RFC 3986).
//!
//! One pass over the bytes, left to right, with a lookup table for ASCII and range checks for
//! non-ASCII characters. The result is a set of offsets ([`Spans`]) into the input: no component is
//! copied.
//!
//! Files: this one holds the types ([`IriRef`], [`Parts`], [`Spans`], errors); `grammar.rs` the
//! scan (the ABNF of 3987bis 2.2, one component class at a time); `ip.rs` the IP-literal and
//! IPv4 rules (RFC 3986 3.2.2).

mod grammar;
mod ip;
#[cfg(test)]
mod tests;

use grammar::parse_spans;
pub use ip::{parse_ipv4, parse_ipv6};
use std::fmt;

/// Which grammar the parser enforces.
///
/// ```
/// use linksieve_iri::{Grammar, IriRef};
/// assert!(IriRef::parse_with("http://é.example/", Grammar::Iri).is_ok());
/// assert!(IriRef::parse_with("http://é.example/", Grammar::Uri).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Grammar {
    /// 3987bis 2.2 `IRI-reference`: `ucschar` allowed, `iprivate` in the query only.
    #[default]
    Iri,
    /// RFC 3986 `URI-reference`: ASCII only.
    Uri,
}

/// The component of an IRI reference that an error or a diagnostic is about.
///
/// ```
/// use linksieve_iri::{Component, IriRef};
/// let err = IriRef::parse("http://a b/").unwrap_err();
/// assert_eq!(err.component, Component::Host);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// `scheme`.
    Scheme,
    /// `iuserinfo`.
    Userinfo,
    /// `ihost`.
    Host,
    /// `port`.
    Port,
    /// `ipath`.
    Path,
    /// `iquery`.
    Query,
    /// `ifragment`.
    Fragment,
}

impl Component {
    /// The name of the grammar rule (3987bis 2.2).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::Component::Path.rule(), "ipath");
    /// ```
    pub fn rule(self) -> &'static str {
        match self {
            Component::Scheme => "scheme",
            Component::Userinfo => "iuserinfo",
            Component::Host => "ihost",
            Component::Port => "port",
            Component::Path => "ipath",
            Component::Query => "iquery",
            Component::Fragment => "ifragment",
        }
    }
}

impl fmt::Display for Component {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rule())
    }
}

/// What went wrong in a parse.
///
/// ```
/// use linksieve_iri::{IriRef, ParseErrorKind};
/// assert_eq!(IriRef::parse("a%zz").unwrap_err().kind, ParseErrorKind::InvalidPercentEncoding);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// A character the component's rule does not allow.
    InvalidChar(char),
    /// `%` not followed by two hexadecimal digits (`pct-encoded`).
    InvalidPercentEncoding,
    /// An `IP-literal` that is neither a valid `IPv6address` nor `IPvFuture`, or lacks its `]`.
    InvalidIpLiteral,
    /// A colon in the first segment of a relative-path reference (`ipath-noscheme`, RFC 3986 4.2).
    ColonInFirstSegment,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::InvalidChar(c) if c.is_ascii_graphic() => {
                write!(f, "invalid character '{c}'")
            }
            ParseErrorKind::InvalidChar(c) => write!(f, "invalid character U+{:04X}", *c as u32),
            ParseErrorKind::InvalidPercentEncoding => {
                f.write_str("'%' not followed by two hex digits")
            }
            ParseErrorKind::InvalidIpLiteral => f.write_str("invalid IP-literal"),
            ParseErrorKind::ColonInFirstSegment => {
                f.write_str("colon in the first segment of a relative path (ipath-noscheme)")
            }
        }
    }
}

/// A parse error: what, in which component, at which byte offset of the input.
///
/// ```
/// use linksieve_iri::IriRef;
/// let err = IriRef::parse("http://example.com/a b").unwrap_err();
/// assert_eq!(err.offset, 20);
/// assert_eq!(err.to_string(), "invalid character U+0020 in ipath at byte 20");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{kind} in {component} at byte {offset}")]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where, by grammar rule.
    pub component: Component,
    /// Byte offset into the parsed string.
    pub offset: usize,
}

/// Offsets of the components of a parsed IRI reference into its text.
///
/// Scheme: `[0, scheme_end - 1)`; authority: `[scheme_end + 2, path_start)` when present;
/// host: `[host_start, host_end)`; path: `[path_start, path_end)`; query: `(path_end, query_end)`
/// when `path_end < query_end`; fragment: `(query_end, len)` when `query_end < len`.
///
/// ```
/// use linksieve_iri::IriRef;
/// let r = IriRef::parse("s://h:1/p?q#f").unwrap();
/// assert_eq!(r.spans().path(), 7..9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Spans {
    pub(crate) scheme_end: usize,
    pub(crate) has_authority: bool,
    pub(crate) host_start: usize,
    pub(crate) host_end: usize,
    pub(crate) path_start: usize,
    pub(crate) path_end: usize,
    pub(crate) query_end: usize,
    pub(crate) len: usize,
}

impl Spans {
    /// The byte range of the path.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("a:b").unwrap();
    /// assert_eq!(r.spans().path(), 2..3);
    /// ```
    pub fn path(&self) -> std::ops::Range<usize> {
        self.path_start..self.path_end
    }

    /// The byte range of the host, when there is an authority.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("http://u@h:8/").unwrap();
    /// assert_eq!(r.spans().host(), Some(9..10));
    /// ```
    pub fn host(&self) -> Option<std::ops::Range<usize>> {
        self.has_authority.then_some(self.host_start..self.host_end)
    }
}

/// The kind of host (3987bis 2.2 `ihost`).
///
/// ```
/// use linksieve_iri::{HostKind, IriRef};
/// assert_eq!(IriRef::parse("http://[::1]/").unwrap().host_kind(), Some(HostKind::Ipv6));
/// assert_eq!(IriRef::parse("http://10.0.0.1/").unwrap().host_kind(), Some(HostKind::Ipv4));
/// assert_eq!(IriRef::parse("http://010.0.0.1/").unwrap().host_kind(), Some(HostKind::RegName));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// `IPv6address` in brackets.
    Ipv6,
    /// `IPvFuture` in brackets.
    IpFuture,
    /// `IPv4address` (dotted decimal, no leading zeros).
    Ipv4,
    /// `ireg-name`, possibly empty.
    RegName,
}

/// A parsed IRI reference: its text `S` (a `&str`, a `String`, ...) and the [`Spans`] of its
/// components. Every accessor returns a slice of the one buffer.
///
/// ```
/// use linksieve_iri::IriRef;
/// let r = IriRef::parse("http://user@example.org:8080/a/b?q=1#top").unwrap();
/// assert_eq!(r.scheme(), Some("http"));
/// assert_eq!(r.userinfo(), Some("user"));
/// assert_eq!(r.host(), Some("example.org"));
/// assert_eq!(r.port(), Some("8080"));
/// assert_eq!(r.path(), "/a/b");
/// assert_eq!(r.query(), Some("q=1"));
/// assert_eq!(r.fragment(), Some("top"));
/// assert_eq!(r.as_str(), "http://user@example.org:8080/a/b?q=1#top");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IriRef<S = String> {
    text: S,
    spans: Spans,
}

impl<S: AsRef<str>> fmt::Debug for IriRef<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IriRef")
            .field("text", &self.as_str())
            .field("scheme", &self.scheme())
            .field("authority", &self.authority())
            .field("path", &self.path())
            .field("query", &self.query())
            .field("fragment", &self.fragment())
            .finish()
    }
}

impl<S: AsRef<str>> fmt::Display for IriRef<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<'a> IriRef<&'a str> {
    /// Parses an IRI reference (3987bis 2.2 `IRI-reference`), borrowing `s`.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("../résumé?x#y").unwrap();
    /// assert_eq!(r.path(), "../résumé");
    /// assert!(!r.is_absolute());
    /// ```
    pub fn parse(s: &'a str) -> Result<Self, ParseError> {
        Self::parse_with(s, Grammar::Iri)
    }
}

impl<S: AsRef<str>> IriRef<S> {
    /// Parses `text` with the given grammar.
    ///
    /// ```
    /// use linksieve_iri::{Grammar, IriRef};
    /// let r = IriRef::parse_with(String::from("urn:isbn:0451450523"), Grammar::Uri).unwrap();
    /// assert_eq!(r.path(), "isbn:0451450523");
    /// ```
    pub fn parse_with(text: S, grammar: Grammar) -> Result<Self, ParseError> {
        let spans = parse_spans(text.as_ref(), grammar)?;
        Ok(IriRef { text, spans })
    }

    /// Builds from text and spans known to be valid (crate-internal constructors only).
    pub(crate) fn from_parts(text: S, spans: Spans) -> Self {
        debug_assert_eq!(spans.len, text.as_ref().len());
        IriRef { text, spans }
    }

    /// The whole reference as text.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("a:b").unwrap().as_str(), "a:b");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        self.text.as_ref()
    }

    /// The text, consumed.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("a:b").unwrap();
    /// assert_eq!(r.into_inner(), "a:b");
    /// ```
    pub fn into_inner(self) -> S {
        self.text
    }

    /// The offsets of the components.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("a:b").unwrap();
    /// assert_eq!(r.spans().path(), 2..3);
    /// ```
    pub fn spans(&self) -> &Spans {
        &self.spans
    }

    /// A borrowed view of the same reference.
    ///
    /// ```
    /// let owned = linksieve_iri::IriRef::parse("a:b").unwrap().to_owned();
    /// assert_eq!(owned.as_ref().path(), "b");
    /// ```
    pub fn as_ref(&self) -> IriRef<&str> {
        IriRef {
            text: self.as_str(),
            spans: self.spans,
        }
    }

    /// An owned copy.
    ///
    /// ```
    /// let owned: linksieve_iri::IriRef<String> = linksieve_iri::IriRef::parse("a:b").unwrap().to_owned();
    /// assert_eq!(owned.as_str(), "a:b");
    /// ```
    pub fn to_owned(&self) -> IriRef<String> {
        IriRef {
            text: self.as_str().to_owned(),
            spans: self.spans,
        }
    }

    /// True when the reference has a scheme (an IRI, not a relative reference).
    ///
    /// ```
    /// assert!(linksieve_iri::IriRef::parse("mailto:a@b").unwrap().is_absolute());
    /// assert!(!linksieve_iri::IriRef::parse("//b/c").unwrap().is_absolute());
    /// ```
    #[inline]
    pub fn is_absolute(&self) -> bool {
        self.spans.scheme_end > 0
    }

    /// The scheme, without the `:`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("HTTP://x").unwrap().scheme(), Some("HTTP"));
    /// ```
    #[inline]
    pub fn scheme(&self) -> Option<&str> {
        (self.spans.scheme_end > 0).then(|| &self.as_str()[..self.spans.scheme_end - 1])
    }

    /// The authority, without the `//`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("//u@h:1/p").unwrap().authority(), Some("u@h:1"));
    /// assert_eq!(linksieve_iri::IriRef::parse("file:///p").unwrap().authority(), Some(""));
    /// ```
    #[inline]
    pub fn authority(&self) -> Option<&str> {
        self.spans
            .has_authority
            .then(|| &self.as_str()[self.spans.scheme_end + 2..self.spans.path_start])
    }

    /// The userinfo, without the `@`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("//u:p@h").unwrap().userinfo(), Some("u:p"));
    /// ```
    #[inline]
    pub fn userinfo(&self) -> Option<&str> {
        let a = self.spans.scheme_end + 2;
        (self.spans.has_authority && self.spans.host_start > a)
            .then(|| &self.as_str()[a..self.spans.host_start - 1])
    }

    /// The host, as written (IP literals with their brackets).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("//[::1]:80").unwrap().host(), Some("[::1]"));
    /// ```
    #[inline]
    pub fn host(&self) -> Option<&str> {
        self.spans
            .has_authority
            .then(|| &self.as_str()[self.spans.host_start..self.spans.host_end])
    }

    /// The kind of host, when there is an authority.
    ///
    /// ```
    /// use linksieve_iri::{HostKind, IriRef};
    /// assert_eq!(IriRef::parse("//[v1.x]").unwrap().host_kind(), Some(HostKind::IpFuture));
    /// ```
    pub fn host_kind(&self) -> Option<HostKind> {
        let h = self.host()?.as_bytes();
        Some(if h.first() == Some(&b'[') {
            if matches!(h.get(1), Some(b'v' | b'V')) {
                HostKind::IpFuture
            } else {
                HostKind::Ipv6
            }
        } else if parse_ipv4(h).is_some() {
            HostKind::Ipv4
        } else {
            HostKind::RegName
        })
    }

    /// The port, without the `:` (possibly empty).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("//h:").unwrap().port(), Some(""));
    /// assert_eq!(linksieve_iri::IriRef::parse("//h").unwrap().port(), None);
    /// ```
    #[inline]
    pub fn port(&self) -> Option<&str> {
        (self.spans.has_authority && self.spans.host_end < self.spans.path_start)
            .then(|| &self.as_str()[self.spans.host_end + 1..self.spans.path_start])
    }

    /// The path (possibly empty).
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("http://h/a/b?c").unwrap().path(), "/a/b");
    /// ```
    #[inline]
    pub fn path(&self) -> &str {
        &self.as_str()[self.spans.path_start..self.spans.path_end]
    }

    /// The query, without the `?`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("/p?").unwrap().query(), Some(""));
    /// ```
    #[inline]
    pub fn query(&self) -> Option<&str> {
        (self.spans.path_end < self.spans.query_end)
            .then(|| &self.as_str()[self.spans.path_end + 1..self.spans.query_end])
    }

    /// The fragment, without the `#`.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::IriRef::parse("#x").unwrap().fragment(), Some("x"));
    /// ```
    #[inline]
    pub fn fragment(&self) -> Option<&str> {
        (self.spans.query_end < self.spans.len).then(|| &self.as_str()[self.spans.query_end + 1..])
    }

    /// The reference without its fragment.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("http://h/p#f").unwrap();
    /// assert_eq!(r.without_fragment().as_str(), "http://h/p");
    /// ```
    pub fn without_fragment(&self) -> IriRef<&str> {
        let mut spans = self.spans;
        spans.len = spans.query_end;
        IriRef {
            text: &self.as_str()[..spans.query_end],
            spans,
        }
    }

    /// Appends the reference, recomposed from its components (RFC 3986 5.3), to `out`.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("s://u@h:1/p?q#f").unwrap();
    /// let mut out = String::new();
    /// r.write_to(&mut out);
    /// assert_eq!(out, "s://u@h:1/p?q#f");
    /// ```
    pub fn write_to(&self, out: &mut String) {
        // RFC 3986 5.3, with the authority (`[ userinfo "@" ] host [ ":" port ]`) taken whole:
        // the same text as `Parts::of(self).write_to(out)`, in five pieces instead of eleven.
        let t = self.as_str();
        let sp = &self.spans;
        out.reserve(t.len());
        if sp.scheme_end > 0 {
            out.push_str(&t[..sp.scheme_end - 1]);
            out.push(':');
        }
        if sp.has_authority {
            out.push_str("//");
            out.push_str(&t[sp.scheme_end + 2..sp.path_start]);
        }
        out.push_str(&t[sp.path_start..sp.path_end]);
        if sp.query_end > sp.path_end {
            out.push('?');
            out.push_str(&t[sp.path_end + 1..sp.query_end]);
        }
        if sp.len > sp.query_end {
            out.push('#');
            out.push_str(&t[sp.query_end + 1..]);
        }
    }
}

impl std::str::FromStr for IriRef<String> {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        IriRef::parse_with(s.to_owned(), Grammar::Iri)
    }
}

/// The components of a reference as separate slices, for recomposition (RFC 3986 5.3).
///
/// ```
/// use linksieve_iri::{IriRef, Parts};
/// let p = Parts { scheme: Some("a"), path: "b", fragment: Some("c"), ..Parts::default() };
/// assert_eq!(p.to_string(), "a:b#c");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts<'a> {
    /// Scheme without `:`.
    pub scheme: Option<&'a str>,
    /// Userinfo without `@` (only with a host).
    pub userinfo: Option<&'a str>,
    /// Host: `Some` exactly when there is an authority (possibly empty).
    pub host: Option<&'a str>,
    /// Port without `:` (only with a host).
    pub port: Option<&'a str>,
    /// Path.
    pub path: &'a str,
    /// Query without `?`.
    pub query: Option<&'a str>,
    /// Fragment without `#`.
    pub fragment: Option<&'a str>,
}

impl<'a> Parts<'a> {
    /// The parts of a parsed reference.
    ///
    /// ```
    /// let r = linksieve_iri::IriRef::parse("a:b?c").unwrap();
    /// assert_eq!(linksieve_iri::Parts::of(&r).query, Some("c"));
    /// ```
    pub fn of<S: AsRef<str>>(r: &'a IriRef<S>) -> Self {
        Parts {
            scheme: r.scheme(),
            userinfo: r.userinfo(),
            host: r.host(),
            port: r.port(),
            path: r.path(),
            query: r.query(),
            fragment: r.fragment(),
        }
    }

    /// Recomposes into `out` (RFC 3986 5.3).
    ///
    /// ```
    /// let mut s = String::new();
    /// linksieve_iri::Parts { path: "x", ..Default::default() }.write_to(&mut s);
    /// assert_eq!(s, "x");
    /// ```
    pub fn write_to(&self, out: &mut String) {
        if let Some(s) = self.scheme {
            out.push_str(s);
            out.push(':');
        }
        if let Some(h) = self.host {
            out.push_str("//");
            if let Some(u) = self.userinfo {
                out.push_str(u);
                out.push('@');
            }
            out.push_str(h);
            if let Some(p) = self.port {
                out.push(':');
                out.push_str(p);
            }
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

    /// Reassembles the parts as they are (no component mapped): [`build`](Parts::build) with
    /// the identity.
    ///
    /// ```
    /// use linksieve_iri::{IriRef, Parts};
    /// let r = IriRef::parse("http://h/a?b").unwrap();
    /// let p = Parts { query: None, ..Parts::of(&r) };
    /// assert_eq!(p.assemble().as_str(), "http://h/a");
    /// ```
    pub fn assemble(&self) -> IriRef<String> {
        let built: Result<_, std::convert::Infallible> = self.build(|out, _, text| {
            out.push_str(text);
            Ok(())
        });
        built.unwrap_or_else(|e| match e {})
    }

    /// Recomposes into a new [`IriRef`], passing each component through `map`, which appends the
    /// component's new text (without its delimiter) to the buffer. The scheme is written as is.
    /// Where a path without an authority would start with `//` (it would re-parse as an
    /// authority, RFC 3986 3.3), `/.` is put in front of it, as WHATWG does.
    ///
    /// ```
    /// use linksieve_iri::{Component, IriRef, Parts};
    /// let r = IriRef::parse("http://h/a?b").unwrap();
    /// let up: Result<_, ()> = Parts::of(&r).build(|out, c, text| {
    ///     if c == Component::Path { out.push_str(&text.to_uppercase()) } else { out.push_str(text) }
    ///     Ok(())
    /// });
    /// assert_eq!(up.unwrap().as_str(), "http://h/A?b");
    /// ```
    pub fn build<E>(
        &self,
        mut map: impl FnMut(&mut String, Component, &str) -> Result<(), E>,
    ) -> Result<IriRef<String>, E> {
        let cap =
            self.scheme.map_or(0, str::len) + self.host.map_or(0, str::len) + self.path.len() + 8;
        let mut out = String::with_capacity(cap);
        let mut sp = Spans::default();
        if let Some(s) = self.scheme {
            out.push_str(s);
            out.push(':');
        }
        sp.scheme_end = out.len();
        if let Some(h) = self.host {
            out.push_str("//");
            if let Some(u) = self.userinfo {
                map(&mut out, Component::Userinfo, u)?;
                out.push('@');
            }
            sp.has_authority = true;
            sp.host_start = out.len();
            map(&mut out, Component::Host, h)?;
            sp.host_end = out.len();
            if let Some(p) = self.port {
                out.push(':');
                map(&mut out, Component::Port, p)?;
            }
        } else {
            sp.host_start = out.len();
            sp.host_end = sp.host_start;
        }
        let path_start = out.len();
        sp.path_start = path_start;
        map(&mut out, Component::Path, self.path)?;
        if !sp.has_authority && out[path_start..].starts_with("//") {
            out.insert_str(path_start, "/.");
        }
        sp.path_end = out.len();
        if let Some(q) = self.query {
            out.push('?');
            map(&mut out, Component::Query, q)?;
        }
        sp.query_end = out.len();
        if let Some(f) = self.fragment {
            out.push('#');
            map(&mut out, Component::Fragment, f)?;
        }
        sp.len = out.len();
        Ok(IriRef::from_parts(out, sp))
    }
}

impl fmt::Display for Parts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// Validates `s` against the grammar without building anything.
///
/// ```
/// use linksieve_iri::{validate, Grammar};
/// assert!(validate("http://example.com/ü", Grammar::Iri).is_ok());
/// assert!(validate("http://example.com/ü", Grammar::Uri).is_err());
/// ```
pub fn validate(s: &str, grammar: Grammar) -> Result<(), ParseError> {
    parse_spans(s, grammar).map(|_| ())
}

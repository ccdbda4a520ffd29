//! The parser: IRI-reference per 3987bis 2.2, and the same grammar restricted to URIs (RFC 3986).
//!
//! One pass over the bytes, left to right, with a lookup table for ASCII and range checks for
//! non-ASCII characters. The result is a set of offsets ([`Spans`]) into the input: no component is
//! copied.

use crate::chars::{self, COLON_AT, HEX, PCHAR, SCHEME, SLASH_QMARK, SUB_DELIM, UNRESERVED};
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

#[inline(always)]
fn err(kind: ParseErrorKind, component: Component, offset: usize) -> ParseError {
    ParseError {
        kind,
        component,
        offset,
    }
}

/// Error for the character starting at byte `i` of `s`.
#[cold]
fn bad_char(s: &str, i: usize, component: Component) -> ParseError {
    let c = s[i..].chars().next().unwrap_or('\0');
    err(ParseErrorKind::InvalidChar(c), component, i)
}

/// Parses `s` into spans (3987bis 2.2; RFC 3986 3 and 4.1 for the structure).
#[inline(always)]
pub(crate) fn parse_spans(s: &str, grammar: Grammar) -> Result<Spans, ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
    let mut scheme_end = 0;
    if len > 0 && b[0].is_ascii_alphabetic() {
        let mut i = 1;
        while i < len && chars::is(b[i], SCHEME) {
            i += 1;
        }
        if i < len && b[i] == b':' {
            scheme_end = i + 1;
        }
    }
    // ihier-part / irelative-part: "//" iauthority
    let has_authority =
        b.len() >= scheme_end + 2 && b[scheme_end] == b'/' && b[scheme_end + 1] == b'/';
    let (host_start, host_end, path_start) = if has_authority {
        parse_authority(s, scheme_end + 2, grammar)?
    } else {
        (scheme_end, scheme_end, scheme_end)
    };
    let mut i = path_start;
    // ipath: *( ipchar / "/" ), stops at "?" or "#".
    i = scan(
        s,
        i,
        grammar,
        PCHAR | SLASH_QMARK,
        FAST_PATH,
        false,
        b'?',
        Component::Path,
    )?;
    let path_end = i;
    if scheme_end == 0 && !has_authority {
        // ipath-noscheme: the first segment of a relative-path reference has no ":" (RFC 3986 4.2).
        let path = &b[path_start..i];
        let first = memchr::memchr(b'/', path).unwrap_or(path.len());
        if let Some(c) = memchr::memchr(b':', &path[..first]) {
            return Err(err(
                ParseErrorKind::ColonInFirstSegment,
                Component::Path,
                path_start + c,
            ));
        }
    }
    if i < len && b[i] == b'?' {
        // iquery = *( ipchar / iprivate / "/" / "?" )
        i = scan(
            s,
            i + 1,
            grammar,
            PCHAR | SLASH_QMARK,
            FAST_QUERY,
            true,
            b'#',
            Component::Query,
        )?;
    }
    let query_end = i;
    if i < len {
        // b[i] == b'#'; ifragment = *( ipchar / "/" / "?" ), so a second "#" is an error.
        i = scan(
            s,
            i + 1,
            grammar,
            PCHAR | SLASH_QMARK,
            FAST_QUERY,
            false,
            0,
            Component::Fragment,
        )?;
        if i < len {
            return Err(bad_char(s, i, Component::Fragment));
        }
    }
    Ok(Spans {
        scheme_end,
        has_authority,
        host_start,
        host_end,
        path_start,
        path_end,
        query_end,
        len,
    })
}

/// Classes of the scanning fast paths (3987bis 2.2): a byte of a class is accepted by its
/// component's rule on its own (it is in the component's `mask`, and is neither its `stop` byte nor `#`). Bytes
/// >= 0x80, `%` and the delimiters are in no class: they go through the general loop of [`scan`].
const FAST_PATH: u8 = 1; // ipath: unreserved / sub-delims / ":" / "@" / "/"
const FAST_QUERY: u8 = 2; // iquery, ifragment: the same and "?"
const FAST_USERINFO: u8 = 4; // iuserinfo: unreserved / sub-delims / ":"
const FAST_HOST: u8 = 8; // ireg-name: unreserved / sub-delims

/// [`FAST_PATH`] and the other fast classes, for every byte value (one load, no range check).
static FAST: [u8; 256] = {
    let ascii = chars::build();
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let v = ascii[c];
        let plain = v & (UNRESERVED | SUB_DELIM) != 0;
        if plain || c == b':' as usize || c == b'@' as usize || c == b'/' as usize {
            t[c] |= FAST_PATH | FAST_QUERY;
        }
        if c == b'?' as usize {
            t[c] |= FAST_QUERY;
        }
        if plain || c == b':' as usize {
            t[c] |= FAST_USERINFO;
        }
        if plain {
            t[c] |= FAST_HOST;
        }
        c += 1;
    }
    t
};

/// Scans characters of `mask`, `pct-encoded`, and (IRI grammar) `ucschar` / `iprivate` from `i`
/// up to the first `stop` byte, `#`, or the end. In a path, `?` also stops (`mask` has
/// `SLASH_QMARK` for `/` but the path loop stops on `?` before testing the mask).
///
/// `fast` is the class of [`FAST`] whose bytes the component accepts as they are: runs of them
/// are skipped with one table load and one test per byte before the general rules apply.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn scan(
    s: &str,
    mut i: usize,
    grammar: Grammar,
    mask: u8,
    fast: u8,
    private: bool,
    stop: u8,
    component: Component,
) -> Result<usize, ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    while i < len {
        // Fast path: a run of bytes that the component accepts as they are. (Byte at a time:
        // four-byte and sixteen-byte steps measured slower on the URL benchmark.)
        while i < len && FAST[b[i] as usize] & fast != 0 {
            i += 1;
        }
        if i == len {
            break;
        }
        // `stop` is ASCII, so this is the `c < 0x80` case of the general rule in `scan_step`.
        if b[i] == stop || b[i] == b'#' {
            return Ok(i);
        }
        i = scan_step(s, i, grammar, mask, private, component)?;
    }
    Ok(i)
}

/// One step of [`scan`] at a byte that is not in the fast class, `stop` nor `#`: a byte of `mask`,
/// a `pct-encoded` triplet, or a non-ASCII character; anything else is an error. Out of line, so
/// that the loops of `scan` stay small where it is inlined.
#[inline(never)]
fn scan_step(
    s: &str,
    i: usize,
    grammar: Grammar,
    mask: u8,
    private: bool,
    component: Component,
) -> Result<usize, ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    let c = b[i];
    if c < 0x80 {
        if chars::ASCII[c as usize] & mask != 0 {
            Ok(i + 1)
        } else if c == b'%' {
            if i + 2 < len && chars::is(b[i + 1], HEX) && chars::is(b[i + 2], HEX) {
                Ok(i + 3)
            } else {
                Err(err(ParseErrorKind::InvalidPercentEncoding, component, i))
            }
        } else {
            Err(bad_char(s, i, component))
        }
    } else {
        non_ascii(s, i, grammar, private, component)
    }
}

/// Checks the non-ASCII character at byte `i`: `ucschar`, or `iprivate` where `private` (3987bis
/// 2.2: the query only). Returns the offset after it.
#[inline]
fn non_ascii(
    s: &str,
    i: usize,
    grammar: Grammar,
    private: bool,
    component: Component,
) -> Result<usize, ParseError> {
    if grammar == Grammar::Uri {
        return Err(bad_char(s, i, component));
    }
    let c = s[i..].chars().next().unwrap_or('\0');
    if chars::is_ucschar(c) || (private && chars::is_iprivate(c)) {
        Ok(i + c.len_utf8())
    } else {
        Err(err(ParseErrorKind::InvalidChar(c), component, i))
    }
}

/// iauthority = [ iuserinfo "@" ] ihost [ ":" port ]; returns the start and end of the host and
/// the end of the authority.
fn parse_authority(
    s: &str,
    start: usize,
    grammar: Grammar,
) -> Result<(usize, usize, usize), ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    // Fast path, the common case: an ASCII reg-name without `%`, an optional all-digit port, then
    // "/", "?", "#" or the end. Everything else (userinfo, IP literal, `%`, non-ASCII, errors)
    // takes the general path below, which gives the same result for the inputs taken here.
    let mut h = start;
    while h < len && FAST[b[h] as usize] & FAST_HOST != 0 {
        h += 1;
    }
    let mut e = h;
    if e < len && b[e] == b':' {
        e += 1;
        while e < len && b[e].is_ascii_digit() {
            e += 1;
        }
    }
    if e == len || matches!(b[e], b'/' | b'?' | b'#') {
        return Ok((start, h, e));
    }
    let mut end = start;
    while end < len && !matches!(b[end], b'/' | b'?' | b'#') {
        end += 1;
    }
    let auth = &b[start..end];
    let mut host_start = start;
    if let Some(at) = memchr::memchr(b'@', auth) {
        // iuserinfo = *( iunreserved / pct-form / sub-delims / ":" )
        let ui_end = scan(
            &s[..start + at],
            start,
            grammar,
            UNRESERVED | SUB_DELIM | COLON_AT,
            FAST_USERINFO,
            false,
            b'@',
            Component::Userinfo,
        )?;
        debug_assert_eq!(ui_end, start + at);
        host_start = start + at + 1;
    }
    let host_end;
    if b.get(host_start) == Some(&b'[') {
        // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        let close = memchr::memchr(b']', &b[host_start..end])
            .map(|p| host_start + p)
            .ok_or(err(
                ParseErrorKind::InvalidIpLiteral,
                Component::Host,
                host_start,
            ))?;
        if !valid_ip_literal(&b[host_start + 1..close]) {
            return Err(err(
                ParseErrorKind::InvalidIpLiteral,
                Component::Host,
                host_start,
            ));
        }
        host_end = close + 1;
        if host_end < end && b[host_end] != b':' {
            return Err(bad_char(s, host_end, Component::Host));
        }
    } else {
        // ireg-name = *( iunreserved / pct-form / sub-delims ), up to the port's ":".
        host_end = scan(
            &s[..end],
            host_start,
            grammar,
            UNRESERVED | SUB_DELIM,
            FAST_HOST,
            false,
            b':',
            Component::Host,
        )?;
        if host_end < end && b[host_end] != b':' {
            return Err(bad_char(s, host_end, Component::Host));
        }
    }
    if host_end < end {
        // port = *DIGIT
        if let Some(p) = b[host_end + 1..end]
            .iter()
            .position(|c| !c.is_ascii_digit())
        {
            return Err(bad_char(s, host_end + 1 + p, Component::Port));
        }
    }
    Ok((host_start, host_end, end))
}

/// `IPv6address / IPvFuture`, the inside of an IP-literal.
fn valid_ip_literal(inner: &[u8]) -> bool {
    if let Some((&v, rest)) = inner.split_first()
        && (v == b'v' || v == b'V')
    {
        // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        let hex = rest.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        return hex > 0
            && rest.get(hex) == Some(&b'.')
            && rest.len() > hex + 1
            && rest[hex + 1..]
                .iter()
                .all(|&c| chars::is(c, UNRESERVED | SUB_DELIM) || c == b':');
    }
    parse_ipv6(inner).is_some()
}

/// Parses an `IPv6address` (RFC 3986 3.2.2) into its eight 16-bit pieces.
///
/// ```
/// assert_eq!(linksieve_iri::parse_ipv6(b"::1"), Some([0, 0, 0, 0, 0, 0, 0, 1]));
/// assert_eq!(linksieve_iri::parse_ipv6(b"::ffff:1.2.3.4"), Some([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]));
/// assert_eq!(linksieve_iri::parse_ipv6(b"1::2::3"), None);
/// ```
pub fn parse_ipv6(s: &[u8]) -> Option<[u16; 8]> {
    let mut pieces = [0u16; 8];
    let mut n = 0;
    let mut compress = None;
    let mut i = 0;
    let len = s.len();
    if s.starts_with(b"::") {
        compress = Some(0);
        i = 2;
        if i == len {
            return Some(pieces);
        }
    }
    loop {
        if n == 8 {
            return None;
        }
        let start = i;
        let mut v: u32 = 0;
        while i < len && i - start < 4 {
            match chars::hex_val(s[i]) {
                Some(d) => v = v << 4 | u32::from(d),
                None => break,
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        if i < len && s[i] == b'.' {
            // ls32 = ( h16 ":" h16 ) / IPv4address, only as the last 32 bits.
            if n > 6 {
                return None;
            }
            let [a, b2, c, d] = parse_ipv4(&s[start..])?;
            pieces[n] = u16::from(a) << 8 | u16::from(b2);
            pieces[n + 1] = u16::from(c) << 8 | u16::from(d);
            n += 2;
            break;
        }
        pieces[n] = v as u16;
        n += 1;
        if i == len {
            break;
        }
        if s[i] != b':' {
            return None;
        }
        i += 1;
        if i < len && s[i] == b':' {
            if compress.is_some() {
                return None;
            }
            compress = Some(n);
            i += 1;
            if i == len {
                break;
            }
        } else if i == len {
            return None;
        }
    }
    match compress {
        Some(c) => {
            if n == 8 {
                return None;
            }
            let tail = n - c;
            pieces.copy_within(c..n, 8 - tail);
            pieces[c..8 - tail].fill(0);
        }
        None if n != 8 => return None,
        None => {}
    }
    Some(pieces)
}

/// Parses an `IPv4address` (RFC 3986 3.2.2: four `dec-octet`s, no leading zeros).
///
/// ```
/// assert_eq!(linksieve_iri::parse_ipv4(b"192.0.2.1"), Some([192, 0, 2, 1]));
/// assert_eq!(linksieve_iri::parse_ipv4(b"192.0.2.01"), None);
/// ```
pub fn parse_ipv4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = s.split(|&c| c == b'.');
    for o in &mut out {
        let p = parts.next()?;
        if p.is_empty()
            || p.len() > 3
            || (p.len() > 1 && p[0] == b'0')
            || !p.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        let v = p.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
        *o = u8::try_from(v).ok()?;
    }
    parts.next().is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> IriRef<&str> {
        IriRef::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn components() {
        let r = ok("foo://example.com:8042/over/there?name=ferret#nose");
        assert_eq!(r.scheme(), Some("foo"));
        assert_eq!(r.authority(), Some("example.com:8042"));
        assert_eq!(r.host(), Some("example.com"));
        assert_eq!(r.port(), Some("8042"));
        assert_eq!(r.path(), "/over/there");
        assert_eq!(r.query(), Some("name=ferret"));
        assert_eq!(r.fragment(), Some("nose"));
        let r = ok("urn:example:animal:ferret:nose");
        assert_eq!(r.authority(), None);
        assert_eq!(r.path(), "example:animal:ferret:nose");
        let r = ok("");
        assert_eq!(r.path(), "");
        assert_eq!(r.scheme(), None);
        let r = ok("?#");
        assert_eq!(r.query(), Some(""));
        assert_eq!(r.fragment(), Some(""));
        let r = ok("//@:");
        assert_eq!(r.userinfo(), Some(""));
        assert_eq!(r.host(), Some(""));
        assert_eq!(r.port(), Some(""));
    }

    #[test]
    fn iri_chars() {
        ok("http://résumé.example.org/納豆?q=\u{E000}");
        assert_eq!(
            IriRef::parse("http://x/\u{E000}").unwrap_err().component,
            Component::Path
        );
        assert!(IriRef::parse_with("http://x/é", Grammar::Uri).is_err());
        // Old Italic (RFC 3987 3.1 example) is ucschar.
        ok("http://example.com/\u{10300}\u{10301}\u{10302}");
    }

    #[test]
    fn errors() {
        let e = IriRef::parse("a:b#c#d").unwrap_err();
        assert_eq!((e.component, e.offset), (Component::Fragment, 5));
        let e = IriRef::parse("1a:b").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::ColonInFirstSegment);
        assert!(IriRef::parse("./1a:b").is_ok());
        assert!(IriRef::parse("http://h:8a/").is_err());
        assert!(IriRef::parse("http://[::1/").is_err());
        assert!(IriRef::parse("http://[::1]x/").is_err());
        assert!(IriRef::parse("http://[v7.x:y]/").is_ok());
        assert!(IriRef::parse("http://[v7.]/").is_err());
        assert!(IriRef::parse("http://a@b@c/").is_err());
        assert!(IriRef::parse("%").is_err());
        assert!(IriRef::parse("%4").is_err());
        assert!(IriRef::parse("%41").is_ok());
    }

    #[test]
    fn fast_classes_are_the_plain_bytes_of_scan() {
        // A fast class must be exactly the bytes that the general loop of `scan` accepts on their
        // own for that component: in the mask, neither the stop byte nor "#", ASCII.
        let cases = [
            (FAST_PATH, PCHAR | SLASH_QMARK, b'?'),
            (FAST_QUERY, PCHAR | SLASH_QMARK, b'#'),
            (FAST_QUERY, PCHAR | SLASH_QMARK, 0),
            (FAST_USERINFO, UNRESERVED | SUB_DELIM | COLON_AT, b'@'),
            (FAST_HOST, UNRESERVED | SUB_DELIM, b':'),
        ];
        for (fast, mask, stop) in cases {
            for c in 0..=255u8 {
                let general = c < 0x80 && c != stop && c != b'#' && chars::is(c, mask);
                assert_eq!(
                    FAST[c as usize] & fast != 0,
                    general,
                    "class {fast}, byte {c:#04x}"
                );
            }
        }
    }

    #[test]
    fn write_to_is_the_recomposition_of_the_parts() {
        let built = Parts {
            path: "//x",
            query: Some(""),
            ..Parts::default()
        }
        .build(|out, _, t| {
            out.push_str(t);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(built.as_str(), "/.//x?");
        let parsed = [
            "",
            "a:b",
            "s://u@h:1/p?q#f",
            "//h",
            "?#",
            "//@:",
            "file:///x",
            "a:/b?c?d#e?f",
            "http://[::1]:80/?#",
            "../x",
        ]
        .map(|s| ok(s).to_owned());
        for r in parsed.iter().chain([&built]) {
            let (mut a, mut b) = (String::from(">"), String::from(">"));
            r.write_to(&mut a);
            Parts::of(r).write_to(&mut b);
            assert_eq!(a, b);
            assert_eq!(&a[1..], r.as_str());
        }
    }

    #[test]
    fn authority_fast_and_general_paths() {
        for (s, host, port) in [
            ("http://example.com", "example.com", None),
            ("http://example.com:8080/x", "example.com", Some("8080")),
            ("http://:80?q", "", Some("80")),
            ("http://h:#f", "h", Some("")),
            ("file:///p", "", None),
            ("http://u:p@h:1/", "h", Some("1")),
            ("http://[::1]:2/", "[::1]", Some("2")),
            ("http://%41b/", "%41b", None),
            ("http://résumé.example/", "résumé.example", None),
        ] {
            let r = ok(s);
            assert_eq!((r.host(), r.port()), (Some(host), port), "{s}");
        }
        for (s, component, offset) in [
            ("http://h:8a/", Component::Port, 10),
            ("http://h:1:2/", Component::Port, 10),
            ("http://a b/", Component::Host, 8),
            ("http://h%zz/", Component::Host, 8),
            ("http://h:%zz/", Component::Port, 9),
            ("http://u%zz@h/", Component::Userinfo, 8),
            ("http://[::1/", Component::Host, 7),
        ] {
            let e = IriRef::parse(s).unwrap_err();
            assert_eq!((e.component, e.offset), (component, offset), "{s}");
        }
    }

    #[test]
    fn ipv6() {
        for good in [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "::1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "fe80::1:2",
        ] {
            assert!(parse_ipv6(good.as_bytes()).is_some(), "{good}");
        }
        for bad in [
            "",
            ":",
            ":1",
            "1:",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "1:2:3:4:5:6:7:8::",
            "12345::",
            "::1.2.3",
            "::1.2.3.04",
            "1:2:3:4:5:6:7:1.2.3.4",
            "g::",
        ] {
            assert!(parse_ipv6(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}

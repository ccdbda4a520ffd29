//! Reference resolution: RFC 3986 5.2, which 3987bis 5.5 applies to IRIs unchanged ("treating
//! the characters additionally allowed in IRI references in the same way that unreserved
//! characters are in URI references").

use crate::parse::{Component, IriRef, Parts};

/// Why a reference could not be resolved.
///
/// ```
/// use linksieve_iri::{IriRef, ResolveError};
/// let base = IriRef::parse("/relative").unwrap();
/// let r = IriRef::parse("x").unwrap();
/// assert_eq!(base.resolve(&r).unwrap_err(), ResolveError::RelativeBase);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// RFC 3986 5.1: the base URI must be absolute (have a scheme).
    #[error("the base IRI has no scheme (RFC 3986 5.1 requires an absolute base)")]
    RelativeBase,
}

impl<S: AsRef<str>> IriRef<S> {
    /// Resolves `reference` against `self` as the base (RFC 3986 5.2.2, strict: a reference with
    /// a scheme is never treated as relative). The base's fragment is ignored (5.2.1).
    ///
    /// Where 5.2.2 copies the base path (an empty reference, `?q`, `#f`), it is copied as it is,
    /// dot segments included, as the RFC says (iri-string and fluent-uri agree; oxiri removes
    /// them). The syntax rung of the comparison ladder removes them.
    ///
    /// ```
    /// use linksieve_iri::IriRef;
    /// let base = IriRef::parse("http://a/b/c/d;p?q").unwrap();
    /// let t = base.resolve(&IriRef::parse("../g").unwrap()).unwrap();
    /// assert_eq!(t.as_str(), "http://a/b/g");
    /// assert_eq!(t.path(), "/b/g");
    /// ```
    pub fn resolve<T: AsRef<str>>(
        &self,
        reference: &IriRef<T>,
    ) -> Result<IriRef<String>, ResolveError> {
        self.resolve_with(reference, Strictness::Strict)
    }

    /// [`IriRef::resolve`] with the choice of 5.2.2: a [`Strictness::NonStrict`] resolver ignores
    /// a reference's scheme when it equals the base's, for backward compatibility (5.4.2,
    /// `http:g` -> `http://a/b/c/g`).
    ///
    /// ```
    /// use linksieve_iri::{IriRef, Strictness};
    /// let base = IriRef::parse("http://a/b/c/d;p?q").unwrap();
    /// let r = IriRef::parse("http:g").unwrap();
    /// assert_eq!(base.resolve_with(&r, Strictness::Strict).unwrap().as_str(), "http:g");
    /// assert_eq!(base.resolve_with(&r, Strictness::NonStrict).unwrap().as_str(), "http://a/b/c/g");
    /// ```
    pub fn resolve_with<T: AsRef<str>>(
        &self,
        reference: &IriRef<T>,
        strictness: Strictness,
    ) -> Result<IriRef<String>, ResolveError> {
        let base = Parts::of(self);
        let Some(base_scheme) = base.scheme else {
            return Err(ResolveError::RelativeBase);
        };
        let mut r = Parts::of(reference);
        if strictness == Strictness::NonStrict
            && r.scheme
                .is_some_and(|s| s.eq_ignore_ascii_case(base_scheme))
        {
            r.scheme = None;
        }
        // 5.2.2: take each component from the reference or the base.
        let mut t = r;
        let mut merged = None;
        let mut remove_dots = true;
        if r.scheme.is_none() {
            t.scheme = base.scheme;
            if r.host.is_none() {
                (t.userinfo, t.host, t.port) = (base.userinfo, base.host, base.port);
                if r.path.is_empty() {
                    t.path = base.path;
                    t.query = r.query.or(base.query);
                    remove_dots = false;
                } else if !r.path.starts_with('/') {
                    // 5.2.3 merge
                    let keep = if base.host.is_some() && base.path.is_empty() {
                        "/"
                    } else {
                        &base.path[..base.path.rfind('/').map_or(0, |i| i + 1)]
                    };
                    merged = Some([keep, r.path].concat());
                }
            }
        }
        let path_in = merged.as_deref().unwrap_or(t.path);
        let built: Result<_, std::convert::Infallible> = t.build(|out, c, text| {
            match c {
                Component::Path if remove_dots => remove_dot_segments(out, path_in),
                Component::Path => out.push_str(path_in),
                _ => out.push_str(text),
            }
            Ok(())
        });
        Ok(built.unwrap_or_else(|e| match e {}))
    }
}

/// Strict or non-strict resolution (RFC 3986 5.2.2).
///
/// ```
/// assert_eq!(linksieve_iri::Strictness::default(), linksieve_iri::Strictness::Strict);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strictness {
    /// A reference with a scheme is absolute (the RFC's recommendation).
    #[default]
    Strict,
    /// A reference whose scheme equals the base's is resolved as if it had none.
    NonStrict,
}

/// 0: not a dot segment; 1: `.`; 2: `..`. `%2E` counts as a dot: it is equivalent to `.`
/// (RFC 3986 2.3 and 6.2.2.2), so a segment that normalizes to `..` is treated as `..`.
#[inline]
pub(crate) fn dot_kind(seg: &[u8]) -> u8 {
    fn dot(s: &[u8]) -> Option<&[u8]> {
        if s.first() == Some(&b'.') {
            Some(&s[1..])
        } else if s.len() >= 3 && s[0] == b'%' && s[1] == b'2' && (s[2] == b'e' || s[2] == b'E') {
            Some(&s[3..])
        } else {
            None
        }
    }
    match dot(seg) {
        None => 0,
        Some([]) => 1,
        Some(rest) => match dot(rest) {
            Some([]) => 2,
            _ => 0,
        },
    }
}

/// RFC 3986 5.2.4 remove_dot_segments, appending the output to `out`. Linear time: each input
/// segment is moved once, and each pop removes what it scans.
///
/// ```
/// let mut out = String::new();
/// linksieve_iri::remove_dot_segments(&mut out, "/a/b/c/./../../g");
/// assert_eq!(out, "/a/g");
/// let mut out = String::new();
/// linksieve_iri::remove_dot_segments(&mut out, "mid/content=5/../6");
/// assert_eq!(out, "mid/6");
/// ```
pub fn remove_dot_segments(out: &mut String, input: &str) {
    let start = out.len();
    let mut inp = input;
    while !inp.is_empty() {
        let b = inp.as_bytes();
        let slash = b[0] == b'/';
        let seg_start = usize::from(slash);
        let seg_end = memchr::memchr(b'/', &b[seg_start..]).map_or(b.len(), |p| p + seg_start);
        let at_end = seg_end == b.len();
        match dot_kind(&b[seg_start..seg_end]) {
            0 => {
                // E: move the first segment, with its leading "/", to the output.
                out.push_str(&inp[..seg_end]);
                inp = &inp[seg_end..];
            }
            kind => {
                if kind == 2 && slash {
                    // C: "/../" or "/..": drop the last output segment and its "/".
                    let tail = &out[start..];
                    out.truncate(start + tail.rfind('/').unwrap_or(0));
                }
                inp = match (slash, at_end) {
                    // B, C: "/./" -> "/", "/." -> "/".
                    (true, true) => "/",
                    (true, false) => &inp[seg_end..],
                    // A, D: "./", "../", ".", "..": removed.
                    (false, true) => "",
                    (false, false) => &inp[seg_end + 1..],
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(base: &str, r: &str) -> String {
        let b = IriRef::parse(base).unwrap();
        let t = b.resolve(&IriRef::parse(r).unwrap()).unwrap();
        let re = IriRef::parse(t.as_str()).unwrap();
        assert_eq!(re.spans(), t.spans(), "spans of {t}");
        t.into_inner()
    }

    #[test]
    fn rfc3986_5_4() {
        let base = "http://a/b/c/d;p?q";
        // 5.4.1 normal examples
        for (r, t) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            // 5.4.2 abnormal examples
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"),
            ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ] {
            assert_eq!(res(base, r), t, "{r}");
        }
    }

    #[test]
    fn iri_and_edge_cases() {
        assert_eq!(
            res("http://例え.jp/a/b", "../ü?é#ф"),
            "http://例え.jp/ü?é#ф"
        );
        assert_eq!(res("http://a", "b"), "http://a/b");
        assert_eq!(res("a:/b", "..//c"), "a:/.//c");
        assert_eq!(res("s://a/b/c/d", "%2E%2E/%2e/g"), "s://a/b/g");
        assert_eq!(res("s:", "a%2Eb/g"), "s:a%2Eb/g");
        assert_eq!(res("http://a/b#f", ""), "http://a/b");
        assert_eq!(
            res("http://a/b/./c/../d?q", "#f"),
            "http://a/b/./c/../d?q#f"
        );
    }

    #[test]
    fn linear_dots() {
        let input = "/..".repeat(200_000) + &"/a".repeat(200_000) + &"/..".repeat(200_000);
        let mut out = String::new();
        remove_dot_segments(&mut out, &input);
        assert_eq!(out, "/");
    }
}

//! The comparison ladder: normalization and comparison keys at four ordered rungs, after
//! draft-ietf-iri-comparison-00 ("CMP" in comments) section 4 and RFC 3987 section 5.3.
//!
//! | rung | CMP | what it does (each rung does everything below it too) |
//! |---|---|---|
//! | [`Rung::String`] | 4.1 | nothing: the text as given, compared code point by code point |
//! | [`Rung::Syntax`] | 4.2 | IRI -> URI form (3987bis 3.3), lowercase scheme and US-ASCII host, uppercase `%HH`, decode `%HH` of unreserved ASCII, remove dot segments; NFC only on request |
//! | [`Rung::Scheme`] | 4.3 | scheme table: drop an empty or default port, empty path -> `/`, IDNA for DNS hosts, RFC 5952 IPv6, `file://localhost/` -> `file:///` |
//! | [`Rung::Protocol`] | 4.4 | drop the fragment; optional crawler [`Rules`]; equivalences learned from [`Redirects`] |
//!
//! Every rung is a function of the key of the rung below (`scheme(x) = f(syntax(x))`), so two
//! IRIs equal at one rung stay equal at every higher rung, and each rung is idempotent. A key is
//! written in one of three [`KeyForm`]s; each is a one-to-one rewriting of the `uri` key, so
//! equal keys mean the same thing in every form.
//!
//! ```
//! use linksieve_iri::{normalize_str, InputMode, Rung, NormalizeOptions};
//! let opts = NormalizeOptions { rung: Rung::Scheme, ..Default::default() };
//! let a = normalize_str("HTTP://Résumé.Example.ORG:80", InputMode::Strict, &opts).unwrap();
//! let b = normalize_str("http://xn--rsum-bpad.example.org/", InputMode::Strict, &opts).unwrap();
//! assert_eq!(a, "http://xn--rsum-bpad.example.org/");
//! assert_eq!(a, b);
//! ```

mod climb;
mod fast;
mod forms;
mod fused;
mod host;
mod pct;
mod protocol;
mod scheme_rung;
mod swar;
mod syntax;
mod vocabulary;

pub use climb::{Climb, climb, climb_str, fixed_point};
pub use forms::from_surt;
pub use protocol::{RedirectStats, Redirects, Rules, RulesError};
pub(crate) use vocabulary::by_name;
pub use vocabulary::{KeyForm, Rung, UnknownName};

use crate::input::{InputError, InputMode, leiri_to_iri, parse_input};
use crate::parse::{Component, IriRef, Parts};
use climb::climb_with;
use std::sync::Arc;

/// What [`normalize`] does.
///
/// ```
/// use linksieve_iri::{KeyForm, Rung, NormalizeOptions};
/// let opts = NormalizeOptions::default();
/// assert_eq!((opts.rung, opts.form, opts.nfc), (Rung::Scheme, KeyForm::Uri, false));
/// ```
#[derive(Clone, Debug, Default)]
pub struct NormalizeOptions {
    /// The rung.
    pub rung: Rung,
    /// The form of the key.
    pub form: KeyForm,
    /// Apply Unicode NFC at the syntax rung (CMP 4.2.2). CMP 4.2.2 says IRIs already in
    /// Unicode MUST NOT be normalized; NFC is for text transcoded from a legacy encoding (the
    /// scanner sets this for such text) or when the user asks for it.
    pub nfc: bool,
    /// Crawler rules of the protocol rung (CMP 4.4); none when `None`.
    pub rules: Option<Arc<Rules>>,
    /// Equivalences learned from redirects, applied at the protocol rung (CMP 4.4). Build them
    /// with [`Redirects::parse`] and the same `nfc` and `rules`.
    pub redirects: Option<Arc<Redirects>>,
}

impl NormalizeOptions {
    /// The options at another rung.
    ///
    /// ```
    /// use linksieve_iri::{Rung, NormalizeOptions};
    /// assert_eq!(NormalizeOptions::default().at(Rung::Syntax).rung, Rung::Syntax);
    /// ```
    pub fn at(&self, rung: Rung) -> NormalizeOptions {
        NormalizeOptions {
            rung,
            ..self.clone()
        }
    }
}

/// Why an IRI has no key at a rung. Each variant names the rung; the position is a byte offset
/// into the input.
///
/// ```
/// use linksieve_iri::{normalize_str, InputMode, Rung, NormalizeOptions};
/// let e = normalize_str("http://a b/", InputMode::Strict, &NormalizeOptions::default()).unwrap_err();
/// assert_eq!((e.rung(), e.offset()), (Rung::Scheme, Some(8)));
/// assert_eq!(e.to_string(), "scheme rung: invalid character U+0020 in ihost at byte 8");
/// let e = normalize_str("../a", InputMode::Strict, &NormalizeOptions::default()).unwrap_err();
/// assert_eq!(e.offset(), Some(0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NormalizeError {
    /// The text is not an IRI reference in the input mode.
    #[error("{rung} rung: {source}")]
    Input {
        /// The rung that was asked for.
        rung: Rung,
        /// What the parser said.
        source: InputError,
    },
    /// A relative reference has no key from the scheme rung up: the scheme rules cannot apply
    /// without a scheme, and CMP 2 says to compare target IRIs, after resolution against the
    /// base (RFC 3986 5.2). The string and syntax rungs accept relative references.
    #[error(
        "{rung} rung: relative reference (no scheme at byte {offset}); resolve it against its base first (CMP 2)"
    )]
    Relative {
        /// The rung that was asked for.
        rung: Rung,
        /// Where a scheme would be.
        offset: usize,
    },
}

impl NormalizeError {
    /// The rung that was asked for.
    ///
    /// ```
    /// let e = linksieve_iri::normalize_str("a b", Default::default(), &Default::default()).unwrap_err();
    /// assert_eq!(e.rung(), linksieve_iri::Rung::Scheme);
    /// ```
    pub fn rung(&self) -> Rung {
        match self {
            NormalizeError::Input { rung, .. } | NormalizeError::Relative { rung, .. } => *rung,
        }
    }

    /// The byte offset in the input, when known (the WHATWG parser of web mode gives none).
    ///
    /// ```
    /// let e = linksieve_iri::normalize_str("a b", Default::default(), &Default::default()).unwrap_err();
    /// assert_eq!(e.offset(), Some(1));
    /// ```
    pub fn offset(&self) -> Option<usize> {
        match self {
            NormalizeError::Input {
                source: InputError::Parse(p),
                ..
            } => Some(p.offset),
            NormalizeError::Input { .. } => None,
            NormalizeError::Relative { offset, .. } => Some(*offset),
        }
    }
}

/// The `uri` key of a reference: the input itself when it is already normal (the fast path),
/// or a rebuilt reference.
enum Key<'a> {
    Same(IriRef<&'a str>),
    Built(IriRef<String>),
}

impl Key<'_> {
    fn as_ref(&self) -> IriRef<&str> {
        match self {
            Key::Same(r) => *r,
            Key::Built(r) => r.as_ref(),
        }
    }

    fn into_string(self) -> String {
        match self {
            Key::Same(r) => r.as_str().to_owned(),
            Key::Built(r) => r.into_inner(),
        }
    }
}

/// True when protocol rules are on.
fn has_rules(opts: &NormalizeOptions) -> bool {
    opts.rules.as_deref().is_some_and(|r| !r.is_empty())
}

/// The `uri` key of `iri` at `opts.rung` (with the protocol rung's redirects): the top of a
/// climb whose lower rungs are not kept.
fn key<'a>(iri: IriRef<&'a str>, opts: &NormalizeOptions) -> Result<Key<'a>, NormalizeError> {
    climb_with(iri, opts, |_, _| {})
}

/// The key of `iri` at `opts.rung`, written in `opts.form`.
///
/// String rung: the text as given, in every form but `surt`. From the syntax rung up the `uri`
/// key is ASCII and parses as an RFC 3986 URI reference. From the scheme rung up, relative
/// references are rejected ([`NormalizeError::Relative`]). An already-normal ASCII IRI takes a
/// fast path that allocates nothing but the returned key.
///
/// ```
/// use linksieve_iri::{normalize, IriRef, Rung, NormalizeOptions};
/// let at = |rung| NormalizeOptions { rung, ..Default::default() };
/// let iri = IriRef::parse("eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9").unwrap();
/// assert_eq!(normalize(&iri, &at(Rung::Syntax)).unwrap(), "example://a/b/c/%7Bfoo%7D/ros%C3%A9");
/// let rose = IriRef::parse("example://a/b/c/%7Bfoo%7D/rosé").unwrap();
/// assert_eq!(normalize(&rose, &at(Rung::Syntax)).unwrap(), "example://a/b/c/%7Bfoo%7D/ros%C3%A9");
/// assert_eq!(normalize(&rose, &at(Rung::String)).unwrap(), rose.as_str());
/// ```
pub fn normalize<S: AsRef<str>>(
    iri: &IriRef<S>,
    opts: &NormalizeOptions,
) -> Result<String, NormalizeError> {
    let iri = iri.as_ref();
    if let Some(s) = fast_key(iri, opts) {
        return Ok(s.to_owned());
    }
    let k = key(iri, opts)?;
    Ok(match opts.form {
        KeyForm::Uri => k.into_string(),
        KeyForm::Iri => forms::iri(k.as_ref(), opts.rung),
        KeyForm::Surt => forms::surt(k.as_ref()),
    })
}

/// The key of `iri` as [`normalize`] gives it, appended to `out` (whose earlier content is
/// kept): the form for callers that collect many keys in one buffer. On an error `out` is left
/// as it was.
///
/// ```
/// use linksieve_iri::{normalize_into, IriRef, NormalizeOptions};
/// let mut out = String::from("k=");
/// normalize_into(&IriRef::parse("HTTP://Example.COM:80").unwrap(), &NormalizeOptions::default(), &mut out).unwrap();
/// assert_eq!(out, "k=http://example.com/");
/// ```
pub fn normalize_into<S: AsRef<str>>(
    iri: &IriRef<S>,
    opts: &NormalizeOptions,
    out: &mut String,
) -> Result<(), NormalizeError> {
    let iri = iri.as_ref();
    if let Some(s) = fast_key(iri, opts) {
        out.push_str(s);
        return Ok(());
    }
    let k = key(iri, opts)?;
    match opts.form {
        KeyForm::Uri => out.push_str(k.as_ref().as_str()),
        KeyForm::Iri => out.push_str(&forms::iri(k.as_ref(), opts.rung)),
        KeyForm::Surt => out.push_str(&forms::surt(k.as_ref())),
    }
    Ok(())
}

/// The fast path, without building a `Key`: an already-normal `uri`-form input is its own key
/// (or, at the protocol rung, the target of a learned redirect).
fn fast_key<'a>(iri: IriRef<&'a str>, opts: &'a NormalizeOptions) -> Option<&'a str> {
    let rung = opts.rung;
    if opts.form == KeyForm::Uri
        && rung > Rung::String
        && (rung < Rung::Scheme || iri.is_absolute())
        && fast::is_normal(iri, rung, opts.nfc, has_rules(opts))
    {
        return Some(own_key(iri.into_inner(), opts));
    }
    None
}

/// The fused fast path, before any parse: an input of the common shape that is already its own
/// `uri` key, checked in one pass ([`fast::is_normal_text`]). Strict and LEIRI input only: an
/// ASCII input that parses is read as itself in both (3987bis 6.1); Web input goes through the
/// WHATWG parser, which may rewrite even such an input (IPv4 number forms, for one).
fn fast_text_key<'a>(
    input: &'a str,
    mode: InputMode,
    opts: &'a NormalizeOptions,
) -> Option<&'a str> {
    (mode != InputMode::Web
        && opts.form == KeyForm::Uri
        && opts.rung > Rung::String
        && fast::is_normal_text(input, opts.rung, opts.nfc, has_rules(opts)))
    .then(|| own_key(input, opts))
}

/// The key of `s`, which is already normal: `s` itself or, at the protocol rung, the target of
/// a learned redirect.
fn own_key<'a>(s: &'a str, opts: &'a NormalizeOptions) -> &'a str {
    redirected(s, opts).unwrap_or(s)
}

/// The target of a learned redirect (CMP 4.4) of `key`, a key at `opts.rung` without
/// redirects, where that rung is the protocol rung and one was learned.
fn redirected<'a>(key: &str, opts: &'a NormalizeOptions) -> Option<&'a str> {
    (opts.rung == Rung::Protocol)
        .then(|| opts.redirects.as_ref()?.get(key))
        .flatten()
}

/// Reads `input` in `mode` (3987bis 6) and returns its key, as [`normalize`] does. Strict and
/// LEIRI input is parsed in place (no copy of the input).
///
/// ```
/// use linksieve_iri::{normalize_str, InputMode, Rung, NormalizeOptions};
/// let opts = NormalizeOptions { rung: Rung::Protocol, ..Default::default() };
/// assert_eq!(normalize_str("http://h/a b#top", InputMode::Leiri, &opts).unwrap(), "http://h/a%20b");
/// assert_eq!(normalize_str(" HTTP://H:80 ", InputMode::Web, &opts).unwrap(), "http://h/");
/// ```
pub fn normalize_str(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
) -> Result<String, NormalizeError> {
    if let Some(k) = fast_text_key(input, mode, opts) {
        return Ok(k.to_owned());
    }
    let mut out = String::with_capacity(input.len() + 1);
    if fused::key_into(input, mode, opts, &mut out) {
        return Ok(out);
    }
    with_parsed(input, mode, opts.rung, |iri| normalize(&iri, opts))
}

/// Reads `input` in `mode` and appends its key to `out`, as [`normalize_into`] does; on an
/// error `out` is left as it was.
///
/// ```
/// use linksieve_iri::{normalize_str_into, InputMode, NormalizeOptions};
/// let mut keys = String::new();
/// for link in ["HTTP://A.example:80/x", "http://b.example/%7e"] {
///     normalize_str_into(link, InputMode::Leiri, &NormalizeOptions::default(), &mut keys).unwrap();
///     keys.push('\n');
/// }
/// assert_eq!(keys, "http://a.example/x\nhttp://b.example/~\n");
/// ```
pub fn normalize_str_into(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
    out: &mut String,
) -> Result<(), NormalizeError> {
    if let Some(k) = fast_text_key(input, mode, opts) {
        out.push_str(k);
        return Ok(());
    }
    if fused::key_into(input, mode, opts, out) {
        return Ok(());
    }
    with_parsed(input, mode, opts.rung, |iri| {
        normalize_into(&iri, opts, out)
    })
}

/// Reads `input` in `mode` and calls `f` with the reference, borrowed from `input` in strict
/// mode (and in LEIRI mode when nothing needed encoding).
fn with_parsed<R>(
    input: &str,
    mode: InputMode,
    rung: Rung,
    f: impl FnOnce(IriRef<&str>) -> Result<R, NormalizeError>,
) -> Result<R, NormalizeError> {
    let fail = |source: InputError| NormalizeError::Input { rung, source };
    match mode {
        InputMode::Strict => f(IriRef::parse(input).map_err(|e| fail(e.into()))?),
        InputMode::Leiri => {
            // 3987bis 6.1: every ASCII character that a LEIRI allows and an IRI does not (space,
            // controls, `<>"{}|\^``) is one the IRI grammar rejects, so an ASCII input that
            // parses is its own IRI; only the others are converted (and parsed again).
            if input.is_ascii()
                && let Ok(iri) = IriRef::parse(input)
            {
                return f(iri);
            }
            let text = leiri_to_iri(input);
            f(IriRef::parse(&text).map_err(|e| fail(e.into()))?)
        }
        InputMode::Web => f(parse_input(input, mode).map_err(fail)?.as_ref()),
    }
}

/// The `uri` key of `input` (read in `mode`) as an owned reference, with the redirects of
/// `opts` (none when [`Redirects::parse`] calls it).
fn owned_key(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
) -> Result<IriRef<String>, NormalizeError> {
    with_parsed(input, mode, opts.rung, |iri| {
        Ok(match key(iri, opts)? {
            Key::Same(r) => r.to_owned(),
            Key::Built(r) => r,
        })
    })
}

/// One rung of a [`Comparison`]: the two `uri` keys and the components that the rung changed
/// in each (compared with the key of the rung below).
///
/// ```
/// use linksieve_iri::{compare_str, Component, InputMode, Rung, NormalizeOptions};
/// let c = compare_str("HTTP://h/", "http://h/", InputMode::Strict, &NormalizeOptions::default()).unwrap();
/// assert_eq!(c.rungs[1].rung, Rung::Syntax);
/// assert_eq!(c.rungs[1].changed[0], vec![Component::Scheme]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RungReport {
    /// The rung.
    pub rung: Rung,
    /// The keys of the two IRIs, in `uri` form.
    pub keys: [String; 2],
    /// For each IRI, the components whose text differs from the rung below.
    pub changed: [Vec<Component>; 2],
}

impl RungReport {
    /// True when the two keys are equal.
    ///
    /// ```
    /// let c = linksieve_iri::compare_str("a:b", "a:b", Default::default(), &Default::default()).unwrap();
    /// assert!(c.rungs[0].equal());
    /// ```
    pub fn equal(&self) -> bool {
        self.keys[0] == self.keys[1]
    }
}

/// The result of [`compare`]: the rungs climbed, and the lowest rung at which the two IRIs are
/// equivalent, if any up to the requested rung.
///
/// ```
/// use linksieve_iri::{compare_str, InputMode, Rung, NormalizeOptions};
/// let opts = NormalizeOptions { rung: Rung::Protocol, ..Default::default() };
/// let c = compare_str("http://example.com", "http://example.com:/", InputMode::Strict, &opts).unwrap();
/// assert_eq!(c.equivalent_at, Some(Rung::Scheme));
/// assert_eq!(c.rungs.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The rungs from `string` up to the first one with equal keys (or the requested rung).
    pub rungs: Vec<RungReport>,
    /// The lowest rung with equal keys; `None`: different up to the requested rung.
    pub equivalent_at: Option<Rung>,
}

/// The components whose text differs between two references.
fn changed(a: IriRef<&str>, b: IriRef<&str>) -> Vec<Component> {
    let (pa, pb) = (Parts::of(&a), Parts::of(&b));
    let mut v = Vec::new();
    let mut check = |c, x: Option<&str>, y: Option<&str>| {
        if x != y {
            v.push(c);
        }
    };
    check(Component::Scheme, pa.scheme, pb.scheme);
    check(Component::Userinfo, pa.userinfo, pb.userinfo);
    check(Component::Host, pa.host, pb.host);
    check(Component::Port, pa.port, pb.port);
    check(Component::Path, Some(pa.path), Some(pb.path));
    check(Component::Query, pa.query, pb.query);
    check(Component::Fragment, pa.fragment, pb.fragment);
    v
}

/// Climbs the ladder with two IRIs, from `string` up to `opts.rung`, and stops at the first
/// rung where their `uri` keys are equal (CMP 4: equal at a rung means equal at every rung
/// above). Fails when a key cannot be made before that (a relative reference above the syntax
/// rung).
///
/// ```
/// use linksieve_iri::{compare, IriRef, Rung, NormalizeOptions};
/// let a = IriRef::parse("http://example.com/?").unwrap();
/// let b = IriRef::parse("http://example.com/").unwrap();
/// let opts = NormalizeOptions { rung: Rung::Protocol, ..Default::default() };
/// assert_eq!(compare(&a, &b, &opts).unwrap().equivalent_at, None);
/// ```
pub fn compare<S: AsRef<str>, T: AsRef<str>>(
    a: &IriRef<S>,
    b: &IriRef<T>,
    opts: &NormalizeOptions,
) -> Result<Comparison, NormalizeError> {
    let (a, b) = (a.as_ref(), b.as_ref());
    // A relative reference has keys at the string and syntax rungs only (CMP 2).
    let absolute = a.as_ref().is_absolute() && b.as_ref().is_absolute();
    let reach = if absolute {
        opts.rung
    } else {
        opts.rung.min(Rung::Syntax)
    };
    let to_reach = opts.at(reach);
    let climb = |iri: IriRef<&str>| {
        let mut keys = Vec::with_capacity(4);
        climb_with(iri, &to_reach, |_, k| keys.push(k.to_owned())).map(|_| keys)
    };
    let keys = [climb(a)?, climb(b)?];
    let mut rungs = Vec::new();
    for (i, rung) in Rung::ALL
        .into_iter()
        .take_while(|r| *r <= reach)
        .enumerate()
    {
        let (ka, kb) = (&keys[0][i], &keys[1][i]);
        let ch = |k: &[IriRef<String>]| match i {
            0 => Vec::new(),
            _ => changed(k[i - 1].as_ref(), k[i].as_ref()),
        };
        let report = RungReport {
            rung,
            changed: [ch(&keys[0]), ch(&keys[1])],
            keys: [ka.as_str().to_owned(), kb.as_str().to_owned()],
        };
        let equal = report.equal();
        rungs.push(report);
        if equal {
            return Ok(Comparison {
                rungs,
                equivalent_at: Some(rung),
            });
        }
    }
    if reach < opts.rung {
        // The first rung that needs a scheme.
        return Err(NormalizeError::Relative {
            rung: Rung::Scheme,
            offset: 0,
        });
    }
    Ok(Comparison {
        rungs,
        equivalent_at: None,
    })
}

/// [`compare`] on two strings read in `mode`.
///
/// ```
/// use linksieve_iri::{compare_str, InputMode, Rung, NormalizeOptions};
/// let c = compare_str("http://résumé.example.org", "http://xn--rsum-bpad.example.org",
///     InputMode::Strict, &NormalizeOptions::default()).unwrap();
/// assert_eq!(c.equivalent_at, Some(Rung::Scheme));
/// ```
pub fn compare_str(
    a: &str,
    b: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
) -> Result<Comparison, NormalizeError> {
    let rung = opts.rung;
    let read =
        |s: &str| parse_input(s, mode).map_err(|source| NormalizeError::Input { rung, source });
    let (ra, rb) = (read(a)?, read(b)?);
    compare(&ra.as_ref(), &rb.as_ref(), opts)
}

#[cfg(test)]
mod tests;

//! The IRI model of linksieve.
//!
//! One parse, shared by every later step: [`IriRef`] holds the text of an IRI reference and the
//! offsets of its components (3987bis 2.2). On top of it:
//!
//! - input modes ([`InputMode`]): strict, LEIRI (3987bis 6.1) and Web Address (6.2: the WHATWG
//!   URL Standard, with linksieve's own parser, [`parse_web`] and [`WebUrl`]);
//! - reference resolution ([`IriRef::resolve`], RFC 3986 5.2, 3987bis 5.5);
//! - IRI -> URI ([`IriRef::to_uri`], 3987bis 3.3-3.6) and URI -> IRI ([`IriRef::to_iri`], 3.7);
//! - checks ([`check`]: 3987bis 4.1, 4.2, 5.1, 6.3);
//! - the comparison ladder ([`normalize`], [`compare`]: draft-ietf-iri-comparison-00 4,
//!   RFC 3987 5.3): keys at the string, syntax, scheme and protocol rungs, in `uri`, `iri` or
//!   `surt` form.
//!
//! The keys other canonicalizers make (w3lib, urlcanon, IA SURT, crawler-commons, Google Safe
//! Browsing) are the `linksieve-profiles` crate's; the pipeline's `Keying` chooses between the
//! ladder and a profile.
//!
//! ```
//! use linksieve_iri::IriRef;
//! let base = IriRef::parse("http://例え.jp/a/b").unwrap();
//! let r = base.resolve(&IriRef::parse("../résumé").unwrap()).unwrap();
//! assert_eq!(r.as_str(), "http://例え.jp/résumé");
//! let uri = r.to_uri(&Default::default()).unwrap();
//! assert_eq!(uri.as_str(), "http://%E4%BE%8B%E3%81%88.jp/r%C3%A9sum%C3%A9");
//! assert_eq!(uri.to_iri().as_str(), "http://例え.jp/résumé");
//! ```

mod chars;
mod check;
mod convert;
mod host;
mod input;
mod ladder;
mod ops;
mod parse;
mod resolve;
mod scheme_table;
mod whatwg;

pub use chars::{
    is_bidi_formatting, is_iprivate, is_not_appropriate, is_not_appropriate_in, is_ucschar,
};
pub use check::{Diagnostic, DiagnosticCode, Severity, check};
pub use convert::{HostMapping, ToUriError, ToUriOptions};
pub use host::{IdnaError, IdnaProfile, domain_to_ascii};
pub use input::{InputError, InputMode, leiri_to_iri, parse_input, web_to_iri};
pub use ladder::{
    Climb, Comparison, KeyForm, NormalizeError, NormalizeOptions, RedirectStats, Redirects, Rules,
    RulesError, Rung, RungReport, UnknownName, climb, climb_str, compare, compare_str, fixed_point,
    from_surt, normalize, normalize_into, normalize_str, normalize_str_into,
};
pub use ops::{IriError, check_str, has_errors, parse_str, resolve_str, to_iri_str, to_uri_str};
pub use parse::{
    Component, Grammar, HostKind, IriRef, ParseError, ParseErrorKind, Parts, Spans, parse_ipv4,
    parse_ipv6, validate,
};
pub use resolve::{ResolveError, Strictness, remove_dot_segments};
pub use scheme_table::{SchemeInfo, scheme_info, scheme_table};
pub use whatwg::{WebError, WebHost, WebUrl, parse_web};

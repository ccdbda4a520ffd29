//! The line operations of the command line (`parse`, `resolve`, `to-uri`, `to-iri`, `check`)
//! as library functions over strings, in any [`InputMode`], with one error type. The CLI only
//! reads lines and prints what these return.

use crate::check::{Diagnostic, Severity, check};
use crate::convert::{ToUriError, ToUriOptions};
use crate::input::{InputError, InputMode, parse_input, web_to_iri};
use crate::parse::{IriRef, ParseError};
use crate::resolve::{ResolveError, Strictness};
use crate::whatwg::parse_web;

/// Any failure of a line operation.
///
/// ```
/// let e = linksieve_iri::to_uri_str("http://a b", Default::default(), &Default::default()).unwrap_err();
/// assert_eq!(e.offset(), Some(8));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IriError {
    /// The input was rejected.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The base of a resolution was rejected.
    #[error("base: {0}")]
    Base(InputError),
    /// Resolution failed.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// IRI -> URI mapping failed.
    #[error(transparent)]
    ToUri(#[from] ToUriError),
}

impl From<ParseError> for IriError {
    fn from(e: ParseError) -> Self {
        IriError::Input(InputError::Parse(e))
    }
}

impl IriError {
    /// The byte offset in the input where the error was found, when known.
    ///
    /// ```
    /// let e = linksieve_iri::to_iri_str("a%", Default::default()).unwrap_err();
    /// assert_eq!(e.offset(), Some(1));
    /// ```
    pub fn offset(&self) -> Option<usize> {
        match self {
            IriError::Input(InputError::Parse(p)) => Some(p.offset),
            _ => None,
        }
    }
}

/// Parses `input` in `mode` (web mode: the WHATWG record mapped into the IRI model).
///
/// ```
/// let r = linksieve_iri::parse_str("http://h/p?q", Default::default()).unwrap();
/// assert_eq!(r.query(), Some("q"));
/// ```
pub fn parse_str(input: &str, mode: InputMode) -> Result<IriRef<String>, IriError> {
    Ok(parse_input(input, mode)?)
}

/// Resolves `reference` against `base`, both read in `mode`. In web mode this is the WHATWG
/// parser with a base URL and the result is its serialization (href).
///
/// ```
/// use linksieve_iri::{resolve_str, InputMode, Strictness};
/// assert_eq!(resolve_str("http://a/b/c/d;p?q", "../g", InputMode::Strict, Strictness::Strict).unwrap(), "http://a/b/g");
/// assert_eq!(resolve_str("http://a/b/", "..\\g", InputMode::Web, Strictness::Strict).unwrap(), "http://a/g");
/// ```
pub fn resolve_str(
    base: &str,
    reference: &str,
    mode: InputMode,
    strictness: Strictness,
) -> Result<String, IriError> {
    if mode == InputMode::Web {
        let b = parse_web(base, None, None).map_err(|e| IriError::Base(e.into()))?;
        let u = parse_web(reference, Some(&b), None).map_err(InputError::from)?;
        return Ok(u.into());
    }
    let b = parse_input(base, mode).map_err(IriError::Base)?;
    let r = parse_input(reference, mode)?;
    Ok(b.resolve_with(&r, strictness)?.into_inner())
}

/// IRI -> URI (3987bis 3.6). In web mode: the WHATWG serialization (href), with `opts.charset`
/// as the encoding of the query.
///
/// ```
/// use linksieve_iri::{to_uri_str, InputMode};
/// assert_eq!(to_uri_str("http://h/é", InputMode::Strict, &Default::default()).unwrap(), "http://h/%C3%A9");
/// assert_eq!(to_uri_str(" http://H/é ", InputMode::Web, &Default::default()).unwrap(), "http://h/%C3%A9");
/// ```
pub fn to_uri_str(input: &str, mode: InputMode, opts: &ToUriOptions) -> Result<String, IriError> {
    if mode == InputMode::Web {
        return Ok(parse_web(input, None, opts.charset)
            .map_err(InputError::from)?
            .into());
    }
    Ok(parse_input(input, mode)?.to_uri(opts)?.into_inner())
}

/// URI -> IRI (3987bis 3.7).
///
/// ```
/// assert_eq!(linksieve_iri::to_iri_str("http://h/%C3%A9", Default::default()).unwrap(), "http://h/é");
/// ```
pub fn to_iri_str(input: &str, mode: InputMode) -> Result<String, IriError> {
    Ok(parse_input(input, mode)?.to_iri().into_inner())
}

/// Parses `input` in `mode` and runs [`check`] on it. The diagnostics' offsets refer to the
/// parsed (in LEIRI and web mode: preprocessed) text, which is returned with them.
///
/// ```
/// let (iri, diags) = linksieve_iri::check_str("http://h/\u{200E}", Default::default()).unwrap();
/// assert_eq!(iri.as_str(), "http://h/\u{200E}");
/// assert!(linksieve_iri::has_errors(&diags));
/// ```
pub fn check_str(
    input: &str,
    mode: InputMode,
) -> Result<(IriRef<String>, Vec<Diagnostic>), IriError> {
    let iri = match mode {
        InputMode::Web => web_to_iri(&parse_web(input, None, None).map_err(InputError::from)?)?,
        _ => parse_input(input, mode)?,
    };
    let d = check(&iri);
    Ok((iri, d))
}

/// True when some diagnostic is an error (a MUST of the spec is broken).
///
/// ```
/// assert!(!linksieve_iri::has_errors(&[]));
/// ```
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

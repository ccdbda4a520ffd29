//! Input modes before parsing (3987bis 6): strict IRIs, LEIRIs (6.1) and Web Addresses (6.2).
//!
//! Web mode follows the WHATWG URL Standard, which is what 6.2 describes and what browsers do,
//! with linksieve's own parser ([`crate::whatwg`]); its result is then mapped into the IRI model
//! by percent-encoding what WHATWG leaves raw but RFC 3986 forbids (6.2 steps 3 and 4).

use crate::chars;
use crate::parse::{Grammar, IriRef, ParseError};
use crate::whatwg::{WebError, WebUrl, parse_web};
use std::borrow::Cow;

/// How input text is read before it is parsed.
///
/// ```
/// use linksieve_iri::{parse_input, InputMode};
/// assert!(parse_input("http://a/b c", InputMode::Strict).is_err());
/// assert_eq!(parse_input("http://a/b c", InputMode::Leiri).unwrap().as_str(), "http://a/b%20c");
/// assert_eq!(parse_input(" HTTP://A/b\\c ", InputMode::Web).unwrap().as_str(), "http://a/b/c");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum InputMode {
    /// The 3987bis 2.2 grammar, nothing changed.
    #[default]
    #[cfg_attr(
        feature = "clap",
        value(help = "The IRI grammar of 3987bis 2.2, nothing changed")
    )]
    Strict,
    /// 3987bis 6.1: characters of `leiri-ucschar` that are not `ucschar` are percent-encoded.
    #[cfg_attr(feature = "clap", value(help = "Legacy Extended IRIs (3987bis 6.1)"))]
    Leiri,
    /// 3987bis 6.2 / WHATWG URL parsing; the result is the URL record's serialization.
    #[cfg_attr(
        feature = "clap",
        value(help = "Web Addresses: the WHATWG URL Standard (3987bis 6.2)")
    )]
    Web,
}

impl InputMode {
    /// Every input mode.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::InputMode::ALL.len(), 3);
    /// ```
    pub const ALL: [InputMode; 3] = [InputMode::Strict, InputMode::Leiri, InputMode::Web];

    /// The mode's name as the command line and Python spell it.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::InputMode::Leiri.name(), "leiri");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            InputMode::Strict => "strict",
            InputMode::Leiri => "leiri",
            InputMode::Web => "web",
        }
    }
}

/// An input mode by its name.
///
/// ```
/// use linksieve_iri::InputMode;
/// assert_eq!("web".parse::<InputMode>().unwrap(), InputMode::Web);
/// assert!("loose".parse::<InputMode>().is_err());
/// ```
impl std::str::FromStr for InputMode {
    type Err = crate::UnknownName;

    fn from_str(s: &str) -> Result<Self, crate::UnknownName> {
        crate::ladder::by_name(&InputMode::ALL, InputMode::name, s)
    }
}

/// Why input was rejected in a given mode.
///
/// ```
/// use linksieve_iri::{parse_input, InputError, InputMode};
/// assert!(matches!(parse_input("http://[", InputMode::Web), Err(InputError::Web(_))));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The (preprocessed) text does not match the grammar.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The WHATWG URL parser returned failure.
    #[error("not a valid web address: {0}")]
    Web(#[from] WebError),
}

/// Parses `input` in `mode` into an owned IRI reference. Web mode needs an absolute URL (use
/// [`crate::parse_web`] with a base for relative ones).
///
/// ```
/// use linksieve_iri::{parse_input, InputMode};
/// let r = parse_input("http://example.com/résumé", InputMode::Strict).unwrap();
/// assert_eq!(r.path(), "/résumé");
/// ```
pub fn parse_input(input: &str, mode: InputMode) -> Result<IriRef<String>, InputError> {
    match mode {
        InputMode::Strict => Ok(IriRef::parse_with(input.to_owned(), Grammar::Iri)?),
        InputMode::Leiri => Ok(IriRef::parse_with(
            leiri_to_iri(input).into_owned(),
            Grammar::Iri,
        )?),
        InputMode::Web => Ok(web_to_iri(&parse_web(input, None, None)?)?),
    }
}

/// `leiri-ucschar` minus `ucschar` (3987bis 6.1). The seed's list shows `'`, which is already a
/// sub-delim; the W3C LEIRI note and 6.3 ("Delimiters") mean `"` (U+0022), which is used here.
#[inline]
fn leiri_extra(c: char) -> bool {
    matches!(
        c,
        ' ' | '<' | '>' | '"' | '{' | '}' | '|' | '\\' | '^' | '`' | '\0'..='\x1F'
    ) || (c >= '\x7F' && !chars::is_ucschar(c))
}

/// [`leiri_extra`] for the ASCII bytes, as a table: the scan of an ASCII link is one lookup per
/// byte.
static LEIRI_EXTRA_ASCII: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = matches!(
            b as u8,
            b' ' | b'<' | b'>' | b'"' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'`' | 0..=0x1F | 0x7F
        );
        b += 1;
    }
    t
};

/// The byte offset of the first character [`leiri_extra`] holds, if any.
#[inline]
fn first_leiri_extra(input: &str) -> Option<usize> {
    let bytes = input.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if LEIRI_EXTRA_ASCII[usize::from(b)] {
                return Some(i);
            }
            i += 1;
        } else {
            // a non-ASCII character: decode it (i is a character boundary)
            let c = input[i..].chars().next()?;
            if leiri_extra(c) {
                return Some(i);
            }
            i += c.len_utf8();
        }
    }
    None
}

/// Converts a LEIRI to an IRI (3987bis 6.1): percent-encodes (3.3) each character allowed in
/// `leiri-ucschar` but not in `ucschar`. Returns the input unchanged when nothing needs encoding.
///
/// ```
/// assert_eq!(linksieve_iri::leiri_to_iri("a b|\u{E000}é"), "a%20b%7C%EE%80%80é");
/// ```
pub fn leiri_to_iri(input: &str) -> Cow<'_, str> {
    let Some(first) = first_leiri_extra(input) else {
        return Cow::Borrowed(input);
    };
    let mut out = String::with_capacity(input.len() + 8);
    out.push_str(&input[..first]);
    for c in input[first..].chars() {
        if leiri_extra(c) {
            chars::push_pct_char(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Maps a WHATWG URL record into the IRI model: its serialization with the characters that
/// WHATWG leaves raw but RFC 3986 does not allow percent-encoded (3987bis 6.2 step 3), and each
/// `%` not followed by two hex digits written `%25` (step 4). The result is an ASCII URI.
///
/// ```
/// let u = linksieve_iri::parse_web("http://h/a|b%zz#x#y", None, None).unwrap();
/// assert_eq!(u.as_str(), "http://h/a|b%zz#x#y");
/// assert_eq!(linksieve_iri::web_to_iri(&u).unwrap().as_str(), "http://h/a%7Cb%25zz#x%23y");
/// ```
pub fn web_to_iri(url: &WebUrl) -> Result<IriRef<String>, ParseError> {
    let href = url.as_str();
    let b = href.as_bytes();
    // The host (IP literals with their brackets) is already valid; only the rest may need work.
    let host = url.host_range().unwrap_or(0..0);
    let frag_start = url.fragment_start();
    let mut out = String::with_capacity(href.len() + 8);
    for (i, &c) in b.iter().enumerate() {
        let keep = if c == b'%' {
            chars::pct_at(b, i).is_some()
        } else if c == b'[' || c == b']' {
            host.contains(&i)
        } else if c == b'#' {
            frag_start == Some(i)
        } else {
            chars::is_uri_char(c)
        };
        if keep {
            out.push(c as char);
        } else {
            chars::push_pct(&mut out, &[c]);
        }
    }
    // WHATWG serializations re-parse as URIs once the above is done; the conformance tests
    // check that on every WPT case, and an error here is reported, not hidden.
    IriRef::parse_with(out, Grammar::Uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_table_is_leiri_extra() {
        for b in 0u8..128 {
            assert_eq!(
                LEIRI_EXTRA_ASCII[usize::from(b)],
                leiri_extra(char::from(b)),
                "{b:#x}"
            );
        }
        // The premise of the ASCII shortcut in the ladder's LEIRI reading: the IRI grammar
        // rejects every ASCII character that LEIRI conversion would encode, in every component.
        for b in (0u8..128).filter(|&b| LEIRI_EXTRA_ASCII[usize::from(b)]) {
            let c = char::from(b);
            for t in [
                format!("{c}"),
                format!("s{c}:x"),
                format!("s://u{c}@h/"),
                format!("s://h{c}/"),
                format!("s://[::1{c}]/"),
                format!("s://h:1{c}/"),
                format!("s://h/p{c}"),
                format!("s:p{c}"),
                format!("s://h/?q{c}"),
                format!("s://h/#f{c}"),
                format!("p{c}/q"),
            ] {
                assert!(crate::IriRef::parse(t.as_str()).is_err(), "{t:?}");
            }
        }
        for (s, want) in [
            ("http://a/b", None),
            ("http://a/é|", Some(11)),
            ("é\u{E000}", Some(2)),
            ("a\u{7F}", Some(1)),
            ("", None),
        ] {
            assert_eq!(first_leiri_extra(s), want, "{s:?}");
        }
    }
}

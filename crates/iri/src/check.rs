//! Checks beyond the grammar: bidi formatting characters (3987bis 4.1, an error), the bidi
//! structure of components (4.2, warnings), and characters not appropriate in IRIs (5.1, 6.3,
//! warnings).

use crate::chars;
use crate::parse::{Component, IriRef};
use std::fmt;
use unicode_bidi::{BidiClass, bidi_class};

/// How serious a diagnostic is.
///
/// ```
/// assert!(linksieve_iri::Severity::Error > linksieve_iri::Severity::Warning);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A SHOULD of the spec is not met.
    Warning,
    /// A MUST of the spec is not met.
    Error,
}

/// What a diagnostic is about.
///
/// ```
/// assert_eq!(linksieve_iri::DiagnosticCode::BidiFormatting.name(), "bidi-formatting");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagnosticCode {
    /// 4.1: IRIs MUST NOT contain bidirectional formatting characters.
    BidiFormatting,
    /// 4.2 rule 1: a component SHOULD NOT use both right-to-left and left-to-right characters.
    MixedDirection,
    /// 4.2 rule 2: a component using right-to-left characters SHOULD start and end with them.
    RtlBoundary,
    /// 5.1, 6.3: a character not appropriate in IRIs (space look-alikes, invisible characters,
    /// specials, non-characters, private use, tags).
    NotAppropriate,
    /// 5.1 b: a visual look-alike of ASCII (full-width Latin, half-width Katakana).
    LookAlike,
}

impl DiagnosticCode {
    /// A short stable name, for machine-readable output.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::DiagnosticCode::LookAlike.name(), "look-alike");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticCode::BidiFormatting => "bidi-formatting",
            DiagnosticCode::MixedDirection => "mixed-direction",
            DiagnosticCode::RtlBoundary => "rtl-boundary",
            DiagnosticCode::NotAppropriate => "not-appropriate",
            DiagnosticCode::LookAlike => "look-alike",
        }
    }

    /// The section of draft-ietf-iri-3987bis that the check comes from.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::DiagnosticCode::RtlBoundary.section(), "4.2");
    /// ```
    pub fn section(self) -> &'static str {
        match self {
            DiagnosticCode::BidiFormatting => "4.1",
            DiagnosticCode::MixedDirection | DiagnosticCode::RtlBoundary => "4.2",
            DiagnosticCode::NotAppropriate => "6.3",
            DiagnosticCode::LookAlike => "5.1",
        }
    }
}

/// One finding of [`check`].
///
/// ```
/// let iri = linksieve_iri::IriRef::parse("http://h/a\u{202E}b").unwrap();
/// let d = &linksieve_iri::check(&iri)[0];
/// assert_eq!(d.to_string(), "error: bidi formatting character U+202E in ipath at byte 10 (3987bis 4.1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What.
    pub code: DiagnosticCode,
    /// In which component.
    pub component: Component,
    /// Byte offset of the character, or of the start of the component for 4.2 findings.
    pub offset: usize,
    /// The character concerned, where there is one.
    pub ch: Option<char>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let what = match self.code {
            DiagnosticCode::BidiFormatting => "bidi formatting character",
            DiagnosticCode::MixedDirection => {
                "component mixes right-to-left and left-to-right characters"
            }
            DiagnosticCode::RtlBoundary => {
                "right-to-left component does not start and end with right-to-left characters"
            }
            DiagnosticCode::NotAppropriate => "character not appropriate in IRIs",
            DiagnosticCode::LookAlike => "look-alike character",
        };
        write!(f, "{sev}: {what}")?;
        if let Some(c) = self.ch {
            write!(f, " U+{:04X}", c as u32)?;
        }
        write!(
            f,
            " in {} at byte {} (3987bis {})",
            self.component,
            self.offset,
            self.code.section()
        )
    }
}

/// Checks an IRI reference and returns what it finds, errors first.
///
/// Bidi components (4.2) are the userinfo, each label of the host, each path segment, each
/// name and each value of the query (split at `&` and `=`, as 4.2 suggests), and the fragment.
///
/// ```
/// use linksieve_iri::{check, DiagnosticCode, IriRef};
/// assert!(check(&IriRef::parse("http://example.org/résumé").unwrap()).is_empty());
/// let d = check(&IriRef::parse("http://example.org/abcأ").unwrap());
/// let codes: Vec<_> = d.iter().map(|d| d.code).collect();
/// assert_eq!(codes, [DiagnosticCode::MixedDirection, DiagnosticCode::RtlBoundary]);
/// ```
pub fn check<S: AsRef<str>>(iri: &IriRef<S>) -> Vec<Diagnostic> {
    let text = iri.as_str();
    let mut out = Vec::new();
    if text.is_ascii() {
        return out;
    }
    let sp = iri.spans();
    let mut pieces: Vec<(Component, usize, usize)> = Vec::new();
    if let (Some(u), Some(h)) = (iri.userinfo(), sp.host()) {
        pieces.push((Component::Userinfo, h.start - 1 - u.len(), h.start - 1));
    }
    if let Some(h) = sp.host() {
        split_into(&mut pieces, text, Component::Host, h.start, h.end, b".");
    }
    split_into(
        &mut pieces,
        text,
        Component::Path,
        sp.path_start,
        sp.path_end,
        b"/",
    );
    if iri.query().is_some() {
        split_into(
            &mut pieces,
            text,
            Component::Query,
            sp.path_end + 1,
            sp.query_end,
            b"&=",
        );
    }
    if iri.fragment().is_some() {
        pieces.push((Component::Fragment, sp.query_end + 1, text.len()));
    }
    for (component, start, end) in pieces {
        check_piece(&mut out, component, start, &text[start..end]);
    }
    out.sort_by_key(|d| (std::cmp::Reverse(d.severity), d.offset));
    out
}

fn split_into(
    pieces: &mut Vec<(Component, usize, usize)>,
    text: &str,
    c: Component,
    start: usize,
    end: usize,
    seps: &[u8],
) {
    let mut s = start;
    for (i, b) in text.as_bytes()[start..end].iter().enumerate() {
        if seps.contains(b) {
            pieces.push((c, s, start + i));
            s = start + i + 1;
        }
    }
    pieces.push((c, s, end));
}

fn check_piece(out: &mut Vec<Diagnostic>, component: Component, start: usize, piece: &str) {
    if piece.is_ascii() {
        return;
    }
    let diag = |severity, code, offset, ch| Diagnostic {
        severity,
        code,
        component,
        offset,
        ch,
    };
    let (mut rtl, mut ltr) = (false, false);
    for (i, c) in piece.char_indices() {
        if c.is_ascii() {
            ltr |= c.is_ascii_alphabetic();
            continue;
        }
        if chars::is_bidi_formatting(c) {
            // Formatting characters are not letters: they do not count for 4.2.
            out.push(diag(
                Severity::Error,
                DiagnosticCode::BidiFormatting,
                start + i,
                Some(c),
            ));
            continue;
        } else if chars::is_not_appropriate(c) {
            out.push(diag(
                Severity::Warning,
                DiagnosticCode::NotAppropriate,
                start + i,
                Some(c),
            ));
        } else if matches!(c, '\u{FF01}'..='\u{FF5E}' | '\u{FF61}'..='\u{FF9F}') {
            out.push(diag(
                Severity::Warning,
                DiagnosticCode::LookAlike,
                start + i,
                Some(c),
            ));
        }
        match bidi_class(c) {
            BidiClass::R | BidiClass::AL => rtl = true,
            BidiClass::L => ltr = true,
            _ => {}
        }
    }
    if rtl {
        if ltr {
            out.push(diag(
                Severity::Warning,
                DiagnosticCode::MixedDirection,
                start,
                None,
            ));
        }
        let is_rtl = |c: Option<char>| {
            c.is_some_and(|c| matches!(bidi_class(c), BidiClass::R | BidiClass::AL))
        };
        if !is_rtl(piece.chars().next()) || !is_rtl(piece.chars().next_back()) {
            out.push(diag(
                Severity::Warning,
                DiagnosticCode::RtlBoundary,
                start,
                None,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(s: &str) -> Vec<(Severity, DiagnosticCode, usize)> {
        check(&IriRef::parse(s).unwrap())
            .iter()
            .map(|d| (d.severity, d.code, d.offset))
            .collect()
    }

    #[test]
    fn bidi_and_groups() {
        assert_eq!(
            codes("http://h/a\u{200F}"),
            [(Severity::Error, DiagnosticCode::BidiFormatting, 10)]
        );
        // Hebrew segment, good and bad; 4.2 examples use letters + digits.
        assert!(codes("http://h/\u{5D0}\u{5D1}/x").is_empty());
        assert_eq!(
            codes("http://h/\u{5D0}1"),
            [(Severity::Warning, DiagnosticCode::RtlBoundary, 9)]
        );
        assert_eq!(
            codes("http://h/?a=\u{3000}"),
            [(Severity::Warning, DiagnosticCode::NotAppropriate, 12)]
        );
        assert_eq!(
            codes("http://h/\u{FF21}"),
            [(Severity::Warning, DiagnosticCode::LookAlike, 9)]
        );
        assert_eq!(codes("http://\u{5D0}.h/"), []);
        assert_eq!(
            codes("http://\u{5D0}a.h/"),
            [
                (Severity::Warning, DiagnosticCode::MixedDirection, 7),
                (Severity::Warning, DiagnosticCode::RtlBoundary, 7)
            ]
        );
    }
}

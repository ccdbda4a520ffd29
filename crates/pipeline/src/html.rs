//! `--html`: undo HTML character references inside found links before normalization
//! (draft-ietf-iri-comparison 3, preparation for comparison: `&amp;`, `&#xE9;`, `&eacute;`).

use std::borrow::Cow;

/// Decodes the character references of `link` (all of HTML's named references, decimal and
/// hexadecimal ones). A reference that decodes to a character that cannot be in a link in text
/// (`"`, `<`, `>`, whitespace) ends the link there: `&quot;` after a URL in an
/// attribute value is its closing quote, not part of it.
///
/// ```
/// use linksieve_pipeline::unescape_link;
/// assert_eq!(unescape_link("http://a/?x=1&amp;y=r&eacute;s&#xE9;"), "http://a/?x=1&y=résé");
/// assert_eq!(unescape_link("http://a/b&quot;&gt;next"), "http://a/b");
/// assert_eq!(unescape_link("http://a/plain"), "http://a/plain");
/// ```
pub fn unescape_link(link: &str) -> Cow<'_, str> {
    if !link.contains('&') {
        return Cow::Borrowed(link);
    }
    let decoded = htmlize::unescape(link);
    match decoded.find(|c: char| matches!(c, '"' | '<' | '>') || c.is_whitespace()) {
        Some(cut) => Cow::Owned(decoded[..cut].to_owned()),
        None => Cow::Owned(decoded.into_owned()),
    }
}

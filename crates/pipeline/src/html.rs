//! `--html`: undo HTML character references inside found links before normalization
//! (draft-ietf-iri-comparison 3, preparation for comparison: `&amp;`, `&#xE9;`, `&eacute;`).

use std::borrow::Cow;

/// Decodes the character references of a link found in HTML text (all of HTML's named
/// references, decimal and hexadecimal ones) and ends it where it would have ended had the
/// text been decoded before it was scanned: the decoded characters meet the scanner's
/// boundary table ([`linksieve_scan::link_end`]). `link` is the link as found, `trailing` the
/// punctuation the scanner trimmed after it (so that the `;` of a reference at the end, as in
/// `&#39;`, is decoded with it, not left behind as `&#39`). A reference that decodes to a
/// character that ends a link (`&quot;`, `&gt;`, `&nbsp;`, `&rsquo;`, `&#x202E;`, `&#x200B;`)
/// ends it there; one that decodes to trailing punctuation (`&#39;`, `&apos;`, `&#46;`) at the
/// end is trimmed.
///
/// ```
/// use linksieve_pipeline::unescape_link;
/// assert_eq!(unescape_link("http://a/?x=1&amp;y=r&eacute;s&#xE9;", "", false), "http://a/?x=1&y=résé");
/// assert_eq!(unescape_link("http://a/b&quot;&gt;next", "", false), "http://a/b");
/// assert_eq!(unescape_link("http://ex.com/a&apos", ";", false), "http://ex.com/a");
/// assert_eq!(unescape_link("http://ex.com/a&#x200B;b", "", false), "http://ex.com/a");
/// assert_eq!(unescape_link("http://a/plain", ".", false), "http://a/plain");
/// ```
pub fn unescape_link<'a>(link: &'a str, trailing: &str, ascii_only: bool) -> Cow<'a, str> {
    // trailing punctuation holds no `&`: without one in the link nothing is decoded
    if !link.contains('&') {
        return Cow::Borrowed(link);
    }
    let raw: Cow<'_, str> = if trailing.is_empty() {
        Cow::Borrowed(link)
    } else {
        Cow::Owned(format!("{link}{trailing}"))
    };
    let mut decoded = htmlize::unescape(raw.as_ref()).into_owned();
    decoded.truncate(linksieve_scan::link_end(&decoded, ascii_only));
    Cow::Owned(decoded)
}

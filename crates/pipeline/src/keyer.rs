//! How a link found by the scanner gets its key, the same for `run` and `scan --format tsv`:
//! [`found_link`] (what is keyed), then [`Keyer`].

use crate::outlinks::{DocumentItem, Unresolved};
use crate::{KeyError, Keying};
use linksieve_iri::{
    Climb, InputMode, NormalizeError, NormalizeOptions, climb_str, fixed_point, web_to_iri,
};
use linksieve_profiles::Profile;
use linksieve_scan::LinkKind;
use std::borrow::Cow;

/// Keys found links with a [`Keying`]: in the chosen rung and form (or by the chosen profile),
/// and (by [`Keyer::climb`]) in the `uri` form at every rung below it too (for the per-rung
/// duplicate counts). A link transcoded from a legacy encoding is keyed with NFC (RFC 3987 3.1
/// variant B; CMP 4.2.2). The option sets are made once, not per link.
///
/// ```
/// use linksieve_iri::{Climb, InputMode, Rung};
/// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &Default::default());
/// assert_eq!(k.key("HTTP://Example.COM:80", false).unwrap(), "http://example.com/");
/// let mut c = Climb::default();
/// k.climb("HTTP://Example.COM:80", false, &mut c).unwrap();
/// assert_eq!(c.key(Rung::Syntax), Some("http://example.com:80"));
/// ```
#[derive(Clone, Debug)]
pub struct Keyer {
    input: InputMode,
    /// The chosen keying: for Unicode text, for text from a legacy encoding (NFC).
    chosen: [Keying; 2],
}

impl Keyer {
    /// A keyer for links read in `input` mode and keyed with `keying`.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, KeyForm};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Strict, &Default::default());
    /// assert_eq!(k.options().form, KeyForm::Uri);
    /// ```
    pub fn new(input: InputMode, keying: &Keying) -> Keyer {
        let with_nfc = |legacy: bool| Keying {
            ladder: NormalizeOptions {
                nfc: keying.ladder.nfc || legacy,
                ..keying.ladder.clone()
            },
            profile: keying.profile,
        };
        let chosen = [with_nfc(false), with_nfc(true)];
        Keyer { input, chosen }
    }

    /// The ladder's options of the chosen keying (for Unicode text).
    ///
    /// ```
    /// use linksieve_iri::{InputMode, Rung};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Strict, &Default::default());
    /// assert_eq!(k.options().rung, Rung::Scheme);
    /// ```
    pub fn options(&self) -> &NormalizeOptions {
        &self.chosen[0].ladder
    }

    /// The chosen profile, if any: its keys come from the text alone, with no rungs below.
    ///
    /// ```
    /// use linksieve_pipeline::{Keyer, Keying};
    /// let w3lib = Keying { profile: Some("w3lib".parse().unwrap()), ..Default::default() };
    /// let k = Keyer::new(Default::default(), &w3lib);
    /// assert_eq!(k.profile().unwrap().kind.name(), "w3lib");
    /// ```
    pub fn profile(&self) -> Option<&Profile> {
        self.chosen[0].profile.as_ref()
    }

    /// The key of `text` by the chosen keying; `legacy`: transcoded from a legacy encoding.
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &Default::default());
    /// assert!(k.key("http://%zz", false).is_err());
    /// ```
    pub fn key(&self, text: &str, legacy: bool) -> Result<String, KeyError> {
        self.chosen[usize::from(legacy)].key(text, self.input)
    }

    /// [`Keyer::key`], appended to `out` (left as it was on an error): many keys in one buffer.
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &Default::default());
    /// let mut buf = String::new();
    /// k.key_into("HTTP://A.example", false, &mut buf).unwrap();
    /// assert!(k.key_into("http://%zz", false, &mut buf).is_err());
    /// assert_eq!(buf, "http://a.example/");
    /// ```
    pub fn key_into(&self, text: &str, legacy: bool, out: &mut String) -> Result<(), KeyError> {
        self.chosen[usize::from(legacy)].key_into(text, self.input, out)
    }

    /// The key of `text` when it is a fixed point of the ladder at the chosen rung and form
    /// (`linksieve_iri::fixed_point`): the climb's fast path, without a [`Climb`]. Always
    /// `None` with a profile (whose key is not the ladder's).
    ///
    /// ```
    /// use linksieve_iri::InputMode;
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &Default::default());
    /// assert_eq!(k.fixed_point("http://a.example/", false), Some("http://a.example/"));
    /// assert_eq!(k.fixed_point("http://A.example/", false), None);
    /// ```
    pub fn fixed_point<'a>(&'a self, text: &'a str, legacy: bool) -> Option<&'a str> {
        let chosen = &self.chosen[usize::from(legacy)];
        match chosen.profile {
            Some(_) => None,
            None => fixed_point(text, self.input, &chosen.ladder),
        }
    }

    /// Climbs the ladder with `text` (`linksieve_iri::climb_str`): its `uri` key at every
    /// rung up to the chosen one, and the chosen key in the chosen form. The ladder's climb
    /// whatever the keying: a profile's key has no rungs below it ([`Keyer::key`] makes it).
    ///
    /// ```
    /// use linksieve_iri::{Climb, InputMode, Rung};
    /// let k = linksieve_pipeline::Keyer::new(InputMode::Leiri, &Default::default());
    /// let mut c = Climb::default();
    /// k.climb("HTTP://A.example", false, &mut c).unwrap();
    /// assert_eq!((c.key(Rung::Syntax), c.top()), (Some("http://a.example"), "http://a.example/"));
    /// ```
    pub fn climb(&self, text: &str, legacy: bool, out: &mut Climb) -> Result<(), NormalizeError> {
        climb_str(
            text,
            self.input,
            &self.chosen[usize::from(legacy)].ladder,
            out,
        )
    }
}

/// The scheme a find without one is keyed with: `http://` for a bare host name or IP address
/// (`--schemeless`), `mailto:` for a bare e-mail address (`--email`); `None` for a find that
/// has its scheme.
///
/// The choice follows peer practice: linkify-it prefixes its "fuzzy" links with `http://` and
/// its e-mails with `mailto:`; the GitHub Flavored Markdown spec's extended autolinks insert
/// `http` for a `www.` link and `mailto:` for an e-mail address. `http:` rather than `https:`
/// because a find says nothing about the server, the ladder never merges the keys of `http:`
/// and `https:` links (different schemes), and keys that agree with those peers' links are
/// what a user compares against.
///
/// ```
/// use linksieve_scan::LinkKind;
/// use linksieve_pipeline::implied_scheme;
/// assert_eq!(implied_scheme(LinkKind::Bare), Some("http://"));
/// assert_eq!(implied_scheme(LinkKind::Email), Some("mailto:"));
/// assert_eq!(implied_scheme(LinkKind::Scheme), None);
/// ```
pub fn implied_scheme(kind: LinkKind) -> Option<&'static str> {
    match kind {
        LinkKind::Bare | LinkKind::Ip => Some("http://"),
        LinkKind::Email => Some("mailto:"),
        LinkKind::Scheme | LinkKind::Opaque => None,
    }
}

/// The text a find is keyed from: `text` itself when it has its scheme, else `text` with its
/// [`implied_scheme`] in front, written into `buf` (reused from find to find: no allocation
/// once it is large enough). A bare IPv6 address (`2001:db8::1`) is put in brackets, as an
/// authority needs (RFC 3986 3.2.2). The original text of the find is not changed.
///
/// ```
/// use linksieve_scan::LinkKind;
/// use linksieve_pipeline::keyable;
/// let mut buf = String::new();
/// assert_eq!(keyable("www.example.com", LinkKind::Bare, &mut buf), "http://www.example.com");
/// assert_eq!(keyable("jane@example.org", LinkKind::Email, &mut buf), "mailto:jane@example.org");
/// assert_eq!(keyable("2001:db8::1", LinkKind::Ip, &mut buf), "http://[2001:db8::1]");
/// assert_eq!(keyable("10.0.0.1:80/x", LinkKind::Ip, &mut buf), "http://10.0.0.1:80/x");
/// assert_eq!(keyable("http://a.example/", LinkKind::Scheme, &mut buf), "http://a.example/");
/// ```
pub fn keyable<'a>(text: &'a str, kind: LinkKind, buf: &'a mut String) -> &'a str {
    let Some(scheme) = implied_scheme(kind) else {
        return text;
    };
    buf.clear();
    buf.push_str(scheme);
    let host_end = text.find(['/', '?', '#']).unwrap_or(text.len());
    let (host, rest) = text.split_at(host_end);
    if kind == LinkKind::Ip
        && !host.starts_with('[')
        && host.bytes().filter(|&b| b == b':').count() > 1
    {
        buf.push('[');
        buf.push_str(host);
        buf.push(']');
        buf.push_str(rest);
    } else {
        buf.push_str(text);
    }
    buf
}

/// A link found in text, as its row shows it and as it is keyed ([`found_link`]).
///
/// ```
/// use linksieve_pipeline::{LinkBuffers, found_link};
/// let mut bufs = LinkBuffers::default();
/// let l = found_link("www.a.example/?x&amp;y", "", linksieve_scan::LinkKind::Bare, Some(false), &mut bufs);
/// assert_eq!((l.shown, l.keyed), ("www.a.example/?x&y", "http://www.a.example/?x&y"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundLink<'a> {
    /// The link as found, its HTML character references undone when it was found in HTML.
    pub shown: &'a str,
    /// What is keyed: `shown`, with its implied scheme in front when it has none.
    pub keyed: &'a str,
}

/// The buffers of [`found_link`], kept from link to link: the text with its implied scheme
/// (no allocation once it is large enough) and the text with its references undone.
///
/// ```
/// let bufs = linksieve_pipeline::LinkBuffers::default();
/// # let _ = bufs;
/// ```
#[derive(Debug, Default)]
pub struct LinkBuffers {
    decoded: String,
    implied: String,
    /// An attribute's URL as an IRI ([`document_link`]).
    attribute: String,
}

/// The one step from a link the scanner found in text to the text that is keyed, taken by
/// `run` (its workers) and `scan --format tsv` alike: in HTML (`html` is `Some(ascii_only)`)
/// the link's character references are undone, with the punctuation the scanner trimmed after
/// it (`trailing`, see [`crate::unescape_link`]); then a find without a scheme gets its implied
/// one ([`keyable`]).
///
/// ```
/// use linksieve_pipeline::{LinkBuffers, found_link};
/// use linksieve_scan::LinkKind;
/// let mut bufs = LinkBuffers::default();
/// let l = found_link("jane@example.org", "", LinkKind::Email, None, &mut bufs);
/// assert_eq!((l.shown, l.keyed), ("jane@example.org", "mailto:jane@example.org"));
/// let l = found_link("http://a.example/&#xE9;", "", LinkKind::Scheme, Some(false), &mut bufs);
/// assert_eq!((l.shown, l.keyed), ("http://a.example/é", "http://a.example/é"));
/// // outside HTML a reference is text
/// let l = found_link("http://a.example/&#xE9;", "", LinkKind::Scheme, None, &mut bufs);
/// assert_eq!(l.keyed, "http://a.example/&#xE9;");
/// ```
pub fn found_link<'a>(
    text: &'a str,
    trailing: &str,
    kind: LinkKind,
    html: Option<bool>,
    bufs: &'a mut LinkBuffers,
) -> FoundLink<'a> {
    let LinkBuffers {
        decoded, implied, ..
    } = bufs;
    let shown: &'a str =
        match html.map(|ascii_only| crate::unescape_link(text, trailing, ascii_only)) {
            Some(Cow::Owned(s)) => {
                *decoded = s;
                decoded
            }
            Some(Cow::Borrowed(s)) => s,
            None => text,
        };
    FoundLink {
        shown,
        keyed: keyable(shown, kind, implied),
    }
}

/// What becomes of a link of an HTML document ([`document_link`]).
///
/// ```
/// use linksieve_pipeline::DocumentLinkText;
/// assert_eq!(DocumentLinkText::TooLong, DocumentLinkText::TooLong);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocumentLinkText<'a> {
    /// Keyed from `keyed`; `shown` is what a row shows (an attribute's value as written).
    Keyed(FoundLink<'a>),
    /// An attribute whose value the URL Standard's parser refused: a rejected link, with why.
    Invalid(String),
    /// An attribute that is not keyed: a relative URL without a base, or a scheme of
    /// [`crate::NOT_KEYED_SCHEMES`] (counted in the document's stats, not rejected).
    NotKeyed,
    /// An attribute value longer than the longest link (`--max-link-len`): counted as too long.
    TooLong,
}

/// The one step from a link of an HTML document ([`DocumentItem`], in document order) to what
/// is keyed, taken by `run`'s workers and by Python's `extract(key=...)` (which calls
/// [`found_link`] itself for a link of the text, whose shown text it also reports): a link of
/// the text through [`found_link`] (its references undone), an attribute's URL, resolved by the
/// URL Standard, mapped into the IRI model ([`web_to_iri`]: 3987bis 6.2 steps 3 and 4).
/// `ascii_only` and `max_link_len` are the scan's options.
///
/// ```
/// use linksieve_pipeline::{DocumentLinkText, LinkBuffers, document_link, read_document, DocumentOptions};
/// let url = linksieve_iri::WebUrl::parse("http://h.example/a/").ok();
/// let doc = read_document(b"<a href='b|c?x'>see http://t.example/?a&amp;b</a>", &DocumentOptions { url, ..Default::default() });
/// let hits = doc.text_links(&Default::default()).hits;
/// let mut keyed = Vec::new();
/// let mut bufs = LinkBuffers::default();
/// doc.in_order(&hits, false, |item| {
///     if let DocumentLinkText::Keyed(l) = document_link(&item, false, 2048, &mut bufs) {
///         keyed.push(l.keyed.to_owned());
///     }
/// });
/// assert_eq!(keyed, ["http://h.example/a/b%7Cc?x", "http://t.example/?a&b"]);
/// ```
pub fn document_link<'a>(
    item: &'a DocumentItem<'_>,
    ascii_only: bool,
    max_link_len: usize,
    bufs: &'a mut LinkBuffers,
) -> DocumentLinkText<'a> {
    let l = match item {
        DocumentItem::Text(h) => {
            let found = found_link(&h.text, &h.trimmed.trailing, h.kind, Some(ascii_only), bufs);
            return DocumentLinkText::Keyed(found);
        }
        DocumentItem::Attribute(l) => l,
    };
    let iri = match &l.url {
        Ok(u) => web_to_iri(u).map_err(|e| e.to_string()),
        Err(Unresolved::Invalid(e)) => Err(e.to_string()),
        Err(_) => return DocumentLinkText::NotKeyed,
    };
    // --max-link-len, as for a link of the text (issue 30 item 9)
    if l.overlong(max_link_len) {
        return DocumentLinkText::TooLong;
    }
    match iri {
        Ok(iri) => {
            bufs.attribute = iri.into_inner();
            DocumentLinkText::Keyed(FoundLink {
                shown: &l.value,
                keyed: &bufs.attribute,
            })
        }
        Err(e) => DocumentLinkText::Invalid(format!("{} {}: {e}", l.tag, l.attr)),
    }
}

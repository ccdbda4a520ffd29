//! What a link is: the element, HTTP header or robots.txt line it came from, as one bit of a
//! set, so that an edge found through several types of link carries them all.

use std::fmt;

/// One type of link. Its [`name`](LinkType::name) is what the edges output writes.
///
/// ```
/// use linksieve_graph::LinkType;
/// assert_eq!(LinkType::of_attribute("link", "href", Some("Canonical")), LinkType::Canonical);
/// assert_eq!(LinkType::Canonical.name(), "canonical");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkType {
    /// `<a href>`, `<area href>`: a hyperlink.
    A,
    /// `<img src|srcset>`, `<picture><source srcset>`, `<input type=image src>`: an image.
    Img,
    /// `<script src>`.
    Script,
    /// `<link rel=stylesheet href>`.
    Style,
    /// `<link rel=canonical href>`.
    Canonical,
    /// Any other `<link href>` (icon, alternate, preload, ...).
    Link,
    /// `<meta http-equiv=refresh content>`.
    Refresh,
    /// `<iframe src>`, `<frame src>`.
    Frame,
    /// Any other URL-valued attribute (`form action`, `video src`, `blockquote cite`, ...).
    Other,
    /// A link written in the document's text, not in an attribute.
    Text,
    /// The `Location` of a `301 Moved Permanently` response.
    Redirect301,
    /// The `Location` of a `302 Found` response.
    Redirect302,
    /// The `Location` of a `303 See Other` response.
    Redirect303,
    /// The `Location` of a `307 Temporary Redirect` response.
    Redirect307,
    /// The `Location` of a `308 Permanent Redirect` response.
    Redirect308,
    /// A `Link` header field of a response (RFC 8288).
    LinkHeader,
    /// A `Sitemap:` line of a robots.txt.
    Sitemap,
    /// No link: the mark that makes a visited page (a response record, a WAT record of one, a
    /// document read as HTML) a node of the graph, links or none, as the row
    /// `page<TAB>page<TAB>0<TAB>node` (at host level, its host's). cc-pyspark writes such a
    /// self-link for a page without links ("every visited URL should be a node"); Common
    /// Crawl's graph files keep the vertex and drop the loop, as `linksieve graph` does.
    Node,
}

/// Every type, in the order of their bits (and of their names in a set).
const ALL: [LinkType; 18] = [
    LinkType::A,
    LinkType::Img,
    LinkType::Script,
    LinkType::Style,
    LinkType::Canonical,
    LinkType::Link,
    LinkType::Refresh,
    LinkType::Frame,
    LinkType::Other,
    LinkType::Text,
    LinkType::Redirect301,
    LinkType::Redirect302,
    LinkType::Redirect303,
    LinkType::Redirect307,
    LinkType::Redirect308,
    LinkType::LinkHeader,
    LinkType::Sitemap,
    LinkType::Node,
];

impl LinkType {
    /// The type of a link found in attribute `attr` of element `tag` (lower case names, as
    /// [`linksieve_scan`'s HTML scanner](https://docs.rs/linksieve-scan) reports them) with
    /// the element's `rel` value, if any (HTML "link types", matched without regard to case).
    ///
    /// ```
    /// use linksieve_graph::LinkType;
    /// assert_eq!(LinkType::of_attribute("a", "href", None), LinkType::A);
    /// assert_eq!(LinkType::of_attribute("link", "href", Some("preload stylesheet")), LinkType::Style);
    /// assert_eq!(LinkType::of_attribute("form", "action", None), LinkType::Other);
    /// ```
    pub fn of_attribute(tag: &str, attr: &str, rel: Option<&str>) -> LinkType {
        let has_rel = |word: &str| {
            rel.is_some_and(|r| {
                r.split_ascii_whitespace()
                    .any(|w| w.eq_ignore_ascii_case(word))
            })
        };
        match (tag, attr) {
            ("a" | "area", "href") => LinkType::A,
            ("img", "src" | "srcset") | ("source", "srcset") | ("input", "src") => LinkType::Img,
            ("script", "src") => LinkType::Script,
            ("link", "href") if has_rel("stylesheet") => LinkType::Style,
            ("link", "href") if has_rel("canonical") => LinkType::Canonical,
            ("link", "href") => LinkType::Link,
            ("meta", _) => LinkType::Refresh,
            ("iframe" | "frame", "src") => LinkType::Frame,
            _ => LinkType::Other,
        }
    }

    /// The type of a redirect with status `status` (301, 302, 303, 307 or 308; `None` for
    /// another).
    ///
    /// ```
    /// use linksieve_graph::LinkType;
    /// assert_eq!(LinkType::redirect(308), Some(LinkType::Redirect308));
    /// assert_eq!(LinkType::Redirect308.name(), "redirect-308");
    /// assert_eq!(LinkType::redirect(304), None);
    /// ```
    pub fn redirect(status: u16) -> Option<LinkType> {
        Some(match status {
            301 => LinkType::Redirect301,
            302 => LinkType::Redirect302,
            303 => LinkType::Redirect303,
            307 => LinkType::Redirect307,
            308 => LinkType::Redirect308,
            _ => return None,
        })
    }

    /// The name the edges output writes.
    ///
    /// ```
    /// assert_eq!(linksieve_graph::LinkType::Img.name(), "img");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            LinkType::A => "a",
            LinkType::Img => "img",
            LinkType::Script => "script",
            LinkType::Style => "style",
            LinkType::Canonical => "canonical",
            LinkType::Link => "link",
            LinkType::Refresh => "refresh",
            LinkType::Frame => "frame",
            LinkType::Other => "other",
            LinkType::Text => "text",
            LinkType::Redirect301 => "redirect-301",
            LinkType::Redirect302 => "redirect-302",
            LinkType::Redirect303 => "redirect-303",
            LinkType::Redirect307 => "redirect-307",
            LinkType::Redirect308 => "redirect-308",
            LinkType::LinkHeader => "link-header",
            LinkType::Sitemap => "sitemap",
            LinkType::Node => "node",
        }
    }

    fn bit(self) -> u32 {
        1 << ALL.iter().position(|&k| k == self).unwrap_or(0)
    }
}

/// A set of [`LinkType`]s: the types of link an edge was found through.
///
/// ```
/// use linksieve_graph::{LinkType, LinkTypes};
/// let k = LinkTypes::from(LinkType::Text) | LinkTypes::from(LinkType::A);
/// assert_eq!(k.to_string(), "a,text");
/// assert_eq!(LinkTypes::from_bits(k.bits()), k);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkTypes(u32);

impl LinkTypes {
    /// The set as bits (for storing it).
    ///
    /// ```
    /// assert_eq!(linksieve_graph::LinkTypes::default().bits(), 0);
    /// ```
    pub fn bits(self) -> u32 {
        self.0
    }

    /// The set from [`bits`](LinkTypes::bits); bits of no type are dropped.
    ///
    /// ```
    /// assert_eq!(linksieve_graph::LinkTypes::from_bits(u32::MAX).to_string().split(',').count(), 18);
    /// ```
    pub fn from_bits(bits: u32) -> LinkTypes {
        LinkTypes(bits & ((1 << ALL.len()) - 1))
    }

    /// Whether the set holds `ty`.
    ///
    /// ```
    /// use linksieve_graph::{LinkType, LinkTypes};
    /// assert!(LinkTypes::from(LinkType::A).contains(LinkType::A));
    /// ```
    pub fn contains(self, ty: LinkType) -> bool {
        self.0 & ty.bit() != 0
    }
}

impl From<LinkType> for LinkTypes {
    fn from(k: LinkType) -> LinkTypes {
        LinkTypes(k.bit())
    }
}

impl std::ops::BitOr for LinkTypes {
    type Output = LinkTypes;
    fn bitor(self, o: LinkTypes) -> LinkTypes {
        LinkTypes(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for LinkTypes {
    fn bitor_assign(&mut self, o: LinkTypes) {
        self.0 |= o.0;
    }
}

/// The names of the types, comma-separated, in the order of [`LinkType`]'s variants.
impl fmt::Display for LinkTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for k in ALL.iter().filter(|k| self.contains(**k)) {
            if !first {
                f.write_str(",")?;
            }
            f.write_str(k.name())?;
            first = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_its_own_bit_and_name() {
        let all = ALL.iter().fold(LinkTypes::default(), |s, &k| s | k.into());
        assert_eq!(all.bits().count_ones() as usize, ALL.len());
        let names: Vec<_> = ALL.iter().map(|k| k.name()).collect();
        assert_eq!(all.to_string(), names.join(","));
    }

    #[test]
    fn rel_words_are_matched_whole_and_without_case() {
        let k = |rel| LinkType::of_attribute("link", "href", Some(rel));
        assert_eq!(k("STYLESHEET"), LinkType::Style);
        assert_eq!(k("alternate stylesheet"), LinkType::Style);
        assert_eq!(k("stylesheets"), LinkType::Link);
        assert_eq!(k("icon"), LinkType::Link);
        assert_eq!(LinkType::of_attribute("link", "href", None), LinkType::Link);
    }
}

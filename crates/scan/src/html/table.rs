//! The tags the tokenizer tells apart, and the table of URL-valued attributes.
//!
//! A tag name is looked up once, when it ends ([`Tag::lookup`]); everything the tokenizer and
//! the extractor decide about a tag (does it hold links, does it switch the tokenizer to a text
//! state, does it end foreign content) is a method of [`Tag`].

/// What the value of a URL-valued attribute holds.
///
/// ```
/// use linksieve_scan::html::{AttrKind, url_attr_kind};
/// assert_eq!(url_attr_kind("img", "srcset"), Some(AttrKind::Srcset));
/// assert_eq!(url_attr_kind("a", "ping"), Some(AttrKind::Ping));
/// assert_eq!(url_attr_kind("meta", "content"), Some(AttrKind::Refresh));
/// assert_eq!(url_attr_kind("a", "href"), Some(AttrKind::Url));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttrKind {
    /// One URL, the whole value with leading and trailing ASCII whitespace stripped (HTML's
    /// "valid URL potentially surrounded by spaces").
    Url,
    /// A `srcset`: a comma-separated list of image candidates, each a URL and descriptors
    /// (HTML "parse a srcset attribute"); one outlink per candidate URL.
    Srcset,
    /// A `ping`: URLs separated by ASCII whitespace; one outlink per URL.
    Ping,
    /// The `content` of `<meta http-equiv=refresh>`: the URL part of `5; url=...` (HTML
    /// "shared declarative refresh steps"); only when `http-equiv` is `refresh`.
    Refresh,
}

/// One row of the table: `attr` of `tag` holds URLs of `kind`.
///
/// ```
/// use linksieve_scan::html::URL_ATTRIBUTES;
/// assert!(URL_ATTRIBUTES.iter().any(|u| u.tag == "form" && u.attr == "action"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlAttr {
    /// The element's name, lowercase.
    pub tag: &'static str,
    /// The attribute's name, lowercase.
    pub attr: &'static str,
    /// What the value holds.
    pub kind: AttrKind,
}

const fn row(tag: &'static str, attr: &'static str, kind: AttrKind) -> UrlAttr {
    UrlAttr { tag, attr, kind }
}

use AttrKind::{Ping, Refresh, Srcset, Url};

/// The URL-valued attributes read, grouped by element. `<base href>` counts only on
/// the first `base` element that has an `href`; `<meta content>` only with
/// `http-equiv=refresh`. `<image>` is read as `img`, as HTML's tree builder renames it.
///
/// ```
/// use linksieve_scan::html::URL_ATTRIBUTES;
/// let img: Vec<&str> = URL_ATTRIBUTES.iter().filter(|u| u.tag == "img").map(|u| u.attr).collect();
/// assert_eq!(img, ["src", "srcset"]);
/// ```
pub const URL_ATTRIBUTES: &[UrlAttr] = &[
    row("a", "href", Url),
    row("a", "ping", Ping),
    row("area", "href", Url),
    row("area", "ping", Ping),
    row("link", "href", Url),
    row("link", "imagesrcset", Srcset),
    row("base", "href", Url),
    row("img", "src", Url),
    row("img", "srcset", Srcset),
    row("input", "src", Url),
    row("input", "formaction", Url),
    row("button", "formaction", Url),
    row("script", "src", Url),
    row("iframe", "src", Url),
    row("frame", "src", Url),
    row("embed", "src", Url),
    row("source", "src", Url),
    row("source", "srcset", Srcset),
    row("track", "src", Url),
    row("audio", "src", Url),
    row("video", "src", Url),
    row("video", "poster", Url),
    row("form", "action", Url),
    row("object", "data", Url),
    row("blockquote", "cite", Url),
    row("q", "cite", Url),
    row("del", "cite", Url),
    row("ins", "cite", Url),
    row("meta", "content", Refresh),
];

/// The kind of URL `attr` of `tag` holds, if it is in [`URL_ATTRIBUTES`] (both names
/// lowercase).
///
/// ```
/// use linksieve_scan::html::url_attr_kind;
/// assert_eq!(url_attr_kind("div", "href"), None);
/// assert_eq!(url_attr_kind("image", "src"), url_attr_kind("img", "src"));
/// ```
pub fn url_attr_kind(tag: &str, attr: &str) -> Option<AttrKind> {
    Tag::lookup(tag.as_bytes())
        .url_attrs()
        .iter()
        .find(|u| u.attr == attr)
        .map(|u| u.kind)
}

/// A text state a start tag switches the tokenizer to (in the HTML namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// `title`, `textarea`: RCDATA.
    Rcdata,
    /// `style`, `xmp`, `iframe`, `noembed`, `noframes`: RAWTEXT.
    Rawtext,
    /// `script`: script data (with the escaped states).
    Script,
    /// `plaintext`: the rest of the input is text.
    Plaintext,
}

/// The tags the tokenizer and the extractor tell apart; every other name is [`Tag::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    A,
    Area,
    Link,
    Base,
    Img,
    /// `image`, which HTML's tree builder renames `img` (not in foreign content, where it
    /// does not end SVG).
    Image,
    Input,
    Button,
    Script,
    Iframe,
    Frame,
    Embed,
    Source,
    Track,
    Audio,
    Video,
    Form,
    Object,
    Blockquote,
    Q,
    Del,
    Ins,
    Meta,
    Title,
    Textarea,
    Style,
    Xmp,
    Noembed,
    Noframes,
    Plaintext,
    Svg,
    Math,
    /// SVG's HTML integration points: `foreignObject`, `desc` (and `title`, [`Tag::Title`]).
    SvgIntegration,
    /// MathML text integration points: `mi`, `mo`, `mn`, `ms`, `mtext`.
    MathText,
    AnnotationXml,
    Font,
    /// Another start tag that ends foreign content (HTML "parsing tokens in foreign content").
    Breakout,
    /// `br` and `p`, whose end tags also end foreign content.
    BrP,
    Other,
}

impl Tag {
    /// The tag for a lowercase name.
    pub(super) fn lookup(name: &[u8]) -> Tag {
        match name {
            b"a" => Tag::A,
            b"area" => Tag::Area,
            b"link" => Tag::Link,
            b"base" => Tag::Base,
            b"img" => Tag::Img,
            b"image" => Tag::Image,
            b"input" => Tag::Input,
            b"button" => Tag::Button,
            b"script" => Tag::Script,
            b"iframe" => Tag::Iframe,
            b"frame" => Tag::Frame,
            b"embed" => Tag::Embed,
            b"source" => Tag::Source,
            b"track" => Tag::Track,
            b"audio" => Tag::Audio,
            b"video" => Tag::Video,
            b"form" => Tag::Form,
            b"object" => Tag::Object,
            b"blockquote" => Tag::Blockquote,
            b"q" => Tag::Q,
            b"del" => Tag::Del,
            b"ins" => Tag::Ins,
            b"meta" => Tag::Meta,
            b"title" => Tag::Title,
            b"textarea" => Tag::Textarea,
            b"style" => Tag::Style,
            b"xmp" => Tag::Xmp,
            b"noembed" => Tag::Noembed,
            b"noframes" => Tag::Noframes,
            b"plaintext" => Tag::Plaintext,
            b"svg" => Tag::Svg,
            b"math" => Tag::Math,
            b"foreignobject" | b"desc" => Tag::SvgIntegration,
            b"mi" | b"mo" | b"mn" | b"ms" | b"mtext" => Tag::MathText,
            b"annotation-xml" => Tag::AnnotationXml,
            b"font" => Tag::Font,
            b"br" | b"p" => Tag::BrP,
            b"b" | b"big" | b"body" | b"center" | b"code" | b"dd" | b"div" | b"dl" | b"dt"
            | b"em" | b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" | b"head" | b"hr" | b"i"
            | b"li" | b"listing" | b"menu" | b"nobr" | b"ol" | b"pre" | b"ruby" | b"s"
            | b"small" | b"span" | b"strong" | b"strike" | b"sub" | b"sup" | b"table" | b"tt"
            | b"u" | b"ul" | b"var" => Tag::Breakout,
            _ => Tag::Other,
        }
    }

    /// The element's name as reported in outlinks (`img` for `<image>`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Tag::A => "a",
            Tag::Area => "area",
            Tag::Link => "link",
            Tag::Base => "base",
            Tag::Img | Tag::Image => "img",
            Tag::Input => "input",
            Tag::Button => "button",
            Tag::Script => "script",
            Tag::Iframe => "iframe",
            Tag::Frame => "frame",
            Tag::Embed => "embed",
            Tag::Source => "source",
            Tag::Track => "track",
            Tag::Audio => "audio",
            Tag::Video => "video",
            Tag::Form => "form",
            Tag::Object => "object",
            Tag::Blockquote => "blockquote",
            Tag::Q => "q",
            Tag::Del => "del",
            Tag::Ins => "ins",
            Tag::Meta => "meta",
            Tag::Title => "title",
            Tag::Textarea => "textarea",
            Tag::Style => "style",
            Tag::Xmp => "xmp",
            Tag::Noembed => "noembed",
            Tag::Noframes => "noframes",
            Tag::Plaintext => "plaintext",
            Tag::Svg => "svg",
            Tag::Math => "math",
            Tag::AnnotationXml => "annotation-xml",
            Tag::Font => "font",
            Tag::SvgIntegration | Tag::MathText | Tag::Breakout | Tag::BrP | Tag::Other => "",
        }
    }

    /// This tag's rows of [`URL_ATTRIBUTES`].
    pub(super) fn url_attrs(self) -> &'static [UrlAttr] {
        let (from, to) = match self {
            Tag::A => (0, 2),
            Tag::Area => (2, 4),
            Tag::Link => (4, 6),
            Tag::Base => (6, 7),
            Tag::Img | Tag::Image => (7, 9),
            Tag::Input => (9, 11),
            Tag::Button => (11, 12),
            Tag::Script => (12, 13),
            Tag::Iframe => (13, 14),
            Tag::Frame => (14, 15),
            Tag::Embed => (15, 16),
            Tag::Source => (16, 18),
            Tag::Track => (18, 19),
            Tag::Audio => (19, 20),
            Tag::Video => (20, 22),
            Tag::Form => (22, 23),
            Tag::Object => (23, 24),
            Tag::Blockquote => (24, 25),
            Tag::Q => (25, 26),
            Tag::Del => (26, 27),
            Tag::Ins => (27, 28),
            Tag::Meta => (28, 29),
            _ => (0, 0),
        };
        &URL_ATTRIBUTES[from..to]
    }

    /// Whether `rel` is reported with this tag's outlinks.
    pub(super) fn has_rel(self) -> bool {
        matches!(self, Tag::A | Tag::Area | Tag::Link)
    }

    /// Whether the tokenizer keeps this start tag's attributes: it has URL-valued ones, or they
    /// decide whether it ends foreign content (`font`) or opens HTML inside it
    /// (`annotation-xml`).
    pub(super) fn keeps_attrs(self) -> bool {
        !self.url_attrs().is_empty() || matches!(self, Tag::Font | Tag::AnnotationXml)
    }

    /// The text state this start tag switches to in the HTML namespace (HTML "parsing main in
    /// body": the generic RCDATA and raw text element parsing algorithms; `noscript` is parsed
    /// as markup, as with scripting disabled).
    pub(super) fn text_kind(self) -> Option<TextKind> {
        match self {
            Tag::Title | Tag::Textarea => Some(TextKind::Rcdata),
            Tag::Style | Tag::Xmp | Tag::Iframe | Tag::Noembed | Tag::Noframes => {
                Some(TextKind::Rawtext)
            }
            Tag::Script => Some(TextKind::Script),
            Tag::Plaintext => Some(TextKind::Plaintext),
            _ => None,
        }
    }

    /// Whether this start tag ends foreign content (`font` only with `color`, `face` or
    /// `size`, which the caller checks).
    pub(super) fn breaks_out(self) -> bool {
        matches!(
            self,
            Tag::Breakout | Tag::BrP | Tag::Blockquote | Tag::Embed | Tag::Img | Tag::Meta
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_belongs_to_its_tag() {
        let mut n = 0;
        for u in URL_ATTRIBUTES {
            let tag = Tag::lookup(u.tag.as_bytes());
            assert_eq!(tag.name(), u.tag);
            assert!(tag.url_attrs().contains(u), "{u:?}");
            n += 1;
        }
        let all = [
            "a",
            "area",
            "link",
            "base",
            "img",
            "input",
            "button",
            "script",
            "iframe",
            "frame",
            "embed",
            "source",
            "track",
            "audio",
            "video",
            "form",
            "object",
            "blockquote",
            "q",
            "del",
            "ins",
            "meta",
        ];
        let rows: usize = all
            .iter()
            .map(|t| Tag::lookup(t.as_bytes()).url_attrs().len())
            .sum();
        assert_eq!(rows, n);
    }
}

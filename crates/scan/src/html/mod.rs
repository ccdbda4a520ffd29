//! Outlinks of HTML read as HTML: the URL-valued attributes of its elements, with their byte
//! spans, the first `<base href>` and the declared character encoding.
//!
//! The input is text (decode it first: [`DeclaredCharset`] says what the document declares).
//! A tokenizer of our own (`tokenizer/`: the state machine in `mod.rs`, its states in
//! `state.rs`, the tag being built in `tag.rs`) follows the WHATWG tokenizer's states for tags,
//! attributes, comments and the text of `script`, `style`, `title`, `textarea`, `xmp`,
//! `iframe`, `noembed`, `noframes` and `plaintext` (none of which hold tags), with enough of
//! the tree builder to know SVG and MathML (`foreign.rs`: there those elements hold tags, and
//! `<![CDATA[` is a section). `noscript` is read as markup, as with scripting disabled (a
//! crawler's view). Only start tags count; attributes of end tags are dropped, as HTML does,
//! and so is a tag the input ends in.
//!
//! Which attributes count is [`URL_ATTRIBUTES`] (`table.rs`); values are decoded as HTML's
//! tokenizer does (`charref.rs`: character references by the attribute rules, CR LF and CR as
//! LF, U+0000 as U+FFFD), then leading and trailing ASCII whitespace is stripped; `srcset`
//! (`srcset.rs`), `ping` and `<meta http-equiv=refresh>` (`meta.rs`) are split into their
//! URLs. Of duplicate attributes the first counts. Nothing is resolved: every value is
//! reported as written (`javascript:`, `data:`, `mailto:` and empty ones too), with the
//! document's base ([`HtmlScanner::base`]) to resolve against. `extract.rs` applies the rules
//! to a finished tag.
//!
//! ```
//! use linksieve_scan::html::outlinks;
//! let page = r#"<base href="http://ex.com/d/"><a href=" a.html?x=1&amp;y=2 " rel=next>A</a>
//! <!-- <a href=no> --><script>document.write("<a href=no>")</script>
//! <img src=i.png srcset="i2.png 2x, i3.png 3x">"#;
//! let mut found = Vec::new();
//! let summary = outlinks(page, |o| found.push((o.tag, o.attr, o.value.into_owned())));
//! assert_eq!(found, [
//!     ("base", "href", "http://ex.com/d/".to_string()),
//!     ("a", "href", "a.html?x=1&y=2".to_string()),
//!     ("img", "src", "i.png".to_string()),
//!     ("img", "srcset", "i2.png".to_string()),
//!     ("img", "srcset", "i3.png".to_string()),
//! ]);
//! assert_eq!(summary.base.unwrap().href, "http://ex.com/d/");
//! ```

use std::borrow::Cow;

mod charref;
mod extract;
mod foreign;
mod meta;
mod srcset;
mod table;
mod texts;
mod tokenizer;

pub use meta::{charset_in_content, refresh_url};
pub use srcset::{SrcsetUrls, srcset_urls};
pub use table::{AttrKind, URL_ATTRIBUTES, UrlAttr, url_attr_kind};
pub use texts::element_texts;

use crate::Encoding;
use extract::Extractor;
use tokenizer::Tokenizer;

/// The longest tag whose outlinks are reported by default, in bytes from `<` to `>` (a tag of
/// a link of [`crate::DEFAULT_MAX_LINK_LEN`] and more).
///
/// ```
/// use linksieve_scan::html::{outlinks, DEFAULT_MAX_TAG_LEN};
/// let tag = format!("<img src='{}'>", "x".repeat(DEFAULT_MAX_TAG_LEN));
/// let s = outlinks(&tag, |_| unreachable!());
/// assert_eq!(s.stats.skipped_tags, 1);
/// ```
pub const DEFAULT_MAX_TAG_LEN: usize = 256 * 1024;

/// One URL found in an attribute.
///
/// `value` borrows from the input or from the decoded attribute, for the callback's call;
/// [`Outlink::into_owned`] keeps it.
///
/// ```
/// use linksieve_scan::html::{outlinks, AttrKind};
/// let page = "<A HREF='/x?a=1&amp;b=2' REL=Nofollow>";
/// outlinks(page, |o| {
///     assert_eq!((o.tag, o.attr, o.kind), ("a", "href", AttrKind::Url));
///     assert_eq!(o.value, "/x?a=1&b=2");
///     assert_eq!(o.rel.as_deref(), Some("Nofollow"));
///     assert_eq!(&page[o.start..o.end], "/x?a=1&amp;b=2");
/// });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlink<'a> {
    /// The element's name, lowercase (`img` for `<image>`).
    pub tag: &'static str,
    /// The attribute's name, lowercase.
    pub attr: &'static str,
    /// What the attribute holds (one URL, a `srcset` candidate, ...).
    pub kind: AttrKind,
    /// The `rel` of `a`, `area` and `link` (decoded, stripped; `None` without one or on other
    /// elements).
    pub rel: Option<Cow<'a, str>>,
    /// The URL: decoded, without leading and trailing ASCII whitespace.
    pub value: Cow<'a, str>,
    /// Byte offset where the URL's raw text begins in the input (in the stream, for
    /// [`HtmlScanner`]): a character reference the URL begins or ends with is counted whole.
    /// Empty (`start == end`) for an empty value, at the value, or after the name of an
    /// attribute without `=`.
    pub start: usize,
    /// Byte offset where the URL's raw text ends.
    pub end: usize,
}

impl Outlink<'_> {
    /// The same outlink, owning its text.
    ///
    /// ```
    /// use linksieve_scan::html::{outlinks, Outlink};
    /// let mut kept: Vec<Outlink<'static>> = Vec::new();
    /// outlinks("<a href=&#x2F;>", |o| kept.push(o.into_owned()));
    /// assert_eq!(kept[0].value, "/");
    /// ```
    pub fn into_owned(self) -> Outlink<'static> {
        Outlink {
            tag: self.tag,
            attr: self.attr,
            kind: self.kind,
            rel: self.rel.map(|r| Cow::Owned(r.into_owned())),
            value: Cow::Owned(self.value.into_owned()),
            start: self.start,
            end: self.end,
        }
    }
}

/// The first `<base>` element with an `href`: the document's base URL (resolve it against the
/// document's address; later `<base>` elements change nothing, and this one applies to the
/// outlinks before it too).
///
/// ```
/// use linksieve_scan::html::outlinks;
/// let s = outlinks("<base target=_top><base href=' /a/ '><base href=/b/>", |_| {});
/// let base = s.base.unwrap();
/// assert_eq!((base.href.as_str(), base.start, base.end), ("/a/", 31, 34));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentBase {
    /// The `href`, decoded and stripped.
    pub href: String,
    /// Byte offset of the value in the input.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
}

/// The character encoding a `<meta charset>` or `<meta http-equiv=content-type
/// content="...; charset=...">` declares: the first that names an encoding HTML knows.
/// HTML's prescan looks at the first 1024 bytes only; `start` tells where it was.
///
/// ```
/// use linksieve_scan::html::outlinks;
/// let s = outlinks(r#"<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">"#, |_| {});
/// let c = s.charset.unwrap();
/// assert_eq!((c.label.as_str(), c.encoding.name()), ("Shift_JIS", "Shift_JIS"));
/// let s = outlinks("<meta charset=bogus><meta charset=' latin1'>", |_| {});
/// assert_eq!(s.charset.unwrap().encoding.name(), "windows-1252");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredCharset {
    /// The label as written (decoded, stripped).
    pub label: String,
    /// The encoding it names (UTF-16 labels name UTF-8 and `x-user-defined` windows-1252, as in
    /// HTML's parser).
    pub encoding: &'static Encoding,
    /// Byte offset of the label in the input.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
}

/// Counters of one document.
///
/// ```
/// use linksieve_scan::html::HtmlScanner;
/// let mut s = HtmlScanner::with_max_tag_len(16);
/// s.feed("<a href=x><a href=a-long-long-link>", |_| {});
/// let st = s.stats();
/// assert_eq!((st.start_tags, st.outlinks, st.skipped_tags), (2, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HtmlStats {
    /// Bytes read.
    pub bytes: u64,
    /// Start tags read.
    pub start_tags: u64,
    /// Outlinks reported.
    pub outlinks: u64,
    /// Tags with URL-valued attributes longer than the limit
    /// ([`HtmlScanner::with_max_tag_len`]), not reported.
    pub skipped_tags: u64,
    /// `srcset` candidates dropped because HTML rejects their descriptors.
    pub srcset_dropped: u64,
    /// SVG and MathML elements nested deeper than the tokenizer keeps track of (512).
    pub foreign_too_deep: u64,
}

/// What a whole document gave besides its outlinks.
///
/// ```
/// use linksieve_scan::html::outlinks;
/// let s = outlinks("<a href=x>", |_| {});
/// assert_eq!((s.base, s.charset, s.stats.outlinks), (None, None, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlSummary {
    /// The first `<base href>`.
    pub base: Option<DocumentBase>,
    /// The declared encoding.
    pub charset: Option<DeclaredCharset>,
    /// Counters.
    pub stats: HtmlStats,
}

/// Reads a whole document: `f` gets its outlinks in document order.
///
/// ```
/// use linksieve_scan::html::outlinks;
/// let mut n = 0;
/// outlinks("<title><a href=x></title><textarea><img src=y></textarea><p>", |_| n += 1);
/// assert_eq!(n, 0);
/// ```
pub fn outlinks(html: &str, f: impl FnMut(Outlink<'_>)) -> HtmlSummary {
    let mut s = HtmlScanner::new();
    s.feed(html, f);
    s.finish()
}

/// Outlinks of a document read chunk by chunk: the same outlinks, with the same offsets
/// (counted from the start of the stream), for every way of cutting it.
///
/// A tag cut by the end of a chunk is kept (at most [`DEFAULT_MAX_TAG_LEN`] bytes, or the
/// limit given) until it ends.
///
/// ```
/// use linksieve_scan::html::HtmlScanner;
/// let mut s = HtmlScanner::new();
/// let mut found = Vec::new();
/// for chunk in ["<p><a hr", "ef='/x", "'>x</a><!", "-- <a href=/no> --", "><img src=/y>"] {
///     s.feed(chunk, |o| found.push((o.value.into_owned(), o.start)));
/// }
/// let summary = s.finish();
/// assert_eq!(found, [("/x".to_string(), 12), ("/y".to_string(), 51)]);
/// assert_eq!(summary.stats.outlinks, 2);
/// ```
pub struct HtmlScanner {
    tok: Tokenizer,
    ex: Extractor,
}

impl Default for HtmlScanner {
    fn default() -> Self {
        HtmlScanner::new()
    }
}

impl std::fmt::Debug for HtmlScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HtmlScanner")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl HtmlScanner {
    /// A scanner for one document, with the default tag length limit.
    ///
    /// ```
    /// let s = linksieve_scan::html::HtmlScanner::new();
    /// assert_eq!(s.stats().bytes, 0);
    /// ```
    pub fn new() -> HtmlScanner {
        HtmlScanner::with_max_tag_len(DEFAULT_MAX_TAG_LEN)
    }

    /// A scanner that reports no outlinks of tags longer than `max` bytes (counted in
    /// [`HtmlStats::skipped_tags`]), whether or not a chunk ends in them; it keeps at most
    /// `max` bytes of an unfinished tag.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::with_max_tag_len(1 << 20);
    /// let big = format!("<img src='data:image/png;base64,{}'>", "A".repeat(500_000));
    /// let mut n = 0;
    /// s.feed(&big, |_| n += 1);
    /// assert_eq!(n, 1);
    /// ```
    pub fn with_max_tag_len(max: usize) -> HtmlScanner {
        HtmlScanner {
            tok: Tokenizer::new(max),
            ex: Extractor::default(),
        }
    }

    /// The scanner reads SVG and MathML as HTML elements, as libxml2's HTML parser (lxml,
    /// Scrapy) does: inside them `<style>` or `<title>` holds text and `<![CDATA[` is a bogus
    /// comment, where the HTML standard's foreign content reads tags and a CDATA section.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let page = "<svg><title><a href=x>t</a></title></svg>";
    /// let (mut html5, mut libxml2) = (0, 0);
    /// HtmlScanner::new().feed(page, |_| html5 += 1);
    /// HtmlScanner::new().foreign_as_html().feed(page, |_| libxml2 += 1);
    /// assert_eq!((html5, libxml2), (1, 0));
    /// ```
    pub fn foreign_as_html(mut self) -> HtmlScanner {
        self.tok.foreign.as_html = true;
        self
    }

    /// Reads the next chunk; `f` gets the outlinks of the tags that end in it.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::new();
    /// let mut n = 0;
    /// s.feed("<a href=x", |_| n += 1);
    /// assert_eq!(n, 0);
    /// s.feed(">", |_| n += 1);
    /// assert_eq!(n, 1);
    /// ```
    pub fn feed(&mut self, chunk: &str, mut f: impl FnMut(Outlink<'_>)) {
        let ex = &mut self.ex;
        self.tok.feed(chunk, &mut |t| ex.tag(t, &mut f));
    }

    /// The first `<base href>` so far.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::new();
    /// s.feed("<head><base href=/b/>", |_| {});
    /// assert_eq!(s.base().map(|b| b.href.as_str()), Some("/b/"));
    /// ```
    pub fn base(&self) -> Option<&DocumentBase> {
        self.ex.base.as_ref()
    }

    /// The declared encoding so far.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::new();
    /// s.feed("<meta charset=utf-8>", |_| {});
    /// assert_eq!(s.charset().map(|c| c.encoding.name()), Some("UTF-8"));
    /// ```
    pub fn charset(&self) -> Option<&DeclaredCharset> {
        self.ex.charset.as_ref()
    }

    /// The counters so far.
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::new();
    /// s.feed("<p>", |_| {});
    /// assert_eq!((s.stats().bytes, s.stats().start_tags), (3, 1));
    /// ```
    pub fn stats(&self) -> HtmlStats {
        HtmlStats {
            bytes: self.tok.offset() as u64,
            start_tags: self.tok.start_tags,
            outlinks: self.ex.outlinks,
            skipped_tags: self.tok.skipped,
            srcset_dropped: self.ex.srcset_dropped,
            foreign_too_deep: self.tok.foreign.lost,
        }
    }

    /// Ends the document (a tag it ends in is dropped, as HTML does).
    ///
    /// ```
    /// use linksieve_scan::html::HtmlScanner;
    /// let mut s = HtmlScanner::new();
    /// s.feed("<a href=x", |_| unreachable!());
    /// assert_eq!(s.finish().stats.outlinks, 0);
    /// ```
    pub fn finish(self) -> HtmlSummary {
        HtmlSummary {
            stats: self.stats(),
            base: self.ex.base,
            charset: self.ex.charset,
        }
    }
}

/// An attribute's raw value as HTML's tokenizer hands it over: character references decoded
/// by the rules for attribute values, CR LF and CR as LF, U+0000 as U+FFFD. (Not stripped.)
///
/// ```
/// use linksieve_scan::html::decode_attribute;
/// assert_eq!(decode_attribute("?a=1&amp;b=2&copy=3&lang=&#x65;n"), "?a=1&b=2&copy=3&lang=en");
/// assert_eq!(decode_attribute("&notin; &not &#128;"), "∉ ¬ €");
/// ```
pub fn decode_attribute(raw: &str) -> Cow<'_, str> {
    charref::decode(raw, &mut Vec::new())
}

//! Common Crawl's WAT files: WARC `metadata` records of JSON (`application/json`), each the
//! metadata of one archived record, with, for a response, its HTTP head and the links of its
//! HTML (`Envelope.Payload-Metadata.HTTP-Response-Metadata`). The links are read as
//! cc-pyspark reads them to build Common Crawl's graphs (`wat_extract_links.py`,
//! `ExtractLinksJob.get_links`, commit 49daea0): only envelopes of `response` records; the
//! `Link` header fields; `Head.Link` and `Head.Scripts` by their `url`; `Head.Metas` whose
//! `property` or `name` is one that names a URL, or whose `content` is an absolute URL;
//! `Links` by their `url`, else by an absolute `href`; each resolved against `Head.Base`
//! (itself resolved against the page's address) by the caller. linksieve also reads a
//! redirect's `Location`, as it does in WARC responses.

use super::*;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// The largest WAT record read (a larger one is skipped, counted).
pub(crate) const MAX_WAT: usize = 64 << 20;

/// True for a record that holds WAT JSON: a `metadata` record of `application/json`.
pub(crate) fn is_wat(h: &WarcHeader) -> bool {
    h.content_type.as_deref().is_some_and(|c| {
        c.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// `<meta property>` values that name a URL (cc-pyspark `html_meta_property_links`).
const META_PROPERTIES: [&str; 8] = [
    "og:url",
    "og:image",
    "og:image:secure_url",
    "og:video",
    "og:video:url",
    "og:video:secure_url",
    "twitter:url",
    "twitter:image:src",
];

/// `<meta name>` values that name a URL (cc-pyspark `html_meta_links`).
const META_NAMES: [&str; 6] = [
    "twitter:image",
    "thumbnail",
    "application-url",
    "msapplication-starturl",
    "msapplication-TileImage",
    "vb_meta_bburl",
];

/// cc-pyspark's `url_abs_pattern`, `^(?:https?:)?//`.
fn absolute(url: &str) -> bool {
    let rest = url
        .strip_prefix("http:")
        .or_else(|| url.strip_prefix("https:"))
        .unwrap_or(url);
    rest.starts_with("//")
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Wat<'a> {
    #[serde(rename = "Envelope", borrow)]
    envelope: Envelope<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Envelope<'a> {
    #[serde(rename = "WARC-Header-Metadata")]
    warc: WarcMeta,
    #[serde(rename = "Payload-Metadata", borrow)]
    payload: PayloadMeta<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WarcMeta {
    #[serde(rename = "WARC-Type")]
    kind: Option<String>,
    #[serde(rename = "WARC-Target-URI")]
    target: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PayloadMeta<'a> {
    #[serde(rename = "HTTP-Response-Metadata", borrow)]
    http: Option<HttpMeta<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HttpMeta<'a> {
    #[serde(rename = "Response-Message")]
    message: serde_json::Map<String, Value>,
    #[serde(rename = "Headers")]
    headers: serde_json::Map<String, Value>,
    #[serde(rename = "HTML-Metadata", borrow)]
    html: Option<HtmlMeta<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HtmlMeta<'a> {
    #[serde(rename = "Head", borrow)]
    head: Head<'a>,
    #[serde(rename = "Links", borrow)]
    links: Vec<Element<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "Base", borrow)]
    base: Text<'a>,
    #[serde(rename = "Link", borrow)]
    link: Vec<Element<'a>>,
    #[serde(rename = "Metas", borrow)]
    metas: Vec<Element<'a>>,
    #[serde(rename = "Scripts", borrow)]
    scripts: Vec<Element<'a>>,
}

/// One entry of a WAT list (a link, a `<meta>`): the fields read, borrowed from the record's
/// JSON where they hold no escape; the others (`text`, `alt`, ...) skipped unread.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Element<'a> {
    #[serde(borrow)]
    path: Text<'a>,
    #[serde(borrow)]
    url: Text<'a>,
    #[serde(borrow)]
    href: Text<'a>,
    #[serde(borrow)]
    rel: Text<'a>,
    #[serde(borrow)]
    property: Text<'a>,
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow)]
    content: Text<'a>,
}

/// A field read leniently: its text when it is a JSON string, none when it is anything else
/// (a writer's number, list or null reads as absent rather than failing the record).
#[derive(Default)]
struct Text<'a>(Option<Cow<'a, str>>);

impl<'a> Text<'a> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_unit<E>(self) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Text<'de>, A::Error> {
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Text<'de>, A::Error> {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The links of one record as they are read: each value's place is where it is written,
/// JSON-escaped, after the one before (the block's start where a writer escaped it otherwise).
struct Collector<'j, 'o> {
    json: &'j [u8],
    from: usize,
    out: &'o mut RecordLinks,
}

impl Collector<'_, '_> {
    fn push(&mut self, value: &str, kind: RecordLinkKind) {
        // JSON writes a value as it is unless it holds a quote, a backslash or a control
        // character (`/` may be escaped too: such a value is not found, and placed at 0)
        let plain = !value.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
        let escaped;
        let needle = if plain {
            value.as_bytes()
        } else {
            escaped = serde_json::to_string(value).unwrap_or_default();
            let e = escaped.as_bytes();
            &e[1..e.len().saturating_sub(1).max(1)]
        };
        let at = match memchr::memmem::find(&self.json[self.from..], needle) {
            Some(i) => {
                let at = self.from + i;
                self.from = at + needle.len();
                at as u64
            }
            None => 0,
        };
        self.out.links.push(RecordLink {
            at,
            value: value.trim().to_owned(),
            kind,
        });
    }

    /// Elements of a list (`Head.Link`, `Head.Scripts`, `Links`) by their `url`, else (with
    /// `href`) by an absolute `href`.
    fn elements(&mut self, list: &[Element<'_>], href: bool) {
        for l in list {
            let url = l
                .url
                .get()
                .or_else(|| l.href.get().filter(|h| href && absolute(h)));
            let Some(url) = url else { continue };
            let (tag, attr) = element(l.path.get().unwrap_or(""));
            let rel = l.rel.get().map(str::to_owned);
            self.push(url, RecordLinkKind::Element { tag, attr, rel });
        }
    }
}

/// The element and attribute of a WAT `path` (`A@/href` -> `a`, `href`), lower case.
/// The usual ones are named without an allocation.
fn element(path: &str) -> (Cow<'static, str>, Cow<'static, str>) {
    let (tag, attr) = path.split_once('@').unwrap_or((path, ""));
    let attr = attr.trim_start_matches('/');
    let name = |s: &str| match KNOWN_NAMES.iter().find(|k| k.eq_ignore_ascii_case(s)) {
        Some(k) => Cow::Borrowed(*k),
        None => Cow::Owned(s.to_ascii_lowercase()),
    };
    (name(tag), name(attr))
}

/// The elements and attributes of the paths WAT files hold most (`A@/href`, `IMG@/src`, ...).
const KNOWN_NAMES: [&str; 16] = [
    "a", "href", "img", "src", "link", "script", "area", "iframe", "frame", "form", "action",
    "embed", "object", "data", "source", "input",
];

/// Reads the links of WAT record `json` into `out` (offsets from the block's first byte);
/// an envelope of another record than a response gives none. JSON that does not parse is an
/// error ([`io::ErrorKind::InvalidData`]).
pub(crate) fn wat_links(json: &[u8], out: &mut RecordLinks) -> io::Result<()> {
    let wat: Wat = serde_json::from_slice(json)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("WAT JSON: {e}")))?;
    let Envelope { warc, payload } = wat.envelope;
    if warc.kind.as_deref() != Some("response") {
        return Ok(());
    }
    // a visited URL, with links or not (cc-pyspark: a node even without HTTP metadata)
    out.target = warc.target;
    out.visited = true;
    let Some(http) = payload.http else {
        return Ok(());
    };
    let mut c = Collector { json, from: 0, out };
    let status = http
        .message
        .get("Status")
        .and_then(|s| match s {
            Value::String(s) => s.trim().parse().ok(),
            v => v.as_u64().and_then(|n| u16::try_from(n).ok()),
        })
        .unwrap_or(0);
    // the head's fields: a value, or a list of values for a repeated field
    for (name, value) in &http.headers {
        let values: Vec<&str> = match value {
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            v => v.as_str().into_iter().collect(),
        };
        if name.eq_ignore_ascii_case("location") && is_redirect(status) {
            if let Some(v) = values.first() {
                c.push(v, RecordLinkKind::Redirect(status));
            }
        } else if name.eq_ignore_ascii_case("link") {
            for v in values {
                let mut refs = Vec::new();
                link_header_refs(v, 0, &mut refs);
                for r in refs {
                    c.push(&r.value, RecordLinkKind::LinkHeader);
                }
            }
        }
    }
    let Some(html) = http.html else {
        return Ok(());
    };
    c.out.document = true;
    c.out.base = html.head.base.get().map(str::to_owned);
    c.elements(&html.head.link, false);
    for m in &html.head.metas {
        let named = m
            .property
            .get()
            .is_some_and(|p| META_PROPERTIES.contains(&p))
            || m.name.get().is_some_and(|n| META_NAMES.contains(&n));
        if let Some(content) = m.content.get().filter(|c| named || absolute(c)) {
            let kind = RecordLinkKind::Element {
                tag: Cow::Borrowed("meta"),
                attr: Cow::Borrowed("content"),
                rel: None,
            };
            c.push(content, kind);
        }
    }
    c.elements(&html.head.scripts, false);
    c.elements(&html.links, true);
    Ok(())
}

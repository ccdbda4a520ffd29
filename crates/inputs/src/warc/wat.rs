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
struct Wat {
    #[serde(rename = "Envelope")]
    envelope: Envelope,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Envelope {
    #[serde(rename = "WARC-Header-Metadata")]
    warc: WarcMeta,
    #[serde(rename = "Payload-Metadata")]
    payload: PayloadMeta,
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
struct PayloadMeta {
    #[serde(rename = "HTTP-Response-Metadata")]
    http: Option<HttpMeta>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HttpMeta {
    #[serde(rename = "Response-Message")]
    message: serde_json::Map<String, Value>,
    #[serde(rename = "Headers")]
    headers: serde_json::Map<String, Value>,
    #[serde(rename = "HTML-Metadata")]
    html: Option<HtmlMeta>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HtmlMeta {
    #[serde(rename = "Head")]
    head: Head,
    #[serde(rename = "Links")]
    links: Vec<serde_json::Map<String, Value>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head {
    #[serde(rename = "Base")]
    base: Option<String>,
    #[serde(rename = "Link")]
    link: Vec<serde_json::Map<String, Value>>,
    #[serde(rename = "Metas")]
    metas: Vec<serde_json::Map<String, Value>>,
    #[serde(rename = "Scripts")]
    scripts: Vec<serde_json::Map<String, Value>>,
}

/// A string field of a JSON object.
fn field<'a>(o: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a str> {
    o.get(name).and_then(Value::as_str)
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
        let escaped = serde_json::to_string(value).unwrap_or_default();
        let needle = escaped.as_bytes();
        let needle = &needle[1..needle.len().saturating_sub(1).max(1)];
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
    fn elements(&mut self, list: &[serde_json::Map<String, Value>], href: bool) {
        for l in list {
            let url = field(l, "url").or_else(|| field(l, "href").filter(|h| href && absolute(h)));
            let Some(url) = url else { continue };
            let (tag, attr) = element(field(l, "path").unwrap_or(""));
            let rel = field(l, "rel").map(str::to_owned);
            self.push(url, RecordLinkKind::Element { tag, attr, rel });
        }
    }
}

/// The element and attribute of a WAT `path` (`A@/href` -> `a`, `href`), lower case.
fn element(path: &str) -> (String, String) {
    let (tag, attr) = path.split_once('@').unwrap_or((path, ""));
    (
        tag.to_ascii_lowercase(),
        attr.trim_start_matches('/').to_ascii_lowercase(),
    )
}

/// Reads the links of WAT record `json` into `out` (offsets from the block's first byte);
/// an envelope of another record than a response gives none. JSON that does not parse is an
/// error ([`io::ErrorKind::InvalidData`]).
pub(crate) fn wat_links(json: &[u8], out: &mut RecordLinks) -> io::Result<()> {
    let wat: Wat = serde_json::from_slice(json)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("WAT JSON: {e}")))?;
    let Envelope { warc, payload } = wat.envelope;
    let Some(http) = payload.http else {
        return Ok(());
    };
    if warc.kind.as_deref() != Some("response") {
        return Ok(());
    }
    out.target = warc.target;
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
    c.out.base = html.head.base;
    c.elements(&html.head.link, false);
    for m in &html.head.metas {
        let named = field(m, "property").is_some_and(|p| META_PROPERTIES.contains(&p))
            || field(m, "name").is_some_and(|n| META_NAMES.contains(&n));
        if let Some(content) = field(m, "content").filter(|c| named || absolute(c)) {
            let kind = RecordLinkKind::Element {
                tag: "meta".to_owned(),
                attr: "content".to_owned(),
                rel: None,
            };
            c.push(content, kind);
        }
    }
    c.elements(&html.head.scripts, false);
    c.elements(&html.links, true);
    Ok(())
}

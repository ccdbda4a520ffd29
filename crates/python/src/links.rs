//! `extract`: the links of a text or an HTML document, as `linksieve scan` finds them, with
//! their byte offsets, line and kind (and tag and attribute for an HTML attribute), and with
//! `key=`, each one's key as `linksieve run` makes it.

use crate::options::{KeyOptions, key_options};
use linksieve_iri::WebUrl;
use linksieve_pipeline::{
    DocumentItem, DocumentLinkText, DocumentOptions, KeyError, Keyer, LinkBuffers, document_link,
    found_link, read_document,
};
use linksieve_scan::html::element_texts;
use linksieve_scan::{EncodingChoice, Hit, ScanOptions, encoding_for_label, scan_bytes};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// A link found by `extract`.
///
/// >>> import linksieve
/// >>> [link] = linksieve.extract("see <http://example.com/a>.")
/// >>> (link.text, link.start, link.end, link.line, link.kind)
/// ('http://example.com/a', 5, 25, 1, 'scheme')
#[pyclass(module = "linksieve", frozen, get_all)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// The link: in text, as written (wrappers and trailing punctuation removed; in HTML text,
    /// its character references decoded); for an HTML attribute, the attribute's value.
    text: String,
    /// Byte offset of its first byte: in the input bytes for text, in the document decoded
    /// to UTF-8 for HTML.
    start: u64,
    /// Byte offset just after its last byte (same reference as `start`).
    end: u64,
    /// 1-based line of its first byte.
    line: u64,
    /// A find in text: `scheme` (a scheme and `//`), `opaque` (a scheme without `//`), `bare`
    /// (no scheme, `schemeless=True`), `ip`, `email` (`email=True`); or `attribute` (an HTML
    /// attribute).
    kind: &'static str,
    /// The HTML element of an attribute link (`a`, `img`...), else None.
    tag: Option<&'static str>,
    /// The attribute (`href`, `src`...), else None.
    attr: Option<&'static str>,
    /// The `rel` of the element, when it has one.
    rel: Option<String>,
    /// An attribute's URL, resolved against the document base (WHATWG URL Standard), or None.
    url: Option<String>,
    /// Why an attribute has no URL (no base, invalid, a scheme not keyed), else None.
    error: Option<String>,
    /// The encoding the input was decoded with.
    encoding: &'static str,
    /// The text was decoded from a legacy (non-Unicode) encoding: `linksieve run` keys such
    /// text with Unicode NFC (3987bis 3.1), so pass `nfc=link.from_legacy` to `normalize` for
    /// its key. For HTML, true for every link of a document in a legacy encoding.
    from_legacy: bool,
    /// With `extract(key=...)`: the link's key as `linksieve run` makes it (a find without a
    /// scheme with its implied one, an attribute's resolved URL, NFC for legacy text), or None
    /// when it has none (see `key_error`) or is not keyed (`error`); else None.
    key: Option<String>,
    /// With `extract(key=...)`: why the link has no key, when it was keyed and failed (the
    /// rule that failed, an invalid URL, too long); else None.
    key_error: Option<String>,
    /// With `extract(html=True, element_text=True)`: the text of an attribute's element as lxml
    /// gives it (`string()`: its text nodes, as libxml2's HTML parser builds the tree), the
    /// text Scrapy's link extractor gives a link; else None.
    element_text: Option<String>,
}

#[pymethods]
impl Link {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = PyString::new(py, &self.text).repr()?;
        let mut r = format!(
            "Link(text={text}, start={}, end={}, line={}, kind='{}'",
            self.start, self.end, self.line, self.kind
        );
        if let (Some(tag), Some(attr)) = (self.tag, self.attr) {
            r.push_str(&format!(", tag='{tag}', attr='{attr}'"));
        }
        if let Some(url) = &self.url {
            r.push_str(&format!(", url={}", PyString::new(py, url).repr()?));
        }
        r.push(')');
        Ok(r)
    }

    fn __eq__(&self, other: &Self) -> bool {
        self == other
    }
}

impl Link {
    /// A link found in text (not an attribute): `text` is the hit's text as reported;
    /// `legacy`: it was decoded from a legacy encoding.
    fn in_text(h: &Hit, text: String, encoding: &'static str, legacy: bool) -> Link {
        Link {
            text,
            start: h.start,
            end: h.end,
            line: h.line,
            kind: h.kind.as_str(),
            tag: None,
            attr: None,
            rel: None,
            url: None,
            error: None,
            encoding,
            from_legacy: legacy,
            key: None,
            key_error: None,
            element_text: None,
        }
    }

    /// Sets the key of the link, or why there is none.
    fn set_key(&mut self, key: Result<String, KeyError>) {
        match key {
            Ok(k) => self.key = Some(k),
            Err(e) => self.key_error = Some(e.to_string()),
        }
    }
}

/// The key options of `extract`'s `key`: False (no keys), True (`linksieve run`'s: LEIRI
/// input, the scheme rung, the uri form) or a `Normalizer`.
pub(crate) fn key_choice(key: &Bound<'_, PyAny>) -> PyResult<Option<KeyOptions>> {
    if let Ok(n) = key.cast::<crate::Normalizer>() {
        return Ok(Some(n.get().ko.clone()));
    }
    match key.extract::<bool>() {
        Ok(false) => Ok(None),
        Ok(true) => key_options("scheme", "uri", "leiri", None, false).map(Some),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(
            "key: expected a bool or a linksieve.Normalizer",
        )),
    }
}

/// The encoding choice of `extract`'s `encoding` (None: detect).
fn encoding_choice(label: Option<&str>) -> PyResult<EncodingChoice> {
    match label {
        None => Ok(EncodingChoice::Auto),
        Some(l) => encoding_for_label(l)
            .map(EncodingChoice::Fixed)
            .map_err(|e| PyValueError::new_err(format!("encoding: {e}"))),
    }
}

/// The links in `data`, as `linksieve scan` finds them, in input order.
///
/// data: bytes (decoded by `encoding`, a WHATWG label, or detected: BOM, UTF-8, chardetng) or
/// str. schemeless: also `www.example.com/...` finds; email: also bare e-mail addresses.
/// html: read `data` as an HTML document: the URL-valued attributes, resolved against the
/// document base (`<base href>`, else `base`, the document's own address), and the links in
/// its text.
///
/// >>> import linksieve
/// >>> found = linksieve.extract(b"mail me@a.example or see www.example.com/p", email=True, schemeless=True)
/// >>> [(l.text, l.kind, l.start, l.end) for l in found]
/// [('me@a.example', 'email', 5, 17), ('www.example.com/p', 'bare', 25, 42)]
/// >>> [l] = linksieve.extract('<a href="../b">', html=True, base="http://h.example/a/c")
/// >>> (l.tag, l.attr, l.text, l.url)
/// ('a', 'href', '../b', 'http://h.example/b')
///
/// key: True gives each link its key as `linksieve run` makes it (`link.key`, or
/// `link.key_error`), a `Normalizer` its options' key of what `run` keys.
///
/// >>> [l.key for l in linksieve.extract("see www.Example.com:80/x", schemeless=True, key=True)]
/// ['http://www.example.com/x']
///
/// element_text: with html=True, each attribute's `link.element_text` is the text of its
/// element as lxml's `string()` gives it (libxml2's tree: `<td>` closes an open `<a>`...),
/// and the page is read as libxml2 reads it: SVG and MathML as HTML (no foreign content), so
/// the attributes are those of lxml's tree; `None` where the tag is in none of its elements.
///
/// >>> [l.element_text for l in linksieve.extract("<a href=/a>one <b>two</b></a><td><a href=/b>x<td>y", html=True, element_text=True)]
/// ['one two', 'x']
#[pyfunction]
#[pyo3(signature = (data, *, encoding=None, schemeless=false, email=false, html=false, base=None,
    key=None, element_text=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    encoding: Option<&str>,
    schemeless: bool,
    email: bool,
    html: bool,
    base: Option<&str>,
    key: Option<&Bound<'_, PyAny>>,
    element_text: bool,
) -> PyResult<Vec<Link>> {
    let keyer = match key.map(key_choice).transpose()?.flatten() {
        Some(ko) => Some(Keyer::new(ko.input, &ko.keying)),
        None => None,
    };
    let (bytes, encoding) = if let Ok(s) = data.cast::<PyString>() {
        if encoding.is_some() {
            return Err(PyValueError::new_err(
                "encoding: a str is already text; give bytes to decode",
            ));
        }
        (
            s.to_str()?.as_bytes(),
            EncodingChoice::Exact(encoding_rs::UTF_8),
        )
    } else if let Ok(b) = data.cast::<PyBytes>() {
        (b.as_bytes(), encoding_choice(encoding)?)
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "data: expected bytes or str",
        ));
    };
    let opts = ScanOptions {
        encoding,
        schemeless,
        email,
        html,
        ..ScanOptions::default()
    };
    if !html {
        if base.is_some() {
            return Err(PyValueError::new_err("base: only with html=True"));
        }
        if element_text {
            return Err(PyValueError::new_err("element_text: only with html=True"));
        }
        return Ok(py.detach(|| {
            let found = scan_bytes(bytes, &opts);
            let mut bufs = LinkBuffers::default();
            found
                .hits
                .into_iter()
                .map(|mut h| {
                    let text = std::mem::take(&mut h.text);
                    let mut link = Link::in_text(&h, text, h.encoding.name(), h.from_legacy);
                    if let Some(keyer) = &keyer {
                        let f =
                            found_link(&link.text, &h.trimmed.trailing, h.kind, None, &mut bufs);
                        let key = keyer.key(f.keyed, h.from_legacy);
                        link.set_key(key);
                    }
                    link
                })
                .collect()
        }));
    }
    let url = base
        .map(WebUrl::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("base: not a valid web address: {e}")))?;
    let document = DocumentOptions {
        url,
        encoding,
        // the links of lxml's tree, whose texts are asked for
        foreign_as_html: element_text,
        ..DocumentOptions::default()
    };
    Ok(py.detach(|| {
        let doc = read_document(bytes, &document);
        let scanned = doc.text_links(&opts);
        let mut links = Vec::new();
        let name = doc.encoding.name();
        let mut bufs = LinkBuffers::default();
        doc.in_order(&scanned.hits, opts.ascii_only, |item| {
            let legacy = item.from_legacy(&doc);
            let mut link = match item {
                DocumentItem::Text(h) => {
                    // the text shown and the text keyed, from one pass over the references
                    let html = Some(opts.ascii_only);
                    let f = found_link(&h.text, &h.trimmed.trailing, h.kind, html, &mut bufs);
                    let key = keyer.as_ref().map(|k| k.key(f.keyed, legacy));
                    let mut link = Link::in_text(h, f.shown.to_owned(), name, legacy);
                    if let Some(key) = key {
                        link.set_key(key);
                    }
                    links.push(link);
                    return;
                }
                DocumentItem::Attribute(l) => Link {
                    text: l.value.clone(),
                    start: l.start as u64,
                    end: l.end as u64,
                    line: l.line,
                    kind: "attribute",
                    tag: Some(l.tag),
                    attr: Some(l.attr),
                    rel: l.rel.clone(),
                    url: l.url.as_ref().ok().map(|u| u.as_str().to_owned()),
                    error: l.url.as_ref().err().map(|e| e.to_string()),
                    encoding: name,
                    from_legacy: legacy,
                    key: None,
                    key_error: None,
                    element_text: None,
                },
            };
            // an attribute's URL as `run` keys it
            if let Some(keyer) = &keyer {
                match document_link(&item, opts.ascii_only, opts.max_link_len, &mut bufs) {
                    DocumentLinkText::Keyed(f) => link.set_key(keyer.key(f.keyed, legacy)),
                    DocumentLinkText::Invalid(e) => link.key_error = Some(e),
                    DocumentLinkText::NotKeyed => {}
                    DocumentLinkText::TooLong => {
                        link.key_error = Some(format!(
                            "longer than the longest link ({} bytes)",
                            opts.max_link_len
                        ));
                    }
                }
            }
            links.push(link);
        });
        if element_text {
            // the attributes' elements, by where their values start in the document
            let (at, starts): (Vec<usize>, Vec<usize>) = links
                .iter()
                .enumerate()
                .filter(|(_, l)| l.kind == "attribute")
                .map(|(i, l)| (i, l.start as usize))
                .unzip();
            for (i, text) in at.into_iter().zip(element_texts(&doc.text, &starts)) {
                links[i].element_text = text;
            }
        }
        links
    }))
}

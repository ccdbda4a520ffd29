//! From a finished start tag to its outlinks: which attributes count, their values decoded
//! and stripped, `srcset` and `ping` split, `<meta>` read, the first `<base href>` kept.

use std::borrow::Cow;

use super::charref::{self, Rep};
use super::meta::{charset_in_content, meta_encoding, refresh_url};
use super::srcset::srcset_urls;
use super::table::{AttrKind, Tag};
use super::tokenizer::{AttrSpan, TagRef};
use super::{DeclaredCharset, DocumentBase, Outlink};

fn is_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// The range of `s` without leading and trailing ASCII whitespace.
fn stripped(s: &str) -> (usize, usize) {
    let start = s.len() - s.trim_start_matches(is_ws).len();
    let end = s.trim_end_matches(is_ws).len().max(start);
    (start, end)
}

/// An attribute value, decoded, with what maps it back to the stream.
struct Value<'t> {
    text: Cow<'t, str>,
    /// Stream offset of the raw value's first byte.
    at: usize,
}

#[derive(Debug, Default)]
pub(super) struct Extractor {
    reps: Vec<Rep>,
    pub(super) base: Option<DocumentBase>,
    pub(super) charset: Option<DeclaredCharset>,
    pub(super) outlinks: u64,
    pub(super) srcset_dropped: u64,
}

impl Extractor {
    pub(super) fn tag(&mut self, t: &TagRef<'_>, f: &mut impl FnMut(Outlink<'_>)) {
        match t.tag {
            Tag::Meta => self.meta(t, f),
            Tag::Base => {
                if t.html && self.base.is_none() {
                    self.base(t, f)
                }
            }
            _ => self.links(t, f),
        }
    }

    fn value<'t>(&mut self, t: &TagRef<'t>, a: &AttrSpan) -> Value<'t> {
        let (start, end) = a.value.unwrap_or((a.name.1, a.name.1));
        Value {
            text: charref::decode(t.slice((start, end)), &mut self.reps),
            at: start,
        }
    }

    /// Stream offsets of the decoded range `s..e` of `v` (decoded last).
    fn span(&self, v: &Value<'_>, (s, e): (usize, usize)) -> (usize, usize) {
        (
            v.at + charref::raw_start(&self.reps, s),
            v.at + charref::raw_end(&self.reps, e),
        )
    }

    fn emit(
        &mut self,
        f: &mut impl FnMut(Outlink<'_>),
        t: &TagRef<'_>,
        (attr, kind): (&'static str, AttrKind),
        rel: Option<&Cow<'_, str>>,
        v: &Value<'_>,
        r: (usize, usize),
    ) {
        let (start, end) = self.span(v, r);
        self.outlinks += 1;
        f(Outlink {
            tag: t.tag.name(),
            attr,
            kind,
            rel: rel.map(|r| Cow::Borrowed(r.as_ref())),
            value: Cow::Borrowed(&v.text[r.0..r.1]),
            start,
            end,
        });
    }

    fn links(&mut self, t: &TagRef<'_>, f: &mut impl FnMut(Outlink<'_>)) {
        let rows = t.tag.url_attrs();
        let rel = if t.tag.has_rel() {
            t.attr("rel").map(|a| {
                let v = self.value(t, a).text;
                let (s, e) = stripped(&v);
                match v {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[s..e]),
                    Cow::Owned(o) => Cow::Owned(o[s..e].to_string()),
                }
            })
        } else {
            None
        };
        let mut seen = 0u32;
        for a in t.attrs {
            let name = t.slice(a.name);
            let Some(k) = rows.iter().position(|r| name.eq_ignore_ascii_case(r.attr)) else {
                continue;
            };
            // the first of duplicate attributes counts
            if seen & (1 << k) != 0 {
                continue;
            }
            seen |= 1 << k;
            let row = rows[k];
            let v = self.value(t, a);
            match row.kind {
                AttrKind::Url => {
                    let r = stripped(&v.text);
                    self.emit(f, t, (row.attr, row.kind), rel.as_ref(), &v, r);
                }
                AttrKind::Srcset => {
                    let mut it = srcset_urls(&v.text);
                    for r in it.by_ref() {
                        self.emit(
                            f,
                            t,
                            (row.attr, row.kind),
                            rel.as_ref(),
                            &v,
                            (r.start, r.end),
                        );
                    }
                    self.srcset_dropped += it.dropped() as u64;
                }
                AttrKind::Ping => {
                    let mut from = 0;
                    let s = v.text.as_bytes();
                    while from < s.len() {
                        let start =
                            from + s[from..].iter().take_while(|b| is_ws(**b as char)).count();
                        let end = start
                            + s[start..]
                                .iter()
                                .take_while(|b| !is_ws(**b as char))
                                .count();
                        if end > start {
                            self.emit(f, t, (row.attr, row.kind), rel.as_ref(), &v, (start, end));
                        }
                        from = end;
                    }
                }
                AttrKind::Refresh => {}
            }
        }
    }

    fn base(&mut self, t: &TagRef<'_>, f: &mut impl FnMut(Outlink<'_>)) {
        let Some(a) = t.attr("href") else {
            return;
        };
        let v = self.value(t, a);
        let r = stripped(&v.text);
        let (start, end) = self.span(&v, r);
        self.base = Some(DocumentBase {
            href: v.text[r.0..r.1].to_string(),
            start,
            end,
        });
        self.emit(f, t, ("href", AttrKind::Url), None, &v, r);
    }

    fn meta(&mut self, t: &TagRef<'_>, f: &mut impl FnMut(Outlink<'_>)) {
        let equiv = t.attr("http-equiv").map(|a| self.value(t, a).text);
        let equiv = equiv.as_deref().unwrap_or("");
        if self.charset.is_none()
            && let Some(a) = t.attr("charset")
        {
            let v = self.value(t, a);
            let r = stripped(&v.text);
            self.declare(&v, r);
        }
        let refresh = equiv.eq_ignore_ascii_case("refresh");
        let content_type = equiv.eq_ignore_ascii_case("content-type");
        if !(refresh || content_type && self.charset.is_none()) {
            return;
        }
        let Some(a) = t.attr("content") else {
            return;
        };
        let v = self.value(t, a);
        if refresh {
            if let Some(r) = refresh_url(&v.text) {
                self.emit(
                    f,
                    t,
                    ("content", AttrKind::Refresh),
                    None,
                    &v,
                    (r.start, r.end),
                );
            }
        } else if let Some(r) = charset_in_content(&v.text) {
            let r = (r.start, r.end);
            let (s, e) = stripped(&v.text[r.0..r.1]);
            self.declare(&v, (r.0 + s, r.0 + e));
        }
    }

    /// A `<meta>` names an encoding: the first that HTML knows is the document's.
    fn declare(&mut self, v: &Value<'_>, r: (usize, usize)) {
        let label = &v.text[r.0..r.1];
        if let Some(encoding) = meta_encoding(label) {
            let (start, end) = self.span(v, r);
            self.charset = Some(DeclaredCharset {
                label: label.to_string(),
                encoding,
                start,
                end,
            });
        }
    }
}

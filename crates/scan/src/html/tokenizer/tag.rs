//! Building a tag while the tokenizer reads it: its name and attribute spans, the part of a kept
//! tag carried over a chunk boundary, and the finished tag handed to `on_tag` ([`TagRef`]).

use super::state::State;
use super::{NAME_MAX, Tokenizer};
use crate::html::table::Tag;

/// An attribute of a kept tag: byte ranges of the stream (the name as written, the value
/// without its quotes; `None` for an attribute without `=`).
#[derive(Debug, Clone, Copy)]
pub(in crate::html) struct AttrSpan {
    pub(in crate::html) name: (usize, usize),
    pub(in crate::html) value: Option<(usize, usize)>,
}

/// A finished start tag whose attributes were kept.
pub(in crate::html) struct TagRef<'t> {
    pub(in crate::html) tag: Tag,
    /// Whether the element is an HTML one (not inside SVG or MathML).
    pub(in crate::html) html: bool,
    /// The stream's bytes from `text_at` to the tag's `>` (the tag, or its part that holds the
    /// attributes).
    pub(in crate::html) text: &'t str,
    pub(in crate::html) text_at: usize,
    pub(in crate::html) attrs: &'t [AttrSpan],
}

impl<'t> TagRef<'t> {
    /// The text of a range of the stream.
    pub(in crate::html) fn slice(&self, r: (usize, usize)) -> &'t str {
        let (s, e) = (
            r.0.saturating_sub(self.text_at),
            r.1.saturating_sub(self.text_at),
        );
        self.text.get(s..e).unwrap_or("")
    }

    /// The first attribute with this (lowercase) name: HTML drops later duplicates.
    pub(in crate::html) fn attr(&self, name: &str) -> Option<&'t AttrSpan> {
        let attrs: &'t [AttrSpan] = self.attrs;
        attrs
            .iter()
            .find(|a| self.slice(a.name).eq_ignore_ascii_case(name))
    }
}

impl Tokenizer {
    pub(super) fn begin_tag(&mut self, end_tag: bool) {
        self.end_tag = end_tag;
        self.name_len = 0;
        self.tag = Tag::Other;
        self.keep = false;
        self.self_closing = false;
        self.attrs.clear();
    }

    pub(super) fn push_name(&mut self, bytes: &[u8]) {
        for &c in bytes {
            if self.name_len < NAME_MAX {
                self.name[self.name_len] = c.to_ascii_lowercase();
            }
            self.name_len = self.name_len.saturating_add(1);
        }
    }

    pub(super) fn name_done(&mut self) {
        self.tag = if self.name_len <= NAME_MAX {
            Tag::lookup(&self.name[..self.name_len])
        } else {
            Tag::Other
        };
        self.keep = !self.end_tag && self.tag.keeps_attrs();
    }

    pub(super) fn new_attr(&mut self, at: usize) {
        self.attr_start = at;
    }

    pub(super) fn attr_name_end(&mut self, at: usize) {
        if !self.keep || self.too_long {
            return;
        }
        if at - self.tag_start > self.max_tag {
            // it will be skipped: keep no more of it (a tag without end holds no more memory
            // than the limit)
            self.too_long = true;
            self.attrs.clear();
            self.attrs.shrink_to(16);
            return;
        }
        self.attrs.push(AttrSpan {
            name: (self.attr_start, at),
            value: None,
        });
    }

    pub(super) fn set_value(&mut self, end: usize) {
        if let Some(a) = self.attrs.last_mut()
            && self.keep
        {
            a.value = Some((self.value_start, end));
        }
    }

    /// Keeps the unfinished part of a kept tag for the next chunk.
    pub(super) fn carry_over(&mut self, input: &str, base: usize) {
        if !(self.keep && self.state.in_tag()) || self.too_long {
            return;
        }
        if !self.carrying {
            self.carry.clear();
            self.carry_at = self.tag_start.max(base);
            self.carrying = true;
        }
        let from = self.carry_at.max(base) - base;
        let part = input.get(from..).unwrap_or("");
        if self.carry.len() + part.len() > self.max_tag {
            self.too_long = true;
            self.carrying = false;
            self.carry.clear();
            self.carry.shrink_to(0);
        } else {
            self.carry.push_str(part);
        }
    }

    /// The tag ends at `input[gt]` (a `>`).
    pub(super) fn emit(
        &mut self,
        input: &str,
        base: usize,
        gt: usize,
        on_tag: &mut impl FnMut(&TagRef<'_>),
    ) {
        if self.end_tag {
            self.foreign.end_tag(self.tag);
            self.state = State::Data;
            return;
        }
        self.start_tags += 1;
        let mut tag_ref = None;
        if self.keep {
            let len = base + gt + 1 - self.tag_start;
            if self.too_long || len > self.max_tag {
                self.skipped += 1;
            } else {
                let (text, text_at) = if self.carrying {
                    self.carry.push_str(input.get(..=gt).unwrap_or(""));
                    (&self.carry[..], self.carry_at)
                } else {
                    let from = self.tag_start.max(base);
                    (input.get(from - base..=gt).unwrap_or(""), from)
                };
                tag_ref = Some(TagRef {
                    tag: self.tag,
                    html: true,
                    text,
                    text_at,
                    attrs: &self.attrs,
                });
            }
        }
        let (mut breaks, mut html_annotation) = (false, false);
        if let Some(t) = &tag_ref {
            match self.tag {
                Tag::Font => {
                    breaks = ["color", "face", "size"]
                        .iter()
                        .any(|n| t.attr(n).is_some())
                }
                Tag::AnnotationXml => {
                    html_annotation = t.attr("encoding").is_some_and(|a| {
                        let v = a.value.map(|v| t.slice(v)).unwrap_or("");
                        let v = crate::html::charref::decode(v, &mut Vec::new());
                        v.eq_ignore_ascii_case("text/html")
                            || v.eq_ignore_ascii_case("application/xhtml+xml")
                    })
                }
                _ => {}
            }
        }
        let html = self
            .foreign
            .start_tag(self.tag, self.self_closing, breaks, html_annotation);
        if let Some(mut t) = tag_ref {
            t.html = html;
            on_tag(&t);
        }
        self.state = match self.tag.text_kind() {
            Some(kind) if html => {
                self.text_tag = self.tag;
                State::Text(kind)
            }
            _ => State::Data,
        };
        if self.carrying {
            self.carrying = false;
            self.carry.clear();
        }
        self.too_long = false;
    }
}

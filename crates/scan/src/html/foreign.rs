//! Where SVG and MathML begin and end, as far as the tokenizer needs it: in foreign content
//! `<script>`, `<style>`, `<title>`, `<textarea>` ... switch to no text state, and `<![CDATA[`
//! opens a CDATA section. This is the part of HTML's tree builder that decides the "adjusted
//! current node"'s namespace, kept as a stack of the elements that change it (`svg`, `math`
//! and the integration points), not of every element.

use super::table::Tag;

/// An element that changed the namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Svg,
    Math,
    /// An HTML integration point or MathML text integration point: HTML inside.
    Integration(Tag),
}

/// The most elements kept; deeper ones are counted, not kept ([`Foreign::lost`]).
const MAX_DEPTH: usize = 512;

#[derive(Debug, Default)]
pub(super) struct Foreign {
    open: Vec<Open>,
    /// Namespace changes not kept because the stack was full.
    pub(super) lost: u64,
    /// SVG and MathML are read as HTML elements (libxml2's HTML parser has no foreign
    /// content): every element is an HTML one.
    pub(super) as_html: bool,
}

impl Foreign {
    /// Whether the tokenizer is in foreign content (SVG or MathML, not at an integration point).
    pub(super) fn in_foreign(&self) -> bool {
        matches!(self.open.last(), Some(Open::Svg | Open::Math))
    }

    fn push(&mut self, o: Open) {
        if self.open.len() < MAX_DEPTH {
            self.open.push(o);
        } else {
            self.lost += 1;
        }
    }

    /// A start tag. `breaks` is whether a `font` has `color`, `face` or `size`; `html_annotation`
    /// whether an `annotation-xml` has `encoding` `text/html` or `application/xhtml+xml`.
    /// Returns whether the element is an HTML one (whose text state applies).
    pub(super) fn start_tag(
        &mut self,
        tag: Tag,
        self_closing: bool,
        breaks: bool,
        html_annotation: bool,
    ) -> bool {
        if self.as_html {
            return true;
        }
        if self.in_foreign() {
            if tag.breaks_out() || (tag == Tag::Font && breaks) {
                while self.in_foreign() {
                    self.open.pop();
                }
            } else {
                let svg = self.open.last() == Some(&Open::Svg);
                if !self_closing {
                    match tag {
                        Tag::Svg if svg => self.push(Open::Svg),
                        Tag::Math if !svg => self.push(Open::Math),
                        Tag::SvgIntegration | Tag::Title if svg => {
                            self.push(Open::Integration(tag))
                        }
                        Tag::MathText if !svg => self.push(Open::Integration(tag)),
                        Tag::AnnotationXml if !svg && html_annotation => {
                            self.push(Open::Integration(tag))
                        }
                        _ => {}
                    }
                }
                return false;
            }
        }
        match tag {
            Tag::Svg if !self_closing => self.push(Open::Svg),
            Tag::Math if !self_closing => self.push(Open::Math),
            _ => {}
        }
        !matches!(tag, Tag::Svg | Tag::Math)
    }

    /// An end tag.
    pub(super) fn end_tag(&mut self, tag: Tag) {
        match self.open.last() {
            None => {}
            Some(Open::Integration(t)) if *t == tag => {
                self.open.pop();
            }
            Some(Open::Integration(_)) => {}
            Some(_) => {
                let want = match tag {
                    Tag::Svg => Open::Svg,
                    Tag::Math => Open::Math,
                    Tag::BrP => {
                        while self.in_foreign() {
                            self.open.pop();
                        }
                        return;
                    }
                    _ => return,
                };
                // the nearest such element within this stretch of foreign content
                let stretch = self
                    .open
                    .iter()
                    .rposition(|o| matches!(o, Open::Integration(_)))
                    .map_or(0, |k| k + 1);
                if let Some(k) = self.open[stretch..].iter().rposition(|o| *o == want) {
                    self.open.truncate(stretch + k);
                }
            }
        }
    }
}

//! A streaming HTML tokenizer for tags and attributes: the states of the WHATWG tokenizer
//! (HTML "13.2.5 Tokenization") that decide where tags, attributes and their values begin and
//! end, and nothing that builds text or comment tokens.
//!
//! Modelled: data; tag open, end tag open, tag name; before/after attribute name, attribute
//! name, before attribute value, attribute value (double-quoted, single-quoted, unquoted),
//! after attribute value (quoted), self-closing start tag; markup declaration open, comment
//! start/start dash/comment/end dash/end/end bang (the less-than-sign states change no
//! boundary and are folded into the comment state), bogus comment, DOCTYPE (which always ends
//! at the next `>`, as all DOCTYPE states do); CDATA section (only in foreign content,
//! [`Foreign`]); RCDATA, RAWTEXT, script data, PLAINTEXT with their less-than-sign, end tag
//! open and end tag name states (the "appropriate end tag" check); script data escape start,
//! escaped, escaped dash/dash dash/less-than sign/end tag, double escape start, double escaped
//! and its dash/dash dash/less-than sign, double escape end.
//!
//! Every state can stop at any byte and go on with the next chunk. The attributes of the
//! start tags that hold links ([`Tag::keeps_attrs`]) are kept as byte ranges of the stream;
//! while such a tag is unfinished at the end of a chunk its bytes are carried over (at most
//! `max_tag` bytes; a longer tag is counted in [`Tokenizer::skipped`] and not reported, on
//! every way of cutting the input). Bytes are never copied otherwise, and nothing is
//! allocated per byte: the attribute list and the carry are reused.

use memchr::{memchr, memchr2};

use super::foreign::Foreign;
use super::table::{Tag, TextKind};

mod state;
mod tag;

use state::{Back, Decl, State, is_ws};
pub(super) use tag::{AttrSpan, TagRef};

/// Longer names are no [`Tag`] but [`Tag::Other`].
const NAME_MAX: usize = 16;

/// The tokenizer's state between chunks.
pub(super) struct Tokenizer {
    state: State,
    /// Stream offset of the next chunk's first byte.
    at: usize,
    max_tag: usize,
    // the tag being read
    tag_start: usize,
    end_tag: bool,
    name: [u8; NAME_MAX],
    name_len: usize,
    tag: Tag,
    keep: bool,
    self_closing: bool,
    attrs: Vec<AttrSpan>,
    attr_start: usize,
    value_start: usize,
    // text elements: the element whose end tag ends the text, the `<` of a possible end tag,
    // and how much of a name ("script" or the element's) has matched
    text_tag: Tag,
    lt: usize,
    matched: usize,
    match_ok: bool,
    // a kept tag cut by the end of a chunk
    carry: String,
    carry_at: usize,
    carrying: bool,
    too_long: bool,
    pub(super) foreign: Foreign,
    /// Kept tags longer than `max_tag` bytes, not reported.
    pub(super) skipped: u64,
    /// Start tags read.
    pub(super) start_tags: u64,
}

impl Tokenizer {
    pub(super) fn new(max_tag: usize) -> Tokenizer {
        Tokenizer {
            state: State::Data,
            at: 0,
            max_tag,
            tag_start: 0,
            end_tag: false,
            name: [0; NAME_MAX],
            name_len: 0,
            tag: Tag::Other,
            keep: false,
            self_closing: false,
            attrs: Vec::new(),
            attr_start: 0,
            value_start: 0,
            text_tag: Tag::Other,
            lt: 0,
            matched: 0,
            match_ok: false,
            carry: String::new(),
            carry_at: 0,
            carrying: false,
            too_long: false,
            foreign: Foreign::default(),
            skipped: 0,
            start_tags: 0,
        }
    }

    /// Bytes fed so far.
    pub(super) fn offset(&self) -> usize {
        self.at
    }

    fn match_byte(&mut self, c: u8, want: &[u8]) {
        let c = c.to_ascii_lowercase();
        if self.match_ok && want.get(self.matched) == Some(&c) {
            self.matched += 1;
        } else {
            self.match_ok = false;
        }
    }

    fn start_match(&mut self) {
        self.matched = 0;
        self.match_ok = true;
    }

    fn is_match(&self, want: &[u8]) -> bool {
        self.match_ok && self.matched == want.len()
    }

    /// Reads one chunk; `on_tag` gets every finished start tag whose attributes were kept.
    pub(super) fn feed(&mut self, input: &str, on_tag: &mut impl FnMut(&TagRef<'_>)) {
        let b = input.as_bytes();
        let n = b.len();
        let base = self.at;
        let mut i = 0;
        while i < n {
            let c = b[i];
            match self.state {
                State::Data => match memchr(b'<', &b[i..]) {
                    Some(k) => {
                        self.tag_start = base + i + k;
                        i += k + 1;
                        self.state = State::TagOpen;
                    }
                    None => i = n,
                },
                State::TagOpen => {
                    if c.is_ascii_alphabetic() {
                        self.begin_tag(false);
                        self.state = State::TagName;
                    } else {
                        self.state = match c {
                            b'!' => State::MarkupDeclarationOpen(Decl::Undecided),
                            b'/' => State::EndTagOpen,
                            b'?' => State::BogusComment,
                            _ => State::Data,
                        };
                        if matches!(c, b'!' | b'/') {
                            i += 1;
                        }
                    }
                }
                State::EndTagOpen => {
                    if c.is_ascii_alphabetic() {
                        self.begin_tag(true);
                        self.state = State::TagName;
                    } else if c == b'>' {
                        i += 1;
                        self.state = State::Data;
                    } else {
                        self.state = State::BogusComment;
                    }
                }
                State::TagName => {
                    let start = i;
                    while i < n && !(is_ws(b[i]) || b[i] == b'/' || b[i] == b'>') {
                        i += 1;
                    }
                    self.push_name(&b[start..i]);
                    if i < n {
                        self.name_done();
                        match b[i] {
                            b'/' => self.state = State::SelfClosingStartTag,
                            b'>' => {
                                self.emit(input, base, i, on_tag);
                            }
                            _ => self.state = State::BeforeAttrName,
                        }
                        i += 1;
                    }
                }
                State::BeforeAttrName => {
                    if is_ws(c) {
                        i += 1;
                    } else if c == b'/' {
                        i += 1;
                        self.state = State::SelfClosingStartTag;
                    } else if c == b'>' {
                        self.emit(input, base, i, on_tag);
                        i += 1;
                    } else {
                        // a `=` here starts the name
                        self.new_attr(base + i);
                        i += 1;
                        self.state = State::AttrName;
                    }
                }
                State::AttrName => {
                    while i < n && !(is_ws(b[i]) || matches!(b[i], b'/' | b'>' | b'=')) {
                        i += 1;
                    }
                    if i < n {
                        self.attr_name_end(base + i);
                        match b[i] {
                            b'=' => self.state = State::BeforeAttrValue,
                            b'/' => self.state = State::SelfClosingStartTag,
                            b'>' => self.emit(input, base, i, on_tag),
                            _ => self.state = State::AfterAttrName,
                        }
                        i += 1;
                    }
                }
                State::AfterAttrName => {
                    if is_ws(c) {
                        i += 1;
                    } else {
                        match c {
                            b'/' => self.state = State::SelfClosingStartTag,
                            b'=' => self.state = State::BeforeAttrValue,
                            b'>' => self.emit(input, base, i, on_tag),
                            _ => {
                                self.new_attr(base + i);
                                self.state = State::AttrName;
                            }
                        }
                        i += 1;
                    }
                }
                State::BeforeAttrValue => {
                    if is_ws(c) {
                        i += 1;
                    } else if c == b'"' || c == b'\'' {
                        i += 1;
                        self.value_start = base + i;
                        self.state = State::AttrValueQuoted(c);
                    } else if c == b'>' {
                        // missing-attribute-value: the value is empty
                        self.value_start = base + i;
                        self.set_value(base + i);
                        self.emit(input, base, i, on_tag);
                        i += 1;
                    } else {
                        self.value_start = base + i;
                        self.state = State::AttrValueUnquoted;
                    }
                }
                State::AttrValueQuoted(q) => match memchr(q, &b[i..]) {
                    Some(k) => {
                        i += k;
                        self.set_value(base + i);
                        i += 1;
                        self.state = State::AfterAttrValueQuoted;
                    }
                    None => i = n,
                },
                State::AttrValueUnquoted => {
                    while i < n && !(is_ws(b[i]) || b[i] == b'>') {
                        i += 1;
                    }
                    if i < n {
                        self.set_value(base + i);
                        if b[i] == b'>' {
                            self.emit(input, base, i, on_tag);
                        } else {
                            self.state = State::BeforeAttrName;
                        }
                        i += 1;
                    }
                }
                State::AfterAttrValueQuoted => {
                    if is_ws(c) {
                        i += 1;
                        self.state = State::BeforeAttrName;
                    } else if c == b'/' {
                        i += 1;
                        self.state = State::SelfClosingStartTag;
                    } else if c == b'>' {
                        self.emit(input, base, i, on_tag);
                        i += 1;
                    } else {
                        self.state = State::BeforeAttrName;
                    }
                }
                State::SelfClosingStartTag => {
                    if c == b'>' {
                        self.self_closing = true;
                        self.emit(input, base, i, on_tag);
                        i += 1;
                    } else {
                        self.state = State::BeforeAttrName;
                    }
                }
                State::MarkupDeclarationOpen(decl) => {
                    let (next, ok) = match decl {
                        Decl::Undecided => match c {
                            b'-' => (Some(Decl::Dashes), true),
                            b'd' | b'D' => (Some(Decl::Doctype), true),
                            b'[' if self.foreign.in_foreign() => (Some(Decl::Cdata), true),
                            _ => (None, false),
                        },
                        Decl::Dashes => (None, c == b'-'),
                        Decl::Doctype => (None, c.to_ascii_lowercase() == b"doctype"[self.matched]),
                        Decl::Cdata => (None, c == b"[CDATA["[self.matched]),
                    };
                    if !ok {
                        // the bytes matched so far hold no `>`
                        self.state = State::BogusComment;
                        continue;
                    }
                    i += 1;
                    if let Some(d) = next {
                        self.matched = 1;
                        self.state = State::MarkupDeclarationOpen(d);
                        continue;
                    }
                    self.matched += 1;
                    self.state = match decl {
                        Decl::Dashes => State::CommentStart,
                        Decl::Doctype if self.matched == 7 => State::BogusComment,
                        Decl::Cdata if self.matched == 7 => State::Cdata,
                        _ => State::MarkupDeclarationOpen(decl),
                    };
                }
                State::BogusComment => match memchr(b'>', &b[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.state = State::Data;
                    }
                    None => i = n,
                },
                State::CommentStart | State::CommentStartDash => {
                    self.state = match c {
                        b'-' if self.state == State::CommentStart => State::CommentStartDash,
                        b'-' => State::CommentEnd,
                        b'>' => State::Data,
                        _ => {
                            self.state = State::Comment;
                            continue;
                        }
                    };
                    i += 1;
                }
                State::Comment => match memchr(b'-', &b[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.state = State::CommentEndDash;
                    }
                    None => i = n,
                },
                State::CommentEndDash => {
                    if c == b'-' {
                        i += 1;
                        self.state = State::CommentEnd;
                    } else {
                        self.state = State::Comment;
                    }
                }
                State::CommentEnd => {
                    match c {
                        b'>' => self.state = State::Data,
                        b'!' => self.state = State::CommentEndBang,
                        b'-' => {}
                        _ => {
                            self.state = State::Comment;
                            continue;
                        }
                    }
                    i += 1;
                }
                State::CommentEndBang => {
                    match c {
                        b'-' => self.state = State::CommentEndDash,
                        b'>' => self.state = State::Data,
                        _ => {
                            self.state = State::Comment;
                            continue;
                        }
                    }
                    i += 1;
                }
                State::Cdata => match memchr(b']', &b[i..]) {
                    Some(k) => {
                        i += k + 1;
                        self.state = State::CdataBracket;
                    }
                    None => i = n,
                },
                State::CdataBracket => {
                    if c == b']' {
                        i += 1;
                        self.state = State::CdataEnd;
                    } else {
                        self.state = State::Cdata;
                    }
                }
                State::CdataEnd => match c {
                    b']' => i += 1,
                    b'>' => {
                        i += 1;
                        self.state = State::Data;
                    }
                    _ => self.state = State::Cdata,
                },
                State::Text(TextKind::Plaintext) => i = n,
                State::Text(kind) => match memchr(b'<', &b[i..]) {
                    Some(k) => {
                        self.lt = base + i + k;
                        i += k + 1;
                        self.state = State::TextLessThan(kind);
                    }
                    None => i = n,
                },
                State::TextLessThan(kind) => {
                    if c == b'/' {
                        i += 1;
                        self.start_match();
                        self.state = State::TextEndTagOpen(Back::Text(kind));
                    } else if c == b'!' && kind == TextKind::Script {
                        i += 1;
                        self.state = State::ScriptEscapeStart;
                    } else {
                        self.state = State::Text(kind);
                    }
                }
                State::TextEndTagOpen(back) => {
                    self.state = if c.is_ascii_alphabetic() {
                        State::TextEndTagName(back)
                    } else {
                        back.state()
                    };
                }
                State::TextEndTagName(back) => {
                    let want = self.text_tag.name().as_bytes();
                    while i < n && b[i].is_ascii_alphabetic() {
                        self.match_byte(b[i], want);
                        i += 1;
                    }
                    if i < n {
                        let c = b[i];
                        if (is_ws(c) || c == b'/' || c == b'>') && self.is_match(want) {
                            self.begin_tag(true);
                            self.tag_start = self.lt;
                            self.tag = self.text_tag;
                            match c {
                                b'/' => self.state = State::SelfClosingStartTag,
                                b'>' => self.emit(input, base, i, on_tag),
                                _ => self.state = State::BeforeAttrName,
                            }
                            i += 1;
                        } else {
                            self.state = back.state();
                        }
                    }
                }
                State::ScriptEscapeStart | State::ScriptEscapeStartDash => {
                    if c == b'-' {
                        i += 1;
                        self.state = if self.state == State::ScriptEscapeStart {
                            State::ScriptEscapeStartDash
                        } else {
                            State::EscapedDashDash
                        };
                    } else {
                        self.state = State::Text(TextKind::Script);
                    }
                }
                State::Escaped | State::DoubleEscaped => match memchr2(b'-', b'<', &b[i..]) {
                    Some(k) => {
                        i += k;
                        self.escaped_byte(b[i], base + i);
                        i += 1;
                    }
                    None => i = n,
                },
                State::EscapedDash
                | State::EscapedDashDash
                | State::DoubleEscapedDash
                | State::DoubleEscapedDashDash => {
                    self.escaped_byte(c, base + i);
                    i += 1;
                }
                State::EscapedLessThan => {
                    if c == b'/' {
                        i += 1;
                        self.start_match();
                        self.state = State::TextEndTagOpen(Back::Escaped);
                    } else if c.is_ascii_alphabetic() {
                        self.start_match();
                        self.state = State::DoubleEscapeStart;
                    } else {
                        self.state = State::Escaped;
                    }
                }
                State::DoubleEscapedLessThan => {
                    if c == b'/' {
                        i += 1;
                        self.start_match();
                        self.state = State::DoubleEscapeEnd;
                    } else {
                        self.state = State::DoubleEscaped;
                    }
                }
                State::DoubleEscapeStart | State::DoubleEscapeEnd => {
                    let start = self.state == State::DoubleEscapeStart;
                    let (hit, miss) = if start {
                        (State::DoubleEscaped, State::Escaped)
                    } else {
                        (State::Escaped, State::DoubleEscaped)
                    };
                    if c.is_ascii_alphabetic() {
                        self.match_byte(c, b"script");
                        i += 1;
                    } else if is_ws(c) || c == b'/' || c == b'>' {
                        i += 1;
                        self.state = if self.is_match(b"script") { hit } else { miss };
                    } else {
                        self.state = miss;
                    }
                }
            }
        }
        self.at = base + n;
        self.carry_over(input, base);
    }

    /// A `-`, `<` or `>` (or any other byte) in the script data (double) escaped states.
    fn escaped_byte(&mut self, c: u8, at: usize) {
        let double = matches!(
            self.state,
            State::DoubleEscaped | State::DoubleEscapedDash | State::DoubleEscapedDashDash
        );
        let dash_dash = matches!(
            self.state,
            State::EscapedDashDash | State::DoubleEscapedDashDash
        );
        let dash = matches!(self.state, State::EscapedDash | State::DoubleEscapedDash);
        self.state = match (c, double) {
            (b'-', false) if dash || dash_dash => State::EscapedDashDash,
            (b'-', false) => State::EscapedDash,
            (b'-', true) if dash || dash_dash => State::DoubleEscapedDashDash,
            (b'-', true) => State::DoubleEscapedDash,
            (b'<', false) => {
                self.lt = at;
                State::EscapedLessThan
            }
            (b'<', true) => State::DoubleEscapedLessThan,
            (b'>', _) if dash_dash => State::Text(TextKind::Script),
            (_, false) => State::Escaped,
            (_, true) => State::DoubleEscaped,
        };
    }
}

//! The tokenizer's states (HTML "13.2.5 Tokenization"), as far as tags and attributes need
//! them, and where a text element's `<` goes back to.

use crate::html::table::TextKind;

/// Where the text of a text element goes back to after a `<` that starts no end tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Back {
    Text(TextKind),
    Escaped,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decl {
    Undecided,
    Dashes,
    Doctype,
    Cdata,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Data,
    TagOpen,
    EndTagOpen,
    TagName,
    BeforeAttrName,
    AttrName,
    AfterAttrName,
    BeforeAttrValue,
    AttrValueQuoted(u8),
    AttrValueUnquoted,
    AfterAttrValueQuoted,
    SelfClosingStartTag,
    MarkupDeclarationOpen(Decl),
    BogusComment,
    CommentStart,
    CommentStartDash,
    Comment,
    CommentEndDash,
    CommentEnd,
    CommentEndBang,
    Cdata,
    CdataBracket,
    CdataEnd,
    Text(TextKind),
    TextLessThan(TextKind),
    TextEndTagOpen(Back),
    TextEndTagName(Back),
    ScriptEscapeStart,
    ScriptEscapeStartDash,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    EscapedLessThan,
    DoubleEscapeStart,
    DoubleEscaped,
    DoubleEscapedDash,
    DoubleEscapedDashDash,
    DoubleEscapedLessThan,
    DoubleEscapeEnd,
}

impl State {
    /// Whether a tag is being read (its attributes may be kept).
    pub(super) fn in_tag(self) -> bool {
        matches!(
            self,
            State::TagName
                | State::BeforeAttrName
                | State::AttrName
                | State::AfterAttrName
                | State::BeforeAttrValue
                | State::AttrValueQuoted(_)
                | State::AttrValueUnquoted
                | State::AfterAttrValueQuoted
                | State::SelfClosingStartTag
        )
    }
}

/// HTML's ASCII whitespace, with CR (the input stream preprocessor makes it LF).
pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

impl Back {
    pub(super) fn state(self) -> State {
        match self {
            Back::Text(k) => State::Text(k),
            Back::Escaped => State::Escaped,
        }
    }
}

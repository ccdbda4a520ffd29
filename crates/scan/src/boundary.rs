//! The boundary table: how every character behaves at the edge of a link. This is the one place
//! where the delimiting rules live; the finder (`find/`) only asks [`class`].
//!
//! | class | characters | effect |
//! | --- | --- | --- |
//! | [`Class::Space`] | ASCII whitespace (HT LF VT FF CR SP), U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 | ends a link; inside a closed `<…>` wrapper a run that holds a line break is removed (RFC 3986 appendix C) |
//! | [`Class::Stop`] | C0 and C1 controls, DEL; `"` `<` `>` `` ` `` `\` `^` `|`; bidi formatting characters U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069 (3987bis 4.1: never part of an IRI); U+200B, U+2060, U+FEFF; U+2014, U+2015, U+2018-U+201F (typographic quotes), U+2020-U+2027 (bullets, `…`, `‧`); CJK and full-width punctuation `、。〃〝〞〟，．：；！？｜＂＇＜＞･｡､・`; noncharacters and specials U+FDD0-U+FDEF, U+FFF0-U+FFFF (so U+FFFD: a decoding error never becomes part of a link; 3987bis 2.2 `ucschar` excludes them) | ends a link (a `\` that starts a JSON escape of a link character is read as that character: `find/json.rs`) |
//! | [`Class::Trailing`] | `.` `,` `:` `;` `!` `?` `*` `@` | part of a link only when more link characters follow; trimmed at the end; a `,` right before `scheme://` ends the link (`find/json.rs`) |
//! | [`Class::Apostrophe`] | `'` | trimmed at the end unless the apostrophes in the link are balanced (an even count) |
//! | [`Class::Open`] / [`Class::Close`] | `()` `[]` `{}`, guillemets `«»` `‹›`, full-width `（）［］｛｝｟｠`, CJK `〈〉《》「」『』【】〔〕〖〗〘〙〚〛`, half-width `｢｣` | kept when balanced inside the link; an unbalanced closing bracket ends the link; an opening bracket at the end is trimmed |
//! | [`Class::Private`] | private-use U+E000-U+F8FF, planes 15 and 16 | part of a link only in the query (3987bis 2.2 `iprivate`), else ends it |
//! | [`Class::Link`] | everything else, including every other non-ASCII character: a non-ASCII character does not by itself end an IRI (3987bis 7.3) | part of a link |
//!
//! With [`crate::ScanOptions::ascii_only`] every non-ASCII character is [`Class::Stop`].
//!
//! Host names have one more rule, in `host.rs`: text in another script glued to an ASCII/Latin
//! host label (`http://example.com你好`) is not taken into the host.
//!
//! Paths, queries and fragments have a like rule ([`spaceless_script`]): a Han, Hiragana,
//! Katakana or Hangul character right after an ASCII letter or digit ends a link that is all
//! ASCII up to there (one with non-ASCII text already, `http://中国.中国/foo中国`, keeps it), so that
//! text glued after a link in a language written without spaces is left as text
//! (`ソースはhttps://github.com/user/repoを参照` gives `https://github.com/user/repo`).
//! After any other character (`/`, `=`, `-`, `_`, `%XX`, another such character) it stays part
//! of the link: `https://ja.wikipedia.org/wiki/東京`, `?q=東京タワー`.

/// Number of bracket pairs in the table (the size of a bracket-depth array).
pub(crate) const PAIRS: usize = 19;

/// How a character behaves at a link boundary (see the module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Part of a link.
    Link,
    /// Whitespace; `line_break` for LF, CR, VT, FF, U+0085, U+2028, U+2029.
    Space {
        /// The character breaks a line.
        line_break: bool,
    },
    /// Ends a link.
    Stop,
    /// Punctuation kept only when more link characters follow.
    Trailing,
    /// ASCII apostrophe, kept when balanced.
    Apostrophe,
    /// Opening bracket of pair n.
    Open(u8),
    /// Closing bracket of pair n.
    Close(u8),
    /// Private-use character: allowed in the query only.
    Private,
}

use Class::*;

const fn ascii_table() -> [Class; 128] {
    let mut t = [Link; 128];
    let mut i = 0;
    while i < 0x20 {
        t[i] = Stop;
        i += 1;
    }
    t[0x7f] = Stop;
    t[b'\t' as usize] = Space { line_break: false };
    t[b' ' as usize] = Space { line_break: false };
    t[b'\n' as usize] = Space { line_break: true };
    t[b'\r' as usize] = Space { line_break: true };
    t[0x0b] = Space { line_break: true };
    t[0x0c] = Space { line_break: true };
    // Not allowed anywhere in a URI (RFC 3986 2, appendix C: `"` and `<>` delimit URIs).
    t[b'"' as usize] = Stop;
    t[b'<' as usize] = Stop;
    t[b'>' as usize] = Stop;
    t[b'`' as usize] = Stop;
    t[b'\\' as usize] = Stop;
    t[b'^' as usize] = Stop;
    t[b'|' as usize] = Stop;
    t[b'.' as usize] = Trailing;
    t[b',' as usize] = Trailing;
    t[b':' as usize] = Trailing;
    t[b';' as usize] = Trailing;
    t[b'!' as usize] = Trailing;
    t[b'?' as usize] = Trailing;
    t[b'*' as usize] = Trailing;
    t[b'@' as usize] = Trailing;
    t[b'\'' as usize] = Apostrophe;
    t[b'(' as usize] = Open(0);
    t[b')' as usize] = Close(0);
    t[b'[' as usize] = Open(1);
    t[b']' as usize] = Close(1);
    t[b'{' as usize] = Open(2);
    t[b'}' as usize] = Close(2);
    t
}

static ASCII: [Class; 128] = ascii_table();

/// The class of an ASCII byte (`b < 0x80`).
#[inline]
pub(crate) const fn ascii_class(b: u8) -> Class {
    ASCII[(b & 0x7f) as usize]
}

/// The class of any character.
#[inline]
pub(crate) fn class(c: char, ascii_only: bool) -> Class {
    let u = c as u32;
    if u < 0x80 {
        return ASCII[u as usize];
    }
    if ascii_only {
        return Stop;
    }
    non_ascii_class(u)
}

fn non_ascii_class(u: u32) -> Class {
    match u {
        0x85 => Space { line_break: true },
        0x80..=0x9f => Stop,
        0xa0 | 0x1680 | 0x2000..=0x200a | 0x202f | 0x205f | 0x3000 => Space { line_break: false },
        0x2028 | 0x2029 => Space { line_break: true },
        // bidi formatting characters (3987bis 4.1), zero-width space, word joiner, BOM
        0x061c | 0x200b | 0x200e | 0x200f | 0x202a..=0x202e | 0x2060 | 0x2066..=0x2069 | 0xfeff => {
            Stop
        }
        0x00ab => Open(3),
        0x00bb => Close(3),
        0x2039 => Open(4),
        0x203a => Close(4),
        0x2014 | 0x2015 | 0x2018..=0x201f | 0x2020..=0x2027 => Stop,
        0xff08 => Open(5),
        0xff09 => Close(5),
        0xff3b => Open(6),
        0xff3d => Close(6),
        0xff5b => Open(7),
        0xff5d => Close(7),
        0x3008 => Open(8),
        0x3009 => Close(8),
        0x300a => Open(9),
        0x300b => Close(9),
        0x300c => Open(10),
        0x300d => Close(10),
        0x300e => Open(11),
        0x300f => Close(11),
        0x3010 => Open(12),
        0x3011 => Close(12),
        0x3014 => Open(13),
        0x3015 => Close(13),
        0x3016 => Open(14),
        0x3017 => Close(14),
        0x3018 => Open(15),
        0x3019 => Close(15),
        0x301a => Open(16),
        0x301b => Close(16),
        0xff5f => Open(17),
        0xff60 => Close(17),
        0xff62 => Open(18),
        0xff63 => Close(18),
        // CJK and full-width sentence punctuation, quotes and the like
        0x3001..=0x3003 | 0x301d..=0x301f | 0x30fb => Stop,
        0xff01 | 0xff02 | 0xff07 | 0xff0c | 0xff0e | 0xff1a | 0xff1b | 0xff1c | 0xff1e | 0xff1f => {
            Stop
        }
        0xff5c | 0xff61 | 0xff64 | 0xff65 => Stop,
        // noncharacters and specials, U+FFFD included (not `ucschar`, 3987bis 2.2)
        0xfdd0..=0xfdef | 0xfff0..=0xffff => Stop,
        _ if u & 0xfffe == 0xfffe => Stop,
        0xe000..=0xf8ff | 0xf0000.. => Private,
        _ => Link,
    }
}

/// Whether `c` is of a script written without spaces between words whose glued text ends a
/// link after an ASCII letter or digit (see the module docs): Han (CJK unified ideographs and
/// their extensions and compatibility block), Hiragana, Katakana (with its half-width forms)
/// and Hangul (Korean particles are glued to the word before them).
pub(crate) fn spaceless_script(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11ff // Hangul Jamo
        | 0x3040..=0x30ff // Hiragana, Katakana
        | 0x3130..=0x318f // Hangul compatibility Jamo
        | 0x31f0..=0x31ff // Katakana phonetic extensions
        | 0x3400..=0x4dbf // CJK extension A
        | 0x4e00..=0x9fff // CJK unified ideographs
        | 0xac00..=0xd7af // Hangul syllables
        | 0xf900..=0xfaff // CJK compatibility ideographs
        | 0xff66..=0xff9f // half-width Katakana
        | 0x20000..=0x3134f // CJK extensions B-H
    )
}

/// Broad script class of a letter, for the host-glue rule (`host.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Script {
    /// ASCII letters and the Latin blocks.
    Latin,
    /// Letters of any other major script (Greek, Cyrillic, Arabic, Indic, CJK, Hangul, ...).
    Other,
    /// Digits, `-`, `_`, marks, symbols: neither.
    Neutral,
}

/// The script class of `c` (block-based approximation; good enough to see where two scripts
/// meet inside a host label).
pub(crate) fn script(c: char) -> Script {
    let u = c as u32;
    match u {
        0x41..=0x5a | 0x61..=0x7a => Script::Latin,
        0..=0x7f => Script::Neutral,
        0xd7 | 0xf7 => Script::Neutral,
        0xc0..=0x24f | 0x1e00..=0x1eff | 0x2c60..=0x2c7f | 0xa720..=0xa7ff | 0xab30..=0xab6f => {
            Script::Latin
        }
        0xff21..=0xff3a | 0xff41..=0xff5a => Script::Latin,
        0x300..=0x36f => Script::Neutral,
        0x370..=0x3ff
        | 0x400..=0x52f
        | 0x530..=0x58f
        | 0x590..=0x5ff
        | 0x600..=0x6ff
        | 0x700..=0x74f
        | 0x750..=0x77f
        | 0x780..=0x7bf
        | 0x8a0..=0x8ff
        | 0x900..=0xdff
        | 0xe00..=0xeff
        | 0xf00..=0xfff
        | 0x1000..=0x109f
        | 0x10a0..=0x10ff
        | 0x1100..=0x11ff
        | 0x1200..=0x139f
        | 0x13a0..=0x13ff
        | 0x1780..=0x17ff
        | 0x1800..=0x18af
        | 0x1c80..=0x1c8f
        | 0x1f00..=0x1fff
        | 0x2de0..=0x2dff
        | 0x2e80..=0x2fdf
        | 0x3040..=0x30ff
        | 0x3100..=0x312f
        | 0x3130..=0x318f
        | 0x31a0..=0x31ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xa000..=0xa4cf
        | 0xa640..=0xa69f
        | 0xac00..=0xd7af
        | 0xf900..=0xfaff
        | 0xfb1d..=0xfdff
        | 0xfe70..=0xfeff
        | 0xff66..=0xff9f
        | 0xffa0..=0xffdc
        | 0x20000..=0x3ffff => Script::Other,
        _ => Script::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_examples() {
        assert_eq!(class('a', false), Link);
        assert_eq!(class(' ', false), Space { line_break: false });
        assert_eq!(class('\n', false), Space { line_break: true });
        assert_eq!(class('\u{3000}', false), Space { line_break: false });
        assert_eq!(class('\u{a0}', false), Space { line_break: false });
        assert_eq!(class('\u{2005}', false), Space { line_break: false });
        assert_eq!(class('\u{200f}', false), Stop);
        assert_eq!(class('\u{2067}', false), Stop);
        assert_eq!(class('\u{61c}', false), Stop);
        assert_eq!(class('。', false), Stop);
        assert_eq!(class('，', false), Stop);
        assert_eq!(class('、', false), Stop);
        assert_eq!(class('；', false), Stop);
        assert_eq!(class('：', false), Stop);
        assert_eq!(class('！', false), Stop);
        assert_eq!(class('？', false), Stop);
        assert_eq!(class('…', false), Stop);
        assert_eq!(class('\u{fffd}', false), Stop);
        assert_eq!(class('（', false), Open(5));
        assert_eq!(class('」', false), Close(10));
        assert_eq!(class('«', false), Open(3));
        assert_eq!(class('é', false), Link);
        assert_eq!(class('é', true), Stop);
        assert_eq!(class('你', false), Link);
        assert_eq!(class('\u{200d}', false), Link);
        assert_eq!(class('\u{e000}', false), Private);
        assert_eq!(class('.', false), Trailing);
        assert_eq!(class('\'', false), Apostrophe);
    }

    #[test]
    fn pairs_are_consistent() {
        // every Open(n) has exactly one Close(n), and n < PAIRS
        let mut opens = [0u32; PAIRS];
        let mut closes = [0u32; PAIRS];
        for u in 0..0x11_0000u32 {
            let Some(c) = char::from_u32(u) else { continue };
            match class(c, false) {
                Open(n) => opens[n as usize] += 1,
                Close(n) => closes[n as usize] += 1,
                _ => {}
            }
        }
        assert!(opens.iter().all(|&n| n == 1), "{opens:?}");
        assert!(closes.iter().all(|&n| n == 1), "{closes:?}");
    }

    #[test]
    fn scripts() {
        assert_eq!(script('a'), Script::Latin);
        assert_eq!(script('é'), Script::Latin);
        assert_eq!(script('你'), Script::Other);
        assert_eq!(script('あ'), Script::Other);
        assert_eq!(script('д'), Script::Other);
        assert_eq!(script('1'), Script::Neutral);
        assert_eq!(script('-'), Script::Neutral);
        assert_eq!(script('✪'), Script::Neutral);
    }
}

//! The percent-encode sets of the URL Standard (1.3 "Percent-encoded bytes") and the two ways
//! the parser writes through them: UTF-8 percent-encoding, and "percent-encode after encoding"
//! with a legacy encoding (the query's encoding override).
//!
//! Every set holds all non-ASCII code points, so a byte of UTF-8 input is either copied (an
//! ASCII byte outside the set) or written as `%HH`; whole runs of copied bytes are appended at
//! once.

use encoding_rs::{EncoderResult, Encoding};

/// A percent-encode set, as the bit that marks its ASCII members in [`SETS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct EncodeSet(u8);

/// URL Standard 1.3: the C0 control percent-encode set (C0 controls and everything above `~`).
pub(super) const C0_CONTROL: EncodeSet = EncodeSet(1);
/// URL Standard 1.3: the fragment percent-encode set (C0 control set, space `"` `<` `>` `` ` ``).
pub(super) const FRAGMENT: EncodeSet = EncodeSet(2);
/// URL Standard 1.3: the query percent-encode set (C0 control set, space `"` `#` `<` `>`).
pub(super) const QUERY: EncodeSet = EncodeSet(4);
/// URL Standard 1.3: the special-query percent-encode set (the query set and `'`).
pub(super) const SPECIAL_QUERY: EncodeSet = EncodeSet(8);
/// URL Standard 1.3: the path percent-encode set (the query set and `?` `^` `` ` `` `{` `}`).
pub(super) const PATH: EncodeSet = EncodeSet(16);
/// URL Standard 1.3: the userinfo percent-encode set (the path set and `/` `:` `;` `=` `@`
/// `[` `\` `]` `|`).
pub(super) const USERINFO: EncodeSet = EncodeSet(32);

/// For each ASCII byte, the sets it belongs to (one bit per set above).
const SETS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        let c0 = b < 0x20 || b == 0x7F;
        let fragment = c0 || matches!(b, b' ' | b'"' | b'<' | b'>' | b'`');
        let query = c0 || matches!(b, b' ' | b'"' | b'#' | b'<' | b'>');
        let special_query = query || b == b'\'';
        let path = query || matches!(b, b'?' | b'^' | b'`' | b'{' | b'}');
        let userinfo = path
            || matches!(
                b,
                b'/' | b':' | b';' | b'=' | b'@' | b'[' | b'\\' | b']' | b'|'
            );
        t[i] = (c0 as u8)
            | (fragment as u8) << 1
            | (query as u8) << 2
            | (special_query as u8) << 3
            | (path as u8) << 4
            | (userinfo as u8) << 5;
        i += 1;
    }
    t
};

/// True when byte `b` (of UTF-8 text, or of a legacy encoding's output) is written `%HH` in
/// `set`: every non-ASCII byte, and the ASCII members of the set.
#[inline(always)]
pub(super) const fn in_set(b: u8, set: EncodeSet) -> bool {
    b >= 0x80 || SETS[b as usize] & set.0 != 0
}

/// Appends `%HH` for `b` (uppercase hex digits, URL Standard 1.3 "percent-encode").
#[inline(always)]
pub(super) fn push_pct(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// Appends `input[from..to]`, which holds only ASCII bytes outside every set it is written
/// through; `from` and `to` are then character boundaries.
#[inline(always)]
pub(super) fn push_run(out: &mut String, input: &str, from: usize, to: usize) {
    if from < to {
        let run = input.get(from..to);
        debug_assert!(run.is_some(), "a copied run is ASCII");
        out.push_str(run.unwrap_or_default());
    }
}

/// URL Standard 1.3 "UTF-8 percent-encode" `input` using `set`, appended to `out`.
///
/// The input is UTF-8 already, so each of its bytes is copied or percent-encoded on its own.
pub(super) fn utf8_percent_encode(out: &mut String, input: &str, set: EncodeSet) {
    let bytes = input.as_bytes();
    let mut i = 0;
    loop {
        let run = i;
        while i < bytes.len() && !in_set(bytes[i], set) {
            i += 1;
        }
        push_run(out, input, run, i);
        match bytes.get(i) {
            Some(&b) => push_pct(out, b),
            None => return,
        }
        i += 1;
    }
}

/// URL Standard 1.3 "percent-encode after encoding" with `encoding`, `input` and `set`,
/// appended to `out`: a character `encoding` cannot represent is written `%26%23N%3B` (its
/// decimal `&#N;`, itself percent-encoded), as the Encoding Standard's "encode or fail" hands
/// it back. `encoding` is an output encoding other than UTF-8 (the caller checks that).
pub(super) fn encode_after_encoding(
    out: &mut String,
    input: &str,
    encoding: &'static Encoding,
    set: EncodeSet,
) {
    // An ASCII-compatible encoding writes ASCII as itself: the UTF-8 path gives the same bytes.
    if encoding.is_ascii_compatible() && input.is_ascii() {
        utf8_percent_encode(out, input, set);
        return;
    }
    let mut encoder = encoding.new_encoder();
    let mut buf = [0u8; 512];
    let mut src = input;
    loop {
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(src, &mut buf, true);
        for &b in &buf[..written] {
            if in_set(b, set) {
                push_pct(out, b);
            } else {
                out.push(char::from(b));
            }
        }
        src = src.get(read..).unwrap_or_default();
        match result {
            EncoderResult::InputEmpty => return,
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => {
                out.push_str("%26%23");
                push_decimal(out, u32::from(c));
                out.push_str("%3B");
            }
        }
    }
}

/// Appends the shortest decimal digits of `n`.
pub(super) fn push_decimal(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(input: &str, set: EncodeSet) -> String {
        let mut s = String::new();
        utf8_percent_encode(&mut s, input, set);
        s
    }

    #[test]
    fn sets_nest_as_the_standard_defines_them() {
        for b in 0u8..128 {
            let t = SETS[usize::from(b)];
            // each set contains the C0 control set; path contains query; userinfo contains path
            if t & C0_CONTROL.0 != 0 {
                assert_eq!(t & 0b11_1110, 0b11_1110, "{b:#x}");
            }
            if t & QUERY.0 != 0 {
                assert!(t & SPECIAL_QUERY.0 != 0 && t & PATH.0 != 0, "{b:#x}");
            }
            if t & PATH.0 != 0 {
                assert!(t & USERINFO.0 != 0, "{b:#x}");
            }
        }
        assert_eq!(enc("a^`{}?", PATH), "a%5E%60%7B%7D%3F");
        assert_eq!(enc("a^`{}?'", QUERY), "a^`{}?'");
        assert_eq!(enc("'", SPECIAL_QUERY), "%27");
        assert_eq!(enc("#`", FRAGMENT), "#%60");
        assert_eq!(enc("\u{1}~\u{7F}é", C0_CONTROL), "%01~%7F%C3%A9");
        assert_eq!(enc("a:b@c|", USERINFO), "a%3Ab%40c%7C");
    }

    /// The examples of URL Standard 1.3 ("Here is a summary, by way of example").
    #[test]
    fn standard_examples() {
        let after = |e: &'static Encoding, s: &str| {
            let mut out = String::new();
            encode_after_encoding(&mut out, s, e, SPECIAL_QUERY);
            out
        };
        assert_eq!(after(encoding_rs::SHIFT_JIS, " "), "%20");
        assert_eq!(after(encoding_rs::SHIFT_JIS, "≡"), "%81%DF");
        assert_eq!(after(encoding_rs::SHIFT_JIS, "‽"), "%26%238253%3B");
        assert_eq!(after(encoding_rs::ISO_2022_JP, "¥"), "%1B(J\\%1B(B");
        assert_eq!(enc("Say what‽", USERINFO), "Say%20what%E2%80%BD");
        let mut s = String::new();
        push_decimal(&mut s, 0);
        push_decimal(&mut s, u32::MAX);
        assert_eq!(s, "04294967295");
    }
}

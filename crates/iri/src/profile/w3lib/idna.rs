//! The host encoding w3lib applies to a non-ASCII host: `_idna` in w3lib 2.5.0 `_url.py` (NFKC
//! of the host, then Python's `idna` codec), and that codec itself (Python 3.11
//! `encodings/idna.py`): IDNA 2003 (RFC 3490 ToASCII with AllowUnassigned, UseSTD3ASCIIRules
//! off), Nameprep (RFC 3491, the stringprep profile of RFC 3454) and Punycode (RFC 3492).
//!
//! Python's nameprep reads Unicode 3.2 tables; this one reads the current tables of
//! `unicode-normalization` and `unicode-bidi`, and maps case with the full lowercase mapping
//! plus the stringprep B.3 exceptions that survive the NFKC w3lib applies first (see
//! [`map_b3`]). The differences are confined to characters assigned after Unicode 3.2 and to
//! the B.2 entries listed in `docs/profiles/w3lib.md`.

use unicode_bidi::{BidiClass, bidi_class};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::decompose_canonical;

/// `_idna(host)` then `.encode("idna")`, appended to `out`; false (and `out` as it was) where
/// Python raises `UnicodeError` (an empty or too long label, a prohibited character, a bidi
/// violation, a label that starts with `xn--`).
pub(super) fn host_to_ascii(host: &str, out: &mut String) -> bool {
    let len = out.len();
    // w3lib 2.5.0 _url.py _nfkc_netloc: drop "@:#?", then NFKC.
    let normalized: String = host
        .chars()
        .filter(|c| !matches!(c, '@' | ':' | '#' | '?'))
        .nfkc()
        .collect();
    let ok = encode(&normalized, out);
    if !ok {
        out.truncate(len);
    }
    ok
}

/// Python 3.11 encodings/idna.py `Codec.encode`.
fn encode(input: &str, out: &mut String) -> bool {
    if input.is_empty() {
        return true;
    }
    if input.is_ascii() {
        // The ASCII fast path: every label but the last must be 1 to 63 bytes long, the last
        // at most 63.
        let mut labels = input.split('.').peekable();
        while let Some(l) = labels.next() {
            let last = labels.peek().is_none();
            if l.len() >= 64 || (!last && l.is_empty()) {
                return false;
            }
        }
        out.push_str(input);
        return true;
    }
    // IDNA section 3.1: U+002E, U+3002, U+FF0E and U+FF61 separate labels.
    let is_dot = |c: char| matches!(c, '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}');
    let mut labels: Vec<&str> = input.split(is_dot).collect();
    let trailing_dot = labels.len() > 1 && labels.last().is_some_and(|l| l.is_empty());
    if trailing_dot {
        labels.pop();
    }
    for (i, label) in labels.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        if !to_ascii(label, out) {
            return false;
        }
    }
    if trailing_dot {
        out.push('.');
    }
    true
}

/// RFC 3490 4.1 ToASCII of one label (Python's `ToASCII`).
fn to_ascii(label: &str, out: &mut String) -> bool {
    let fits = |l: &str| !l.is_empty() && l.len() < 64;
    if label.is_ascii() {
        out.push_str(label);
        return fits(label);
    }
    let Some(label) = nameprep(label) else {
        return false;
    };
    if label.is_ascii() {
        out.push_str(&label);
        return fits(&label);
    }
    if label.starts_with("xn--") {
        return false;
    }
    let start = out.len();
    out.push_str("xn--");
    punycode(&label, out) && out.len() - start < 64
}

/// RFC 3491 Nameprep, as Python's `encodings.idna.nameprep` runs it: map (B.1 to nothing, B.2
/// case folding), NFKC, prohibit (C.1.2, C.2.2, C.3 to C.9), check bidi (RFC 3454 6).
fn nameprep(label: &str) -> Option<String> {
    let mut mapped = String::with_capacity(label.len());
    for c in label.chars() {
        if !in_b1(c) {
            map_b2(c, &mut mapped);
        }
    }
    let label: String = mapped.nfkc().collect();
    if label.chars().any(prohibited) {
        return None;
    }
    let rand_al = |c: char| matches!(bidi_class(c), BidiClass::R | BidiClass::AL);
    if label.chars().any(rand_al) {
        if label.chars().any(|c| bidi_class(c) == BidiClass::L) {
            return None;
        }
        let first = label.chars().next().is_some_and(rand_al);
        let last = label.chars().next_back().is_some_and(rand_al);
        if !first || !last {
            return None;
        }
    }
    Some(label)
}

/// RFC 3454 table B.1, commonly mapped to nothing.
fn in_b1(c: char) -> bool {
    matches!(c as u32,
        0xAD | 0x34F | 0x1806 | 0x180B..=0x180D | 0x200B..=0x200D | 0x2060 | 0xFE00..=0xFE0F
        | 0xFEFF)
}

/// Python stringprep `map_table_b2`: B.3 (case folding), closed under NFKC.
fn map_b2(c: char, out: &mut String) {
    let mut al = String::new();
    map_b3(c, &mut al);
    let b: String = al.nfkc().collect();
    let mut bl = String::new();
    for ch in b.chars() {
        map_b3(ch, &mut bl);
    }
    let c2: String = bl.nfkc().collect();
    out.push_str(if b != c2 { &c2 } else { &al });
}

/// Python stringprep `map_table_b3`: `b3_exceptions`, else `str.lower()`. Of the 650
/// exceptions, only those whose character survives NFKC can reach nameprep (w3lib normalizes
/// the host first): ß, ς, U+0345 and the Greek letters with ypogegrammeni (whose folding writes
/// the ypogegrammeni as ι); the others fold to what NFKC then lowercasing gives.
fn map_b3(c: char, out: &mut String) {
    match c {
        'ß' => out.push_str("ss"),
        'ς' => out.push('σ'),
        '\u{345}' => out.push('ι'),
        '\u{1F80}'..='\u{1FFC}' => {
            let mut has_ypo = false;
            decompose_canonical(c, |d| has_ypo |= d == '\u{345}');
            if has_ypo {
                decompose_canonical(c, |d| {
                    if d == '\u{345}' {
                        out.push('ι');
                    } else {
                        out.extend(d.to_lowercase());
                    }
                });
            } else {
                out.extend(c.to_lowercase());
            }
        }
        _ => out.extend(c.to_lowercase()),
    }
}

/// RFC 3454 tables C.1.2, C.2.2, C.3, C.4, C.5, C.6, C.7, C.8 and C.9.
fn prohibited(c: char) -> bool {
    let u = c as u32;
    matches!(u,
        // C.1.2 non-ASCII space
        0xA0 | 0x1680 | 0x2000..=0x200B | 0x202F | 0x205F | 0x3000
        // C.2.2 non-ASCII control
        | 0x80..=0x9F | 0x6DD | 0x70F | 0x180E | 0x200C | 0x200D | 0x2028 | 0x2029
        | 0x2060..=0x2063 | 0x206A..=0x206F | 0xFEFF | 0xFFF9..=0xFFFC | 0x1D173..=0x1D17A
        // C.3 private use
        | 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD
        // C.4 non-character code points
        | 0xFDD0..=0xFDEF
        // C.6 inappropriate for plain text
        | 0xFFFD
        // C.7 inappropriate for canonical representation
        | 0x2FF0..=0x2FFB
        // C.8 change display properties or deprecated
        | 0x340 | 0x341 | 0x200E | 0x200F | 0x202A..=0x202E
        // C.9 tagging characters
        | 0xE0001 | 0xE0020..=0xE007F)
        || u & 0xFFFE == 0xFFFE
}

/// RFC 3492 Punycode encoding of `label` (which has a non-ASCII character), appended to `out`;
/// false where the label is too long to give a label under 64 bytes anyway.
fn punycode(label: &str, out: &mut String) -> bool {
    const BASE: u64 = 36;
    const TMIN: u64 = 1;
    const TMAX: u64 = 26;
    let input_len = label.chars().count() as u64;
    if input_len > 60 {
        return false; // every code point gives at least one output byte
    }
    let digit = |d: u64| -> char {
        let d = d as u8;
        char::from(if d < 26 { b'a' + d } else { b'0' + d - 26 })
    };
    let basic = label.chars().filter(char::is_ascii).count() as u64;
    out.extend(label.chars().filter(char::is_ascii));
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias, mut h) = (0x80u64, 0u64, 72u64, basic);
    while h < input_len {
        let Some(m) = label.chars().map(u64::from).filter(|&c| c >= n).min() else {
            return false;
        };
        delta += (m - n) * (h + 1);
        n = m;
        for c in label.chars().map(u64::from) {
            if c < n {
                delta += 1;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        TMIN
                    } else if k >= bias + TMAX {
                        TMAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, h + 1, h == basic);
                delta = 0;
                h += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    true
}

/// RFC 3492 6.1 bias adaptation.
fn adapt(delta: u64, numpoints: u64, first: bool) -> u64 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / numpoints;
    let mut k = 0;
    while delta > ((36 - 1) * 26) / 2 {
        delta /= 36 - 1;
        k += 36;
    }
    k + (36 * delta) / (delta + 38)
}

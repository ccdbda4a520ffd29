//! canon.py `punycode_special_host` on a non-ASCII host: idna 3.20
//! `encode(host, uts46=True)`, and where that raises, `uts46_remap(host)` (std3_rules=True)
//! split on `.` with Python's IDNA 2003 `encodings.idna.ToASCII` on each label; where that
//! raises too, the host is left as it is.
//!
//! The UTS 46 mapping is ICU4X's (`icu_normalizer`, the data the `idna` crate uses); the
//! IDNA 2008 checks of `encode` are idna 3.20's PVALID and CONTEXTO rules (tables generated
//! from it, `tables.rs`) plus the `idna` crate's UTS 46 ToASCII of each label (STD3 rules,
//! hyphens, joiners, bidi, DNS lengths); `nameprep` (RFC 3491) is reduced to what can differ on
//! text that UTS 46 has already mapped, with Unicode 3.2's bidi classes. The differences this
//! leaves are in `docs/profiles/urlcanon.md`.

use super::tables;
use icu_normalizer::uts46::Uts46MapperBorrowed;
use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};
use unicode_normalization::UnicodeNormalization;

/// The new host, or `None` where urlcanon leaves it as it is.
pub(super) fn non_ascii(s: &str) -> Option<String> {
    // idna core.py `_max_input_length`: both tries raise over 1024 characters.
    if s.chars().count() > 1024 {
        return None;
    }
    // uts46_remap: a disallowed code point (ICU writes U+FFFD, itself disallowed) raises in
    // both tries.
    let mapped: String = Uts46MapperBorrowed::new()
        .map_normalize(s.chars())
        .collect();
    if mapped.contains('\u{FFFD}') {
        return None;
    }
    // encode: each label LDH ASCII or a valid U-label (hyphens, joiners, and the bidi rule
    // where the label itself holds right-to-left characters), 63 octets a label, 253 in all,
    // a final empty label (a trailing dot) allowed, every code point PVALID or valid in its
    // context (UTS 46 also keeps the symbols and punctuation that IDNA 2008 disallows: those
    // make `encode` raise, and the fallback decide).
    if let Some(a) = encode_2008(&mapped) {
        return Some(a);
    }
    // The fallback: uts46_remap with std3_rules=True raises on any ASCII but [a-z0-9.-].
    if mapped.bytes().any(|b| {
        b.is_ascii() && !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
    }) {
        return None;
    }
    let mut out = String::with_capacity(mapped.len() + 8);
    for (i, label) in mapped.split('.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        to_ascii_2003(label, &mut out)?;
    }
    Some(out)
}

/// idna `encode` after `uts46_remap`: each label through the `idna` crate's ToASCII on its
/// own, so that its bidi rule, like idna's `check_bidi`, looks at one label at a time.
fn encode_2008(mapped: &str) -> Option<String> {
    let labels = mapped.strip_suffix('.').unwrap_or(mapped);
    let mut out = String::with_capacity(mapped.len() + 8);
    for (i, label) in labels.split('.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        if label.is_empty() {
            return None;
        }
        if !label.is_ascii() {
            let chars: Vec<char> = label.chars().collect();
            if !code_points_ok(&chars) {
                return None;
            }
        }
        let a = Uts46::new()
            .to_ascii(
                label.as_bytes(),
                AsciiDenyList::STD3,
                Hyphens::Check,
                DnsLength::Verify,
            )
            .ok()?;
        out.push_str(&a);
    }
    if out.len() > 253 {
        return None;
    }
    if labels.len() < mapped.len() {
        out.push('.');
    }
    Some(out)
}

/// Whether `c` is in one of the generated tables.
fn within(table: &[(u32, u32)], c: char) -> bool {
    let u = u32::from(c);
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < u {
                std::cmp::Ordering::Less
            } else if lo > u {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// idna `check_label`'s code point test on a non-ASCII label: PVALID, a joiner (whose
/// CONTEXTJ rule the `idna` crate checks), or a CONTEXTO code point whose rule holds
/// (`valid_contexto`, RFC 5892 appendix A.3-A.9).
fn code_points_ok(label: &[char]) -> bool {
    let n = label.len();
    label.iter().enumerate().all(|(pos, &c)| {
        let script = |t: &[(u32, u32)], i: usize| label.get(i).is_some_and(|c| within(t, *c));
        within(tables::PVALID, c)
            || matches!(c, '\u{200C}' | '\u{200D}')
            || match c {
                '\u{B7}' => {
                    0 < pos && pos + 1 < n && label[pos - 1] == 'l' && label[pos + 1] == 'l'
                }
                '\u{375}' => script(tables::GREEK, pos + 1),
                '\u{5F3}' | '\u{5F4}' => pos > 0 && script(tables::HEBREW, pos - 1),
                '\u{30FB}' => (0..n).any(|i| {
                    label[i] != '\u{30FB}'
                        && (script(tables::HIRAGANA, i)
                            || script(tables::KATAKANA, i)
                            || script(tables::HAN, i))
                }),
                '\u{660}'..='\u{669}' => !label.iter().any(|c| matches!(c, '\u{6F0}'..='\u{6F9}')),
                '\u{6F0}'..='\u{6F9}' => !label.iter().any(|c| matches!(c, '\u{660}'..='\u{669}')),
                _ => false,
            }
    })
}

/// `encodings.idna.ToASCII(label)` (RFC 3490 4.1 with AllowUnassigned and without
/// UseSTD3ASCIIRules), appended to `out`.
fn to_ascii_2003(label: &str, out: &mut String) -> Option<()> {
    let ascii = |l: &str, out: &mut String| (1..64).contains(&l.len()).then(|| out.push_str(l));
    if label.is_ascii() {
        return ascii(label, out);
    }
    let label = nameprep(label)?;
    if label.is_ascii() {
        return ascii(&label, out);
    }
    if label.starts_with("xn--") {
        return None;
    }
    let p = idna::punycode::encode_str(&label)?;
    if 4 + p.len() >= 64 {
        return None;
    }
    out.push_str("xn--");
    out.push_str(&p);
    Some(())
}

/// RFC 3454 table B.1: commonly mapped to nothing.
fn b1(c: char) -> bool {
    matches!(c, '\u{AD}' | '\u{34F}' | '\u{1806}' | '\u{180B}'..='\u{180D}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}')
}

/// RFC 3454 tables C.1.2, C.2.2, C.3 to C.9: the code points nameprep prohibits (C.1.1 and
/// C.2.1, ASCII space and controls, are not prohibited without UseSTD3ASCIIRules... and the
/// std3 check has already refused them).
fn prohibited(c: char) -> bool {
    let u = u32::from(c);
    matches!(u,
        0xA0 | 0x1680 | 0x2000..=0x200B | 0x202F | 0x205F | 0x3000 // C.1.2
        | 0x80..=0x9F | 0x6DD | 0x70F | 0x180E | 0x200C | 0x200D | 0x2028 | 0x2029
        | 0x2060..=0x2063 | 0x206A..=0x206F | 0xFEFF | 0xFFF9..=0xFFFC | 0x1D173..=0x1D17A // C.2.2
        | 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD // C.3
        | 0xFDD0..=0xFDEF // C.4
        | 0xFFFD // C.6 (FFF9-FFFC are in C.2.2)
        | 0x2FF0..=0x2FFB // C.7
        | 0x340 | 0x341 | 0x200E | 0x200F | 0x202A..=0x202E // C.8
        | 0xE0001 | 0xE0020..=0xE007F // C.9
    ) || (u & 0xFFFE) == 0xFFFE // C.4: U+xFFFE, U+xFFFF
}

/// `encodings.idna.nameprep` on a label that UTS 46 has mapped: B.1 removed; B.2 as Python's
/// `stringprep.map_table_b2` makes it, that is `str.lower()` of the running Python (so Cherokee
/// capitals, which UTS 46 keeps, become small letters) with the case-folding exceptions (`ß` to
/// `ss`, final sigma to sigma; the others are mapped by UTS 46 already); NFKC; the prohibited
/// tables; the RFC 3454 6 bidi rule (no L with an R or AL, which must then start and end the
/// label), with Unicode 3.2's bidi classes as Python's `stringprep` has them (a code point
/// assigned later has none).
fn nameprep(label: &str) -> Option<String> {
    let mapped: String = label
        .chars()
        .filter(|c| !b1(*c))
        .flat_map(|c| {
            let (special, lower) = match c {
                'ß' => (Some("ss"), None),
                'ς' => (Some("σ"), None),
                c => (None, Some(c.to_lowercase())),
            };
            special
                .into_iter()
                .flat_map(str::chars)
                .chain(lower.into_iter().flatten())
        })
        .nfkc()
        .collect();
    if mapped.chars().any(prohibited) {
        return None;
    }
    let rand_al = |c: char| within(tables::RAND_AL_3_2, c);
    if mapped.chars().any(rand_al) {
        if mapped.chars().any(|c| within(tables::L_3_2, c)) {
            return None;
        }
        let first = mapped.chars().next().is_some_and(rand_al);
        let last = mapped.chars().next_back().is_some_and(rand_al);
        if !(first && last) {
            return None;
        }
    }
    Some(mapped)
}

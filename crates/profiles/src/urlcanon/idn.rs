//! canon.py `punycode_special_host` on a non-ASCII host: idna 3.20
//! `encode(host, uts46=True)`, and where that raises, `uts46_remap(host)` (std3_rules=True)
//! split on `.` with Python's IDNA 2003 `encodings.idna.ToASCII` on each label; where that
//! raises too, the host is left as it is.
//!
//! The UTS 46 mapping is ICU4X's (`icu_normalizer`, the data the `idna` crate uses); the
//! IDNA 2008 checks of `encode` are idna 3.20's PVALID and CONTEXTO rules (tables generated
//! from it, `tables.rs`) plus the `idna` crate's UTS 46 ToASCII of each label (STD3 rules,
//! hyphens, joiners, bidi, DNS lengths); the IDNA 2003 fallback (RFC 3490 ToASCII with RFC 3491
//! Nameprep, CPython's Unicode 3.2 tables) is the shared [`crate::idna2003`]. The
//! differences this leaves are in `docs/profiles/urlcanon.md`.

use super::tables;
use crate::idna2003;
use icu_normalizer::uts46::Uts46MapperBorrowed;
use idna::uts46::{AsciiDenyList, DnsLength, Hyphens, Uts46};

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
        if !idna2003::to_ascii(label, &mut out) {
            return None;
        }
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
    idna2003::in_ranges(u32::from(c), table)
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

//! The host encoding w3lib applies to a non-ASCII host: `_idna` in w3lib 2.5.0 `_url.py` (drop
//! `@:#?`, NFKC of the host), then Python's `idna` codec (Python 3.11 `encodings/idna.py`: IDNA
//! 2003, RFC 3490 ToASCII with RFC 3491 Nameprep and RFC 3492 Punycode), which is the shared
//! [`crate::idna2003`] with CPython's own Unicode 3.2 tables.

use crate::idna2003;
use unicode_normalization::UnicodeNormalization;

/// `_idna(host)` then `.encode("idna")`, appended to `out`; false (and `out` as it was) where
/// Python raises `UnicodeError` (an empty or too long label, a prohibited character, a bidi
/// violation, a label that starts with `xn--`).
pub(super) fn host_to_ascii(host: &str, out: &mut String) -> bool {
    // w3lib 2.5.0 _url.py _nfkc_netloc: drop "@:#?", then NFKC.
    let normalized: String = host
        .chars()
        .filter(|c| !matches!(c, '@' | ':' | '#' | '?'))
        .nfkc()
        .collect();
    idna2003::encode(&normalized, out)
}

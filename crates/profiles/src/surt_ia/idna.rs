//! The `surt-ia` profile's IDNA front: `surt`'s `GoogleURLCanonicalizer` calls Python's
//! `encodings.idna` codec as `host.decode('utf-8', 'ignore').encode('idna')`. The codec itself
//! (RFC 3490 ToASCII, RFC 3491 Nameprep, RFC 3492 Punycode) is the shared
//! [`crate::idna2003`].

use crate::idna2003;

/// `host.decode('utf-8', 'ignore')`: the valid UTF-8 of `host`, every invalid sequence dropped.
pub(super) fn decode_ignore(host: &[u8]) -> String {
    let mut s = String::with_capacity(host.len());
    for chunk in host.utf8_chunks() {
        s.push_str(chunk.valid());
    }
    s
}

/// `text.encode('idna')`; `None` where Python raises `UnicodeError`.
pub(super) fn encode(text: &str) -> Option<Vec<u8>> {
    let mut out = String::with_capacity(text.len() + 8);
    idna2003::encode(text, &mut out).then(|| out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_idna() {
        let enc = |s: &str| encode(s).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(enc("Bücher.ch").as_deref(), Some("xn--bcher-kva.ch"));
        assert_eq!(enc("a..ü"), None);
        assert_eq!(decode_ignore(b"a\xffb\xc3\xbc"), "abü");
    }
}

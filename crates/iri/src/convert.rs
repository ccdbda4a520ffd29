//! IRI -> URI (3987bis 3.3-3.6) and URI -> IRI (3987bis 3.7).

use crate::chars::{self, UNRESERVED};
use crate::host::{IdnaProfile, domain_to_ascii};
use crate::parse::{Component, IriRef, Parts};
use crate::scheme_table::scheme_info;
use encoding_rs::Encoding;

/// How an `ireg-name` is mapped to a URI host (3987bis 3.4).
///
/// ```
/// use linksieve_iri::{HostMapping, IriRef, ToUriOptions};
/// let iri = IriRef::parse("http://résumé.example.org").unwrap();
/// let opts = ToUriOptions { host: HostMapping::Punycode, ..Default::default() };
/// assert_eq!(iri.to_uri(&opts).unwrap().as_str(), "http://xn--rsum-bpad.example.org");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum HostMapping {
    /// 3.4.1: percent-encode the UTF-8 of non-ASCII characters (the default, a SHOULD).
    #[default]
    #[cfg_attr(feature = "clap", value(help = "Percent-encode the UTF-8 (3.4.1)"))]
    Percent,
    /// 3.4.2: convert with IDNA (UTS 46 ToASCII); a failure fails the whole mapping.
    #[cfg_attr(feature = "clap", value(help = "IDNA ToASCII (3.4.2, UTS 46)"))]
    Punycode,
}

/// Options of [`IriRef::to_uri`].
///
/// ```
/// let opts = linksieve_iri::ToUriOptions::default();
/// assert!(opts.charset.is_none());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ToUriOptions {
    /// How to map the host.
    pub host: HostMapping,
    /// The document charset of 3.5: when it is not UCS-based, the query of an http or https IRI
    /// is encoded in it before percent-encoding. Characters it cannot represent become HTML
    /// numeric character references, as WHATWG's URL parser does.
    pub charset: Option<&'static Encoding>,
}

/// Why an IRI could not be mapped to a URI.
///
/// ```
/// use linksieve_iri::{HostMapping, IriRef, ToUriError, ToUriOptions};
/// let iri = IriRef::parse("http://a%FFb/").unwrap();
/// let opts = ToUriOptions { host: HostMapping::Punycode, ..Default::default() };
/// assert!(matches!(iri.to_uri(&opts), Err(ToUriError::Idna { .. })));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToUriError {
    /// 3.4.2: the host could not be converted with IDNA, so the whole conversion fails.
    #[error("host {host:?} cannot be converted to punycode (UTS 46 ToASCII failed)")]
    Idna {
        /// The host as written.
        host: String,
    },
}

impl<S: AsRef<str>> IriRef<S> {
    /// Maps the IRI reference to a URI reference (3987bis 3.6): every character not allowed in
    /// URIs is written as `%HH` of its UTF-8 with uppercase hex (3.3); existing percent-encodings
    /// are left as they are, so the mapping is the identity on URIs and idempotent.
    ///
    /// ```
    /// use linksieve_iri::IriRef;
    /// let iri = IriRef::parse("http://www.example.org/red%09rosé#red").unwrap();
    /// let uri = iri.to_uri(&Default::default()).unwrap();
    /// assert_eq!(uri.as_str(), "http://www.example.org/red%09ros%C3%A9#red");
    /// ```
    pub fn to_uri(&self, opts: &ToUriOptions) -> Result<IriRef<String>, ToUriError> {
        let parts = Parts::of(self);
        let charset = opts
            .charset
            .map(Encoding::output_encoding)
            .filter(|e| *e != encoding_rs::UTF_8)
            .filter(|_| {
                parts.scheme.is_some_and(|s| {
                    s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https")
                })
            });
        let punycode = opts.host == HostMapping::Punycode;
        parts.build(|out, c, text| {
            let host_idna = punycode && c == Component::Host && !text.starts_with('[');
            if text.is_ascii() && !(host_idna && text.contains('%')) {
                out.push_str(text);
                return Ok(());
            }
            match (c, charset) {
                (Component::Host, _) if host_idna => host_to_ascii(out, text),
                (Component::Query, Some(enc)) => {
                    encode_query(out, text, enc);
                    Ok(())
                }
                _ => {
                    pct_encode_non_ascii(out, text);
                    Ok(())
                }
            }
        })
    }

    /// Converts a URI reference to an IRI reference (3987bis 3.7), decoding what can be decoded:
    ///
    /// 1-2. `%HH` is decoded, except `%`, reserved characters and ASCII not allowed in URIs;
    /// 3. octets that are not part of strictly valid UTF-8 are re-encoded;
    /// 4. characters not appropriate in the component stay encoded: not `ucschar` (or not
    ///    `iprivate` in the query), bidi formatting characters (4.1), and the 5.1 / 6.3 groups
    ///    (see [`crate::is_not_appropriate`]);
    /// 5. the result is UTF-8;
    /// 6. punycode labels of hosts of DNS schemes are converted with ToUnicode when the result
    ///    is appropriate.
    ///
    /// Re-encoded octets use uppercase hex (3.7.1, third example); encodings left alone keep
    /// their case. Non-ASCII characters already in the input are kept.
    ///
    /// ```
    /// use linksieve_iri::IriRef;
    /// let to_iri = |s| IriRef::parse(s).unwrap().to_iri().into_inner();
    /// assert_eq!(to_iri("http://www.example.org/D%C3%BCrst"), "http://www.example.org/Dürst");
    /// assert_eq!(to_iri("http://www.example.org/D%FCrst"), "http://www.example.org/D%FCrst");
    /// assert_eq!(
    ///     to_iri("http://xn--99zt52a.example.org/%e2%80%ae"),
    ///     "http://納豆.example.org/%E2%80%AE"
    /// );
    /// ```
    pub fn to_iri(&self) -> IriRef<String> {
        let parts = Parts::of(self);
        let dns = parts
            .scheme
            .and_then(scheme_info)
            .is_some_and(|s| s.dns_host);
        let built: Result<_, std::convert::Infallible> = parts.build(|out, c, text| {
            if c == Component::Host && dns && !text.starts_with('[') {
                host_to_unicode(out, text);
            } else if c == Component::Port || !text.contains('%') {
                out.push_str(text);
            } else {
                decode_component(out, text, c == Component::Query);
            }
            Ok(())
        });
        built.unwrap_or_else(|e| match e {})
    }
}

/// 3.3: `%HH` of the UTF-8 of every non-ASCII character; ASCII is copied.
fn pct_encode_non_ascii(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(p) = rest.bytes().position(|b| b >= 0x80) {
        out.push_str(&rest[..p]);
        let c = rest[p..].chars().next().unwrap_or('\0');
        chars::push_pct_char(out, c);
        rest = &rest[p + c.len_utf8()..];
    }
    out.push_str(rest);
}

/// 3.5: the query in a legacy document charset. Runs of non-ASCII characters are encoded with
/// `enc`; each resulting byte that is not an unreserved ASCII character is percent-encoded,
/// and a character `enc` cannot represent becomes `%26%23N%3B` (its HTML character reference,
/// percent-encoded, as the WHATWG URL Standard's "percent-encode after encoding" does).
fn encode_query(out: &mut String, text: &str, enc: &'static Encoding) {
    let mut rest = text;
    let mut buf = [0u8; 64];
    while let Some(p) = rest.bytes().position(|b| b >= 0x80) {
        out.push_str(&rest[..p]);
        let run_len = rest[p..]
            .bytes()
            .position(|b| b < 0x80)
            .unwrap_or(rest.len() - p);
        let mut src = &rest[p..p + run_len];
        let mut encoder = enc.new_encoder();
        loop {
            let (res, read, written) =
                encoder.encode_from_utf8_without_replacement(src, &mut buf, true);
            for &b in &buf[..written] {
                // Only unreserved bytes stay (RFC 3986 2.3: encoding them changes nothing): a
                // byte such as `]`, `#` or `%` (Shift_JIS and ISO-2022-JP use them inside
                // characters) would make the query invalid or change its meaning.
                if chars::is(b, UNRESERVED) {
                    out.push(b as char);
                } else {
                    chars::push_pct(out, &[b]);
                }
            }
            src = &src[read..];
            match res {
                encoding_rs::EncoderResult::InputEmpty => break,
                encoding_rs::EncoderResult::OutputFull => {}
                encoding_rs::EncoderResult::Unmappable(c) => {
                    out.push_str("%26%23");
                    out.push_str(&(c as u32).to_string());
                    out.push_str("%3B");
                }
            }
        }
        rest = &rest[p + run_len..];
    }
    out.push_str(rest);
}

/// 3.4.2: IDNA ToASCII ([`IdnaProfile::Lookup`]) of a host that has non-ASCII characters or
/// percent-encodings; the octets must be UTF-8.
fn host_to_ascii(out: &mut String, host: &str) -> Result<(), ToUriError> {
    let fail = || ToUriError::Idna {
        host: host.to_owned(),
    };
    let decoded = pct_decode_utf8(host).ok_or_else(fail)?;
    out.push_str(&domain_to_ascii(&decoded, IdnaProfile::Lookup).map_err(|_| fail())?);
    Ok(())
}

/// Decodes every `%HH`; `None` when the octets are not UTF-8.
fn pct_decode_utf8(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !s.contains('%') {
        return Some(s.into());
    }
    let b = s.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if let Some(v) = chars::pct_at(b, i) {
            bytes.push(v);
            i += 3;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(bytes).ok().map(Into::into)
}

/// 3.7 step 6: ToUnicode for each `xn--` label whose Unicode form is valid and appropriate;
/// the labels are those of the host after the percent-decoding of steps 1-5, since a decoded
/// `%2E` separates labels (otherwise a second conversion would find new `xn--` labels and the
/// conversion would not be idempotent).
fn host_to_unicode(out: &mut String, host: &str) {
    let decoded = if host.contains('%') {
        let mut d = String::with_capacity(host.len());
        decode_component(&mut d, host, false);
        std::borrow::Cow::Owned(d)
    } else {
        std::borrow::Cow::Borrowed(host)
    };
    for (i, label) in decoded.split('.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        // Punycode is ASCII letters, digits and `-`: a label with a percent-encoding left or a
        // non-ASCII character is not (ToUnicode would insert characters between `%` and its
        // digits, or map a full-width `［` to `[`).
        if label.len() > 4
            && label.is_ascii()
            && label.as_bytes()[..4].eq_ignore_ascii_case(b"xn--")
            && !label.contains('%')
        {
            let (uni, res) = idna::domain_to_unicode(label);
            if res.is_ok()
                && uni.chars().all(|c| {
                    c.is_ascii() || (chars::is_ucschar(c) && !chars::is_not_appropriate(c))
                })
            {
                out.push_str(&uni);
                continue;
            }
        }
        out.push_str(label);
    }
}

/// 3.7 steps 1-5 on one component.
pub(crate) fn decode_component(out: &mut String, text: &str, query: bool) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    let mut run: Vec<u8> = Vec::new();
    while i < b.len() {
        let Some(v) = chars::pct_at(b, i) else {
            i += 1;
            continue;
        };
        out.push_str(&text[copied..i]);
        if v < 0x80 {
            // Step 2: decode only unreserved ASCII; keep "%", reserved and disallowed ASCII.
            if chars::is(v, UNRESERVED) {
                out.push(v as char);
            } else {
                out.push_str(&text[i..i + 3]);
            }
            i += 3;
        } else {
            run.clear();
            while let Some(v) = chars::pct_at(b, i).filter(|v| *v >= 0x80) {
                run.push(v);
                i += 3;
            }
            decode_run(out, &run, query);
        }
        copied = i;
    }
    out.push_str(&text[copied..]);
}

/// Steps 3-5 for a run of decoded non-ASCII octets.
fn decode_run(out: &mut String, mut run: &[u8], query: bool) {
    while !run.is_empty() {
        let (valid, bad) = match std::str::from_utf8(run) {
            Ok(s) => (s, 0),
            Err(e) => {
                let (v, rest) = run.split_at(e.valid_up_to());
                // SAFETY-free: `v` is valid UTF-8 by `valid_up_to`.
                let s = std::str::from_utf8(v).unwrap_or_default();
                (s, e.error_len().unwrap_or(rest.len()))
            }
        };
        for c in valid.chars() {
            let ok = (chars::is_ucschar(c) || (query && chars::is_iprivate(c)))
                && !chars::is_not_appropriate_in(c, query);
            if ok {
                out.push(c);
            } else {
                chars::push_pct_char(out, c);
            }
        }
        let consumed = valid.len();
        chars::push_pct(out, &run[consumed..consumed + bad]);
        run = &run[consumed + bad..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_uri(s: &str) -> String {
        IriRef::parse(s)
            .unwrap()
            .to_uri(&ToUriOptions::default())
            .unwrap()
            .into_inner()
    }

    fn puny(s: &str) -> Result<String, ToUriError> {
        let opts = ToUriOptions {
            host: HostMapping::Punycode,
            ..Default::default()
        };
        IriRef::parse(s)
            .unwrap()
            .to_uri(&opts)
            .map(IriRef::into_inner)
    }

    fn to_iri(s: &str) -> String {
        IriRef::parse(s).unwrap().to_iri().into_inner()
    }

    #[test]
    fn seeds_3_4() {
        assert_eq!(
            to_uri("http://résumé.example.org"),
            "http://r%C3%A9sum%C3%A9.example.org"
        );
        assert_eq!(
            puny("http://résumé.example.org").unwrap(),
            "http://xn--rsum-bpad.example.org"
        );
        assert_eq!(
            puny("http://r%C3%A9sum%C3%A9.example.org/").unwrap(),
            "http://xn--rsum-bpad.example.org/"
        );
        assert_eq!(
            to_uri("http://validator.w3.org/check?uri=http%3A%2F%2Frésumé.example.org"),
            "http://validator.w3.org/check?uri=http%3A%2F%2Fr%C3%A9sum%C3%A9.example.org"
        );
        // RFC 3987 3.1: the Old Italic example.
        assert_eq!(
            to_uri("http://example.com/\u{10300}\u{10301}\u{10302}"),
            "http://example.com/%F0%90%8C%80%F0%90%8C%81%F0%90%8C%82"
        );
        assert!(puny("http://a_b.é/").is_err());
    }

    #[test]
    fn seeds_3_7_1() {
        assert_eq!(
            to_iri("http://www.example.org/D%C3%BCrst"),
            "http://www.example.org/Dürst"
        );
        assert_eq!(
            to_iri("http://www.example.org/D%FCrst"),
            "http://www.example.org/D%FCrst"
        );
        assert_eq!(
            to_iri("http://xn--99zt52a.example.org/%e2%80%ae"),
            "http://納豆.example.org/%E2%80%AE"
        );
        assert_eq!(
            to_iri("http://www.example.org/r%E9sum%E9.xml#r%C3%A9sum%C3%A9"),
            "http://www.example.org/r%E9sum%E9.xml#résumé"
        );
    }

    #[test]
    fn to_iri_keeps_what_it_must() {
        assert_eq!(to_iri("s:%25%2F%2f%20%3C%41%7e"), "s:%25%2F%2f%20%3CA~");
        assert_eq!(to_iri("s:a%C3"), "s:a%C3");
        assert_eq!(to_iri("s:%C3%A9%C3"), "s:é%C3");
        assert_eq!(to_iri("s:%EE%80%80?%EE%80%80"), "s:%EE%80%80?\u{E000}");
        assert_eq!(to_iri("s:%E2%80%8F%E3%80%80"), "s:%E2%80%8F%E3%80%80");
        assert_eq!(to_iri("s:%ED%A0%80"), "s:%ED%A0%80");
        assert_eq!(to_iri("urn:xn--99zt52a"), "urn:xn--99zt52a");
    }

    /// Found by the `convert` fuzz target: a DNS host label of an IRI with a non-ASCII
    /// character across byte 4 made the `xn--` test slice a `str` inside a character.
    #[test]
    fn to_iri_of_non_ascii_host_labels() {
        assert_eq!(to_iri("http://exaémple/"), "http://exaémple/");
        assert_eq!(to_iri("http://例え.jp/"), "http://例え.jp/");
        assert_eq!(to_iri("http://1\u{576e8}/"), "http://1\u{576e8}/");
        assert_eq!(to_iri("http://％４１.com"), "http://％４１.com");
        assert_eq!(to_iri("http://XN--99zt52a.jp/"), "http://納豆.jp/");
    }

    /// Found by the `convert` fuzz target: to_iri decoded `%2E` inside a label, and the next
    /// to_iri took the new `xn--` label for punycode; ToUnicode ran on a label that still held
    /// a percent-encoding, inserting characters between `%` and its hex digits; and on a label
    /// with a full-width `［`, which UTS 46 maps to `[`, not allowed in a host.
    #[test]
    fn to_iri_hosts_are_idempotent_and_valid() {
        for s in [
            "http://www.xn--rsu%2epadexum-/%D0%A0110",
            "http://www.xn--rsum-bpadexum%2E%2examp/",
            "http://a.xn--pokxncPPPPPP%00%00%00%00ircs%00%00/",
            "http://%78n--rsum-bpad.example/",
            "http://xn--pokffff%EF%BC%BBhtt-ffffffsfffvfffffffffcPttpffx/",
            "http://xn--pokffff［htt-ffffffsfffvfffffffffcPttpffx/",
        ] {
            let once = to_iri(s);
            assert!(IriRef::parse(&once).is_ok(), "{s} -> {once}");
            assert_eq!(to_iri(&once), once, "{s}");
        }
        assert_eq!(
            to_iri("http://www.xn--rsu%2epadexum-/"),
            "http://www.抻.padexum-/"
        );
        assert_eq!(
            to_iri("http://a.xn--pokxncPPPPPP%00%00/"),
            "http://a.xn--pokxncPPPPPP%00%00/"
        );
        assert_eq!(
            to_iri("http://%78n--rsum-bpad.example/"),
            "http://résumé.example/"
        );
    }

    /// Found by the `convert` fuzz target: bytes of a character in the document charset that
    /// are ASCII punctuation were copied into the query raw: `]` (Shift_JIS 0x81 0x5D for
    /// U+2010) made it invalid, and ISO-2022-JP writes `%`, `#` and `$` inside characters.
    #[test]
    fn query_charset_bytes_are_encoded() {
        let with = |enc| ToUriOptions {
            charset: Some(enc),
            ..Default::default()
        };
        let u = |s: &str, enc| IriRef::parse(s).unwrap().to_uri(&with(enc)).unwrap();
        let r = u("http://h/?\u{2010}", encoding_rs::SHIFT_JIS);
        assert_eq!(r.as_str(), "http://h/?%81%5D");
        assert!(IriRef::parse_with(r.as_str(), crate::Grammar::Uri).is_ok());
        // ア is 0x83 0x41 in Shift_JIS: the unreserved `A` may stay.
        assert_eq!(
            u("http://h/?ア", encoding_rs::SHIFT_JIS).as_str(),
            "http://h/?%83A"
        );
        // あ is ESC $ B 0x24 0x22 ESC ( B in ISO-2022-JP.
        let r = u("http://h/?あ", encoding_rs::ISO_2022_JP);
        assert_eq!(r.as_str(), "http://h/?%1B%24B%24%22%1B%28B");
        // ツ争 is ESC $ B 0x25 0x44 0x41 0x68 ESC ( B: a raw `%` would make `%DA` an octet.
        let r = u("http://h/?ツ争", encoding_rs::ISO_2022_JP);
        assert_eq!(r.as_str(), "http://h/?%1B%24B%25DAh%1B%28B");
    }

    #[test]
    fn query_charset() {
        let opts = ToUriOptions {
            charset: Some(encoding_rs::EUC_KR),
            ..Default::default()
        };
        let r = IriRef::parse("http://h/†?†")
            .unwrap()
            .to_uri(&opts)
            .unwrap();
        assert_eq!(r.as_str(), "http://h/%E2%80%A0?%A2%D3");
        let opts = ToUriOptions {
            charset: Some(encoding_rs::BIG5),
            ..Default::default()
        };
        assert_eq!(
            IriRef::parse("https://h/?†")
                .unwrap()
                .to_uri(&opts)
                .unwrap()
                .as_str(),
            "https://h/?%26%238224%3B"
        );
        let r = IriRef::parse("ftp://h/?†").unwrap().to_uri(&opts).unwrap();
        assert_eq!(r.as_str(), "ftp://h/?%E2%80%A0");
    }
}

//! The `iri` and `surt` key forms, both written from the `uri` key.

use super::Rung;
use super::pct::pct_at;
use crate::convert::decode_component;
use crate::parse::{Component, HostKind, IriRef, Parts};
use std::convert::Infallible;

/// The `iri` form of a `uri` key (3987bis 3.7). From the scheme rung up, exactly
/// [`IriRef::to_iri`] (U-label hosts for DNS schemes, step 6). At the syntax rung, steps 1-5
/// only: the syntax rung does not apply IDNA, so `xn--rsum-bpad` and `r%C3%A9sum%C3%A9` are
/// different syntax keys and must stay different `iri` keys. At the string rung, the text.
pub(super) fn iri(k: IriRef<&str>, rung: Rung) -> String {
    match rung {
        Rung::String => k.as_str().to_owned(),
        Rung::Syntax => {
            let built: Result<_, Infallible> = Parts::of(&k).build(|out, c, text| {
                let literal = c == Component::Host && text.starts_with('[');
                if c == Component::Port || literal || !text.contains('%') {
                    out.push_str(text);
                } else {
                    decode_component(out, text, c == Component::Query);
                }
                Ok(())
            });
            built.unwrap_or_else(|e| match e {}).into_inner()
        }
        Rung::Scheme | Rung::Protocol => {
            let full = k.to_iri();
            let (Some(ascii), Some(shown)) = (k.host(), full.host()) else {
                return full.into_inner();
            };
            if ascii == shown || host_key(shown, k.scheme()) == ascii {
                return full.into_inner();
            }
            // 3.7 step 6 converts each label on its own; when the labels, back together, do not
            // give this host again (UTS 46 checks the whole name: bidi, joiners), the host
            // keeps the form that does: decoded by steps 1-5 only, or as it is.
            let mut decoded = String::new();
            decode_component(&mut decoded, ascii, false);
            let host = if host_key(&decoded, k.scheme()) == ascii {
                decoded.as_str()
            } else {
                ascii
            };
            let parts = Parts {
                host: Some(host),
                ..Parts::of(&full)
            };
            parts.assemble().into_inner()
        }
    }
}

/// The scheme-rung key of a reg-name host written in an `iri` key.
fn host_key(text: &str, scheme: Option<&str>) -> String {
    let mut syn = String::new();
    super::pct::push_normal(&mut syn, text, super::pct::ascii_only_host(text));
    let dns = scheme
        .and_then(crate::scheme_table::scheme_info)
        .is_some_and(|i| i.dns_host);
    match dns.then(|| super::host::dns_host(&syn)).flatten() {
        Some(h) => h,
        None => syn,
    }
}

/// Octets that the SURT authority escapes: `,` `(` `)` `:` `@` and `%` itself.
const CODES: [u8; 6] = [b',', b'(', b')', b':', b'@', b'%'];

/// Appends `text` with `raw` characters as `%HH`, and the `%` of a `%HH` that encodes one of
/// [`CODES`] as `%25`, so that [`unescape`] gives `text` back.
fn escape(out: &mut String, text: &str, raw: &[u8]) {
    let b = text.as_bytes();
    for (i, c) in text.char_indices() {
        let byte = b[i];
        if c.is_ascii() && raw.contains(&byte) {
            super::pct::push_pct(out, byte);
        } else if byte == b'%' && pct_at(b, i).is_some_and(|v| CODES.contains(&v)) {
            out.push_str("%25");
        } else {
            out.push(c);
        }
    }
}

/// The inverse of [`escape`].
fn unescape(out: &mut String, text: &str) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        if let Some(v) = pct_at(b, i).filter(|v| CODES.contains(v)) {
            out.push_str(&text[run..i]);
            out.push(v as char);
            i += 3;
            run = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[run..]);
}

/// The `surt` form of a key: `scheme://(labels,:port@userinfo)path?query#fragment`.
///
/// Reg-name labels are written in reverse order, each followed by `,` (`example.com.` gives
/// `(,com,example,)`, the empty host `(,)`); IPv4 addresses and IP literals are written as they
/// are, without a comma. In labels, `,` `(` `)` `:` `@` are percent-encoded; in the userinfo,
/// `(` and `)`; in both, the `%` of a `%HH` that encodes one of these or `%` becomes `%25`.
/// So the form is unambiguous and [`from_surt`] inverts it. A reference without an authority
/// is written as it is (it cannot be mistaken for a SURT: its path cannot start with `//`).
pub(super) fn surt(k: IriRef<&str>) -> String {
    let Some(host) = k.host() else {
        return k.as_str().to_owned();
    };
    let s = k.as_str();
    let mut out = String::with_capacity(s.len() + 8);
    if let Some(sc) = k.scheme() {
        out.push_str(sc);
        out.push(':');
    }
    out.push_str("//(");
    if k.host_kind() == Some(HostKind::RegName) {
        for label in host.rsplit('.') {
            escape(&mut out, label, b",():@");
            out.push(',');
        }
    } else {
        out.push_str(host);
    }
    if let Some(p) = k.port() {
        out.push(':');
        out.push_str(p);
    }
    if let Some(u) = k.userinfo() {
        out.push('@');
        escape(&mut out, u, b"()");
    }
    out.push(')');
    out.push_str(&s[k.spans().path().start..]);
    out
}

/// Converts a key in `surt` form back to the `uri` form (or the text, at the string rung) it
/// was written from. `None` when `surt` is not in the form [`KeyForm::Surt`] describes.
///
/// [`KeyForm::Surt`]: crate::KeyForm::Surt
///
/// ```
/// use linksieve_iri::from_surt;
/// assert_eq!(from_surt("http://(com,example,www,:8080@user)/p?q").unwrap(), "http://user@www.example.com:8080/p?q");
/// assert_eq!(from_surt("http://(10.0.0.1)/").unwrap(), "http://10.0.0.1/");
/// assert_eq!(from_surt("http://(a%2Cb,)/").unwrap(), "http://a,b/");
/// assert_eq!(from_surt("mailto:x@example.com").unwrap(), "mailto:x@example.com");
/// assert!(from_surt("http://(com,example").is_none());
/// ```
pub fn from_surt(surt: &str) -> Option<String> {
    let scheme_end = surt.find(':').filter(|&i| {
        let b = surt.as_bytes();
        i > 0
            && b[0].is_ascii_alphabetic()
            && b[1..i]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    });
    let after_scheme = scheme_end.map_or(0, |i| i + 1);
    let Some(inner) = surt[after_scheme..].strip_prefix("//(") else {
        return Some(surt.to_owned());
    };
    let mut out = String::with_capacity(surt.len());
    out.push_str(&surt[..after_scheme]);
    out.push_str("//");
    // The host part: an IP literal up to its "]", or labels / an IPv4 address up to ":", "@"
    // or ")", none of which a label holds unescaped.
    let host_end = if inner.starts_with('[') {
        inner.find(']')? + 1
    } else {
        inner.find([':', '@', ')'])?
    };
    let host = &inner[..host_end];
    let mut rest = &inner[host_end..];
    let mut port = None;
    if let Some(r) = rest.strip_prefix(':') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        port = Some(&r[..n]);
        rest = &r[n..];
    }
    let mut userinfo = None;
    if let Some(r) = rest.strip_prefix('@') {
        let end = r.find(')')?;
        userinfo = Some(&r[..end]);
        rest = &r[end..];
    }
    let path = rest.strip_prefix(')')?;
    if let Some(u) = userinfo {
        unescape(&mut out, u);
        out.push('@');
    }
    if host.starts_with('[') || !host.contains(',') {
        out.push_str(host);
    } else {
        let labels = host.strip_suffix(',')?;
        for (i, label) in labels.rsplit(',').enumerate() {
            if i > 0 {
                out.push('.');
            }
            unescape(&mut out, label);
        }
    }
    if let Some(p) = port {
        out.push(':');
        out.push_str(p);
    }
    out.push_str(path);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &str) -> String {
        let k = IriRef::parse(s).unwrap();
        let t = surt(k);
        assert_eq!(from_surt(&t).as_deref(), Some(s), "surt {t}");
        t
    }

    #[test]
    fn surt_examples() {
        assert_eq!(
            round("http://www.example.com/"),
            "http://(com,example,www,)/"
        );
        assert_eq!(
            round("http://user:pw@example.com:8080/p?q#f"),
            "http://(com,example,:8080@user:pw)/p?q#f"
        );
        assert_eq!(round("http://10.1.2.3:81"), "http://(10.1.2.3:81)");
        assert_eq!(round("http://[::1]/"), "http://([::1])/");
        assert_eq!(round("http://[v1.a)b]/"), "http://([v1.a)b])/");
        assert_eq!(round("file:///etc"), "file://(,)/etc");
        assert_eq!(round("http://example.com./"), "http://(,com,example,)/");
        assert_eq!(round("http://a,b(c)/"), "http://(a%2Cb%28c%29,)/");
        assert_eq!(round("http://a%2Cb/"), "http://(a%252Cb,)/");
        assert_eq!(round("http://a%41b/"), "http://(a%41b,)/");
        assert_eq!(round("http://u(1)%29@h/"), "http://(h,@u%281%29%2529)/");
        assert_eq!(round("//h/p"), "//(h,)/p");
        assert_eq!(round("mailto:a@b"), "mailto:a@b");
        assert_eq!(round("s:/(x)"), "s:/(x)");
        assert_eq!(round("http://h:/"), "http://(h,:)/");
    }
}

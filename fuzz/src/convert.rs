//! The `convert` target: IRI -> URI (3987bis 3.3-3.6) and URI -> IRI (3.7).

use crate::pct_norm;
use linksieve_iri::{
    Grammar, HostMapping, InputMode, IriRef, ToUriOptions, parse_input, to_iri_str, to_uri_str,
};

/// Runs every conversion oracle on `data`. The first byte picks the options.
pub fn run(data: &[u8]) {
    let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let s = crate::text(rest);
    let charset = match flags >> 4 & 3 {
        0 => None,
        1 => Some(encoding_rs::WINDOWS_1252),
        2 => Some(encoding_rs::SHIFT_JIS),
        _ => Some(encoding_rs::UTF_16LE),
    };
    let host = if flags & 1 != 0 {
        HostMapping::Punycode
    } else {
        HostMapping::Percent
    };
    let opts = ToUriOptions { host, charset };
    // Strict first; what is not an IRI is read as a LEIRI (3987bis 6.1).
    let iri = match IriRef::parse(&s) {
        Ok(r) => r.to_owned(),
        Err(_) => match parse_input(&s, InputMode::Leiri) {
            Ok(r) => r,
            Err(_) => {
                web_only(&s, &opts);
                return;
            }
        },
    };
    to_uri(&iri, &opts);
    to_uri(&iri, &ToUriOptions::default());
    round_trip(&iri);
    // to_iri of any IRI (not only of URIs) is an IRI and a fixed point.
    let i = iri.to_iri();
    reparses(i.as_ref(), Grammar::Iri, "to_iri", &s);
    assert_eq!(
        i.to_iri().as_str(),
        i.as_str(),
        "to_iri not idempotent on {s:?}"
    );
    web_only(&s, &opts);
}

/// The string functions of every mode must not panic; web mode output is an ASCII URI.
fn web_only(s: &str, opts: &ToUriOptions) {
    if let Ok(u) = to_uri_str(s, InputMode::Web, opts) {
        assert!(u.is_ascii(), "web to_uri {u:?} of {s:?} is not ASCII");
    }
    let _ = to_iri_str(s, InputMode::Web);
    let _ = to_iri_str(s, InputMode::Leiri);
}

fn reparses(r: IriRef<&str>, g: Grammar, what: &str, input: &str) {
    let again = IriRef::parse_with(r.as_str(), g)
        .unwrap_or_else(|e| panic!("{what} of {input:?} = {r:?} does not parse ({g:?}): {e}"));
    assert_eq!(
        again.spans(),
        r.spans(),
        "{what} of {input:?}: spans differ after re-parse"
    );
}

/// `to_uri` is ASCII, a URI with the same components, and idempotent.
fn to_uri(iri: &IriRef<String>, opts: &ToUriOptions) {
    let input = iri.as_str();
    let Ok(u) = iri.to_uri(opts) else {
        // Only IDNA (3.4.2) may fail.
        assert_eq!(
            opts.host,
            HostMapping::Punycode,
            "to_uri failed on {input:?}"
        );
        return;
    };
    assert!(
        u.as_str().is_ascii(),
        "to_uri {u:?} of {input:?} is not ASCII"
    );
    reparses(u.as_ref(), Grammar::Uri, "to_uri", input);
    let again = u
        .to_uri(opts)
        .unwrap_or_else(|e| panic!("to_uri of the URI {u:?} fails: {e}"));
    assert_eq!(
        again.as_str(),
        u.as_str(),
        "to_uri not idempotent on {input:?}"
    );
}

/// `to_iri(to_uri(x))` is an IRI that maps back to the same URI, up to hex case and
/// unreserved escapes; hosts of DNS schemes come back from ToUnicode as characters, which
/// `to_uri` percent-encodes (3.4.1), so such hosts are left out of the comparison.
fn round_trip(iri: &IriRef<String>) {
    let input = iri.as_str();
    let u = iri
        .to_uri(&ToUriOptions::default())
        .unwrap_or_else(|e| panic!("to_uri of {input:?}: {e}"));
    let i = u.to_iri();
    reparses(i.as_ref(), Grammar::Iri, "to_iri(to_uri)", input);
    let back = i
        .to_uri(&ToUriOptions::default())
        .unwrap_or_else(|e| panic!("to_uri of {i:?}: {e}"));
    let uh = u.host().unwrap_or_default();
    let host_mapped = i
        .host()
        .is_some_and(|h| h != uh && uh.to_ascii_lowercase().contains("xn--"));
    if !host_mapped {
        assert_eq!(
            pct_norm(back.as_str()),
            pct_norm(u.as_str()),
            "to_uri(to_iri(u)) != u for u = {u:?} (input {input:?}, IRI {i:?})"
        );
    }
    assert_eq!(
        i.to_iri().as_str(),
        i.as_str(),
        "to_iri not idempotent on {u:?}"
    );
}

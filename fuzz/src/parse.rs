//! The `parse` target: parse in every input mode and with both grammars, check, resolve.

use linksieve_iri::{
    Grammar, InputMode, IriRef, Parts, Strictness, WebUrl, check, leiri_to_iri, parse_input,
    parse_web, resolve_str, validate,
};

/// Runs every parse oracle on `data`.
pub fn run(data: &[u8]) {
    let s = crate::text(data);
    one(&s);
    // Lines as base and reference of a resolution.
    let (base, r) = crate::split_pair(&s);
    if !r.is_empty() {
        one(r);
        resolve(base, r);
    }
}

fn one(s: &str) {
    strict(s);
    // LEIRI (3987bis 6.1): the preprocessed text is an IRI, and every IRI is a LEIRI.
    let leiri = parse_input(s, InputMode::Leiri);
    if let Ok(r) = &leiri {
        assert_eq!(r.as_str(), leiri_to_iri(s), "LEIRI text of {s:?}");
        let again = IriRef::parse(r.as_str())
            .unwrap_or_else(|e| panic!("LEIRI result {r:?} of {s:?} does not re-parse: {e}"));
        assert_eq!(again.spans(), r.spans(), "LEIRI spans of {s:?}");
    }
    if IriRef::parse(s).is_ok() {
        assert!(leiri.is_ok(), "{s:?} is an IRI but not a LEIRI: {leiri:?}");
    }
    // Web Address (3987bis 6.2): an ASCII URI.
    if let Ok(r) = parse_input(s, InputMode::Web) {
        assert!(
            r.as_str().is_ascii(),
            "web result {r:?} of {s:?} is not ASCII"
        );
        let again = IriRef::parse_with(r.as_str(), Grammar::Uri)
            .unwrap_or_else(|e| panic!("web result {r:?} of {s:?} is not a URI: {e}"));
        assert_eq!(again.spans(), r.spans(), "web spans of {s:?}");
        assert!(r.is_absolute(), "web result {r:?} of {s:?} is relative");
    }
    // The WHATWG href itself parses back to the same URL record.
    if let Ok(u) = WebUrl::parse(s) {
        assert_eq!(
            WebUrl::parse(u.as_str()).as_ref(),
            Ok(&u),
            "web href of {s:?} does not parse back to itself"
        );
    }
}

/// Strict parses: the text and every component round-trip; `validate` agrees; the URI
/// grammar is the IRI grammar on ASCII text; errors point inside the input.
fn strict(s: &str) {
    let iri = IriRef::parse(s);
    let uri = IriRef::parse_with(s, Grammar::Uri);
    assert_eq!(
        validate(s, Grammar::Iri).is_ok(),
        iri.is_ok(),
        "validate vs parse on {s:?}"
    );
    assert_eq!(
        validate(s, Grammar::Uri).is_ok(),
        uri.is_ok(),
        "validate vs parse_with(Uri) on {s:?}"
    );
    if s.is_ascii() {
        assert_eq!(
            iri.is_ok(),
            uri.is_ok(),
            "IRI and URI grammars differ on ASCII {s:?}: {iri:?} {uri:?}"
        );
    }
    if let (Ok(i), Ok(u)) = (&iri, &uri) {
        assert_eq!(i.spans(), u.spans(), "IRI and URI spans of {s:?}");
    }
    match iri {
        Ok(r) => {
            assert_eq!(r.as_str(), s);
            let mut out = String::new();
            r.write_to(&mut out);
            assert_eq!(out, s, "write_to of {s:?}");
            let mut out = String::new();
            Parts::of(&r).write_to(&mut out);
            assert_eq!(out, s, "Parts::write_to of {s:?}");
            let owned: IriRef<String> = r.to_owned();
            assert_eq!(owned.spans(), r.spans());
            // Every accessor is a slice of the input, in order.
            let parts = Parts::of(&r);
            let joined: usize = [parts.scheme, parts.userinfo, parts.host, parts.port]
                .iter()
                .flatten()
                .map(|p| p.len())
                .sum::<usize>()
                + parts.path.len()
                + parts.query.map_or(0, str::len)
                + parts.fragment.map_or(0, str::len);
            assert!(joined <= s.len(), "components of {s:?} longer than it");
            let _ = r.host_kind();
            for d in check(&r) {
                assert!(d.offset <= s.len(), "diagnostic {d:?} outside {s:?}");
            }
        }
        Err(e) => assert!(e.offset <= s.len(), "error {e:?} outside {s:?}"),
    }
    if let Err(e) = uri {
        assert!(e.offset <= s.len(), "error {e:?} outside {s:?}");
    }
}

/// Resolution (RFC 3986 5.2): an absolute result that re-parses; resolving the result again
/// against the same base reaches a fixed point in one more step (a copied base path may keep
/// dot segments the first time, RFC 3986 5.2.2).
fn resolve(base: &str, r: &str) {
    for mode in [InputMode::Strict, InputMode::Leiri] {
        for strictness in [Strictness::Strict, Strictness::NonStrict] {
            let Ok(t) = resolve_str(base, r, mode, strictness) else {
                continue;
            };
            let parsed = IriRef::parse(&t)
                .unwrap_or_else(|e| panic!("resolve({base:?}, {r:?}) = {t:?} does not parse: {e}"));
            assert!(
                parsed.is_absolute(),
                "resolve({base:?}, {r:?}) = {t:?} is relative"
            );
            if strictness == Strictness::NonStrict {
                // A non-strict resolver reads an absolute result with the base's scheme as a
                // relative reference again, so only the strict one has the fixed point.
                continue;
            }
            let Ok(t2) = resolve_str(base, &t, mode, strictness) else {
                panic!("resolving the result {t:?} against {base:?} fails");
            };
            let t3 = resolve_str(base, &t2, mode, strictness)
                .unwrap_or_else(|e| panic!("resolve({base:?}, {t2:?}): {e}"));
            assert_eq!(
                t3, t2,
                "resolution against {base:?} has no fixed point from {t:?}"
            );
        }
    }
    let _ = resolve_str(base, r, InputMode::Web, Strictness::Strict);
    // WHATWG: a URL resolved against a base serializes to an href that parses back to itself.
    if let Ok(b) = WebUrl::parse(base)
        && let Ok(u) = parse_web(r, Some(&b), None)
    {
        assert_eq!(
            WebUrl::parse(u.as_str()).as_ref(),
            Ok(&u),
            "web href of {r:?} against {base:?} does not parse back to itself"
        );
    }
}

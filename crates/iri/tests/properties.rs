//! Properties over generated IRIs (proptest) and over arbitrary strings: round trips, the
//! idempotence of to_uri, to_iri keeping meaning, resolution results re-parsing, no panics, and
//! linear time on pathological input.

use linksieve_iri::{Grammar, IriRef, ToUriOptions, leiri_to_iri, remove_dot_segments, validate};
use proptest::prelude::*;

use crate::common;

/// Characters for generated components: unreserved, sub-delims, `:@`, a few `ucschar`, and
/// percent-encodings (valid UTF-8 and not).
fn piece(extra: &'static str) -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        4 => "[a-zA-Z0-9._~-]",
        1 => "[!$&'()*+,;=]",
        1 => Just("%41".to_owned()),
        1 => Just("%2F".to_owned()),
        1 => Just("%c3%a9".to_owned()),
        1 => Just("%FC".to_owned()),
        1 => Just("%E2%80%AE".to_owned()),
        1 => Just("%2e".to_owned()),
        1 => "[éü納豆αβ\u{10300}\u{5D0}]",
        1 => Just(extra.to_owned()),
    ];
    proptest::collection::vec(atoms, 0..6).prop_map(|v| v.concat())
}

fn iri() -> impl Strategy<Value = String> {
    let host = prop_oneof![
        piece(""),
        Just("[::1]".to_owned()),
        Just("[2001:db8::7]".to_owned()),
        Just("192.0.2.1".to_owned()),
        Just("xn--99zt52a.example".to_owned()),
    ];
    let authority = proptest::option::of((
        proptest::option::of(piece(":")),
        host,
        proptest::option::of("[0-9]{0,5}"),
    ));
    let segs = proptest::collection::vec(
        prop_oneof![piece(":@"), Just(".".to_owned()), Just("..".to_owned())],
        0..5,
    );
    (
        proptest::option::of("[a-z][a-z0-9+.-]{0,6}"),
        authority,
        any::<bool>(),
        segs,
        proptest::option::of(piece("/?")),
        proptest::option::of(piece("/?")),
    )
        .prop_map(|(scheme, auth, abs, segs, q, f)| common::assemble(scheme, auth, abs, segs, q, f))
}

/// Percent-encoding normalization for comparing URIs that to_iri / to_uri may write differently:
/// uppercase hex, unreserved characters decoded (3987bis 3.7: "except for potential case
/// differences in percent-encoding and for potential percent-encoded unreserved characters").
fn pct_norm(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            if v.is_ascii_alphanumeric() || b"-._~".contains(&v) {
                out.push(v as char);
            } else {
                out.push_str(&s[i..i + 3].to_ascii_uppercase());
            }
            i += 3;
        } else {
            let c = s[i..].chars().next().unwrap_or_default();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn generated_iris_parse_and_round_trip(s in iri()) {
        let r = IriRef::parse(&s).map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
        prop_assert_eq!(r.as_str(), s.as_str());
        let mut out = String::new();
        r.write_to(&mut out);
        prop_assert_eq!(&out, &s);
        let owned: IriRef<String> = s.parse().unwrap();
        prop_assert_eq!(owned.spans(), r.spans());
    }

    #[test]
    fn to_uri_is_idempotent_ascii_and_valid(s in iri()) {
        let r = IriRef::parse(&s).unwrap();
        let u = r.to_uri(&ToUriOptions::default()).unwrap();
        prop_assert!(u.as_str().is_ascii());
        prop_assert!(validate(u.as_str(), Grammar::Uri).is_ok(), "{}", u);
        let again = IriRef::parse(u.as_str()).unwrap().to_uri(&ToUriOptions::default()).unwrap();
        prop_assert_eq!(again.as_str(), u.as_str());
        let as_uri = IriRef::parse_with(u.as_str(), Grammar::Uri).unwrap();
        prop_assert_eq!(as_uri.spans(), u.spans());
    }

    #[test]
    fn to_iri_keeps_meaning(s in iri()) {
        let u = IriRef::parse(&s).unwrap().to_uri(&ToUriOptions::default()).unwrap();
        let i = u.to_iri();
        let reparsed = IriRef::parse(i.as_str()).map_err(|e| TestCaseError::fail(format!("{i}: {e}")))?;
        prop_assert_eq!(reparsed.spans(), i.spans());
        prop_assert!(linksieve_iri::check(&i).iter().all(|d| d.code != linksieve_iri::DiagnosticCode::BidiFormatting));
        let back = i.to_uri(&ToUriOptions::default()).unwrap();
        // Hosts of DNS schemes come back from ToUnicode as characters, which to_uri
        // percent-encodes (3.4.1): compare everything but such hosts.
        if !i.host().is_some_and(|h| h != u.host().unwrap_or_default() && u.host().unwrap_or_default().contains("xn--")) {
            prop_assert_eq!(pct_norm(back.as_str()), pct_norm(u.as_str()));
        }
        let twice = i.to_iri();
        prop_assert_eq!(twice.as_str(), i.as_str());
    }

    #[test]
    fn resolution_results_reparse(base in iri(), r in iri()) {
        let b = IriRef::parse(&base).unwrap();
        let r = IriRef::parse(&r).unwrap();
        if let Ok(t) = b.resolve(&r) {
            prop_assert!(t.is_absolute());
            let again = IriRef::parse(t.as_str()).map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
            prop_assert_eq!(again.spans(), t.spans());
            // The result is absolute: resolving it again only removes dot segments that a copied
            // base path kept (RFC 3986 5.2.2), and after that it is a fixed point.
            let t2 = b.resolve(&again).unwrap();
            let t3 = b.resolve(&t2).unwrap();
            prop_assert_eq!(t3.as_str(), t2.as_str());
        } else {
            prop_assert!(!b.is_absolute());
        }
    }

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,40}", t in proptest::collection::vec(any::<char>(), 0..40)) {
        let t: String = t.into_iter().collect();
        for x in [&s, &t] {
            if let Ok(r) = IriRef::parse(x) {
                let _ = r.to_uri(&ToUriOptions::default());
                let _ = r.to_iri();
                let _ = linksieve_iri::check(&r);
            }
            let l = leiri_to_iri(x);
            let _ = IriRef::parse(&l);
            let _ = linksieve_iri::parse_input(x, linksieve_iri::InputMode::Web);
            let mut out = String::new();
            remove_dot_segments(&mut out, x);
        }
    }

    /// WHATWG parsing never panics, and a URL's href parses back to the same URL (the URL
    /// Standard's serializer is meant to be idempotent: the `/.` before a path that would read
    /// as an authority and the `%20` before `?`/`#` in opaque paths exist for that). Each href
    /// maps into the IRI model.
    #[test]
    fn web_hrefs_parse_back_to_themselves(
        s in web_input(),
        r in web_input(),
    ) {
        for (input, base) in [(&s, None), (&r, Some(&s))] {
            let base = base.and_then(|b| linksieve_iri::WebUrl::parse(b).ok());
            if let Ok(u) = linksieve_iri::parse_web(input, base.as_ref(), None) {
                let again = linksieve_iri::WebUrl::parse(u.as_str());
                prop_assert_eq!(again.as_ref(), Ok(&u), "{:?}", input);
                prop_assert!(linksieve_iri::web_to_iri(&u).is_ok(), "{}", u);
                prop_assert!(u.as_str().is_ascii());
            }
        }
    }
}

/// Input for the WHATWG parser: a scheme (special, not, or none) and text made mostly of the
/// characters its states switch on.
fn web_input() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just(""),
        Just("http:"),
        Just("file:"),
        Just("sc:"),
        Just("ws:"),
    ];
    let atoms = prop_oneof![
        3 => "[a-zA-Z0-9]",
        3 => "[/\\\\.:@?#\\[\\]%| ^]",
        1 => Just("..".to_owned()),
        1 => Just("%2e".to_owned()),
        1 => Just("C|".to_owned()),
        1 => Just("0x".to_owned()),
        1 => Just("xn--".to_owned()),
        1 => "[\t\u{0}\u{1F}é\u{AD}\u{FFFD}]",
    ];
    (scheme, proptest::collection::vec(atoms, 0..16))
        .prop_map(|(scheme, v)| format!("{scheme}{}", v.concat()))
}

use common::work::Work;

/// Pathological inputs cost linear work: 4x the input must not cost anything like 16x the
/// instructions (counted under callgrind: see `common/work.rs`).
#[test]
#[ignore = "counts instructions under valgrind; scripts/test.sh runs it"]
fn pathological_inputs_scale_linearly() {
    let mut work = Work::count("properties::pathological_inputs_scale_linearly");
    type Make = Box<dyn Fn(usize) -> String>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "../ path",
            Box::new(|n| format!("http://h/{}", "../".repeat(n))),
        ),
        ("% run", Box::new(|n| format!("s:{}", "%25".repeat(n)))),
        (
            "encoded UTF-8",
            Box::new(|n| format!("s:{}", "%C3%A9%FC".repeat(n))),
        ),
        (
            "dot segments",
            Box::new(|n| format!("s:/{}{}", "a/".repeat(n), "../".repeat(n))),
        ),
    ];
    let base = IriRef::parse("http://a/b/c").unwrap();
    for (name, make) in cases {
        work.linear(name, 20_000, make, |s: &String| {
            let r = IriRef::parse(s).unwrap();
            std::hint::black_box(base.resolve(&r).unwrap());
            std::hint::black_box(r.to_iri());
            std::hint::black_box(r.to_uri(&ToUriOptions::default()).unwrap());
        });
    }
    work.finish();
}

/// The WHATWG parser is linear too (dot segments pop by truncation, userinfo splits at the last
/// `@` once, the query is encoded in one pass).
#[test]
#[ignore = "counts instructions under valgrind; scripts/test.sh runs it"]
fn web_pathological_inputs_scale_linearly() {
    let mut work = Work::count("properties::web_pathological_inputs_scale_linearly");
    type Make = Box<dyn Fn(usize) -> String>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "../ path",
            Box::new(|n| format!("http://h/{}", "../".repeat(n))),
        ),
        (
            "dot segments",
            Box::new(|n| format!("sc:/{}{}", "a/".repeat(n), "%2e%2E/".repeat(n))),
        ),
        (
            "@ run",
            Box::new(|n| format!("http://{}h/", "a@".repeat(n))),
        ),
        (
            "slashes",
            Box::new(|n| format!("file:{}x", "/\\".repeat(n))),
        ),
        (
            "encoded query",
            Box::new(|n| format!("http://h/?{}", "é ‽".repeat(n))),
        ),
    ];
    let base = linksieve_iri::WebUrl::parse("http://a/b/c").unwrap();
    for (name, make) in cases {
        work.linear(name, 10_000, make, |s: &String| {
            for enc in [None, Some(encoding_rs::SHIFT_JIS)] {
                std::hint::black_box(linksieve_iri::parse_web(s, Some(&base), enc).unwrap());
            }
        });
    }
    work.finish();
}

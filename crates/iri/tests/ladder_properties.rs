//! Properties of the comparison ladder, over generated IRIs (proptest) and over every input of
//! the vector files:
//!
//! - `string` is the identity;
//! - idempotence, `n(n(x)) == n(x)`, at every rung, in the `uri` and `iri` forms, with and
//!   without NFC and protocol rules. For the `surt` form, whose keys are not IRIs, idempotence
//!   means `surt(n(n_uri(x))) == surt(n_uri(x))` (normalizing the `uri` key again at the same
//!   rung, then writing it as SURT, gives the same SURT key), and [`from_surt`] must give the
//!   `uri` key back (the form is one-to-one, so equal SURT keys mean equal `uri` keys);
//! - the `iri` key is the same IRI: its `uri` key is the `uri` key of the input;
//! - monotonicity: each rung is computed from the key of the rung below
//!   (`n_{L+1}(n_L(x)) == n_{L+1}(x)`), which makes "equal at a rung" imply "equal at every rung
//!   above"; pairs of generated variants are also checked directly;
//! - `uri` keys from the syntax rung up are ASCII and parse with `Grammar::Uri`;
//! - a fixed point propagates down: when the `uri` key at a rung is the input itself, so is the
//!   `uri` key at every rung below;
//! - one climb (`climb_str`) to a rung gives, at every rung up to it, the key that rung gives
//!   alone, its top key in every form, and `changed()` where the key differs from the one
//!   below; the climb's fast path (`fixed_point`) answers only for a fixed point;
//! - no input makes normalization loop or grow: pathological inputs scale linearly.

use linksieve_iri::{
    Climb, Grammar, InputMode, IriRef, KeyForm, NormalizeOptions, Rules, Rung, climb_str,
    fixed_point, from_surt, normalize,
};
use proptest::prelude::*;

use crate::common;
use std::sync::Arc;

/// Characters of generated components: unreserved, sub-delims, percent-encodings (unreserved,
/// reserved, `%25`, UTF-8, not UTF-8, a bidi control, dots), non-ASCII characters, decomposed
/// and NFC-sensitive sequences.
fn piece(extra: &'static str) -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        6 => "[a-zA-Z0-9._~-]",
        1 => "[!$&'()*+,;=]",
        1 => prop_oneof![
            Just("%41"), Just("%7e"), Just("%2F"), Just("%c3%a9"), Just("%FC"),
            Just("%E2%80%AE"), Just("%2e"), Just("%25"), Just("%3A"), Just("%CC%81"),
        ]
        .prop_map(str::to_owned),
        1 => "[éüÉ納豆αβ\u{10300}\u{5D0}\u{E000}]",
        1 => prop_oneof![
            Just("e\u{301}"), Just("\u{212B}"), Just("\u{37E}"), Just("=\u{338}"),
            Just("\u{200E}"), Just("\u{FF21}"),
        ]
        .prop_map(str::to_owned),
        1 => Just(extra.to_owned()),
    ];
    proptest::collection::vec(atoms, 0..6).prop_map(|v| v.concat())
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => piece(""),
        6 => prop_oneof![
            Just("[::1]"), Just("[2001:DB8:0:0::7]"), Just("[0:0:0:0:0:ffff:192.0.2.1]"),
            Just("[v1.Ab]"), Just("192.0.2.1"), Just("xn--99zt52a.example"),
            Just("XN--RSUM-BPAD.Example"), Just("Résumé.example"), Just("r%C3%A9sum%C3%A9.example"),
            Just("www.Example.com"), Just("WWW.www2.example.com"), Just("example.com."),
            Just("localhost"), Just("LOCALHOST"), Just(""), Just("a%2Eb"), Just("a,b(c)"),
            Just("xn--a.example"), Just("%FC.example"), Just("a%2Fb"),
        ]
        .prop_map(str::to_owned),
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        piece("/?"),
        proptest::collection::vec("(JSESSIONID|sid|[a-c])(=[0-9a-z]{0,2})?", 0..5)
            .prop_map(|v| v.join("&")),
    ]
}

/// A generated IRI reference (absolute or relative), as text that parses.
fn iri() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("http".to_owned()),
        Just("HTTP".to_owned()),
        Just("https".to_owned()),
        Just("file".to_owned()),
        Just("ftp".to_owned()),
        Just("ws".to_owned()),
        "[a-zA-Z][a-zA-Z0-9+.-]{0,5}",
    ];
    let port = prop_oneof![
        "[0-9]{0,5}",
        Just("80".to_owned()),
        Just("0080".to_owned()),
        Just("443".to_owned()),
        Just("000".to_owned()),
    ];
    let authority = (
        proptest::option::of(piece(":")),
        host(),
        proptest::option::of(port),
    );
    let seg = prop_oneof![
        4 => piece(":@"),
        1 => prop_oneof![
            Just("."), Just(".."), Just("%2E"), Just("%2e%2E"), Just("a;jsessionid=X"),
            Just("index.html"), Just(""),
        ]
        .prop_map(str::to_owned),
    ];
    (
        proptest::option::weighted(0.85, scheme),
        proptest::option::weighted(0.8, authority),
        any::<bool>(),
        proptest::collection::vec(seg, 0..5),
        proptest::option::of(query()),
        proptest::option::of(piece("/?")),
    )
        .prop_map(|(scheme, auth, abs, segs, q, f)| common::assemble(scheme, auth, abs, segs, q, f))
}

fn rules() -> Arc<Rules> {
    Arc::new(
        Rules::from_toml(
            r#"
            version = 1
            sort_query = true
            remove_params = ["jsessionid", "sid"]
            strip_www = true
            index_files = ["index.html"]
            "#,
        )
        .expect("rules"),
    )
}

/// Every option set the properties run under (the rung is set per check).
fn option_sets() -> Vec<NormalizeOptions> {
    let mut v = Vec::new();
    for nfc in [false, true] {
        for r in [None, Some(rules())] {
            v.push(NormalizeOptions {
                nfc,
                rules: r,
                ..Default::default()
            });
        }
    }
    v
}

fn key(s: &str, o: &NormalizeOptions, rung: Rung, form: KeyForm) -> Option<String> {
    let iri = IriRef::parse(s).ok()?;
    let o = NormalizeOptions {
        rung,
        form,
        ..o.clone()
    };
    normalize(&iri, &o).ok()
}

/// Checks every property on one input; returns a description of the first failure.
fn check(s: &str) -> Result<(), String> {
    let Ok(iri) = IriRef::parse(s) else {
        return Ok(());
    };
    for o in option_sets() {
        let ctx = |what: &str, rung: Rung| {
            format!(
                "{what} at {rung} (nfc={}, rules={}) for {s:?}",
                o.nfc,
                o.rules.is_some()
            )
        };
        let mut below: Option<String> = None;
        // A fixed point propagates down (the pipeline skips the rungs below a link that is its
        // own key): below the highest rung whose uri key is the input, every uri key is too.
        let uris: Vec<Option<String>> = Rung::ALL
            .iter()
            .map(|&l| key(s, &o, l, KeyForm::Uri))
            .collect();
        if let Some(top) = uris.iter().rposition(|k| k.as_deref() == Some(s))
            && let Some(i) = uris[..top].iter().position(|k| k.as_deref() != Some(s))
        {
            return Err(ctx(
                &format!(
                    "fixed point at {} but not here: {:?}",
                    Rung::ALL[top],
                    uris[i]
                ),
                Rung::ALL[i],
            ));
        }
        // One climb to each rung gives the keys each rung gives alone, and its fast path
        // (`fixed_point`) answers only for a fixed point.
        for top in Rung::ALL {
            for form in [KeyForm::Uri, KeyForm::Iri, KeyForm::Surt] {
                let at = NormalizeOptions {
                    rung: top,
                    form,
                    ..o.clone()
                };
                let mut c = Climb::default();
                let climbed = climb_str(s, InputMode::Strict, &at, &mut c);
                let alone = key(s, &o, top, form);
                if climbed.is_ok() != alone.is_some()
                    || (alone.is_some() && alone.as_deref() != Some(c.top()))
                {
                    return Err(ctx(
                        &format!(
                            "climb top {:?} ({climbed:?}) != {alone:?} in {form}",
                            c.top()
                        ),
                        top,
                    ));
                }
                if alone.is_none() {
                    continue;
                }
                for (i, rung) in Rung::ALL
                    .into_iter()
                    .enumerate()
                    .take_while(|(_, r)| *r <= top)
                {
                    if c.key(rung) != uris[i].as_deref() {
                        return Err(ctx(
                            &format!("climb to {top} gives {:?}, not {:?}", c.key(rung), uris[i]),
                            rung,
                        ));
                    }
                    let changed = i > 0 && uris[i] != uris[i - 1];
                    if c.changed(rung) != changed {
                        return Err(ctx(
                            &format!("climb to {top}: changed() is {}", c.changed(rung)),
                            rung,
                        ));
                    }
                }
                if c.key(top).is_none()
                    || (top < Rung::Protocol && c.key(Rung::ALL[top as usize + 1]).is_some())
                {
                    return Err(ctx("climb has keys above its top or none at it", top));
                }
                if let Some(k) = fixed_point(s, InputMode::Strict, &at)
                    && (Some(k) != uris[top as usize].as_deref()
                        || uris[..top as usize].iter().any(|u| u.as_deref() != Some(s)))
                {
                    return Err(ctx(&format!("fixed_point says {k:?}"), top));
                }
            }
        }
        for rung in Rung::ALL {
            let uri = key(s, &o, rung, KeyForm::Uri);
            if rung == Rung::String && uri.as_deref() != Some(s) {
                return Err(ctx("string rung is not the identity", rung));
            }
            let Some(uri) = uri else {
                // Only relative references have no key, and only from the scheme rung up.
                if iri.is_absolute() || rung < Rung::Scheme {
                    return Err(ctx("no key", rung));
                }
                continue;
            };
            // Reading the text (which may take the fused fast path before any parse) gives the
            // key of the parsed reference.
            let by_text = linksieve_iri::normalize_str(
                s,
                InputMode::Strict,
                &NormalizeOptions {
                    rung,
                    form: KeyForm::Uri,
                    ..o.clone()
                },
            );
            if by_text.as_ref().ok() != Some(&uri) {
                return Err(ctx(
                    &format!("normalize_str gives {by_text:?}, not {uri:?}"),
                    rung,
                ));
            }
            if rung >= Rung::Syntax
                && (!uri.is_ascii() || IriRef::parse_with(uri.as_str(), Grammar::Uri).is_err())
            {
                return Err(ctx(&format!("uri key {uri:?} is not a URI"), rung));
            }
            // Idempotence of the uri form.
            let again = key(&uri, &o, rung, KeyForm::Uri);
            if again.as_deref() != Some(uri.as_str()) {
                return Err(ctx(
                    &format!("uri not idempotent: {uri:?} -> {again:?}"),
                    rung,
                ));
            }
            // Monotonicity by composition: this rung sees only the key of the rung below.
            if let Some(b) = &below {
                let via = key(b, &o, rung, KeyForm::Uri);
                if via.as_deref() != Some(uri.as_str()) {
                    return Err(ctx(&format!("n(n_below) {via:?} != n {uri:?}"), rung));
                }
            }
            below = Some(uri.clone());
            // The iri form: an IRI, idempotent, and the same IRI as the uri key.
            let ik = key(s, &o, rung, KeyForm::Iri).ok_or_else(|| ctx("no iri key", rung))?;
            let ii = key(&ik, &o, rung, KeyForm::Iri);
            if ii.as_deref() != Some(ik.as_str()) {
                return Err(ctx(&format!("iri not idempotent: {ik:?} -> {ii:?}"), rung));
            }
            if rung >= Rung::Syntax {
                let iu = key(&ik, &o, rung, KeyForm::Uri);
                if iu.as_deref() != Some(uri.as_str()) {
                    return Err(ctx(
                        &format!("iri key {ik:?} has uri key {iu:?}, not {uri:?}"),
                        rung,
                    ));
                }
            }
            // The surt form: a function of the uri key, and one-to-one.
            let sk = key(s, &o, rung, KeyForm::Surt).ok_or_else(|| ctx("no surt key", rung))?;
            let ss = key(&uri, &o, rung, KeyForm::Surt);
            if ss.as_deref() != Some(sk.as_str()) {
                return Err(ctx(&format!("surt(n(n_uri)) {ss:?} != {sk:?}"), rung));
            }
            if from_surt(&sk).as_deref() != Some(uri.as_str()) {
                return Err(ctx(&format!("from_surt({sk:?}) != {uri:?}"), rung));
            }
        }
    }
    Ok(())
}

/// Variants of an IRI for the direct monotonicity check: equivalent at some rung or not.
fn variant(s: &str, op: u8) -> String {
    match op % 8 {
        0 => s.to_ascii_uppercase(),
        1 => s.replacen('a', "%61", 1),
        2 => s.replacen("/", "/./", 1),
        3 => format!("{s}#"),
        4 => s.replacen("http:", "HTTP:", 1),
        5 => s.replacen("//example.com", "//example.com:80", 1),
        6 => s.replacen("%7e", "~", 1),
        _ => s.replacen("e", "%65", 1),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn ladder_properties_on_generated_iris(s in iri()) {
        prop_assert_eq!(check(&s), Ok(()));
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,40}", t in proptest::collection::vec(any::<char>(), 0..40)) {
        let t: String = t.into_iter().collect();
        for text in [&s, &t] {
            let _ = from_surt(text);
            for mode in [InputMode::Strict, InputMode::Leiri, InputMode::Web] {
                for o in option_sets() {
                    for rung in Rung::ALL {
                        for form in [KeyForm::Uri, KeyForm::Iri, KeyForm::Surt] {
                            let o = NormalizeOptions { rung, form, ..o.clone() };
                            let _ = linksieve_iri::normalize_str(text, mode, &o);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn equal_at_a_rung_stays_equal_above(s in iri(), op in any::<u8>()) {
        let t = variant(&s, op);
        for o in option_sets() {
            let mut equal = false;
            for rung in Rung::ALL {
                let (a, b) = (key(&s, &o, rung, KeyForm::Uri), key(&t, &o, rung, KeyForm::Uri));
                if a.is_none() || b.is_none() {
                    break;
                }
                if equal {
                    prop_assert_eq!(&a, &b, "{} and {} equal below {}", s, t, rung);
                }
                equal = a == b;
            }
        }
    }
}

/// Every string of the vector files (inputs, expected values, bases) that parses.
#[test]
fn ladder_properties_on_vector_strings() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/normalize");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("testdata/normalize")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(&f).expect("read").lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for field in ["input", "expected", "base"] {
                let Some(s) = v[field].as_str() else { continue };
                // Bare hosts (the IDNA vectors) are checked as hosts of http IRIs.
                let candidates = [s.to_owned(), format!("http://{s}/")];
                for c in candidates {
                    if IriRef::parse(&c).is_ok() {
                        checked += 1;
                        if let Err(e) = check(&c) {
                            failures.push(e);
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 5000, "checked {checked}");
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}

use common::work::Work;

/// Pathological inputs cost linear work at every rung: 4x the input must not cost anything like
/// 16x the instructions (counted under callgrind: see `common/work.rs`; sorting the query is
/// n log n, inside the bound). The keys must not grow beyond a constant factor of the input.
#[test]
#[ignore = "counts instructions under valgrind; scripts/test.sh runs it"]
fn pathological_inputs_scale_linearly() {
    let mut work = Work::count("ladder_properties::pathological_inputs_scale_linearly");
    type Make = Box<dyn Fn(usize) -> String>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "../ path",
            Box::new(|n| format!("HTTP://h/{}", "../".repeat(n))),
        ),
        (
            "%2e%2E segments",
            Box::new(|n| format!("http://h/{}", "a/%2e%2E/".repeat(n))),
        ),
        (
            "% runs",
            Box::new(|n| format!("http://h/{}", "%25%7e%c3%a9".repeat(n))),
        ),
        (
            "non-ASCII",
            Box::new(|n| format!("http://h/{}", "é納e\u{301}".repeat(n))),
        ),
        (
            "long host",
            Box::new(|n| format!("http://{}x/", "Ab.".repeat(n))),
        ),
        (
            "empty labels",
            Box::new(|n| format!("http://{}/", ".".repeat(n))),
        ),
        (
            "query params",
            Box::new(|n| format!("http://h/?{}", "b=1&a=2&sid=3&".repeat(n))),
        ),
        (
            "path params",
            Box::new(|n| format!("http://h/{}", "x;jsessionid=1;y=2/".repeat(n))),
        ),
        (
            "www labels",
            Box::new(|n| format!("http://{}example.com/", "www.".repeat(n))),
        ),
        (
            "port zeros",
            Box::new(|n| format!("http://h:{}80/", "0".repeat(n))),
        ),
    ];
    let opts: Vec<NormalizeOptions> = [KeyForm::Uri, KeyForm::Iri, KeyForm::Surt]
        .into_iter()
        .flat_map(|form| {
            [
                NormalizeOptions {
                    rung: Rung::Syntax,
                    form,
                    ..Default::default()
                },
                NormalizeOptions {
                    rung: Rung::Scheme,
                    form,
                    nfc: true,
                    ..Default::default()
                },
                NormalizeOptions {
                    rung: Rung::Protocol,
                    form,
                    rules: Some(rules()),
                    ..Default::default()
                },
            ]
        })
        .collect();
    for (name, make) in cases {
        work.linear(name, 5_000, make, |s: &String| {
            let r = IriRef::parse(s).expect(name);
            for o in &opts {
                let k = normalize(&r, o).expect(name);
                assert!(
                    k.len() <= 9 * s.len() + 64,
                    "{name}: key grew to {}",
                    k.len()
                );
                std::hint::black_box(k);
            }
        });
    }
    work.finish();
}

#[test]
fn web_and_leiri_input_feed_the_ladder() {
    let o = NormalizeOptions::default();
    let k = |s, m| linksieve_iri::normalize_str(s, m, &o).unwrap();
    assert_eq!(k("http://h/a b", InputMode::Leiri), "http://h/a%20b");
    assert_eq!(k(" HTTP://H/a b ", InputMode::Web), "http://h/a%20b");
}

//! The fused general path ([`rewrite`]) against the general path it stands in for
//! ([`general`] after the parser): the same key, byte for byte, at every rung, in every form,
//! in strict and LEIRI mode, with and without NFC, on every URL of the kasztp list and of its
//! non-normal twin (`benches/make-non-normal.py`), on every vector input and its one-byte
//! variants, and on generated links; and never a key for text that does not parse.

use super::super::climb::general;
use super::super::tests::{variants, vector_inputs};
use super::super::*;
use super::rewrite;
use proptest::prelude::*;

/// The key as the ladder gave it before the fused path: parse, then [`normalize`].
fn old_key(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
) -> Result<String, NormalizeError> {
    with_parsed(input, mode, opts.rung, |iri| normalize(&iri, opts))
}

/// [`climb_str`] (the fused climb where it covers `input`) against the climb of the parsed
/// reference (the general climb): the same key at every rung, the same changes, the same top
/// key, or the same error.
fn check_climb(input: &str, mode: InputMode, opts: &NormalizeOptions) {
    let (mut got, mut want) = (Climb::default(), Climb::default());
    let r_got = climb_str(input, mode, opts, &mut got);
    let r_want = with_parsed(input, mode, opts.rung, |iri| climb(&iri, opts, &mut want));
    let at = format!(
        "{input:?} {mode:?} {} {} nfc {}",
        opts.rung, opts.form, opts.nfc
    );
    assert_eq!(r_got, r_want, "{at}");
    assert_eq!(got.rung(), want.rung(), "{at}");
    for rung in Rung::ALL {
        assert_eq!(got.key(rung), want.key(rung), "{at}: key at {rung}");
        assert_eq!(
            got.changed(rung),
            want.changed(rung),
            "{at}: changed at {rung}"
        );
    }
    assert_eq!(got.top(), want.top(), "{at}");
}

/// Checks `input` at every rung, form, mode and NFC setting.
fn check(input: &str, all_forms: bool) {
    for nfc in [false, true] {
        // The fused path itself, on normal and non-normal text alike.
        for rung in [Rung::Syntax, Rung::Scheme, Rung::Protocol] {
            let mut out = String::from("k");
            if rewrite(input, rung, nfc, &mut out) {
                let iri = IriRef::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
                assert!(iri.is_absolute(), "{input:?}");
                let want = general(iri, rung, nfc, None, |_, _| {});
                assert_eq!(&out[1..], want.as_str(), "{input:?} at {rung}, nfc {nfc}");
            } else {
                assert_eq!(out, "k", "{input:?}");
            }
        }
        for mode in [InputMode::Strict, InputMode::Leiri] {
            for rung in Rung::ALL {
                let forms: &[KeyForm] = if all_forms {
                    &[KeyForm::Uri, KeyForm::Iri, KeyForm::Surt]
                } else {
                    &[KeyForm::Uri]
                };
                for &form in forms {
                    let opts = NormalizeOptions {
                        rung,
                        form,
                        nfc,
                        ..Default::default()
                    };
                    let want = old_key(input, mode, &opts);
                    let got = normalize_str(input, mode, &opts);
                    assert_eq!(got, want, "{input:?} {mode:?} {rung} {form} nfc {nfc}");
                    let mut buf = String::from("k=");
                    let into = normalize_str_into(input, mode, &opts, &mut buf);
                    match &want {
                        Ok(k) => assert_eq!(buf, format!("k={k}"), "{input:?}"),
                        Err(_) => assert_eq!(buf, "k=", "{input:?}"),
                    }
                    assert_eq!(into.err(), want.err());
                    check_climb(input, mode, &opts);
                }
            }
        }
    }
}

fn list(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/corpora/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    text.lines().map(|l| l.trim_end().to_owned()).collect()
}

#[test]
fn kasztp_lists() {
    let real = list("url-list-kasztp.txt");
    let non_normal = list("url-list-kasztp-non-normal.txt");
    assert_eq!(real.len(), non_normal.len());
    let mut fused_keys = 0;
    for (a, b) in real.iter().zip(&non_normal) {
        assert_ne!(a, b, "the non-normal list changes every URL");
        check(a, false);
        check(b, false);
        let mut out = String::new();
        fused_keys += usize::from(rewrite(b, Rung::Scheme, false, &mut out));
    }
    // Nearly every non-normal link takes the fused path.
    assert!(fused_keys * 100 > non_normal.len() * 95, "{fused_keys}");
}

#[test]
fn vectors_and_their_variants() {
    let inputs = vector_inputs();
    assert!(inputs.len() > 500, "{}", inputs.len());
    for s in &inputs {
        check(s, true);
    }
    for s in [
        "HTTP://Example.COM:80/a/./b/../c?%7e#F",
        "https://h:0443/.%2E/%2e?q",
        "x://H:/a/..",
        "ftp://Host:021/%41%2f",
        "http://h",
    ] {
        check(s, true);
        for v in variants(s) {
            check(&v, true);
        }
    }
}

#[test]
fn redirects_apply_to_fused_keys() {
    let r = Redirects::parse(
        "http://h/a\thttp://h/a/\n",
        InputMode::Strict,
        &NormalizeOptions::default(),
    );
    assert_eq!(r.stats().learned, 1);
    let opts = NormalizeOptions {
        rung: Rung::Protocol,
        redirects: Some(Arc::new(r)),
        ..Default::default()
    };
    for s in ["HTTP://H:80/a#x", "http://h/./a", "http://h/a"] {
        let want = old_key(s, InputMode::Strict, &opts);
        assert_eq!(normalize_str(s, InputMode::Strict, &opts), want, "{s}");
        let mut buf = String::new();
        normalize_str_into(s, InputMode::Strict, &opts, &mut buf).unwrap();
        assert_eq!(Ok(buf), want, "{s}");
        check_climb(s, InputMode::Strict, &opts);
    }
}

/// Links of the fused path's shape and just outside it: scheme and host case, ports, dot
/// segments, percent-escapes in every case, and the odd byte that sends a link elsewhere.
fn link() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("http"),
        Just("HTTP"),
        Just("Https"),
        Just("ftp"),
        Just("WS"),
        Just("file"),
        Just("x+Y.z-"),
        Just("urn"),
        Just("1a"),
    ];
    let host = proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("B"),
            Just("."),
            Just("-"),
            Just("xn--"),
            Just("XN--"),
            Just("_"),
            Just("%41"),
            Just("!"),
            Just("@"),
            Just("u:p@"),
            Just("["),
            Just("é"),
            Just("0"),
        ],
        0..6,
    );
    let port = proptest::option::of(prop_oneof![
        Just(""),
        Just("80"),
        Just("0080"),
        Just("443"),
        Just("0"),
        Just("000"),
        Just("21"),
        Just("65536"),
        Just("99999999"),
        Just("8a"),
    ]);
    let atom = prop_oneof![
        Just("a"),
        Just("Z"),
        Just("."),
        Just(".."),
        Just("/"),
        Just("%2e"),
        Just("%2E"),
        Just("%7e"),
        Just("%7E"),
        Just("%2f"),
        Just("%41"),
        Just("%c3%a9"),
        Just("%FC"),
        Just("%"),
        Just("%4"),
        Just("%zz"),
        Just(":"),
        Just("@"),
        Just("?"),
        Just("#"),
        Just(";"),
        Just("["),
        Just(" "),
        Just("é"),
        Just("~"),
    ];
    let tail = proptest::collection::vec(atom, 0..10);
    (scheme, host, port, tail).prop_map(|(s, h, p, t)| {
        let port = p.map(|p| format!(":{p}")).unwrap_or_default();
        let tail = t.concat();
        let slash = if tail.starts_with(['/', '?', '#']) || tail.is_empty() {
            ""
        } else {
            "/"
        };
        format!("{s}://{}{port}{slash}{tail}", h.concat())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn generated_links(s in link()) {
        check(&s, true);
    }
}

fn key(s: &str, rung: Rung) -> Option<String> {
    let mut out = String::from("k=");
    rewrite(s, rung, false, &mut out).then(|| out[2..].to_owned())
}

#[test]
fn common_shapes() {
    let k = |s| key(s, Rung::Scheme);
    assert_eq!(
        k("HTTP://Example.COM:80").as_deref(),
        Some("http://example.com/")
    );
    assert_eq!(
        k("https://h:0443/a/./b/../c").as_deref(),
        Some("https://h/a/c")
    );
    assert_eq!(
        k("https://h:00/%7e%2f?%41#%3a").as_deref(),
        Some("https://h:0/~%2F?A#%3A")
    );
    assert_eq!(k("http://h/a/..").as_deref(), Some("http://h/"));
    assert_eq!(k("http://h/.%2E/%2e").as_deref(), Some("http://h/"));
    assert_eq!(k("x://H:/a").as_deref(), Some("x://h/a"));
    assert_eq!(
        key("HTTP://H:80/#f", Rung::Syntax).as_deref(),
        Some("http://h:80/#f")
    );
    assert_eq!(
        key("http://h/?#f", Rung::Protocol).as_deref(),
        Some("http://h/?")
    );
    for other in [
        "http://u@h/",
        "http://[::1]/",
        "http://xn--a.b/",
        "http://h/é",
        "http://h/%zz",
        "http://h/#a#b",
        "file://localhost/",
        "http://h/a b",
        "h:/a",
        "http://h:8a/",
    ] {
        assert_eq!(k(other), None, "{other}");
    }
    let mut out = String::from("x");
    assert!(!rewrite("http://h/%4", Rung::Scheme, false, &mut out));
    assert_eq!(out, "x");
}

//! Conformance: every case of kind `resolve`, `to-uri`, `to-iri`, `idna` and `whatwg-parse` in
//! `testdata/normalize/*.jsonl`. A case either passes or is listed, with its reason, in
//! `testdata/normalize/expectations.tsv`; a listed case that passes fails the test too, so the
//! list stays exact.

use linksieve_iri::{
    HostMapping, IdnaProfile, IriRef, Strictness, ToUriOptions, WebHost, domain_to_ascii,
    parse_web, web_to_iri,
};
use serde_json::Value;

use crate::common;
use std::collections::{BTreeMap, BTreeSet};

use common::testdata;

struct Case {
    id: String,
    file: String,
    kind: String,
    op: String,
    input: String,
    base: Option<String>,
    expected: Option<String>,
    encoding: Option<String>,
}

fn load(kinds: &[&str]) -> Vec<Case> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(testdata())
        .expect("testdata/normalize")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read vectors");
        for line in text.lines() {
            let v: Value = serde_json::from_str(&usv(line)).expect("valid JSON line");
            let kind = v["kind"].as_str().unwrap_or_default().to_owned();
            if !kinds.contains(&kind.as_str()) {
                continue;
            }
            let s = |k: &str| v[k].as_str().map(str::to_owned);
            out.push(Case {
                id: s("id").expect("id"),
                file: f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                kind,
                op: s("op").unwrap_or_default(),
                input: s("input").expect("input"),
                base: s("base"),
                expected: s("expected"),
                encoding: s("encoding"),
            });
        }
    }
    out
}

/// WPT inputs may hold lone surrogates (`\uD800`). Browsers turn them into U+FFFD when the
/// string becomes a USVString, before URL parsing; do the same so the JSON parses.
fn usv(line: &str) -> String {
    let b = line.as_bytes();
    let sur = |i: usize| -> Option<u16> {
        let h = line.get(i + 2..i + 6)?;
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(h, 16).ok())
            .flatten()
            .filter(|v| (0xD800..0xE000).contains(v))
    };
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push_str("\\\\");
            i += 2;
            continue;
        }
        if let Some(hi) = sur(i) {
            if (0xD800..0xDC00).contains(&hi) && sur(i + 6).is_some_and(|lo| lo >= 0xDC00) {
                out.push_str(&line[i..i + 12]);
                i += 12;
            } else {
                out.push_str("\\uFFFD");
                i += 6;
            }
            continue;
        }
        let ch = line[i..].chars().next().unwrap_or_default();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// `id -> reason` from the expectations file.
fn expectations() -> BTreeMap<String, String> {
    common::expectations("expectations.tsv")
}

/// What our implementation gives for a case: `Ok(text)` or `Err(reason)` for a rejection.
fn run(c: &Case) -> Result<String, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    match c.kind.as_str() {
        "resolve" => {
            let base = IriRef::parse(c.base.as_deref().unwrap_or_default()).map_err(|x| e(&x))?;
            let r = IriRef::parse(&c.input).map_err(|x| e(&x))?;
            // RFC 3986 5.4.2 and uriparser's backward-compatibility flag: non-strict resolution.
            let strictness = if c.op == "non-strict resolution" || c.op == "uriAddBaseUriEx(true)" {
                Strictness::NonStrict
            } else {
                Strictness::Strict
            };
            Ok(base
                .resolve_with(&r, strictness)
                .map_err(|x| e(&x))?
                .into_inner())
        }
        "to-uri" if c.op == "whatwg-percent-encode-query" => {
            let enc = encoding_rs::Encoding::for_label(
                c.encoding.as_deref().unwrap_or("utf-8").as_bytes(),
            )
            .ok_or("unknown encoding")?;
            let url = parse_web(
                &format!("https://doesnotmatter.invalid/?{}", c.input),
                None,
                Some(enc),
            )
            .map_err(|x| e(&x))?;
            Ok(url.query().unwrap_or_default().to_owned())
        }
        "to-uri" => {
            let iri = IriRef::parse(&c.input).map_err(|x| e(&x))?;
            Ok(iri
                .to_uri(&ToUriOptions::default())
                .map_err(|x| e(&x))?
                .into_inner())
        }
        "to-iri" => Ok(IriRef::parse(&c.input)
            .map_err(|x| e(&x))?
            .to_iri()
            .into_inner()),
        "idna" => Ok(domain_to_ascii(&c.input, IdnaProfile::Web)
            .map_err(|x| e(&x))?
            .into_owned()),
        "whatwg-parse" if c.op == "ipv4-host-to-dotted-decimal" => {
            // A bare domain: WHATWG host parsing, as "domain to ASCII" / IPv4 parsing run in it.
            let url = parse_web(&format!("http://{}/", c.input), None, None).map_err(|x| e(&x))?;
            let host = url.host_str().unwrap_or_default().to_owned();
            if !matches!(url.host(), Some(WebHost::Ipv4(_))) {
                return Err("not an IPv4 address".into());
            }
            Ok(host)
        }
        "whatwg-parse" => {
            let base = match &c.base {
                Some(b) => Some(parse_web(b, None, None).map_err(|x| format!("base: {x}"))?),
                None => None,
            };
            let url = parse_web(&c.input, base.as_ref(), None).map_err(|x| e(&x))?;
            // Every web address must map into the IRI model (3987bis 6.2).
            let iri = web_to_iri(&url).map_err(|x| format!("web_to_iri({}): {x}", url.as_str()))?;
            assert!(iri.as_str().is_ascii());
            Ok(url.as_str().to_owned())
        }
        other => panic!("unexpected kind {other}"),
    }
}

fn conformance(kinds: &[&str]) {
    let cases = load(kinds);
    assert!(!cases.is_empty());
    let listed = expectations();
    let mut per_file: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for c in &cases {
        assert!(seen.insert(c.id.clone()), "duplicate id {}", c.id);
        let got = run(c);
        let pass = match (&got, &c.expected) {
            (Ok(g), Some(x)) => g == x,
            (Err(_), None) => true,
            _ => false,
        };
        let entry = per_file
            .entry((c.file.clone(), c.kind.clone()))
            .or_default();
        entry.1 += 1;
        if pass {
            entry.0 += 1;
        }
        match (pass, listed.contains_key(&c.id)) {
            (true, true) => problems.push(format!(
                "{}: listed in expectations.tsv but passes now; remove it",
                c.id
            )),
            (false, false) => problems.push(format!(
                "{}: input {:?} base {:?}: expected {:?}, got {:?}",
                c.id, c.input, c.base, c.expected, got
            )),
            _ => {}
        }
    }
    for ((file, kind), (pass, total)) in &per_file {
        println!(
            "{file} [{kind}]: {pass}/{total} pass ({:.1}%)",
            100.0 * *pass as f64 / *total as f64
        );
    }
    common::assert_no_problems(&problems);
}

#[test]
fn resolve_vectors() {
    conformance(&["resolve"]);
}

#[test]
fn to_uri_to_iri_vectors() {
    conformance(&["to-uri", "to-iri"]);
}

#[test]
fn idna_vectors() {
    conformance(&["idna"]);
}

#[test]
fn whatwg_vectors() {
    conformance(&["whatwg-parse"]);
}

#[test]
fn expectations_name_real_cases() {
    let all: BTreeSet<String> = load(&["resolve", "to-uri", "to-iri", "idna", "whatwg-parse"])
        .into_iter()
        .map(|c| c.id)
        .collect();
    let other: BTreeSet<String> = load(&[
        "normalize-syntax",
        "normalize-scheme",
        "canonicalize-aggressive",
    ])
    .into_iter()
    .map(|c| c.id)
    .collect();
    for id in expectations().keys() {
        assert!(
            all.contains(id) || other.contains(id),
            "expectations.tsv lists unknown case {id}"
        );
    }
}

#[test]
fn punycode_mapping_matches_whatwg_on_valid_hosts() {
    // to_uri --host punycode (UTS 46 with STD3 rules) agrees with WHATWG's domain-to-ASCII on
    // every IDNA vector that both accept.
    let opts = ToUriOptions {
        host: HostMapping::Punycode,
        ..Default::default()
    };
    let mut compared = 0;
    for c in load(&["idna"]) {
        let text = format!("http://{}/", c.input);
        let (Some(expected), Ok(iri)) = (&c.expected, IriRef::parse(&text)) else {
            continue;
        };
        if let Ok(uri) = iri.to_uri(&opts) {
            let host = uri.host().unwrap_or_default();
            if host.is_ascii() && !host.contains('%') {
                compared += 1;
                assert!(
                    host.eq_ignore_ascii_case(expected) || c.input.is_ascii(),
                    "{}: {host} vs {expected}",
                    c.id
                );
            }
        }
    }
    assert!(compared > 100, "compared {compared}");
}

//! The profiles on their peers' own test vectors (`testdata/normalize`): each case either passes
//! or is listed, with its reason, in `testdata/normalize/profile-expectations/<profile>.tsv`; a
//! listed case that passes fails the test too, so the lists stay exact. Each profile must pass
//! at least 99% of its cases.
//!
//! Which vectors belong to which profile ([`profile_of`]): w3lib's `canonicalize_url` asserts
//! (their keyword arguments become profile options), urlcanon's `semantic_precise` and
//! `aggressive` tables, the SURT-key cases of the `surt` package and of urlcanon's `surt.json`
//! (for `surt-ia`), Google's published Safe Browsing examples (for `gsb`), and crawler-commons'
//! own Java tests. Not profile cases: those that test one internal function of a library
//! (`attemptIPFormats`, `alphaReorderQuery`...), the `surt` case that passes its own Python
//! function as the canonicalizer, and urlcanon's Google canonicalizer cases (a Python port of
//! the Safe Browsing v2 text, which kept the port; `docs/profiles/gsb.md`).
//!
//! The tests of the Go Safe Browsing client (`safebrowsing-urls.jsonl`) are run for `gsb` on
//! their own ([`gsb_on_the_go_clients_tests`]): they test its internal `canonicalURL`, which
//! drops the query that its lookups add back, so they are a second check of the rules that
//! Google's examples leave open, each difference listed, and not the profile's reference.

use linksieve_profiles::{Profile, ProfileKind};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::common;
use common::{expectations, testdata};

/// The profile a case of `file` with `op` tests, as a `--profile` spec; `Some(Err(why))` for a
/// case of the profile's library that needs an option the profile does not offer (it fails,
/// and must be listed), `None` for a case that is not a profile case.
fn profile_of(file: &str, op: &str) -> Option<(ProfileKind, Result<String, String>)> {
    let kwargs = |prefix: &str, name: &str| -> Result<String, String> {
        let args = op.strip_prefix(prefix).unwrap_or_default();
        let args = args.trim_start_matches('(').trim_end_matches(')');
        let mut spec = name.to_owned();
        let mut sep = ':';
        for kv in args.split(", ").filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| kv.to_owned())?;
            let v = match v {
                "True" => "true".to_owned(),
                "False" => "false".to_owned(),
                v if v.starts_with('\'') => v.trim_matches('\'').to_owned(),
                _ => return Err(format!("argument {kv}")),
            };
            spec.push_str(&format!("{sep}{k}={v}"));
            sep = ',';
        }
        Ok(spec)
    };
    use ProfileKind::*;
    Some(match file {
        "w3lib-canonicalize-url.jsonl" => (W3lib, kwargs("w3lib.url.canonicalize_url", "w3lib")),
        "urlcanon-semantic-precise.jsonl" => (UrlcanonSemantic, Ok("urlcanon-semantic".into())),
        "urlcanon-aggressive.jsonl" => (UrlcanonAggressive, Ok("urlcanon-aggressive".into())),
        // a Python function given as the canonicalizer: not the IA key
        "surt-python.jsonl" if op.contains("canonicalizer=") => return None,
        "surt-python.jsonl" if op.starts_with("surt.surt") => {
            (SurtIa, kwargs("surt.surt", "surt-ia"))
        }
        "urlcanon-surt.jsonl" if op.starts_with("surt (IA default") => {
            (SurtIa, Ok("surt-ia".into()))
        }
        "safebrowsing-published.jsonl" | "safebrowsing-urls.jsonl" => (Gsb, Ok(op.to_owned())),
        "crawler-commons-basic-url-normalizer.jsonl" => (CrawlerCommons, Ok(op.to_owned())),
        _ => return None,
    })
}

/// The vector files that hold each profile's reference cases (the files [`profile_of`] names,
/// but the Go client's tests).
const PROFILE_FILES: [&str; 7] = [
    "w3lib-canonicalize-url.jsonl",
    "urlcanon-semantic-precise.jsonl",
    "urlcanon-aggressive.jsonl",
    "surt-python.jsonl",
    "urlcanon-surt.jsonl",
    "safebrowsing-published.jsonl",
    "crawler-commons-basic-url-normalizer.jsonl",
];

/// A case's input bytes (`input_hex` where the input is not UTF-8).
fn input_bytes(v: &Value) -> Vec<u8> {
    match v["input_hex"].as_str() {
        Some(hex) => (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect(),
        None => v["input"].as_str().expect("input").as_bytes().to_vec(),
    }
}

/// Runs every case of one profile in `files`, against the expectations file `listed` (in
/// `profile-expectations/`); returns (passed, total, problems).
fn run(kind: ProfileKind, files: &[&str], listed: &str) -> (usize, usize, Vec<String>) {
    let listed = expectations(&format!("profile-expectations/{listed}"));
    let mut seen = BTreeMap::new();
    let (mut passed, mut total, mut problems) = (0, 0, Vec::new());
    for &name in files {
        let f = testdata().join(name);
        for line in std::fs::read_to_string(&f).expect("vectors").lines() {
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            let op = v["op"].as_str().unwrap_or_default();
            let Some((k, spec)) = profile_of(name, op) else {
                continue;
            };
            if k != kind {
                continue;
            }
            let id = v["id"].as_str().expect("id").to_owned();
            assert!(seen.insert(id.clone(), ()).is_none(), "{id} twice");
            total += 1;
            let expected = v["expected"].as_str();
            let got = spec.and_then(|s| {
                let p = Profile::parse(&s).map_err(|e| e.to_string())?;
                let mut out = String::new();
                match p.canonicalize_bytes_into(&input_bytes(&v), &mut out) {
                    Ok(()) => Ok(Some(out)),
                    Err(_) => Ok(None),
                }
            });
            let ok = matches!(&got, Ok(g) if g.as_deref() == expected);
            match (ok, listed.contains_key(&id)) {
                (true, false) => passed += 1,
                (true, true) => problems.push(format!("{id}: listed, but passes")),
                (false, true) => {}
                (false, false) => problems.push(format!(
                    "{id}: {:?} -> got {got:?}, expected {expected:?}",
                    v["input"].as_str().unwrap_or_default()
                )),
            }
        }
    }
    for id in listed.keys() {
        if !seen.contains_key(id) {
            problems.push(format!("{id}: listed, but no such case"));
        }
    }
    (passed, total, problems)
}

/// Each profile: no unlisted failure, no listed pass, at least 99% passed.
fn check(kind: ProfileKind) {
    let listed = format!("{}.tsv", kind.name());
    let (passed, total, problems) = run(kind, &PROFILE_FILES, &listed);
    eprintln!("{kind}: {passed}/{total} vectors pass");
    common::assert_no_problems(&problems);
    assert!(total > 0, "{kind}: no vectors");
    assert!(
        passed * 100 >= total * 99,
        "{kind}: {passed}/{total} pass, under 99%"
    );
}

#[test]
fn w3lib() {
    check(ProfileKind::W3lib);
}

#[test]
fn urlcanon_semantic() {
    check(ProfileKind::UrlcanonSemantic);
}

#[test]
fn urlcanon_aggressive() {
    check(ProfileKind::UrlcanonAggressive);
}

#[test]
fn surt_ia() {
    check(ProfileKind::SurtIa);
}

#[test]
fn crawler_commons() {
    check(ProfileKind::CrawlerCommons);
}

#[test]
fn gsb() {
    check(ProfileKind::Gsb);
}

/// The Go Safe Browsing client's `TestCanonicalURL` table: every case passes but those listed
/// in `profile-expectations/gsb-go.tsv` (where `canonicalURL` drops the query, or writes
/// lower-case hex, and Google's text and examples say otherwise).
#[test]
fn gsb_on_the_go_clients_tests() {
    let (passed, total, problems) =
        run(ProfileKind::Gsb, &["safebrowsing-urls.jsonl"], "gsb-go.tsv");
    eprintln!("gsb: {passed}/{total} of the Go client's cases pass");
    common::assert_no_problems(&problems);
    assert!(total > 0, "no Go client cases");
}

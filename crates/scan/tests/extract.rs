//! The link-extraction conformance suites of testdata/extract (seven peer suites), every case,
//! honouring `modes` and `match: first`. Deliberate differences are listed with a reason per
//! case in testdata/extract/expectations.tsv; the test fails if a listed case passes or an
//! unlisted case fails. Per-suite counts are printed (run with `--nocapture` to see them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use linksieve_scan::{ScanOptions, scan_bytes};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/extract")
}

const SUITES: &[&str] = &[
    "cmark-gfm",
    "linkify",
    "linkify-it",
    "twitter-text",
    "twitter-text-tlds",
    "urlextract",
    "xurls",
];

/// Modes the scanner has an option for (`fuzzy_ip`: bare IPv4 is part of `schemeless`;
/// `any_scheme`: every scheme followed by `//` is taken anyway). `email_no_dot` (linkify's
/// `email_domain_must_have_dot(false)`) has no counterpart: such cases are out of scope.
const SUPPORTED: &[&str] = &[
    "schemeless",
    "email",
    "ascii_only",
    "fuzzy_ip",
    "any_scheme",
];

struct Case {
    id: String,
    input: String,
    expected: Vec<String>,
    modes: Vec<String>,
    first: bool,
}

fn load(suite: &str) -> Vec<Case> {
    let path = dir().join(format!("{suite}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            let strs = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            Case {
                id: v["id"].as_str().unwrap_or_default().to_owned(),
                input: v["input"].as_str().unwrap_or_default().to_owned(),
                expected: strs("expected"),
                modes: strs("modes"),
                first: v["match"].as_str() == Some("first"),
            }
        })
        .collect()
}

fn load_expectations() -> BTreeMap<String, String> {
    let path = dir().join("expectations.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut m = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (id, reason) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("expectations.tsv line {}: want id<TAB>reason", n + 1));
        assert!(
            !reason.trim().is_empty(),
            "expectations.tsv line {}: empty reason",
            n + 1
        );
        assert!(
            m.insert(id.to_owned(), reason.to_owned()).is_none(),
            "duplicate {id}"
        );
    }
    m
}

fn run(case: &Case) -> (bool, Vec<String>) {
    let has = |m: &str| case.modes.iter().any(|x| x == m);
    let opts = ScanOptions {
        schemeless: has("schemeless"),
        email: has("email"),
        ascii_only: has("ascii_only"),
        ..ScanOptions::default()
    };
    let got: Vec<String> = scan_bytes(case.input.as_bytes(), &opts)
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect();
    let ok = if case.first {
        got.first() == case.expected.first()
    } else {
        got == case.expected
    };
    (ok, got)
}

#[test]
fn extract_suites() {
    let expect = load_expectations();
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    let mut report = Vec::new();
    let (mut all_in, mut all_pass) = (0, 0);
    for suite in SUITES {
        let cases = load(suite);
        let (mut in_scope, mut pass_in, mut pass, mut listed) = (0, 0, 0, 0);
        for c in &cases {
            assert!(seen.insert(c.id.clone()), "duplicate id {}", c.id);
            let scoped = c.modes.iter().all(|m| SUPPORTED.contains(&m.as_str()));
            let (ok, got) = run(c);
            in_scope += scoped as usize;
            pass += ok as usize;
            pass_in += (ok && scoped) as usize;
            match (ok, expect.contains_key(&c.id)) {
                (true, true) => problems.push(format!(
                    "{}: listed in expectations.tsv but passes now",
                    c.id
                )),
                (false, false) => problems.push(format!(
                    "{}: input {:?} modes {:?}{}\n    expected {:?}\n    got      {:?}",
                    c.id,
                    c.input,
                    c.modes,
                    if c.first { " (first)" } else { "" },
                    c.expected,
                    got
                )),
                (false, true) => listed += 1,
                (true, false) => {}
            }
        }
        all_in += in_scope;
        all_pass += pass_in;
        report.push(format!(
            "{suite:18} {:5} cases  {pass:5} pass  in scope {pass_in:4}/{in_scope:<4} ({:5.1}%)  listed differences {listed}",
            cases.len(),
            100.0 * pass_in as f64 / in_scope.max(1) as f64
        ));
    }
    for id in expect.keys() {
        if !seen.contains(id) {
            problems.push(format!("{id}: in expectations.tsv but no such case"));
        }
    }
    report.push(format!(
        "{:18} in scope {all_pass}/{all_in} ({:.1}%), expectations listed: {}",
        "all",
        100.0 * all_pass as f64 / all_in.max(1) as f64,
        expect.len()
    ));
    println!("{}", report.join("\n"));
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

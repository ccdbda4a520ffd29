//! Finds without a scheme (`--schemeless`, `--email`) become keys with the scheme they imply
//! (`http://`, `mailto:`; issue #18 item 2): in `run` (keys, jsonl, tsv) and `scan --format tsv`.
//! The expected keys are written by hand; the `original` column keeps the text as found.

use crate::common;
use common::linksieve;

const TEXT: &str = "Visit www.example.com or mail jane@example.org\n\
                    and 2001:db8::1 or 10.0.0.1:8080/x, again www.example.com\n";

/// (original, key) per find, in input order, the repeat left out.
const EXPECTED: &[(&str, &str)] = &[
    ("www.example.com", "http://www.example.com/"),
    ("jane@example.org", "mailto:jane@example.org"),
    ("2001:db8::1", "http://[2001:db8::1]/"),
    ("10.0.0.1:8080/x", "http://10.0.0.1:8080/x"),
];

fn ok(args: &[&str]) -> String {
    let r = linksieve(args, TEXT);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

#[test]
fn run_writes_keys_with_the_implied_scheme() {
    let out = ok(&["run", "-q", "--schemeless", "--email", "-"]);
    let want: Vec<&str> = EXPECTED.iter().map(|(_, k)| *k).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
}

#[test]
fn run_keys_are_the_same_in_small_chunks() {
    let out = ok(&[
        "run",
        "-q",
        "--schemeless",
        "--email",
        "--chunk-size",
        "4K",
        "-",
    ]);
    let want: Vec<&str> = EXPECTED.iter().map(|(_, k)| *k).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
}

#[test]
fn run_jsonl_keeps_the_original_text() {
    let out = ok(&[
        "run",
        "-q",
        "--schemeless",
        "--email",
        "--format",
        "jsonl",
        "-",
    ]);
    let rows: Vec<(String, String)> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            (
                v["original"].as_str().expect("original").to_owned(),
                v["key"].as_str().expect("key").to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = EXPECTED
        .iter()
        .map(|(o, k)| (o.to_string(), k.to_string()))
        .collect();
    assert_eq!(rows, want);
}

/// `fingerprint<TAB>key<TAB>original<TAB>provenance` rows: (original, canonical) of each.
fn tsv_pairs(out: &str) -> Vec<(String, String)> {
    out.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{l}");
            (f[2].to_owned(), f[1].to_owned())
        })
        .collect()
}

#[test]
fn run_and_scan_tsv_agree_on_the_implied_scheme() {
    let want: Vec<(String, String)> = EXPECTED
        .iter()
        .map(|(o, k)| (o.to_string(), k.to_string()))
        .collect();
    let run = ok(&[
        "run",
        "-q",
        "--schemeless",
        "--email",
        "--format",
        "tsv",
        "-",
    ]);
    assert_eq!(tsv_pairs(&run), want);
    // `scan` writes every find, the repeat too
    let scan = ok(&["scan", "--schemeless", "--email", "--format", "tsv", "-"]);
    let mut with_repeat = want.clone();
    with_repeat.push(want[0].clone());
    assert_eq!(tsv_pairs(&scan), with_repeat);
}

#[test]
fn a_find_with_its_scheme_is_keyed_as_before() {
    let r = linksieve(
        &["run", "-q", "--schemeless", "--email", "-"],
        "see https://www.example.com and mailto:jane@example.org\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        ["https://www.example.com/", "mailto:jane@example.org"]
    );
}

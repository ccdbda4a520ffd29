//! Differential test of `linksieve_scan::html` against Python's `html.parser` (the oracle
//! `tests/html_oracle.py`, which applies the same selection rules to html.parser's tags) on
//! the pages of `testdata/html/`. The outlinks are compared as multisets of (tag, attr, value,
//! rel), with the declared charset as ("meta", "charset", label). Every difference must be
//! listed in `testdata/html/known-differences.jsonl` with its reason, and every listed one
//! must still occur. Fails where `python3` cannot be run.
//!
//! `corpus_agreement` compares every page of the Debian documentation that
//! `scripts/fetch-corpora.sh` fetches (under `LINKSIEVE_CORPORA`), page by page, and must find
//! no difference; `LINKSIEVE_HTML_CORPUS=DIR` points it at another folder (`--nocapture` prints
//! the agreement and the first differences of each page).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use linksieve_scan::html::outlinks;
use serde_json::Value;

type Row = (String, String, String, Option<String>);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .arg("-c")
        .arg("import html.parser, json")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some("python3")
}

/// The oracle's rows, by file.
fn oracle(files: &[PathBuf]) -> BTreeMap<String, Vec<Row>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/html_oracle.py");
    let mut by_file: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    // a few hundred files per run keeps the command line short
    for part in files.chunks(200) {
        let out = Command::new("python3")
            .arg(&script)
            .args(part)
            .output()
            .expect("run python3");
        assert!(
            out.status.success(),
            "html_oracle.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8(out.stdout).expect("UTF-8").lines() {
            let v: Value = serde_json::from_str(line).expect("JSON row");
            let s = |i: usize| v[i].as_str().map(str::to_string);
            by_file.entry(s(0).unwrap_or_default()).or_default().push((
                s(1).unwrap_or_default(),
                s(2).unwrap_or_default(),
                s(3).unwrap_or_default(),
                s(4),
            ));
        }
    }
    by_file
}

fn ours(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let summary = outlinks(text, |o| {
        rows.push((
            o.tag.to_string(),
            o.attr.to_string(),
            o.value.into_owned(),
            o.rel.map(|r| r.into_owned()),
        ))
    });
    if let Some(c) = summary.charset {
        rows.push(("meta".into(), "charset".into(), c.label, None));
    }
    rows
}

/// (side, row) for every row one side has more often than the other.
fn differences(ours: &[Row], theirs: &[Row]) -> Vec<(&'static str, Row)> {
    let mut count: BTreeMap<&Row, i64> = BTreeMap::new();
    for r in ours {
        *count.entry(r).or_default() += 1;
    }
    for r in theirs {
        *count.entry(r).or_default() -= 1;
    }
    let mut d = Vec::new();
    for (r, n) in count {
        let side = if n > 0 { "linksieve" } else { "html.parser" };
        for _ in 0..n.abs() {
            d.push((side, r.clone()));
        }
    }
    d
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            html_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "html" || e == "htm") {
            out.push(p);
        }
    }
}

fn row_json(r: &Row) -> Value {
    serde_json::json!([r.0, r.1, r.2, r.3])
}

#[test]
fn agrees_with_html_parser_but_for_the_known_differences() {
    assert!(
        python().is_some(),
        "python3 with html.parser is needed (the oracle)"
    );
    let dir = root().join("testdata/html");
    let mut files = Vec::new();
    html_files(&dir, &mut files);
    assert!(files.len() >= 5, "pages in {}", dir.display());
    let theirs = oracle(&files);
    let mut found: Vec<(String, &'static str, Value)> = Vec::new();
    let mut rows = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("UTF-8 page");
        let o = ours(&text);
        let t = theirs
            .get(f.to_str().unwrap_or(""))
            .cloned()
            .unwrap_or_default();
        rows += o.len().max(t.len());
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        for (side, r) in differences(&o, &t) {
            found.push((name.clone(), side, row_json(&r)));
        }
    }
    let listed = std::fs::read_to_string(dir.join("known-differences.jsonl")).expect("list");
    let mut expected: Vec<(String, &'static str, Value)> = Vec::new();
    for line in listed.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("JSON line");
        assert!(
            v["why"].as_str().is_some_and(|w| !w.is_empty()),
            "no reason: {line}"
        );
        let side = match v["only_in"].as_str() {
            Some("linksieve") => "linksieve",
            Some("html.parser") => "html.parser",
            _ => panic!("only_in: {line}"),
        };
        expected.push((
            v["file"].as_str().unwrap_or("").to_string(),
            side,
            v["outlink"].clone(),
        ));
    }
    let unexpected: Vec<_> = found.iter().filter(|d| !expected.contains(d)).collect();
    let gone: Vec<_> = expected.iter().filter(|d| !found.contains(d)).collect();
    println!(
        "{} pages, {rows} outlinks, {} known differences",
        files.len(),
        expected.len()
    );
    for d in &unexpected {
        println!("unexpected: {} only in {}: {}", d.0, d.1, d.2);
    }
    for d in &gone {
        println!("listed but not found: {} only in {}: {}", d.0, d.1, d.2);
    }
    assert!(unexpected.is_empty() && gone.is_empty());
}

/// Every page of real documentation sites (the PostgreSQL, Django and Python documentation of
/// scripts/fetch-corpora.sh, under LINKSIEVE_CORPORA; or the folder LINKSIEVE_HTML_CORPUS names):
/// the same outlinks as html.parser, page by page.
#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn corpus_agreement() {
    let dir = match std::env::var_os("LINKSIEVE_HTML_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => {
            let corpora = std::env::var_os("LINKSIEVE_CORPORA").expect(
                "LINKSIEVE_CORPORA (scripts/test.sh sets it, after scripts/fetch-corpora.sh)",
            );
            Path::new(&corpora).join("html-docs")
        }
    };
    assert!(
        python().is_some(),
        "python3 with html.parser is needed (the oracle)"
    );
    let mut files = Vec::new();
    html_files(Path::new(&dir), &mut files);
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| std::fs::read_to_string(f).is_ok())
        .collect();
    let theirs = oracle(&files);
    let (mut total, mut same, mut pages_same) = (0usize, 0usize, 0usize);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let o = ours(&text);
        let t = theirs
            .get(f.to_str().unwrap_or(""))
            .cloned()
            .unwrap_or_default();
        let d = differences(&o, &t);
        total += o.len().max(t.len());
        same += o.len().max(t.len()) - d.len().min(o.len().max(t.len()));
        if d.is_empty() {
            pages_same += 1;
        }
        for (side, r) in d.iter().take(5) {
            println!("{}: only in {side}: {}", f.display(), row_json(r));
        }
    }
    println!(
        "{} pages ({} identical), {total} outlinks, {same} in both",
        files.len(),
        pages_same
    );
    assert!(files.len() > 100, "pages in {}", dir.display());
    assert_eq!(pages_same, files.len(), "pages where html.parser differs");
}

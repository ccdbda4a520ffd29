//! `run --html` and `scan --html` (issue #20): HTML read as HTML, outlinks resolved against the
//! document base, through the command line. The rules one by one are unit-tested in
//! `crates/scan/tests/html.rs` and `crates/pipeline/src/outlinks/tests.rs`; the real-crawl
//! oracle is `tests/oracles/test_html.py`.

use crate::common;
use common::{linksieve, tempdir, warc_response};

fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

#[test]
fn run_html_rows_say_where_each_link_came_from() {
    let dir = tempdir("html-rows");
    let page = dir.join("p.html");
    let html = "<head><link rel=stylesheet href=s.css></head>\n<p>see http://t.example/ and\n<a href='../x?a=1&amp;b=2' rel=next>x</a><img srcset='i.png 1x, j.png 2x'>";
    std::fs::write(&page, html).unwrap();
    let p = page.to_str().unwrap();
    let r = linksieve(
        &[
            "run",
            "--html",
            "--base",
            "http://ex.com/d/e/",
            "--format",
            "jsonl",
            p,
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = json_lines(&r.stdout);
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|v| {
            (
                v["key"].as_str().unwrap(),
                v["from"].as_str().unwrap(),
                v["tag"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("http://ex.com/d/e/s.css", "attribute", "link"),
            ("http://t.example/", "text", ""),
            ("http://ex.com/d/x?a=1&b=2", "attribute", "a"),
            ("http://ex.com/d/e/i.png", "attribute", "img"),
            ("http://ex.com/d/e/j.png", "attribute", "img"),
        ]
    );
    assert_eq!(rows[0]["rel"], "stylesheet");
    assert_eq!(rows[2]["rel"], "next");
    assert_eq!(rows[2]["original"], "../x?a=1&b=2");
    assert_eq!(
        (rows[2]["attr"].as_str(), rows[2]["line"].as_u64()),
        (Some("href"), Some(3))
    );
    // the offset is that of the value as written in the (UTF-8) file
    let at = rows[2]["offset"].as_u64().unwrap() as usize;
    assert!(html[at..].starts_with("../x?a=1&amp;b=2"));
    assert_eq!(rows[3]["attr"], "srcset");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn warc_html_responses_resolve_against_their_target_uri_in_their_charset() {
    let dir = tempdir("html-warc");
    let warc = dir.join("c.warc");
    let (page, _, _) =
        encoding_rs::WINDOWS_1251.encode("<a href='/поиск?q=дом'>д</a><a href=sub/>");
    let mut bytes = warc_response(
        "http://ru.example/a/b.html",
        "text/html; charset=windows-1251",
        &page,
    );
    // text/plain is read as text: its relative "link" is no link
    bytes.extend(warc_response(
        "http://t.example/",
        "text/plain",
        b"<a href=rel.html> http://plain.example/",
    ));
    std::fs::write(&warc, bytes).unwrap();
    let stats = dir.join("s.json");
    let r = linksieve(
        &[
            "run",
            "--stats",
            stats.to_str().unwrap(),
            warc.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // the path in UTF-8, the query in the document's encoding (URL Standard encoding override)
    assert_eq!(
        r.stdout.lines().collect::<Vec<_>>(),
        [
            "http://ru.example/%D0%BF%D0%BE%D0%B8%D1%81%D0%BA?q=%E4%EE%EC",
            "http://ru.example/a/sub/",
            "http://plain.example/",
        ]
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    assert_eq!(s["outlinks"]["documents"], 1);
    assert_eq!(s["outlinks"]["resolved"], 2);
    assert_eq!(s["encodings"]["windows-1251"], 1);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn script_urls_are_counted_unless_asked_and_a_bad_base_is_a_usage_error() {
    let dir = tempdir("html-schemes");
    let page = dir.join("p.html");
    std::fs::write(
        &page,
        "<a href='javascript:go()'>j</a><a href='http://[x'>bad</a>",
    )
    .unwrap();
    let p = page.to_str().unwrap();
    let r = linksieve(&["run", "--html", "--format", "jsonl", p], "");
    // the invalid URL is a rejected link, counted and listed (`run` exits 1 only for inputs)
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = json_lines(&r.stdout);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["rejected"], "http://[x");
    assert!(r.stderr.contains("1 not keyed"), "{}", r.stderr);
    let r = linksieve(&["run", "--html", "--all-schemes", p], "");
    assert_eq!(r.stdout, "javascript:go()\n");
    let r = linksieve(&["run", "--html", "--base", "not a url", p], "");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--base"), "{}", r.stderr);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn scan_html_prints_outlinks_and_text_links_in_document_order() {
    let page = "<base href=/d/><a href=x.html>x</a> http://t.example/ <img src=i.png>";
    let r = linksieve(
        &["scan", "--html", "--base", "http://ex.com/a/b", "-"],
        page,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "http://ex.com/d/x.html\nhttp://t.example/\nhttp://ex.com/d/i.png\n"
    );
    let r = linksieve(&["scan", "--html", "--format", "jsonl", "-"], page);
    let rows = json_lines(&r.stdout);
    assert_eq!(rows[0]["value"], "x.html");
    assert!(rows[0]["link"].is_null());
    assert!(rows[0]["error"].as_str().unwrap().contains("--base"));
    assert_eq!(rows[1]["from"], "text");
}

/// In a page of a legacy encoding, `scan --html --format tsv` keys every link as `run --html`
/// does: with NFC, text links too (issue 32: `scan` keyed its text links without it, so the two
/// commands gave two keys for one link). windows-1258 writes "è" as "e" and a combining grave
/// accent (0xCC), which NFC composes: U+00E8, `%C3%A8` in the key.
#[test]
fn scan_html_tsv_keys_as_run_html_in_a_legacy_document() {
    let dir = tempdir("html-legacy");
    let page = dir.join("page.html");
    let mut bytes = b"<meta charset=windows-1258><a href='http://a.example/caf".to_vec();
    bytes.extend_from_slice(b"e\xcc'>x</a> see http://t.example/caf");
    bytes.extend_from_slice(b"e\xcc and more\n");
    std::fs::write(&page, &bytes).expect("page");
    let page = page.to_str().expect("p");
    let canonical = |args: &[&str]| -> Vec<String> {
        let r = linksieve(args, "");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        r.stdout
            .lines()
            .map(|l| l.split('\t').nth(1).expect("canonical").to_owned())
            .collect()
    };
    let run = canonical(&["run", "-q", "--html", "--format", "tsv", page]);
    let scan = canonical(&["scan", "--html", "--format", "tsv", page]);
    assert_eq!(
        run,
        ["http://a.example/caf%C3%A8", "http://t.example/caf%C3%A8"]
    );
    assert_eq!(scan, run);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_document_too_large_to_read_whole_is_read_as_text_and_counted() {
    let dir = tempdir("html-large");
    let page = dir.join("big.html");
    let mut html = b"<a href=rel.html>".to_vec();
    html.resize(65 << 20, b' ');
    html.extend_from_slice(b"http://end.example/");
    std::fs::write(&page, html).unwrap();
    let stats = dir.join("s.json");
    let r = linksieve(
        &[
            "run",
            "--html",
            "--stats",
            stats.to_str().unwrap(),
            page.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "http://end.example/\n");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    assert_eq!(s["html_too_large"], 1);
    assert!(
        r.stderr.contains("1 over 64 MiB read as text"),
        "{}",
        r.stderr
    );
    std::fs::remove_dir_all(dir).ok();
}

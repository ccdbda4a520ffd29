//! The line commands end to end: arguments, stdin, `--format jsonl`, exit statuses, stderr.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common;
use common::linksieve;

#[test]
fn to_iri_examples_of_3_7_1() {
    let r = linksieve(
        &["to-iri"],
        "http://www.example.org/D%C3%BCrst\nhttp://www.example.org/D%FCrst\nhttp://xn--99zt52a.example.org/%e2%80%ae\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "http://www.example.org/Dürst\nhttp://www.example.org/D%FCrst\nhttp://納豆.example.org/%E2%80%AE\n"
    );
}

#[test]
fn errors_go_to_stderr_with_line_and_byte_and_exit_1() {
    let r = linksieve(&["to-uri"], "http://a/é\nhttp://a/b c\nhttp://a/ok\n");
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "http://a/%C3%A9\nhttp://a/ok\n");
    assert_eq!(
        r.stderr,
        "line 2: invalid character U+0020 in ipath at byte 10\n"
    );
}

#[test]
fn jsonl_has_one_object_per_line() {
    let r = linksieve(
        &[
            "resolve",
            "--base",
            "http://a/b/c/d;p?q",
            "--format",
            "jsonl",
        ],
        "../g\n%zz\n\u{FEFF}\n",
    );
    assert_eq!(r.code, 1);
    let lines: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["output"], "http://a/b/g");
    assert_eq!(lines[0]["input"], "../g");
    assert!(
        lines[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("at byte 0"))
    );
    // U+FEFF is only a BOM at the start of the input; later it is an ordinary ucschar.
    assert_eq!(lines[2]["output"], "http://a/b/c/\u{FEFF}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        linksieve(&["resolve", "--base", "relative", "x"], "").code,
        2
    );
    assert_eq!(
        linksieve(&["to-uri", "--charset", "no-such-charset", "x:"], "").code,
        2
    );
    assert_eq!(linksieve(&["no-such-command"], "").code, 2);
}

#[test]
fn modes_and_options() {
    let r = linksieve(
        &[
            "to-uri",
            "--input-mode",
            "web",
            "--charset",
            "big5",
            " HTTP://H/a\\b?†",
        ],
        "",
    );
    // URL Standard 1.3: a character big5 cannot encode is written as its `&#N;`, percent-encoded.
    assert_eq!(r.stdout.trim_end(), "http://h/a/b?%26%238224%3B");
    let r = linksieve(
        &[
            "to-uri",
            "--charset",
            "euc-kr",
            "--host",
            "punycode",
            "http://résumé.example/?†",
        ],
        "",
    );
    assert_eq!(r.stdout.trim_end(), "http://xn--rsum-bpad.example/?%A2%D3");
    let r = linksieve(&["to-uri", "--input-mode", "leiri", "http://h/a b<c>"], "");
    assert_eq!(r.stdout.trim_end(), "http://h/a%20b%3Cc%3E");
    let r = linksieve(
        &[
            "resolve",
            "--non-strict",
            "--base",
            "http://a/b/c/d;p?q",
            "http:g",
        ],
        "",
    );
    assert_eq!(r.stdout.trim_end(), "http://a/b/c/g");
}

#[test]
fn web_resolution_against_an_opaque_path_base() {
    // about:blank and data: URLs have an opaque path: only a fragment resolves against them.
    let r = linksieve(
        &[
            "resolve",
            "--input-mode",
            "web",
            "--base",
            "about:blank",
            "#x",
        ],
        "",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "about:blank#x\n"),
        "{}",
        r.stderr
    );
    let r = linksieve(
        &[
            "resolve",
            "--input-mode",
            "web",
            "--base",
            "data:text/plain,x",
        ],
        "#y\nz\n",
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "data:text/plain,x#y\n");
    assert!(
        r.stderr.starts_with("line 2: not a valid web address"),
        "{}",
        r.stderr
    );
    // the base itself must parse
    let r = linksieve(
        &["resolve", "--input-mode", "web", "--base", "/rel", "#x"],
        "",
    );
    assert_eq!(r.code, 2);
}

#[test]
fn web_mode_prints_the_whatwg_href() {
    // A stray `%` stays as the URL Standard writes it (the IRI model's `%25` is for keys).
    let r = linksieve(
        &[
            "resolve",
            "--input-mode",
            "web",
            "--base",
            "http://h/a/b",
            "../c%zz d",
        ],
        "",
    );
    assert_eq!(r.stdout, "http://h/c%zz%20d\n", "{}", r.stderr);
    let r = linksieve(&["to-uri", "--input-mode", "web", "HTTP://H/%%\\x"], "");
    assert_eq!(r.stdout, "http://h/%%/x\n", "{}", r.stderr);
    let r = linksieve(
        &[
            "parse",
            "--input-mode",
            "web",
            "--format",
            "jsonl",
            "http://u:p@0x7F.1:81/%zz?q#f",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim_end()).expect("json");
    assert_eq!(v["output"]["host"], "127.0.0.1");
    assert_eq!(v["output"]["host_kind"], "ipv4");
    assert_eq!(v["output"]["authority"], "u:p@127.0.0.1:81");
    assert_eq!(v["output"]["path"], "/%zz");
    let r = linksieve(&["parse", "--input-mode", "web", "file:///C|/x"], "");
    assert_eq!(
        r.stdout,
        "scheme=file\tauthority=\thost=\thost_kind=empty\tpath=/C:/x\n"
    );
}

#[test]
fn parse_prints_components() {
    let r = linksieve(
        &["parse", "--format", "jsonl", "http://u@[::1]:8080/p?q#f"],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim_end()).expect("json");
    assert_eq!(v["output"]["host"], "[::1]");
    assert_eq!(v["output"]["host_kind"], "ipv6");
    assert_eq!(v["output"]["port"], "8080");
    let r = linksieve(&["parse", "urn:isbn:1"], "");
    assert_eq!(r.stdout, "scheme=urn\tpath=isbn:1\n");
}

#[test]
fn check_reports_bidi_errors_and_warnings() {
    let r = linksieve(
        &["check"],
        "http://h/a\u{202E}b\nhttp://h/\u{5D0}a\nhttp://h/ok\n",
    );
    assert_eq!(r.code, 1, "a bidi formatting character is an error");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("error: bidi formatting character U+202E"));
    assert!(lines[1].starts_with("warning:"));
    assert_eq!(lines[2], "ok");
    assert_eq!(
        linksieve(&["check", "http://h/\u{5D0}a"], "").code,
        0,
        "warnings alone exit 0"
    );
}

#[test]
fn files_and_closed_pipe() {
    let dir = std::env::temp_dir().join(format!("linksieve-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let f = dir.join("in.txt");
    std::fs::write(&f, "\u{FEFF}http://a/é\r\nhttp://b/\n").expect("write");
    let r = linksieve(&["to-uri", "--file", f.to_str().expect("utf-8 path")], "");
    assert_eq!(r.stdout, "http://a/%C3%A9\nhttp://b/\n");
    assert_eq!(r.code, 0);
    // A reader that goes away early: the command exits 0 and says nothing.
    let big: String = (0..200_000).map(|i| format!("http://x/{i}\n")).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .arg("to-uri")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

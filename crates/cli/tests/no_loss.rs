//! Issue #18 item 1: text with no space or line feed for longer than a chunk (minified JSON,
//! CR-only and NUL-separated lines, one long token) loses no link in `linksieve run`, whatever
//! the chunk size, the thread count and the read path (a plain file read in ranges, stdin and
//! gzip cut by the reader). The oracle is the input's construction: every link is known before
//! the run, and each is its own key.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The keys `linksieve run -q ARGS` writes for `input` given as a file (`stdin` false) or on
/// standard input, and its exit status.
fn run(input: &Path, stdin: bool, args: &[&str]) -> (Vec<String>, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_linksieve"));
    cmd.arg("run").arg("-q").args(args);
    if stdin {
        cmd.arg("-")
            .stdin(Stdio::from(std::fs::File::open(input).unwrap()));
    } else {
        cmd.arg(input).stdin(Stdio::null());
    }
    let out = cmd.output().expect("run linksieve");
    let keys = String::from_utf8(out.stdout).unwrap();
    (
        keys.lines().map(str::to_owned).collect(),
        out.status.code().unwrap_or(-1),
    )
}

/// Checks every read path, chunk size and thread count against `expected`.
fn no_link_lost(name: &str, text: &[u8], expected: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join(name);
    std::fs::write(&plain, text).unwrap();
    let gz = dir.path().join(format!("{name}.gz"));
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(text).unwrap();
    enc.finish().unwrap();
    for chunk in ["4K", "64K", "1M"] {
        for threads in ["1", "2"] {
            for (path, stdin, how) in [
                (&plain, false, "file"),
                (&plain, true, "stdin"),
                (&gz, false, "gzip"),
            ] {
                let (keys, code) = run(path, stdin, &["--chunk-size", chunk, "-j", threads]);
                assert_eq!(code, 0, "{name}: {how}, chunk {chunk}, -j{threads}");
                if keys != expected {
                    let missing = expected.iter().filter(|k| !keys.contains(k)).count();
                    panic!(
                        "{name}: {how}, chunk {chunk}, -j{threads}: {} keys, {} expected, \
                         {missing} missing; first difference at {:?}",
                        keys.len(),
                        expected.len(),
                        keys.iter().zip(expected).position(|(a, b)| a != b)
                    );
                }
            }
        }
    }
}

fn links(n: usize, host: &str) -> Vec<String> {
    (0..n).map(|i| format!("http://{host}/{i}")).collect()
}

#[test]
fn minified_json_loses_no_link() {
    // the issue's reproduction, smaller: 3 MB on one line, `"link","link",...`
    let expected = links(120_000, "j.example");
    let quoted: Vec<String> = expected.iter().map(|l| format!("\"{l}\"")).collect();
    let text = format!("[{}]\n", quoted.join(","));
    no_link_lost("min.json", text.as_bytes(), &expected);
}

#[test]
fn cr_only_and_nul_separated_lines_lose_no_link() {
    let expected = links(80_000, "cr.example");
    let text = expected.join("\r");
    no_link_lost("cr.txt", text.as_bytes(), &expected);
    let expected = links(80_000, "nul.example");
    let text = expected.join("\0");
    no_link_lost("nul.txt", text.as_bytes(), &expected);
}

#[test]
fn markup_without_spaces_loses_no_link() {
    // minified HTML: `<a href=...>` with no space or line feed anywhere but inside the tag
    let expected = links(60_000, "html.example");
    let text: String = expected
        .iter()
        .map(|l| format!("<li><a\thref=\"{l}\">x</a></li>"))
        .collect();
    no_link_lost("min.html", text.as_bytes(), &expected);
}

#[test]
fn a_token_longer_than_the_look_ahead_loses_no_link() {
    // links glued by `|` (it ends a link but may stand inside a `<…>` wrapper, so it is no
    // clean cut): 170 KB at a time with no space, line end, `"`, `<` or `>`, so that cuts
    // fall inside the token, further from its ends than the 64 KiB look-ahead
    let mut expected = Vec::new();
    let mut text = String::new();
    for g in 0..12 {
        let group: Vec<String> = (0..8000)
            .map(|i| format!("http://g{g}.example/{i}"))
            .collect();
        text.push_str(&group.join("|"));
        text.push('\n');
        expected.extend(group);
    }
    no_link_lost("token.txt", text.as_bytes(), &expected);
}

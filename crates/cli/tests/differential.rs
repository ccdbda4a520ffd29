//! The differential oracle of issue #18: `linksieve run` must equal `linksieve scan` ->
//! `linksieve normalize` -> first-occurrence dedup (done here, over the normalize outputs), a
//! path through linksieve that shares no chunking, no worker and no sink with `run`. Each shape
//! is made to cross a boundary of the pipeline: lines longer than a chunk with no space,
//! CR-only and NUL-separated text, legacy encodings and UTF-16, compression, the finding modes;
//! `run` is tried with 4 KiB, 64 KiB and 1 MiB chunks, one and two threads.
//!
//! What the oracle takes from the documentation, not from `run`'s code: found links are read as
//! LEIRIs (`--input leiri`), links transcoded from a legacy encoding are keyed with NFC
//! (`from_legacy`), a find without a scheme is keyed with `http://` (host, IPv4) or `mailto:`
//! (e-mail) in front.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
}

/// `linksieve ARGS` with `input` on stdin: its stdout, which must be a success.
fn call(args: &[&str], input: &[u8]) -> String {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // written from a thread: stdout is read meanwhile (no deadlock on large outputs)
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The oracle's keys for the (uncompressed) text in `plain`: scan, normalize each link alone,
/// keep each key's first occurrence. Also the number of links normalize rejected.
fn oracle(plain: &Path, flags: &[&str]) -> (Vec<String>, usize) {
    let mut args = vec!["scan", "--format", "jsonl"];
    args.extend(flags.iter().filter(|f| **f != "--html"));
    if flags.contains(&"--html") {
        args.push("--html");
    }
    args.push(plain.to_str().unwrap());
    let mut unresolved_invalid = 0;
    // `--html`: an outlink of an attribute (`from: attribute`) is keyed by the URL it resolves
    // to; one that does not resolve is counted by `run`, and rejected when the URL parser
    // rejected it (not when it lacks a base or is a `javascript:` URL).
    let found: Vec<serde_json::Value> = call(&args, b"")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|f| {
            let unresolved = f["from"] == "attribute" && f["link"].is_null();
            if unresolved && f["error"].as_str().unwrap().starts_with("not a valid URL") {
                unresolved_invalid += 1;
            }
            !unresolved
        })
        .collect();
    let keyable: Vec<String> = found
        .iter()
        .map(|f| {
            let link = f["link"].as_str().unwrap();
            match f["kind"].as_str().unwrap_or("scheme") {
                "bare" | "ip" => format!("http://{link}"),
                "email" => format!("mailto:{link}"),
                _ => link.to_owned(),
            }
        })
        .collect();
    let lines = keyable.join("\n") + "\n";
    let normalize = |nfc: bool| -> Vec<serde_json::Value> {
        let mut a = vec!["normalize", "--input-mode", "leiri", "--format", "jsonl"];
        if nfc {
            a.push("--nfc");
        }
        call(&a, lines.as_bytes())
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (plain_keys, nfc_keys) = (normalize(false), normalize(true));
    assert_eq!(plain_keys.len(), found.len(), "one normalize row per link");
    let mut seen = HashSet::new();
    let (mut keys, mut rejected) = (Vec::new(), unresolved_invalid);
    for (i, f) in found.iter().enumerate() {
        let row = if f["from_legacy"] == true {
            &nfc_keys[i]
        } else {
            &plain_keys[i]
        };
        match row["output"].as_str() {
            Some(k) => {
                if seen.insert(k.to_owned()) {
                    keys.push(k.to_owned());
                }
            }
            None => rejected += 1,
        }
    }
    (keys, rejected)
}

/// `run` on `input` (maybe compressed) against the oracle on `plain`, for every chunk size and
/// thread count.
fn same_as_oracle(name: &str, plain: &[u8], compressed: Option<&[u8]>, flags: &[&str]) {
    let dir = std::env::temp_dir().join(format!("ls-diff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let plain_path = dir.join("plain");
    std::fs::write(&plain_path, plain).unwrap();
    let input = match compressed {
        Some(c) => {
            let p = dir.join("input.gz");
            std::fs::write(&p, c).unwrap();
            p
        }
        None => plain_path.clone(),
    };
    let (want, rejected) = oracle(&plain_path, flags);
    assert!(!want.is_empty(), "{name}: the shape holds links");
    for chunk in ["4K", "64K", "1M"] {
        for threads in ["1", "2"] {
            let stats = dir.join(format!("stats-{chunk}-{threads}.json"));
            let mut args = vec![
                "run",
                "-q",
                "--chunk-size",
                chunk,
                "-j",
                threads,
                "--stats",
                stats.to_str().unwrap(),
            ];
            args.extend(flags);
            args.push(input.to_str().unwrap());
            let got: Vec<String> = call(&args, b"").lines().map(str::to_owned).collect();
            if got != want {
                let at = got.iter().zip(&want).position(|(a, b)| a != b);
                panic!(
                    "{name} {flags:?}, chunk {chunk}, -j{threads}: run wrote {} keys, the \
                     oracle {}; first difference at {at:?}: run {:?}, oracle {:?}",
                    got.len(),
                    want.len(),
                    at.map(|i| &got[i]),
                    at.map(|i| &want[i]),
                );
            }
            let s: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            let run_rejected: u64 = s["rejected"]
                .as_object()
                .map_or(0, |m| m.values().filter_map(|v| v.as_u64()).sum());
            assert_eq!(
                run_rejected, rejected as u64,
                "{name} {flags:?}, chunk {chunk}, -j{threads}: rejected links"
            );
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A deterministic mix of links and text (xorshift), `n` items joined by `sep`.
fn mixed(n: usize, sep: &str, seed: u64) -> String {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = String::new();
    for i in 0..n {
        let r = next();
        let item = match r % 9 {
            0 => format!("http://h{}.example/p/{}?q={}", r % 97, i % 500, r % 7),
            1 => format!("HTTP://H{}.EXAMPLE:80/p/{}", r % 97, i % 500),
            2 => format!("(see https://w.example/a_(b)/{})", r % 300),
            3 => format!("\"https://q.example/{}?a=1&b=2\"", r % 400),
            4 => format!("<http://wrap.example/{}>", r % 200),
            5 => format!("www.site{}.example/x", r % 50),
            6 => format!("user{}@mail.example", r % 60),
            7 => format!("http://bad.example/%zz{}", r % 5),
            _ => format!("word{}, end.", r % 1000),
        };
        out.push_str(&item);
        out.push_str(sep);
    }
    out
}

#[test]
fn minified_text_longer_than_a_chunk() {
    // one line of 2 MB: no space or line feed anywhere
    let text = mixed(60_000, ",", 1).replace(' ', "");
    same_as_oracle("minified", text.as_bytes(), None, &[]);
}

#[test]
fn cr_only_and_nul_separated_text() {
    same_as_oracle("cr", mixed(30_000, "\r", 2).as_bytes(), None, &[]);
    same_as_oracle("nul", mixed(30_000, "\0", 3).as_bytes(), None, &[]);
}

#[test]
fn schemeless_and_email_finds() {
    let text = mixed(20_000, " ", 4);
    same_as_oracle("modes", text.as_bytes(), None, &["--schemeless", "--email"]);
}

#[test]
fn html_references() {
    let text = mixed(20_000, "\n", 5)
        .replace('&', "&amp;")
        .replace("(see", "<a href=\"x\">(see");
    same_as_oracle("html", text.as_bytes(), None, &["--html"]);
    // with a base, the attributes' outlinks are keys too, in document order with the text's
    let text = text.replace(
        "<a href=\"x\">",
        "<a href=\"../x?a=1&amp;b=2\"><img srcset=\"i.png 1x, j.png 2x\">",
    );
    same_as_oracle(
        "html-base",
        text.as_bytes(),
        None,
        &["--html", "--base", "http://base.example/d/e/"],
    );
}

#[test]
fn legacy_encodings_and_utf16() {
    // non-ASCII paths in windows-1252, Shift_JIS and UTF-16LE (with BOM)
    let text = mixed(10_000, " ", 6)
        .replace("/p/", "/caf\u{e9}/")
        .replace("word", "\u{e9}t\u{e9}");
    let (w1252, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
    same_as_oracle("win1252", &w1252, None, &["--encoding", "windows-1252"]);
    let jp = text
        .replace("caf\u{e9}", "\u{6771}\u{4eac}")
        .replace("\u{e9}t\u{e9}", "\u{8a9e}");
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(&jp);
    same_as_oracle("sjis", &sjis, None, &["--encoding", "shift_jis"]);
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(jp.encode_utf16().flat_map(u16::to_le_bytes));
    same_as_oracle("utf16", &utf16, None, &[]);
}

#[test]
fn gzip_streams() {
    let text = mixed(40_000, ",", 7);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    same_as_oracle("gzip", text.as_bytes(), Some(&gz), &[]);
}

//! `run` on the inputs of issue #30 item 10, links that real data carries and linksieve neither
//! found nor counted:
//!
//! - a JSON document whose links are JSON-escaped (`http:\/\/host\/a`, `\u0026`, `\u002F`):
//!   the keys are those of the strings the JSON holds, decoded here by a small JSON string
//!   reader of this file (the Python oracle `tests/oracles/test_json_links.py` checks the same
//!   with `json.loads`); the row's `original` is the text as written;
//! - 40,000 links joined by commas on one line: every key, computed here from the list;
//! - a port above 65535: found; the default rung keys it, `--input web` (the URL Standard:
//!   a port is at most 65535) rejects it, counted.

use crate::common;
use common::{linksieve, tempdir};

/// The strings of a flat JSON object or array (RFC 8259 7: `\"` `\\` `\/` `\b` `\f` `\n` `\r`
/// `\t` `\uXXXX`, surrogate pairs), in order.
fn json_strings(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = doc.chars().peekable();
    while let Some(c) = it.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        let mut units: Vec<u16> = Vec::new();
        loop {
            let c = it.next().expect("closed string");
            if c == '\\' {
                let e = it.next().expect("escape");
                if e == 'u' {
                    let h: String = (0..4).map(|_| it.next().expect("hex")).collect();
                    units.push(u16::from_str_radix(&h, 16).expect("hex"));
                    continue;
                }
                s.push_str(&String::from_utf16(&units).expect("UTF-16"));
                units.clear();
                s.push(match e {
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    other => other,
                });
                continue;
            }
            s.push_str(&String::from_utf16(&units).expect("UTF-16"));
            units.clear();
            if c == '"' {
                break;
            }
            s.push(c);
        }
        out.push(s);
    }
    out
}

const DOC: &str = r#"{"url":"http:\/\/json.example.com\/a","q":"http://js.example/p?q=\u0026x=1",
"cdn":"https:\u002F\u002Fcdn.example\u002Fimg\u002Fx.png","html":"<a href=\"http:\/\/b.example\/c\">",
"path":"https:\/\/c.example\/caf\u00e9\/menu","emoji":"http:\/\/d.example\/\ud83d\ude00"}"#;

#[test]
fn json_escaped_links_are_keyed_as_the_strings_they_stand_for() {
    let dir = tempdir("json_escaped");
    let file = dir.join("doc.json");
    std::fs::write(&file, DOC).unwrap();
    let r = linksieve(&["run", "-q", file.to_str().unwrap()], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    // the oracle: each JSON string that is a link (the HTML one holds one, up to its `"`);
    // non-ASCII characters percent-encoded as the key's URI form does
    let strings = json_strings(DOC);
    let mut want: Vec<String> = Vec::new();
    for s in &strings {
        let Some(i) = s.find("http") else { continue };
        let link = s[i..].split('"').next().unwrap();
        want.push(
            link.replace('é', "%C3%A9")
                .replace('\u{1F600}', "%F0%9F%98%80"),
        );
    }
    assert_eq!(
        want,
        [
            "http://json.example.com/a",
            "http://js.example/p?q=&x=1",
            "https://cdn.example/img/x.png",
            "http://b.example/c",
            "https://c.example/caf%C3%A9/menu",
            "http://d.example/%F0%9F%98%80",
        ]
    );
    let keys: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(keys, want);
    // the rows show each link as written: the bytes of the input at its offset
    let r = linksieve(
        &["run", "-q", "--format", "jsonl", file.to_str().unwrap()],
        "",
    );
    for line in r.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let original = v["original"].as_str().unwrap_or(v["key"].as_str().unwrap());
        let offset = v["offset"].as_u64().unwrap() as usize;
        assert!(DOC[offset..].starts_with(original), "{line}");
        assert!(original.contains('\\'), "{line}");
    }
}

#[test]
fn forty_thousand_links_joined_by_commas() {
    let dir = tempdir("comma_line");
    let file = dir.join("line.txt");
    let list: Vec<String> = (0..40_000)
        .map(|i| format!("http://a.example/{i}"))
        .collect();
    std::fs::write(&file, list.join(",") + "\n").unwrap();
    // whole, and cut into chunks inside the line (no space in it) read by two threads
    for extra in [&[][..], &["-j", "2", "--chunk-size", "4K"][..]] {
        let mut args = vec!["run", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let r = linksieve(&args, "");
        assert_eq!(r.code, 0, "{}", r.stderr);
        let keys: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(keys, list, "{extra:?}");
        assert!(
            r.stderr.contains("overlong candidates skipped: 0"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("links found: 40000"), "{}", r.stderr);
    }
}

#[test]
fn links_joined_by_semicolons_are_counted_as_the_links_they_held() {
    let dir = tempdir("semicolon_line");
    let file = dir.join("line.txt");
    let list: Vec<String> = (0..1000).map(|i| format!("http://a.example/{i}")).collect();
    std::fs::write(&file, list.join(";") + "\n").unwrap();
    let r = linksieve(&["run", "--max-link-len", "1K", file.to_str().unwrap()], "");
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr.contains("overlong candidates skipped: 1000"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_port_above_65535_is_found_and_keyed_or_rejected_by_the_rung() {
    let text = "see http://a.example:99999/ now\n";
    let r = linksieve(&["run", "-q", "-"], text);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "http://a.example:99999/\n");
    // `parse` accepts it as the scanner does
    let p = linksieve(&["parse", "http://a.example:99999/"], "");
    assert_eq!(p.code, 0, "{}", p.stderr);
    // the URL Standard rejects it: a counted rejection
    let r = linksieve(
        &["run", "--input-mode", "web", "--format", "jsonl", "-"],
        text,
    );
    assert!(
        r.stdout
            .contains("\"rejected\":\"http://a.example:99999/\""),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("links rejected: 1"), "{}", r.stderr);
}

//! Issue #30 item 10: links that real data carries and the scanner did not find or cut.
//!
//! - JSON-escaped links (`http:\/\/host\/a`, `\u0026` in a query), as JSON APIs, JS bundles and
//!   WordPress pages write them: found, their escapes undone in the link text, offsets and the
//!   raw text (`input[start..end]`) still those of the input.
//! - Links joined by commas without spaces: a `,` right before `scheme://` ends a link; an
//!   overlong candidate is counted as the links it held.
//! - A port above 65535 (`http://a.example:99999/`): found, as `parse` accepts it; the keying
//!   stage decides.
//!
//! Expected values are written by hand or built independently of the scanner (the comma line
//! from the list it was joined from); each input is also fed one byte at a time.

use linksieve_scan::{Hit, ScanOptions, Scanner, scan_bytes};

/// The hits of `input` whole, checked against those of feeding it one byte at a time.
fn hits_with(input: &[u8], opts: &ScanOptions) -> Vec<Hit> {
    let whole = scan_bytes(input, opts).hits;
    let mut s = Scanner::new(opts);
    let mut hits = Vec::new();
    for b in input {
        s.feed(std::slice::from_ref(b), &mut hits).expect("feed");
    }
    s.finish(&mut hits).expect("finish");
    assert_eq!(
        whole,
        hits,
        "{:?} fed byte by byte",
        String::from_utf8_lossy(input)
    );
    whole
}

fn links(input: &str) -> Vec<String> {
    hits_with(input.as_bytes(), &ScanOptions::default())
        .into_iter()
        .map(|h| h.text)
        .collect()
}

#[test]
fn json_escaped_slashes_are_undone() {
    let input = r#"{"url":"http:\/\/json.example.com\/a","b":"https:\/\/x.example\/p?q=1"}"#;
    let hits = hits_with(input.as_bytes(), &ScanOptions::default());
    let texts: Vec<&str> = hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(
        texts,
        ["http://json.example.com/a", "https://x.example/p?q=1"]
    );
    // offsets and the raw text are those of the input
    let raw = &input[hits[0].start as usize..hits[0].end as usize];
    assert_eq!(raw, r"http:\/\/json.example.com\/a");
    assert_eq!(
        hits[0].raw.as_deref(),
        Some(r"http:\/\/json.example.com\/a")
    );
    assert!(hits[0].trimmed.json_escapes);
    assert_eq!(hits[0].trimmed.tags(), ["quote", "json_escapes"]);
}

/// A JSON-escaped link whose scheme ends in a digit, `+`, `-` or `.` (`s3:\/\/`) is found
/// wherever it lies: the block search of triggers let its `:` through only in the last 66 bytes
/// of a text (the fuzz target `differential` found it: two lines, one link kept).
#[test]
fn json_escaped_links_after_any_scheme_byte_are_found_in_long_texts() {
    for scheme in ["s3", "svn+ssh", "x-y", "htt.", "http"] {
        let line = format!(r#"{{"u":"{scheme}:\/\/b.example\/k"}}"#);
        let text = format!("{line}\n").repeat(20);
        let got = links(&text);
        assert_eq!(got.len(), 20, "{scheme}: {got:?}");
        assert!(
            got.iter().all(|l| *l == format!("{scheme}://b.example/k")),
            "{got:?}"
        );
    }
}

#[test]
fn json_unicode_escapes_are_undone() {
    // `\u0026` in an otherwise plain link: not cut at the backslash
    assert_eq!(
        links(r#"var u = "http://js.example/p?q=\u0026x=1";"#),
        ["http://js.example/p?q=&x=1"]
    );
    // `\u002F` for `/` (serialisers that escape every slash), hex in either case
    assert_eq!(
        links(r#"{"u":"https:\u002F\u002Fcdn.example\u002fimg.png"}"#),
        ["https://cdn.example/img.png"]
    );
    // a surrogate pair and a BMP character: the link text holds the characters
    assert_eq!(
        links(r#"["http:\/\/a.example\/\ud83d\ude00\/caf\u00e9"]"#),
        ["http://a.example/\u{1F600}/café"]
    );
    // a lone surrogate is not a character: the link ends before it
    assert_eq!(
        links(r#"["http:\/\/a.example\/x\ud83d\/y"]"#),
        ["http://a.example/x"]
    );
}

#[test]
fn json_escapes_of_characters_that_end_a_link_end_it() {
    // an escaped quote (HTML inside a JSON string), a line break, a backslash, `<`
    assert_eq!(
        links(r#"{"html":"<a href=\"http:\/\/a.example\/x\">"}"#),
        ["http://a.example/x"]
    );
    assert_eq!(links(r"http:\/\/a.example\/x\ny"), ["http://a.example/x"]);
    assert_eq!(links(r"http:\/\/a.example\/x\\y"), ["http://a.example/x"]);
    assert_eq!(
        links(r"http:\/\/a.example\/x\u003cb"),
        ["http://a.example/x"]
    );
    // trailing punctuation written as an escape is trimmed as the character would be
    assert_eq!(
        links(r"http:\/\/a.example\/x\u002e"),
        ["http://a.example/x"]
    );
    assert_eq!(
        links(r"(http:\/\/a.example\/x\u0029"),
        ["http://a.example/x"]
    );
    // any other backslash ends the link, as before
    assert_eq!(links(r"http://a.example/x\q"), ["http://a.example/x"]);
    assert_eq!(links(r"http://a.example/x\u00zz"), ["http://a.example/x"]);
}

#[test]
fn json_escaped_authority() {
    // the authority ends at an escaped `/`; a port and userinfo are read decoded
    assert_eq!(
        links(r#""http:\/\/u@a.example:8080\/p""#),
        ["http://u@a.example:8080/p"]
    );
    // an escaped `.` inside the host
    assert_eq!(
        links(r#""http:\/\/a\u002eexample\/p""#),
        ["http://a.example/p"]
    );
    // `http:\/\/` with nothing after it is no link
    assert!(links(r#""http:\/\/""#).is_empty());
}

#[test]
fn plain_links_have_no_raw_text() {
    let hits = hits_with(b"see http://a.example/x.", &ScanOptions::default());
    assert_eq!(hits[0].text, "http://a.example/x");
    assert_eq!(hits[0].raw, None);
    assert!(!hits[0].trimmed.json_escapes);
}

#[test]
fn a_comma_before_a_scheme_ends_a_link() {
    let list: Vec<String> = (0..50).map(|i| format!("http://a.example/{i}")).collect();
    assert_eq!(links(&list.join(",")), list);
    // the JSON-escaped form, https, other schemes, a host without a path
    assert_eq!(
        links(r"http:\/\/a.example\/1,https:\/\/b.example\/2"),
        ["http://a.example/1", "https://b.example/2"]
    );
    assert_eq!(
        links("http://a.example,ftp://b.example/x,svn+ssh://c.example/y"),
        [
            "http://a.example",
            "ftp://b.example/x",
            "svn+ssh://c.example/y"
        ]
    );
    // a comma not followed by `scheme://` stays in the link
    assert_eq!(
        links("http://a.example/x,y,z http://a.example/?ll=40.7,-73.9"),
        ["http://a.example/x,y,z", "http://a.example/?ll=40.7,-73.9"]
    );
    assert_eq!(
        links("http://a.example/x,mailto:b@c.example"),
        ["http://a.example/x,mailto:b@c.example"]
    );
    assert_eq!(
        links("http://a.example/x,http:y"),
        ["http://a.example/x,http:y"]
    );
}

#[test]
fn forty_thousand_links_joined_by_commas() {
    // the issue's input: 40,000 links on one line, no spaces; each is found
    let list: Vec<String> = (0..40_000)
        .map(|i| format!("http://a.example/{i}"))
        .collect();
    let line = list.join(",");
    let r = scan_bytes(line.as_bytes(), &ScanOptions::default());
    let got: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(got, list);
    assert_eq!(r.stats.too_long, 0);
}

#[test]
fn an_overlong_candidate_is_counted_as_the_links_it_held() {
    // joined by `;`, which does not end a link: one candidate longer than the maximum, holding
    // 100 links (each `scheme://` in it), is counted as 100
    let list: Vec<String> = (0..100).map(|i| format!("http://a.example/{i}")).collect();
    let opts = ScanOptions {
        max_link_len: 256,
        ..ScanOptions::default()
    };
    let line = list.join(";");
    assert!(line.len() > 256);
    for chunk in [usize::MAX, 1, 7, 4096] {
        let mut s = Scanner::new(&opts);
        let mut out = Vec::new();
        for c in line.as_bytes().chunks(chunk) {
            s.feed(c, &mut out).expect("feed");
        }
        s.finish(&mut out).expect("finish");
        assert!(out.is_empty(), "chunk {chunk}");
        assert_eq!(s.stats().too_long, 100, "chunk {chunk}");
    }
    // JSON-escaped links are counted too; a candidate without `scheme://` counts once
    let esc: Vec<String> = (0..30)
        .map(|i| format!(r"http:\/\/a.example\/{i}"))
        .collect();
    let r = scan_bytes(esc.join(";").as_bytes(), &opts);
    assert_eq!(r.stats.too_long, 30);
    let long = format!("urn:x:{}", "a".repeat(300));
    let r = scan_bytes(long.as_bytes(), &opts);
    assert_eq!(r.stats.too_long, 1);
}

#[test]
fn a_port_above_65535_is_found() {
    // `linksieve parse` accepts it (RFC 3986 3.2.3: port = *DIGIT); the keying stage decides
    assert_eq!(
        links("see http://a.example:99999/ and http://b.example:123456789/x"),
        ["http://a.example:99999/", "http://b.example:123456789/x"]
    );
    assert_eq!(links("http://[::1]:70000/"), ["http://[::1]:70000/"]);
    // a port that is not digits is still no link
    assert!(links("http://a.example:port/").is_empty());
}

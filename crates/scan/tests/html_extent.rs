//! `ScanOptions::html` (issue #18 item 8): character references of brackets and `?` widen a
//! link's extent as the decoded characters would, and [`link_end`] ends the decoded link;
//! the hits are the same whole and fed one byte at a time (a reference cut by a chunk).

use linksieve_scan::{ScanOptions, Scanner, link_end, scan_bytes};

fn html_links(input: &str) -> Vec<String> {
    let opts = ScanOptions {
        html: true,
        ..ScanOptions::default()
    };
    let whole: Vec<String> = scan_bytes(input.as_bytes(), &opts)
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect();
    let mut s = Scanner::new(&opts);
    let mut hits = Vec::new();
    for b in input.as_bytes() {
        s.feed(std::slice::from_ref(b), &mut hits).expect("feed");
    }
    s.finish(&mut hits).expect("finish");
    let bytewise: Vec<String> = hits.into_iter().map(|h| h.text).collect();
    assert_eq!(whole, bytewise, "{input:?} fed byte by byte");
    whole
}

#[test]
fn bracket_references_open_pairs() {
    assert_eq!(
        html_links("(http://ex.com/w&#40;x) y) (http://ex.com/v&lpar;1&#x5B;2]) z)"),
        ["http://ex.com/w&#40;x)", "http://ex.com/v&lpar;1&#x5B;2])"]
    );
    // without `html` the raw `)` ends the link
    let plain: Vec<String> = scan_bytes(b"(http://ex.com/w&#40;x) y)", &ScanOptions::default())
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect();
    assert_eq!(plain, ["http://ex.com/w&#40;x"]);
}

#[test]
fn a_question_mark_reference_starts_the_query() {
    assert_eq!(
        html_links("http://ex.com/a&#63;q=\u{E000}x end"),
        ["http://ex.com/a&#63;q=\u{E000}x"]
    );
    assert_eq!(
        html_links("http://ex.com/a#q=\u{E000}x end"),
        ["http://ex.com/a#q="]
    );
}

#[test]
fn other_ampersands_are_link_characters() {
    assert_eq!(
        html_links("http://ex.com/?a=1&b=2&#zz;&amp;c end &"),
        ["http://ex.com/?a=1&b=2&#zz;&amp;c"]
    );
    assert_eq!(html_links("http://ex.com/a&#4"), ["http://ex.com/a&#4"]);
}

#[test]
fn link_end_applies_the_boundary_table() {
    let cases = [
        ("http://ex.com/a'", "http://ex.com/a"),
        ("http://ex.com/a'b'", "http://ex.com/a'b'"),
        ("http://ex.com/a\u{2019}s", "http://ex.com/a"),
        ("http://ex.com/a\u{200B}b", "http://ex.com/a"),
        ("http://ex.com/a\u{202E}b", "http://ex.com/a"),
        ("http://ex.com/a)b", "http://ex.com/a"),
        ("http://ex.com/(a)).", "http://ex.com/(a)"),
        ("http://ex.com/a(", "http://ex.com/a"),
        ("http://ex.com/a?\u{E000}", "http://ex.com/a?\u{E000}"),
        ("http://ex.com/a\u{E000}", "http://ex.com/a"),
        ("http://ex.com/repoを参照", "http://ex.com/repo"),
        ("http://ex.com/é/repoを参照", "http://ex.com/é/repoを参照"),
        ("http://ex.com/a&b;.", "http://ex.com/a&b"),
    ];
    for (text, want) in cases {
        assert_eq!(&text[..link_end(text, false)], want, "{text:?}");
    }
    assert_eq!(link_end("http://ex.com/é", true), "http://ex.com/".len());
}

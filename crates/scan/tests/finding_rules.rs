//! Finding rules of issue #18 item 9: CJK text glued after a link, log prefixes that look like
//! registered opaque schemes, `news:`/`nntp:` (RFC 5538), `mailto:` with `%40` (RFC 6068) and
//! `data:` with an empty media type (RFC 2397). Expected values are written by hand; each input
//! is also fed one byte at a time, which must give the same links.
//!
//! Also `ScanOptions::html` (issue #18 item 8): character references of brackets and `?` widen a
//! link's extent as the decoded characters would, and [`link_end`] ends the decoded link;
//! the hits are the same whole and fed one byte at a time (a reference cut by a chunk).

use linksieve_scan::{LinkKind, ScanOptions, Scanner, link_end, scan_bytes};

fn links(input: &str) -> Vec<String> {
    links_with(input, &ScanOptions::default())
}

/// The links of `ScanOptions::html`.
fn html_links(input: &str) -> Vec<String> {
    let opts = ScanOptions {
        html: true,
        ..ScanOptions::default()
    };
    links_with(input, &opts)
}

/// The links found in `input` whole, checked against those found when it is fed one byte at a
/// time (a reference or a link cut by every chunk boundary).
fn links_with(input: &str, opts: &ScanOptions) -> Vec<String> {
    let whole: Vec<String> = scan_bytes(input.as_bytes(), opts)
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect();
    let mut s = Scanner::new(opts);
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
fn cjk_text_glued_after_an_ascii_link_is_left_out() {
    assert_eq!(
        links("ソースはhttps://github.com/user/repoを参照してください。"),
        ["https://github.com/user/repo"]
    );
    assert_eq!(
        links("詳細はhttp://example.com/docs/v2の説明"),
        ["http://example.com/docs/v2"]
    );
    assert_eq!(
        links("https://github.com/user/repo를 참조"),
        ["https://github.com/user/repo"]
    );
    assert_eq!(
        links("见http://example.com/a?q=1中文"),
        ["http://example.com/a?q=1"]
    );
}

#[test]
fn cjk_text_that_belongs_to_the_link_is_kept() {
    // after `/` or `=` it starts a segment or a value; in a link with non-ASCII text already
    // it is the link's own language (xurls' `http://中国.中国/foo中国`)
    assert_eq!(
        links("https://ja.wikipedia.org/wiki/東京都 と"),
        ["https://ja.wikipedia.org/wiki/東京都"]
    );
    assert_eq!(
        links("https://example.com/search?q=東京タワー です"),
        ["https://example.com/search?q=東京タワー"]
    );
    assert_eq!(
        links("http://中国.中国/foo中国"),
        ["http://中国.中国/foo中国"]
    );
    assert_eq!(
        links("http://example.com/東京tower東京 x"),
        ["http://example.com/東京tower東京"]
    );
}

#[test]
fn log_prefixes_are_not_info_uris() {
    assert!(links("INFO:root:Started").is_empty());
    assert!(links("2026-11-24 INFO:werkzeug:GET /").is_empty());
    assert!(links("info:root:x info:abc").is_empty());
    // RFC 4452 3: `info:` namespace `/` identifier
    assert_eq!(
        links("see info:ddc/22/eng//004.678 and info:lccn/2002022641."),
        ["info:ddc/22/eng//004.678", "info:lccn/2002022641"]
    );
}

#[test]
fn news_and_nntp_are_found() {
    let r = scan_bytes(
        b"read news://news.example.org/comp.lang.rust, nntp://h.example/g/12 or news:comp.lang.rust",
        &ScanOptions::default(),
    );
    let got: Vec<(&str, LinkKind)> = r.hits.iter().map(|h| (h.text.as_str(), h.kind)).collect();
    assert_eq!(
        got,
        [
            ("news://news.example.org/comp.lang.rust", LinkKind::Scheme),
            ("nntp://h.example/g/12", LinkKind::Scheme),
            ("news:comp.lang.rust", LinkKind::Opaque),
        ]
    );
    assert_eq!(links("NEWS://host/group"), ["NEWS://host/group"]);
}

#[test]
fn mailto_with_percent_encoding_is_found() {
    assert_eq!(
        links("mail mailto:jane%40example.org or mailto:a%20b@x.org."),
        ["mailto:jane%40example.org", "mailto:a%20b@x.org"]
    );
    // still not prose: no address at all
    assert!(links("mailto:nobody here").is_empty());
}

#[test]
fn data_with_an_empty_media_type_is_found() {
    assert_eq!(
        links("data:,text x data:;base64,SGVsbG8= (data:text/plain,hi)"),
        ["data:,text", "data:;base64,SGVsbG8=", "data:text/plain,hi"]
    );
    // a `,` or `;` after a word that is not a registered scheme is still prose
    assert!(links("Note:, see; todo:;").is_empty());
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

//! Finding rules of issue #18 item 9: CJK text glued after a link, log prefixes that look like
//! registered opaque schemes, `news:`/`nntp:` (RFC 5538), `mailto:` with `%40` (RFC 6068) and
//! `data:` with an empty media type (RFC 2397). Expected values are written by hand; each input
//! is also fed one byte at a time, which must give the same links.

use linksieve_scan::{LinkKind, ScanOptions, Scanner, scan_bytes};

fn links(input: &str) -> Vec<String> {
    let opts = ScanOptions::default();
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

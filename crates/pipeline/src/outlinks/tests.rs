//! The document rules of `read_document`: encoding, base, resolution, what is not keyed.

use super::*;

fn at(url: &str) -> DocumentOptions {
    DocumentOptions {
        url: Some(WebUrl::parse(url).unwrap()),
        ..Default::default()
    }
}

fn urls(d: &Document) -> Vec<String> {
    d.links
        .iter()
        .map(|l| match &l.url {
            Ok(u) => u.as_str().to_owned(),
            Err(e) => format!("<{e}>"),
        })
        .collect()
}

#[test]
fn the_first_base_href_applies_to_every_link() {
    let page = b"<a href=a><base target=x><base href=sub/><base href=/no/><a href=b>";
    let d = read_document(page, &at("http://ex.com/d/p.html"));
    assert_eq!(urls(&d), ["http://ex.com/d/sub/a", "http://ex.com/d/sub/b"]);
    assert_eq!(d.base.unwrap().as_str(), "http://ex.com/d/sub/");
    // no <base href>: the document's address
    let d = read_document(
        b"<base target=_top><a href=../x>",
        &at("http://ex.com/d/p.html"),
    );
    assert_eq!(urls(&d), ["http://ex.com/x"]);
    // an absolute base needs no address; a relative one without an address is dropped
    let d = read_document(
        b"<base href='https://b.example/k/'><a href=x>",
        &DocumentOptions::default(),
    );
    assert_eq!(urls(&d), ["https://b.example/k/x"]);
    let d = read_document(
        b"<base href=/k/><a href=x><a href=http://a/>",
        &Default::default(),
    );
    assert_eq!(d.links[0].url, Err(Unresolved::NoBase));
    assert_eq!(urls(&d)[1], "http://a/");
    assert_eq!((d.stats.no_base, d.stats.resolved), (1, 1));
}

/// Issue #30 item 8: a `javascript:` or `data:` base leaves the document's address as the base
/// (it used to become the base, and every relative outlink was rejected).
#[test]
fn a_javascript_or_data_base_href_is_skipped() {
    for base in [
        "javascript:void(0)",
        "JAVASCRIPT:x",
        "data:text/html,x",
        " data:,",
    ] {
        let page =
            format!("<base href='{base}'><base href=/later/><a href=a.html><img src=/b.png>");
        let d = read_document(page.as_bytes(), &at("http://ex.com/d/p.html"));
        assert_eq!(
            urls(&d),
            ["http://ex.com/d/a.html", "http://ex.com/b.png"],
            "{base}"
        );
        assert_eq!(d.base.unwrap().as_str(), "http://ex.com/d/p.html");
        // without an address: no base at all (relative links counted, not resolved)
        let d = read_document(page.as_bytes(), &DocumentOptions::default());
        assert_eq!(d.stats.no_base, 2, "{base}");
    }
}

#[test]
fn values_are_decoded_and_stripped_then_parsed() {
    let page = b"<a href=' \n/p?a=1&amp;b=2&lt;\t'><a href='&#x68;ttp://h/ x'><img src=''>";
    let d = read_document(page, &at("http://ex.com/d/"));
    assert_eq!(
        urls(&d),
        [
            "http://ex.com/p?a=1&b=2%3C",
            "http://h/%20x",
            "http://ex.com/d/"
        ]
    );
    assert_eq!(d.links[0].value, "/p?a=1&b=2<");
    assert_eq!(
        &d.text[d.links[0].start..d.links[0].end],
        "/p?a=1&amp;b=2&lt;"
    );
}

#[test]
fn the_query_is_encoded_in_the_document_charset() {
    // URL Standard "encoding override"; 3987bis 3.5. The path is always UTF-8.
    for (label, text, query) in [
        ("windows-1251", "д", "%E4"),
        ("Shift_JIS", "あ", "%82%A0"),
        ("EUC-KR", "가", "%B0%A1"),
    ] {
        let enc = Encoding::for_label(label.as_bytes()).unwrap();
        let page = format!("<meta charset={label}><a href='/{text}?q={text}'>");
        let (bytes, _, _) = enc.encode(&page);
        let d = read_document(&bytes, &at("http://ex.com/"));
        assert_eq!(d.encoding, enc, "{label}");
        let utf8_path: String = text.bytes().map(|b| format!("%{b:02X}")).collect();
        assert_eq!(
            urls(&d),
            [format!("http://ex.com/{utf8_path}?q={query}")],
            "{label}"
        );
    }
    // the transport's charset wins over <meta>, a BOM over both
    let page = "<meta charset=utf-8><a href='/?q=д'>";
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(page);
    let o = DocumentOptions {
        transport: Some(encoding_rs::WINDOWS_1251),
        ..at("http://ex.com/")
    };
    assert_eq!(urls(&read_document(&bytes, &o)), ["http://ex.com/?q=%E4"]);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(page.as_bytes());
    let d = read_document(&bom, &o);
    assert_eq!((d.encoding, d.bom), (encoding_rs::UTF_8, 3));
    assert_eq!(urls(&d), ["http://ex.com/?q=%D0%B4"]);
}

#[test]
fn script_urls_are_counted_not_keyed_unless_asked() {
    let page =
        b"<a href='JavaScript:go()'><a href='data:,x'><a href=mailto:a@b><a href='java&#9;script:x'><iframe src=about:blank>";
    let d = read_document(page, &at("http://ex.com/"));
    assert_eq!(
        urls(&d),
        [
            "<javascript: URL not keyed>",
            "<data: URL not keyed>",
            "mailto:a@b",
            // the scheme as the URL parser reads it (it removes tabs and newlines)
            "<javascript: URL not keyed>",
            "<about: URL not keyed>"
        ]
    );
    assert_eq!((d.stats.not_keyed, d.stats.resolved), (4, 1));
    let all = DocumentOptions {
        all_schemes: true,
        ..at("http://ex.com/")
    };
    assert_eq!(read_document(page, &all).stats.resolved, 5);
}

#[test]
fn comments_scripts_and_styles_hold_no_outlinks() {
    let page = b"<!-- <a href=c> --><script>x='<a href=s>'</script><style>a{background:url(u)}</style><a href=y>";
    let d = read_document(page, &at("http://ex.com/"));
    assert_eq!(urls(&d), ["http://ex.com/y"]);
}

#[test]
fn invalid_urls_and_malformed_bytes_are_counted() {
    let utf8 = DocumentOptions {
        transport: Some(encoding_rs::UTF_8),
        ..at("http://ex.com/")
    };
    let d = read_document(b"<a href='http://[::1'>\xFF<a href=//h:99999/>", &utf8);
    assert_eq!(d.stats.invalid, 2);
    assert_eq!(d.malformed, 1);
    assert!(d.text.contains('\u{FFFD}'));
}

#[test]
fn foreign_content_read_as_html_gives_the_links_of_libxml2s_tree() {
    // each page's links as HTML reads them (SVG and MathML foreign content) and as libxml2
    // (lxml 6.1.3, through Scrapy's link extractor) does
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "<svg><title><a href=/x>t</a></title></svg>",
            &["http://h.test/x"],
            &[],
        ),
        (
            // HTML: `<li>` leaves MathML, then `<style>` is raw text to the end; libxml2:
            // `<textarea>` is RCDATA to its end tag
            "<math><textarea><li><style></textarea><area href=/ar>",
            &[],
            &["http://h.test/ar"],
        ),
        (
            "<svg><![CDATA[<a href=/c>c</a>]]></svg><a href=/y>y</a>",
            &["http://h.test/y"],
            &["http://h.test/y"],
        ),
        (
            "<svg><a href=/s>s</a></svg><math><mi><a href=/m>m</a></mi></math>",
            &["http://h.test/s", "http://h.test/m"],
            &["http://h.test/s", "http://h.test/m"],
        ),
    ];
    for (page, html5, libxml2) in cases {
        let d = read_document(page.as_bytes(), &at("http://h.test/"));
        assert_eq!(urls(&d), html5, "{page}");
        let o = DocumentOptions {
            foreign_as_html: true,
            ..at("http://h.test/")
        };
        assert_eq!(urls(&read_document(page.as_bytes(), &o)), libxml2, "{page}");
    }
}

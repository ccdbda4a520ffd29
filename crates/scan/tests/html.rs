//! The rules of `linksieve_scan::html`, one test each: which attributes count, how values are
//! decoded and stripped, which parts of a document hold no tags, and that every way of cutting
//! a document into chunks gives the same outlinks.

use linksieve_scan::html::{AttrKind, HtmlScanner, HtmlSummary, Outlink, URL_ATTRIBUTES, outlinks};

/// (tag, attr, value) of every outlink.
fn triples(html: &str) -> Vec<(String, String, String)> {
    let mut v = Vec::new();
    outlinks(html, |o| {
        v.push((o.tag.to_string(), o.attr.to_string(), o.value.into_owned()))
    });
    v
}

/// The values only.
fn values(html: &str) -> Vec<String> {
    triples(html).into_iter().map(|t| t.2).collect()
}

fn all(html: &str) -> (Vec<Outlink<'static>>, HtmlSummary) {
    let mut v = Vec::new();
    let s = outlinks(html, |o| v.push(o.into_owned()));
    (v, s)
}

#[test]
fn every_row_of_the_table() {
    for row in URL_ATTRIBUTES {
        let (doc, want) = match (row.tag, row.kind) {
            ("meta", _) => (
                r#"<meta http-equiv=refresh content="0; url=/u-meta">"#.to_string(),
                "/u-meta".to_string(),
            ),
            (tag, AttrKind::Srcset) => (
                format!(r#"<{tag} {}="/u-{tag} 2x">"#, row.attr),
                format!("/u-{tag}"),
            ),
            (tag, _) => (
                format!(r#"<{tag} {}=" /u-{tag}-{} ">"#, row.attr, row.attr),
                format!("/u-{tag}-{}", row.attr),
            ),
        };
        let (found, _) = all(&doc);
        assert_eq!(found.len(), 1, "{doc}");
        let o = &found[0];
        assert_eq!(
            (o.tag, o.attr, o.kind),
            (row.tag, row.attr, row.kind),
            "{doc}"
        );
        assert_eq!(o.value, want, "{doc}");
        assert_eq!(&doc[o.start..o.end], want, "{doc}");
    }
    // and nothing else: attributes that hold no URL, elements that hold none
    assert!(values("<a title=/x name=/y><img alt=/z><div href=/w><link rel=icon>").is_empty());
}

#[test]
fn image_is_img() {
    assert_eq!(
        triples("<IMAGE SRC=x>"),
        [("img".into(), "src".into(), "x".into())]
    );
}

#[test]
fn first_base_with_href_only() {
    let (found, s) = all("<base target=_top><a href=a><base href='/one/'><base href=/two/>");
    let v: Vec<_> = found.iter().map(|o| (o.tag, o.value.as_ref())).collect();
    assert_eq!(v, [("a", "a"), ("base", "/one/")]);
    assert_eq!(s.base.unwrap().href, "/one/");
    let (_, s) = all("<base><base target=x>");
    assert_eq!(s.base, None);
    // an empty href counts (it is the document's address)
    let (_, s) = all("<base href><base href=/x/>");
    assert_eq!(s.base.unwrap().href, "");
    // not in SVG
    let (_, s) = all("<svg><base href=/svg/></svg><base href=/html/>");
    assert_eq!(s.base.unwrap().href, "/html/");
}

#[test]
fn character_references() {
    assert_eq!(values("<a href='?a=1&amp;b=2'>"), ["?a=1&b=2"]);
    assert_eq!(values("<a href='?a=1&amp=2'>"), ["?a=1&amp=2"]);
    assert_eq!(values("<a href='?a=1&ampx'>"), ["?a=1&ampx"]);
    assert_eq!(values("<a href='?a=1&amp/'>"), ["?a=1&/"]);
    assert_eq!(
        values("<a href='?lang=1&copy=2&copy;=3'>"),
        ["?lang=1&copy=2©=3"]
    );
    assert_eq!(values("<a href='&#x2F;&#47;a&#X2e;b&#46c'>"), ["//a.b.c"]);
    assert_eq!(
        values("<a href='&#0;&#x80;&#xD800;'>"),
        ["\u{FFFD}\u{20AC}\u{FFFD}"]
    );
    assert_eq!(values("<a href=&quot;x&quot;>"), ["\"x\""]);
    assert_eq!(values("<a href='&unknown; &'>"), ["&unknown; &"]);
}

#[test]
fn ascii_whitespace_is_stripped_and_nothing_else() {
    assert_eq!(values("<a href=' \t\n\r\x0Cx y\x0C\r\n\t '>"), ["x y"]);
    assert_eq!(values("<a href='&#32;&#9;x&#10;'>"), ["x"]);
    assert_eq!(values("<a href='\u{A0}x\u{3000}'>"), ["\u{A0}x\u{3000}"]);
    assert_eq!(values("<a href='\u{B}x'>"), ["\u{B}x"]);
    let doc = "<a href=' &#32;x&amp;y '>";
    let (found, _) = all(doc);
    assert_eq!(&doc[found[0].start..found[0].end], "x&amp;y");
}

#[test]
fn newlines_and_nul_in_values() {
    assert_eq!(values("<a href='a\r\nb\rc\0'>"), ["a\nb\nc\u{FFFD}"]);
}

#[test]
fn srcset() {
    let doc = r#"<img srcset="a.png 1x, b,c.png 2x,data:image/png;base64,AA== 3x, d.png 100w 5h , e.png 2y, f.png">"#;
    let (found, s) = all(doc);
    let v: Vec<_> = found.iter().map(|o| o.value.as_ref()).collect();
    assert_eq!(
        v,
        [
            "a.png",
            "b,c.png",
            "data:image/png;base64,AA==",
            "d.png",
            "f.png"
        ]
    );
    for o in &found {
        assert_eq!(&doc[o.start..o.end], o.value);
        assert_eq!(o.kind, AttrKind::Srcset);
    }
    assert_eq!(s.stats.srcset_dropped, 1);
    // descriptors are case-sensitive; candidates come after a decoded comma too
    assert_eq!(values("<img srcset='a 2X, b'>"), ["b"]);
    assert_eq!(values("<img srcset='a&#44;b 2x&#44; c'>"), ["a,b", "c"]);
    assert_eq!(values("<link imagesrcset='a 1x,b 2x'>"), ["a", "b"]);
    assert_eq!(values("<source srcset='x.webp' src=y>"), ["x.webp", "y"]);
}

#[test]
fn ping() {
    assert_eq!(
        values("<a ping=' /p1 \n/p2  ' href=/h>"),
        ["/p1", "/p2", "/h"]
    );
    let (found, _) = all("<a ping=/p href=/h>");
    assert_eq!(found[0].kind, AttrKind::Ping);
}

#[test]
fn meta_refresh() {
    let v = |c: &str| values(&format!("<meta http-equiv=Refresh content=\"{c}\">"));
    assert_eq!(v("5; url=/a"), ["/a"]);
    assert_eq!(v("5;URL='/b'"), ["/b"]);
    assert_eq!(v("0, /c"), ["/c"]);
    assert_eq!(v("0 url = &quot;/d&quot; x"), ["/d"]);
    assert_eq!(v("5"), Vec::<String>::new());
    assert_eq!(v("x; url=/e"), Vec::<String>::new());
    // only with http-equiv=refresh
    assert!(values("<meta content='0; url=/f'>").is_empty());
    assert!(values("<meta name=refresh content='0; url=/f'>").is_empty());
    let doc = "<meta content='0;url=&#x2F;g' http-equiv=REFRESH>";
    let (found, _) = all(doc);
    assert_eq!(found[0].value, "/g");
    assert_eq!(&doc[found[0].start..found[0].end], "&#x2F;g");
}

#[test]
fn declared_charset() {
    let (_, s) = all("<meta charset=' ISO-8859-2 '>");
    let c = s.charset.unwrap();
    assert_eq!(
        (c.label.as_str(), c.encoding.name()),
        ("ISO-8859-2", "ISO-8859-2")
    );
    let doc = r#"<meta http-equiv=content-type content="text/html; charset='euc-jp'">"#;
    let (_, s) = all(doc);
    let c = s.charset.unwrap();
    assert_eq!(c.encoding.name(), "EUC-JP");
    assert_eq!(&doc[c.start..c.end], "euc-jp");
    // the first that names an encoding; content-type only with http-equiv
    let (_, s) = all(
        "<meta content='text/html; charset=koi8-r'><meta charset=nope><meta charset=gbk><meta charset=utf-8>",
    );
    assert_eq!(s.charset.unwrap().encoding.name(), "GBK");
    let (_, s) = all("<meta charset=utf-16>");
    assert_eq!(s.charset.unwrap().encoding.name(), "UTF-8");
}

#[test]
fn rel() {
    let (found, _) = all("<link href=/s.css REL=' Stylesheet '><img src=x rel=y><a href=z>");
    let rels: Vec<_> = found.iter().map(|o| o.rel.as_deref()).collect();
    assert_eq!(rels, [Some("Stylesheet"), None, None]);
}

#[test]
fn comments_hold_no_tags() {
    assert!(values("<!-- <a href=x> -->").is_empty());
    assert!(values("<!-- -- > <a href=x> -->").is_empty());
    assert!(values("<!-- <!-- <a href=x> -->").is_empty());
    assert_eq!(values("<!--><a href=y>"), ["y"]);
    assert_eq!(values("<!---><a href=y>"), ["y"]);
    assert_eq!(values("<!-- x --!><a href=y>"), ["y"]);
    assert_eq!(values("<!-- x ---><a href=y>"), ["y"]);
    assert_eq!(values("<!-- x --!-><a href=z> --><a href=y>"), ["y"]);
    // bogus comments and DOCTYPE end at the first `>`
    assert!(values("<! <a href=x>").is_empty());
    assert!(values("<?php <a href=x> ?>").is_empty());
    assert_eq!(values("<?php x ?><a href=y>"), ["y"]);
    assert_eq!(values("</ x><a href=y>"), ["y"]);
    assert_eq!(values("<!DOCTYPE html PUBLIC \"a>b\"><a href=y>"), ["y"]);
    assert_eq!(values("<!-x><a href=y>"), ["y"]);
    // CDATA is a bogus comment in HTML content
    assert_eq!(values("<![CDATA[ > <a href=y> ]]>"), ["y"]);
}

#[test]
fn script_and_style_hold_no_tags() {
    assert_eq!(values("<script><a href=x></script><a href=y>"), ["y"]);
    assert_eq!(
        values("<script src=s><a href=x></script><a href=y>"),
        ["s", "y"]
    );
    assert_eq!(
        values("<SCRIPT>'</scr' + 'ipt><a href=x>'</SCRIPT ><a href=y>"),
        ["y"]
    );
    assert_eq!(values("<script>x</script foo=bar><a href=y>"), ["y"]);
    assert_eq!(
        values("<script>x</scriptx><a href=n></script/><a href=y>"),
        ["y"]
    );
    assert_eq!(values("<script/><a href=x></script><a href=y>"), ["y"]);
    // script data escaped: `<!--` ... `<script>` ... `</script>` stays inside
    assert_eq!(
        values("<script><!--<script>x</script><a href=n></script><a href=y>"),
        ["y"]
    );
    assert_eq!(
        values("<script><!-- <script> </script> --></script><a href=y>"),
        ["y"]
    );
    // `-->` leaves the double escaped state for script data, where `</script>` ends it
    assert_eq!(
        values("<script><!-- <script>x--></script><a href=n></script><a href=y>"),
        ["n", "y"]
    );
    assert_eq!(values("<script><!--x--></script><a href=y>"), ["y"]);
    assert_eq!(
        values("<style>a{b:url(x)}<a href=x></style><a href=y>"),
        ["y"]
    );
    assert_eq!(values("<style><!--</style><a href=y>-->"), ["y"]);
}

#[test]
fn text_elements_hold_no_tags() {
    assert_eq!(values("<title><a href=x></title><a href=y>"), ["y"]);
    assert_eq!(
        values("<TEXTAREA><a href=x></textareax></TextArea><a href=y>"),
        ["y"]
    );
    assert_eq!(values("<xmp><a href=x></xmp><a href=y>"), ["y"]);
    assert_eq!(
        values("<iframe src=f><a href=x></iframe><a href=y>"),
        ["f", "y"]
    );
    assert_eq!(values("<noembed><a href=x></noembed><a href=y>"), ["y"]);
    assert_eq!(values("<noframes><a href=x></noframes><a href=y>"), ["y"]);
    assert!(values("<plaintext><a href=x></plaintext><a href=y>").is_empty());
    // noscript is markup (scripting disabled)
    assert_eq!(values("<noscript><img src=p></noscript>"), ["p"]);
}

#[test]
fn foreign_content() {
    assert_eq!(values("<svg><style><a href=x></a></style></svg>"), ["x"]);
    assert_eq!(
        values("<svg><title><a href=x></title></svg><title><a href=n></title>"),
        ["x"]
    );
    assert!(values("<svg><![CDATA[ > <a href=n> ]]></svg>").is_empty());
    assert_eq!(
        values("<svg><![CDATA[ > <a href=n> ]]><a href=y></svg>"),
        ["y"]
    );
    // a breakout tag ends SVG
    assert!(values("<svg><p><style><a href=n></style>").is_empty());
    // HTML inside an integration point
    assert!(
        values("<svg><foreignObject><style><a href=n></style></foreignObject></svg>").is_empty()
    );
    assert!(values("<math><mi><style><a href=n></style></mi></math>").is_empty());
    assert_eq!(
        values("<math><mi></mi><style><a href=x></style></math>"),
        ["x"]
    );
    assert_eq!(
        values("<svg></svg><style><a href=n></style><a href=y>"),
        ["y"]
    );
    assert_eq!(values("<svg/><style><a href=n></style><a href=y>"), ["y"]);
    assert!(values("<svg><font color=red><style><a href=n></style>").is_empty());
    assert_eq!(values("<svg><font><style><a href=x></style>"), ["x"]);
    assert!(
        values("<math><annotation-xml encoding=Text/HTML><style><a href=n></style>").is_empty()
    );
}

#[test]
fn uppercase_tags_and_attributes() {
    assert_eq!(
        triples("<A HREF=X><IMG SrC='Y'><FORM ACTION=Z>"),
        [
            ("a".into(), "href".into(), "X".into()),
            ("img".into(), "src".into(), "Y".into()),
            ("form".into(), "action".into(), "Z".into())
        ]
    );
}

#[test]
fn first_of_duplicate_attributes() {
    assert_eq!(values("<a href=1 HREF=2 href=3>"), ["1"]);
    assert_eq!(values("<a href='1'href=2>"), ["1"]);
    assert_eq!(values("<img srcset=a src=b srcset=c src=d>"), ["a", "b"]);
}

#[test]
fn attribute_syntax() {
    assert_eq!(values("<a href=a?b=c&d=e>"), ["a?b=c&d=e"]);
    assert_eq!(values("<a href=x/>"), ["x/"]);
    assert_eq!(values("<a href=x />"), ["x"]);
    assert_eq!(values("<a href=\"x\"/>"), ["x"]);
    assert_eq!(values("<a/href=x>"), ["x"]);
    assert_eq!(values("<a / href=x>"), ["x"]);
    assert_eq!(values("<a href = \"x\" >"), ["x"]);
    assert_eq!(values("<a href==x>"), ["=x"]);
    assert_eq!(values("<a href=>"), [""]);
    assert_eq!(values("<a href>"), [""]);
    assert_eq!(values("<a href=\"a'b\">"), ["a'b"]);
    assert_eq!(values("<a href='a\"b'>"), ["a\"b"]);
    assert_eq!(values("<a href=a\"b'c<d>"), ["a\"b'c<d"]);
    assert_eq!(values("<a =href=x>"), Vec::<String>::new());
    assert_eq!(values("<a \"href\"=x>"), Vec::<String>::new());
    assert_eq!(values("<a\thref=x\nrel=y\x0Cping=z>"), ["x", "z"]);
    assert_eq!(values("<a href='x>y'>"), ["x>y"]);
    // end tags and unfinished tags give nothing
    assert!(values("</a href=x>").is_empty());
    assert!(values("<a href=x").is_empty());
    assert!(values("<a href='x>").is_empty());
    assert!(values("< a href=x>").is_empty());
    assert!(values("<1 href=x>").is_empty());
}

#[test]
fn spans_and_empty_values() {
    let doc = "<a href>.<a href=''>.<a href=\"\u{e9}&amp;\">";
    let (found, _) = all(doc);
    let spans: Vec<_> = found.iter().map(|o| (o.start, o.end)).collect();
    assert_eq!(spans, [(7, 7), (18, 18), (30, 37)]);
    assert_eq!(&doc[30..37], "\u{e9}&amp;");
}

#[test]
fn schemes_are_not_judged() {
    assert_eq!(
        values("<a href='javascript:go()'><a href=mailto:x@y><img src='data:,x'><a href=#top>"),
        ["javascript:go()", "mailto:x@y", "data:,x", "#top"]
    );
}

#[test]
fn long_tags_are_skipped_and_counted() {
    let doc = format!("<a href=/1><img src='{}'><a href=/2>", "x".repeat(100));
    let mut s = HtmlScanner::with_max_tag_len(64);
    let mut v = Vec::new();
    s.feed(&doc, |o| v.push(o.value.into_owned()));
    assert_eq!(v, ["/1", "/2"]);
    assert_eq!(s.stats().skipped_tags, 1);
    // one that never ends keeps no more than the limit, and its outlinks are skipped too
    let doc = format!("<a{}><a href=/2>", " href=x".repeat(10_000));
    let mut s = HtmlScanner::with_max_tag_len(64);
    let mut v = Vec::new();
    for piece in doc.as_bytes().chunks(100) {
        s.feed(std::str::from_utf8(piece).unwrap(), |o| {
            v.push(o.value.into_owned())
        });
    }
    assert_eq!(v, ["/2"]);
    assert_eq!(s.stats().skipped_tags, 1);
    // a long tag that holds no link is no loss
    let doc = format!("<div data-x='{}'><a href=/1>", "x".repeat(100));
    let mut s = HtmlScanner::with_max_tag_len(64);
    s.feed(&doc, |_| {});
    assert_eq!((s.stats().skipped_tags, s.stats().outlinks), (0, 1));
}

/// Every outlink of `doc` fed in the given pieces, with base, charset and counters.
fn fed(pieces: &[&str], max: usize) -> (Vec<Outlink<'static>>, HtmlSummary) {
    let mut s = HtmlScanner::with_max_tag_len(max);
    let mut v = Vec::new();
    for p in pieces {
        s.feed(p, |o| v.push(o.into_owned()));
    }
    (v, s.finish())
}

const SMALL: &str = "<!DOCTYPE html><html><head><meta charset=utf-8><base href='/b/'>\
<title>a <a href=n> b</title><script>if (a<b) x='<a href=n>'; <!-- <script> </script> --></script>\
</head><body><A HREF=\"/x?a=1&amp;b=2\" rel=next>t\u{e9}</A><!-- <a href=n> --><img src=i.png \
srcset='i1.png 1x,i2.png 2x'><svg><![CDATA[<a href=n>]]><a href=s></svg>\
<meta http-equiv=refresh content='5; url=/r'><textarea><a href=n></textarea><a href=/\u{e9}&#xe9;>";

#[test]
fn every_cut_gives_the_same_outlinks() {
    let (want, want_summary) = fed(&[SMALL], 1 << 20);
    let got: Vec<&str> = want.iter().map(|o| o.value.as_ref()).collect();
    assert_eq!(
        got,
        [
            "/b/",
            "/x?a=1&b=2",
            "i.png",
            "i1.png",
            "i2.png",
            "s",
            "/r",
            "/\u{e9}\u{e9}"
        ]
    );
    let cuts: Vec<usize> = (0..=SMALL.len())
        .filter(|&i| SMALL.is_char_boundary(i))
        .collect();
    for &i in &cuts {
        assert_eq!(
            fed(&[&SMALL[..i], &SMALL[i..]], 1 << 20),
            (want.clone(), want_summary.clone()),
            "cut at {i}"
        );
    }
    for (a, &i) in cuts.iter().enumerate().step_by(3) {
        for &j in &cuts[a..] {
            let (v, s) = fed(&[&SMALL[..i], "", &SMALL[i..j], &SMALL[j..]], 1 << 20);
            assert!(v == want && s == want_summary, "cuts at {i}, {j}");
        }
    }
    // one byte at a time
    let pieces: Vec<&str> = cuts.windows(2).map(|w| &SMALL[w[0]..w[1]]).collect();
    assert_eq!(fed(&pieces, 1 << 20), (want, want_summary));
}

#[test]
fn every_cut_skips_the_same_long_tags() {
    let max = 40;
    let (want, want_summary) = fed(&[SMALL], max);
    assert!(want_summary.stats.skipped_tags > 0);
    for i in (0..=SMALL.len()).filter(|&i| SMALL.is_char_boundary(i)) {
        assert_eq!(
            fed(&[&SMALL[..i], &SMALL[i..]], max),
            (want.clone(), want_summary.clone()),
            "cut at {i}"
        );
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that move the tokenizer between its states.
    const PIECES: &[&str] = &[
        "<",
        ">",
        "/",
        "!",
        "-",
        "=",
        "\"",
        "'",
        " ",
        "\n",
        "\r",
        "\0",
        "&",
        ";",
        "#",
        "x",
        "a",
        "é",
        "中",
        "]",
        ",",
        "<a href=",
        "<img srcset=\"",
        " 2x,",
        "</a>",
        "<script>",
        "</script>",
        "<script",
        "<!--",
        "-->",
        "--!>",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<textarea>",
        "<svg>",
        "</svg>",
        "<math>",
        "<mi>",
        "<foreignObject>",
        "<![CDATA[",
        "]]>",
        "<base href=",
        "<meta http-equiv=refresh content='0;url=",
        "<meta charset=",
        "&amp;",
        "&#x2F;",
        "&copy",
        "<p>",
        "<plaintext>",
        "<!DOCTYPE ",
        "<?",
        "</",
        "HREF",
        " ping=",
        " rel=",
        "<iframe>",
        "</iframe>",
        "<xmp>",
    ];

    fn doc() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..80).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10000))]

        /// Any cut gives the outlinks of the whole; spans lie in the input, on character
        /// boundaries, in order; a value without references is its span's text, stripped.
        #[test]
        fn cuts_and_spans(d in doc(), cuts in prop::collection::vec(0usize..400, 0..6), max in prop::sample::select(vec![8usize, 32, 1 << 20])) {
            let (want, want_summary) = fed(&[&d], max);
            let mut at: Vec<usize> = cuts.into_iter().map(|c| c.min(d.len())).filter(|&c| d.is_char_boundary(c)).collect();
            at.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for c in at {
                pieces.push(&d[from..c]);
                from = c;
            }
            pieces.push(&d[from..]);
            let (got, got_summary) = fed(&pieces, max);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&got_summary, &want_summary);
            let mut last = 0;
            for o in &want {
                prop_assert!(o.start <= o.end && o.end <= d.len());
                prop_assert!(d.is_char_boundary(o.start) && d.is_char_boundary(o.end));
                prop_assert!(o.start >= last);
                last = o.start;
                let raw = &d[o.start..o.end];
                if !raw.contains(['&', '\r', '\0']) && o.kind != AttrKind::Refresh {
                    prop_assert_eq!(raw, o.value.as_ref());
                }
            }
        }
    }
}

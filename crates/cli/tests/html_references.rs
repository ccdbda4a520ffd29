//! `run --html` (issue #18 item 8): a link found in HTML text ends where it would end if the
//! text had been decoded first. Oracle: the HTML text is decoded by a reference decoder written
//! here (independent of the `htmlize` crate that `--html` uses; its output for these inputs is
//! the same as Python's `html.unescape`), and `run` without `--html` on the decoded text must
//! give the same keys, in the same order, as `run --html` on the HTML text.

use crate::common;
use common::linksieve;

/// The named references the inputs use (HTML's table, with their `;`).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("rsquo", '\u{2019}'),
    ("ldquo", '\u{201C}'),
    ("nbsp", '\u{A0}'),
    ("hellip", '\u{2026}'),
    ("eacute", 'é'),
    ("lpar", '('),
    ("laquo", '\u{AB}'),
    ("quest", '?'),
];

/// Decodes `&name;`, `&#N;` and `&#xH;`; anything else is copied.
fn reference_unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let decoded = rest.find(';').and_then(|q| {
            let body = &rest[1..q];
            let c = if let Some(hex) = body.strip_prefix("#x").or(body.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
            } else if let Some(dec) = body.strip_prefix('#') {
                dec.parse().ok().and_then(char::from_u32)
            } else {
                NAMED.iter().find(|(n, _)| *n == body).map(|&(_, c)| c)
            };
            c.map(|c| (c, q + 1))
        });
        match decoded {
            Some((c, n)) => {
                out.push(c);
                rest = &rest[n..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn keys(args: &[&str], stdin: &str) -> Vec<String> {
    let r = linksieve(args, stdin);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout.lines().map(str::to_owned).collect()
}

/// References at the end of a link and inside it, followed by text, punctuation or nothing.
fn html_text() -> String {
    let refs = [
        "&#39;", "&apos;", "&rsquo;", "&#x2019;", "&#x202E;", "&#x200F;", "&#x200B;", "&#8203;",
        "&quot;", "&gt;", "&lt;", "&nbsp;", "&#x3000;", "&#46;", "&#44;", "&#41;", "&#40;",
        "&#x29;", "&amp;", "&hellip;", "&ldquo;", "&eacute;", "&#x3092;", "&#x20;", "&#9;",
        "&#x7C;", "&#x60;", "&lpar;", "&#x5B;", "&laquo;", "&#63;", "&quest;", "&#xE000;",
    ];
    let after = [
        "",
        " next",
        "s",
        ".",
        "x/y",
        "&#39; z",
        ") w",
        "]] w",
        "» w",
        "=\u{E000}v",
        "を参照",
    ];
    let mut s = String::new();
    let mut n = 0;
    for r in refs {
        for a in after {
            n += 1;
            s.push_str(&format!("<p>see http://ex.com/p{n}{r}{a} end</p>\n"));
            n += 1;
            s.push_str(&format!("(http://ex.com/q{n}?a=1&amp;b{r}{a})\n"));
        }
    }
    s.push_str("<a href=\"http://ex.com/r?x=1&amp;y=2\">&lt;http://ex.com/s&gt;</a>\n");
    s.push_str("http://ex.com/t&#40;x&#41; http://ex.com/u&#x5B;1&#x5D;.\n");
    s.push_str("http://ex.com/caf&eacute;/fooを参照 http://ex.com/v&#63;q=\u{E000}x\n");
    s
}

#[test]
fn html_links_end_where_the_decoded_text_ends_them() {
    let html = html_text();
    let decoded = reference_unescape(&html);
    let want = keys(&["run", "-q", "-"], &decoded);
    let got = keys(&["run", "-q", "--html", "-"], &html);
    assert!(want.len() > 300, "{}", want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len());
    // the same in the smallest chunks, 4 KiB (references cut by a chunk)
    let small = keys(&["run", "-q", "--html", "--chunk-size", "4K", "-"], &html);
    assert_eq!(small, got);
}

#[test]
fn html_reference_cases_by_hand() {
    let html = "see http://ex.com/a&#39; and http://ex.com/b&apos;. and http://ex.com/c&rsquo;s\n\
                http://ex.com/d&#x202E;evil http://ex.com/e&#x200F;x http://ex.com/f&#x200B;y\n\
                http://ex.com/g?x=1&amp;y=2 (http://ex.com/h&#41;)\n";
    assert_eq!(
        keys(&["run", "-q", "--html", "-"], html),
        [
            "http://ex.com/a",
            "http://ex.com/b",
            "http://ex.com/c",
            "http://ex.com/d",
            "http://ex.com/e",
            "http://ex.com/f",
            "http://ex.com/g?x=1&y=2",
            "http://ex.com/h",
        ]
    );
}

#[test]
fn the_reference_decoder_decodes() {
    assert_eq!(
        reference_unescape("a&#39;b&#x202E;&amp;&apos;&nbsp;&zz;&#xZZ;&"),
        "a'b\u{202E}&'\u{A0}&zz;&#xZZ;&"
    );
}

//! The rules of the urlcanon profiles, on cases whose keys come from urlcanon 0.3.1 itself
//! (`str(urlcanon.semantic_precise(b"..."))`, in a venv made by `scripts/venv.sh target/prof-venv
//! benches/profiles/requirements.txt`), and properties: idempotence on the peer vectors, no
//! panic on any bytes, nothing copied for canonical fields.

use super::text::{self, Bytes};
use super::*;
use proptest::prelude::*;

fn sem(s: &[u8]) -> Option<String> {
    let mut out = String::new();
    semantic_precise(s, &mut out).ok().map(|()| out)
}

fn agg(s: &[u8]) -> Option<String> {
    let mut out = String::new();
    aggressive(s, &mut out).ok().map(|()| out)
}

/// `(input, semantic_precise)`, as the library gives them.
const SEMANTIC: &[(&[u8], &str)] = &[
    // default_scheme_http re-reads only the path: the host is the first path segment.
    (b"//foo.com/bar", "http://bar/"),
    (b"http:", "http:/"),
    // Python's int(): signs, underscores, whitespace; empty parts are 0.
    (b"http://1.-1/", "http://0.255.255.255/"),
    (b"http://./", "http://0.0.0.0/"),
    (b"http://0x0x10/", "http://0.0.0.16/"),
    (b"http://1_0/", "http://0.0.0.10/"),
    (b"http:// 12 /", "http://0.0.0.12/"),
    (b"http://%2b5/", "http://0.0.0.5/"),
    // IDNA: an ASCII host outside LDH is left as it is, case and all.
    (
        b"http://My_Host.Example.com/",
        "http://My_Host.Example.com/",
    ),
    ("http://\u{2603}.net/".as_bytes(), "http://xn--n3h.net/"),
    ("http://fa\u{df}.de/".as_bytes(), "http://xn--fa-hia.de/"),
    (
        "http://\u{5d0}1.2.3.4/".as_bytes(),
        "http://xn--1-zhc.2.3.4/",
    ),
    (
        b"http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.COM/",
        "http://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.COM/",
    ),
    (b"http://\x01\x80.com/", "http://%01%80.com/"),
    // IDNA 2008 refuses the katakana middle dot without kana or Han beside it: the IDNA 2003
    // fallback maps ß to ss.
    ("http://\u{df}\u{30fb}/".as_bytes(), "http://xn--ss-4n4a/"),
    // The fallback lower-cases with Python's str.lower() (Cherokee capitals included).
    (
        "http://\u{c0}\u{13ce}..\u{e9}\u{660}\u{65e5}c\u{b7}.\u{1580}/".as_bytes(),
        "http://xn--0ca4358f.xn--c-gda2mv7tk97k.xn--vne/",
    ),
    // Its bidi rule knows only Unicode 3.2 (U+076E came in 4.1).
    (
        "http://1\u{431}\u{16b}\u{4e2d}\u{430}\u{434}-h.\u{b7}\u{76e}/".as_bytes(),
        "http://xn--1-h-50a956aeax8062m.xn--uba255a/",
    ),
    // ... and refuses an R label ending in a digit, leaving the host as it is.
    (
        "http://\u{5d0}\u{2603}010/".as_bytes(),
        "http://%D7%90%E2%98%83010/",
    ),
    // IPv6 through Python's ipaddress: scope dropped, no IPv4 tail, first longest run.
    (b"http://[fe80::1%25eth0]/", "http://[fe80::1]/"),
    (b"http://[::ffff:1.2.3.4]/", "http://[::ffff:102:304]/"),
    (b"http://[::]/", "http://[::]/"),
    (b"http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/"),
    // userinfo: the last @ when there is no colon before it.
    (b"http://a@b@c/", "http://c/"),
    // The scheme runs to the first colon.
    (b"example.com:8080/x", "example.com:8080/x"),
    // The default port is compared before %-decoding.
    (b"http://h:%380/", "http://h:80/"),
    (b"http://h:80/", "http://h/"),
    (b"file:foo", "file:///foo"),
    (b"http://a/b/../../c/./d/..", "http://a/c/"),
    (b"http://a//b///c", "http://a/b/c"),
    (b"http://a/%2541%%341", "http://a/AA"),
    (
        b"http://a/?b=2&a=1&c=%41&d=x=y",
        "http://a/?a=1&b=2&c=A&d=x%3Dy",
    ),
    (b"http://a/b?x&&y&", "http://a/b?&&x&y"),
    (b"http://a/p?#f g", "http://a/p?#f%20g"),
    // The scheme is special only once decoded: its authority was read the non-special way.
    (b"ht%74p://a\\b\\c", "http://a\\b\\c/"),
    // fix_host_dots' `$` matches before a final newline.
    (b"http://99..%0a/", "http://99%0A/"),
    (b"mailto:Joe@Example.COM", "mailto:Joe@Example.COM"),
    (b"http://EXAMPLE.com.", "http://example.com/"),
    (b"  \thttp://a/\t ", "http://a/"),
];

/// `(input, aggressive)`, as the library gives them.
const AGGRESSIVE: &[(&[u8], &str)] = &[
    (
        b"HTTPS://www2.Example.com/A/B/?B=2&A=1&&",
        "http://example.com/a/b?a=1&b=2",
    ),
    (
        b"http://www.a.com/(abcdefghijklmnopqrstuvwx)/x.aspx",
        "http://a.com/x.aspx",
    ),
    (
        b"http://a/(a(0123456789abcdefghijklmn)b(0123456789abcdefghijklmn))/x.aspx",
        "http://a/x.aspx",
    ),
    (
        b"http://a/p;jsessionid=0123456789abcdef0123456789ABCDEF",
        "http://a/p",
    ),
    (b"http://a/?sid=0123456789abcdef&x=1", "http://a/?x=1"),
    // The `&` a match ends with is consumed: the next parameter cannot match.
    (
        b"http://a/?x=1&jsessionid=0123456789&sid=0123456789abcdef",
        "http://a/?sid=0123456789abcdef&x=1",
    ),
    (b"http://a/?cfid=12&cftoken=ab-c&z", "http://a/?z"),
    (
        b"http://a/?aspsessionidABCDEFGH=0123456789abcdef",
        "http://a/",
    ),
    (b"http://a/?&&", "http://a/"),
    (b"http://a/#frag", "http://a/"),
    (b"http://wwwx.a/", "http://wwwx.a/"),
];

#[test]
fn semantic_precise_as_the_library() {
    for (input, want) in SEMANTIC {
        assert_eq!(
            sem(input).as_deref(),
            Some(*want),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn aggressive_as_the_library() {
    for (input, want) in AGGRESSIVE {
        assert_eq!(
            agg(input).as_deref(),
            Some(*want),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn a_negative_ipv4_number_raises() {
    // ipaddress.IPv4Address(-1) raises AddressValueError: the library's one exception.
    assert_eq!(sem(b"http://-1/"), None);
    assert_eq!(agg(b"http://0x-1.5/"), None);
    assert_eq!(
        sem(b"http://1.-1/").as_deref(),
        Some("http://0.255.255.255/")
    );
}

#[test]
fn repeated_decoding_reaches_the_fixed_point() {
    let dec = |s: &[u8]| {
        let mut v = Vec::new();
        text::pct_decode_into(s, &mut v);
        v
    };
    assert_eq!(dec(b"%2541"), b"A");
    assert_eq!(dec(b"%%341"), b"A");
    assert_eq!(dec(b"%4%31"), b"A");
    assert_eq!(dec(b"%%3441"), b"D1");
    assert_eq!(dec(b"%zz%"), b"%zz%");
}

#[test]
fn canonical_fields_are_not_copied() {
    let b = |s: &'static [u8]| -> Bytes<'static> { Bytes::Borrowed(s) };
    let borrowed = |c: &Bytes<'_>| matches!(c, Bytes::Borrowed(_));
    assert!(borrowed(&text::pct_decode(b(b"/a/b%zz"))));
    assert!(borrowed(&text::pct_encode(b(b"/a/b"), text::path_set)));
    assert!(borrowed(&text::resolve_dots(b(b"/a/.b/c"), true)));
    assert!(borrowed(&text::collapse_slashes(b(b"/a/b/"))));
    assert!(borrowed(&rules::recode(b(b"a=1&b=2"))));
    assert!(borrowed(&rules::sort(b(b"a=1&b=2"))));
    assert!(borrowed(
        &host::canonicalize(b(b"example.com"), true).unwrap()
    ));
}

/// The inputs of a vector file.
fn vector_inputs(file: &str) -> Vec<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/normalize/");
    let text = std::fs::read_to_string(format!("{path}{file}")).expect("vectors");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            match v["input_hex"].as_str() {
                Some(h) => (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex"))
                    .collect(),
                None => v["input"].as_str().expect("input").as_bytes().to_vec(),
            }
        })
        .collect()
}

#[test]
fn idempotent_on_the_vectors() {
    for (file, f) in [
        (
            "urlcanon-semantic-precise.jsonl",
            sem as fn(&[u8]) -> Option<String>,
        ),
        ("urlcanon-aggressive.jsonl", agg),
    ] {
        for input in vector_inputs(file) {
            let Some(once) = f(&input) else { continue };
            assert_eq!(
                f(once.as_bytes()).as_deref(),
                Some(&*once),
                "{file}: {once}"
            );
        }
    }
}

proptest! {
    #[test]
    fn any_bytes_give_ascii_or_the_one_error(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        for f in [sem, agg] {
            if let Some(out) = f(&input) {
                prop_assert!(out.is_ascii());
            }
        }
    }

}

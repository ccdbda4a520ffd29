//! The w3lib profile's rules, one by one, against what w3lib 2.5.0 returns (each expected key
//! was printed by `w3lib.url.canonicalize_url` under Python 3.11.7), and idempotence on the
//! kasztp list.

use super::super::{Profile, ProfileOptions};
use super::canonicalize;

/// The key under the default options, or `None` where the library raises.
fn key(input: &str) -> Option<String> {
    key_with(input, &ProfileOptions::default())
}

/// The key under `o`.
fn key_with(input: &str, o: &ProfileOptions) -> Option<String> {
    let mut out = String::new();
    canonicalize(input.as_bytes(), o, &mut out)
        .ok()
        .map(|()| out)
}

#[test]
fn library_examples() {
    let cases = [
        ("foo:", "foo:/"),
        ("http:;x", "http:///;x"),
        ("http:/x", "http:///x"),
        ("mailto:", "mailto:/"),
        ("HTTP://a:80/", "http://a:80/"),
        ("http://a:0080/", "http://a:80/"),
        ("http://[v1.ab]/", "http://v1.ab/"),
        ("http://u[]@vA.b/", "http://u%5B%5D@/"),
        ("http://[FE80::1%25EN0]/", "http://[fe80::1%25en0]/"),
        ("http://[::ffff:1.2.3.4]/", "http://[::ffff:102:304]/"),
        ("//a/b?c", "//a/b?c="),
        ("/foo", "/foo"),
        ("a/b;c", "a/b;c"),
        ("http://@/", "http://@/"),
        ("http://a/b;c/d;e?x#y", "http://a/b;c/d;e?x="),
        ("http://a/.//x", "http://a//x"),
        ("http:/.//x", "http:////x"),
        ("http://a/%2%41", "http://a/%2A"),
        ("http://a/%%41", "http://a/%A"),
        ("http://a/?a+b=c%20d&a", "http://a/?a=&a+b=c+d"),
        ("http://a/?", "http://a/"),
        (
            "http://www.bücher.de?q=bücher",
            "http://www.xn--bcher-kva.de/?q=b%C3%BCcher",
        ),
        ("http://.éxamplé.com/", "http://.éxamplé.com/"),
    ];
    for (input, want) in cases {
        assert_eq!(key(input).as_deref(), Some(want), "{input:?}");
    }
}

#[test]
fn library_errors() {
    for input in [
        "http://[::1/",
        "http://a:b/",
        "http://a:65536/",
        "http://[1.2.3.4]/",
        "http://x[::1]/",
        "http://[::1]x/",
        "http://[V1.a]/",
        "http://a\u{FF0F}b/",
    ] {
        assert_eq!(key(input), None, "{input:?}");
    }
}

#[test]
fn options() {
    let p = Profile::parse("w3lib:keep_blank_values=false").unwrap();
    assert_eq!(
        key_with("http://a/?b=&c&a=2", &p.options).as_deref(),
        Some("http://a/?a=2")
    );
    let p = Profile::parse("w3lib:encoding=latin1").unwrap();
    assert_eq!(
        key_with("http://a/é?q=é", &p.options).as_deref(),
        Some("http://a/%C3%A9?q=%E9")
    );
    // A character the encoding cannot write: the whole call again in UTF-8.
    assert_eq!(
        key_with("http://a/?q=é&r=Я", &p.options).as_deref(),
        Some("http://a/?q=%C3%A9&r=%D0%AF")
    );
    let p = Profile::parse("w3lib:query_separator=;").unwrap();
    assert_eq!(
        key_with("http://a/?c=1;b=2&x", &p.options).as_deref(),
        Some("http://a/?b=2%26x;c=1")
    );
}

#[test]
fn bytes_that_are_not_utf8_are_decoded_in_the_encoding() {
    // canonicalize_url(bytes, keep_fragments=True[, encoding="latin1"])
    let cases: [(&[u8], &str, &str); 3] = [
        (
            b"http://a/\xff?q=\xe9",
            "http://a/%FF?q=%E9",
            "http://a/%C3%BF?q=%E9",
        ),
        (
            b"http://\xe9.com/\xe2\x82?x=\xe2\x82\xac#\xff",
            "http://%e9.com/%E2%82?x=%E2%82%AC#%FF",
            "http://xn--9ca.com/%C3%A2%C2%82?x=%E2%82%AC#%FF",
        ),
        (
            b"http://a/\xe9?q=\xe9\x80",
            "http://a/%E9?q=%E9%80",
            "http://a/%C3%A9?q=%E9%80",
        ),
    ];
    let utf8 = Profile::parse("w3lib:keep_fragments=true").unwrap().options;
    let latin1 = Profile::parse("w3lib:keep_fragments=true,encoding=latin1")
        .unwrap()
        .options;
    for (input, want_utf8, want_latin1) in cases {
        for (o, want) in [(&utf8, want_utf8), (&latin1, want_latin1)] {
            let mut out = String::new();
            canonicalize(input, o, &mut out).unwrap();
            assert_eq!(out, want, "{input:?}");
        }
    }
}

#[test]
fn idempotent_on_the_kasztp_list() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/corpora/data/url-list-kasztp.txt"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        return; // the corpus is fetched separately
    };
    let mut checked = 0;
    for url in text
        .trim_start_matches('\u{feff}')
        .split('\n')
        .filter(|l| !l.is_empty())
    {
        let Some(once) = key(url) else { continue };
        assert_eq!(key(&once).as_deref(), Some(once.as_str()), "{url:?}");
        checked += 1;
    }
    assert!(checked > 40_000, "{checked}");
}

#[test]
fn dot_segments_are_removed_as_w3lib_removes_them() {
    // expected: w3lib 2.5.0 `_remove_dot_segments` run on each path (Python, by hand)
    let cases = [
        ("/", "/"),
        ("/.", "/"),
        ("/..", "/"),
        ("/a/.", "/a/"),
        ("/a/..", "/"),
        ("/a/./b", "/a/b"),
        ("/a/../b", "/b"),
        ("/../b", "/b"),
        ("/./b", "/b"),
        ("/a//../b", "/a/b"),
        ("/a/b/../../c", "/c"),
        ("/a/b/../../../c", "/c"),
        ("/a/.../b", "/a/.../b"),
        ("/a/..b/c", "/a/..b/c"),
        ("/a/b/..", "/a/"),
        ("/a/b/../", "/a/"),
        ("//..", "/"),
        ("/a/./", "/a/"),
        ("/a/b/./../c/.", "/a/c/"),
        ("/./.", "/"),
        ("/../..", "/"),
        ("/a/../../b/./c/..", "/b/"),
    ];
    for (path, want) in cases {
        let mut out = String::from("http://h");
        let at = out.len();
        out.push_str(path);
        if super::path::has_dot_segment(path) {
            super::path::remove_dot_segments(at, &mut out);
        }
        assert_eq!(&out[at..], want, "{path}");
        assert_eq!(&out[..at], "http://h", "{path}");
    }
}

//! The crawler-commons profile's rules, one by one, and idempotence on its vectors.

use super::super::{Profile, ProfileKind};

fn key(spec: &str, input: &str) -> Option<String> {
    Profile::parse(spec).unwrap().canonicalize(input).ok()
}

fn cc(input: &str) -> Option<String> {
    key("crawler-commons", input)
}

#[test]
fn host_port_and_path() {
    assert_eq!(
        cc("HTTP://Foo.COM:80/a/./b/../c//d").unwrap(),
        "http://foo.com/a/c/d"
    );
    assert_eq!(
        cc("https://u:p@example.org.:443").unwrap(),
        "https://example.org/"
    );
    assert_eq!(cc("http://foo.com:81/").unwrap(), "http://foo.com:81/");
    assert_eq!(cc("http://x.com/../../a").unwrap(), "http://x.com/a");
    // The leading "/.." test reads index 3 each time (BasicURLNormalizer 1.6).
    assert_eq!(cc("http://h/../..x").unwrap(), "http://hx");
}

#[test]
fn escaping() {
    assert_eq!(
        cc("http://x.com/a b\u{1}é%zz%2d%2f").unwrap(),
        "http://x.com/a%20b%01%C3%A9%25zz-%2F"
    );
    assert_eq!(
        cc("http://x.com/?x[y]=1&a").unwrap(),
        "http://x.com/?a&x%5By%5D=1"
    );
    // A backslash is left as it is, and java.net.URI refuses it.
    assert_eq!(cc("http://x.com/a\\b"), None);
}

#[test]
fn query() {
    assert_eq!(
        cc("http://x.com/p?b=2&a=1&a=0&=3&c=").unwrap(),
        "http://x.com/p?a=1&a=0&b=2&c"
    );
    assert_eq!(cc("http://x.com/p?").unwrap(), "http://x.com/p");
    assert_eq!(cc("http://x.com/p?&").unwrap(), "http://x.com/p");
    // crawler-commons issue #559, as 1.6 has it.
    assert_eq!(
        cc("https://e.org/p%2d1/?b=2&a=1").unwrap(),
        "https://e.org/p-1/?b?2&a=1"
    );
    assert_eq!(
        cc("https://e.org/p%2d1/p%2d2/?b=2&a=1").unwrap(),
        "https://e.org/p-1/p-2/?b=2?a=1"
    );
    assert_eq!(cc("https://e.org/p%2d1/p%2d2/?q=f"), None);
    let p = "crawler-commons:remove_params=sid|jsessionid";
    assert_eq!(
        key(p, "http://x.com/?sid=1&jsessionid&b").unwrap(),
        "http://x.com/?b"
    );
}

#[test]
fn schemes_and_fallback() {
    assert_eq!(cc("foo.com/x").unwrap(), "http://foo.com/x");
    assert_eq!(cc("localhost:8080/x").unwrap(), "http://localhost:8080/x");
    assert_eq!(
        cc("httpbin.org/get").unwrap(),
        "http://httpbin.orghttpbin.org/get"
    );
    assert_eq!(cc("http:x").unwrap(), "http:/x");
    assert_eq!(cc("url:HTTP://a/b").unwrap(), "http://a/b");
    assert_eq!(cc("http:////").unwrap(), "http:/");
    assert_eq!(cc("file:/a/./b/../c").unwrap(), "file:/a/c");
    assert_eq!(cc("mailto:a@b?z=1&y=2").unwrap(), "mailto://a@b?y=2&z=1");
    assert_eq!(cc("gopher://a/"), None);
    assert_eq!(cc("file:x"), None);
    assert_eq!(cc("  "), None);
    assert_eq!(cc("").unwrap(), "");
}

#[test]
fn hosts() {
    assert_eq!(
        cc("http://Bücher.de./").unwrap(),
        "http://xn--bcher-kva.de/"
    );
    assert_eq!(cc("http://a%2Eb%2fc/x").unwrap(), "http://a.b/c/c/x");
    assert_eq!(cc("http://STRASSE.ß.de/").unwrap(), "http://strasse.ss.de/");
    assert_eq!(cc("http://a..ü/"), None);
    assert_eq!(cc("http://\u{5d0}a.com/"), None);
    assert_eq!(
        key("crawler-commons:idn=none", "http://Bü.de/").unwrap(),
        "http://bü.de/"
    );
    assert_eq!(
        key("crawler-commons:idn=unicode", "http://xn--bcher-kva.de/").unwrap(),
        "http://bücher.de/"
    );
    assert_eq!(
        key("crawler-commons:idn=unicode", "http://xn--zz.de/").unwrap(),
        "http://xn--zz.de/"
    );
}

#[test]
fn options_read_back() {
    let p = Profile::parse("crawler-commons:remove_params=b|a,idn=unicode").unwrap();
    assert_eq!(p.kind, ProfileKind::CrawlerCommons);
    assert_eq!(
        p.to_string(),
        "crawler-commons:idn=unicode,remove_params=a|b"
    );
    assert_eq!(Profile::parse(&p.to_string()).unwrap(), p);
    assert!(Profile::parse("crawler-commons:keep_fragments=true").is_err());
    assert!(
        Profile::parse(&format!(
            "crawler-commons:remove_params={}",
            (0..40)
                .map(|i| format!("p{i}"))
                .collect::<Vec<_>>()
                .join("|")
        ))
        .is_err()
    );
}

#[test]
fn never_panics_on_odd_input() {
    for s in [
        "%",
        "#",
        "http://",
        "http://%",
        "http://[",
        "http://[::1]/",
        "http://@@/",
        "http://:/",
        "http://a:-1/",
        "http://a:+80/",
        "http://a:99999999999/",
        "jar:http://a/b!/c",
        "jar:x",
        "\u{0}http://a",
        "http://\u{3002}/",
        "http://a\u{ff0e}b/",
        "http://xn--ü/",
        "?",
        "//a",
    ] {
        let _ = cc(s);
        let _ = key("crawler-commons:idn=unicode", s);
    }
    let mut out = String::new();
    let p = Profile::parse("crawler-commons").unwrap();
    assert!(
        p.canonicalize_bytes_into(b"http://a/\xff\xfe", &mut out)
            .is_ok()
    );
    assert_eq!(out, "http://a/%EF%BF%BD%EF%BF%BD");
}

#[test]
fn idempotent_on_vectors() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/normalize/crawler-commons-basic-url-normalizer.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = Profile::parse(v["op"].as_str().unwrap()).unwrap();
        let Ok(once) = p.canonicalize(v["input"].as_str().unwrap()) else {
            continue;
        };
        assert_eq!(
            p.canonicalize(&once).as_deref(),
            Ok(once.as_str()),
            "{}",
            v["id"]
        );
        n += 1;
    }
    assert!(n > 100);
}

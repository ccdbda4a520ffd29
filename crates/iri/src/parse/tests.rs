//! Unit tests of the parser.

use super::*;

fn ok(s: &str) -> IriRef<&str> {
    IriRef::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn components() {
    let r = ok("foo://example.com:8042/over/there?name=ferret#nose");
    assert_eq!(r.scheme(), Some("foo"));
    assert_eq!(r.authority(), Some("example.com:8042"));
    assert_eq!(r.host(), Some("example.com"));
    assert_eq!(r.port(), Some("8042"));
    assert_eq!(r.path(), "/over/there");
    assert_eq!(r.query(), Some("name=ferret"));
    assert_eq!(r.fragment(), Some("nose"));
    let r = ok("urn:example:animal:ferret:nose");
    assert_eq!(r.authority(), None);
    assert_eq!(r.path(), "example:animal:ferret:nose");
    let r = ok("");
    assert_eq!(r.path(), "");
    assert_eq!(r.scheme(), None);
    let r = ok("?#");
    assert_eq!(r.query(), Some(""));
    assert_eq!(r.fragment(), Some(""));
    let r = ok("//@:");
    assert_eq!(r.userinfo(), Some(""));
    assert_eq!(r.host(), Some(""));
    assert_eq!(r.port(), Some(""));
}

#[test]
fn iri_chars() {
    ok("http://résumé.example.org/納豆?q=\u{E000}");
    assert_eq!(
        IriRef::parse("http://x/\u{E000}").unwrap_err().component,
        Component::Path
    );
    assert!(IriRef::parse_with("http://x/é", Grammar::Uri).is_err());
    // Old Italic (RFC 3987 3.1 example) is ucschar.
    ok("http://example.com/\u{10300}\u{10301}\u{10302}");
}

#[test]
fn errors() {
    let e = IriRef::parse("a:b#c#d").unwrap_err();
    assert_eq!((e.component, e.offset), (Component::Fragment, 5));
    let e = IriRef::parse("1a:b").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::ColonInFirstSegment);
    assert!(IriRef::parse("./1a:b").is_ok());
    assert!(IriRef::parse("http://h:8a/").is_err());
    assert!(IriRef::parse("http://[::1/").is_err());
    assert!(IriRef::parse("http://[::1]x/").is_err());
    assert!(IriRef::parse("http://[v7.x:y]/").is_ok());
    assert!(IriRef::parse("http://[v7.]/").is_err());
    assert!(IriRef::parse("http://a@b@c/").is_err());
    assert!(IriRef::parse("%").is_err());
    assert!(IriRef::parse("%4").is_err());
    assert!(IriRef::parse("%41").is_ok());
}

#[test]
fn write_to_is_the_recomposition_of_the_parts() {
    let built = Parts {
        path: "//x",
        query: Some(""),
        ..Parts::default()
    }
    .build(|out, _, t| {
        out.push_str(t);
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(built.as_str(), "/.//x?");
    let parsed = [
        "",
        "a:b",
        "s://u@h:1/p?q#f",
        "//h",
        "?#",
        "//@:",
        "file:///x",
        "a:/b?c?d#e?f",
        "http://[::1]:80/?#",
        "../x",
    ]
    .map(|s| ok(s).to_owned());
    for r in parsed.iter().chain([&built]) {
        let (mut a, mut b) = (String::from(">"), String::from(">"));
        r.write_to(&mut a);
        Parts::of(r).write_to(&mut b);
        assert_eq!(a, b);
        assert_eq!(&a[1..], r.as_str());
    }
}

#[test]
fn authority_fast_and_general_paths() {
    for (s, host, port) in [
        ("http://example.com", "example.com", None),
        ("http://example.com:8080/x", "example.com", Some("8080")),
        ("http://:80?q", "", Some("80")),
        ("http://h:#f", "h", Some("")),
        ("file:///p", "", None),
        ("http://u:p@h:1/", "h", Some("1")),
        ("http://[::1]:2/", "[::1]", Some("2")),
        ("http://%41b/", "%41b", None),
        ("http://résumé.example/", "résumé.example", None),
    ] {
        let r = ok(s);
        assert_eq!((r.host(), r.port()), (Some(host), port), "{s}");
    }
    for (s, component, offset) in [
        ("http://h:8a/", Component::Port, 10),
        ("http://h:1:2/", Component::Port, 10),
        ("http://a b/", Component::Host, 8),
        ("http://h%zz/", Component::Host, 8),
        ("http://h:%zz/", Component::Port, 9),
        ("http://u%zz@h/", Component::Userinfo, 8),
        ("http://[::1/", Component::Host, 7),
    ] {
        let e = IriRef::parse(s).unwrap_err();
        assert_eq!((e.component, e.offset), (component, offset), "{s}");
    }
}

#[test]
fn ipv6() {
    for good in [
        "::",
        "::1",
        "1::",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7::",
        "::2:3:4:5:6:7:8",
        "::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4",
        "fe80::1:2",
    ] {
        assert!(parse_ipv6(good.as_bytes()).is_some(), "{good}");
    }
    for bad in [
        "",
        ":",
        ":1",
        "1:",
        "1:2:3:4:5:6:7:8:9",
        "1::2::3",
        "1:2:3:4:5:6:7:8::",
        "12345::",
        "::1.2.3",
        "::1.2.3.04",
        "1:2:3:4:5:6:7:1.2.3.4",
        "g::",
    ] {
        assert!(parse_ipv6(bad.as_bytes()).is_none(), "{bad}");
    }
}

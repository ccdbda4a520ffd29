//! Unit tests of the WHATWG parser: the 2026 changes the `url` crate lacked, opaque-path bases,
//! the encoding override. The WPT vectors run in `tests/conformance.rs`.

use super::*;

fn href(input: &str, base: Option<&str>) -> Result<String, WebError> {
    let base = base.map(|b| WebUrl::parse(b).expect("base parses"));
    parse_web(input, base.as_ref(), None).map(String::from)
}

#[test]
fn opaque_path_bases_take_only_a_fragment() {
    assert_eq!(href("#x", Some("about:blank")).unwrap(), "about:blank#x");
    assert_eq!(
        href("#y", Some("data:text/plain,x")).unwrap(),
        "data:text/plain,x#y"
    );
    // the base's query stays, its fragment does not
    assert_eq!(href("#b", Some("sc:o?q#a")).unwrap(), "sc:o?q#b");
    let u = parse_web("#", Some(&WebUrl::parse("about:blank").unwrap()), None).unwrap();
    assert!(u.has_opaque_path());
    assert_eq!((u.path(), u.fragment()), ("blank", Some("")));
    for reference in ["x", "?q", "/x", "", "//h"] {
        assert_eq!(
            href(reference, Some("about:blank")),
            Err(WebError::MissingScheme),
            "{reference:?}"
        );
    }
}

#[test]
fn a_stray_percent_stays() {
    let u = WebUrl::parse("http://h/a%zz?b%%#c%1").unwrap();
    assert_eq!(u.as_str(), "http://h/a%zz?b%%#c%1");
    assert_eq!(
        crate::web_to_iri(&u).unwrap().as_str(),
        "http://h/a%25zz?b%25%25#c%251"
    );
}

#[test]
fn windows_drive_letters() {
    assert_eq!(href("file:///C|/", None).unwrap(), "file:///C:/");
    assert_eq!(href("file:C:/x", None).unwrap(), "file:///C:/x");
    assert_eq!(href("file://C|/x/../..", None).unwrap(), "file:///C:/");
    assert_eq!(href("file:///w|/m", None).unwrap(), "file:///w:/m");
    // a relative reference keeps the base's drive, .. does not pop it
    assert_eq!(href("/x", Some("file:///C:/a/b")).unwrap(), "file:///C:/x");
    assert_eq!(href("..", Some("file:///C:/")).unwrap(), "file:///C:/");
    assert_eq!(href("D|", Some("file:///C:/a")).unwrap(), "file:///D:");
    // the drive letter rule is for file URLs only
    assert_eq!(href("..", Some("abc://x/y/z/C:/")).unwrap(), "abc://x/y/z/");
    // the host is dropped for a drive letter; localhost is the empty host
    assert_eq!(href("/", Some("file://h/C:/a/b")).unwrap(), "file://h/C:/");
    assert_eq!(href("file://localhost/x", None).unwrap(), "file:///x");
}

#[test]
fn extra_slashes_against_a_special_base() {
    assert_eq!(
        href("///test", Some("http://example.org/")).unwrap(),
        "http://test/"
    );
    assert_eq!(
        href("\\\\\\test", Some("http://example.org/")).unwrap(),
        "http://test/"
    );
    assert_eq!(href("http:///h/p", None).unwrap(), "http://h/p");
    assert_eq!(
        href("///", Some("http://example.org/")),
        Err(WebError::HostMissing)
    );
}

#[test]
fn caret_and_backslash_in_paths() {
    assert_eq!(href("http://h/a^b", None).unwrap(), "http://h/a%5Eb");
    assert_eq!(
        href("foo://h/a^b{}`", None).unwrap(),
        "foo://h/a%5Eb%7B%7D%60"
    );
    // the query and fragment keep ^
    assert_eq!(href("http://h/?^#^", None).unwrap(), "http://h/?^#^");
    // a backslash is a slash only in special URLs
    assert_eq!(href("\\a", Some("foo://foo/a")).unwrap(), "foo://foo/\\a");
    assert_eq!(href("\\a", Some("http://foo/b")).unwrap(), "http://foo/a");
}

#[test]
fn ascii_xn_hosts_are_lowercased_not_checked() {
    // whatwg/url#914: an ASCII domain never fails IDNA
    for (input, want) in [
        ("http://a.b.c.XN--pokxncvks", "http://a.b.c.xn--pokxncvks/"),
        ("http://xn--ls8h.example/", "http://xn--ls8h.example/"),
        ("http://xn--/", "http://xn--/"),
        ("http://xn--a.xn--nxa/", "http://xn--a.xn--nxa/"),
    ] {
        assert_eq!(href(input, None).unwrap(), want, "{input}");
        let host = WebUrl::parse(input).unwrap();
        let host = host.host_str().unwrap();
        assert_eq!(
            crate::domain_to_ascii(host, crate::IdnaProfile::Web).unwrap(),
            host
        );
    }
    // non-ASCII domains still go through UTS 46
    assert_eq!(
        href("http://Bücher.example/", None).unwrap(),
        "http://xn--bcher-kva.example/"
    );
    assert_eq!(href("http://a\u{AD}/", None).unwrap(), "http://a/");
    assert!(href("http://\u{AD}/", None).is_err());
    assert_eq!(href("http://%ef%bf%bd/", None), Err(WebError::Idna));
    assert_eq!(href("http://a^b/", None), Err(WebError::InvalidHost));
}

#[test]
fn opaque_paths_keep_a_space_before_query_or_fragment() {
    assert_eq!(
        href("non-special:opaque  ?hi", None).unwrap(),
        "non-special:opaque %20?hi"
    );
    assert_eq!(
        href("data:space    ?test#test", None).unwrap(),
        "data:space   %20?test#test"
    );
    assert_eq!(href("a:b c#d", None).unwrap(), "a:b c#d");
    assert_eq!(href("a:b \u{1}é", None).unwrap(), "a:b %01%C3%A9");
}

#[test]
fn query_encoding_override() {
    let q = |input: &str, label: &str| {
        let e = Encoding::for_label(label.as_bytes()).unwrap();
        parse_web(&format!("http://h/?{input}"), None, Some(e))
            .unwrap()
            .query()
            .unwrap()
            .to_owned()
    };
    assert_eq!(q("Привет", "windows-1251"), "%CF%F0%E8%E2%E5%F2");
    assert_eq!(q("≡ x", "shift_jis"), "%81%DF%20x");
    assert_eq!(q("‽", "shift_jis"), "%26%238253%3B");
    assert_eq!(q("†'", "euc-kr"), "%A2%D3%27");
    assert_eq!(q("한", "euc-kr"), "%C7%D1");
    assert_eq!(q("é", "utf-16le"), "%C3%A9");
    // not for the path, the fragment, URLs that are not special, or ws(s)
    let e = Some(encoding_rs::SHIFT_JIS);
    let u = parse_web("http://h/≡?≡#≡", None, e).unwrap();
    assert_eq!(u.as_str(), "http://h/%E2%89%A1?%81%DF#%E2%89%A1");
    assert_eq!(
        parse_web("foo://h/?≡", None, e).unwrap().query(),
        Some("%E2%89%A1")
    );
    assert_eq!(
        parse_web("wss://h/?≡", None, e).unwrap().query(),
        Some("%E2%89%A1")
    );
}

#[test]
fn components_and_offsets() {
    let u = WebUrl::parse("https://:pw@[::ffff:1.2.3.4]:8443/p?q#f").unwrap();
    assert_eq!(u.as_str(), "https://:pw@[::ffff:102:304]:8443/p?q#f");
    assert_eq!((u.username(), u.password()), ("", "pw"));
    assert_eq!(u.host_str(), Some("[::ffff:102:304]"));
    assert_eq!(u.port(), Some(8443));
    let u = WebUrl::parse("foo://@h").unwrap();
    assert_eq!(
        (u.as_str(), u.username(), u.host_str()),
        ("foo://h", "", Some("h"))
    );
    let u = WebUrl::parse("foo:///x").unwrap();
    assert_eq!((u.host(), u.path()), (Some(WebHost::Empty), "/x"));
    let u = WebUrl::parse("sc:/..//x?y").unwrap();
    assert_eq!(
        (u.as_str(), u.path(), u.query()),
        ("sc:/.//x?y", "//x", Some("y"))
    );
    let base = WebUrl::parse("sc:/.//x?y").unwrap();
    let u = parse_web("z", Some(&base), None).unwrap();
    assert_eq!((u.as_str(), u.path()), ("sc:/.//z", "//z"));
    let u = parse_web("?w", Some(&base), None).unwrap();
    assert_eq!(u.as_str(), "sc:/.//x?w");
    assert_eq!(WebUrl::parse("http://h:/").unwrap().as_str(), "http://h/");
    assert_eq!(WebUrl::parse("http://h:x/"), Err(WebError::InvalidPort));
    assert_eq!(WebUrl::parse("http://u@/"), Err(WebError::HostMissing));
    assert_eq!(WebUrl::parse("foo://:1/"), Err(WebError::HostMissing));
    assert_eq!(WebUrl::parse("http://[::1/"), Err(WebError::InvalidIpv6));
    assert_eq!(
        WebUrl::parse("http://1.2.3.4.5/"),
        Err(WebError::InvalidIpv4)
    );
    assert_eq!(WebUrl::parse(" \t\n"), Err(WebError::MissingScheme));
    assert_eq!(
        WebUrl::parse("ht\ntp://h/\ta").unwrap().as_str(),
        "http://h/a"
    );
}

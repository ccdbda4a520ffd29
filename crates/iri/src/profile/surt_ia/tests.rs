//! The `surt-ia` rules one by one.

use super::*;

fn surt(s: &str, spec: &str) -> Option<String> {
    let o = crate::Profile::parse(spec).unwrap().options;
    let mut out = String::new();
    canonicalize(s.as_bytes(), &o, &mut out).ok().map(|()| out)
}

#[test]
fn rules() {
    let cases = [
        ("http://www.archive.org/", "surt-ia", Some("org,archive)/")),
        (
            "http://www2.archive.org/",
            "surt-ia:host_massage=false",
            Some("org,archive,www2)/"),
        ),
        (
            "https://a.b:443/x/?b&a",
            "surt-ia:with_scheme=true",
            Some("https://(b,a)/x?a&b"),
        ),
        ("a.b:8080", "surt-ia:trailing_comma=true", Some("a.b:8080")),
        (
            "http://a.b:8080/",
            "surt-ia:trailing_comma=true",
            Some("b,a:8080,)/"),
        ),
        ("http://1.09.1.1/", "surt-ia", Some("1,1,09,1)/")),
        ("http://x...com/", "surt-ia", Some("com,,x)/")),
        ("http://[::1]:80/a", "surt-ia", Some("::1)/a")),
        ("http:////a.b//c/../d/./", "surt-ia", Some("b,a)/d")),
        ("http://3279880203/", "surt-ia", Some("11,0,127,195)/")),
        ("http://017.1/", "surt-ia", Some("1,0,0,15)/")),
        ("http://a.b:99999/", "surt-ia", None),
        ("dns:alexa.com", "surt-ia", Some("dns:alexa.com")),
        ("   ", "surt-ia", None),
        ("http://Bücher.ch/", "surt-ia", Some("ch,xn--bcher-kva)/")),
        (
            "http://a/?JSESSIONID=0123456789abcdef0123456789abcdef&x=1",
            "surt-ia",
            Some("a)/?x=1"),
        ),
    ];
    for (input, spec, want) in cases {
        assert_eq!(surt(input, spec).as_deref(), want, "{input:?} {spec}");
    }
}

#[test]
fn session_ids() {
    let mut p = b"/a/(0123456789abcdef01234567)/b.aspx".to_vec();
    session::strip_path_session_id(&mut p);
    assert_eq!(p, b"/a/b.aspx");
    let mut p = b"/a/(s(0123456789abcdef01234567))/b.aspx?x".to_vec();
    session::strip_path_session_id(&mut p);
    assert_eq!(p, b"/a/b.aspx?x");
    let mut q = b"a=1&cfid=12&cftoken=34&b=2".to_vec();
    session::strip_query_session_id(&mut q);
    assert_eq!(q, b"a=1&b=2");
}

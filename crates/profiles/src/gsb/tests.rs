//! The `gsb` rules one by one, and idempotence.

use super::*;

fn gsb(s: &str) -> Option<String> {
    let mut out = String::new();
    canonicalize(s.as_bytes(), &mut out).ok().map(|()| out)
}

#[test]
fn rules() {
    let cases = [
        ("http://host/%25%32%35", Some("http://host/%25")),
        ("http://3279880203/blah", Some("http://195.127.0.11/blah")),
        ("http://www.google.com.../", Some("http://www.google.com/")),
        // the query is kept, escaped with the rest, untouched by the path rules
        (
            "http://www.google.com/q?r?s",
            Some("http://www.google.com/q?r?s"),
        ),
        ("http://a.com/q?", Some("http://a.com/q?")),
        (
            "http://a.com/./b/../c?x=/./y/..//z",
            Some("http://a.com/c?x=/./y/..//z"),
        ),
        ("http://a.com/p?a b%2523#f", Some("http://a.com/p?a%20b%23")),
        ("http://a.com/p%3Fq", Some("http://a.com/p?q")),
        ("www.google.com?x", Some("http://www.google.com/?x")),
        ("http://a.com:8080?x", Some("http://a.com/?x")),
        // upper-case hex, in the host too
        (
            "http://some%1bhost.com/%1b",
            Some("http://some%1Bhost.com/%1B"),
        ),
        // IPv6 (v5): shortest form, IPv4-mapped and NAT64 as IPv4
        (
            "http://[2001:0DB8:0000::1]:443/",
            Some("http://[2001:db8::1]/"),
        ),
        ("http://[::FFFF:1.2.3.4]/", Some("http://1.2.3.4/")),
        ("http://[64:ff9b::102:304]/", Some("http://1.2.3.4/")),
        (
            "http://[::192.9.5.5]/ipng",
            Some("http://[::c009:505]/ipng"),
        ),
        ("http://[fe80::1%25en0]/", Some("http://[fe80::1%25en0]/")),
        (
            "http://www.gotaport.com:1234/",
            Some("http://www.gotaport.com/"),
        ),
        ("http://user@a.com/", Some("http://a.com/")),
        ("http://\x01\u{80}.com/", Some("http://xn--\u{1}-ba.com/")),
        (
            "http://www.\u{fc}mlat.com/",
            Some("http://www.xn--mlat-zra.com/"),
        ),
        ("http://12.0x12.01234/", Some("http://12.18.2.156/")),
        ("http://276.2.3/", Some("http://20.2.0.3/")),
        ("http://1.2.3.00x0/", Some("http://1.2.3.00x0/")),
        ("http://0x10xa/", Some("http://0x10xa/")),
        ("http://10.192.95.89 xy/", Some("http://10.192.95.89%20xy/")),
        ("http://a\x7fb.com/", Some("http://a%7Fb.com/")),
        ("http://a.com/a/./b/../c//d/", Some("http://a.com/a/c/d/")),
        ("HTTP://A.com", Some("HTTP://a.com/")),
        ("mailto:a@b.c", None),
        ("http:///x", None),
        ("", None),
        ("http://[::1/", None),
        ("http://xn--zz\u{fc}.com/", None),
    ];
    for (input, want) in cases {
        assert_eq!(gsb(input).as_deref(), want, "{input:?}");
    }
}

#[test]
fn too_recursive() {
    let deep = format!("http://a/%{}", "25".repeat(1023));
    assert_eq!(gsb(&deep).as_deref(), Some("http://a/%25"));
    let deeper = format!("http://a/%{}", "25".repeat(1024));
    assert_eq!(gsb(&deeper), None);
}

#[test]
fn idempotent() {
    let inputs = [
        "http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/",
        "http://host%23.com/%257Ea%2521b%2540c%2523d",
        "  http://www.GOOgle.com/a/../b/./c//?q#f  ",
        "http://B\u{fc}cher.ch:8080/x y",
        "http://%20leadingspace.com/",
        "http://0x12.0x43.0x44.0x01/",
        "ftp://ftp.myfiles.com/%%%25",
        "http://a.com//x/../y?q=%2525%41&r=/../#f",
        "http://[2001:0db8:0:0::1]/?",
        "http://some%1bhost.com/%1b?%1b",
    ];
    for input in inputs {
        let once = gsb(input).unwrap();
        assert_eq!(gsb(&once).as_deref(), Some(once.as_str()), "{input:?}");
    }
}

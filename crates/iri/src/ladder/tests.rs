//! The ladder examples of the seeds (CMP 4.2-4.4, RFC 3987 5.3), with both outcomes, and the
//! fast path checked against the general path.

use super::*;
use crate::input::InputMode;

fn opts(rung: Rung) -> NormalizeOptions {
    NormalizeOptions {
        rung,
        ..Default::default()
    }
}

fn key(s: &str, rung: Rung) -> String {
    normalize_str(s, InputMode::Strict, &opts(rung)).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The lowest rung (up to protocol) at which `a` and `b` are equal.
fn equal_at(a: &str, b: &str) -> Option<Rung> {
    compare_str(a, b, InputMode::Strict, &opts(Rung::Protocol))
        .unwrap_or_else(|e| panic!("{a} / {b}: {e}"))
        .equivalent_at
}

#[test]
fn cmp_4_2_syntax_example() {
    // CMP 4.2 (and RFC 3987 5.3.2): equivalent by syntax-based normalization.
    let a = "example://a/b/c/%7Bfoo%7D/rosé";
    let b = "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9";
    assert_eq!(equal_at(a, b), Some(Rung::Syntax));
    assert_eq!(key(b, Rung::Syntax), "example://a/b/c/%7Bfoo%7D/ros%C3%A9");
    // CMP 4.2.1: scheme and US-ASCII host are case-insensitive.
    assert_eq!(
        equal_at("HTTP://www.EXAMPLE.com/", "http://www.example.com/"),
        Some(Rung::Syntax)
    );
    // CMP 4.2.3: ~user, %7euser and %7Euser are one resource.
    for v in ["http://example.org/%7euser", "http://example.org/%7Euser"] {
        assert_eq!(equal_at(v, "http://example.org/~user"), Some(Rung::Syntax));
    }
    // CMP 4.2.4: dot segments, %2E forms included.
    assert_eq!(
        equal_at("http://a/b/%2E/%2e%2E/c", "http://a/c"),
        Some(Rung::Syntax)
    );
}

#[test]
fn cmp_4_2_must_stay_different() {
    // Reserved characters are not decoded: %2F is not "/".
    assert_eq!(equal_at("http://h/a%2Fb", "http://h/a/b"), None);
    // Octets that are not UTF-8 are not characters: %FC (Latin-1 ü) is not ü (3987bis 3.7).
    assert_eq!(equal_at("http://h/%FC", "http://h/ü"), None);
    assert_eq!(
        equal_at("http://h/%C3%BC", "http://h/ü"),
        Some(Rung::Syntax)
    );
    // %25 stays: %2541 is not %41.
    assert_eq!(equal_at("http://h/%2541", "http://h/A"), None);
    // Userinfo and path are case-sensitive (CMP 4.2.1).
    assert_eq!(equal_at("http://User@h/", "http://user@h/"), None);
    assert_eq!(equal_at("http://h/Path", "http://h/path"), None);
    // Bidi controls stay encoded (3987bis 4.1).
    assert_eq!(
        key("http://h/%e2%80%ae", Rung::Syntax),
        "http://h/%E2%80%AE"
    );
    // Relative-path references keep their dot segments: "../x" depends on the base.
    assert_eq!(key("../x", Rung::Syntax), "../x");
    assert_eq!(key("/a/../x", Rung::Syntax), "/x");
}

#[test]
fn cmp_4_2_2_nfc_only_on_request() {
    // RFC 3987 5.3.2.2 / CMP 4.2.2: résumé.html in NFC and decomposed.
    let nfc = "http://www.example.org/r\u{E9}sum\u{E9}.html";
    let nfd = "http://www.example.org/re\u{301}sume\u{301}.html";
    assert_eq!(equal_at(nfc, nfd), None);
    let on = NormalizeOptions {
        rung: Rung::Syntax,
        nfc: true,
        ..Default::default()
    };
    let k = |s| normalize_str(s, InputMode::Strict, &on).unwrap();
    assert_eq!(k(nfc), k(nfd));
    assert_eq!(k(nfc), "http://www.example.org/r%C3%A9sum%C3%A9.html");
    // Percent-encoded decomposed text is text too.
    assert_eq!(k("http://www.example.org/re%CC%81sume%CC%81.html"), k(nfc));
    // NFC never joins a delimiter with a combining mark (= + U+0338 would be U+2260).
    assert_eq!(k("http://h/?a=\u{338}"), "http://h/?a=%CC%B8");
    // NFC never creates a delimiter: U+037E is canonically ";".
    assert_eq!(k("http://h/a\u{37E}"), "http://h/a%CD%BE");
}

#[test]
fn cmp_4_3_scheme_examples() {
    // CMP 4.3 / RFC 3987 5.3.3: four equivalent http IRIs, the second is the normal form.
    let four = [
        "http://example.com",
        "http://example.com/",
        "http://example.com:/",
        "http://example.com:80/",
    ];
    for v in four {
        assert_eq!(key(v, Rung::Scheme), "http://example.com/");
    }
    assert_eq!(equal_at(four[0], four[1]), Some(Rung::Scheme));
    assert_eq!(equal_at(four[2], four[3]), Some(Rung::Scheme));
    // ... and "http://example.com/?" is none of them, at any rung.
    assert_eq!(equal_at("http://example.com/?", four[1]), None);
    assert_eq!(equal_at("http://example.com/?", four[3]), None);
    // A "#" suffix makes a different IRI up to the scheme rung; the protocol rung drops the
    // fragment (CMP 2: network actions exclude it).
    assert_eq!(
        equal_at("http://example.com/#", "http://example.com/"),
        Some(Rung::Protocol)
    );
    // IDN and punycode (CMP 4.3, RFC 3987 5.3.3), case folded by IDNA.
    for v in [
        "http://résumé.example.org",
        "http://RÉSUMÉ.example.org/",
        "http://r%C3%A9sum%C3%A9.example.org/",
    ] {
        assert_eq!(
            equal_at(v, "http://xn--rsum-bpad.example.org"),
            Some(Rung::Scheme)
        );
    }
    // Port with leading zeros, and a default port of another scheme.
    assert_eq!(key("https://h:00443/", Rung::Scheme), "https://h/");
    assert_eq!(key("https://h:80/", Rung::Scheme), "https://h:80/");
    assert_eq!(key("foo://h:/", Rung::Scheme), "foo://h/");
    assert_eq!(key("foo://h:0080", Rung::Scheme), "foo://h:80");
    // Schemes outside the table keep an empty path.
    assert_eq!(key("foo://h", Rung::Scheme), "foo://h");
    // Not a DNS scheme: no IDNA.
    assert_eq!(
        key("foo://RÉSUMÉ/", Rung::Scheme),
        "foo://R%C3%89SUM%C3%89/"
    );
}

#[test]
fn trailing_dot_is_kept() {
    // example.com. is an absolute DNS name, example.com one a resolver may search; WHATWG
    // origins differ too. The ladder keeps them apart.
    assert_eq!(
        key("http://Example.COM./", Rung::Scheme),
        "http://example.com./"
    );
    assert_eq!(
        equal_at("http://example.com./", "http://example.com/"),
        None
    );
}

#[test]
fn file_localhost_is_the_empty_authority() {
    // RFC 8089 2 and appendix B; CMP 4.3 (a default authority is written empty).
    for v in [
        "file://localhost/etc/hosts",
        "file:/etc/hosts",
        "file://LOCALHOST/etc/hosts",
    ] {
        assert_eq!(equal_at(v, "file:///etc/hosts"), Some(Rung::Scheme), "{v}");
    }
    // With a port or userinfo the host stays explicit (CMP 4.3).
    assert_eq!(
        key("file://u@localhost/x", Rung::Scheme),
        "file://u@localhost/x"
    );
    assert_eq!(equal_at("file://host/x", "file:///x"), None);
}

#[test]
fn ipv6_rfc5952() {
    assert_eq!(
        equal_at("http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/"),
        Some(Rung::Scheme)
    );
    assert_eq!(
        key("http://[0:0:0:0:0:FFFF:192.0.2.1]:80", Rung::Scheme),
        "http://[::ffff:192.0.2.1]/"
    );
    assert_eq!(
        key("http://[2001:DB8::1]/", Rung::Syntax),
        "http://[2001:db8::1]/"
    );
}

#[test]
fn relative_references_have_no_scheme_key() {
    let e = normalize_str("//h/a", InputMode::Strict, &opts(Rung::Scheme)).unwrap_err();
    assert!(matches!(
        e,
        NormalizeError::Relative {
            rung: Rung::Scheme,
            offset: 0
        }
    ));
    assert_eq!(key("//H/a/./b", Rung::Syntax), "//h/a/b");
    assert_eq!(key("//H/a/./b", Rung::String), "//H/a/./b");
}

#[test]
fn relative_path_dot_segments() {
    for (given, normal) in [
        ("./def", "def"),
        ("def/.", "def/"),
        ("./foo/bar", "foo/bar"),
        ("../../abc/./def", "../../abc/def"),
        ("a/b/../c", "a/c"),
        ("a/b/%2E%2E/c/%2e", "a/c/"),
        (".", "./"),
        ("..", "../"),
        ("../..", "../../"),
        ("./a:b", "./a:b"),
        ("x/../a:b", "x/../a:b"),
        ("x/y/../a:b", "x/a:b"),
        (".//b", ".//b"),
        // the first segment that is not `..` keeps its `..` (see `relative_dot_segments`)
        ("abc/..", "abc/../"),
        ("../a/../b", "../a/../b"),
        ("a/b/c/../../..", "a/../"),
        ("a/../b/../c", "a/../c"),
    ] {
        assert_eq!(key(given, Rung::Syntax), normal, "{given}");
        assert_eq!(key(normal, Rung::Syntax), normal, "{normal}");
    }
}

/// Every relative-path reference of up to five segments from a small alphabet has the same
/// target as its syntax key against bases with and without a directory, with and without an
/// authority (RFC 3986 5.2): the syntax rung never merges two references that some base tells
/// apart.
#[test]
fn relative_path_keys_keep_their_targets() {
    let segs = [".", "..", "a", "b", "", "%2E", "c:d"];
    let bases = [
        "http://h",
        "http://h/",
        "http://h/x/y?q",
        "http://h/x/y/",
        "urn:a",
        "foo:",
        "foo:x/y",
        "mailto:x?q",
    ];
    let bases: Vec<_> = bases.iter().map(|b| IriRef::parse(b).unwrap()).collect();
    let mut paths = vec![String::new()];
    let mut n = 0;
    for _ in 0..5 {
        let mut next = Vec::new();
        for p in &paths {
            for s in segs {
                let q = if p.is_empty() {
                    s.to_owned()
                } else {
                    format!("{p}/{s}")
                };
                // a relative-path reference: no leading "/" and no ":" in its first segment
                let first = q.split('/').next().unwrap_or("");
                if !q.is_empty() && !q.starts_with('/') && !first.contains(':') {
                    let k = key(&q, Rung::Syntax);
                    let (r, rk) = (IriRef::parse(&q).unwrap(), IriRef::parse(&k).unwrap());
                    for b in &bases {
                        let (t, tk) = (b.resolve(&r).unwrap(), b.resolve(&rk).unwrap());
                        assert_eq!(
                            key(t.as_str(), Rung::Syntax),
                            key(tk.as_str(), Rung::Syntax),
                            "{q} -> {k} against {b}"
                        );
                    }
                    n += 1;
                }
                next.push(q);
            }
        }
        paths = next;
    }
    assert!(n > 10_000, "{n}");
}

#[test]
fn cmp_4_4_protocol() {
    let rules = Rules::from_toml(
        r#"
        version = 7
        sort_query = true
        remove_params = ["JSESSIONID", "sid"]
        strip_www = true
        index_files = ["index.html"]
        "#,
    )
    .unwrap();
    let o = NormalizeOptions {
        rung: Rung::Protocol,
        rules: Some(Arc::new(rules)),
        ..Default::default()
    };
    let k = |s| normalize_str(s, InputMode::Strict, &o).unwrap();
    assert_eq!(
        k("http://WWW.www2.Example.com/a/index.html;jsessionid=1?b=2&SID=x&a=1#f"),
        "http://example.com/a/?a=1&b=2"
    );
    assert_eq!(k("http://www.com/?sid=1"), "http://www.com/");
    assert_eq!(k("http://h/a/..;jsessionid=1/b"), "http://h/b");
    assert_eq!(k("http://h/?"), "http://h/?");
    // Without rules, only the fragment goes.
    assert_eq!(
        key("http://www.h/index.html?b&a#x", Rung::Protocol),
        "http://www.h/index.html?b&a"
    );
}

#[test]
fn redirects_learn_trailing_slashes_only() {
    let base = opts(Rung::Protocol);
    let text = "\
# FROM<TAB>TO
http://example.com/data\thttp://example.com/data/
http://example.com/a/\thttp://example.com/a
http://example.com/a\thttp://example.com/a/
http://example.com/x\thttp://example.com/y
http://example.com/b\thttp://example.com/b/\tjunk
http://example.com/c#top\thttp://example.com/c
not a line
";
    let r = Redirects::parse(text, InputMode::Strict, &base);
    let s = *r.stats();
    assert_eq!(
        (s.lines, s.learned, s.same, s.ignored, s.invalid),
        (7, 3, 1, 1, 2)
    );
    let o = NormalizeOptions {
        redirects: Some(Arc::new(r)),
        ..base
    };
    let k = |s| normalize_str(s, InputMode::Strict, &o).unwrap();
    assert_eq!(k("http://example.com/data"), "http://example.com/data/");
    assert_eq!(k("http://example.com/data/"), "http://example.com/data/");
    // A loop: the TO of the line that closed it.
    assert_eq!(k("http://example.com/a"), k("http://example.com/a/"));
    assert_eq!(k("http://example.com/x"), "http://example.com/x");
    // Idempotent: a key maps to a key that maps to nothing.
    let once = k("http://example.com/a");
    assert_eq!(k(&once), once);
}

#[test]
fn key_forms() {
    let o = |form| NormalizeOptions {
        rung: Rung::Scheme,
        form,
        ..Default::default()
    };
    let s = "http://User@WWW.Résumé.Example:8080/%7e/r%c3%a9?q=%E2%80%AE#f";
    let uri = normalize_str(s, InputMode::Strict, &o(KeyForm::Uri)).unwrap();
    let iri = normalize_str(s, InputMode::Strict, &o(KeyForm::Iri)).unwrap();
    let surt = normalize_str(s, InputMode::Strict, &o(KeyForm::Surt)).unwrap();
    assert_eq!(
        uri,
        "http://User@www.xn--rsum-bpad.example:8080/~/r%C3%A9?q=%E2%80%AE#f"
    );
    assert_eq!(
        iri,
        "http://User@www.résumé.example:8080/~/ré?q=%E2%80%AE#f"
    );
    assert_eq!(
        surt,
        "http://(example,xn--rsum-bpad,www,:8080@User)/~/r%C3%A9?q=%E2%80%AE#f"
    );
    assert_eq!(from_surt(&surt).as_deref(), Some(uri.as_str()));
    // The syntax rung does not apply IDNA, so its iri form keeps punycode as it is.
    let syn = NormalizeOptions {
        rung: Rung::Syntax,
        form: KeyForm::Iri,
        ..Default::default()
    };
    assert_eq!(
        normalize_str("http://xn--rsum-bpad.example/", InputMode::Strict, &syn).unwrap(),
        "http://xn--rsum-bpad.example/"
    );
}

/// Inputs of every vector file (each `input` field that parses), for the fast-path check.
pub(super) fn vector_inputs() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/normalize");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("testdata/normalize")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(f).expect("read").lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for field in ["input", "expected", "base"] {
                if let Some(s) = v[field].as_str() {
                    out.push(s.to_owned());
                }
            }
        }
    }
    out
}

#[test]
fn fast_path_agrees_with_the_general_path() {
    let mut extra: Vec<String> = [
        "http://example.com/a/b.html?x=1&y=%2F#frag",
        "https://www.sec.gov/edgar.shtml",
        "http://[2001:db8::1]:8080/",
        "http://[v1.x]/",
        "http://xn--rsum-bpad.example/",
        "http://a_b.example/",
        "http://ex!$&'()*+,;=ample.com/",
        "file:///etc",
        "foo://h",
        "http://h:0/",
        "s:a/b",
        "/a/b",
        "a/b",
    ]
    .map(str::to_owned)
    .to_vec();
    extra.extend(vector_inputs());
    let mut fast = 0;
    for s in &extra {
        let Ok(iri) = IriRef::parse(s) else {
            continue;
        };
        for rung in [Rung::Syntax, Rung::Scheme, Rung::Protocol] {
            if rung >= Rung::Scheme && !iri.is_absolute() {
                continue;
            }
            for nfc in [false, true] {
                if fast::is_normal(iri, rung, nfc, false) {
                    fast += 1;
                    let slow = climb::general(iri, rung, nfc, None, |_, _| {});
                    assert_eq!(slow.as_str(), s, "{rung} nfc={nfc}");
                }
            }
        }
    }
    assert!(fast > 1000, "fast path taken {fast} times");
}

#[test]
fn fast_path_takes_the_common_case() {
    for s in [
        "https://www.sec.gov/edgar.shtml",
        "http://example.com/a/b.html?x=1&y=%2F",
        "http://[2001:db8::1]:8080/",
    ] {
        let iri = IriRef::parse(s).unwrap();
        assert!(fast::is_normal(iri, Rung::Scheme, false, false), "{s}");
        // The key is the input, text for text.
        assert_eq!(key(s, Rung::Scheme), s);
    }
    for s in [
        "HTTP://h/",
        "http://h:80/",
        "http://h",
        "http://h/%7e",
        "http://h/./a",
    ] {
        assert!(
            !fast::is_normal(IriRef::parse(s).unwrap(), Rung::Scheme, false, false),
            "{s}"
        );
    }
}

/// Every one-byte variant of `s` with a byte that matters to the fused fast path: the
/// delimiters, `%`, `.`, `-`, uppercase, a space and a non-ASCII character.
pub(super) fn variants(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in s.char_indices() {
        for r in [
            "/", ".", "%", "?", "#", ":", "@", "[", "]", "-", "x", "X", "0", " ", "é", "%2e",
            "%7e", "%c3", "xn--", "",
        ] {
            let end = s[i..].chars().next().map_or(i, |c| i + c.len_utf8());
            out.push(format!("{}{r}{}", &s[..i], &s[end..]));
            out.push(format!("{}{r}{}", &s[..i], &s[i..]));
        }
    }
    out
}

#[test]
fn fused_fast_path_never_accepts_what_the_parser_or_is_normal_would_not() {
    let mut inputs: Vec<String> = [
        "http://example.com/a/b.html?x=1&y=%2F#frag",
        "https://xn--rsum-bpad.example/",
        "http://a.xn--rsum-bpad.example/",
        "http://axn--b.example/",
        "http://a-b.example:8080/./x/../y?q=/./#f",
        "file://localhost/etc",
        "foo://h",
        "http://h:0/",
        "http://h:080/",
        "https://h:443/",
        "http://:80/",
        "http://h:/",
        "ftp://u@h/",
        "http://[::1]/",
        "http://h/a%41b%2F%c3%a9%C3%A9",
        "http://h/a/.b/..c/..",
        "http://h?#",
        "http://h/#a#b",
    ]
    .map(str::to_owned)
    .to_vec();
    let n = inputs.len();
    inputs.extend(vector_inputs());
    // One-byte variants of the examples above and of every 16th vector input (all of them
    // would take minutes in a debug build).
    let variants: Vec<String> = (inputs.iter().take(n))
        .chain(inputs.iter().skip(n).step_by(16))
        .flat_map(|s| variants(s))
        .collect();
    inputs.extend(variants);
    let mut taken = 0;
    for s in &inputs {
        for rung in [Rung::Syntax, Rung::Scheme, Rung::Protocol] {
            for nfc in [false, true] {
                if !fast::is_normal_text(s, rung, nfc, false) {
                    continue;
                }
                taken += 1;
                let iri = IriRef::parse(s).unwrap_or_else(|e| panic!("{s}: taken, but {e}"));
                assert!(fast::is_normal(iri, rung, nfc, false), "{s} at {rung}");
                assert_eq!(
                    climb::general(iri, rung, nfc, None, |_, _| {}).as_str(),
                    s,
                    "{rung}"
                );
            }
        }
    }
    assert!(taken > 10_000, "fused fast path taken {taken} times");
}

#[test]
fn fused_fast_path_takes_the_common_case() {
    for s in [
        "https://www.sec.gov/edgar.shtml",
        "http://example.com/a/b.html?x=1&y=%2F#top",
        "http://a-b.example:8080/.well-known/x..y?q=./..",
        "https://xn.example/xn--a",
        "ftp://h/",
    ] {
        assert!(fast::is_normal_text(s, Rung::Scheme, false, false), "{s}");
        assert_eq!(key(s, Rung::Scheme), s);
    }
    // Normal, but left to the parser: userinfo, IP literals, opaque and relative references.
    for s in ["ftp://u@h/", "http://[::1]/", "mailto:a@b.example", "//h/a"] {
        assert!(!fast::is_normal_text(s, Rung::Syntax, false, false), "{s}");
    }
    // Not normal at the scheme rung.
    for s in [
        "HTTP://h/",
        "http://H/",
        "http://h:80/",
        "http://h:/",
        "http://h:08080/",
        "http://h",
        "http://h/%7e",
        "http://h/%7E",
        "http://h/%c3%a9",
        "http://h/./a",
        "http://h/a/..",
        "http://h/a/..?q",
        "http://xn--rsum-bpad.example/",
        "http://a.xn--rsum-bpad.example/",
        "file://localhost/etc",
    ] {
        assert!(!fast::is_normal_text(s, Rung::Scheme, false, false), "{s}");
    }
    // Fragments stay below the protocol rung; rules always take the general path.
    assert!(fast::is_normal_text(
        "http://h/#f",
        Rung::Scheme,
        false,
        false
    ));
    assert!(!fast::is_normal_text(
        "http://h/#f",
        Rung::Protocol,
        false,
        false
    ));
    assert!(!fast::is_normal_text(
        "http://h/",
        Rung::Protocol,
        false,
        true
    ));
    // With NFC, an encoded non-ASCII octet may change.
    assert!(fast::is_normal_text(
        "http://h/%C3%A9",
        Rung::Scheme,
        false,
        false
    ));
    assert!(!fast::is_normal_text(
        "http://h/%C3%A9",
        Rung::Scheme,
        true,
        false
    ));
}

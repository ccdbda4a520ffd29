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

/// The eight combinations of the options.
fn all_options() -> Vec<ProfileOptions> {
    let mut v = Vec::new();
    for spec in [
        "surt-ia",
        "surt-ia:host_massage=false",
        "surt-ia:with_scheme=true",
        "surt-ia:trailing_comma=true",
        "surt-ia:host_massage=false,with_scheme=true",
        "surt-ia:host_massage=false,trailing_comma=true",
        "surt-ia:with_scheme=true,trailing_comma=true",
        "surt-ia:host_massage=false,with_scheme=true,trailing_comma=true",
    ] {
        v.push(crate::Profile::parse(spec).unwrap().options);
    }
    v
}

/// The fast path gives the full path's key whenever it takes the input, and leaves `out`
/// alone when it does not; whether it took it.
fn fast_agrees(input: &[u8], options: &[ProfileOptions]) -> Result<bool, String> {
    let mut took = false;
    for o in options {
        let mut fast_out = String::from("prefix ");
        let mut full_out = String::from("prefix ");
        let full_key = full(input, o, &mut full_out);
        let text = std::str::from_utf8(input);
        if text.is_ok_and(|t| fast::canonicalize(t, o, &mut fast_out)) {
            took = true;
            if full_key.is_err() || fast_out != full_out {
                return Err(format!(
                    "{:?} {o:?}: fast {fast_out:?}, full {full_key:?} {full_out:?}",
                    String::from_utf8_lossy(input)
                ));
            }
        } else if fast_out != "prefix " {
            return Err(format!("{input:?}: declined but wrote {fast_out:?}"));
        }
    }
    Ok(took)
}

fn repo_file(path: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    std::fs::read_to_string(format!("{root}{path}")).expect(path)
}

fn kasztp() -> Vec<String> {
    repo_file("testdata/corpora/data/url-list-kasztp.txt")
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn fast_path_agrees_on_the_kasztp_list() {
    let options = all_options();
    let urls = kasztp();
    let mut took = 0;
    for u in &urls {
        took += usize::from(fast_agrees(u.as_bytes(), &options).unwrap());
    }
    // The fast path is for the common shape: nearly all of a real list.
    assert!(took * 100 >= urls.len() * 95, "{took} of {}", urls.len());
}

#[test]
fn fast_path_agrees_on_every_vector_input() {
    let options = all_options();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/normalize");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let input = match (v["input_hex"].as_str(), v["input"].as_str()) {
                (Some(hex), _) => (0..hex.len() / 2)
                    .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                    .collect(),
                (None, Some(s)) => s.as_bytes().to_vec(),
                _ => continue,
            };
            fast_agrees(&input, &options).unwrap();
            n += 1;
        }
    }
    assert!(n > 1000, "{n} vector inputs");
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    fn piece(choices: &'static [&'static str]) -> impl Strategy<Value = String> {
        proptest::sample::select(choices).prop_map(str::to_owned)
    }

    /// URLs near the fast path's edges: schemes, hosts (www, digits, dots, odd bytes), ports,
    /// dot and empty segments, session ids, query pairs, fragments.
    fn url() -> impl Strategy<Value = String> {
        let scheme = piece(&[
            "http://",
            "https://",
            "HTTP://",
            "http:",
            "http:///",
            "http://https://",
            "ftp://",
            "",
        ]);
        let label = piece(&[
            "www",
            "WWW2",
            "www12",
            "a",
            "Ex",
            "0",
            "1",
            "017",
            "255",
            "99999999999",
            "x-y",
            "a_b",
            "",
            "%41",
            "b@c",
            "[::1]",
            "\u{fc}",
            "xn--bcher-kva",
            "~!",
            "*",
        ]);
        let host = proptest::collection::vec(label, 0..5).prop_map(|v| v.join("."));
        let port = piece(&[
            "", ":", ":80", ":443", ":0", ":080", ":65535", ":65536", ":8a", "::",
        ]);
        let seg = piece(&[
            "",
            ".",
            "..",
            "a",
            "B",
            ".x",
            "..y",
            "(0123456789abcdef01234567)",
            "(s(0123456789abcdef01234567))",
            "p.aspx",
            "%2e",
            "~",
            "c d",
            "\t",
            "é",
            ";p=1",
        ]);
        let path = proptest::collection::vec(seg, 0..5)
            .prop_map(|v| v.iter().map(|s| format!("/{s}")).collect::<String>());
        let pair = piece(&[
            "a=1",
            "B=2",
            "a",
            "a=",
            "=",
            "",
            "id=3",
            "sid=0123456789abcdef0123456789abcdef",
            "JSESSIONID=0123456789abcdef0123456789abcdef",
            "cfid=1",
            "cftoken=2",
            "ASPSESSIONIDabcdefgh=abcdefghijklmnopqrstuvwx",
            "%26",
            "q=a b",
            "?",
        ]);
        let query = proptest::option::of(proptest::collection::vec(pair, 0..4))
            .prop_map(|q| q.map_or(String::new(), |v| format!("?{}", v.join("&"))));
        let frag = piece(&["", "#", "#f", "#a?b/c"]);
        (scheme, host, port, path, query, frag)
            .prop_map(|(s, h, p, pa, q, f)| format!("{s}{h}{p}{pa}{q}{f}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn fast_path_agrees_on_generated_urls(u in url()) {
            fast_agrees(u.as_bytes(), &all_options()).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn fast_path_agrees_on_edited_kasztp_urls(
            i in 0usize..48_000,
            at in 0usize..256,
            b in proptest::sample::select(b" \t%#?/.:@[]()&=WwAZ09-_\x7f\x80\xc3\xbc".to_vec()),
            cut in any::<bool>(),
        ) {
            let urls = KASZTP.with(|k| k.clone());
            let mut u = urls[i % urls.len()].as_bytes().to_vec();
            let at = at % (u.len() + 1);
            if cut && at < u.len() {
                u.remove(at);
            } else {
                u.insert(at, b);
            }
            fast_agrees(&u, &all_options()).map_err(TestCaseError::fail)?;
        }
    }

    thread_local! {
        static KASZTP: std::rc::Rc<Vec<String>> = std::rc::Rc::new(kasztp());
    }
}

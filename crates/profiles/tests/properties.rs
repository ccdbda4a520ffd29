//! Properties of the profiles (issue #21): each profile that writes URLs is idempotent,
//! `p(p(x)) == p(x)`, on the real URL list, the Apache log's Referers and generated URL-shaped
//! strings with well-formed hosts (a library that is not idempotent on malformed input, such
//! as a `%2e` host, is copied there, not corrected); `surt-ia` writes SURTs, not URLs, so its property is that the
//! key does not depend on what its own canonicalization already did (the key of a URL and of that
//! URL with the scheme upper-cased, the host upper-cased and a default port are equal). No
//! profile panics on arbitrary bytes (also the `profile` fuzz target).

use linksieve_profiles::{Profile, ProfileKind};
use proptest::prelude::*;

use crate::common;

/// The profiles whose keys are URLs.
const URL_PROFILES: [ProfileKind; 5] = [
    ProfileKind::W3lib,
    ProfileKind::UrlcanonSemantic,
    ProfileKind::UrlcanonAggressive,
    ProfileKind::CrawlerCommons,
    ProfileKind::Gsb,
];

/// The real inputs: the kasztp list and the Apache log's Referers. (Not the vector inputs:
/// those include hosts such as `%2e` and double escapes such as `%%36%31`, on which the
/// libraries themselves are not idempotent, and the profiles copy them: `http://host/%%36%31`
/// is `http://host/%61` to w3lib, and that is `http://host/a`.)
fn real_inputs() -> Vec<String> {
    let data = common::testdata().join("../corpora/data");
    let list = std::fs::read_to_string(data.join("url-list-kasztp.txt")).expect("kasztp list");
    let mut v: Vec<String> = list
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::to_owned)
        .collect();
    let log = std::fs::read_to_string(data.join("apache_logs.log")).expect("apache log");
    for line in log.lines() {
        // the Referer: the second-to-last quoted field
        let fields: Vec<&str> = line.split('"').collect();
        if fields.len() >= 6 {
            let r = fields[fields.len() - 4];
            if r != "-" && !r.is_empty() {
                v.push(r.to_owned());
            }
        }
    }
    v
}

/// `p(p(x)) == p(x)` for `x`, when `p(x)` is a key.
fn idempotent(p: &Profile, x: &str) -> Result<(), String> {
    let Ok(k) = p.canonicalize(x) else {
        return Ok(());
    };
    match p.canonicalize(&k) {
        Ok(k2) if k2 == k => Ok(()),
        other => Err(format!("{p}: {x:?} -> {k:?} -> {other:?}")),
    }
}

#[test]
fn url_profiles_are_idempotent_on_real_inputs() {
    let inputs = real_inputs();
    assert!(inputs.len() > 48_000, "{} inputs", inputs.len());
    let mut problems = Vec::new();
    for kind in URL_PROFILES {
        let p = Profile::new(kind);
        problems.extend(inputs.iter().filter_map(|x| idempotent(&p, x).err()));
    }
    common::assert_no_problems(&problems);
}

#[test]
fn surt_ia_keys_ignore_what_its_canonicalization_undoes() {
    let p = Profile::new(ProfileKind::SurtIa);
    let mut problems = Vec::new();
    for x in real_inputs() {
        let Some((scheme, rest)) = x.split_once("://") else {
            continue;
        };
        let Some(host_end) = rest.find('/') else {
            continue;
        };
        let (host, path) = rest.split_at(host_end);
        let default = match scheme {
            "http" => ":80",
            "https" => ":443",
            _ => continue,
        };
        if host.contains([':', '@']) || !host.is_ascii() {
            continue;
        }
        let variant = format!(
            "{}://{}{default}{path}",
            scheme.to_ascii_uppercase(),
            host.to_ascii_uppercase()
        );
        let (a, b) = (p.canonicalize(&x), p.canonicalize(&variant));
        if a != b {
            problems.push(format!("{x:?}: {a:?}, but {variant:?}: {b:?}"));
        }
    }
    common::assert_no_problems(&problems);
}

/// URL-shaped strings: an http(s) scheme, host (with case, `www.`, dots, IPv4 forms), port, a path with
/// dot segments, escapes and odd characters, a query with repeats and blanks, a fragment.
fn url_like() -> impl Strategy<Value = String> {
    // http(s) only: on other schemes urlcanon itself is not idempotent (`mailto://h/%2F/.` is
    // `mailto://h//` to `aggressive`, and that is `mailto://h/`), and the profile copies it
    let scheme = prop::sample::select(vec!["http", "https", "HTTP", "hTTps"]);
    let host = prop::sample::select(vec![
        "example.com",
        "WWW.Example.COM",
        "www2.example.com.",
        "192.168.0.1",
        "0x7f.1",
        "3279880203",
        "[::1]",
        "xn--rsum-bpad.example",
        "résumé.example",
        "a%41b.example",
    ]);
    let port = prop::sample::select(vec!["", ":80", ":443", ":8080", ":", ":0080"]);
    let seg = prop::sample::select(vec![
        "a",
        "B",
        ".",
        "..",
        "%2e",
        "%7e",
        "%7E",
        "~",
        "%20",
        " ",
        "%25",
        "%",
        "%zz",
        "é",
        "%C3%A9",
        "%E9",
        ";p=1",
        "a+b",
        "%2F",
        "index.html",
        "jsessionid=0123456789abcdef0123456789abcdef",
        "",
    ]);
    let pair = prop::sample::select(vec![
        "a=1",
        "b=2",
        "a=2",
        "a",
        "a=",
        "=",
        "&",
        "%20=%2B",
        "q=a+b",
        "x=%E9",
        "é=ü",
        "utm_source=x",
        "PHPSESSID=0123456789abcdef0123456789abcdef",
        "sid=1",
    ]);
    (
        scheme,
        host,
        port,
        prop::collection::vec(seg, 0..5),
        prop::option::of(prop::collection::vec(pair, 0..4)),
        prop::option::of(prop::sample::select(vec!["", "f", "!x/y", "%20"])),
    )
        .prop_map(|(s, h, port, segs, q, f)| {
            let mut u = format!("{s}://{h}{port}");
            for g in segs {
                u.push('/');
                u.push_str(g);
            }
            if let Some(q) = q {
                u.push('?');
                u.push_str(&q.join("&"));
            }
            if let Some(f) = f {
                u.push('#');
                u.push_str(f);
            }
            u
        })
}

proptest! {
    // a fixed seed: the same 3,000 URLs on every run (CI is not a lottery); run with
    // PROPTEST_CASES and another seed in the source to explore
    #![proptest_config(ProptestConfig {
        cases: 3000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(21),
        ..ProptestConfig::default()
    })]

    #[test]
    fn url_profiles_are_idempotent_on_generated_urls(x in url_like()) {
        // crawler-commons 1.6 looks for the query at the wrong index once unescaping has
        // shortened the path (crawler-commons#559, fixed after 1.6): the profile copies that,
        // and such a key is not a fixed point. Its generated URLs have no escape in the path.
        let escaped_path = x.split(['?', '#']).next().is_some_and(|p| p.contains('%'));
        for kind in URL_PROFILES {
            if kind == ProfileKind::CrawlerCommons && escaped_path {
                continue;
            }
            // urlcanon's `aggressive` maps https to http after dropping the default port, so
            // `https://h:80` is `http://h:80/`, and that is `http://h/`: the library is not
            // idempotent on generated ports, and the profile copies it (real inputs: above)
            if kind == ProfileKind::UrlcanonAggressive {
                continue;
            }
            let r = idempotent(&Profile::new(kind), &x);
            prop_assert!(r.is_ok(), "{}", r.unwrap_err());
        }
    }

    #[test]
    fn no_profile_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        for kind in ProfileKind::ALL {
            let mut out = String::new();
            let _ = Profile::new(kind).canonicalize_bytes_into(&bytes, &mut out);
        }
    }
}

/// Long digit runs in every place a profile reads a number (the port, IPv4 parts, `0x` hosts,
/// escapes): no overflow, in a debug build too (found by the `profile` fuzz target:
/// `http://f:4294967377/c` overflowed w3lib's fast path before its digit count was checked).
#[test]
fn long_numbers_do_not_overflow() {
    let mut inputs = Vec::new();
    for n in [5, 6, 10, 20, 39, 40, 80, 400] {
        let nines = "9".repeat(n);
        let digits: String = (0..n).map(|i| char::from(b'0' + (i % 10) as u8)).collect();
        for num in [&nines, &digits] {
            for shape in [
                format!("http://f:{num}/c"),
                format!("https://a.example:{num}"),
                format!("http://{num}/"),
                format!("http://0x{num}/"),
                format!("http://0X{num}.1/"),
                format!("http://1.{num}/"),
                format!("http://0{num}.0.0.1/"),
                format!("http://[::{num}]/"),
                format!("http://h/p?a={num}&b=%{num}"),
                format!("{num}:{num}"),
            ] {
                inputs.push(shape);
            }
        }
    }
    for kind in ProfileKind::ALL {
        let p = Profile::new(kind);
        for x in &inputs {
            let _ = p.canonicalize(x);
            let _ = p.canonicalize_bytes_into(x.as_bytes(), &mut String::new());
        }
    }
}

//! The fast path against the full path: wherever the fast path answers, its key is the full
//! path's, on the kasztp list, on every vector input (and on the keys both make), and on
//! generated inputs, under the default options and the others that change what it accepts.

use super::super::{Profile, ProfileOptions};
use super::{canonicalize_full, fast};
use proptest::prelude::*;

/// The option sets the fast path reads.
fn option_sets() -> Vec<ProfileOptions> {
    [
        "w3lib",
        "w3lib:keep_fragments=true",
        "w3lib:keep_blank_values=false",
        "w3lib:query_separator=;",
        "w3lib:encoding=latin1",
        "w3lib:encoding=utf-16le",
    ]
    .iter()
    .map(|s| Profile::parse(s).expect("a profile").options)
    .collect()
}

/// Whether the fast path answered; panics if its key is not the full path's.
fn agrees(input: &[u8], o: &ProfileOptions) -> bool {
    let mut fast_key = String::from("prefix:");
    if !fast::try_push(input, o, &mut fast_key) {
        assert_eq!(
            fast_key, "prefix:",
            "{input:?}: the fast path wrote and declined"
        );
        return false;
    }
    let mut full_key = String::from("prefix:");
    let full = canonicalize_full(input, o, &mut full_key);
    assert!(
        full.is_ok(),
        "{input:?}: the full path rejects, the fast path answers {fast_key:?}"
    );
    assert_eq!(fast_key, full_key, "{input:?} under {o:?}");
    // text takes its own copy of the fast path: the same key
    if let Ok(text) = std::str::from_utf8(input) {
        let mut str_key = String::from("prefix:");
        assert!(fast::try_push_str(text, o, &mut str_key), "{text:?}");
        assert_eq!(str_key, full_key, "{text:?} as text");
    }
    true
}

/// The input, and the key of the full path (which is its own key, and so a fast-path input).
fn check_with_key(input: &[u8], o: &ProfileOptions) -> usize {
    let mut n = usize::from(agrees(input, o));
    let mut key = String::new();
    if canonicalize_full(input, o, &mut key).is_ok() {
        n += usize::from(agrees(key.as_bytes(), o));
    }
    n
}

fn data(rel: &str) -> Option<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/");
    std::fs::read_to_string(format!("{root}{rel}")).ok()
}

#[test]
fn fast_path_agrees_on_the_kasztp_list() {
    let Some(text) = data("corpora/data/url-list-kasztp.txt") else {
        return; // the corpus is fetched separately
    };
    let urls: Vec<&str> = text
        .trim_start_matches('\u{feff}')
        .split('\n')
        .filter(|l| !l.is_empty())
        .collect();
    for o in option_sets() {
        let taken: usize = urls
            .iter()
            .map(|u| usize::from(agrees(u.as_bytes(), &o)))
            .sum();
        if o == ProfileOptions::default() {
            // Most of the list is its own key: the point of the fast path.
            assert!(taken * 100 > urls.len() * 90, "{taken} of {}", urls.len());
        }
        for u in &urls {
            check_with_key(u.as_bytes(), &o);
        }
    }
}

#[test]
fn fast_path_agrees_on_the_non_normal_list() {
    let Some(text) = data("corpora/data/url-list-kasztp-non-normal.txt") else {
        return;
    };
    let urls: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    for o in option_sets() {
        let declined: Vec<&&str> = urls.iter().filter(|u| !agrees(u.as_bytes(), &o)).collect();
        if o == ProfileOptions::default() {
            eprintln!(
                "{} declined: {:?}",
                declined.len(),
                &declined[..declined.len().min(20)]
            );
            // an upper-case scheme or host, a port, a dot segment, a lower-case escape: all
            // taken but where something else needs the full path
            assert!(declined.len() * 100 < urls.len() * 5, "{}", declined.len());
        }
    }
}

#[test]
fn fast_path_agrees_on_the_vectors() {
    let Some(text) = data("normalize/w3lib-canonicalize-url.jsonl") else {
        return;
    };
    let mut taken = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let input: Vec<u8> = match v["input_hex"].as_str() {
            Some(hex) => (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect(),
            None => v["input"].as_str().expect("input").as_bytes().to_vec(),
        };
        for o in option_sets() {
            taken += check_with_key(&input, &o);
        }
    }
    assert!(taken > 50, "{taken}");
}

#[test]
fn fast_path_agrees_on_edge_cases() {
    let cases = [
        "http://a",
        "http://A.B:8080",
        // the path's last eight bytes reach back into the host: "//." there, a short tail
        "http://.a/",
        "http://.a/b",
        "http://..//",
        "http://a/b%41",
        "http://a/b;c",
        "http://ab/c\"",
        "http://abcdefgh/ijklmno/.",
        "https://a:0/",
        "https://a:01/",
        "https://a:65535/",
        "https://a:65536/",
        "https://a:/",
        "http://a/./b",
        "http://a/b/..",
        "http://a/.../b",
        "http://a/b/.;x",
        "http://a/b/..;x",
        "http://a/b;",
        "http://a/b;c;d",
        "http://a/b;[",
        "http://a/b;c/d",
        "http://a/%2f",
        "http://a/%2F%25%3B%3F",
        "http://a/%41",
        "http://a/%",
        "http://a/%2%41",
        "http://a/?",
        "http://a/?a",
        "http://a/?a=",
        "http://a/?=a",
        "http://a/?a=1&&b=2",
        "http://a/?a=1&",
        "http://a/?b=1&a=2",
        "http://a/?a=2&a=1",
        "http://a/?a=1&a=1",
        "http://a/?a=b=c",
        "http://a/?a+b=1&a=1",
        "http://a/?a%2B=1&a-=1",
        "http://a/?a=%20",
        "http://a/?a=%41",
        "http://a/?a=%2b",
        "http://a/?a=%2B&a=+",
        "http://a/?a=%FF&a=%C3%A9",
        "http://a/?a;b=1",
        "http://a/?a=1;b=2",
        "http://a/?a=1;a=0",
        "http://a/#",
        "http://a/#x",
        "http://a/#x y",
        "http://a/#\u{e9}",
        "http://a/#[",
        "http://a/?a=1#b",
        "http://a#b",
        "http://a?b=1",
        "http://a/[]|",
        "http://a/ ",
        "http://a/\\",
        "http://a/\t",
        "http://@a/",
        "http://a@b/",
        "http://[::1]/",
        "http://a%41/",
        "http://a_b~c/",
        "https://a./",
        "http://a/b?c=d/e",
        // queries written again, not copied
        "http://a/?b=/&a=:",
        "http://A/?b=/&a=:#x/y",
        "http://a?b=/",
        "http://a?b=/#",
        "http://a/?a=%2f&b=\\",
        "http://a/?a=/\t",
        "http://a/?a=/ #x",
        "http://a/?&amp;x=1&amp;a=2",
        "http://a/?x=%zz/&y=%",
        "http://a/?x=<>^`{}|\"",
        "http://a/?x=/?y=1",
        "http://a/?x=/\u{e9}",
        "http://a/?x=/#\u{e9}",
    ];
    for o in option_sets() {
        for c in cases {
            check_with_key(c.as_bytes(), &o);
        }
    }
    // A dot segment at every offset of the eight-byte steps.
    let o = ProfileOptions::default();
    for pad in 0..20 {
        let p = "x".repeat(pad);
        for tail in [
            "/.", "/..", "/./y", "/../y", "/.x", "/..x", "/.;p", "/x.", "/.%2F",
        ] {
            for host in ["a", "abcdefgh", "A.Bcdefghijklmnop"] {
                check_with_key(format!("http://{host}/{p}{tail}").as_bytes(), &o);
                check_with_key(format!("https://{host}/{p}{tail}?a=1").as_bytes(), &o);
            }
        }
    }
}

/// Inputs near the fast path's edges: its prefixes, then text from the bytes that matter.
fn near_canonical() -> impl Strategy<Value = String> {
    let head = prop::sample::select(vec![
        "http://",
        "https://",
        "HTTP://",
        "http:/",
        "ftp://",
        "http://a",
        "https://x.y",
    ]);
    let piece = prop::sample::select(vec![
        "a", "B", "0", "9", "-", ".", "_", "~", "/", "./", "../", "/.", "/..", ";", ";p", ":",
        ":80", ":0", "@", "?", "#", "=", "&", "+", "%", "%2", "%25", "%2F", "%2f", "%3B", "%3F",
        "%41", "%20", "%FF", "%C3%A9", "[", "]", "|", " ", "\\", "\t", "\u{e9}", "*", "!", "$",
        "'", "(", ",", "a=1", "b=2", "a=", "=b", "xn--", "\"", "<", "^", "`", "{",
    ]);
    (head, prop::collection::vec(piece, 0..14)).prop_map(|(h, v)| format!("{h}{}", v.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fast_path_agrees_on_generated_inputs(s in near_canonical()) {
        for o in option_sets() {
            check_with_key(s.as_bytes(), &o);
        }
    }
}

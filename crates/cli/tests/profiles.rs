//! `--profile` through the command line (issue #21): the profile's keys in `normalize` and
//! `run` (checked against each other: `scan`, then `normalize --profile`, then `dedup`, must
//! give what `run --profile` gives), the profile as the last step of `compare --explain`, its
//! name and version in `identity` and in the persistent store, and the usage errors. Each
//! profile's rules are tested on its peers' vectors (`crates/profiles/tests/vectors.rs`) and
//! against the real libraries (`tests/oracles/test_profiles.py`).

use crate::common;
use common::{linksieve, tempdir};

#[test]
fn normalize_prints_the_profile_key() {
    let r = linksieve(
        &["normalize", "--profile", "w3lib", "-"],
        "HTTP://Example.COM/a?b=2&a=1#top\n",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://example.com/a?a=1&b=2\n"),
        "{}",
        r.stderr
    );
    let r = linksieve(
        &["normalize", "--profile", "w3lib:keep_fragments=true", "-"],
        "http://example.com/a?b=2&a=1#top\n",
    );
    assert_eq!(
        r.stdout, "http://example.com/a?a=1&b=2#top\n",
        "{}",
        r.stderr
    );
    let r = linksieve(
        &["normalize", "--profile", "surt-ia", "-"],
        "http://www.Example.com/a?b=2&a=1\n",
    );
    assert_eq!(r.stdout, "com,example)/a?a=1&b=2\n", "{}", r.stderr);
}

#[test]
fn usage_errors() {
    for args in [
        &["normalize", "--profile", "nutch", "x"][..],
        &["normalize", "--profile", "w3lib:sort=true", "x"],
        &["normalize", "--profile", "gsb:keep_fragments=true", "x"],
        &["normalize", "--profile", "w3lib", "--form", "iri", "x"],
        &["run", "--profile", "w3lib", "--form", "surt", "-"],
    ] {
        let r = linksieve(args, "");
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("profile"), "{args:?}: {}", r.stderr);
    }
}

/// `run --profile` against another path through linksieve: `scan` finds the links,
/// `normalize --profile` keys them, `dedup` keeps each key once.
#[test]
fn run_gives_what_scan_normalize_dedup_give() {
    let text = "see HTTP://A.example/x?b=1&a=2 and http://a.example/x?a=2&b=1#f, \
                http://www.b.example:80/p/../q and https://b.example/q?z&y=\n\
                again http://A.EXAMPLE/x?a=2&b=1 then http://c.example/%7euser/\n";
    for profile in [
        "w3lib",
        "surt-ia",
        "urlcanon-semantic",
        "urlcanon-aggressive",
        "gsb",
        "crawler-commons",
    ] {
        let run = linksieve(&["run", "-q", "--profile", profile, "-"], text);
        assert_eq!(run.code, 0, "{profile}: {}", run.stderr);
        let scan = linksieve(&["scan", "-"], text);
        let norm = linksieve(&["normalize", "--profile", profile, "-"], &scan.stdout);
        assert_eq!(norm.code, 0, "{profile}: {}", norm.stderr);
        let dedup = linksieve(&["dedup", "-q", "-"], &norm.stdout);
        assert_eq!(run.stdout, dedup.stdout, "{profile}");
        assert!(run.stdout.lines().count() >= 3, "{profile}: {}", run.stdout);
    }
}

#[test]
fn compare_takes_the_profile_last() {
    let r = linksieve(
        &[
            "compare",
            "--explain",
            "--profile",
            "w3lib",
            "http://h/?b=1&a=2",
            "http://h/?a=2&b=1",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"equivalent under profile w3lib"));
    let step = lines
        .iter()
        .position(|l| l.starts_with("profile w3lib (w3lib 2.5.0"))
        .expect("profile step");
    assert!(
        lines[..step].iter().any(|l| l.starts_with("scheme")),
        "{}",
        r.stdout
    );
    // equal on the ladder: the profile is not needed
    let r = linksieve(
        &["compare", "--profile", "w3lib", "HTTP://h/", "http://h/"],
        "",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "equivalent at syntax\n"));
    let r = linksieve(
        &["compare", "--profile", "w3lib", "http://h/a", "http://h/b"],
        "",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, "different up to profile w3lib\n")
    );
}

#[test]
fn identity_and_store_record_the_profile() {
    let r = linksieve(&["identity", "--profile", "surt-ia:host_massage=false"], "");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["profile"], "surt-ia:host_massage=false@surt 0.3.1+1");
    let r = linksieve(&["identity"], "");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert!(v["profile"].is_null());

    let dir = tempdir("profile-store");
    let store = dir.join("store");
    let s = store.to_str().expect("path");
    let r = linksieve(
        &["run", "-q", "--profile", "w3lib", "--seen", s, "-"],
        "http://h/?b&a\n",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://h/?a=&b=\n"),
        "{}",
        r.stderr
    );
    let r = linksieve(
        &["run", "-q", "--profile", "w3lib", "--seen", s, "-"],
        "http://H/?a&b\n",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    // keys of the ladder, or of another profile or option, are refused
    for other in [
        &[][..],
        &["--profile", "w3lib:keep_fragments=true"],
        &["--profile", "gsb"],
    ] {
        let mut args = vec!["run", "-q", "--seen", s];
        args.extend_from_slice(other);
        args.push("-");
        let r = linksieve(&args, "http://x/\n");
        assert_eq!(r.code, 2, "{other:?}: {}", r.stderr);
    }
    std::fs::remove_dir_all(dir).ok();
}

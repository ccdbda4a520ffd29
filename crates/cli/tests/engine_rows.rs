//! The line contract for engines: `run`, `scan` and `normalize --format tsv` write
//! `fingerprint<TAB>key<TAB>original<TAB>provenance` with the fingerprint that of the key,
//! fields escaped; `identity` names what the keys are.

use crate::common;
use common::linksieve;
use linksieve_dedup::Fingerprint;
use std::path::PathBuf;

/// Splits rows into their four fields, checking the shape and that `fingerprint` is that of
/// `key` (escaped fields are compared as written).
fn rows(stdout: &str) -> Vec<[String; 4]> {
    stdout
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "not four fields: {line:?}");
            assert_eq!(
                f[0],
                format!("{:032x}", Fingerprint::of(f[1].as_bytes()).0),
                "{line}"
            );
            [f[0], f[1], f[2], f[3]].map(str::to_owned)
        })
        .collect()
}

fn sample(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample");
    p.join(name).to_str().expect("UTF-8 path").to_owned()
}

#[test]
fn run_scan_and_normalize_agree_on_keys() {
    let files = [sample("iris.txt"), sample("mixed.txt")];
    let args = |cmd: &str| {
        let mut a = vec![cmd, "--format", "tsv"];
        a.extend(files.iter().map(String::as_str));
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run_args = args("run");
    let run_args: Vec<&str> = run_args.iter().map(String::as_str).collect();
    let r = linksieve(&[&run_args[..], &["-q"]].concat(), "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let run_rows = rows(&r.stdout);
    let keys = linksieve(
        &[&["run"], &files.each_ref().map(String::as_str)[..]].concat(),
        "",
    );
    let plain: Vec<&str> = keys.stdout.lines().collect();
    let canon: Vec<&str> = run_rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(
        canon, plain,
        "tsv canonical column = the keys of a plain run"
    );

    // scan keys every link; deduplicated in order they are run's rows, provenance included.
    let scan_args = args("scan");
    let scan_args: Vec<&str> = scan_args.iter().map(String::as_str).collect();
    let s = linksieve(&scan_args, "");
    assert_eq!(s.code, 0, "{}", s.stderr);
    let mut seen = std::collections::HashSet::new();
    let firsts: Vec<[String; 4]> = rows(&s.stdout)
        .into_iter()
        .filter(|r| seen.insert(r[0].clone()))
        .collect();
    assert_eq!(firsts, run_rows);
    // links without a key are reported, one line each, and not written: as many as run rejects
    let rejected = s.stderr.matches("no key for").count();
    assert!(rejected > 0);
    assert!(
        keys.stderr
            .contains(&format!("links rejected: {rejected}\n")),
        "{}\n{}",
        s.stderr,
        keys.stderr
    );

    // normalize keys lines: the originals of run's rows give the same keys.
    let originals: String = run_rows.iter().map(|r| format!("{}\n", r[2])).collect();
    let n = linksieve(
        &["normalize", "--input-mode", "leiri", "--format", "tsv"],
        &originals,
    );
    let n_rows = rows(&n.stdout);
    assert_eq!(n.code, 0, "{}", n.stderr);
    for (i, (a, b)) in n_rows.iter().zip(&run_rows).enumerate() {
        assert_eq!(a[..3], b[..3]);
        assert_eq!(a[3], format!("-:{}", i + 1));
    }
    assert_eq!(n_rows.len(), run_rows.len());
}

#[test]
fn provenance_and_errors_of_line_commands() {
    let r = linksieve(
        &["normalize", "--format", "tsv", "HTTP://A.example:80", "-"],
        "http://b.example/%7e\nhttp://bad host/\n",
    );
    assert_eq!(r.code, 1, "a rejected line is exit 1");
    let got = rows(&r.stdout);
    assert_eq!(
        got.iter()
            .map(|r| [r[1].as_str(), r[2].as_str(), r[3].as_str()])
            .collect::<Vec<_>>(),
        [
            ["http://a.example/", "HTTP://A.example:80", "arg:1"],
            ["http://b.example/~", "http://b.example/%7e", "-:1"],
        ]
    );
    assert!(r.stderr.starts_with("-:2: "), "{}", r.stderr);
}

#[test]
fn fields_never_hold_raw_tabs_or_newlines() {
    let dir = std::env::temp_dir().join(format!("linksieve-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let odd = dir.join("a\tb\\c\nd.txt");
    std::fs::write(&odd, "see http://example.com/x\n").expect("write");
    let p = odd.to_str().expect("UTF-8");
    for cmd in ["run", "scan"] {
        let r = linksieve(&[cmd, "--format", "tsv", "-q", p], "");
        let r = if cmd == "scan" {
            linksieve(&[cmd, "--format", "tsv", p], "")
        } else {
            r
        };
        assert_eq!(r.code, 0, "{cmd}: {}", r.stderr);
        let got = rows(&r.stdout);
        assert_eq!(got.len(), 1, "{cmd}: {:?}", r.stdout);
        assert!(
            got[0][3].ends_with("a\\tb\\\\c\\nd.txt:1:4"),
            "{cmd}: {}",
            got[0][3]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn identity_names_hash_rung_form_and_rules() {
    let r = linksieve(&["identity"], "");
    assert_eq!(r.code, 0);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("json");
    assert_eq!(
        v,
        serde_json::json!({"hash": "xxh3-128", "hash_version": 1, "rung": "scheme", "form": "uri", "ruleset_version": 0, "profile": null, "nfc": false, "input": "leiri"})
    );
    // --nfc and --input change keys: they are in the identity
    let r = linksieve(&["identity", "--nfc", "--input-mode", "web"], "");
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("json");
    assert_eq!(
        (v["nfc"].as_bool(), v["input"].as_str()),
        (Some(true), Some("web"))
    );
    let rules =
        std::env::temp_dir().join(format!("linksieve-id-rules-{}.toml", std::process::id()));
    std::fs::write(&rules, "version = 7\n").expect("write");
    let r = linksieve(
        &[
            "identity",
            "--rung",
            "protocol",
            "--form",
            "surt",
            "--rules",
            rules.to_str().expect("UTF-8"),
        ],
        "",
    );
    let _ = std::fs::remove_file(&rules);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("json");
    assert_eq!(
        (v["rung"].as_str(), v["form"].as_str()),
        (Some("protocol"), Some("surt"))
    );
    assert_eq!(v["ruleset_version"], 7);
    // rules below the protocol rung are a usage error
    assert_eq!(linksieve(&["identity", "--rules", "x.toml"], "").code, 2);
}

//! `linksieve dedup`: the dedup stage alone, on lines.

use crate::common;

use common::linksieve;
use std::io::Write;
use std::path::PathBuf;

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ls-dedup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn each_line_once_in_first_occurrence_order() {
    // Bytes, not keys: case and a CR make lines differ; the last line has no LF.
    let input = "http://b/\nhttp://a/\nhttp://b/\nHTTP://b/\nhttp://a/\r\n\n\nhttp://a/";
    let r = linksieve(&["dedup", "-q"], input);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "http://b/\nhttp://a/\nHTTP://b/\nhttp://a/\r\n\n");
    let r = linksieve(&["dedup"], input);
    for want in ["lines: 8", "unique: 5", "duplicates: 3"] {
        assert!(r.stderr.contains(want), "{want} in {}", r.stderr);
    }
}

#[test]
fn files_compression_stats_and_failures() {
    let dir = tempdir("files");
    let plain = dir.join("a.txt");
    std::fs::write(&plain, "x\ny\n").expect("write");
    let gz = dir.join("b.data");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b"y\nz\n").expect("gzip");
    std::fs::write(&gz, e.finish().expect("gzip")).expect("write");
    let stats = dir.join("stats.json");
    let missing = dir.join("missing.txt");
    let r = linksieve(
        &[
            "dedup",
            "-q",
            "--stats",
            stats.to_str().expect("path"),
            plain.to_str().expect("path"),
            missing.to_str().expect("path"),
            gz.to_str().expect("path"),
        ],
        "",
    );
    assert_eq!(r.code, 1, "a missing input is exit 1: {}", r.stderr);
    assert_eq!(r.stdout, "x\ny\nz\n");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats")).expect("JSON");
    assert_eq!(json["lines"], 4);
    assert_eq!(json["unique"], 3);
    assert_eq!(
        json["inputs_failed"][0]["input"],
        missing.to_str().expect("path")
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn lines_longer_than_a_batch_and_every_seen_set_agree() {
    // 3 MiB lines cross the 1 MiB batches; spill with a tiny budget and approx give the same.
    let long = |c: char| c.to_string().repeat(3 << 20);
    // (Files, not stdin: the helper writes all of stdin before it reads stdout.)
    let dir = tempdir("long");
    let (input, out) = (dir.join("in.txt"), dir.join("out.txt"));
    let text = format!("{}\nshort\n{}\n{}\nshort", long('a'), long('b'), long('a'));
    std::fs::write(&input, text).expect("write");
    let want = format!("{}\nshort\n{}\n", long('a'), long('b'));
    let (i, o) = (input.to_str().expect("path"), out.to_str().expect("path"));
    for args in [
        vec!["dedup", "-q", "--out", o, i],
        vec![
            "dedup", "-q", "--out", o, "--dedup", "spill", "--memory", "64K", i,
        ],
        vec![
            "dedup",
            "-q",
            "--out",
            o,
            "--dedup",
            "approx",
            "--fp-rate",
            "1e-9",
            i,
        ],
    ] {
        let r = linksieve(&args, "");
        let got = std::fs::read_to_string(&out).expect("output");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(got == want, "{args:?}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_persistent_set_across_runs_and_its_identity() {
    let dir = tempdir("seen");
    let store = dir.join("store");
    let s = store.to_str().expect("path");
    let r = linksieve(&["dedup", "-q", "--seen", s], "http://a/\nhttp://b/\n");
    assert_eq!((r.code, r.stdout.as_str()), (0, "http://a/\nhttp://b/\n"));
    let r = linksieve(
        &["dedup", "-q", "--seen", s],
        "http://b/\nhttp://c/\nhttp://a/\n",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://c/\n"),
        "{}",
        r.stderr
    );
    // The same store takes `run`'s keys (same rung, form and hash) ...
    let r = linksieve(
        &["run", "-q", "--seen", s],
        "see HTTP://C:80/ and http://d/\n",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://d/\n"),
        "{}",
        r.stderr
    );
    // ... and refuses keys of another rung, and keys made with another option that changes a
    // key (before issue 31 the store recorded neither --nfc nor --input: a run with either
    // wrote the same links again)
    for other in [
        &["dedup", "-q", "--rung", "string", "--seen", s][..],
        &["dedup", "-q", "--nfc", "--seen", s],
        &["dedup", "-q", "--input-mode", "web", "--seen", s],
        &["run", "-q", "--nfc", "--seen", s],
        &["run", "-q", "--input-mode", "strict", "--seen", s],
    ] {
        let r = linksieve(other, "http://x/\n");
        assert_eq!(r.code, 2, "{other:?}: {}", r.stderr);
        assert!(r.stderr.contains("identity"), "{other:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{other:?}");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Issue #18 item 11: `--dedup approx --expected 0` (far below the real count) grows instead of
/// dropping most lines; the drops (against the exact `--dedup memory` answer) stay within the
/// asked rate and the estimate; the summary says the filter grew. With a `--memory` limit it
/// warns that it is overfilled.
#[test]
fn approx_far_past_expected_grows_and_says_so() {
    // The input is a file: common::linksieve writes all of stdin before it reads stdout.
    let n = 100_000;
    let dir = tempdir("approx-grows");
    let path = dir.join("keys.txt");
    let text: String = (0..n)
        .map(|i| format!("http://h{}.example/p{i}\n", i % 1000))
        .collect();
    std::fs::write(&path, text).expect("write");
    let file = path.to_str().expect("path");
    let exact = linksieve(&["dedup", "-q", file], "");
    assert_eq!(exact.code, 0, "{}", exact.stderr);
    let exact_lines = exact.stdout.lines().count();
    assert_eq!(exact_lines, n);
    for expected in ["0", "10000", "100000"] {
        let r = linksieve(
            &[
                "dedup",
                "--dedup",
                "approx",
                "--fp-rate",
                "0.01",
                "--expected",
                expected,
                file,
            ],
            "",
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let dropped = (exact_lines - r.stdout.lines().count()) as f64;
        let (est, _) = estimate(&r.stderr);
        assert!(
            dropped < 0.01 * n as f64,
            "--expected {expected}: {dropped} dropped"
        );
        assert!(
            (dropped - est).abs() <= 5.0 * est.sqrt() + 3.0,
            "--expected {expected}: {dropped} dropped, {est} estimated"
        );
        assert_eq!(
            r.stderr.contains("warning: approx filter grew"),
            expected != "100000",
            "--expected {expected}: {}",
            r.stderr
        );
    }
    let r = linksieve(
        &[
            "dedup",
            "--dedup",
            "approx",
            "--expected",
            "0",
            "--memory",
            "64K",
            file,
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: approx filter overfilled"),
        "{}",
        r.stderr
    );
    // overfilled: many lines dropped, and the estimate says how many
    let dropped = (exact_lines - r.stdout.lines().count()) as f64;
    let (est, err) = estimate(&r.stderr);
    assert!(dropped > 0.1 * n as f64, "{dropped} dropped");
    assert!(
        (dropped - est).abs() <= 4.0 * err + 3.0,
        "overfilled: {dropped} dropped, {est} ± {err} estimated"
    );
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

/// The summary's estimate of wrongly dropped lines and its standard error.
fn estimate(summary: &str) -> (f64, f64) {
    let line = summary
        .lines()
        .find_map(|l| l.strip_prefix("expected new lines wrongly dropped (approx): "))
        .expect("estimate in the summary");
    let (est, rest) = line.split_once(" ± ").expect("an error");
    let err = rest.split_once(' ').expect("a number").0;
    (
        est.parse().expect("a number"),
        err.parse().expect("a number"),
    )
}

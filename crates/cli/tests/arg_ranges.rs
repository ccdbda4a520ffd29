//! Issue #18 item 12: every size or count argument has a range; outside it, a usage error
//! (exit 2) at once, never an abort, an overflow or a spin.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn status(args: &[&str]) -> (Option<i32>, String) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?} still runs after 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn out_of_range_arguments_are_usage_errors() {
    for args in [
        &["run", "--dedup", "approx", "--expected", "100000000000"][..],
        &[
            "run",
            "--dedup",
            "approx",
            "--expected",
            "18446744073709551615",
        ],
        &["run", "--chunk-size", "100G"],
        &["run", "--chunk-size", "0"],
        &["run", "--chunk-size", "18446744073709551615K"],
        &["run", "--memory", "0", "--dedup", "spill"],
        &["run", "--memory", "2T", "--dedup", "spill"],
        &["run", "--memory", "1P", "--dedup", "spill"],
        &["run", "--max-link-len", "18446744073709551615"],
        &["run", "--max-link-len", "0"],
        &["run", "-j", "10000"],
        &["scan", "--max-link-len", "18446744073709551615"],
        &["dedup", "--memory", "0", "--dedup", "spill"],
        &["dedup", "--dedup", "approx", "--expected", "100000000000"],
        &["dedup", "--dedup", "approx", "--fp-rate", "2"],
        &["run", "--seen", "/nonexistent-dir/s", "--commit", "0"],
        &["run", "--seen", "/nonexistent-dir/s", "--commit", "2d"],
        &["run", "--seen", "/nonexistent-dir/s", "--commit", "90000s"],
        &[
            "run",
            "--seen",
            "/nonexistent-dir/s",
            "--commit",
            "1000000000001",
        ],
        &["dedup", "--seen", "/nonexistent-dir/s", "--commit", "0ms"],
        &["run", "--commit", "every"],
    ] {
        let (code, err) = status(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?}: says why");
    }
}

#[test]
fn rule_files_have_a_size_limit() {
    for flag in ["--rules", "--redirects"] {
        let (code, err) = status(&[
            "normalize",
            "--rung",
            "protocol",
            flag,
            "/dev/zero",
            "http://a.example/",
        ]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("limit"), "{flag}: {err}");
    }
}

#[test]
fn the_edges_of_the_ranges_are_accepted() {
    for args in [
        &["run", "-q", "--chunk-size", "4K", "-j", "256", "/dev/null"][..],
        &["run", "-q", "--max-link-len", "256", "/dev/null"],
        &[
            "run",
            "-q",
            "--dedup",
            "spill",
            "--memory",
            "1M",
            "/dev/null",
        ],
        // the documented range, written as the guide writes it
        &[
            "run",
            "-q",
            "--dedup",
            "spill",
            "--memory",
            "64K",
            "/dev/null",
        ],
        &[
            "run",
            "-q",
            "--dedup",
            "spill",
            "--memory",
            "1T",
            "/dev/null",
        ],
        &[
            "run",
            "-q",
            "--dedup",
            "approx",
            "--expected",
            "0",
            "/dev/null",
        ],
    ] {
        let (code, err) = status(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
}

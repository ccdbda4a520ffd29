//! Issue #18 item 15: a damaged `--seen` store is a clear error with its own exit status (4),
//! never a panic (exit 101) and never a silent re-emission of the keys it holds; `--out` and
//! `--seen` on one file is a usage error.

mod common;

use common::tempdir;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], store: &Path, input: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(["run", "-q", "--seen"])
        .arg(store)
        .args(args)
        .arg(input)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_truncated_store_is_an_error_of_its_own() {
    let d = tempdir("trunc");
    let input = d.join("in.txt");
    let text: String = (0..20_000)
        .map(|i| format!("http://h{}.example/p{i}\n", i % 50))
        .collect();
    std::fs::write(&input, text).unwrap();
    let good = d.join("good.db");
    let first = run(&[], &good, &input);
    assert_eq!(first.status.code(), Some(0));
    let len = std::fs::metadata(&good).unwrap().len();
    for cut in [4096, 16 << 10, len / 3, len / 2, len - 4096] {
        let damaged = d.join(format!("cut-{cut}.db"));
        std::fs::copy(&good, &damaged).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&damaged)
            .unwrap()
            .set_len(cut)
            .unwrap();
        let out = run(&[], &damaged, &input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(
            out.status.code(),
            Some(101),
            "cut at {cut}: panicked: {err}"
        );
        assert!(!err.contains("panicked"), "cut at {cut}: {err}");
        match out.status.code() {
            Some(4) => assert!(err.contains("damaged"), "cut at {cut}: {err}"),
            Some(0) => assert!(
                out.stdout.is_empty(),
                "cut at {cut}: opened and re-emitted {} bytes of stored keys",
                out.stdout.len()
            ),
            c => panic!("cut at {cut}: status {c:?}: {err}"),
        }
    }
}

#[test]
fn out_on_the_store_is_a_usage_error() {
    let d = tempdir("same");
    let input = d.join("in.txt");
    std::fs::write(&input, "http://a.example/\n").unwrap();
    let store = d.join("s.db");
    assert_eq!(run(&[], &store, &input).status.code(), Some(0));
    let before = std::fs::read(&store).unwrap();
    let link = d.join("link.db");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&store, &link).unwrap();
    for out in [&store, &link] {
        let o = run(&["--out", out.to_str().unwrap()], &store, &input);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(
        std::fs::read(&store).unwrap(),
        before,
        "the store is untouched"
    );
}

#[test]
fn a_store_locked_by_another_run_ends_with_status_4() {
    let d = tempdir("locked");
    let store = d.join("s.db");
    // the first run holds the store while it waits for its standard input
    let mut first = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(["run", "-q", "--seen"])
        .arg(&store)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !store.exists() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let input = d.join("in.txt");
    std::fs::write(&input, "http://a.example/\n").unwrap();
    let second = run(&[], &store, &input);
    drop(first.stdin.take());
    first.wait().unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(4), "{err}");
    assert_eq!(err.lines().count(), 1, "one message: {err}");
}

//! Issue #18 items 14 and 16: `--out` never follows a planted symlink, and run-time failures
//! of the output end with their own status (3), the cause said once.

mod common;

use common::tempdir;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
}

#[cfg(unix)]
#[test]
fn out_never_follows_a_symlink_at_a_temporary_name() {
    let d = tempdir("symlink");
    let input = d.join("in.txt");
    std::fs::write(&input, "http://a.example/ http://b.example/\n").unwrap();
    let victim = d.join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    // every name a run of this process's PID could have picked before this fix, and one of
    // the new shape
    let pid_guess = d.join(".o.txt.linksieve-1.tmp");
    let shaped = d.join(".o.txt.linksieve-1-0000000000000000.tmp");
    for l in [&pid_guess, &shaped] {
        std::os::unix::fs::symlink(&victim, l).unwrap();
    }
    let target = d.join("o.txt");
    let out = bin()
        .args(["run", "-q", "--out"])
        .arg(&target)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let meta = std::fs::symlink_metadata(&target).unwrap();
    assert!(meta.is_file(), "the output is a file, not a link");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "http://a.example/\nhttp://b.example/\n"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_output_ends_with_status_3_and_says_the_cause_once() {
    let d = tempdir("full");
    let input = d.join("in.txt");
    std::fs::write(&input, "http://a.example/\n").unwrap();
    for sub in ["run", "dedup"] {
        let out = bin()
            .args([sub, "-q"])
            .arg(&input)
            .stdout(Stdio::from(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            ))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{sub}: {err}");
        assert_eq!(
            err.matches("No space left on device").count(),
            1,
            "{sub}: {err}"
        );
    }
    // a usage error stays 2
    let out = bin()
        .args(["run", "--chunk-size", "banana"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

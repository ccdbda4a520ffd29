//! Issue #18 items 14 and 16: `--out` never follows a planted symlink, and run-time failures
//! of the output end with their own status (3), the cause said once.

use crate::common;

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
        let out = common::to_full_output([sub, "-q", input.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{sub}: {err}");
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

/// Issue #30 item 1: `--stats` naming the store or the `--out` file is refused before any work
/// (it used to replace the store with the summary, or the key list with it).
#[test]
fn stats_never_replaces_the_store_or_the_output() {
    let d = tempdir("stats-clobber");
    let input = d.join("day2.txt");
    std::fs::write(&input, "http://a.example/ http://b.example/\n").unwrap();
    let store = d.join("crawl.redb");
    let first = bin()
        .args(["run", "-q", "--seen"])
        .arg(&store)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let store_bytes = std::fs::read(&store).unwrap();
    for sub in ["run", "dedup"] {
        let out = bin()
            .args([sub, "-q", "--seen"])
            .arg(&store)
            .arg("--stats")
            .arg(&store)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{sub}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("name one file"));
        assert_eq!(std::fs::read(&store).unwrap(), store_bytes, "{sub}");
        let keys = d.join("keys.txt");
        std::fs::write(&keys, "old keys\n").unwrap();
        let out = bin()
            .args([sub, "-q", "--out"])
            .arg(&keys)
            .arg("--stats")
            .arg(&keys)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{sub}: {out:?}");
        assert_eq!(std::fs::read_to_string(&keys).unwrap(), "old keys\n");
    }
    // the next run still opens the store
    let next = bin()
        .args(["run", "-q", "--seen"])
        .arg(&store)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(next.status.code(), Some(0), "{next:?}");
    assert_eq!(next.stdout, b"");
}

/// Issue #30 item 2: `--out` and `--stats` never rename over a device node, a FIFO, a symlink
/// or a directory: each is a usage error before any input is read.
#[cfg(unix)]
#[test]
fn out_and_stats_write_only_regular_files() {
    use std::os::unix::fs::FileTypeExt;
    let d = tempdir("not-regular");
    let input = d.join("in.txt");
    std::fs::write(&input, "http://a.example/\n").unwrap();
    let fifo = d.join("fifo");
    common::mkfifo(&fifo);
    let link = d.join("stdout");
    std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
    let to_file = d.join("to-file");
    std::fs::write(d.join("real.txt"), "real\n").unwrap();
    std::os::unix::fs::symlink(d.join("real.txt"), &to_file).unwrap();
    let dir = d.join("folder");
    std::fs::create_dir(&dir).unwrap();
    let mut targets = vec![(fifo.clone(), "a FIFO"), (link.clone(), "a symbolic link")];
    targets.push((to_file.clone(), "a symbolic link"));
    targets.push((dir.clone(), "a directory"));
    // a character device of our own (`mknod null c 1 3`) where we may make one (root, as CI)
    let dev = d.join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    // root (as CI runs) can always make one: the device case is never skipped there
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    assert!(made || !root, "mknod failed as root");
    if made {
        targets.push((dev.clone(), "a character device"));
    }
    for (target, what) in &targets {
        for (sub, flag) in [
            ("run", "--out"),
            ("run", "--stats"),
            ("dedup", "--out"),
            ("dedup", "--stats"),
        ] {
            let out = bin()
                .args([sub, "-q", flag])
                .arg(target)
                .arg(&input)
                .stdout(Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{sub} {flag} {what}: {err}");
            assert!(err.contains(what), "{sub} {flag}: {err}");
        }
    }
    let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(t.is_fifo());
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(std::fs::symlink_metadata(&to_file).unwrap().is_symlink());
    assert_eq!(
        std::fs::read_to_string(d.join("real.txt")).unwrap(),
        "real\n"
    );
    if made {
        let t = std::fs::symlink_metadata(&dev).unwrap().file_type();
        assert!(t.is_char_device());
    }
    // a folder that is not there: refused before the run too
    let out = bin()
        .args(["run", "-q", "--stats"])
        .arg(d.join("no/such/stats.json"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(out.stdout, b"", "refused before any key was written");
}

/// Issue #30 item 12: an input that cannot be read is said on stderr when it happens, under
/// `-q` too, before the inputs after it are done; the summary states the elapsed time and the
/// throughput.
#[test]
fn failed_inputs_are_reported_when_they_happen() {
    let d = tempdir("report");
    let good = d.join("good.txt");
    std::fs::write(&good, "http://a.example/\n").unwrap();
    let missing = d.join("missing.txt");
    for sub in ["run", "dedup"] {
        let out = bin()
            .args([sub, "-q"])
            .arg(&missing)
            .arg(&good)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{sub}: {err}");
        assert!(
            err.contains(&format!("{}: No such file", missing.display())),
            "{sub}: {err}"
        );
        assert!(!err.contains("summary"), "{sub}: -q has no summary: {err}");
        let out = bin().args([sub]).arg(&good).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("  elapsed: ") && err.contains("MB/s"), "{err}");
    }
    let stats = d.join("stats.json");
    let out = bin()
        .args(["run", "-q", "--stats"])
        .arg(&stats)
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(json["elapsed_seconds"].as_f64().is_some_and(|s| s > 0.0));
    assert_eq!(json["bytes_read"], 18);
}

/// Issue #30 item 12: `scan` reads compressed input as `run` does, and refuses a WARC file
/// (it printed nothing, exit 0, for a `.warc.gz`).
#[test]
fn scan_reads_compressed_text_and_refuses_warc() {
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let d = tempdir("scan-gz");
    let gz = |name: &str, text: &[u8]| {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(text).unwrap();
        let p = d.join(name);
        std::fs::write(&p, e.finish().unwrap()).unwrap();
        p
    };
    let text = gz("notes.txt.gz", b"see http://a.example/x\n");
    let out = bin().arg("scan").arg(&text).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, b"http://a.example/x\n");
    let warc = gz(
        "crawl.warc.gz",
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.example/\r\nContent-Length: 0\r\n\r\n\r\n\r\n",
    );
    let out = bin().arg("scan").arg(&warc).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("linksieve run"), "{err}");
}

//! `linksieve run` as users run it: the README's sample, formats, a closed pipe, SIGINT (a
//! store's losses are in `delivery.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run linksieve")
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("linksieve-cli-run-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn the_readme_sample() {
    let sample = repo().join("testdata/sample/mixed.txt");
    let out = run(&["run", sample.to_str().expect("path")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(
        keys.lines().collect::<Vec<_>>(),
        [
            "http://example.com/docs/index.html",
            "https://example.com/docs/index.html#install",
            "https://xn--r8jz45g.xn--zckzah/%E3%82%AC%E3%82%A4%E3%83%89",
            "http://xn--rsum-bpad.example.org/cv?lang=fr",
            "mailto:team@example.org",
            "ftp://[2001:db8::7]/pub/",
        ]
    );
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains("links found: 13"), "{summary}");
    assert!(summary.contains("links rejected: 2"), "{summary}");
    assert!(summary.contains("caught at the scheme rung"), "{summary}");
}

#[test]
fn formats_counts_and_stats_file() {
    let dir = tempdir("formats");
    let sample = repo().join("testdata/sample/mixed.txt");
    let s = sample.to_str().expect("path");
    let out = run(&["run", "--format", "tsv", "-q", s]);
    let first = String::from_utf8(out.stdout).expect("utf-8");
    let first = first.lines().next().expect("a line");
    let fields: Vec<&str> = first.split('\t').collect();
    assert_eq!(fields.len(), 4, "{first}");
    assert_eq!(
        fields[1..3],
        [
            "http://example.com/docs/index.html",
            "HTTP://Example.COM:80/docs/./guide/../index.html"
        ]
    );
    assert!(fields[3].ends_with("mixed.txt:3:71"), "{first}");
    let out = run(&["run", "--format", "jsonl", "-q", s]);
    let v: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .expect("line"),
    )
    .expect("json");
    assert_eq!(v["rung"], "scheme");
    assert_eq!(v["line"], 3);
    // Diagnostics are objects in the same stream: the two links without a key.
    let rejected: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .filter(|v| v.get("rejected").is_some())
        .collect();
    assert_eq!(rejected.len(), 2);
    assert_eq!(rejected[0]["rejected"], "http://example.com/%zz");
    assert!(
        rejected[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("at byte"))
    );
    let out = run(&["run", "--counts", "-q", s]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("http://example.com/docs/index.html\t3\n")
    );
    let stats = dir.join("stats.json");
    let target = dir.join("keys.txt");
    let out = run(&[
        "run",
        "-q",
        "--stats",
        stats.to_str().expect("p"),
        "--out",
        target.to_str().expect("p"),
        s,
    ]);
    assert!(out.stdout.is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats")).expect("json");
    assert_eq!(v["unique_keys"], 6);
    assert_eq!(
        std::fs::read_to_string(&target)
            .expect("out")
            .lines()
            .count(),
        6
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Writes `n` distinct links to a file.
fn many_links(path: &Path, n: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for i in 0..n {
        writeln!(
            f,
            "see http://host{}.example/page/{i}?q={} and more text",
            i % 977,
            i * 7
        )
        .expect("write");
    }
}

#[test]
fn closed_pipe_is_quiet() {
    let dir = tempdir("pipe");
    let input = dir.join("in.txt");
    many_links(&input, 200_000);
    let mut child = bin()
        .args(["run", input.to_str().expect("p")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut buf = [0u8; 100];
    std::io::Read::read_exact(&mut stdout, &mut buf).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(dir).ok();
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success());
}

#[test]
fn sigint_flushes_prints_the_summary_and_exits_130() {
    let mut child = bin()
        .args(["run", "--chunk-size", "4K", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // Read stdout while writing stdin, or both pipes fill up.
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let mut part = String::new();
    for i in 0..20_000 {
        part.push_str(&format!("http://a.example/{i}\n"));
    }
    stdin.write_all(part.as_bytes()).expect("write");
    stdin.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "-INT");
    std::thread::sleep(Duration::from_millis(200));
    // The reader notices the signal at its next read.
    let _ = stdin.write_all(b"http://late.example/\n");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let keys = reader.join().expect("stdout reader");
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(interrupted)"), "{err}");
    assert!(
        keys.lines().count() >= 10_000,
        "what was read before the signal is written"
    );
    assert!(
        keys.lines()
            .all(|l| l.starts_with("http://a.example/") || l == "http://late.example/")
    );
}

#[test]
fn out_removes_temporary_outputs_of_killed_runs_only() {
    let dir = tempdir("strays");
    let input = dir.join("in.txt");
    many_links(&input, 10);
    let target = dir.join("o.txt");
    // A run's temporary file is live while a process holds its lock (`flock`), whatever its
    // PID says: `live` is locked here, `dead` by no one (its process was killed), and `reused`
    // names this test's own (live) PID but is not locked: PIDs are no evidence across PID
    // namespaces.
    let dead = dir.join(".o.txt.linksieve-4194305.tmp");
    let reused = dir.join(format!(".o.txt.linksieve-{}.tmp", std::process::id()));
    let live = dir.join(".o.txt.linksieve-4194306-00ff.tmp");
    let other = dir.join(".other.txt.linksieve-4194305.tmp");
    for f in [&dead, &reused, &live, &other] {
        std::fs::write(f, "partial\n").expect("write");
    }
    // a lock held by another open file: `flock` in a child process for the whole run
    let mut holder = Command::new("flock")
        .arg("-x")
        .arg(&live)
        .args(["sleep", "30"])
        .spawn()
        .expect("flock(1)");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = run(&[
        "run",
        "-q",
        "--out",
        target.to_str().expect("p"),
        input.to_str().expect("p"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&target)
            .expect("out")
            .lines()
            .count(),
        10
    );
    assert!(!dead.exists(), "left by a process that is gone");
    assert!(!reused.exists(), "unlocked, whatever its PID");
    assert!(live.exists(), "a running process's file is kept");
    assert!(other.exists(), "another target's file is kept");
    let _ = holder.kill();
    let _ = holder.wait();
    std::fs::remove_dir_all(dir).ok();
}

/// Issue #18 item 11: an overfilled `--dedup approx` filter (held to 64 KiB, 200,000 distinct
/// keys) drops most keys; the estimate of the drops stays within four standard errors of the
/// real count (every key is distinct, so every link not written is a wrong drop), and the drops
/// are not counted as duplicates of a rung. Before: the estimate was about a third of the
/// drops and every drop was "caught at the scheme rung".
#[test]
fn approx_overfilled_reports_its_real_drops() {
    let dir = tempdir("approx-overfilled");
    let input = dir.join("links.txt");
    let n = 200_000;
    many_links(&input, n);
    let stats = dir.join("stats.json");
    let out = run(&[
        "run",
        "-q",
        "--dedup",
        "approx",
        "--expected",
        "1000",
        "--memory",
        "64K",
        "--stats",
        stats.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let written = out.stdout.iter().filter(|&&b| b == b'\n').count() as f64;
    assert_eq!(s["links_found"], n);
    let dropped = n as f64 - written;
    assert!(dropped > 0.3 * n as f64, "{dropped} dropped");
    let est = s["expected_false_drops"].as_f64().unwrap();
    let err = s["expected_false_drops_error"].as_f64().unwrap();
    assert!(
        (dropped - est).abs() <= 4.0 * err + 3.0,
        "{dropped} dropped, {est} ± {err} estimated"
    );
    let by_rung: u64 = s["duplicates_by_rung"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let filter_seen = s["approx_filter_seen"].as_u64().unwrap();
    assert_eq!(by_rung + filter_seen, s["duplicates"].as_u64().unwrap());
    // only the lower rungs' own filters (about 1% false positives each) may claim a drop
    assert!(
        (by_rung as f64) < 0.05 * dropped,
        "{by_rung} of {dropped} drops counted as rung duplicates"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Issue #30 item 4: windows-1252 text whose first 64 KiB (86 KB here) are ASCII log lines. The
/// encoding is decided at the first non-ASCII byte, so `…/café/menu` keys whole (it was cut to
/// `http://shop.example/caf` and keyed so, nothing rejected), for every chunk size and thread
/// count, read in ranges (a file) or as a stream (stdin).
#[test]
fn a_legacy_link_after_an_ascii_start_is_decoded_whole() {
    let d = tempdir("late-encoding");
    let mut text = Vec::new();
    let mut n = 0;
    while text.len() < 86_000 {
        writeln!(
            text,
            "10.0.0.1 - - [10/Oct/2000] \"GET /a{n}.gif HTTP/1.0\" 200 2326"
        )
        .unwrap();
        n += 1;
    }
    // windows-1252: é is the one byte 0xE9
    text.extend_from_slice(b"menu http://shop.example/caf\xe9/menu and http://shop.example/caf\xe9/contact, pr\xe8s de la for\xeat\n");
    let f = d.join("log.txt");
    std::fs::write(&f, &text).unwrap();
    let want = "http://shop.example/caf%C3%A9/menu\nhttp://shop.example/caf%C3%A9/contact\n";
    for chunk in ["4K", "64K", "1M"] {
        for j in ["1", "2"] {
            let out = run(&["run", "--chunk-size", chunk, "-j", j, f.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{chunk} -j{j}");
            assert!(err.contains("encodings: windows-1252 x1"), "{err}");
        }
    }
    let mut child = bin()
        .args(["run", "-q", "--chunk-size", "4K", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// Two runs that create one new `--seen` store at the same moment (two cron jobs, two shards):
/// each key a run wrote and exited 0 with is in the store afterwards, so a later run writes none
/// of them again. (The store was made beside its name and renamed into place: the second rename
/// replaced the first run's store under it, and its 2,000 keys vanished, 5 tries of 5.)
#[test]
fn two_runs_creating_one_store_at_once_lose_no_key() {
    let d = tempdir("create-race");
    let inputs: Vec<PathBuf> = (0..2)
        .map(|r| {
            let p = d.join(format!("in{r}.txt"));
            let text: String = (0..2000)
                .map(|i| format!("http://r{r}.example/{i}\n"))
                .collect();
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    for attempt in 0..5 {
        let store = d.join(format!("seen{attempt}.redb"));
        let children: Vec<Child> = inputs
            .iter()
            .map(|i| {
                bin()
                    .args(["run", "-q", "--seen"])
                    .arg(&store)
                    .arg(i)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let mut done = Vec::new();
        for (r, o) in outs.iter().enumerate() {
            match o.status.code() {
                Some(0) => {
                    assert_eq!(o.stdout.iter().filter(|&&b| b == b'\n').count(), 2000);
                    done.push(format!("http://r{r}."));
                }
                // the other run holds the store: refused, nothing written
                Some(4) => assert!(o.stdout.is_empty(), "{o:?}"),
                _ => panic!("attempt {attempt}: {o:?}"),
            }
        }
        assert!(!done.is_empty(), "attempt {attempt}: {outs:?}");
        // a later run over every input writes exactly what no finished run wrote: the union of
        // all outputs is every key of the inputs (made here, not by linksieve), each once
        let again = bin()
            .args(["run", "-q", "--seen"])
            .arg(&store)
            .args(&inputs)
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(0), "{again:?}");
        let mut delivered: Vec<String> = outs
            .iter()
            .chain([&again])
            .flat_map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        let written_again = String::from_utf8_lossy(&again.stdout)
            .lines()
            .filter(|k| done.iter().any(|d| k.starts_with(d.as_str())))
            .count();
        assert_eq!(
            written_again, 0,
            "attempt {attempt}: keys of a finished run written again"
        );
        delivered.sort();
        let mut want: Vec<String> = (0..2)
            .flat_map(|r| (0..2000).map(move |i| format!("http://r{r}.example/{i}")))
            .collect();
        want.sort();
        assert!(
            delivered == want,
            "attempt {attempt}: {} delivered, {} keys",
            delivered.len(),
            want.len()
        );
    }
}

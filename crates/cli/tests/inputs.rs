//! Issue #18 items 3-6: how `linksieve run` opens and reports its inputs. A damaged compressed
//! header fails the input; UTF-16 and ISO-2022-JP counts reach the summary (checked against
//! `linksieve scan --stats`, a different path); a FIFO is opened once; a missing input or a
//! broken symlink gets its JSONL row. Issue #30 item 5: a walked directory reads only regular
//! files (and symlinks to them). An input that a read error ends early gives `run` and `scan`
//! the same links, none cut short.

use crate::common;

use common::tempdir;
use std::path::Path;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
}

fn run_on(args: &[&str], path: &Path) -> (i32, String, String) {
    common::run_paths(args, &[path])
}

#[test]
fn a_damaged_compressed_header_fails_the_input() {
    let d = tempdir("badgz");
    for (name, bytes) in [
        (
            "bad.gz",
            &b"\x1f\x8b\x08\xffjunk http://example.com/x\n"[..],
        ),
        (
            "bad.zst",
            &b"\x28\xb5\x2f\xfdjunk http://example.com/x\n"[..],
        ),
        ("bad.bz2", &b"BZh9junk http://example.com/x\n"[..]),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let (code, stdout, stderr) = run_on(&["--format", "jsonl"], &p);
        assert_eq!(code, 1, "{name}: {stderr}");
        let row: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(row["input"], p.to_str().unwrap(), "{name}");
        assert!(row["error"].is_string(), "{name}");
        assert!(stderr.contains("1 failed"), "{name}: {stderr}");
    }
}

/// `malformed_sequences` and `too_long` of `run --stats` and of `scan --stats` (the oracle).
fn counts(path: &Path, encoding: &str) -> ((u64, u64), (u64, u64)) {
    let stats = path.with_extension("json");
    let (code, _, stderr) = run_on(
        &[
            "-q",
            "--encoding",
            encoding,
            "--stats",
            stats.to_str().unwrap(),
        ],
        path,
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let run = (
        v["malformed_sequences"].as_u64().unwrap(),
        v["too_long"].as_u64().unwrap(),
    );
    let out = bin()
        .args(["scan", "--stats", "--encoding", encoding])
        .arg(path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let num = |what: &str| -> u64 {
        let i = err.find(what).unwrap_or_else(|| panic!("{what} in {err}"));
        let before = err[..i].trim_end();
        before[before.rfind(' ').map_or(0, |s| s + 1)..]
            .parse()
            .unwrap()
    };
    (
        run,
        (num("malformed sequences"), num("candidates too long")),
    )
}

#[test]
fn utf16_and_iso2022jp_counts_reach_the_summary() {
    let d = tempdir("counts");
    // UTF-16LE: two lone surrogates and an overlong candidate
    let text = format!(
        "http://a.example/x \u{FFFF} y http://b.example/{} end http://c.example/",
        "z".repeat(70_000)
    );
    let mut units: Vec<u16> = text.encode_utf16().collect();
    let at = units.iter().position(|&u| u == 0xFFFF).unwrap();
    units[at] = 0xD800;
    units.insert(at, 0xDC00);
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(units.iter().flat_map(|u| u.to_le_bytes()));
    let p = d.join("u16.txt");
    std::fs::write(&p, &bytes).unwrap();
    let (run, scan) = counts(&p, "auto");
    assert_eq!(
        run, scan,
        "UTF-16: run's (malformed, too long) against scan's"
    );
    assert_eq!(run, (2, 1));
    // ISO-2022-JP: an escape to JIS X 0208 with a byte outside it, and an overlong candidate
    let mut bytes = b"http://a.example/ \x1b$B\x30\x21\xff\x1b(B http://b.example/".to_vec();
    bytes.extend(std::iter::repeat_n(b'z', 70_000));
    bytes.extend(b" end\n");
    let p = d.join("jis.txt");
    std::fs::write(&p, &bytes).unwrap();
    let (run, scan) = counts(&p, "iso-2022-jp");
    assert_eq!(
        run, scan,
        "ISO-2022-JP: run's (malformed, too long) against scan's"
    );
    assert!(run.0 >= 1 && run.1 == 1, "{run:?}");
}

#[cfg(unix)]
#[test]
fn a_fifo_is_opened_once() {
    let d = tempdir("fifo");
    let f = d.join("f");
    common::mkfifo(&f);
    let writer = {
        let f = f.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(&f, "http://a.example/ http://b.example/\n").unwrap();
        })
    };
    let mut child = bin()
        .args(["run", "-q"])
        .arg(&f)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            // unblock the writer so the test does not hang on its join
            let _ = std::fs::File::open(&f);
            panic!("run on a FIFO hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "http://a.example/\nhttp://b.example/\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn missing_inputs_and_broken_symlinks_get_their_jsonl_row() {
    let d = tempdir("missing");
    let good = d.join("good.txt");
    std::fs::write(&good, "http://a.example/\n").unwrap();
    let missing = d.join("missing.txt");
    let broken = d.join("broken");
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.join("nowhere"), &broken).unwrap();
    #[cfg(not(unix))]
    let broken = d.join("nowhere");
    let out = bin()
        .args(["run", "-q", "--format", "jsonl"])
        .args([&missing, &good, &broken])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r["error"].is_string())
        .map(|r| r["input"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        [missing.to_str().unwrap(), broken.to_str().unwrap()],
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r["key"] == "http://a.example/"));
}

/// Issue #30 item 5: a directory holding a FIFO nobody writes to and a symlink to `/dev/zero`
/// beside a normal file. The run ends, the file's keys come out, the other two are reported
/// (a JSONL row each, and the summary) and the exit status is 1.
#[cfg(unix)]
#[test]
fn a_walked_directory_skips_what_is_not_a_regular_file() {
    let d = tempdir("specials");
    let dir = d.join("in");
    std::fs::create_dir(&dir).unwrap();
    let fifo = dir.join("b-fifo");
    common::mkfifo(&fifo);
    let zero = dir.join("c-zero");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    std::fs::write(dir.join("a.txt"), "http://a.example/\n").unwrap();
    std::fs::write(dir.join("d.txt"), "http://d.example/\n").unwrap();
    // a symlink to a regular file is read
    std::os::unix::fs::symlink(dir.join("d.txt"), dir.join("e-link")).unwrap();
    let mut child = bin()
        .args(["run", "--format", "jsonl"])
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("run on a directory with a FIFO and /dev/zero does not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let keys: Vec<&str> = rows.iter().filter_map(|r| r["key"].as_str()).collect();
    assert_eq!(keys, ["http://a.example/", "http://d.example/"], "{stdout}");
    let failed: Vec<(&str, &str)> = rows
        .iter()
        .filter_map(|r| Some((r["input"].as_str()?, r["error"].as_str()?)))
        .collect();
    assert_eq!(failed.len(), 2, "{stdout}");
    assert_eq!(failed[0].0, fifo.to_str().unwrap());
    assert!(failed[0].1.contains("skipped: a FIFO"), "{}", failed[0].1);
    assert_eq!(failed[1].0, zero.to_str().unwrap());
    assert!(
        failed[1].1.contains("skipped: a character device"),
        "{}",
        failed[1].1
    );
    assert!(stderr.contains("2 failed"), "{stderr}");
    assert_eq!(out.status.code(), Some(1));
}

/// Named on the command line, a FIFO or a character device is read as it is (here
/// `/dev/null`, which ends at once).
#[cfg(unix)]
#[test]
fn an_input_named_on_the_command_line_is_read_whatever_it_is() {
    let (code, stdout, stderr) = run_on(&["-q"], Path::new("/dev/null"));
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
}

/// An input that a read error ends early (a compressed file cut short, a WARC whose input ends
/// inside a record): `run` writes no link cut short by the error and fails with status 1; on
/// text and HTML `scan`, another path (the scanner alone; the engine has chunks, workers and
/// documents), writes the same links and fails too. Each link is `https://ex.org/<n>-<hex>`, so a cut one is never a real one.
#[test]
fn a_cut_input_gives_run_and_scan_the_same_links_and_no_cut_one() {
    let d = tempdir("cut");
    let all: Vec<String> = (0..4000u64)
        .map(|i| {
            format!(
                "https://ex.org/{i}-{:016x}",
                i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            )
        })
        .collect();
    let text: String = all.iter().map(|u| format!("see {u} now\n")).collect();
    let html: String = all
        .iter()
        .map(|u| format!("<p><a href=\"{u}\">x</a> see {u} now</p>\n"))
        .collect();
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, b).unwrap();
        e.finish().unwrap()
    };
    let warc = common::warc_response("http://s.example/", "text/html", html.as_bytes());
    let inputs: [(&str, Vec<u8>, &[&str]); 5] = [
        ("text.gz", gz(text.as_bytes()), &[]),
        (
            "text.zst",
            zstd::encode_all(text.as_bytes(), 3).unwrap(),
            &[],
        ),
        ("page.html.gz", gz(html.as_bytes()), &["--html"]),
        ("page.warc", warc.clone(), &[]),
        ("page.warc.gz", gz(&warc), &[]),
    ];
    for (name, bytes, args) in inputs {
        // links written over the cuts (a cut early in a zstd block decodes to nothing)
        let mut written = 0;
        for pct in [21, 50, 87] {
            let p = d.join(name);
            std::fs::write(&p, &bytes[..bytes.len() * pct / 100]).unwrap();
            let (code, keys, stderr) = run_on(&[&["-q"], args].concat(), &p);
            assert_eq!(code, 1, "run {name} {pct}%: {stderr}");
            let links = |s: &[u8]| -> std::collections::BTreeSet<String> {
                String::from_utf8_lossy(s)
                    .lines()
                    .filter(|l| l.starts_with("https://ex.org/"))
                    .map(str::to_owned)
                    .collect()
            };
            let run_links = links(keys.as_bytes());
            written += run_links.len();
            // `scan` reads no WARC records (tests/oracles/test_damaged_inputs.py checks them)
            if !name.contains("warc") {
                let mut scan = bin();
                scan.arg("scan").args(args).arg(&p);
                let scanned = scan.output().unwrap();
                assert_eq!(scanned.status.code(), Some(1), "scan {name} {pct}%");
                let scan_links = links(&scanned.stdout);
                let apart: Vec<_> = run_links
                    .symmetric_difference(&scan_links)
                    .take(3)
                    .collect();
                assert!(
                    apart.is_empty(),
                    "{name} {pct}%: run and scan differ: {apart:?}"
                );
            }
            let cut: Vec<_> = run_links.iter().filter(|l| !all.contains(l)).collect();
            assert!(cut.is_empty(), "{name} {pct}%: keys cut short: {cut:?}");
        }
        assert!(written > 1000, "{name}: {written}");
    }
}

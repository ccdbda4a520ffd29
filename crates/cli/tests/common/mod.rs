//! Shared by the CLI's integration tests: run the `linksieve` binary with arguments and stdin,
//! and make a fresh temporary folder.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// What a run of the binary gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `linksieve ARGS` with `stdin` as its standard input. Standard input is written from a
/// thread while the output is read, so neither pipe can fill up and stall the other.
pub fn linksieve(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linksieve");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.as_bytes().to_vec();
    // a command that exits before reading all of it closes the pipe: not this helper's error
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh, empty temporary folder for the test named `name` (of this test process).
pub fn tempdir(name: &str) -> std::path::PathBuf {
    // one binary runs every file's tests: a call's own number keeps two tests that use one
    // name apart
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("ls-test-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `linksieve run ARGS PATHS` with no standard input: exit status, stdout, stderr.
pub fn run_paths(args: &[&str], paths: &[&std::path::Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .arg("run")
        .args(args)
        .args(paths)
        .stdin(Stdio::null())
        .output()
        .expect("run linksieve");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Makes a FIFO at `path` (`mkfifo`).
pub fn mkfifo(path: &std::path::Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A WARC `resource` record (number `n`) whose body has `lines` lines, each with one link of its
/// own (`http://r{n}.example/page/{i}?q={n*i}`).
pub fn warc_resource(n: usize, lines: usize) -> Vec<u8> {
    let mut body = String::new();
    for i in 0..lines {
        body.push_str(&format!(
            "line {i} of record {n}: see http://r{n}.example/page/{i}?q={} and more text\n",
            n * i
        ));
    }
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012}>\r\n\
         WARC-Target-URI: http://r{n}.example/\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// A WARC `response` record holding an HTTP response with `ctype` and `body`.
pub fn warc_response(uri: &str, ctype: &str, body: &[u8]) -> Vec<u8> {
    let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n");
    warc_http(uri, &head, body)
}

/// A WARC `response` record holding an HTTP response: `head` (its status line and fields, each
/// line ended by CRLF), a `Content-Length` and `body`.
pub fn warc_http(uri: &str, head: &str, body: &[u8]) -> Vec<u8> {
    let mut http = format!("{head}Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    http.extend_from_slice(body);
    let mut rec = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    rec.extend_from_slice(&http);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

/// `linksieve ARGS` with its standard output on `/dev/full`, which refuses every write.
#[cfg(target_os = "linux")]
pub fn to_full_output<I, S>(args: I) -> std::process::Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(args)
        .stdout(Stdio::from(full))
        .output()
        .expect("run linksieve")
}

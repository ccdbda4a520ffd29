//! Issue #18 item 10: `--dedup spill` keeps the process within its budget plus the documented
//! constant (README, "Bounded memory": `--memory` + 32 MiB + 16 x `--chunk-size` per thread)
//! on millions of keys, measured by the kernel (the process's `VmHWM`, which `--stats` reports
//! as `peak_rss_bytes`), and it writes keys as its merges answer, before its input ends.
#![cfg(target_os = "linux")]

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// `n` lines, each with one link of its own (distinct keys, in an order that is not sorted).
fn unique_links(n: u64) -> Vec<u8> {
    let mut text = Vec::with_capacity(n as usize * 64);
    for i in 0..n {
        let path = i.wrapping_mul(7919) % 4_000_003;
        writeln!(
            text,
            "see http://h{}.example.com/path/{path}/page.html?q={i} here",
            i % 1000
        )
        .unwrap();
    }
    text
}

/// Runs the binary to its end with `--stats`; returns its exit status, its standard output's
/// length and its peak resident set in bytes (`peak_rss_bytes`: the kernel's `VmHWM` of the
/// process, read when the run ended).
fn peak_rss(args: &[&str], stats: &Path) -> (i32, usize, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args(args)
        .arg("--stats")
        .arg(stats)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    let peak = json["peak_rss_bytes"].as_u64().expect("peak_rss_bytes");
    (out.status.code().unwrap_or(-1), out.stdout.len(), peak)
}

/// The documented bound (README, "Bounded memory").
fn bound(budget: u64, chunk: u64, threads: u64) -> u64 {
    budget + 32 * MIB + 16 * chunk * threads
}

#[test]
fn spill_stays_within_its_budget_on_millions_of_keys() {
    let d = common::tempdir("bounded");
    let input = d.join("links.txt");
    let keys = 2_000_000;
    std::fs::write(&input, unique_links(keys)).unwrap();
    let path = input.to_str().unwrap();
    let expect_out = keys as usize; // at least one byte per key and its newline
    for (cmd, budget) in [("run", 8 * MIB), ("dedup", 8 * MIB)] {
        let memory = format!("{}M", budget / MIB);
        let mut args = vec![cmd, "-q", "--dedup", "spill", "--memory", &memory];
        if cmd == "run" {
            args.extend(["-j", "2"]);
        }
        args.push(path);
        let (code, out, peak) = peak_rss(&args, &d.join("stats.json"));
        eprintln!("{cmd}: peak {} MiB", peak / MIB);
        assert_eq!(code, 0, "{cmd}");
        assert!(out > expect_out, "{cmd}: {out} bytes written");
        let limit = bound(budget, MIB, if cmd == "run" { 2 } else { 1 });
        assert!(
            peak <= limit,
            "{cmd} --dedup spill --memory {memory} on {keys} keys: peak RSS {} MiB, bound {} MiB",
            peak / MIB,
            limit / MIB
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn spill_writes_keys_before_its_input_ends() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linksieve"))
        .args([
            "run", "-q", "-j", "2", "--dedup", "spill", "--memory", "4M", "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let closed = Arc::new(AtomicBool::new(false));
    let (seen_tx, seen_rx) = mpsc::channel::<()>();
    let writer = {
        let closed = closed.clone();
        std::thread::spawn(move || {
            stdin.write_all(&unique_links(1_000_000)).unwrap();
            stdin.flush().unwrap();
            // the input stays open until output was seen (or a minute passed)
            let _ = seen_rx.recv_timeout(Duration::from_secs(60));
            closed.store(true, Ordering::SeqCst);
            drop(stdin);
        })
    };
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let first = stdout.read(&mut buf).unwrap();
    let early = !closed.load(Ordering::SeqCst);
    let _ = seen_tx.send(());
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert!(first > 0);
    assert!(
        early,
        "no key was written before the input ended: the output was held to the end"
    );
    assert_eq!(
        buf[..first]
            .iter()
            .chain(&rest)
            .filter(|&&b| b == b'\n')
            .count(),
        1_000_000
    );
}

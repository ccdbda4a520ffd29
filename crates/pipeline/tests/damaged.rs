//! Inputs that a read error ends early (a gzip file cut short): the run reports the input
//! failed and writes the keys of the links that end before the last white space of what was
//! decoded, and no key of a link the error may have cut short (before, the last link was
//! written as far as it went). Checked on every path a stream takes: chunks read by workers
//! (one thread and two, chunks of 4 KiB), the sequential path of UTF-16, an HTML document read
//! whole, and the dedup stage's lines. What "was decoded" is what flate2 gives of the cut file;
//! `tests/oracles/test_damaged_inputs.py` checks the same with decoders linksieve does not use.

use linksieve_dedup::MemorySet;
use linksieve_pipeline::{InputSpec, RunOptions, RunStats, dedup_lines, run};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// `n` links that no cut of another can equal: `https://ex.org/<32 hex digits>-end`.
fn links(n: usize) -> Vec<String> {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        // splitmix64
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| format!("https://ex.org/{:016x}{:016x}-end", next(), next()))
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("gz");
    e.finish().expect("gz")
}

/// What flate2 decodes of a cut gzip file (up to the error).
fn decoded(cut: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let err = flate2::read::GzDecoder::new(cut).read_to_end(&mut out);
    assert!(err.is_err(), "a cut gzip file is an error");
    out
}

/// The links of `text` that a delimiter follows and that end before `end`.
fn complete(text: &str, all: &[String], end: usize) -> BTreeSet<String> {
    all.iter()
        .filter(|u| {
            text.match_indices(u.as_str()).any(|(at, _)| {
                let stop = at + u.len();
                stop <= end && matches!(text.as_bytes().get(stop), Some(b' ' | b'"' | b'\n'))
            })
        })
        .cloned()
        .collect()
}

fn last_white(text: &[u8]) -> usize {
    text.iter()
        .rposition(|b| matches!(b, b' ' | b'\t' | b'\n'))
        .unwrap_or(0)
}

fn go(file: &Path, opts: &RunOptions) -> (BTreeSet<String>, RunStats) {
    let mut out = Vec::new();
    let stats = run(
        &[InputSpec::File(file.to_path_buf())],
        opts,
        &mut MemorySet::new(),
        &mut out,
        &Default::default(),
        &Default::default(),
    )
    .expect("run");
    let keys = String::from_utf8(out).expect("UTF-8 output");
    (keys.lines().map(str::to_owned).collect(), stats)
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("linksieve-damaged-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Each cut of `bytes` gzip-compressed: (the cut file, what it decodes to).
fn cuts(bytes: &[u8], dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let gz = gzip(bytes);
    [13, 37, 50, 61, 79, 93]
        .iter()
        .map(|pct| {
            let cut = &gz[..gz.len() * pct / 100];
            let f = dir.join(format!("cut{pct}.gz"));
            std::fs::write(&f, cut).expect("write");
            (f, decoded(cut))
        })
        .collect()
}

/// Runs each of `opts` on each gzip cut of `bytes` (in folder `name`): the input fails, and
/// the keys are `want` of what flate2 decodes of that cut (a non-empty set). Returns every
/// run's counters.
fn check_cuts(
    name: &str,
    bytes: &[u8],
    opts: &[RunOptions],
    want: impl Fn(&[u8]) -> BTreeSet<String>,
) -> Vec<RunStats> {
    let d = dir(name);
    let mut all_stats = Vec::new();
    for (file, prefix) in cuts(bytes, &d) {
        let want = want(&prefix);
        assert!(!want.is_empty());
        for o in opts {
            let (got, stats) = go(&file, o);
            assert_eq!(stats.inputs_failed.len(), 1, "the cut input is reported");
            assert_eq!(got, want, "{} with {} threads", file.display(), o.threads);
            all_stats.push(stats);
        }
    }
    std::fs::remove_dir_all(d).ok();
    all_stats
}

/// The links of a UTF-8 `prefix` that a delimiter ends before its last white space.
fn complete_utf8(prefix: &[u8], all: &[String]) -> BTreeSet<String> {
    complete(&String::from_utf8_lossy(prefix), all, last_white(prefix))
}

#[test]
fn a_cut_stream_keeps_its_complete_links_and_no_cut_one() {
    let all = links(8000);
    let text: String = all.iter().map(|u| format!("see {u} now\n")).collect();
    let opts = [1, 2].map(|threads| RunOptions {
        threads,
        chunk_size: 4096,
        ..RunOptions::default()
    });
    for stats in check_cuts("text", text.as_bytes(), &opts, |p| complete_utf8(p, &all)) {
        let skipped = stats.bytes_skipped.values().sum::<u64>();
        assert!(
            skipped > 0,
            "the bytes after the last delimiter are counted"
        );
    }
}

#[test]
fn a_cut_utf16_stream_keeps_its_complete_links_and_no_cut_one() {
    let all = links(3000);
    let text: String = all.iter().map(|u| format!("see {u} now\n")).collect();
    // UTF-16LE with its byte order mark: the sequential path
    let mut bytes = vec![0xff, 0xfe];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    check_cuts("utf16", &bytes, &[RunOptions::default()], |prefix| {
        let units: Vec<u16> = prefix[2..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let prefix = String::from_utf16_lossy(&units);
        // the scanner is not finished: a link it holds at the error is dropped, and every
        // link a delimiter ends is written
        complete(&prefix, &all, prefix.len())
    });
}

#[test]
fn a_cut_html_document_keeps_its_complete_links_and_no_cut_one() {
    let all = links(3000);
    let html: String = all
        .iter()
        .map(|u| format!("<p><a href=\"{u}\">x</a> see {u} now</p>\n"))
        .collect();
    let opts = RunOptions {
        html: true,
        ..RunOptions::default()
    };
    let page = format!("<html><body>{html}");
    check_cuts("html", page.as_bytes(), &[opts], |p| complete_utf8(p, &all));
}

#[test]
fn dedup_drops_a_last_line_that_an_error_may_have_cut() {
    let all = links(8000);
    let lines: String = all.iter().map(|u| format!("{u}\n")).collect();
    let d = dir("lines");
    for (file, prefix) in cuts(lines.as_bytes(), &d) {
        let whole = prefix
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let want = String::from_utf8_lossy(&prefix[..whole]).into_owned();
        let mut out = Vec::new();
        let stats = dedup_lines(
            &[InputSpec::File(file.clone())],
            &mut MemorySet::new(),
            &mut out,
            &Default::default(),
            None,
            linksieve_pipeline::seen::DEFAULT_COMMIT,
        )
        .expect("dedup");
        assert_eq!(stats.inputs_failed.len(), 1, "the cut input is reported");
        assert_eq!(String::from_utf8(out).expect("UTF-8"), want);
        assert_eq!(stats.bytes_cut_by_error, (prefix.len() - whole) as u64);
    }
    std::fs::remove_dir_all(d).ok();
}

/// A WARC file of one gzip member per record (as WARC writers compress) with one bit flipped
/// anywhere: every key written is one of the file's links (a record is used only once its
/// member's CRC is checked and the next record starts where its `Content-Length` says), and
/// most flips fail the input.
#[test]
fn a_damaged_warc_gz_gives_no_key_it_never_held() {
    let all = links(600);
    let mut warc = Vec::new();
    for (n, part) in all.chunks(60).enumerate() {
        let body: String = part
            .iter()
            .map(|u| format!("<p><a href=\"{u}\">x</a> see {u} now</p>\n"))
            .collect();
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let record = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://page{n}.example/\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n\
             {http}\r\n\r\n",
            http.len()
        );
        warc.extend(gzip(record.as_bytes()));
    }
    let d = dir("flips");
    let f = d.join("w.warc.gz");
    std::fs::write(&f, &warc).expect("write");
    let (whole, stats) = go(&f, &RunOptions::default());
    assert!(stats.inputs_failed.is_empty());
    let every: BTreeSet<String> = all.iter().cloned().collect();
    let pages = |k: &String| k.starts_with("http://page");
    assert_eq!(whole.iter().filter(|k| !pages(k)).count(), all.len());
    let (mut failed, mut step) = (0, 0);
    for at in (0..warc.len()).step_by(97) {
        let mut bytes = warc.clone();
        bytes[at] ^= 1 << (at % 8);
        std::fs::write(&f, &bytes).expect("write");
        let (got, stats) = go(&f, &RunOptions::default());
        let made: Vec<_> = got
            .iter()
            .filter(|k| !pages(k) && !every.contains(*k))
            .collect();
        assert!(made.is_empty(), "bit {} of byte {at}: {made:?}", at % 8);
        // (a flip in gzip's magic number makes the file text of no links, not a failure)
        if !stats.inputs_failed.is_empty() {
            failed += 1;
        }
        step += 1;
    }
    assert!(
        failed * 10 > step * 8,
        "{failed} of {step} flips failed the input"
    );
    std::fs::remove_dir_all(d).ok();
}

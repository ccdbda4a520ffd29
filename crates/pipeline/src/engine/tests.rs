//! Unit tests of the engine's internal pieces (range tiling, a file that shrank, malformed
//! UTF-8 counting).

#[cfg(unix)]
use super::late::RangeEncoding;
use super::malformed_utf8;

/// A fresh temporary folder for one test, and the path of `name` in it.
#[cfg(unix)]
fn temp_file(tag: &str, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("ls-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    (dir, f)
}

/// Neighbouring ranges agree on their common cut without knowing each other: the chunks
/// tile the file from the first byte after the BOM to its end, each with its look-ahead,
/// for lines, long lines (cut at spaces) and one long token (cut at a character boundary).
#[cfg(unix)]
#[test]
fn ranges_tile_the_file() {
    use super::{RunOptions, read_range};
    let (dir, f) = temp_file("ranges", "r.txt");
    let lines: String = (0..3000)
        .map(|i| format!("line {i} http://a{i}.example/\n"))
        .collect();
    let spaces = "wörd ".repeat(4000);
    let token = "é".repeat(20_000);
    for text in [lines, spaces, token] {
        let bytes = [b"\xEF\xBB\xBF", text.as_bytes()].concat();
        std::fs::write(&f, &bytes).unwrap();
        let file = std::fs::File::open(&f).unwrap();
        let len = bytes.len() as u64;
        for chunk in [4096usize, 5000, 65536] {
            let opts = RunOptions {
                chunk_size: chunk,
                ..RunOptions::default()
            };
            let mut at = 3u64;
            let mut buf = Vec::new();
            for k in 0..(len - 3).div_ceil(chunk as u64) {
                let r = read_range(
                    &file,
                    3,
                    len,
                    k,
                    &RangeEncoding::Known(encoding_rs::UTF_8),
                    &opts,
                    &mut buf,
                )
                .unwrap();
                assert_eq!(r.offset, at, "chunk {chunk}, range {k}");
                at += r.body as u64;
                let c = &buf[r.from..r.to];
                assert_eq!(c, &bytes[r.offset as usize..r.offset as usize + c.len()]);
                assert!(
                    std::str::from_utf8(&c[..r.body]).is_ok(),
                    "cut in a character"
                );
                assert_eq!(
                    r.mid_token,
                    k > 0 && !matches!(bytes[r.offset as usize - 1], b'\n' | b' ')
                );
            }
            assert_eq!(at, len, "chunk {chunk}");
        }
    }
    // a file that ends before the range does (it shrank after opening) is an error, not a
    // short chunk
    let file = std::fs::File::open(&f).unwrap();
    let len = std::fs::metadata(&f).unwrap().len();
    let e = read_range(
        &file,
        0,
        len + 10,
        0,
        &RangeEncoding::Known(encoding_rs::UTF_8),
        &RunOptions::default(),
        &mut Vec::new(),
    );
    assert_eq!(
        e.err().map(|e| e.kind()),
        Some(std::io::ErrorKind::UnexpectedEof)
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Reads the file `f` in ranges of 4 KiB through the workers' `read_range` and the sink, as if it
/// had been `len` bytes long when it was opened: the sink's counters and what it wrote.
#[cfg(unix)]
fn read_as_opened(f: &std::path::Path, len: u64) -> (super::RunStats, String) {
    use super::{Job, RunOptions, Sink, StreamMeta, work};
    use std::sync::Arc;
    let opts = RunOptions {
        chunk_size: 4096,
        ..RunOptions::default()
    };
    let file = Arc::new(std::fs::File::open(f).unwrap());
    let meta = Arc::new(StreamMeta {
        input: "s.txt".into(),
        provenance: None,
    });
    let free = crossbeam_channel::unbounded();
    let mut dedup = linksieve_dedup::MemorySet::new();
    let mut out = Vec::new();
    let mut sink = Sink::new(&opts, &mut dedup, &mut out);
    for k in 0..len.div_ceil(4096) {
        let job = Job::Range {
            meta: meta.clone(),
            file: file.clone(),
            start: 0,
            len,
            k,
            encoding: RangeEncoding::Known(encoding_rs::UTF_8),
            free: free.clone(),
        };
        sink.chunk(work(job, &opts, &sink.spares.1.clone()))
            .unwrap();
    }
    sink.finish().unwrap();
    let stats = std::mem::take(&mut sink.stats);
    drop(sink);
    (stats, String::from_utf8(out).unwrap())
}

/// A file that is shorter than its size at opening: the ranges before the end are scanned,
/// each later range fails, and the sink reports the input once.
#[cfg(unix)]
#[test]
fn a_file_that_shrank_is_one_input_failure() {
    let (dir, f) = temp_file("shrank", "s.txt");
    let text: String = (0..2000)
        .map(|i| format!("see http://s{i}.example/\n"))
        .collect();
    std::fs::write(&f, &text).unwrap();
    // as if the file had been 5 chunks longer when it was opened
    let (stats, _) = read_as_opened(&f, text.len() as u64 + 5 * 4096);
    assert_eq!(stats.inputs_failed.len(), 1);
    assert_eq!(stats.inputs_failed[0].input, "s.txt");
    // every full range before the end was scanned
    assert!(stats.unique_keys >= 1900, "{}", stats.unique_keys);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn malformed_utf8_counts_as_encoding_rs_does() {
    let cases: [&[u8]; 9] = [
        b"plain ascii",
        b"caf\xC3\xA9",
        b"\xFF",
        b"a\xC3",
        b"\xE2\x82",
        b"\xE2\x82x\xF0\x9F\x98",
        b"\xC0\xAF\xED\xA0\x80",
        b"\xF4\x90\x80\x80\x80",
        b"\x80\x80\x80ok\xF8",
    ];
    for b in cases {
        let (_, had) = encoding_rs::UTF_8.decode_without_bom_handling(b);
        let mut dec = encoding_rs::UTF_8.new_decoder_without_bom_handling();
        let mut out = String::with_capacity(64);
        let (mut errors, mut rest) = (0u64, b);
        loop {
            let (r, read) = dec.decode_to_string_without_replacement(rest, &mut out, true);
            rest = &rest[read..];
            match r {
                encoding_rs::DecoderResult::Malformed(..) => errors += 1,
                _ => break,
            }
        }
        assert_eq!(malformed_utf8(b), errors, "{b:?}");
        assert_eq!(errors > 0, had, "{b:?}");
    }
}

/// Links wrapped in `<…>` across line breaks (RFC 3986 appendix C: the reader removes the
/// whitespace) can be longer than a chunk and cross its cuts at line feeds: `run` writes each
/// one whole and none of the links inside it, as a scan of the whole input does, for every
/// chunking, whether the file is read in ranges (plain) or streamed (gzip). Found by the
/// `differential` fuzz target (a `<` before lines of links, closed 5 KB later): with 4 KiB
/// chunks `run` also wrote 142 links from inside the wrapper. Around them: short wrapped links,
/// mail quoting (`>` at line starts), wrappers that a `"` or a `<` breaks, one longer than the
/// longest link, whose inner links are links of their own, and a `>` in the first chunk.
#[cfg(unix)]
#[test]
fn wrapped_links_across_line_feeds_are_found_whole_for_every_chunking() {
    use super::{RunOptions, run};
    use crate::InputSpec;
    use linksieve_dedup::MemorySet;
    use linksieve_scan::{Wrapper, scan_bytes};
    use std::collections::HashSet;
    use std::fmt::Write as _;
    use std::io::Write as _;
    let max = 16 << 10;
    // a `>` early in the first chunk, which no chunk comes before
    let mut text = String::from("http://first.example/ x> y\n");
    // numbers below `m` that look random: a multiplicative hash of a counter
    let mut count = 0u64;
    let mut next = |m: u64| {
        count += 1;
        (count.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % m
    };
    for i in 0..60u64 {
        for j in 0..next(30) {
            writeln!(text, "https://plain{}.example/{j}", i % 7).unwrap();
        }
        let lines = match i % 5 {
            0 => 1 + next(400),
            1 => next(4),
            2 => 150 + next(300),
            _ => next(40),
        };
        let inner: String = (0..lines)
            .map(|j| format!("https://in{}.example/{j}\n", next(50)))
            .collect();
        match i % 6 {
            // a wrapped link, perhaps longer than a chunk
            0 | 1 => write!(text, "see <http://c.example/{i}\n{inner}>, ").unwrap(),
            // broken by a `"` or a `<`: its lines are links of their own
            2 => write!(text, "<http://b.example/{i}\n{inner}\" x>\n").unwrap(),
            3 => write!(text, "<http://b.example/{i}\n{inner}<x>\n").unwrap(),
            // mail quoting
            4 => write!(text, "> quoted http://q{i}.example/\n>> {inner}").unwrap(),
            _ => write!(text, "<URL:http://u.example/{i}\n   more/{i}>\n").unwrap(),
        }
    }
    // longer than the longest link: scanned as lines
    let long: String = (0..1200)
        .map(|j| format!("https://long.example/{j}\n"))
        .collect();
    writeln!(
        text,
        "<http://over.example/\n{long}>\nthe end http://last.example/"
    )
    .unwrap();
    let scan = linksieve_scan::ScanOptions {
        max_link_len: max,
        ..Default::default()
    };
    let base = RunOptions {
        scan,
        ..RunOptions::default()
    };
    // the reference: the whole input scanned at once
    let hits = scan_bytes(text.as_bytes(), &scan).hits;
    let wrapped = |h: &linksieve_scan::Hit| {
        h.trimmed.wrapper == Some(Wrapper::Angle)
            && text[h.start as usize..h.end as usize].contains('\n')
    };
    assert!(
        hits.iter()
            .any(|h| wrapped(h) && h.end - h.start > 2 * 4096),
        "wrapped links longer than a chunk"
    );
    assert!(hits.iter().filter(|h| wrapped(h)).count() > 15);
    assert!(hits.iter().any(|h| h.text == "https://long.example/1000"));
    let mut seen = HashSet::new();
    let mut want = String::new();
    for h in &hits {
        if let Ok(k) = linksieve_iri::normalize_str(&h.text, base.input, &base.keying.ladder)
            && seen.insert(k.clone())
        {
            want.push_str(&k);
            want.push('\n');
        }
    }
    let (dir, plain) = temp_file("wrapped", "w.txt");
    std::fs::write(&plain, &text).unwrap();
    let packed = dir.join("w.txt.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    std::fs::write(&packed, gz.finish().unwrap()).unwrap();
    for file in [plain, packed] {
        for (threads, chunk) in [(1, 4096), (2, 4096), (1, 5000), (2, 7777), (1, 1 << 20)] {
            let opts = RunOptions {
                threads,
                chunk_size: chunk,
                ..base.clone()
            };
            let mut out = Vec::new();
            let spec = [InputSpec::File(file.clone())];
            let (cancel, progress) = (Default::default(), Default::default());
            run(
                &spec,
                &opts,
                &mut MemorySet::new(),
                &mut out,
                &cancel,
                &progress,
            )
            .unwrap();
            let got = String::from_utf8(out).unwrap();
            let case = format!("{}, {threads} threads, chunk {chunk}", file.display());
            if got != want {
                let keys = |s: &str| s.lines().map(str::to_owned).collect::<HashSet<_>>();
                let (got, want) = (keys(&got), keys(&want));
                let extra: Vec<_> = got.difference(&want).take(3).collect();
                let lost: Vec<_> = want.difference(&got).take(3).collect();
                panic!("{case}: extra {extra:?}, lost {lost:?} (or another order)");
            }
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A file that shrank while its ranges were read (a log rotated with `copytruncate`), its new
/// end inside a link that a range owns past its cut (lines longer than the cut window, so the
/// cut falls inside a token and the range reads its look-ahead): no range writes that link cut
/// short at the new end, and the input is reported as failed. Each truncation point is tried.
#[cfg(unix)]
#[test]
fn a_file_that_shrank_inside_a_link_gives_no_cut_key() {
    let (dir, f) = temp_file("shrank-link", "s.txt");
    let link = |i: usize| format!("http://s{i}.example/{}", "q".repeat(40));
    let text: String = (0..40)
        .map(|i| format!("{}{}\n", "=".repeat(6000), link(i)))
        .collect();
    let want: std::collections::HashSet<String> = (0..40).map(link).collect();
    for i in 0..40 {
        let at = text.find(&link(i)).unwrap() + 20;
        std::fs::write(&f, &text.as_bytes()[..at]).unwrap();
        // the ranges of the file as it was when opened, read after it shrank
        let (stats, out) = read_as_opened(&f, text.len() as u64);
        assert_eq!(stats.inputs_failed.len(), 1, "cut at {at}");
        for key in out.lines() {
            assert!(
                want.contains(key),
                "cut at {at}: {key:?} is no link of the file"
            );
        }
        // the links that end before the new end are all there
        assert_eq!(out.lines().count(), i, "cut at {at}");
    }
    std::fs::remove_dir_all(dir).ok();
}

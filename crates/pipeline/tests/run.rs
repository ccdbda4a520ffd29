//! `linksieve_pipeline::run` end to end on real corpora: the keys equal a reference computed
//! here (scan the whole input, normalize each link alone, keep first occurrences); the output is
//! the same for 1 and N threads and several chunk sizes; spill with a tiny budget equals memory;
//! a persistent seen-set across two runs writes each key once in total; compressed and WARC input.

use linksieve_dedup::{
    BloomSet, MemorySet, PersistentOptions, PersistentSet, SeenSet, SpillConfig, SpillSet,
    StoreIdentity,
};
use linksieve_iri::{KeyForm, NormalizeOptions, Rung, normalize_str};
use linksieve_pipeline::{InputSpec, Keying, OutputFormat, RunOptions, RunStats, run};
use linksieve_scan::scan_bytes;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

/// The small real data files kept in the repository (testdata/corpora/README.md).
fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/corpora/data")
}

fn corpora() -> PathBuf {
    PathBuf::from(std::env::var_os("LINKSIEVE_CORPORA").expect(
        "LINKSIEVE_CORPORA is not set: run the tests with scripts/test.sh, which builds the corpora",
    ))
}

/// Real inputs: the two data files of testdata/corpora and, from the built corpora, the CJK
/// translations and a few legacy-encoded pages.
fn inputs() -> Vec<PathBuf> {
    let mut v = vec![
        data().join("apache_logs.log"),
        data().join("url-list-kasztp.txt"),
    ];
    let c = corpora();
    v.push(c.join("linux-doc-translations.txt"));
    for dir in ["Big5", "SHIFT_JIS", "windows-1251-russian", "EUC-KR"] {
        let d = c.join("legacy").join(dir);
        // a folder that cannot be listed fails the test (it was skipped without a word)
        let rd =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("corpus folder {}: {e}", d.display()));
        let mut files: Vec<PathBuf> = rd.map(|e| e.expect("corpus entry").path()).collect();
        assert!(!files.is_empty(), "corpus folder {} is empty", d.display());
        files.sort();
        v.extend(files.into_iter().take(3));
    }
    for p in &v {
        assert!(p.exists(), "missing corpus file {}", p.display());
    }
    v
}

fn go(files: &[PathBuf], opts: &RunOptions, dedup: &mut dyn SeenSet) -> (String, RunStats) {
    let specs: Vec<InputSpec> = files.iter().map(|p| InputSpec::File(p.clone())).collect();
    let mut out = Vec::new();
    let stats = run(
        &specs,
        opts,
        dedup,
        &mut out,
        &Default::default(),
        &Default::default(),
    )
    .expect("run");
    (String::from_utf8(out).expect("UTF-8 output"), stats)
}

/// The reference: each file scanned whole, each link normalized alone, first occurrences kept.
fn reference(files: &[PathBuf], opts: &RunOptions) -> (String, u64) {
    let mut seen = HashSet::new();
    let mut out = String::new();
    let mut links = 0;
    for f in files {
        let bytes = std::fs::read(f).expect("read corpus");
        let r = scan_bytes(&bytes, &opts.scan);
        for h in r.hits {
            links += 1;
            let mut n = opts.keying.ladder.clone();
            n.nfc |= h.from_legacy;
            if let Ok(k) = normalize_str(&h.text, opts.input, &n)
                && seen.insert(k.clone())
            {
                out.push_str(&k);
                out.push('\n');
            }
        }
    }
    (out, links)
}

#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn keys_equal_the_reference_for_every_thread_count_and_chunk_size() {
    let files = inputs();
    let base = RunOptions::default();
    let (want, links) = reference(&files, &base);
    assert!(want.lines().count() > 1000, "the corpora give keys");
    let cases = [(1, 1 << 20), (2, 1 << 20), (1, 4096), (2, 4096), (3, 65536)];
    for (stats, case) in each_chunking(&files, &base, &cases, &want) {
        assert_eq!(stats.links_found, links, "links, {case}");
        assert_eq!(stats.unique_keys as usize, want.lines().count());
        assert_eq!(
            stats.unique_keys + stats.duplicates + stats.rejected_total(),
            stats.links_found
        );
    }
}

/// Runs `base` with each (threads, chunk size) of `cases`, asserts that the output is `want`,
/// returns the counters of each run with the case in words.
fn each_chunking(
    files: &[PathBuf],
    base: &RunOptions,
    cases: &[(usize, usize)],
    want: &str,
) -> Vec<(RunStats, String)> {
    cases
        .iter()
        .map(|&(threads, chunk)| {
            let opts = RunOptions {
                threads,
                chunk_size: chunk,
                ..base.clone()
            };
            let case = format!("{threads} threads, chunk {chunk}");
            let (got, stats) = go(files, &opts, &mut MemorySet::new());
            assert!(
                got == want,
                "output differs from the reference with {case}: {}",
                first_diff(&got, want)
            );
            (stats, case)
        })
        .collect()
}

/// JSONL rows (key, offset, line) of first occurrences, and the rejected links among them: lines,
/// offsets and order are those of the whole input for every thread count and chunk size, whether
/// the file is read in ranges by the workers (plain files) or streamed by the reader (compressed input).
#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn lines_and_offsets_are_those_of_the_whole_input_for_every_chunking() {
    let files = inputs();
    let base = RunOptions {
        format: OutputFormat::Jsonl,
        ..RunOptions::default()
    };
    // the reference: each file scanned whole (line counted by the scanner), first occurrences,
    // and every rejected link at its place among them
    let mut seen = HashSet::new();
    let mut want = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).expect("read corpus");
        for h in scan_bytes(&bytes, &base.scan).hits {
            let mut n = base.keying.ladder.clone();
            n.nfc |= h.from_legacy;
            match normalize_str(&h.text, base.input, &n) {
                Ok(k) if seen.insert(k.clone()) => want.push((k, h.start, h.line)),
                Ok(_) => {}
                Err(_) => want.push((format!("rejected {}", h.text), h.start, h.line)),
            }
        }
    }
    assert!(want.iter().any(|r| r.2 > 1000), "long inputs");
    assert!(
        want.iter().filter(|r| r.0.starts_with("rejected ")).count() > 10,
        "rejected links"
    );
    let rows = |out: &str| -> Vec<(String, u64, u64)> {
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
            .filter_map(|v| {
                let key = match (v["key"].as_str(), v["rejected"].as_str()) {
                    (Some(k), _) => k.to_owned(),
                    (None, Some(r)) => format!("rejected {r}"),
                    (None, None) => return None,
                };
                Some((
                    key,
                    v["offset"].as_u64().unwrap_or(0),
                    v["line"].as_u64().unwrap_or(0),
                ))
            })
            .collect()
    };
    for (threads, chunk) in [(1, 1 << 20), (2, 4096), (3, 65536), (1, 5000)] {
        let opts = RunOptions {
            threads,
            chunk_size: chunk,
            ..base.clone()
        };
        let (out, _) = go(&files, &opts, &mut MemorySet::new());
        assert!(
            rows(&out) == want,
            "{threads} threads, chunk {chunk}: {:?}",
            rows(&out).iter().zip(&want).find(|(a, b)| a != b)
        );
    }
    // the streaming path: the same file gzip-compressed
    let src = &files[0];
    let bytes = std::fs::read(src).expect("read");
    let dir = tempdir("lines");
    let gz = dir.join("a.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&bytes).expect("gz");
    std::fs::write(&gz, e.finish().expect("gz")).expect("write");
    for (threads, chunk) in [(1, 4096), (2, 65536)] {
        let opts = RunOptions {
            threads,
            chunk_size: chunk,
            ..base.clone()
        };
        let (plain, _) = go(std::slice::from_ref(src), &opts, &mut MemorySet::new());
        let (streamed, _) = go(std::slice::from_ref(&gz), &opts, &mut MemorySet::new());
        assert!(
            rows(&plain) == rows(&streamed),
            "{threads} threads, chunk {chunk}"
        );
        assert!(rows(&plain).iter().any(|r| r.2 > 100));
    }
    std::fs::remove_dir_all(dir).ok();
}

/// `--counts` and the per-rung split of the duplicates do not depend on the chunking (workers
/// count a chunk's exact repeats without keying them again; the sink adds them to the string
/// rung), and the counts equal the reference's.
#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn counts_and_rungs_are_the_same_for_every_chunking() {
    let files = inputs();
    let base = RunOptions {
        counts: true,
        keying: Keying {
            ladder: NormalizeOptions {
                rung: Rung::Protocol,
                ..Default::default()
            },
            profile: None,
        },
        ..RunOptions::default()
    };
    let mut order: Vec<String> = Vec::new();
    let mut counts: HashMap<String, u64> = HashMap::new();
    for f in &files {
        let bytes = std::fs::read(f).expect("read corpus");
        for h in scan_bytes(&bytes, &base.scan).hits {
            let mut n = base.keying.ladder.clone();
            n.nfc |= h.from_legacy;
            if let Ok(k) = normalize_str(&h.text, base.input, &n) {
                let c = counts.entry(k.clone()).or_default();
                if *c == 0 {
                    order.push(k);
                }
                *c += 1;
            }
        }
    }
    let want: String = order
        .iter()
        .map(|k| format!("{}\t{}\n", linksieve_pipeline::tsv(k), counts[k]))
        .collect();
    assert!(
        counts.values().any(|&n| n > 100),
        "the corpora repeat links"
    );
    let mut rungs = None;
    for (stats, case) in each_chunking(&files, &base, &FEW_CHUNKINGS, &want) {
        let split = stats.duplicates_by_rung.clone();
        assert_eq!(split.values().sum::<u64>(), stats.duplicates);
        match &rungs {
            None => rungs = Some(split),
            Some(r) => assert_eq!(&split, r, "{case}"),
        }
    }
}

/// Legacy pages read as UTF-8 (so full of malformed sequences): the summary counts exactly what
/// a decoder of the whole input counts, for every chunking (workers validate UTF-8 chunks in
/// place instead of decoding them).
#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn malformed_utf8_is_counted_exactly_for_every_chunking() {
    let files = inputs();
    let utf8 = linksieve_scan::EncodingChoice::Fixed(encoding_rs::UTF_8);
    let scan = linksieve_scan::ScanOptions {
        encoding: utf8,
        ..Default::default()
    };
    let whole = linksieve_scan::ScanOptions {
        decode_all: true,
        ..scan
    };
    let want: u64 = files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).expect("read corpus");
            scan_bytes(&bytes, &whole).stats.malformed_sequences
        })
        .sum();
    assert!(want > 1000, "legacy pages are not UTF-8: {want}");
    let base = RunOptions {
        scan,
        ..RunOptions::default()
    };
    let (keys, _) = reference(&files, &base);
    for (stats, case) in each_chunking(&files, &base, &FEW_CHUNKINGS, &keys) {
        assert_eq!(stats.malformed_sequences, want, "{case}");
    }
}

/// One thread with the default chunk, and two cuts that split lines and links.
const FEW_CHUNKINGS: [(usize, usize); 3] = [(1, 1 << 20), (2, 4096), (3, 65536)];

fn first_diff(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}: {x:?} vs {y:?}", i + 1);
        }
    }
    format!("{} vs {} lines", a.lines().count(), b.lines().count())
}

#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn spill_with_a_tiny_budget_equals_memory() {
    let files = inputs();
    let opts = RunOptions {
        threads: 2,
        chunk_size: 1 << 16,
        ..RunOptions::default()
    };
    let (mem, _) = go(&files, &opts, &mut MemorySet::new());
    let tmp = tempdir("spill");
    let mut spill =
        SpillSet::<()>::new(SpillConfig::new(32 << 10).temp_dir(&tmp)).expect("spill set");
    let (sp, stats) = go(&files, &opts, &mut spill);
    assert_eq!(sp, mem);
    assert_eq!(stats.unique_keys as usize, mem.lines().count());
    let mut approx = BloomSet::new(1_000_000, 1e-6).expect("bloom");
    let (ap, stats) = go(&files, &opts, &mut approx);
    assert!(stats.expected_false_drops.is_some_and(|x| x < 1.0));
    assert_eq!(ap, mem, "at 1e-6 no key of this corpus is dropped");
    std::fs::remove_dir_all(tmp).ok();
}

#[test]
#[ignore = "needs the real corpora (LINKSIEVE_CORPORA): scripts/test.sh runs it"]
fn persistent_seen_set_writes_each_key_once_across_runs() {
    let files = inputs();
    let (a, b) = files.split_at(files.len() / 2);
    let opts = RunOptions::default();
    let (all, _) = go(&files, &opts, &mut MemorySet::new());
    let dir = tempdir("seen");
    let path = dir.join("seen.redb");
    let id = StoreIdentity::new("scheme uri 0");
    let mut outputs = String::new();
    for part in [a, b, &files[..]] {
        let mut set =
            PersistentSet::open(&path, &id, PersistentOptions::default()).expect("open store");
        let (out, _) = go(part, &opts, &mut set);
        set.finish().expect("finish run");
        outputs.push_str(&out);
    }
    let got: Vec<&str> = outputs.lines().collect();
    let unique: HashSet<&str> = got.iter().copied().collect();
    assert_eq!(
        got.len(),
        unique.len(),
        "a key was written twice across runs"
    );
    let want: HashSet<&str> = all.lines().collect();
    assert_eq!(unique, want, "the runs together wrote every key once");
    // Another rung on the same store is refused.
    let other = StoreIdentity::new("syntax uri 0");
    assert!(PersistentSet::open(&path, &other, PersistentOptions::default()).is_err());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn compressed_inputs_and_directories_give_the_same_keys() {
    let src = data().join("apache_logs.log");
    let bytes = std::fs::read(&src).expect("read");
    let dir = tempdir("compressed");
    let gz = dir.join("a.log.bin");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Two gzip members, as WARC files have.
    let half = bytes.len() / 2;
    e.write_all(&bytes[..half]).expect("gz");
    let mut first = e.finish().expect("gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&bytes[half..]).expect("gz");
    first.extend(e.finish().expect("gz"));
    std::fs::write(&gz, first).expect("write");
    std::fs::write(
        dir.join("b.zst"),
        zstd::encode_all(&bytes[..], 1).expect("zstd"),
    )
    .expect("write");
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&bytes).expect("bz2");
    std::fs::write(dir.join("c"), bz.finish().expect("bz2")).expect("write");
    let opts = RunOptions::default();
    let (plain, _) = go(std::slice::from_ref(&src), &opts, &mut MemorySet::new());
    for name in ["a.log.bin", "b.zst", "c"] {
        let (got, stats) = go(&[dir.join(name)], &opts, &mut MemorySet::new());
        assert_eq!(got, plain, "{name}");
        assert_eq!(stats.bytes_read, bytes.len() as u64, "{name}");
    }
    // A directory is read recursively, in name order: the three copies give the keys once.
    let (files, problems) = linksieve_pipeline::expand_inputs(std::slice::from_ref(&dir));
    assert!(problems.is_empty());
    let files: Vec<PathBuf> = files
        .into_iter()
        .map(|f| match f {
            InputSpec::File(p) => p,
            other => unreachable!("only files here: {other:?}"),
        })
        .collect();
    let (got, stats) = go(&files, &opts, &mut MemorySet::new());
    assert_eq!(got, plain);
    assert_eq!(stats.inputs, 3);
    // A directory given as a file is an input failure, not a crash.
    let (got, stats) = go(std::slice::from_ref(&dir), &opts, &mut MemorySet::new());
    assert!(got.is_empty());
    assert_eq!(stats.inputs_failed.len(), 1);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn warc_records_use_their_charset_and_provenance() {
    let dir = tempdir("warc");
    let body_1251 = encoding_rs::WINDOWS_1251
        .encode("<a href=\"http://пример.рф/путь\">ссылка</a> http://example.com/x")
        .0
        .into_owned();
    let http = [
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=windows-1251\r\n\r\n".as_slice(),
        &body_1251,
    ]
    .concat();
    let mut warc = Vec::new();
    for (kind, uri, ctype, block) in [
        (
            "warcinfo",
            None,
            "application/warc-fields",
            b"software: test\r\n".to_vec(),
        ),
        (
            "request",
            Some("http://src.example/"),
            "application/http",
            b"GET / HTTP/1.1\r\nHost: http://not-a-link.example/\r\n\r\n".to_vec(),
        ),
        (
            "response",
            Some("http://src.example/"),
            "application/http; msgtype=response",
            http,
        ),
        (
            "conversion",
            Some("http://wet.example/"),
            "text/plain",
            "see https://例え.テスト/ now".as_bytes().to_vec(),
        ),
    ] {
        warc.extend_from_slice(format!("WARC/1.0\r\nWARC-Type: {kind}\r\n").as_bytes());
        if let Some(u) = uri {
            warc.extend_from_slice(format!("WARC-Target-URI: {u}\r\n").as_bytes());
        }
        warc.extend_from_slice(
            format!(
                "Content-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
                block.len()
            )
            .as_bytes(),
        );
        warc.extend_from_slice(&block);
        warc.extend_from_slice(b"\r\n\r\n");
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&warc).expect("gz");
    let path = dir.join("x.warc.gz");
    std::fs::write(&path, gz.finish().expect("gz")).expect("write");
    let opts = RunOptions {
        format: OutputFormat::Tsv,
        ..RunOptions::default()
    };
    let (out, stats) = go(std::slice::from_ref(&path), &opts, &mut MemorySet::new());
    // the engine row: key (fingerprint), canonical, original, provenance (the target URI)
    let lines: Vec<String> = out
        .lines()
        .map(|l| {
            let (fp, rest) = l.split_once('\t').expect("four fields");
            let canonical = rest.split('\t').next().expect("canonical");
            assert_eq!(
                fp,
                format!(
                    "{:032x}",
                    linksieve_dedup::Fingerprint::of(canonical.as_bytes()).0
                )
            );
            rest.to_owned()
        })
        .collect();
    assert_eq!(
        lines,
        [
            "http://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C\thttp://пример.рф/путь\thttp://src.example/",
            "http://example.com/x\thttp://example.com/x\thttp://src.example/",
            "https://xn--r8jz45g.xn--zckzah/\thttps://例え.テスト/\thttp://wet.example/",
        ]
    );
    assert!(stats.bytes_skipped.contains_key("WARC request records"));
    assert!(stats.bytes_skipped.contains_key("HTTP response headers"));
    assert_eq!(
        stats.bytes_read,
        warc.len() as u64,
        "every byte is read and accounted for"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn html_references_are_undone_and_failures_are_counted() {
    let dir = tempdir("html");
    let f = dir.join("page.html");
    std::fs::write(&f, "<a href=\"http://a.example/?x=1&amp;y=r&eacute;s\">x</a> <a href=&quot;http://b.example/&quot;>").expect("write");
    let opts = RunOptions {
        html: true,
        ..RunOptions::default()
    };
    let (out, _) = go(std::slice::from_ref(&f), &opts, &mut MemorySet::new());
    assert_eq!(out, "http://a.example/?x=1&y=r%C3%A9s\nhttp://b.example/\n");
    // A missing input is reported, and the others are still read.
    let specs = [InputSpec::File(dir.join("missing")), InputSpec::File(f)];
    let mut sink = Vec::new();
    let stats = run(
        &specs,
        &opts,
        &mut MemorySet::new(),
        &mut sink,
        &Default::default(),
        &Default::default(),
    )
    .expect("run");
    assert_eq!(stats.inputs_failed.len(), 1);
    assert_eq!(stats.unique_keys, 2);
    std::fs::remove_dir_all(dir).ok();
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("linksieve-pipeline-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Each duplicate is counted at the lowest rung that catches it; a link that is its own key
/// (the fixed-point shortcut) and one that is not are counted alike, in every key form.
#[test]
fn duplicates_are_counted_at_the_rung_that_caught_them() {
    let dir = std::env::temp_dir().join(format!("ls-rungs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let f = dir.join("rungs.txt");
    std::fs::write(
        &f,
        "http://a.example/x\n\
         http://a.example/x\n\
         http://a.example/%78\n\
         HTTP://a.example:80/x\n\
         http://a.example:80/%78#frag\n\
         http://b.example\n\
         http://b.example\n",
    )
    .expect("write");
    for form in [KeyForm::Uri, KeyForm::Iri, KeyForm::Surt] {
        let opts = RunOptions {
            keying: Keying {
                ladder: NormalizeOptions {
                    rung: Rung::Protocol,
                    form,
                    ..Default::default()
                },
                profile: None,
            },
            ..RunOptions::default()
        };
        let (_, stats) = go(std::slice::from_ref(&f), &opts, &mut MemorySet::new());
        let by: Vec<(&str, u64)> = stats.duplicates_by_rung.into_iter().collect();
        assert_eq!(
            by,
            [("protocol", 1), ("scheme", 1), ("string", 2), ("syntax", 1)],
            "{form:?}"
        );
        assert_eq!((stats.unique_keys, stats.duplicates), (2, 5));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A constructed input whose counts are known by construction: `n` overlong links (longer than
/// `max`, most longer than a 4 KiB chunk, some on lines of their own, some inside long lines
/// with no space near them, one split by a CR only), among ordinary links, repeats and malformed
/// UTF-8. Returns the bytes, `n` and the ordinary links.
fn overlong_input(max: usize) -> (Vec<u8>, u64, u64) {
    let mut text = Vec::new();
    let (mut n, mut ordinary) = (0, 0);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    for i in 0..37u64 {
        for j in 0..next(40) {
            write!(text, "line {j}: see http://ok{}.example/p{j} and ", i % 5).unwrap();
            text.extend_from_slice(b"\xff\n");
            ordinary += 1;
        }
        let len = max + 1 + next(6 * max as u64) as usize;
        let sep: &[u8] = match i % 4 {
            0 => b"\n",
            1 => b" ",
            2 => b"\r",
            _ => b"\t",
        };
        text.extend_from_slice(b"long: ");
        if i % 3 == 0 {
            // no space for a while before it: a cut inside a token
            text.extend(std::iter::repeat_n(b'x', 3000 + next(9000) as usize));
            text.push(b' ');
        }
        text.extend_from_slice(b"http://long.example/");
        text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
        text.extend_from_slice(sep);
        n += 1;
    }
    writeln!(text, "the end http://last.example/").unwrap();
    ordinary += 1;
    (text, n, ordinary)
}

/// Issue 30 item 9: every summary count is the same for every chunk size and thread count, and
/// the overlong count is the number of overlong links the input holds, whether the file is read
/// in ranges (plain) or streamed (gzip). Before, an overlong link in a chunk's look-ahead was
/// counted by that chunk and again by its own: 476 for 31 at 4 KiB chunks.
#[test]
fn summary_counts_do_not_depend_on_the_chunking() {
    let dir = tempdir("overlong");
    let max = 2048;
    let (text, n, ordinary) = overlong_input(max);
    let plain = dir.join("overlong.txt");
    std::fs::write(&plain, &text).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).expect("gz");
    let packed = dir.join("overlong.txt.gz");
    std::fs::write(&packed, gz.finish().expect("gz")).expect("write");
    let base = RunOptions {
        scan: linksieve_scan::ScanOptions {
            max_link_len: max,
            ..Default::default()
        },
        ..RunOptions::default()
    };
    for file in [plain, packed] {
        let mut first: Option<(String, RunStats)> = None;
        for (threads, chunk) in [
            (1, 4096),
            (2, 4096),
            (1, 65536),
            (2, 65536),
            (1, 1 << 20),
            (2, 1 << 20),
        ] {
            let opts = RunOptions {
                threads,
                chunk_size: chunk,
                ..base.clone()
            };
            let case = format!("{}, {threads} threads, chunk {chunk}", file.display());
            let (out, mut stats) = go(std::slice::from_ref(&file), &opts, &mut MemorySet::new());
            assert_eq!(stats.too_long, n, "overlong links, {case}");
            assert_eq!(stats.links_found, ordinary, "links, {case}");
            // what depends on the process, not on the input
            stats.seen_set_bytes = 0;
            stats.peak_rss_bytes = None;
            match &first {
                None => first = Some((out, stats)),
                Some((o, s)) => {
                    assert!(&out == o, "output, {case}: {}", first_diff(&out, o));
                    assert_eq!(&stats, s, "summary, {case}");
                }
            }
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Issue 30 item 9: `--max-link-len` applies to the URLs of HTML attributes as to links of the
/// text: each overlong one is counted once (not again as a candidate of the text inside the
/// attribute) and not keyed. Counts known by construction: 3 overlong attribute URLs (absolute,
/// relative, a `srcset` candidate), 2 overlong links of the text; a long `data:` URI is not
/// keyed (counted as such), not overlong.
#[test]
fn html_attribute_urls_are_held_to_the_maximum_link_length() {
    let dir = tempdir("overlong-html");
    let max = 1024;
    let (a, b) = ("a".repeat(3000), "b".repeat(2000));
    let page = format!(
        "<html><body><a href=\"http://long.example/{a}\">x</a>\n\
         <img src=\"/rel/{b}\" srcset=\"/s/{a} 2x, /small.png 1x\">\n\
         <a href=\"http://ok.example/\">ok</a> <img src=\"data:image/png;base64,{a}\">\n\
         text http://t.example/{b} and <p title=\"http://u.example/{a}\">t</p></body></html>\n"
    );
    let f = dir.join("page.html");
    std::fs::write(&f, page).expect("write");
    let opts = RunOptions {
        html: true,
        base: Some(linksieve_iri::WebUrl::parse("http://base.example/d/").expect("base")),
        scan: linksieve_scan::ScanOptions {
            max_link_len: max,
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let (out, stats) = go(std::slice::from_ref(&f), &opts, &mut MemorySet::new());
    assert_eq!(out, "http://base.example/small.png\nhttp://ok.example/\n");
    assert_eq!(stats.too_long, 5, "{stats:?}");
    std::fs::remove_dir_all(dir).ok();
}

//! Issue #30 items 3 and 7: containers and WARC headers that were misread. A zstd input that
//! starts with a skippable frame (the IIPC WARC-zstd layout keeps its dictionary there), xz and
//! lzma inputs are decompressed; other containers (zip, 7z, RAR, LZ4, compress, ...) are
//! refused as failed inputs, never read as text; a WARC header folded onto a continuation line
//! is read as part of its field. Each input is made here; the right keys are those of the same
//! content given plain (its links are known by construction). The Python oracles
//! (tests/oracles/test_containers.py) check the same against the `zstandard` package, Python's
//! `lzma` and warcio.

use crate::common;

use common::tempdir;
use std::io::Write;
use std::path::Path;

use common::run_paths as run;

/// The keys of a plain input, which must come out (exit 0) of its compressed forms too.
fn keys_of(path: &Path) -> String {
    let (code, out, err) = run(&["-q"], &[path]);
    assert_eq!(code, 0, "{}: {err}", path.display());
    out
}

/// A WARC `resource` record with links of its own.
fn record(n: usize) -> Vec<u8> {
    common::warc_resource(n, 20)
}

/// A skippable frame (RFC 8878 3.1.2) with the magic number `magic`.
fn skippable(magic: u32, data: &[u8]) -> Vec<u8> {
    let mut f = magic.to_le_bytes().to_vec();
    f.extend((data.len() as u32).to_le_bytes());
    f.extend_from_slice(data);
    f
}

#[test]
fn a_warc_zst_with_its_dictionary_frame_is_read() {
    let d = tempdir("warczst");
    let records: Vec<Vec<u8>> = (0..300).map(record).collect();
    let plain = d.join("plain.warc");
    std::fs::write(&plain, records.concat()).unwrap();
    let want = keys_of(&plain);
    // the target URIs are provenance, not content
    assert_eq!(want.lines().count(), 300 * 20);

    let dict = zstd::dict::from_samples(&records, 16 << 10).unwrap();
    assert!(
        dict.starts_with(&[0x37, 0xA4, 0x30, 0xEC]),
        "an RFC 8878 5 dictionary"
    );
    let mut z = zstd::bulk::Compressor::with_dictionary(3, &dict).unwrap();
    z.include_checksum(true).unwrap();
    z.include_contentsize(true).unwrap();
    // one frame per record, each compressed with the dictionary (IIPC WARC-zstd 1.0)
    let per_record: Vec<Vec<u8>> = records.iter().map(|r| z.compress(r).unwrap()).collect();
    let frames = per_record.concat();
    let compressed_dict = zstd::bulk::compress(&dict, 3).unwrap();
    let cases = [
        ("dictionary", skippable(0x184D_2A5D, &dict)),
        (
            "compressed dictionary",
            skippable(0x184D_2A5D, &compressed_dict),
        ),
    ];
    for (what, frame) in cases {
        let mut file = frame;
        file.extend(per_record[..150].concat());
        // an extension frame between two records, which decoders ignore
        file.extend(skippable(0x184D_2A5E, b"extension"));
        file.extend(per_record[150..].concat());
        let p = d.join(format!("{}.warc.zst", what.replace(' ', "-")));
        std::fs::write(&p, file).unwrap();
        let (code, out, err) = run(&["-q"], &[&p]);
        assert_eq!((code, out == want), (0, true), "{what}: {err}");
    }

    // Any skippable frame first is zstd (here frames without a dictionary follow).
    let mut file = skippable(0x184D_2A50, b"padding");
    file.extend(zstd::bulk::compress(&records.concat(), 3).unwrap());
    let p = d.join("extension-first.warc.zst");
    std::fs::write(&p, file).unwrap();
    let (code, out, err) = run(&["-q"], &[&p]);
    assert_eq!(
        (code, out == want),
        (0, true),
        "extension frame first: {err}"
    );

    // Frames that need the dictionary, without it: an error, never garbage keys.
    let p = d.join("no-dictionary.warc.zst");
    std::fs::write(&p, &frames).unwrap();
    let (code, out, _) = run(&["-q"], &[&p]);
    assert_eq!((code, out.as_str()), (1, ""));
    // A dictionary frame that holds no dictionary.
    let mut file = skippable(0x184D_2A5D, b"not a dictionary");
    file.extend_from_slice(&frames);
    let p = d.join("bad-dictionary.warc.zst");
    std::fs::write(&p, file).unwrap();
    let (code, out, err) = run(&[], &[&p]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("zstd dictionary frame"), "{err}");
}

/// Text with links known by construction.
fn text() -> String {
    (0..2000)
        .map(|i| format!("{i} http://x{}.example/a/{i} ok\n", i % 97))
        .collect()
}

#[test]
fn xz_and_lzma_inputs_are_decompressed() {
    use liblzma::stream::{LzmaOptions, Stream};
    let d = tempdir("xz");
    let text = text();
    let plain = d.join("plain.txt");
    std::fs::write(&plain, &text).unwrap();
    let want = keys_of(&plain);
    assert_eq!(want.lines().count(), 2000);

    let xz = |bytes: &[u8]| {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    let (a, b) = text.as_bytes().split_at(text.len() / 3);
    // two xz streams one after the other (as parallel compressors and `cat` make them)
    let two = [xz(a), xz(b)].concat();
    let alone = {
        let opts = LzmaOptions::new_preset(6).unwrap();
        let s = Stream::new_lzma_encoder(&opts).unwrap();
        let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), s);
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    for (name, bytes) in [
        ("t.xz", xz(text.as_bytes())),
        ("two.xz", two),
        ("t.lzma", alone),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let (code, out, err) = run(&["-q"], &[&p]);
        assert_eq!((code, out == want), (0, true), "{name}: {err}");
    }
    // a cut xz file: what was decompressed is keyed, the input fails
    let whole = xz(text.as_bytes());
    let p = d.join("cut.xz");
    std::fs::write(&p, &whole[..whole.len() - 40]).unwrap();
    let (code, out, err) = run(&[], &[&p]);
    assert_eq!(code, 1, "{err}");
    assert!(out.lines().count() > 1000, "{}", out.lines().count());
}

#[test]
fn other_containers_are_refused_not_read_as_text() {
    let d = tempdir("refused");
    let link = b" http://inside.example/a\n";
    let cases: [(&str, &[u8], &str); 10] = [
        ("a.zip", b"PK\x03\x04\x14\x00\x00\x00", "zip archive"),
        ("empty.zip", b"PK\x05\x06\x00\x00\x00\x00", "zip archive"),
        ("a.7z", b"7z\xBC\xAF\x27\x1C\x00\x04", "7z archive"),
        ("a.rar", b"Rar!\x1A\x07\x01\x00", "RAR archive"),
        ("a.lz4", b"\x04\x22\x4D\x18\x64\x40\xA7", "LZ4 frame"),
        ("a.Z", b"\x1F\x9D\x90", "Unix compress"),
        ("a.lz", b"LZIP\x01\x0C", "lzip"),
        ("a.lzo", b"\x89LZO\x00\r\n\x1A\n", "lzop"),
        ("a.sz", b"\xFF\x06\x00\x00sNaPpY", "Snappy"),
        ("a.cab", b"MSCF\x00\x00\x00\x00", "cabinet"),
    ];
    let ok = d.join("ok.txt");
    std::fs::write(&ok, "http://plain.example/\n").unwrap();
    for (name, magic, what) in cases {
        let p = d.join(name);
        std::fs::write(&p, [magic, &link[..]].concat()).unwrap();
        let (code, out, err) = run(&["--format", "jsonl"], &[&p, &ok]);
        assert_eq!(code, 1, "{name}: {err}");
        let rows: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let keys: Vec<&str> = rows.iter().filter_map(|r| r["key"].as_str()).collect();
        assert_eq!(
            keys,
            ["http://plain.example/"],
            "{name}: the next input is read"
        );
        let failed: Vec<(&str, &str)> = rows
            .iter()
            .filter_map(|r| Some((r["input"].as_str()?, r["error"].as_str()?)))
            .collect();
        assert_eq!(failed.len(), 1, "{name}: {out}");
        assert_eq!(failed[0].0, p.to_str().unwrap(), "{name}");
        assert!(failed[0].1.contains(what), "{name}: {}", failed[0].1);
        assert!(err.contains("1 failed"), "{name}: {err}");
    }
}

/// A WARC record whose header folds `folded` onto continuation lines.
fn folded_record(n: usize, folded: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: resource\r\n{folded}WARC-Target-URI: http://f{n}.example/\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

#[test]
fn a_folded_warc_header_is_read_as_its_field() {
    let d = tempdir("folded");
    // windows-1251 text: its charset is on a continuation line of Content-Type
    let cyrillic = b"\xf1\xf1\xfb\xeb\xea\xe0 http://\xef\xf0\xe8\xec\xe5\xf0.example/\xef\n";
    let warc = [
        folded_record(
            1,
            "WARC-Date: 2026-01-01T00:00:00Z\r\n X-Note: a folded value\r\n",
            b"http://one.example/\n",
        ),
        folded_record(
            2,
            "Content-Type: text/plain;\r\n\tcharset=windows-1251\r\n",
            cyrillic,
        ),
        folded_record(
            3,
            "X-Custom: first\r\n  second\r\n\t third\r\n",
            b"http://three.example/\n",
        ),
    ]
    .concat();
    let p = d.join("folded.warc");
    std::fs::write(&p, &warc).unwrap();
    let (code, out, err) = run(&["-q"], &[&p]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "http://one.example/\nhttp://xn--e1afmkfd.example/%D0%BF\nhttp://three.example/\n"
    );
    // folded before Content-Length: its value is on the continuation line
    let body = b"http://len.example/\n";
    let r = format!(
        "WARC/1.0\r\nWARC-Type: resource\r\nContent-Length:\r\n {}\r\n\r\n",
        body.len()
    );
    let p = d.join("length.warc");
    std::fs::write(&p, [r.as_bytes(), body, b"\r\n\r\n"].concat()).unwrap();
    let (code, out, err) = run(&["-q"], &[&p]);
    assert_eq!((code, out.as_str()), (0, "http://len.example/\n"), "{err}");
}

//! The `differential` target: `linksieve run` against an oracle that is not `run` (issue #18).
//!
//! Input layout: byte 0 picks the options (bit 0 schemeless, bit 1 email, bit 2 `--html`, bit 3
//! a separator-free input: every space and line feed becomes `,`, bit 4 CR line ends instead of
//! LF, bit 5 the content as the HTTP payload of a WARC `response` record, bit 6 that payload in
//! the chunked transfer coding, bit 7 in the gzip content coding); byte 1 the container the
//! input file is stored in (its value mod 8: 0-2 none, 3 gzip, 4 zstd in several frames, 5 the
//! IIPC WARC-zstd layout: a dictionary frame, then frames compressed with it, 6 xz, 7 lzma);
//! the rest is the content of the one input file, repeated until it is longer than two chunks,
//! so that cuts fall inside it.
//!
//! Oracle: the keys `run` writes (1 and 2 threads, 4 KiB chunks) are exactly those of the whole
//! input scanned in one piece by `linksieve_scan::Scanner`, each link keyed alone (with its
//! implied scheme, decoded with `unescape_link` under `--html`), first occurrence kept, in
//! order. A file read with `--html` is one HTML document (`read_document`): its attributes'
//! outlinks (against `<base href>` when it has one: the file has no address) merged in document
//! order with the links of its text, as `run` reads it (a WARC payload here is `text/plain`, so
//! text). The oracle shares the ladder and the HTML reader with `run` but none of its chunking,
//! workers, repeat table, reorder, sink or decompression (the container is undone before it).

use linksieve_dedup::MemorySet;
use linksieve_iri::web_to_iri;
use linksieve_pipeline::{
    DocumentItem, DocumentOptions, InputSpec, Keyer, OutputFormat, RunOptions, keyable,
    read_document, unescape_link,
};
use linksieve_scan::{EncodingChoice, ScanOptions, Scanner};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

fn input_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("linksieve-diff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join("input")
    })
}

/// Runs the oracle and `run` on `data` and compares their keys.
pub fn run(data: &[u8]) {
    let (flags, seed) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let (container, seed) = seed.split_first().map_or((0, seed), |(c, r)| (*c, r));
    if seed.is_empty() {
        return;
    }
    let mut content: Vec<u8> = seed
        .iter()
        .map(|&b| match b {
            b' ' | b'\n' if flags & 8 != 0 => b',',
            b'\n' if flags & 16 != 0 => b'\r',
            b => b,
        })
        .collect();
    while content.len() < 10 << 10 {
        content.extend_from_within(..content.len().min(4096));
    }
    // UTF-8 as a user's label: a BOM still wins (a fuzzed `FF FE` makes the input UTF-16LE), in
    // the oracle as in `run`
    let scan = ScanOptions {
        schemeless: flags & 1 != 0,
        email: flags & 2 != 0,
        html: flags & 4 != 0,
        encoding: EncodingChoice::Fixed(encoding_rs::UTF_8),
        ..ScanOptions::default()
    };
    let base = RunOptions {
        scan,
        html: flags & 4 != 0,
        format: OutputFormat::Keys,
        ..RunOptions::default()
    };
    // the oracle: the whole input at once
    let keyer = Keyer::new(base.input, &base.keying);
    let mut seen = HashSet::new();
    let mut want = String::new();
    let mut keep = |k: Option<String>| {
        if let Some(k) = k
            && seen.insert(k.clone())
        {
            want.push_str(&k);
            want.push('\n');
        }
    };
    let mut implied = String::new();
    if base.html && flags & 32 == 0 {
        // A file read with --html is one HTML document: its attributes' outlinks (resolved
        // against <base href> alone: the file has no address) and the links of its text, in
        // document order
        let doc = read_document(
            &content,
            &DocumentOptions {
                encoding: scan.encoding,
                all_schemes: base.all_schemes,
                ..DocumentOptions::default()
            },
        );
        // the legacy test written out here (the document's encoding, or the scanner's), not
        // `DocumentItem::from_legacy`: the oracle does not share it with `run`
        let legacy = doc.encoding != encoding_rs::UTF_8;
        let hits = doc.text_links(&scan).hits;
        doc.in_order(&hits, scan.ascii_only, |item| match item {
            DocumentItem::Text(h) => {
                let text = unescape_link(&h.text, &h.trimmed.trailing, scan.ascii_only);
                let keyed = keyable(&text, h.kind, &mut implied);
                keep(keyer.key(keyed, legacy || h.from_legacy).ok());
            }
            DocumentItem::Attribute(l) => {
                // an attribute without a URL (no base, invalid, a scheme not keyed) or
                // without an IRI gives no key
                if let Ok(Ok(iri)) = l.url.as_ref().map(web_to_iri) {
                    keep(keyer.key(iri.as_str(), legacy).ok());
                }
            }
        });
    } else {
        // text (a WARC payload is text/plain, so text with --html too)
        let mut scanner = Scanner::new(&scan);
        let mut hits = Vec::new();
        let _ = scanner.feed(&content, &mut hits);
        let _ = scanner.finish(&mut hits);
        for h in &hits {
            let text = if base.html {
                unescape_link(&h.text, &h.trimmed.trailing, scan.ascii_only)
            } else {
                std::borrow::Cow::Borrowed(h.text.as_str())
            };
            let keyed = keyable(&text, h.kind, &mut implied);
            keep(keyer.key(keyed, h.from_legacy).ok());
        }
    }
    let path = input_path();
    let file = if flags & 32 != 0 {
        warc(
            &content,
            flags & 64 != 0,
            flags & 128 != 0,
            1 + seed[0] as usize % 300,
        )
    } else {
        content
    };
    std::fs::write(path, stored(file, container)).expect("write the input file");
    for threads in [1, 2] {
        let opts = RunOptions {
            threads,
            chunk_size: 4096,
            ..base.clone()
        };
        let mut out = Vec::new();
        linksieve_pipeline::run(
            &[InputSpec::File(path.clone())],
            &opts,
            &mut MemorySet::new(),
            &mut out,
            &Default::default(),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("run failed: {e}"));
        let got = String::from_utf8_lossy(&out);
        assert!(
            got == want,
            "run with {threads} threads differs from the oracle:\nrun:\n{got}\noracle:\n{want}"
        );
    }
}

/// The content as the payload of a WARC `response` record, in the chunked transfer coding
/// (chunks of `chunk` bytes) and the gzip content coding when asked, after a `request` record
/// whose links are not content.
fn warc(content: &[u8], chunked: bool, gzip: bool, chunk: usize) -> Vec<u8> {
    use std::io::Write;
    let mut body = content.to_vec();
    let mut head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n".to_vec();
    if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&body).expect("gzip");
        body = e.finish().expect("gzip");
        head.extend_from_slice(b"Content-Encoding: gzip\r\n");
    }
    if chunked {
        let mut c = Vec::new();
        for part in body.chunks(chunk) {
            c.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            c.extend_from_slice(part);
            c.extend_from_slice(b"\r\n");
        }
        c.extend_from_slice(b"0\r\n\r\n");
        body = c;
        head.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
    }
    head.extend_from_slice(b"\r\n");
    let request = b"GET / HTTP/1.1\r\nReferer: http://request.invalid/\r\n\r\n".to_vec();
    let mut out = Vec::new();
    for (kind, block) in [("request", request), ("response", [head, body].concat())] {
        out.extend_from_slice(
            format!(
                "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: http://t.invalid/\r\nContent-Length: {}\r\n\r\n",
                block.len()
            )
            .as_bytes(),
        );
        out.extend_from_slice(&block);
        out.extend_from_slice(b"\r\n\r\n");
    }
    out
}

/// The input file stored in the container `container` picks (see the layout above).
fn stored(file: Vec<u8>, container: u8) -> Vec<u8> {
    use std::io::Write;
    match container % 8 {
        3 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&file).expect("gzip");
            e.finish().expect("gzip")
        }
        // frames of 1000 bytes or less, so that frame ends fall inside chunks and links
        4 => file
            .chunks(1000)
            .flat_map(|c| zstd::bulk::compress(c, 1).expect("zstd"))
            .collect(),
        5 => {
            // IIPC WARC-zstd 1.0: the dictionary in a skippable frame with the magic number
            // 0x184D2A5D, then frames that need it
            let dict = dictionary();
            let mut out = 0x184D_2A5Du32.to_le_bytes().to_vec();
            out.extend((dict.len() as u32).to_le_bytes());
            out.extend_from_slice(dict);
            let mut z = zstd::bulk::Compressor::with_dictionary(1, dict).expect("zstd");
            for c in file.chunks(1000) {
                out.extend(z.compress(c).expect("zstd"));
            }
            out
        }
        6 | 7 => {
            use liblzma::stream::{LzmaOptions, Stream};
            // preset 0: xz -6 would take 94 MB per execution to compress
            let stream = if container % 8 == 6 {
                Stream::new_easy_encoder(0, liblzma::stream::Check::Crc32)
            } else {
                Stream::new_lzma_encoder(&LzmaOptions::new_preset(0).expect("lzma options"))
            }
            .expect("xz encoder");
            let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
            e.write_all(&file).expect("xz");
            e.finish().expect("xz")
        }
        _ => file,
    }
}

/// A zstd dictionary (RFC 8878 5) trained once on link-bearing lines.
fn dictionary() -> &'static [u8] {
    static DICT: OnceLock<Vec<u8>> = OnceLock::new();
    DICT.get_or_init(|| {
        let samples: Vec<Vec<u8>> = (0..400)
            .map(|i| {
                format!(
                    "line {i}: see http://h{}.example/p/{i}?q={} and <a href=\"https://x.example/{}\">x</a>\n",
                    i % 37,
                    i * 7,
                    i % 11
                )
                .into_bytes()
            })
            .collect();
        zstd::dict::from_samples(&samples, 4096).expect("train a dictionary")
    })
}

//! The result does not depend on how the input is split into chunks: every chunking of every
//! input gives the same hits (text, byte range, line, trimmed, flags) and the same counters of
//! malformed input and too-long candidates as scanning it whole.

use linksieve_scan::{
    EncodingChoice, Hit, ScanOptions, ScanStats, Scanner, encoding_for_label, scan_bytes,
};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "&#40;",
    "&lpar;",
    "&#x3F;",
    "&amp;",
    "&#",
    "http://",
    "https://",
    "ftp://",
    "www.",
    "example.com",
    "例え.jp",
    "/path",
    "?q=1",
    "#frag",
    "<",
    ">",
    "\n",
    "\r\n",
    " ",
    "  ",
    "\t",
    "(",
    ")",
    "[",
    "]",
    "「",
    "」",
    "。",
    "，",
    "你好",
    "テスト",
    "@",
    "a@b.org",
    "mailto:x@y.org",
    "urn:isbn:1",
    "URL:",
    "\"",
    "'",
    ".",
    "..",
    ",",
    ":",
    "-",
    "_",
    "é",
    "e\u{301}",
    "😀",
    "\u{3000}",
    "\u{a0}",
    "\u{200f}",
    "x",
    "abc",
    "1.2.3.4",
    "::1",
    "2001:db8::2",
    "%20",
    "<http://a.b/\n c>",
    "http://example.com你好",
    "Việt",
    "\u{fffd}",
];

const LABELS: &[&str] = &[
    "utf-8",
    "shift_jis",
    "euc-jp",
    "gbk",
    "big5",
    "euc-kr",
    "iso-2022-jp",
    "windows-1258",
    "utf-16le",
    "utf-16be",
    "auto",
];

fn encode(label: &str, text: &str) -> Vec<u8> {
    match label {
        "utf-16le" => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        "utf-16be" => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        "auto" | "utf-8" => text.as_bytes().to_vec(),
        l => encoding_for_label(l)
            .map(|e| e.encode(text).0.into_owned())
            .unwrap_or_default(),
    }
}

fn opts(label: &str, mode: u8, max: usize) -> ScanOptions {
    ScanOptions {
        decode_all: mode & 8 != 0,
        encoding: if label == "auto" {
            EncodingChoice::Auto
        } else {
            EncodingChoice::Fixed(encoding_for_label(label).expect("label"))
        },
        schemeless: mode & 1 != 0,
        email: mode & 2 != 0,
        ascii_only: mode & 4 != 0,
        max_link_len: max,
        lines: true,
        html: mode & 16 != 0,
    }
}

fn streamed(input: &[u8], o: &ScanOptions, sizes: &[usize]) -> (Vec<Hit>, ScanStats) {
    let mut s = Scanner::new(o);
    let mut out = Vec::new();
    let mut i = 0;
    let mut k = 0;
    while i < input.len() {
        let n = sizes[k % sizes.len()].min(input.len() - i);
        s.feed(&input[i..i + n], &mut out).expect("feed");
        i += n;
        k += 1;
    }
    s.finish(&mut out).expect("finish");
    (out, *s.stats())
}

/// Scanning in chunks gives what scanning whole gives, and decoding only around candidates
/// (the default) gives the links of decoding everything (`decode_all`). The counters of
/// malformed input cover the whole input only with `decode_all`, so only then are they
/// compared.
fn same(input: &[u8], o: &ScanOptions, sizes: &[usize]) -> Result<(), TestCaseError> {
    let whole = scan_bytes(input, o);
    let (hits, stats) = streamed(input, o, sizes);
    prop_assert_eq!(&hits, &whole.hits);
    if o.decode_all {
        prop_assert_eq!(stats.malformed_sequences, whole.stats.malformed_sequences);
        prop_assert_eq!(stats.malformed_bytes, whole.stats.malformed_bytes);
        prop_assert_eq!(stats.skipped_bytes, 0);
    }
    prop_assert_eq!(stats.too_long, whole.stats.too_long);
    prop_assert_eq!(stats.bytes_in, input.len() as u64);
    let all = scan_bytes(
        input,
        &ScanOptions {
            decode_all: !o.decode_all,
            ..*o
        },
    );
    prop_assert_eq!(&all.hits, &whole.hits);
    prop_assert_eq!(all.stats.too_long, whole.stats.too_long);
    // without line counting: the same hits, each on line 0
    let (unlined, _) = streamed(input, &ScanOptions { lines: false, ..*o }, sizes);
    let zeroed: Vec<Hit> = whole
        .hits
        .iter()
        .map(|h| Hit {
            line: 0,
            ..h.clone()
        })
        .collect();
    prop_assert_eq!(&unlined, &zeroed);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_chunking_gives_the_same_hits(
        pieces in prop::collection::vec(0..PIECES.len(), 0..60),
        label in 0..LABELS.len(),
        mode in 0u8..32,
        short in any::<bool>(),
        noise in prop::collection::vec((any::<usize>(), any::<u8>()), 0..3),
        sizes in prop::collection::vec(1usize..20, 1..6),
    ) {
        let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
        let label = LABELS[label];
        let mut input = encode(label, &text);
        for (at, b) in noise {
            if !input.is_empty() {
                let at = at % input.len();
                input[at] = b;
            }
        }
        let o = opts(label, mode, if short { 24 } else { 64 * 1024 });
        same(&input, &o, &sizes)?;
        same(&input, &o, &[1])?;
    }

    #[test]
    fn arbitrary_bytes(input in prop::collection::vec(any::<u8>(), 0..300), sizes in prop::collection::vec(1usize..9, 1..4), mode in prop::sample::select(vec![0u8, 1, 2, 3, 8, 9, 10, 11])) {
        for label in ["utf-8", "shift_jis", "gb18030", "iso-2022-jp", "utf-16le"] {
            same(&input, &opts(label, mode, 64), &sizes)?;
        }
    }
}

/// Filler between the pieces of the large inputs: long runs without candidates (so that input
/// is skipped or scanned in place), with non-ASCII text and line breaks.
const FILLER: &[&str] = &[
    "plain words and more plain words ",
    "日本語の文章です。",
    "Việt Nam ",
    "\n",
    "a:b 12:30 Note: see ",
    "x",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Inputs of tens of kilobytes, larger than the batches the scanner gathers (16 KiB) and
    /// its look back, fed in chunks of every size class: the in-place scan, the skips, the
    /// hand-over of candidates to the text window and the input kept between chunks give the
    /// links of decoding everything.
    #[test]
    fn large_inputs_in_any_chunks(
        parts in prop::collection::vec((0..PIECES.len(), 0..FILLER.len(), 0usize..400), 1..120),
        label in 0..LABELS.len(),
        mode in 0u8..32,
        noise in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        sizes in prop::collection::vec(prop::sample::select(vec![1usize, 7, 4093, 16383, 16384, 20000, 70000]), 1..4),
    ) {
        let mut text = String::new();
        for (piece, filler, reps) in parts {
            text.push_str(PIECES[piece]);
            for _ in 0..reps {
                text.push_str(FILLER[filler]);
            }
        }
        let label = LABELS[label];
        let mut input = encode(label, &text);
        for (at, b) in noise {
            if !input.is_empty() {
                let at = at % input.len();
                input[at] = b;
            }
        }
        same(&input, &opts(label, mode, 64 * 1024), &sizes)?;
    }
}

/// Inputs larger than the internal windows (the 64 KiB `auto` window, the text kept for look
/// backs) split at many points.
#[test]
fn large_input_split_everywhere() {
    let mut text = String::new();
    for i in 0..4000 {
        text.push_str(&format!("line {i} see http://example.com/{i}?q=你好 and <http://a.example/{i}\n  /x> 。www.x{i}.org "));
    }
    let input = text.as_bytes();
    for o in [opts("auto", 3, 64 * 1024), opts("utf-8", 0, 40)] {
        let whole = scan_bytes(input, &o);
        assert!(whole.hits.len() >= 8000, "{}", whole.hits.len());
        for sizes in [vec![1], vec![7, 13], vec![4096], vec![65537, 3]] {
            let (hits, _) = streamed(input, &o, &sizes);
            assert_eq!(hits, whole.hits, "{sizes:?}");
        }
    }
}

/// A chunk boundary at every offset in and around each kind of candidate, after enough text
/// that the first chunk is looked at on its own (in place, with the bytes before the boundary
/// kept for the look back): the same links as scanning whole.
#[test]
fn boundary_inside_every_candidate() {
    let tails = [
        "see mailto:a@b.example and tag:x.org,2005://1.2 or urn:isbn:1234 ok",
        "(http://a.example/x?q=1#f) <URL:http://b.example/> \"ftp://c.example/\"",
        "x <http://d.example/p\n  /q> news:comp.lang.rust tel:+1-555",
    ];
    for (label, filler) in [
        ("utf-8", "words, 12:30 and Note: see "),
        ("big5", "中文的文字。"),
        ("windows-1252", "café crème "),
    ] {
        for tail in tails {
            let text = format!("{}{tail}", filler.repeat(2000));
            let input = encode(label, &text);
            let head = input.len() - encode(label, tail).len();
            let o = opts(label, 0, 64 * 1024);
            let whole = scan_bytes(&input, &o);
            assert!(whole.hits.len() >= 3, "{label}: {:?}", whole.hits);
            for cut in head.saturating_sub(12)..input.len() {
                let (hits, _) = streamed(&input, &o, &[cut, usize::MAX]);
                assert_eq!(hits, whole.hits, "{label}, cut at {cut} of {}", input.len());
            }
        }
    }
}

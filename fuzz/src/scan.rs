//! The `scan` target: arbitrary bytes through the scanner.
//!
//! Input layout: byte 0 picks the encoding (bits 0-2: UTF-8, UTF-16LE, Shift_JIS, EUC-JP,
//! ISO-2022-JP, Big5, GB18030, windows-1252; bit 7: `auto` detection instead) and the options
//! (bit 3 schemeless, bit 4 email, bit 5 ascii_only, bit 6 a 24-byte maximum link length);
//! byte 1 picks `decode_all` (bit 7) and the chunkings; the rest is the input.
//!
//! Oracles: the hits and the counters of too-long candidates (and, with `decode_all`, of
//! malformed input) are the same for the whole input, for two chunkings derived from byte 1
//! (a cycle of two small sizes, and one split point) and with `decode_all` flipped; hits come
//! in input order, inside the input, without overlap; no hit holds whitespace, a control, a
//! stop character of the boundary table or U+FFFD. Every hit should parse as an IRI
//! (3987bis 2.2), a LEIRI (6.1) or a Web Address (6.2), after the prefix its kind implies, as
//! crates/scan/tests/legacy_corpus.rs accepts; one that does not is reported (see
//! [`report_unparsed`]), not a crash, since the pipeline rejects and counts it.

use linksieve_iri::{InputMode, IriRef, parse_input};
use linksieve_scan::{
    Encoding, EncodingChoice, Hit, LinkKind, ScanOptions, ScanStats, Scanner, Wrapper, scan_bytes,
};

/// The encodings byte 0 picks from.
pub const ENCODINGS: [&Encoding; 8] = [
    encoding_rs::UTF_8,
    encoding_rs::UTF_16LE,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
    encoding_rs::ISO_2022_JP,
    encoding_rs::BIG5,
    encoding_rs::GB18030,
    encoding_rs::WINDOWS_1252,
];

/// The options bytes 0 and 1 pick (the defaults for options the scanner adds later).
#[allow(clippy::needless_update)]
pub fn options(flags: u8, more: u8) -> ScanOptions {
    ScanOptions {
        encoding: if flags & 0x80 != 0 {
            EncodingChoice::Auto
        } else {
            EncodingChoice::Fixed(ENCODINGS[usize::from(flags & 7)])
        },
        schemeless: flags & 0x08 != 0,
        email: flags & 0x10 != 0,
        ascii_only: flags & 0x20 != 0,
        max_link_len: if flags & 0x40 != 0 {
            24
        } else {
            linksieve_scan::DEFAULT_MAX_LINK_LEN
        },
        decode_all: more & 0x80 != 0,
        ..ScanOptions::default()
    }
}

/// Feeds `input` in chunks of the given sizes, cycling.
pub fn streamed(input: &[u8], o: &ScanOptions, sizes: &[usize]) -> (Vec<Hit>, ScanStats) {
    let mut s = Scanner::new(o);
    let mut out = Vec::new();
    let mut i = 0;
    let mut k = 0;
    while i < input.len() {
        let n = sizes[k % sizes.len()].clamp(1, input.len() - i);
        s.feed(&input[i..i + n], &mut out)
            .expect("feed before finish");
        i += n;
        k += 1;
    }
    s.finish(&mut out).expect("first finish");
    assert!(s.finish(&mut out).is_err(), "a second finish must fail");
    (out, *s.stats())
}

/// The link as an IRI reference: bare hosts get `http://`, bare IPv6 addresses brackets, bare
/// e-mail addresses `mailto:` (as in crates/scan/tests/legacy_corpus.rs).
pub fn as_iri(h: &Hit) -> String {
    match h.kind {
        LinkKind::Scheme | LinkKind::Opaque => h.text.clone(),
        LinkKind::Bare => format!("http://{}", h.text),
        LinkKind::Ip if h.text.contains(':') => format!("http://[{}]", h.text),
        LinkKind::Ip => format!("http://{}", h.text),
        LinkKind::Email => format!("mailto:{}", h.text),
    }
}

/// Runs every scanner oracle on `data`.
pub fn run(data: &[u8]) {
    let (flags, rest) = data.split_first().map_or((0, data), |(f, r)| (*f, r));
    let (sizes, input) = rest.split_first().map_or((0, rest), |(f, r)| (*f, r));
    let o = options(flags, sizes);
    let whole = scan_bytes(input, &o);
    let split = if input.is_empty() {
        1
    } else {
        usize::from(sizes) * input.len() / 256 + 1
    };
    let chunkings = [
        vec![usize::from(sizes & 7) + 1, usize::from(sizes >> 3 & 15) + 1],
        vec![split, input.len().max(1)],
    ];
    for c in &chunkings {
        let (hits, stats) = streamed(input, &o, c);
        assert_eq!(hits, whole.hits, "hits differ for chunks {c:?} ({o:?})");
        // Without decode_all only the text around candidates is decoded: the counters of
        // malformed input cover the whole input only with decode_all, so only then are they
        // compared (as crates/scan/tests/chunking.rs does).
        if o.decode_all {
            assert_eq!(
                stats.malformed_sequences, whole.stats.malformed_sequences,
                "malformed_sequences for chunks {c:?}"
            );
            assert_eq!(
                stats.malformed_bytes, whole.stats.malformed_bytes,
                "malformed_bytes for chunks {c:?}"
            );
            assert_eq!(stats.skipped_bytes, 0, "skipped_bytes with decode_all");
        }
        assert_eq!(
            stats.too_long, whole.stats.too_long,
            "too_long for chunks {c:?}"
        );
        assert_eq!(
            stats.hits, whole.stats.hits,
            "hits counter for chunks {c:?}"
        );
        assert_eq!(
            stats.bytes_in,
            input.len() as u64,
            "bytes_in for chunks {c:?}"
        );
    }
    // Decoding only around candidates finds the links of decoding everything.
    let other = scan_bytes(
        input,
        &ScanOptions {
            decode_all: !o.decode_all,
            ..o
        },
    );
    assert_eq!(
        other.hits, whole.hits,
        "hits differ with decode_all = {}",
        !o.decode_all
    );
    assert_eq!(
        other.stats.too_long, whole.stats.too_long,
        "too_long with decode_all = {}",
        !o.decode_all
    );
    let st = whole.stats;
    assert_eq!(st.bytes_in, input.len() as u64, "bytes_in");
    assert_eq!(st.hits, whole.hits.len() as u64, "hits counter");
    assert!(
        st.malformed_bytes >= st.malformed_sequences,
        "malformed bytes < sequences"
    );
    assert!(
        st.malformed_bytes <= input.len() as u64,
        "more malformed bytes than input"
    );
    let mut prev_end = 0;
    for h in &whole.hits {
        assert!(
            h.start <= h.end && h.end <= input.len() as u64,
            "hit {h:?} outside the input"
        );
        assert!(
            h.start >= prev_end,
            "hit {h:?} overlaps the one before (end {prev_end})"
        );
        prev_end = h.end;
        assert!(!h.text.is_empty(), "empty hit {h:?}");
        // The boundary table (crates/scan/src/boundary.rs): whitespace and stop characters
        // end a link, so none is inside one; U+FFFD is how a decoding error shows.
        if let Some(c) = h.text.chars().find(|&c| !allowed(h, c)) {
            panic!("{c:?} in hit {h:?}");
        }
        let iri = as_iri(h);
        let ok = IriRef::parse(&iri).is_ok()
            || parse_input(&iri, InputMode::Leiri).is_ok()
            || parse_input(&iri, InputMode::Web).is_ok();
        if !ok {
            report_unparsed(&iri, data);
        }
    }
}

/// Whether the boundary table lets `c` into the hit `h`: never whitespace, controls, bidi
/// formatting characters, U+FFFD or the noncharacters and specials; outside a `<…>` wrapper
/// none of the ASCII stop characters `"<>`\^|`, inside one only `"` and `<` (markup); the
/// local part of an e-mail address may hold the `atext` punctuation of RFC 5322.
fn allowed(h: &Hit, c: char) -> bool {
    if c.is_control()
        || c.is_whitespace()
        || linksieve_iri::is_bidi_formatting(c)
        || ('\u{fdd0}'..='\u{fdef}').contains(&c)
        || ('\u{fff0}'..='\u{ffff}').contains(&c)
    {
        return false;
    }
    match (h.kind, h.trimmed.wrapper) {
        (LinkKind::Email, _) => true,
        (_, Some(Wrapper::Angle)) => !matches!(c, '"' | '<'),
        _ => !matches!(c, '"' | '<' | '>' | '`' | '\\' | '^' | '|'),
    }
}

/// A hit that is not an IRI, LEIRI or Web Address is not a crash: the pipeline rejects and
/// counts it (issue 6: every rejected IRI is counted). It is reported instead: appended to the
/// file named by `LINKSIEVE_FUZZ_UNPARSED` (scripts/fuzz.sh sets it) as `hit<TAB>input hex`,
/// each distinct hit once per process and at most 64 per process.
fn report_unparsed(iri: &str, data: &[u8]) {
    use std::collections::HashSet;
    use std::io::Write;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let Some(path) = std::env::var_os("LINKSIEVE_FUZZ_UNPARSED") else {
        return;
    };
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(HashSet::new);
    if seen.len() >= 64 || !seen.insert(iri.to_owned()) {
        return;
    }
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{}\t{hex}", iri.escape_debug());
    }
}

//! Adversarial inputs finish in linear time. Asserted on the finder's work counter
//! ([`ScanStats::work`]: text bytes visited by look backs, forward scans and rescans), never on
//! wall-clock time: doubling the input at most doubles the work (with 15% slack), and the work
//! per input byte stays under a constant.

use linksieve_scan::{ScanOptions, ScanStats, Scanner};

const N: usize = 1_000_000;

fn all_modes() -> ScanOptions {
    ScanOptions {
        schemeless: true,
        email: true,
        ..ScanOptions::default()
    }
}

fn run(input: &[u8], o: &ScanOptions, chunk: usize) -> (ScanStats, usize) {
    let mut s = Scanner::new(o);
    let mut out = Vec::new();
    for c in input.chunks(chunk.max(1)) {
        s.feed(c, &mut out).expect("feed");
    }
    s.finish(&mut out).expect("finish");
    (*s.stats(), out.len())
}

/// `make(n)` builds an input of about n bytes; checks the scaling from n to 2n, whole and in
/// small chunks, and returns the hit count at size n.
fn linear(name: &str, make: impl Fn(usize) -> Vec<u8>, o: &ScanOptions) -> usize {
    let mut hits = 0;
    for chunk in [usize::MAX, 4093] {
        let a = make(N);
        let b = make(2 * N);
        let (sa, ha) = run(&a, o, chunk);
        let (sb, _) = run(&b, o, chunk);
        let per_byte = sa.work as f64 / a.len() as f64;
        assert!(
            per_byte <= 12.0,
            "{name} (chunk {chunk}): {} work for {} bytes",
            sa.work,
            a.len()
        );
        // work(2n) <= 2 * work(n) * 1.15 (+ a constant)
        assert!(
            sb.work <= sa.work * 23 / 10 + 100_000,
            "{name} (chunk {chunk}): work {} for {} bytes but {} for {} bytes",
            sa.work,
            a.len(),
            sb.work,
            b.len()
        );
        hits = ha;
    }
    hits
}

fn rep(unit: &str, n: usize) -> Vec<u8> {
    unit.repeat(n / unit.len()).into_bytes()
}

#[test]
fn open_parens() {
    linear("(", |n| rep("(", n), &all_modes());
    // the same inside a link: each `(` is counted, the link is too long and skipped
    let h = linear(
        "http://x.org/(((",
        |n| {
            [
                b"http://x.org/".to_vec(),
                rep("(", n),
                b" http://ok.example/".to_vec(),
            ]
            .concat()
        },
        &all_modes(),
    );
    assert_eq!(h, 1);
}

#[test]
fn a_at_repeated() {
    linear("a@", |n| rep("a@", n), &all_modes());
    linear("a@b.", |n| rep("a@b.", n), &all_modes());
}

#[test]
fn dots() {
    linear("....", |n| rep(".", n), &all_modes());
    linear("a.a.a.", |n| rep("a.", n), &all_modes());
    linear("www.a.com.", |n| rep("www.a.com.", n), &all_modes());
}

#[test]
fn scheme_repeated() {
    let h = linear("http://", |n| rep("http://", n), &all_modes());
    assert_eq!(
        h, 0,
        "a single candidate longer than the maximum link length"
    );
    linear("http:// ", |n| rep("http:// ", n), &ScanOptions::default());
    linear(
        "a://b'c:",
        |n| rep("https://a.com'", n),
        &ScanOptions::default(),
    );
    linear("mailto:a:", |n| rep("mailto:a:", n), &all_modes());
    linear(
        "<http://a\\n",
        |n| rep("<http://a\n", n),
        &ScanOptions::default(),
    );
    linear("::::", |n| rep(":", n), &all_modes());
    linear("1:2:3:", |n| rep("1:2:", n), &all_modes());
}

#[test]
fn one_big_line_without_whitespace() {
    let h = linear(
        "big line",
        |n| {
            let mut v = rep("x", n / 2);
            v.extend_from_slice(b"http://a.example/");
            v.extend(rep("y", n / 2));
            v
        },
        &all_modes(),
    );
    assert_eq!(h, 0);
    // links joined by `,`: a comma before `scheme://` ends a link (issue #30 item 10), each is
    // found; the look ahead after each comma is bounded (a scheme is at most 64 bytes)
    let h = linear(
        "comma-joined links",
        |n| rep("http://a.example/x,", n),
        &all_modes(),
    );
    assert_eq!(h, N / 19);
    let h = linear(
        "comma-joined JSON-escaped links",
        |n| rep(r"http:\/\/a.example\/x,", n),
        &all_modes(),
    );
    assert_eq!(h, N / 22);
    let long_scheme = format!("http://a.example/x,{}:", "s".repeat(63));
    let h = linear(
        "commas before long schemes",
        |n| rep(&long_scheme, n),
        &all_modes(),
    );
    assert!(h <= 1, "{h}");
    // links glued by `;` are one candidate, too long, skipped (and counted as the links it held)
    let h = linear(
        "glued links",
        |n| rep("http://a.example/x;", n),
        &all_modes(),
    );
    assert_eq!(h, 0);
    let (st, _) = run(&rep("http://a.example/x;", N), &all_modes(), 4093);
    assert_eq!(st.too_long, (N / 19) as u64);
    let h = linear(
        "quoted links",
        |n| rep("\"http://a.example/\"", n),
        &all_modes(),
    );
    assert_eq!(h, N / 19);
    let h = linear(
        "dense urls",
        |n| rep("(http://a.example/x)", n),
        &all_modes(),
    );
    assert_eq!(h, N / 20);
}

/// Links longer than the window the scanner first looks at in place (it widens the window and
/// looks again, a geometric series): every link is found, in linear work, in UTF-8 and in a
/// single-byte encoding, whole and in chunks.
#[test]
fn long_links_in_place() {
    for label in ["utf-8", "windows-1252", "shift_jis"] {
        let o = ScanOptions {
            encoding: linksieve_scan::EncodingChoice::Fixed(
                linksieve_scan::encoding_for_label(label).expect("label"),
            ),
            ..ScanOptions::default()
        };
        // text without candidates between the links, so that each is found in place
        let unit = format!(
            "{}http://a.example/{} ",
            "word ".repeat(20_000),
            "y".repeat(40_000)
        );
        let h = linear(label, |n| rep(&unit, n), &o);
        assert_eq!(h, N / unit.len(), "{label}");
    }
}

/// JSON-escaped links (issue #30 item 10): escapes are read once each, whole and in chunks, and
/// an overlong escaped candidate is skipped in linear work.
#[test]
fn json_escapes() {
    let h = linear("escaped schemes", |n| rep(r"http:\/\/", n), &all_modes());
    assert_eq!(h, 0);
    let h = linear(
        "lone surrogates",
        |n| rep(r"http:\/\/a.example\/\ud83d ", n),
        &all_modes(),
    );
    assert_eq!(h, N / 27);
    let h = linear(
        "one long escaped link",
        |n| {
            let mut v = b"http:\\/\\/a.example\\/".to_vec();
            v.extend(rep(r"\u0041\/", n));
            v
        },
        &all_modes(),
    );
    assert_eq!(h, 0);
    let h = linear(
        "cut escapes",
        |n| rep(r"http:\/\/a.example\/x\u00", n),
        &all_modes(),
    );
    assert_eq!(h, N / 25);
}

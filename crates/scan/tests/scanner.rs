//! Examples from the specifications (seeds) and the boundary, encoding and offset rules.

use linksieve_scan::{
    EncodingChoice, Hit, LinkKind, ScanOptions, Scanner, Wrapper, encoding_for_label, scan_bytes,
};

fn with(label: &str) -> ScanOptions {
    ScanOptions {
        encoding: EncodingChoice::Fixed(encoding_for_label(label).expect("label")),
        ..ScanOptions::default()
    }
}

fn links(input: &str) -> Vec<String> {
    scan_bytes(input.as_bytes(), &ScanOptions::default())
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect()
}

fn links_opts(input: &str, opts: &ScanOptions) -> Vec<String> {
    scan_bytes(input.as_bytes(), opts)
        .hits
        .into_iter()
        .map(|h| h.text)
        .collect()
}

/// RFC 3986 appendix C ("Delimiting a URI in Context"; appendix D in draft -02, seed 003): the
/// example with `"…"`, and `<…>` across line breaks.
#[test]
fn rfc3986_appendix_c_example() {
    let text = "   Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\n   but you can probably pick it up from <ftp://ds.internic.\n   net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n   ietf/uri/historical.html#WARNING>.\n";
    let r = scan_bytes(text.as_bytes(), &ScanOptions::default());
    let got: Vec<&str> = r.hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(
        got,
        [
            "http://www.w3.org/Addressing/",
            "ftp://ds.internic.net/rfc/",
            "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING",
        ]
    );
    assert_eq!(r.hits[0].trimmed.wrapper, Some(Wrapper::Quote));
    assert_eq!(r.hits[1].trimmed.wrapper, Some(Wrapper::Angle));
    assert!(r.hits[1].trimmed.line_breaks);
    assert_eq!(r.hits[1].line, 2);
    assert_eq!(r.hits[2].line, 3);
    // the byte range covers the link as written, line break included
    let h = &r.hits[1];
    assert_eq!(
        &text[h.start as usize..h.end as usize],
        "ftp://ds.internic.\n   net/rfc/"
    );
}

/// RFC 3986 appendix C: the `URL:` prefix is dropped; a same-line space inside `<…>` is not
/// removed (the link ends there).
#[test]
fn url_prefix_and_same_line_space() {
    let r = scan_bytes(
        b"see <URL:http://www.w3.org/Addressing/> and <URL: ftp://x.example/a>",
        &Default::default(),
    );
    assert_eq!(r.hits[0].text, "http://www.w3.org/Addressing/");
    assert!(r.hits[0].trimmed.url_prefix);
    assert_eq!(r.hits[0].trimmed.wrapper, Some(Wrapper::Angle));
    assert_eq!(r.hits[1].text, "ftp://x.example/a");
    assert!(r.hits[1].trimmed.url_prefix);
    assert_eq!(links("<http://foo.bar/baz bim>"), ["http://foo.bar/baz"]);
    // the scheme rules are the same inside angle brackets: XML names are not links
    assert_eq!(
        links("<a+b+c:d> <m:abc> <dc:date>2004</dc:date> <urn:isbn:1234>"),
        ["urn:isbn:1234"]
    );
}

/// 3987bis 7.3: a non-ASCII character does not by itself end an IRI.
#[test]
fn non_ascii_does_not_end_an_iri() {
    assert_eq!(
        links("http://example.org/résumé.html!"),
        ["http://example.org/résumé.html"]
    );
    assert_eq!(
        links("http://例え.jp/パス?q=値 next"),
        ["http://例え.jp/パス?q=値"]
    );
    assert_eq!(
        links("go to http://www.bürgerentscheid-krankenhäuser.de."),
        ["http://www.bürgerentscheid-krankenhäuser.de"]
    );
}

#[test]
fn cjk_punctuation_and_brackets() {
    assert_eq!(
        links("请访问http://example.com/文件。谢谢"),
        ["http://example.com/文件"]
    );
    assert_eq!(
        links("見て「http://example.jp/a」ください"),
        ["http://example.jp/a"]
    );
    assert_eq!(
        links("【http://example.jp/東京【都】】"),
        ["http://example.jp/東京【都】"]
    );
    assert_eq!(links("（http://example.jp/x）、"), ["http://example.jp/x"]);
    assert_eq!(links("«http://example.fr/a»"), ["http://example.fr/a"]);
    assert_eq!(
        links("http://a.example/x，http://b.example/y"),
        ["http://a.example/x", "http://b.example/y"]
    );
    assert_eq!(links("http://a.example/x…"), ["http://a.example/x"]);
}

#[test]
fn unicode_spaces_and_bidi_controls_end_links() {
    for sep in [
        '\u{a0}', '\u{2003}', '\u{3000}', '\u{200e}', '\u{200f}', '\u{202b}', '\u{2067}', '\u{61c}',
    ] {
        let s = format!("http://a.example/x{sep}y");
        assert_eq!(links(&s), ["http://a.example/x"], "{:?}", sep);
    }
    assert_eq!(
        links("\u{2066}http://a.example/\u{2069}"),
        ["http://a.example/"]
    );
}

#[test]
fn host_glue() {
    let r = scan_bytes("http://example.com你好".as_bytes(), &ScanOptions::default());
    assert_eq!(r.hits[0].text, "http://example.com");
    assert!(r.hits[0].trimmed.host_cut);
    assert_eq!(
        links("http://例子.中国/路径 http://xn--fsqu00a.xn--fiqs8s/"),
        ["http://例子.中国/路径", "http://xn--fsqu00a.xn--fiqs8s/"]
    );
    let sl = ScanOptions {
        schemeless: true,
        ..ScanOptions::default()
    };
    assert_eq!(
        links_opts("中国語example.com/a 你好", &sl),
        ["example.com/a"]
    );
}

#[test]
fn prose_look_alikes_are_not_links() {
    for s in [
        "Re: hello",
        "at 12:30 today",
        "C:\\Windows\\x",
        "path:to:file.pm",
        "Note: see below",
        "mailto:",
        "http://",
        "http:// x",
        "foo://",
    ] {
        assert!(links(s).is_empty(), "{s}");
    }
    assert_eq!(
        links("mailto:a@b.example tel:+1-201-555-0123 urn:isbn:0451450523"),
        [
            "mailto:a@b.example",
            "tel:+1-201-555-0123",
            "urn:isbn:0451450523"
        ]
    );
    assert_eq!(
        links("data:text/plain;base64,SGVsbG8= magnet:?xt=urn:btih:abc"),
        ["data:text/plain;base64,SGVsbG8=", "magnet:?xt=urn:btih:abc"]
    );
}

#[test]
fn kinds_and_modes() {
    let opts = ScanOptions {
        schemeless: true,
        email: true,
        ..ScanOptions::default()
    };
    let r = scan_bytes(
        b"www.example.com 192.168.0.1 2001:db8::1 me@example.org http://x.example",
        &opts,
    );
    let kinds: Vec<LinkKind> = r.hits.iter().map(|h| h.kind).collect();
    assert_eq!(
        kinds,
        [
            LinkKind::Bare,
            LinkKind::Ip,
            LinkKind::Ip,
            LinkKind::Email,
            LinkKind::Scheme
        ]
    );
    // without the modes only the scheme link
    assert_eq!(
        links("www.example.com 192.168.0.1 me@example.org http://x.example"),
        ["http://x.example"]
    );
}

/// RFC 3987 3.1 variant B / comparison draft 4.2.2: `Việt` transcoded directly from
/// windows-1258 is `e` + U+0302 ... here `ê` U+00EA + combining dot below U+0323; the link is
/// NFC-normalised (U+1EC7) and marked. UTF-8 input is never normalised (variant C).
#[test]
fn windows_1258_vietnamese_is_nfc_normalised() {
    let input = b"xem http://example.org/Vi\xea\xf2t_Nam ngay";
    let r = scan_bytes(input, &with("windows-1258"));
    let h = &r.hits[0];
    assert_eq!(h.text, "http://example.org/Vi\u{1ec7}t_Nam");
    assert!(h.from_legacy);
    assert!(h.nfc_changed);
    assert_eq!(h.encoding.name(), "windows-1258");
    assert_eq!(
        &input[h.start as usize..h.end as usize],
        b"http://example.org/Vi\xea\xf2t_Nam"
    );
    // the same characters in UTF-8: not normalised
    let utf8 = "http://example.org/Vi\u{ea}\u{323}t_Nam";
    let r = scan_bytes(utf8.as_bytes(), &ScanOptions::default());
    assert_eq!(r.hits[0].text, utf8);
    assert!(!r.hits[0].from_legacy);
    assert!(!r.hits[0].nfc_changed);
}

fn check_offsets(input: &[u8], hits: &[Hit], label: &str) {
    let enc = encoding_for_label(label).expect("label");
    for h in hits {
        let raw = &input[h.start as usize..h.end as usize];
        let (dec, _) = enc.decode_without_bom_handling(raw);
        assert_eq!(dec, h.text, "{label}: {:?}", h);
    }
}

#[test]
fn legacy_multibyte_offsets() {
    for (label, text) in [
        ("shift_jis", "日本語のテキストhttp://example.jp/パス。次"),
        ("euc-jp", "日本語 http://example.jp/ﾊﾟｽ/字 終"),
        ("euc-kr", "한국어 http://example.kr/경로 끝"),
        ("big5", "中文http://example.tw/路徑，完"),
        ("gbk", "中文http://example.cn/路径€。完"),
        ("gb18030", "中文http://example.cn/😀路径 完"),
        ("iso-2022-jp", "日本語 http://example.jp/パス 終わり"),
        ("koi8-r", "Текст http://example.ru/путь конец"),
        ("utf-16le", "text http://example.com/😀 end"),
        ("utf-16be", "text http://example.com/é end"),
    ] {
        let enc = encoding_for_label(label).expect("label");
        let (bytes, _, unmappable) = enc.encode(text);
        assert!(!unmappable, "{label}");
        let input: Vec<u8> = if label.starts_with("utf-16") {
            let be = label.ends_with("be");
            text.encode_utf16()
                .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
                .collect()
        } else {
            bytes.into_owned()
        };
        let r = scan_bytes(&input, &with(label));
        assert_eq!(r.hits.len(), 1, "{label}: {:?}", r.hits);
        check_offsets(&input, &r.hits, label);
        assert_eq!(r.stats.malformed_sequences, 0, "{label}");
    }
}

/// EUC-JP JIS X 0212 characters are three bytes (0x8F lead); the WHATWG encoder cannot write
/// them, so the bytes are given directly.
#[test]
fn euc_jp_jis0212_offsets() {
    let input = b"\xa4\xa2 http://example.jp/\x8f\xb0\xa1x\x8f\xb0\xa1 \xa4\xa2";
    let r = scan_bytes(input, &with("euc-jp"));
    assert_eq!(r.hits.len(), 1);
    check_offsets(input, &r.hits, "euc-jp");
    assert_eq!((r.hits[0].start, r.hits[0].end), (3, 28));
}

#[test]
fn auto_detection() {
    // BOM
    let mut v = vec![0xef, 0xbb, 0xbf];
    v.extend_from_slice(b"http://a.example/");
    let r = scan_bytes(&v, &ScanOptions::default());
    assert_eq!((r.hits[0].start, r.encoding.name()), (3, "UTF-8"));
    // UTF-16 with BOM
    let mut w = vec![0xff, 0xfe];
    w.extend(
        "x http://a.example/ y"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes()),
    );
    let r = scan_bytes(&w, &ScanOptions::default());
    assert_eq!(r.encoding.name(), "UTF-16LE");
    assert_eq!((r.hits[0].start, r.hits[0].end), (6, 40));
    // legacy: chardetng
    let (sj, _, _) = encoding_rs::SHIFT_JIS
        .encode("これは日本語の文章です。詳しくは http://example.jp/ を見てください。");
    let r = scan_bytes(&sj, &ScanOptions::default());
    assert_eq!(r.encoding.name(), "Shift_JIS");
    assert_eq!(r.hits[0].text, "http://example.jp/");
    assert!(r.hits[0].from_legacy);
}

#[test]
fn malformed_bytes_are_counted_and_never_in_links() {
    let r = scan_bytes(b"http://a.example/x\xffy \xc3", &with("utf-8"));
    assert_eq!(r.hits[0].text, "http://a.example/x");
    assert_eq!(r.stats.malformed_sequences, 2);
    assert_eq!(r.stats.malformed_bytes, 2);
}

#[test]
fn max_link_len() {
    let long = format!("http://a.example/{} http://b.example/", "x".repeat(100));
    let opts = ScanOptions {
        max_link_len: 64,
        ..ScanOptions::default()
    };
    let r = scan_bytes(long.as_bytes(), &opts);
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].text, "http://b.example/");
    assert_eq!(r.stats.too_long, 1);
}

#[test]
fn streaming_api() {
    let mut s = Scanner::new(&ScanOptions::default());
    let mut out = Vec::new();
    for chunk in [
        &b"one http://a.exa"[..],
        b"mple/ two\n",
        b"three <http://b.example/c\n",
        b"d>",
    ] {
        s.feed(chunk, &mut out).expect("feed");
    }
    s.finish(&mut out).expect("finish");
    let got: Vec<(&str, u64, u64, u64)> = out
        .iter()
        .map(|h| (h.text.as_str(), h.start, h.end, h.line))
        .collect();
    assert_eq!(
        got,
        [
            ("http://a.example/", 4, 21, 1),
            ("http://b.example/cd", 33, 53, 2)
        ]
    );
    assert!(s.feed(b"x", &mut out).is_err());
    assert!(s.finish(&mut out).is_err());
}

/// Issue #30 item 4: `auto` on input whose first 64 KiB are ASCII decides at the first
/// non-ASCII byte. The oracle is the same input scanned with its encoding given (`Fixed`): the
/// links, offsets and lines must be those, for every block size the input is fed in; the links
/// in the decided encoding are marked legacy, as with the label.
#[test]
fn an_ascii_start_decides_at_the_first_non_ascii_byte() {
    let opts = ScanOptions {
        lines: true,
        ..ScanOptions::default()
    };
    for (label, tail) in [
        (
            "windows-1252",
            "café http://shop.example/café/menu près de la forêt http://b.example/été\n",
        ),
        (
            "shift_jis",
            "日本語の文章です http://例え.example/ページ と http://a.example/x\n",
        ),
        ("utf-8", "déjà vu http://shop.example/café/menu\n"),
        // all ASCII: no decision; the end of the input (no line feed after it) still scanned
        (
            "utf-8",
            "and http://end.example/last,http://end.example/after",
        ),
    ] {
        let enc = encoding_for_label(label).unwrap();
        let tail = enc.encode(tail).0.into_owned();
        for (ascii, minified) in [
            (70_000usize, false),
            (200_000, false),
            (300_001, false),
            (300_001, true),
        ] {
            let mut input = Vec::new();
            let mut n = 0;
            while input.len() < ascii {
                // lines, or one line of comma-joined links with no space (longer than the
                // ASCII the scanner holds back)
                let item = if minified {
                    format!("http://a{n}.example/p?q={n},")
                } else {
                    format!("line {n} see http://a{n}.example/p?q={n}\n")
                };
                input.extend_from_slice(item.as_bytes());
                n += 1;
            }
            // a link whose token starts in the ASCII and reaches the first non-ASCII byte
            input.extend_from_slice(b"x http://shop.example/long/");
            input.extend_from_slice(&tail);
            input.extend_from_slice(&tail);
            let want: Vec<(String, u64, u64, u64)> = scan_bytes(&input, &with(label))
                .hits
                .into_iter()
                .map(|h| (h.text, h.start, h.end, h.line))
                .collect();
            assert!(
                want.iter()
                    .any(|w| w.0.contains("end.example/after") || !w.0.is_ascii()),
                "{label}: {want:?}"
            );
            for block in [7usize, 4096, 65_536, 256 << 10, usize::MAX] {
                let mut s = Scanner::new(&ScanOptions {
                    lines: true,
                    ..opts
                });
                let mut got: Vec<Hit> = Vec::new();
                for b in input.chunks(block.min(input.len())) {
                    s.feed(b, &mut got).unwrap();
                }
                s.finish(&mut got).unwrap();
                let got: Vec<(String, u64, u64, u64)> = got
                    .into_iter()
                    .map(|h| (h.text, h.start, h.end, h.line))
                    .collect();
                assert_eq!(got.len(), want.len(), "{label} {ascii} {block}");
                assert!(got == want, "{label} {ascii} {block}");
                assert_eq!(s.encoding().unwrap().name(), enc.name(), "{label}");
                assert_eq!(s.stats().bytes_in, input.len() as u64);
            }
        }
    }
}

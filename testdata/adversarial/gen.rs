//! The adversarial corpus of issue 6, generated at test time (nothing is stored): hostile
//! shapes at any size, for the linear-time and bounded-memory tests of
//! `crates/iri/tests/adversarial.rs` and `crates/scan/tests/adversarial.rs`, which include this
//! file with `#[path = "../../../testdata/adversarial/gen.rs"] mod corpus;`.
//!
//! Also here: a median timer for scaling checks, the resident set size for memory checks, and
//! a lock that keeps such tests from running beside each other.

#![allow(dead_code)]

/// One adversarial shape: `make(n)` builds about `n` bytes of it.
pub struct Case {
    /// Short name for messages.
    pub name: &'static str,
    /// The generator.
    pub make: fn(usize) -> Vec<u8>,
}

/// `unit` repeated to about `n` bytes (at least once).
pub fn rep(unit: &[u8], n: usize) -> Vec<u8> {
    unit.repeat((n / unit.len()).max(1))
}

/// `prefix`, then `unit` repeated to about `n` bytes, then `suffix`.
pub fn wrap(prefix: &[u8], unit: &[u8], n: usize, suffix: &[u8]) -> Vec<u8> {
    [prefix, &rep(unit, n), suffix].concat()
}

/// Deterministic pseudo-random bytes (xorshift64*), so failures reproduce.
pub fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(n + 8);
    while v.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    v.truncate(n);
    v
}

/// Overlong and otherwise invalid UTF-8 forms: overlong `/` in two, three and four bytes,
/// an overlong NUL, a UTF-16 surrogate, a code point above U+10FFFF, stray continuation and
/// lead bytes, and the never-valid bytes 0xC0, 0xC1, 0xF5-0xFF.
pub const BAD_UTF8: &[&[u8]] = &[
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xf0\x80\x80\xaf",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\x80\xbf",
    b"\xe2\x82",
    b"\xc1\xbf",
    b"\xf5\xff\xfe",
];

/// The string cases (each is valid UTF-8, so both crates can use them): the shapes the issue
/// names, and some of the same inside a link.
pub const TEXT_CASES: &[Case] = &[
    Case {
        name: "10^6 (",
        make: |n| rep(b"(", n),
    },
    Case {
        name: "10^6 [",
        make: |n| rep(b"[", n),
    },
    Case {
        name: "( inside a link",
        make: |n| wrap(b"http://x.org/", b"(", n, b" http://ok.example/"),
    },
    Case {
        name: "[ inside a link",
        make: |n| wrap(b"http://x.org/", b"[", n, b"]"),
    },
    Case {
        name: "[ in a host",
        make: |n| wrap(b"http://[", b"[", n, b"]/"),
    },
    Case {
        name: "a@ repeated",
        make: |n| rep(b"a@", n),
    },
    Case {
        name: "a@ after a scheme",
        make: |n| wrap(b"http://", b"a@", n, b"/"),
    },
    Case {
        name: "....",
        make: |n| rep(b".", n),
    },
    Case {
        name: ",,,,",
        make: |n| rep(b",", n),
    },
    Case {
        name: ".... after a host",
        make: |n| wrap(b"http://example.com", b".", n, b""),
    },
    Case {
        name: ",,,, after a path",
        make: |n| wrap(b"see http://example.com/a", b",", n, b" x"),
    },
    Case {
        name: "http:// repeated",
        make: |n| rep(b"http://", n),
    },
    Case {
        name: "http:// and a space",
        make: |n| rep(b"http:// ", n),
    },
    Case {
        name: "% runs",
        make: |n| rep(b"%", n),
    },
    Case {
        name: "% runs in a link",
        make: |n| wrap(b"http://h/", b"%", n, b""),
    },
    Case {
        name: "%2e%2E segments",
        make: |n| wrap(b"http://h/", b"a/%2e%2E/", n, b""),
    },
    Case {
        name: "%zz and %4",
        make: |n| wrap(b"http://h/?", b"%zz%4", n, b""),
    },
    Case {
        name: "nested ../",
        make: |n| wrap(b"http://a/b/", b"../", n, b"c"),
    },
    Case {
        name: "nested ./../",
        make: |n| wrap(b"http://a/", b"x/./../", n, b""),
    },
    Case {
        name: "bare ../",
        make: |n| rep(b"../", n),
    },
    Case {
        name: "NUL bytes",
        make: |n| rep(b"\0", n),
    },
    Case {
        name: "NUL in a link",
        make: |n| wrap(b"http://a.example/", b"\0a", n, b""),
    },
    Case {
        name: "::: and digits",
        make: |n| wrap(b"http://[", b"1:", n, b"]/"),
    },
    Case {
        name: "long non-ASCII host",
        make: |n| wrap(b"http://", "é".as_bytes(), n, b"/"),
    },
    Case {
        name: "long punycode-ish host",
        make: |n| wrap(b"http://xn--", b"a-", n, b".com/"),
    },
    Case {
        name: "many labels",
        make: |n| wrap(b"http://", "a.é.".as_bytes(), n, b"com/"),
    },
    Case {
        name: "query params",
        make: |n| wrap(b"http://h/?", b"b=1&a=2&sid=3&", n, b""),
    },
    Case {
        name: "combining marks",
        make: |n| wrap(b"http://h/e", "\u{301}".as_bytes(), n, b""),
    },
    Case {
        name: "bidi controls",
        make: |n| wrap(b"http://h/", "\u{202e}a".as_bytes(), n, b""),
    },
    Case {
        name: "# runs",
        make: |n| wrap(b"http://h/", b"#", n, b""),
    },
    Case {
        name: "www. runs",
        make: |n| wrap(b"http://", b"www.", n, b"x.com/"),
    },
    Case {
        name: "port zeros",
        make: |n| wrap(b"http://h:", b"0", n, b"80/"),
    },
];

/// Byte cases that are not UTF-8 (for the scanner; the IRI crate sees them lossily decoded).
pub const BYTE_CASES: &[Case] = &[
    Case {
        name: "binary noise",
        make: |n| noise(n, 0x9e37_79b9_7f4a_7c15),
    },
    Case {
        name: "binary noise with links",
        make: |n| {
            let mut v = Vec::with_capacity(n + 64);
            let mut k = 0u64;
            while v.len() < n {
                v.extend_from_slice(&noise(200, k + 1));
                v.extend_from_slice(b" http://a.example/x ");
                k += 1;
            }
            v
        },
    },
    Case {
        name: "overlong UTF-8",
        make: |n| {
            let mut v = Vec::with_capacity(n + 64);
            let mut i = 0;
            while v.len() < n {
                v.extend_from_slice(b"http://a.example/");
                v.extend_from_slice(BAD_UTF8[i % BAD_UTF8.len()]);
                v.extend_from_slice(b"x ");
                i += 1;
            }
            v
        },
    },
    Case {
        name: "overlong / run",
        make: |n| rep(b"\xc0\xaf", n),
    },
    Case {
        name: "lead bytes only",
        make: |n| rep(b"\xf0", n),
    },
];

/// UTF-16 code units as bytes, little- or big-endian.
pub fn utf16(units: &[u16], le: bool) -> Vec<u8> {
    units
        .iter()
        .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
        .collect()
}

/// UTF-16 text with lone surrogates: a high one before ASCII, a low one alone, a reversed pair,
/// a high one at the very end, around links, to about `n` bytes.
pub fn utf16_lone_surrogates(n: usize, le: bool) -> Vec<u8> {
    let link: Vec<u16> = "http://a.example/p".encode_utf16().collect();
    let mut units = Vec::with_capacity(n / 2 + 16);
    let mut i = 0;
    while units.len() * 2 < n {
        units.extend_from_slice(&link);
        units.push([0xD800, 0xDC00, 0xDFFF, 0xDBFF][i % 4]);
        units.push(0x20);
        if i % 3 == 0 {
            units.extend_from_slice(&[0xDC00, 0xD800]);
        }
        units.extend_from_slice(&[0x20, 0x61, 0x20]);
        i += 1;
    }
    units.push(0xD83D);
    utf16(&units, le)
}

/// ISO-2022-JP escape storms: every escape sequence the decoder knows, invalid ones (`ESC ( Z`,
/// `ESC $ A`, a lone `ESC`), escapes with nothing between them, and JIS X 0208 pairs cut by an
/// escape, with links between them, to about `n` bytes.
pub fn iso2022jp_storm(n: usize) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"\x1b$B",
        b"\x1b(B",
        b"\x1b(J",
        b"\x1b$@",
        b"\x1b(I",
        b"\x1b(Z",
        b"\x1b$A",
        b"\x1b",
        b"\x1b$B\x24",
        b"\x1b$B\x24\x22\x1b(B",
        b"http://a.example/",
        b"\x1b$Bhttp://b.example/\x1b(B",
        b" http://c.example/ ",
    ];
    let mut v = Vec::with_capacity(n + 32);
    let mut i = 0usize;
    while v.len() < n {
        v.extend_from_slice(PIECES[i % PIECES.len()]);
        // A different order each round, so every piece follows every other.
        i = i.wrapping_mul(7).wrapping_add(3) % 1013;
    }
    v
}

/// The WHATWG encoding names (each is also a label), every encoding `encoding_rs` has.
pub const WHATWG_ENCODINGS: &[&str] = &[
    "utf-8",
    "ibm866",
    "iso-8859-2",
    "iso-8859-3",
    "iso-8859-4",
    "iso-8859-5",
    "iso-8859-6",
    "iso-8859-7",
    "iso-8859-8",
    "iso-8859-8-i",
    "iso-8859-10",
    "iso-8859-13",
    "iso-8859-14",
    "iso-8859-15",
    "iso-8859-16",
    "koi8-r",
    "koi8-u",
    "macintosh",
    "windows-874",
    "windows-1250",
    "windows-1251",
    "windows-1252",
    "windows-1253",
    "windows-1254",
    "windows-1255",
    "windows-1256",
    "windows-1257",
    "windows-1258",
    "x-mac-cyrillic",
    "gbk",
    "gb18030",
    "big5",
    "euc-jp",
    "iso-2022-jp",
    "shift_jis",
    "euc-kr",
    "replacement",
    "utf-16be",
    "utf-16le",
    "x-user-defined",
];

/// Every byte value, alone and after every other one (all 65,536 pairs), each pair between
/// link text: `http://a.example/<b1><b2>x http://a.example/ ...` (about 1.5 MB).
pub fn every_byte_pair() -> Vec<u8> {
    let mut v = Vec::with_capacity(256 * 256 * 24);
    v.extend(0..=255u8);
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            v.extend_from_slice(b"http://a.example/");
            v.extend_from_slice(&[a, b]);
            v.extend_from_slice(b"x ");
        }
    }
    v
}

/// Serializes the tests of one test binary that measure time or memory, so that they do not
/// run beside each other (the harness runs tests on parallel threads).
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The resident set size of this process in bytes (`VmRSS` of /proc/self/status), where the
/// system has one (Linux).
pub fn rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

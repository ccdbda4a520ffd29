//! Scheme lists.
//!
//! * Any RFC 3986 scheme (3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`) followed by `//`
//!   starts a link; no list is needed for those.
//! * Without `//` a scheme starts a link only if it is one of [`OPAQUE`]: registered schemes
//!   (IANA "Uniform Resource Identifier (URI) Schemes" registry, permanent and a few widely used
//!   provisional ones) whose IRIs have no authority. Prose look-alikes such as `Re:`, `Note:`,
//!   `path:to:file`, `12:30` or `C:\` are therefore never taken. Inside a closed `<…>` wrapper
//!   any scheme of two or more letters is taken (RFC 3986 appendix C).
//! * [`DNS`] lists the schemes whose host is a DNS name or an IP address: their hosts are checked
//!   label by label (`host.rs`).

/// Registered schemes taken without `//`, each with the check that what follows looks like that
/// scheme's syntax (checked on a bounded prefix, so a rejection costs O(1)).
// the source list: `opaque_lower` compiles it into integer matches, and a test checks that the
// two agree
pub(crate) const OPAQUE: &[(&str, OpaqueCheck)] = &[
    ("about", OpaqueCheck::Word),
    ("acct", OpaqueCheck::At),
    ("bitcoin", OpaqueCheck::Word),
    ("cid", OpaqueCheck::Word),
    ("data", OpaqueCheck::Data),
    ("did", OpaqueCheck::Urn),
    ("fax", OpaqueCheck::Digits),
    ("geo", OpaqueCheck::Geo),
    ("im", OpaqueCheck::At),
    ("info", OpaqueCheck::Info),
    ("magnet", OpaqueCheck::Query),
    ("mailto", OpaqueCheck::Mailto),
    ("matrix", OpaqueCheck::Word),
    ("mid", OpaqueCheck::Word),
    ("news", OpaqueCheck::Word),
    ("pres", OpaqueCheck::At),
    ("sip", OpaqueCheck::Word),
    ("sips", OpaqueCheck::Word),
    ("sms", OpaqueCheck::Digits),
    ("tag", OpaqueCheck::Tag),
    ("tel", OpaqueCheck::Digits),
    ("urn", OpaqueCheck::Urn),
    ("xmpp", OpaqueCheck::Word),
];

/// Schemes whose authority holds a DNS name or an IP address.
pub(crate) static DNS: &[&str] = &[
    "feed",
    "ftp",
    "ftps",
    "git",
    "git+https",
    "git+ssh",
    "gopher",
    "http",
    "https",
    "imap",
    "imaps",
    "irc",
    "ircs",
    "ldap",
    "ldaps",
    "mms",
    "news",
    "nntp",
    "pop",
    "rsync",
    "rtmp",
    "rtsp",
    "sftp",
    "smb",
    "smtp",
    "ssh",
    "svn",
    "svn+ssh",
    "telnet",
    "webcal",
    "ws",
    "wss",
];

/// What must follow `scheme:` for an opaque scheme to be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpaqueCheck {
    /// Starts with a letter, digit or `%`.
    Word,
    /// `mailto:` (RFC 6068): an `@` (or `%40`, 6068 2: any character of an address may be
    /// percent-encoded) before the first delimiter, or starts with `?`.
    Mailto,
    /// `local@domain` style: an `@` before the first delimiter.
    At,
    /// `info:` (RFC 4452 3): a namespace (a letter, then letters, digits, `+ - .`) and `/`;
    /// so a log line's `INFO:root:Started` is not an `info:` URI.
    Info,
    /// At least one digit among the first characters (tel:, sms:, fax:; RFC 3966 allows `+`,
    /// visual separators and so on before it).
    Digits,
    /// `urn:NID:...` / `did:method:...`: a word, then a second `:`.
    Urn,
    /// `data:` (RFC 2397): a `,` before the first delimiter.
    Data,
    /// `geo:` (RFC 5870): starts with a digit or `-`.
    Geo,
    /// `magnet:` starts with `?`.
    Query,
    /// `tag:` (RFC 4151): authority `,` date `:`.
    Tag,
}

/// How far the opaque checks look (bytes).
pub(crate) const OPAQUE_CHECK_WINDOW: usize = 256;

/// The check for a registered opaque scheme (ASCII case-insensitive), if any.
pub(crate) fn opaque(scheme: &str) -> Option<OpaqueCheck> {
    let n = scheme.len();
    if !(2..=8).contains(&n) || !opaque_first(scheme.as_bytes()[0] | 0x20) {
        return None;
    }
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(scheme.as_bytes());
    buf.make_ascii_lowercase();
    opaque_lower(&buf[..n])
}

/// Packs up to eight bytes into an integer (first byte lowest).
#[inline]
pub(crate) const fn key(s: &[u8]) -> u64 {
    let mut k = 0u64;
    let mut i = 0;
    while i < s.len() && i < 8 {
        k |= (s[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// Whether a registered opaque scheme starts with the lowercase letter `c` (`h` does not: not
/// `http`).
#[inline]
pub(crate) fn opaque_first(c: u8) -> bool {
    const FIRST: u32 = {
        let mut m = 0u32;
        let names: &[u8] = b"aabcddfgiimmmmnpsssttux";
        let mut i = 0;
        while i < names.len() {
            m |= 1 << (names[i] - b'a');
            i += 1;
        }
        m
    };
    let f = c.wrapping_sub(b'a');
    f < 26 && FIRST >> f & 1 != 0
}

/// Whether some registered opaque scheme ends in the lowercase letters `a` `b` (a cheap filter
/// before [`opaque_key`]: 21 of the 676 letter pairs; most `word:` of prose stop here).
#[inline]
pub(crate) fn opaque_ends(a: u8, b: u8) -> bool {
    // ENDS[b]: bit a set when some name of `OPAQUE` ends in `ab`
    const ENDS: [u32; 26] = {
        let mut t = [0u32; 26];
        let mut i = 0;
        while i < OPAQUE.len() {
            let s = OPAQUE[i].0.as_bytes();
            let n = s.len();
            t[(s[n - 1] - b'a') as usize] |= 1 << (s[n - 2] - b'a');
            i += 1;
        }
        t
    };
    let (a, b) = (a.wrapping_sub(b'a'), b.wrapping_sub(b'a'));
    a < 26 && b < 26 && ENDS[b as usize] >> a & 1 != 0
}

/// [`opaque`] for a name already in lowercase: one integer match per length, no loop.
#[inline]
pub(crate) fn opaque_lower(s: &[u8]) -> Option<OpaqueCheck> {
    if !(2..=8).contains(&s.len()) {
        return None;
    }
    if !opaque_first(s[0]) {
        return None;
    }
    opaque_key(key(s))
}

/// The check for a registered opaque scheme given as [`key`] of its lowercase name.
#[inline]
pub(crate) fn opaque_key(k: u64) -> Option<OpaqueCheck> {
    use OpaqueCheck::*;
    // the lowercase names of `OPAQUE`, packed (a test checks the two lists agree)
    const ABOUT: u64 = key(b"about");
    const ACCT: u64 = key(b"acct");
    const BITCOIN: u64 = key(b"bitcoin");
    const CID: u64 = key(b"cid");
    const DATA: u64 = key(b"data");
    const DID: u64 = key(b"did");
    const FAX: u64 = key(b"fax");
    const GEO: u64 = key(b"geo");
    const IM: u64 = key(b"im");
    const INFO: u64 = key(b"info");
    const MAGNET: u64 = key(b"magnet");
    const MAILTO: u64 = key(b"mailto");
    const MATRIX: u64 = key(b"matrix");
    const MID: u64 = key(b"mid");
    const NEWS: u64 = key(b"news");
    const PRES: u64 = key(b"pres");
    const SIP: u64 = key(b"sip");
    const SIPS: u64 = key(b"sips");
    const SMS: u64 = key(b"sms");
    const TAG: u64 = key(b"tag");
    const TEL: u64 = key(b"tel");
    const URN: u64 = key(b"urn");
    const XMPP: u64 = key(b"xmpp");
    Some(match k {
        ABOUT => Word,
        ACCT => At,
        BITCOIN => Word,
        CID => Word,
        DATA => Data,
        DID => Urn,
        FAX => Digits,
        GEO => Geo,
        IM => At,
        INFO => Info,
        MAGNET => Query,
        MAILTO => Mailto,
        MATRIX => Word,
        MID => Word,
        NEWS => Word,
        PRES => At,
        SIP => Word,
        SIPS => Word,
        SMS => Digits,
        TAG => Tag,
        TEL => Digits,
        URN => Urn,
        XMPP => Word,
        _ => return None,
    })
}

/// Whether the scheme's authority is a DNS name or an IP address (ASCII case-insensitive).
#[inline]
pub(crate) fn is_dns(scheme: &str) -> bool {
    let n = scheme.len();
    if !(2..=9).contains(&n) {
        return false;
    }
    let mut buf = [0u8; 9];
    buf[..n].copy_from_slice(scheme.as_bytes());
    buf.make_ascii_lowercase();
    let key = &buf[..n];
    // the common case first
    if key == b"http" || key == b"https" {
        return true;
    }
    DNS.iter().any(|s| s.as_bytes() == key)
}

/// Runs an [`OpaqueCheck`] on the text after `scheme:` (`rest` may be cut anywhere; `complete`
/// says whether `rest` reaches the end of the input or [`OPAQUE_CHECK_WINDOW`]).
/// `Err(())` means more text is needed.
pub(crate) fn check_opaque(check: OpaqueCheck, rest: &[u8], complete: bool) -> Result<bool, ()> {
    // the part of `rest` before the first ASCII delimiter that would end a link
    let mut end = rest.len();
    for (i, &b) in rest.iter().enumerate() {
        if b <= b' ' || matches!(b, b'"' | b'<' | b'>' | b'`' | b'\\' | b'^' | b'|' | 0x7f) {
            end = i;
            break;
        }
    }
    let bounded = end < rest.len() || complete;
    let head = &rest[..end];
    let first = head.first().copied();
    let need = |found: bool| if found || bounded { Ok(found) } else { Err(()) };
    if first.is_none() {
        return need(false);
    }
    let f = first.unwrap_or(0);
    match check {
        OpaqueCheck::Word => Ok(f.is_ascii_alphanumeric() || f == b'%' || f >= 0x80),
        OpaqueCheck::Mailto => {
            if f == b'?' {
                return Ok(true);
            }
            let pct_at = head
                .windows(3)
                .any(|w| w[0] == b'%' && w[1] == b'4' && w[2] == b'0');
            need(head.contains(&b'@') || pct_at)
        }
        OpaqueCheck::At => need(f != b'@' && head.contains(&b'@')),
        OpaqueCheck::Digits => {
            let n = head.len().min(32);
            if head[..n].iter().any(|b| b.is_ascii_digit()) {
                Ok(true)
            } else if n == 32 {
                Ok(false)
            } else {
                need(false)
            }
        }
        OpaqueCheck::Urn => {
            if !f.is_ascii_alphanumeric() {
                return Ok(false);
            }
            for &b in head.iter().take(40) {
                if b == b':' {
                    return Ok(true);
                }
                if !(b.is_ascii_alphanumeric() || b == b'-' || b == b'.') {
                    return Ok(false);
                }
            }
            if head.len() >= 40 {
                Ok(false)
            } else {
                need(false)
            }
        }
        OpaqueCheck::Info => {
            if !f.is_ascii_alphabetic() {
                return Ok(false);
            }
            for &b in head.iter().take(40) {
                if b == b'/' {
                    return Ok(true);
                }
                if !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) {
                    return Ok(false);
                }
            }
            if head.len() >= 40 {
                Ok(false)
            } else {
                need(false)
            }
        }
        OpaqueCheck::Data => need(head.contains(&b',')),
        OpaqueCheck::Geo => Ok(f.is_ascii_digit() || f == b'-'),
        OpaqueCheck::Query => Ok(f == b'?'),
        OpaqueCheck::Tag => {
            if !f.is_ascii_alphanumeric() {
                return Ok(false);
            }
            need(head.contains(&b',') && head.iter().skip(1).any(|&b| b == b':'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted() {
        assert!(OPAQUE.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(DNS.windows(2).all(|w| w[0] < w[1]));
        assert!(OPAQUE.iter().all(|(s, _)| s.len() <= 8));
        assert!(DNS.iter().all(|s| s.len() <= 9));
    }

    #[test]
    fn packed_names_match_the_list() {
        for (name, check) in OPAQUE {
            assert_eq!(opaque_lower(name.as_bytes()), Some(*check), "{name}");
            let s = name.as_bytes();
            assert!(opaque_ends(s[s.len() - 2], s[s.len() - 1]), "{name}");
        }
        // the filter's pairs are exactly the names' last two letters
        let pairs = (b'a'..=b'z')
            .flat_map(|a| (b'a'..=b'z').map(move |b| (a, b)))
            .filter(|&(a, b)| opaque_ends(a, b))
            .count();
        let mut want: Vec<&[u8]> = OPAQUE
            .iter()
            .map(|(s, _)| &s.as_bytes()[s.len() - 2..])
            .collect();
        want.sort();
        want.dedup();
        assert_eq!(pairs, want.len());
        assert!(!opaque_ends(b't', b'e') && !opaque_ends(b'r', b'e') && !opaque_ends(b'A', b'b'));
        // every name of up to four letters is found exactly when it is in the list
        let mut found = Vec::new();
        let mut w = Vec::new();
        for len in 1..=4u32 {
            for mut code in 0..26u32.pow(len) {
                w.clear();
                for _ in 0..len {
                    w.push(b'a' + (code % 26) as u8);
                    code /= 26;
                }
                if let Some(k) = opaque_lower(&w) {
                    found.push((String::from_utf8_lossy(&w).into_owned(), k));
                }
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let want: Vec<(String, OpaqueCheck)> = OPAQUE
            .iter()
            .filter(|(s, _)| s.len() <= 4)
            .map(|(s, c)| (s.to_string(), *c))
            .collect();
        assert_eq!(found, want);
    }

    #[test]
    fn lookups() {
        assert_eq!(opaque("MAILTO"), Some(OpaqueCheck::Mailto));
        assert_eq!(opaque("note"), None);
        assert_eq!(opaque("re"), None);
        assert!(is_dns("HTTPS"));
        assert!(!is_dns("test"));
    }

    #[test]
    fn checks() {
        assert_eq!(
            check_opaque(OpaqueCheck::Mailto, b"a@b.c x", false),
            Ok(true)
        );
        assert_eq!(
            check_opaque(OpaqueCheck::Mailto, b"bar x", false),
            Ok(false)
        );
        assert_eq!(check_opaque(OpaqueCheck::Mailto, b"bar", false), Err(()));
        assert_eq!(check_opaque(OpaqueCheck::Mailto, b"bar", true), Ok(false));
        assert_eq!(check_opaque(OpaqueCheck::Urn, b"isbn:123", true), Ok(true));
        assert_eq!(check_opaque(OpaqueCheck::Digits, b"+1-555", true), Ok(true));
        assert_eq!(check_opaque(OpaqueCheck::Word, b" x", true), Ok(false));
        assert_eq!(
            check_opaque(OpaqueCheck::Data, b"text/plain,hi", true),
            Ok(true)
        );
    }
}

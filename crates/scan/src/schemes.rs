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
pub(crate) static OPAQUE: &[(&str, OpaqueCheck)] = &[
    ("about", OpaqueCheck::Word),
    ("acct", OpaqueCheck::At),
    ("bitcoin", OpaqueCheck::Word),
    ("cid", OpaqueCheck::Word),
    ("data", OpaqueCheck::Data),
    ("did", OpaqueCheck::Urn),
    ("fax", OpaqueCheck::Digits),
    ("geo", OpaqueCheck::Geo),
    ("im", OpaqueCheck::At),
    ("info", OpaqueCheck::Urn),
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
    /// `mailto:` (RFC 6068): an `@` before the first delimiter, or starts with `?`.
    Mailto,
    /// `local@domain` style: an `@` before the first delimiter.
    At,
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
    if !(2..=8).contains(&n) {
        return None;
    }
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(scheme.as_bytes());
    buf.make_ascii_lowercase();
    // a match on the lowercase bytes compiles to a few integer compares per length
    let key = &buf[..n];
    OPAQUE
        .iter()
        .find(|(s, _)| s.as_bytes() == key)
        .map(|&(_, c)| c)
}

/// Whether the scheme's authority is a DNS name or an IP address (ASCII case-insensitive).
pub(crate) fn is_dns(scheme: &str) -> bool {
    let n = scheme.len();
    if !(2..=9).contains(&n) {
        return false;
    }
    let b = scheme.as_bytes();
    // the common case first
    if b[0] | 0x20 == b'h' && (n == 4 || n == 5) {
        let mut l = [0u8; 5];
        l[..n].copy_from_slice(b);
        l.make_ascii_lowercase();
        if &l[..4] == b"http" && (n == 4 || l[4] == b's') {
            return true;
        }
    }
    let mut buf = [0u8; 9];
    buf[..n].copy_from_slice(b);
    buf.make_ascii_lowercase();
    let key = &buf[..n];
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
            need(head.contains(&b'@'))
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

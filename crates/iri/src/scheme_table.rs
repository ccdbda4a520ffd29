//! What linksieve knows about particular schemes: default ports and whether the host is a DNS
//! name. Used by URI->IRI step 6 (3987bis 3.7: "URIs known to contain domain names in the
//! reg-name component") and by the scheme-based rung of the comparison ladder.
//!
//! Default ports are those the scheme's defining document gives, as listed in the IANA "Uniform
//! Resource Identifier (URI) Schemes" registry; a scheme whose document gives none is absent.

/// One row of the scheme table.
///
/// ```
/// let http = linksieve_iri::scheme_info("HTTP").unwrap();
/// assert_eq!(http.default_port, Some(80));
/// assert!(http.dns_host);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeInfo {
    /// The scheme, lowercase.
    pub name: &'static str,
    /// The default port, where the scheme defines one.
    pub default_port: Option<u16>,
    /// True when a reg-name host of this scheme is a DNS domain name (IDNA applies).
    pub dns_host: bool,
    /// True for WHATWG "special" schemes (http, https, ws, wss, ftp, file).
    pub special: bool,
}

const fn s(name: &'static str, port: u16, special: bool) -> SchemeInfo {
    SchemeInfo {
        name,
        default_port: if port == 0 { None } else { Some(port) },
        dns_host: true,
        special,
    }
}

/// The table, sorted by name. Sources: RFC 9110 (http, https), RFC 6455 (ws, wss), RFC 1738
/// (ftp, telnet, nntp, prospero, wais), RFC 4266 (gopher), RFC 8089 (file), RFC 4516 (ldap),
/// RFC 5092 (imap), RFC 2384 (pop), RFC 7826 (rtsp, rtsps), RFC 3261 (sip, sips), RFC 5538
/// (news, snews), RFC 7252 (coap, coaps), RFC 2229 (dict), RFC 3507 (icap), RFC 3510 (ipp),
/// RFC 7472 (ipps), RFC 4975 (msrp, msrps), RFC 5724 (sms: none), RFC 2056 (z39.50r/s),
/// RFC 7595 provisional registrations for git, ssh, sftp, irc, ircs, redis, rediss, rsync,
/// svn, vnc, smb, mongodb, postgresql, mysql, mqtt.
static TABLE: &[SchemeInfo] = &[
    s("coap", 5683, false),
    s("coaps", 5684, false),
    s("dict", 2628, false),
    s("file", 0, true),
    s("ftp", 21, true),
    s("git", 9418, false),
    s("gopher", 70, false),
    s("http", 80, true),
    s("https", 443, true),
    s("icap", 1344, false),
    s("imap", 143, false),
    s("ipp", 631, false),
    s("ipps", 443, false),
    s("irc", 194, false),
    s("ircs", 6697, false),
    s("ldap", 389, false),
    s("ldaps", 636, false),
    s("mongodb", 27017, false),
    s("mqtt", 1883, false),
    s("msrp", 2855, false),
    s("msrps", 2855, false),
    s("mysql", 3306, false),
    s("news", 119, false),
    s("nntp", 119, false),
    s("pop", 110, false),
    s("postgresql", 5432, false),
    s("prospero", 1525, false),
    s("redis", 6379, false),
    s("rediss", 6379, false),
    s("rsync", 873, false),
    s("rtsp", 554, false),
    s("rtsps", 322, false),
    s("sftp", 22, false),
    s("sip", 5060, false),
    s("sips", 5061, false),
    s("smb", 445, false),
    s("snews", 563, false),
    s("ssh", 22, false),
    s("svn", 3690, false),
    s("telnet", 23, false),
    s("tn3270", 23, false),
    s("vnc", 5900, false),
    s("wais", 210, false),
    s("ws", 80, true),
    s("wss", 443, true),
    s("z39.50r", 210, false),
    s("z39.50s", 210, false),
];

/// Looks a scheme up, case-insensitively.
///
/// ```
/// assert_eq!(linksieve_iri::scheme_info("wss").unwrap().default_port, Some(443));
/// assert!(linksieve_iri::scheme_info("urn").is_none());
/// ```
pub fn scheme_info(scheme: &str) -> Option<&'static SchemeInfo> {
    if scheme.len() > 16 {
        return None;
    }
    let mut buf = [0u8; 16];
    let lower = &mut buf[..scheme.len()];
    lower.copy_from_slice(scheme.as_bytes());
    lower.make_ascii_lowercase();
    TABLE
        .binary_search_by(|e| e.name.as_bytes().cmp(lower))
        .ok()
        .map(|i| &TABLE[i])
}

/// The whole table, sorted by scheme name (for documentation and `linksieve` listings).
///
/// ```
/// assert!(linksieve_iri::scheme_table().iter().any(|s| s.name == "ftp"));
/// ```
pub fn scheme_table() -> &'static [SchemeInfo] {
    TABLE
}

/// The row of the scheme table (lowercase `scheme`); the two schemes of most IRIs first (same
/// rows, checked by a test), without the table's binary search.
#[inline]
pub(crate) fn table_row(scheme: &[u8]) -> Option<&'static SchemeInfo> {
    let http = scheme.get(..4).is_some_and(|p| p == b"http");
    match scheme.len() {
        4 if http => Some(&HTTP),
        5 if http && scheme[4] == b's' => Some(&HTTPS),
        0 => None,
        _ => std::str::from_utf8(scheme).ok().and_then(scheme_info),
    }
}

pub(crate) static HTTP: SchemeInfo = SchemeInfo {
    name: "http",
    default_port: Some(80),
    dns_host: true,
    special: true,
};

pub(crate) static HTTPS: SchemeInfo = SchemeInfo {
    name: "https",
    default_port: Some(443),
    dns_host: true,
    special: true,
};

#[cfg(test)]
mod tests {
    #[test]
    fn table_rows_agree_with_the_scheme_table() {
        for s in ["http", "https", "httpx", "ftp", "file", "urn"] {
            assert_eq!(super::table_row(s.as_bytes()), super::scheme_info(s));
        }
    }

    #[test]
    fn sorted() {
        assert!(super::TABLE.windows(2).all(|w| w[0].name < w[1].name));
    }
}

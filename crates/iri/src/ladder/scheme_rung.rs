//! The scheme rung (CMP 4.3; RFC 3986 6.2.3; RFC 3987 5.3.3), applied to a syntax-rung key.

use super::host::{dns_host, ipv6_5952};
use crate::parse::{IriRef, Parts};

/// The scheme-rung key of a syntax-rung key `k` (which has a scheme). With the scheme's row of
/// the scheme table ([`crate::scheme_table`]):
///
/// - port (RFC 3986 3.2.3, CMP 4.3): leading zeros dropped (the port is a decimal number, so
///   `:0080` is `:80`; `:000` is `:0`); an empty port, or the scheme's default port, is
///   removed with its `:`;
/// - path: an empty path becomes `/` for a scheme of the table when there is an authority
///   (CMP 4.3: `http://example.com` is `http://example.com/`);
/// - host of a scheme whose reg-name is a DNS name: percent-decoded (UTF-8), then IDNA
///   ToASCII, UTS 46 as WHATWG runs it ([`IdnaProfile::Web`]), so that `résumé`, `RÉSUMÉ`,
///   `r%C3%A9sum%C3%A9` and `xn--rsum-bpad` are one host (CMP 4.3, 3987bis 3.4.2). When the
///   octets are not UTF-8 or IDNA fails, the syntax-rung host is kept: nothing is merged and
///   nothing fails. ASCII that IDNA lets through but a URI host does not allow is
///   percent-encoded again;
/// - a trailing dot is kept: `example.com.` and `example.com` are different DNS names (one
///   absolute, one that a resolver may search) and different WHATWG origins;
/// - IPv6 literals in the RFC 5952 text form: lowercase, no leading zeros, the longest run of
///   two or more zero groups as `::` (the first on ties), IPv4-mapped addresses as
///   `::ffff:a.b.c.d` (RFC 5952 4 and 5);
/// - `file` (RFC 8089 2 and appendix B): host `localhost` with no userinfo and no port is the
///   empty authority (CMP 4.3: a scheme's default authority is written empty), and
///   `file:/path` is `file:///path`.
pub(super) fn normalize(k: IriRef<String>) -> IriRef<String> {
    let Some(scheme) = k.scheme() else {
        return k;
    };
    let info = crate::scheme_table::table_row(scheme.as_bytes());
    let file = scheme == "file";
    let mut parts = Parts::of(&k);
    let mut changed = false;
    if let Some(p) = parts.port {
        let digits = match p.trim_start_matches('0') {
            "" if !p.is_empty() => "0",
            t => t,
        };
        let default = info.and_then(|i| i.default_port);
        if digits.is_empty() || default.is_some_and(|d| digits == d.to_string()) {
            parts.port = None;
            changed = true;
        } else if digits.len() != p.len() {
            parts.port = Some(digits);
            changed = true;
        }
    }
    let host_buf: String;
    if let Some(h) = parts.host {
        let new_host = if h.starts_with('[') {
            ipv6_5952(h)
        } else if info.is_some_and(|i| i.dns_host) {
            dns_host(h)
        } else {
            None
        };
        if let Some(n) = new_host {
            host_buf = n;
            parts.host = Some(&host_buf);
            changed = true;
        }
        if file
            && parts.host == Some("localhost")
            && parts.userinfo.is_none()
            && parts.port.is_none()
        {
            parts.host = Some("");
            changed = true;
        }
        if parts.path.is_empty() && info.is_some() {
            parts.path = "/";
            changed = true;
        }
    } else if file && parts.path.starts_with('/') {
        parts.host = Some("");
        // The syntax rung wrote "/." before a path starting with "//" only because there was
        // no authority (RFC 3986 3.3); with one, the path is "//..." again.
        if parts.path.starts_with("/.//") {
            parts.path = &parts.path[2..];
        }
        changed = true;
    }
    if !changed {
        return k;
    }
    parts.assemble()
}

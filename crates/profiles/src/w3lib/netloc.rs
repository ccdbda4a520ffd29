//! The netloc: w3lib 2.5.0 `_urlsplit`'s checks and split (`_check_bracketed_netloc`,
//! `_checknetloc`, `_SplitResult`), `_safe_url_split`'s rebuilding (userinfo quoted, host
//! through IDNA, port as a number) and `canonicalize_url`'s host lower-casing and
//! `_normalize_ipv6_host`.

use super::idna::host_to_ascii;
use super::{Fail, USERINFO_SAFEST, escape_at, push_pct, value_error};
use crate::python_ip::{parse_ipv4, parse_ipv6, push_ipv6};
use unicode_normalization::UnicodeNormalization;

/// Appends the rebuilt netloc of `netloc` (the text between `//` and the path) to `out`;
/// `bracketed` when the authority holds a `[` and a `]`.
pub(super) fn push(netloc: &str, bracketed: bool, out: &mut String) -> Result<(), Fail> {
    if bracketed {
        check_bracketed(netloc)?;
    }
    if !netloc.is_ascii() {
        check_nfkc(netloc)?;
    }
    let (userinfo, hostinfo) = match memchr::memrchr(b'@', netloc.as_bytes()) {
        Some(at) => (Some(&netloc[..at]), &netloc[at + 1..]),
        None => (None, netloc),
    };
    // _urlsplit: with a bracket, the host is between the first "[" and the next "]", the port
    // after a ":" that follows; without, the host runs to the first ":".
    let (hostname, port) = if bracketed {
        let after = hostinfo.split_once('[').map_or("", |(_, a)| a);
        let (h, tail) = after.split_once(']').unwrap_or((after, ""));
        (h, tail.split_once(':').map_or("", |(_, p)| p))
    } else {
        match memchr::memchr(b':', hostinfo.as_bytes()) {
            Some(c) => (&hostinfo[..c], &hostinfo[c + 1..]),
            None => (hostinfo, ""),
        }
    };
    let port = parse_port(port)?;
    // _safe_url_split: the userinfo, unquoted then quoted with _USERINFO_SAFEST_CHARS.
    if let Some(u) = userinfo {
        let (user, password) = match u.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (u, None),
        };
        push_requoted(user.as_bytes(), out);
        if let Some(p) = password {
            out.push(':');
            push_requoted(p.as_bytes(), out);
        }
        out.push('@');
    }
    let host_at = out.len();
    push_host(hostname, out)?;
    if let Some(p) = port {
        out.push(':');
        out.push_str(itoa(p, &mut [0; 5]));
    }
    // canonicalize_url: the host (not the userinfo) lower-cased, with str.lower().
    if out[host_at..].is_ascii() {
        out[host_at..].make_ascii_lowercase();
    } else {
        let lower = out[host_at..].to_lowercase();
        out.truncate(host_at);
        out.push_str(&lower);
    }
    normalize_ipv6(host_at, out);
    Ok(())
}

/// `_SplitResult.__post_init__`: a port is ASCII digits, at most 65535; `None` when empty.
fn parse_port(port: &str) -> Result<Option<u16>, Fail> {
    if port.is_empty() {
        return Ok(None);
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(value_error("Port could not be cast to integer value"));
    }
    let digits = port.trim_start_matches('0');
    match digits.parse::<u32>() {
        _ if digits.is_empty() => Ok(Some(0)),
        Ok(v) if digits.len() <= 5 && v <= 65535 => Ok(Some(v as u16)),
        _ => Err(value_error("Port out of range 0-65535")),
    }
}

/// The decimal digits of `v`.
fn itoa(mut v: u16, buf: &mut [u8; 5]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// `_quote_into(_unquote(s), _USERINFO_SAFEST_CHARS)`.
fn push_requoted(b: &[u8], out: &mut String) {
    let mut i = 0;
    while i < b.len() {
        let (c, n) = match escape_at(b, i) {
            Some(c) => (c, 3),
            None => (b[i], 1),
        };
        if USERINFO_SAFEST[usize::from(c)] {
            out.push(char::from(c));
        } else {
            push_pct(c, out);
        }
        i += n;
    }
}

/// `_safe_url_split`: an IPv6-like host (one with `:`) in brackets, as ASCII; another ASCII
/// host as it is; a non-ASCII host through `_idna`, or as it is where IDNA fails.
fn push_host(hostname: &str, out: &mut String) -> Result<(), Fail> {
    // _SplitResult.__post_init__: the host lower-cased up to its first "%".
    let lowered;
    let host = if hostname.is_ascii() {
        hostname
    } else {
        lowered = match hostname.split_once('%') {
            Some((h, zone)) => format!("{}%{zone}", h.to_lowercase()),
            None => hostname.to_lowercase(),
        };
        &lowered
    };
    if memchr::memchr(b':', host.as_bytes()).is_some() {
        if !host.is_ascii() {
            return Err(Fail::Encode); // hostname.encode("ascii")
        }
        out.push('[');
        out.push_str(host);
        out.push(']');
    } else if host.is_ascii() || !host_to_ascii(host, out) {
        out.push_str(host);
    }
    Ok(())
}

/// `_normalize_ipv6_host`: an IPv6 address between the first `[` and the next `]` written as
/// Python writes it (RFC 5952 4); anything else left as it is.
fn normalize_ipv6(host_at: usize, out: &mut String) {
    let Some(open) = memchr::memchr(b'[', &out.as_bytes()[host_at..]).map(|i| i + host_at) else {
        return;
    };
    let Some(close) = out[open..].find(']').map(|i| i + open) else {
        return;
    };
    let inner = &out[open + 1..close];
    if parse_ipv4(inner).is_some() {
        return;
    }
    let Some((v, scope)) = parse_ipv6(inner) else {
        return;
    };
    let mut text = String::with_capacity(inner.len() + 2);
    push_ipv6(v, scope, &mut text);
    if text != inner {
        out.replace_range(open + 1..close, &text);
    }
}

/// `_check_bracketed_netloc`: brackets hold the whole host, an IPv6 address or an IPvFuture,
/// and only `:port` may follow.
fn check_bracketed(netloc: &str) -> Result<(), Fail> {
    let hp = netloc.rsplit_once('@').map_or(netloc, |(_, h)| h);
    let hostname = match hp.split_once('[') {
        Some((before, _)) if !before.is_empty() => return Err(value_error("Invalid IPv6 URL")),
        Some((_, bracketed)) => {
            let (h, port) = bracketed.split_once(']').unwrap_or((bracketed, ""));
            if !port.is_empty() && !port.starts_with(':') {
                return Err(value_error("Invalid IPv6 URL"));
            }
            h
        }
        None => hp.split_once(':').map_or(hp, |(h, _)| h),
    };
    // _check_bracketed_host
    if hostname.starts_with(['v', 'V']) {
        if !is_ipv_future(hostname) {
            return Err(value_error("IPvFuture address is invalid"));
        }
    } else if parse_ipv4(hostname).is_some() {
        return Err(value_error("An IPv4 address cannot be in brackets"));
    } else if parse_ipv6(hostname).is_none() {
        return Err(value_error(
            "the bracketed host does not appear to be an IPv4 or IPv6 address",
        ));
    }
    Ok(())
}

/// `_IPV_FUTURE_RE`: `\Av[a-fA-F0-9]+\..+\Z` (a lower-case `v`; `.` is any character but LF).
fn is_ipv_future(h: &str) -> bool {
    let Some(rest) = h.strip_prefix('v') else {
        return false;
    };
    let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    let tail = &rest[hex..];
    hex > 0
        && tail
            .strip_prefix('.')
            .is_some_and(|t| !t.is_empty() && !t.contains('\n'))
}

/// `_checknetloc`: NFKC must not bring in a character that delimits the netloc.
fn check_nfkc(netloc: &str) -> Result<(), Fail> {
    let cleaned: String = netloc
        .chars()
        .filter(|c| !matches!(c, '@' | ':' | '#' | '?'))
        .collect();
    let normalized: String = cleaned.nfkc().collect();
    if cleaned != normalized && normalized.contains(['/', '?', '#', '@', ':', '\\']) {
        return Err(value_error(
            "netloc contains invalid characters under NFKC normalization",
        ));
    }
    Ok(())
}

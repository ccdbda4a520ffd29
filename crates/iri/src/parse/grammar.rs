//! The scan: 3987bis 2.2's ABNF over the bytes, left to right, one component class at a time.

use super::ip::valid_ip_literal;
use super::{Component, Grammar, ParseError, ParseErrorKind, Spans};
use crate::chars::{self, COLON_AT, HEX, PCHAR, SCHEME, SLASH_QMARK, SUB_DELIM, UNRESERVED};

#[inline(always)]
pub(super) fn err(kind: ParseErrorKind, component: Component, offset: usize) -> ParseError {
    ParseError {
        kind,
        component,
        offset,
    }
}

/// Error for the character starting at byte `i` of `s`.
#[cold]
pub(super) fn bad_char(s: &str, i: usize, component: Component) -> ParseError {
    let c = s[i..].chars().next().unwrap_or('\0');
    err(ParseErrorKind::InvalidChar(c), component, i)
}

/// Parses `s` into spans (3987bis 2.2; RFC 3986 3 and 4.1 for the structure).
#[inline(always)]
pub(crate) fn parse_spans(s: &str, grammar: Grammar) -> Result<Spans, ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
    let mut scheme_end = 0;
    if len > 0 && b[0].is_ascii_alphabetic() {
        let mut i = 1;
        while i < len && chars::is(b[i], SCHEME) {
            i += 1;
        }
        if i < len && b[i] == b':' {
            scheme_end = i + 1;
        }
    }
    // ihier-part / irelative-part: "//" iauthority
    let has_authority =
        b.len() >= scheme_end + 2 && b[scheme_end] == b'/' && b[scheme_end + 1] == b'/';
    let (host_start, host_end, path_start) = if has_authority {
        parse_authority(s, scheme_end + 2, grammar)?
    } else {
        (scheme_end, scheme_end, scheme_end)
    };
    let mut i = path_start;
    // ipath: *( ipchar / "/" ), stops at "?" or "#".
    i = scan(s, i, grammar, PATH)?;
    let path_end = i;
    if scheme_end == 0 && !has_authority {
        // ipath-noscheme: the first segment of a relative-path reference has no ":" (RFC 3986 4.2).
        let path = &b[path_start..i];
        let first = memchr::memchr(b'/', path).unwrap_or(path.len());
        if let Some(c) = memchr::memchr(b':', &path[..first]) {
            return Err(err(
                ParseErrorKind::ColonInFirstSegment,
                Component::Path,
                path_start + c,
            ));
        }
    }
    if i < len && b[i] == b'?' {
        // iquery = *( ipchar / iprivate / "/" / "?" )
        i = scan(s, i + 1, grammar, QUERY)?;
    }
    let query_end = i;
    if i < len {
        // b[i] == b'#'; ifragment = *( ipchar / "/" / "?" ), so a second "#" is an error.
        i = scan(s, i + 1, grammar, FRAGMENT)?;
        if i < len {
            return Err(bad_char(s, i, Component::Fragment));
        }
    }
    Ok(Spans {
        scheme_end,
        has_authority,
        host_start,
        host_end,
        path_start,
        path_end,
        query_end,
        len,
    })
}

/// Classes of the scanning fast paths (3987bis 2.2): a byte of a class is accepted by its
/// component's rule on its own (it is in the component's `mask`, and is neither its `stop` byte nor `#`). Bytes
/// >= 0x80, `%` and the delimiters are in no class: they go through the general loop of [`scan`].
const FAST_PATH: u8 = 1; // ipath: unreserved / sub-delims / ":" / "@" / "/"
const FAST_QUERY: u8 = 2; // iquery, ifragment: the same and "?"
const FAST_USERINFO: u8 = 4; // iuserinfo: unreserved / sub-delims / ":"
const FAST_HOST: u8 = 8; // ireg-name: unreserved / sub-delims

/// [`FAST_PATH`] and the other fast classes, for every byte value (one load, no range check).
static FAST: [u8; 256] = {
    let ascii = chars::build();
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let v = ascii[c];
        let plain = v & (UNRESERVED | SUB_DELIM) != 0;
        if plain || c == b':' as usize || c == b'@' as usize || c == b'/' as usize {
            t[c] |= FAST_PATH | FAST_QUERY;
        }
        if c == b'?' as usize {
            t[c] |= FAST_QUERY;
        }
        if plain || c == b':' as usize {
            t[c] |= FAST_USERINFO;
        }
        if plain {
            t[c] |= FAST_HOST;
        }
        c += 1;
    }
    t
};

/// What one component takes (3987bis 2.2) and where it stops: the argument of [`scan`].
#[derive(Clone, Copy)]
struct Class {
    /// The ASCII classes (`chars::ASCII`) it takes.
    mask: u8,
    /// The class of [`FAST`] whose bytes it takes as they are.
    fast: u8,
    /// `iprivate` is allowed (the query only).
    private: bool,
    /// The ASCII byte that ends it besides `#` and the end (0: none).
    stop: u8,
    component: Component,
}

/// ipath: `*( ipchar / "/" )`, up to `?` or `#`.
const PATH: Class = Class {
    mask: PCHAR | SLASH_QMARK,
    fast: FAST_PATH,
    private: false,
    stop: b'?',
    component: Component::Path,
};
/// iquery: `*( ipchar / iprivate / "/" / "?" )`, up to `#`.
const QUERY: Class = Class {
    mask: PCHAR | SLASH_QMARK,
    fast: FAST_QUERY,
    private: true,
    stop: b'#',
    component: Component::Query,
};
/// ifragment: `*( ipchar / "/" / "?" )`, to the end (a second `#` is an error).
const FRAGMENT: Class = Class {
    mask: PCHAR | SLASH_QMARK,
    fast: FAST_QUERY,
    private: false,
    stop: 0,
    component: Component::Fragment,
};
/// iuserinfo: `*( iunreserved / pct-encoded / sub-delims / ":" )`, up to `@`.
const USERINFO: Class = Class {
    mask: UNRESERVED | SUB_DELIM | COLON_AT,
    fast: FAST_USERINFO,
    private: false,
    stop: b'@',
    component: Component::Userinfo,
};
/// ireg-name: `*( iunreserved / pct-encoded / sub-delims )`, up to the port's `:`.
const HOST: Class = Class {
    mask: UNRESERVED | SUB_DELIM,
    fast: FAST_HOST,
    private: false,
    stop: b':',
    component: Component::Host,
};

/// Scans the characters of `class` (its `mask`, `pct-encoded`, and in the IRI grammar `ucschar`,
/// with `iprivate` where it allows it) from `i` up to its `stop` byte, `#`, or the end. In a path, `?` also stops (`mask` has
/// `SLASH_QMARK` for `/` but the path loop stops on `?` before testing the mask).
///
/// `fast` is the class of [`FAST`] whose bytes the component accepts as they are: runs of them
/// are skipped with one table load and one test per byte before the general rules apply.
#[inline(always)]
fn scan(s: &str, mut i: usize, grammar: Grammar, class: Class) -> Result<usize, ParseError> {
    let Class {
        mask,
        fast,
        private,
        stop,
        component,
    } = class;
    let b = s.as_bytes();
    let len = b.len();
    while i < len {
        // Fast path: a run of bytes that the component accepts as they are. (Byte at a time:
        // four-byte and sixteen-byte steps measured slower on the URL benchmark.)
        while i < len && FAST[b[i] as usize] & fast != 0 {
            i += 1;
        }
        if i == len {
            break;
        }
        // `stop` is ASCII, so this is the `c < 0x80` case of the general rule in `scan_step`.
        if b[i] == stop || b[i] == b'#' {
            return Ok(i);
        }
        i = scan_step(s, i, grammar, mask, private, component)?;
    }
    Ok(i)
}

/// One step of [`scan`] at a byte that is not in the fast class, `stop` nor `#`: a byte of `mask`,
/// a `pct-encoded` triplet, or a non-ASCII character; anything else is an error. Out of line, so
/// that the loops of `scan` stay small where it is inlined.
#[inline(never)]
fn scan_step(
    s: &str,
    i: usize,
    grammar: Grammar,
    mask: u8,
    private: bool,
    component: Component,
) -> Result<usize, ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    let c = b[i];
    if c < 0x80 {
        if chars::ASCII[c as usize] & mask != 0 {
            Ok(i + 1)
        } else if c == b'%' {
            if i + 2 < len && chars::is(b[i + 1], HEX) && chars::is(b[i + 2], HEX) {
                Ok(i + 3)
            } else {
                Err(err(ParseErrorKind::InvalidPercentEncoding, component, i))
            }
        } else {
            Err(bad_char(s, i, component))
        }
    } else {
        non_ascii(s, i, grammar, private, component)
    }
}

/// Checks the non-ASCII character at byte `i`: `ucschar`, or `iprivate` where `private` (3987bis
/// 2.2: the query only). Returns the offset after it.
#[inline]
fn non_ascii(
    s: &str,
    i: usize,
    grammar: Grammar,
    private: bool,
    component: Component,
) -> Result<usize, ParseError> {
    if grammar == Grammar::Uri {
        return Err(bad_char(s, i, component));
    }
    let c = s[i..].chars().next().unwrap_or('\0');
    if chars::is_ucschar(c) || (private && chars::is_iprivate(c)) {
        Ok(i + c.len_utf8())
    } else {
        Err(err(ParseErrorKind::InvalidChar(c), component, i))
    }
}

/// iauthority = [ iuserinfo "@" ] ihost [ ":" port ]; returns the start and end of the host and
/// the end of the authority.
fn parse_authority(
    s: &str,
    start: usize,
    grammar: Grammar,
) -> Result<(usize, usize, usize), ParseError> {
    let b = s.as_bytes();
    let len = b.len();
    // Fast path, the common case: an ASCII reg-name without `%`, an optional all-digit port, then
    // "/", "?", "#" or the end. Everything else (userinfo, IP literal, `%`, non-ASCII, errors)
    // takes the general path below, which gives the same result for the inputs taken here.
    let mut h = start;
    while h < len && FAST[b[h] as usize] & FAST_HOST != 0 {
        h += 1;
    }
    let mut e = h;
    if e < len && b[e] == b':' {
        e += 1;
        while e < len && b[e].is_ascii_digit() {
            e += 1;
        }
    }
    if e == len || matches!(b[e], b'/' | b'?' | b'#') {
        return Ok((start, h, e));
    }
    let mut end = start;
    while end < len && !matches!(b[end], b'/' | b'?' | b'#') {
        end += 1;
    }
    let auth = &b[start..end];
    let mut host_start = start;
    if let Some(at) = memchr::memchr(b'@', auth) {
        // iuserinfo = *( iunreserved / pct-form / sub-delims / ":" )
        let ui_end = scan(&s[..start + at], start, grammar, USERINFO)?;
        debug_assert_eq!(ui_end, start + at);
        host_start = start + at + 1;
    }
    let host_end;
    if b.get(host_start) == Some(&b'[') {
        // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        let close = memchr::memchr(b']', &b[host_start..end])
            .map(|p| host_start + p)
            .ok_or(err(
                ParseErrorKind::InvalidIpLiteral,
                Component::Host,
                host_start,
            ))?;
        if !valid_ip_literal(&b[host_start + 1..close]) {
            return Err(err(
                ParseErrorKind::InvalidIpLiteral,
                Component::Host,
                host_start,
            ));
        }
        host_end = close + 1;
        if host_end < end && b[host_end] != b':' {
            return Err(bad_char(s, host_end, Component::Host));
        }
    } else {
        // ireg-name = *( iunreserved / pct-form / sub-delims ), up to the port's ":".
        host_end = scan(&s[..end], host_start, grammar, HOST)?;
        if host_end < end && b[host_end] != b':' {
            return Err(bad_char(s, host_end, Component::Host));
        }
    }
    if host_end < end {
        // port = *DIGIT
        if let Some(p) = b[host_end + 1..end]
            .iter()
            .position(|c| !c.is_ascii_digit())
        {
            return Err(bad_char(s, host_end + 1 + p, Component::Port));
        }
    }
    Ok((host_start, host_end, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fast class is exactly the bytes that the general loop of `scan` takes on their own
    /// for that component: in the mask, neither the stop byte nor "#", ASCII.
    #[test]
    fn fast_classes_are_the_plain_bytes_of_scan() {
        for class in [PATH, QUERY, FRAGMENT, USERINFO, HOST] {
            for c in 0..=255u8 {
                let general = c < 0x80 && c != class.stop && c != b'#' && chars::is(c, class.mask);
                assert_eq!(
                    FAST[c as usize] & class.fast != 0,
                    general,
                    "{}, byte {c:#04x}",
                    class.component
                );
            }
        }
    }
}

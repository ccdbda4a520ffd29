//! The fused general path: the key of a link of the common shape that is *not* already its own
//! key, written in one pass over the unparsed text straight into the output.
//!
//! [`rewrite`] takes an ASCII absolute URI `scheme://reg-name[:port][/path][?query][#fragment]`
//! (no userinfo, no IP literal, no `%` in the host) and does in one pass what the syntax, scheme
//! and protocol rungs do one after the other on an [`IriRef`](crate::IriRef) each
//! ([`super::climb::general`]): lowercase the scheme and host (CMP 4.2.1), uppercase and decode
//! `%HH` (CMP 4.2.1, 4.2.3), remove dot segments (CMP 4.2.4), drop an empty or default port and
//! write an empty path as `/` (CMP 4.3), drop the fragment (CMP 4.4). Anything else (non-ASCII,
//! IDNA, IPv6, userinfo, `file`, crawler rules, text that does not parse) answers `false` and
//! takes the general path, which stays the reference: the fused path must give exactly its key
//! (tested on every URL of the kasztp lists, on every vector and on generated IRIs).

use super::pct::{hex_val, is_unreserved, push_pct};
use super::{KeyForm, NormalizeOptions, Rung, has_rules, redirected};
use crate::chars::{COLON_AT, SCHEME, SUB_DELIM, UNRESERVED};
use crate::input::InputMode;
use crate::resolve::dot_kind;
use crate::scheme_table::{HTTP, HTTPS, SchemeInfo, table_row};

/// Appends the key of `input` read in `mode` with `opts` to `out` and answers `true`, when the
/// fused path covers both: strict or LEIRI input (an ASCII text that parses is its own IRI in
/// both, 3987bis 6.1), the `uri` form, a rung above `string`, no crawler rules (CMP 4.4), and a
/// text of the shape [`rewrite`] takes. The protocol rung's learned redirects (CMP 4.4) apply to
/// the key. Otherwise answers `false`, with `out` as it was.
pub(super) fn key_into(
    input: &str,
    mode: InputMode,
    opts: &NormalizeOptions,
    out: &mut String,
) -> bool {
    if !covers(mode, opts) {
        return false;
    }
    let start = out.len();
    if !rewrite(input, opts.rung, opts.nfc, out) {
        return false;
    }
    if let Some(to) = redirected(&out[start..], opts) {
        out.truncate(start);
        out.push_str(to);
    }
    true
}

/// Whether the fused path may key links read in `mode` with `opts` (then [`rewrite`] decides by
/// the text): strict or LEIRI input, the `uri` form, a rung above `string`, and no crawler rules
/// at the protocol rung (CMP 4.4).
pub(super) fn covers(mode: InputMode, opts: &NormalizeOptions) -> bool {
    mode != InputMode::Web
        && opts.form == KeyForm::Uri
        && opts.rung != Rung::String
        && !(opts.rung == Rung::Protocol && has_rules(opts))
}

/// Appends the `uri` key at `rung` (syntax, scheme or protocol; without crawler rules and
/// redirects) of `input`, read as a strict IRI or a LEIRI (an ASCII text that parses is its own
/// IRI, 3987bis 6.1), to `out`, and answers `true`; or answers `false` with `out` as it was,
/// when the text is not of the shape covered here (see the module documentation). `nfc`: the
/// syntax rung's NFC (CMP 4.2.2), which changes nothing in ASCII text without `%HH` of an
/// octet >= 0x80 (such text answers `false` with `nfc`).
pub(super) fn rewrite(input: &str, rung: Rung, nfc: bool, out: &mut String) -> bool {
    let start = out.len();
    let ok = write(input, rung, nfc, out).is_some();
    if !ok {
        out.truncate(start);
    }
    ok
}

/// The pass of [`rewrite`]; `None` as soon as the text leaves the covered shape (`out` is then
/// cut back by the caller).
///
/// The key is mostly the text itself: `s[run..i]` is text read and found to be its own key, not
/// copied yet; it is copied ([`flush`]) only where the key differs (an edit) and at the end, so
/// that a link with one change costs two copies. At any point, the key written so far is
/// `out` followed by `s[run..i]`.
///
/// Non-ASCII bytes are in no class of [`CLASS`]: a run stops before one, and the text is then
/// left (no delimiter there), so every piece copied starts and ends at an ASCII byte.
#[inline(always)]
fn write(s: &str, rung: Rung, nfc: bool, out: &mut String) -> Option<()> {
    let b = s.as_bytes();
    let len = b.len();
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 3.1), then "//" for an
    // authority; lowercased (CMP 4.2.1, RFC 3986 6.2.2.1).
    let scheme_rung = rung >= Rung::Scheme;
    let mut run = 0;
    let (mut i, info): (usize, Option<&SchemeInfo>) = if b.starts_with(b"https://") {
        (5, scheme_rung.then_some(&HTTPS))
    } else if b.starts_with(b"http://") {
        (4, scheme_rung.then_some(&HTTP))
    } else {
        if !b.first()?.is_ascii_alphabetic() {
            return None;
        }
        let mut i = 1;
        while i < len && CLASS[b[i] as usize] & F_SCHEME != 0 {
            i += 1;
        }
        if b.get(i..i + 3)? != b"://" {
            return None;
        }
        let scheme = &b[..i];
        if scheme.iter().any(u8::is_ascii_uppercase) {
            out.push_str(&s[..i]);
            let s0 = out.len() - i;
            out[s0..].make_ascii_lowercase();
            run = i;
        }
        let info = if !scheme_rung {
            None
        } else if scheme.eq_ignore_ascii_case(b"https") {
            Some(&HTTPS)
        } else if scheme.eq_ignore_ascii_case(b"http") {
            Some(&HTTP)
        } else {
            // RFC 8089: `file` hosts and paths have rules of their own; the general path has
            // them.
            if scheme.eq_ignore_ascii_case(b"file") {
                return None;
            }
            let mut lower = [0u8; 16];
            let lower = lower.get_mut(..scheme.len())?;
            lower.copy_from_slice(scheme);
            lower.make_ascii_lowercase();
            table_row(lower)
        };
        (i, info)
    };
    i += 3;
    // ireg-name = *( iunreserved / sub-delims ) here (RFC 3986 3.2.2), lowercased (CMP 4.2.1).
    // CMP 4.3: a DNS host then goes through IDNA, which gives back a lowercase ASCII host
    // without an `xn--` label as it is; a host with such a label takes the general path. The
    // run loop stops at "-" (not in `F_HOST_RUN`) to look for `xn--` at a label's start.
    let h = i;
    let (mut upper, mut xn_label) = (false, false);
    loop {
        while i < len && CLASS[b[i] as usize] & F_HOST_RUN != 0 {
            i += 1;
        }
        match b.get(i) {
            Some(b'-') => {
                let label_start = i >= h + 2 && (i == h + 2 || b[i - 3] == b'.');
                xn_label |= label_start
                    && b[i - 2..i].eq_ignore_ascii_case(b"xn")
                    && b.get(i + 1) == Some(&b'-');
            }
            Some(c) if c.is_ascii_uppercase() => upper = true,
            _ => break,
        }
        i += 1;
    }
    if xn_label && info.is_some_and(|i| i.dns_host) {
        return None;
    }
    if upper {
        flush(out, s, run, h);
        let h0 = out.len();
        out.push_str(&s[h..i]);
        out[h0..].make_ascii_lowercase();
        run = i;
    }
    // port = *DIGIT (RFC 3986 3.2.3).
    if b.get(i) == Some(&b':') {
        let colon = i;
        i += 1;
        while i < len && b[i].is_ascii_digit() {
            i += 1;
        }
        let port = &b[colon + 1..i];
        if scheme_rung {
            // CMP 4.3, RFC 3986 6.2.3: no leading zeros; an empty or default port goes.
            let z = port.iter().take_while(|&&c| c == b'0').count();
            let keep = match port.len() - z {
                0 if !port.is_empty() => 1,
                n => n,
            };
            let default = info.and_then(|i| i.default_port);
            let drop = keep == 0 || default.is_some_and(|d| is_decimal(&b[i - keep..i], d));
            if drop || keep != port.len() {
                flush(out, s, run, colon);
                if !drop {
                    out.push(':');
                    out.push_str(&s[i - keep..i]);
                }
                run = i;
            }
        }
    }
    // The authority ends at "/", "?", "#" or the end (RFC 3986 3.2); anything else here
    // (userinfo, an IP literal, `%` or a character a host does not take) is not covered.
    if i < len && !matches!(b[i], b'/' | b'?' | b'#') {
        return None;
    }
    // path-abempty = *( "/" segment ) (RFC 3986 3.3). Runs of bytes the key takes as they are
    // ("/" included, "." and "%" not) are skipped with one load each.
    let path = i;
    let p0 = out.len() + (i - run);
    while i < len {
        while i < len && CLASS[b[i] as usize] & F_PATH_RUN != 0 {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        if c != b'.' && c != b'%' {
            if c == b'?' || c == b'#' {
                break;
            }
            return None;
        }
        if b[i - 1] == b'/' {
            // A segment starting with "." or "%": a dot segment (`%2E` is ".", RFC 3986 2.3)
            // goes as RFC 3986 5.2.4 says on a path that starts with "/": a "." alone, a ".."
            // with the segment before it (CMP 4.2.4).
            let end = i + b[i..]
                .iter()
                .position(|c| matches!(c, b'/' | b'?' | b'#'))
                .unwrap_or(len - i);
            let kind = dot_kind(&b[i..end]);
            if kind != 0 {
                flush(out, s, run, i);
                let last = b.get(end) != Some(&b'/');
                out.pop();
                if kind == 2 {
                    let cut = out[p0..].rfind('/').map_or(p0, |k| p0 + k);
                    out.truncate(cut);
                }
                if last {
                    out.push('/');
                }
                i = end;
                run = i;
                continue;
            }
        }
        if c == b'.' {
            i += 1;
        } else {
            (i, run) = escape(s, i, run, nfc, out)?;
        }
    }
    // CMP 4.3: an empty path under an authority is "/" for a scheme of the table.
    if i == path && info.is_some() {
        flush(out, s, run, i);
        out.push('/');
        run = i;
    }
    // query = *( pchar / "/" / "?" ) (RFC 3986 3.4).
    if b.get(i) == Some(&b'?') {
        (i, run) = copy_run(s, i + 1, run, F_QUERY, nfc, out)?;
    }
    // fragment = *( pchar / "/" / "?" ) (RFC 3986 3.5); dropped at the protocol rung (CMP 4.4),
    // where it is still checked, so that only text that parses has a key.
    if b.get(i) == Some(&b'#') {
        if rung == Rung::Protocol {
            flush(out, s, run, i);
            let f0 = out.len();
            (i, _) = copy_run(s, i + 1, i, F_QUERY, nfc, out)?;
            out.truncate(f0);
            run = i;
        } else {
            (i, run) = copy_run(s, i + 1, run, F_QUERY, nfc, out)?;
        }
    }
    if i != len {
        return None;
    }
    flush(out, s, run, len);
    Some(())
}

/// Copies the text `s[run..to]`, which is its own key, to `out`.
#[inline(always)]
fn flush(out: &mut String, s: &str, run: usize, to: usize) {
    out.push_str(&s[run..to]);
}

/// Goes over the run from `i` of bytes in `class` or `%HH` (see [`escape`]), with the copy
/// pending from `run`. Returns where the run stops and where the pending copy starts.
#[inline(always)]
fn copy_run(
    s: &str,
    mut i: usize,
    mut run: usize,
    class: u8,
    nfc: bool,
    out: &mut String,
) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let len = b.len();
    loop {
        while i < len && CLASS[b[i] as usize] & class != 0 {
            i += 1;
        }
        if b.get(i) != Some(&b'%') {
            return Some((i, run));
        }
        (i, run) = escape(s, i, run, nfc, out)?;
    }
}

/// The `%HH` at `s[i..]`, with the syntax rung's percent-encoding (CMP 4.2.1, 4.2.3; RFC 3986
/// 6.2.2.1, 6.2.2.2): hex digits uppercase, an unreserved octet decoded; the copy is pending
/// from `run`. Returns the offset after it and where the pending copy starts. `None` at a `%`
/// that does not start `%HH` (the text does not parse) or, with `nfc`, at `%HH` >= 0x80.
#[inline(always)]
fn escape(s: &str, i: usize, run: usize, nfc: bool, out: &mut String) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let (h, l) = (*b.get(i + 1)?, *b.get(i + 2)?);
    let v = hex_val(h)? << 4 | hex_val(l)?;
    if is_unreserved(v) {
        flush(out, s, run, i);
        out.push(char::from(v));
    } else if nfc && v >= 0x80 {
        return None;
    } else if h.is_ascii_lowercase() || l.is_ascii_lowercase() {
        flush(out, s, run, i);
        push_pct(out, v);
    } else {
        return Some((i + 3, run));
    }
    Some((i + 3, i + 3))
}

/// `digits` (no leading zero, not empty) is the decimal number `d`.
#[inline]
fn is_decimal(digits: &[u8], d: u16) -> bool {
    digits.len() <= 5
        && digits
            .iter()
            .fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'))
            == u32::from(d)
}

/// Classes of [`write`]'s pass.
const F_SCHEME: u8 = 1; // scheme characters after the first (RFC 3986 3.1)
const F_HOST_RUN: u8 = 2; // reg-name characters but `%`, "-" and uppercase (RFC 3986 3.2.2)
const F_PATH_RUN: u8 = 4; // pchar but `%` and ".", and "/" (RFC 3986 3.3)
const F_QUERY: u8 = 8; // pchar but `%`, and "/" "?" (RFC 3986 3.4, 3.5)

/// The classes of [`write`] for every byte value (non-ASCII bytes are in none).
static CLASS: [u8; 256] = {
    let ascii = crate::chars::build();
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let v = ascii[c];
        if v & SCHEME != 0 {
            t[c] |= F_SCHEME;
        }
        if v & (UNRESERVED | SUB_DELIM) != 0
            && c != b'-' as usize
            && !(c as u8).is_ascii_uppercase()
        {
            t[c] |= F_HOST_RUN;
        }
        if v & (UNRESERVED | SUB_DELIM | COLON_AT) != 0 || c == b'/' as usize {
            t[c] |= F_QUERY;
            if c != b'.' as usize {
                t[c] |= F_PATH_RUN;
            }
        }
        if c == b'?' as usize {
            t[c] |= F_QUERY;
        }
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests;

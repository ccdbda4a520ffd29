//! The fast path: an input that is already its own key (or is one but for an upper-case scheme
//! or host, or an empty path) is proven so in one pass over its bytes and copied once; a path
//! that needs work is handed to the full path's writer, the rest still copied. Anything it
//! cannot prove is left to the full path ([`super::canonicalize_full`]), which gives the same
//! key; the tests in `fast_tests.rs` hold the two together.
//!
//! What it accepts, in w3lib's terms (`docs/profiles/w3lib.md`, rules 1 to 11):
//!
//! - `http://` or `https://`, in any case (lower-cased on the copy, as `_urlsplit` lowers the
//!   scheme): `_strip` and the backslash rule change nothing when every byte kept is one of the
//!   sets below (no control, space, tab or `\`).
//! - a host of unreserved ASCII characters (lower-cased on the copy) and an optional port of
//!   one to five digits without a leading zero, at most 65535: no userinfo, brackets, `%` or IDNA.
//! - a path that starts with `/` (or is empty: it becomes `/`) of `_PATH_SAFE_CHARS` bytes but
//!   `%` and `;`, with no `.` or `..` segment: copied. Any other path of printable ASCII but
//!   `\` (an escape, `;params`, a dot segment) is written by the full path's own writer
//!   ([`super::push_path`]), the rest of the input still read here.
//! - a query of fields `key=value` (exactly one `=`, a value empty only under
//!   `keep_blank_values`), each byte unreserved, `+`, or an upper-case escape `%XX` of a byte
//!   that `_urlencode` escapes (not unreserved, not a space), the fields already in the order of
//!   their unquoted `(key, value)` bytes; an ASCII-compatible encoding.
//!   A query of other printable ASCII bytes (not `\`) is not copied but written as the full path
//!   writes it ([`query::push`]: the fields split, sorted and form-encoded): under an
//!   ASCII-compatible encoding, the full path's query is these same bytes.
//! - a fragment: dropped (any ASCII), or under `keep_fragments` not empty and all
//!   `_PATH_SAFEST_CHARS`.

use super::super::ProfileOptions;
use super::hex_value;
use super::query::{self, cmp_unquoted};
use std::cmp::Ordering;

/// Unreserved ASCII: a host byte and a query byte.
const UNRES: u8 = 1;
/// `_PATH_SAFE_CHARS` but `%`: a path byte.
const PATH: u8 = 2;
/// `_PATH_SAFEST_CHARS` but `%`: a params byte.
const PARAM: u8 = 4;
/// An ASCII upper-case letter.
const UPPER: u8 = 8;
/// A path byte that needs no look but for dot segments: `_PATH_SAFE_CHARS` but `%`, `;`, `?`.
const PLAIN: u8 = 32;

/// The classes of each byte.
const CLASS: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let unres = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
    let mut i = 0;
    while i < unres.len() {
        t[unres[i] as usize] |= UNRES | PATH | PARAM;
        i += 1;
    }
    let safest = b":/?@!$&'()*+,;=";
    i = 0;
    while i < safest.len() {
        t[safest[i] as usize] |= PATH | PARAM;
        i += 1;
    }
    t[b'[' as usize] |= PATH;
    t[b']' as usize] |= PATH;
    t[b'|' as usize] |= PATH;
    i = 0;
    while i < 256 {
        if t[i] & PATH != 0 && i != b';' as usize && i != b'?' as usize {
            t[i] |= PLAIN;
        }
        i += 1;
    }
    let mut c = b'A';
    while c <= b'Z' {
        t[c as usize] |= UPPER;
        c += 1;
    }
    t
}

/// Where the key's pieces lie in the input.
struct Plan {
    /// The end of the host (the start of `:port` or the path).
    host_end: usize,
    /// Whether the scheme or the host has an upper-case letter.
    upper: bool,
    /// Where the path starts (the end of the netloc).
    path_start: usize,
    /// Whether the path is empty (a `/` goes in).
    empty_path: bool,
    /// The end of the key in the input.
    end: usize,
    /// The query (after `?`, up to `#` or the end), where it is not its own key and is
    /// written as the full path writes it.
    requery: Option<(usize, usize)>,
    /// The end of the path, where it is not its own key (an escape to decode or to write in
    /// upper case, a dot segment, params) and is written as the full path writes it.
    repath: Option<usize>,
}

/// The start of the host: after `http://` or `https://` in any case; and whether the scheme
/// has an upper-case letter.
#[inline]
fn host_start(input: &[u8]) -> Option<(usize, bool)> {
    // the first eight bytes as one word: `http://` and one byte, or `https://`; `| 0x20` on a
    // letter's byte gives its lower case, and gives `h`, `t`, `p` or `s` from no other byte
    const HTTP: u64 = u64::from_le_bytes(*b"http://\0");
    const HTTPS: u64 = u64::from_le_bytes(*b"https://");
    const SEVEN: u64 = 0x00ff_ffff_ffff_ffff;
    const HTTP_LETTERS: u64 = 0x2020_2020;
    const HTTPS_LETTERS: u64 = 0x20_2020_2020;
    let w = u64::from_le_bytes(*input.first_chunk::<8>()?);
    if (w | HTTP_LETTERS) & SEVEN == HTTP {
        Some((7, w & SEVEN != HTTP))
    } else if w | HTTPS_LETTERS == HTTPS {
        Some((8, w != HTTPS))
    } else {
        None
    }
}

/// Appends the key of `input` and answers true where the fast path can prove it; leaves `out`
/// alone and answers false otherwise.
pub(super) fn try_push(input: &[u8], o: &ProfileOptions, out: &mut String) -> bool {
    let Some(p) = plan(input, o) else {
        return false;
    };
    // every byte the plan accepts is ASCII: the check cannot fail, and is made once
    let Ok(text) = std::str::from_utf8(&input[..p.end]) else {
        return false;
    };
    push_plan(&p, text, o, out);
    true
}

/// [`try_push`] for text: the input is already known to be UTF-8, so the common case (an input
/// that is its own key) is one copy without a UTF-8 check.
pub(super) fn try_push_str(input: &str, o: &ProfileOptions, out: &mut String) -> bool {
    let Some(p) = plan(input.as_bytes(), o) else {
        return false;
    };
    // every byte the plan accepts is ASCII, so `p.end` is a character boundary
    let Some(text) = input.get(..p.end) else {
        return false;
    };
    if !p.upper && !p.empty_path && p.requery.is_none() && p.repath.is_none() {
        out.push_str(text);
    } else {
        push_plan(&p, text, o, out);
    }
    true
}

/// Appends the key that plan `p` of `input` (up to the plan's end, all ASCII) describes.
fn push_plan(p: &Plan, input: &str, o: &ProfileOptions, out: &mut String) {
    // up to the query written again, or to the end
    let head_end = p.requery.map_or(p.end, |(start, _)| start - 1);
    match p.repath {
        None => push_head(p, head_end, input, out),
        Some(path_end) => {
            push_head(p, p.path_start, input, out);
            super::push_path(&input[p.path_start..path_end], true, out);
            out.push_str(&input[path_end..head_end]);
        }
    }
    if let Some((start, end)) = p.requery {
        query::push(&input.as_bytes()[start..end], o, out);
        out.push_str(&input[end..p.end]);
    }
}

/// Appends the key of `input[..end]`, as plan `p` describes it.
fn push_head(p: &Plan, end: usize, input: &str, out: &mut String) {
    if !p.upper && !p.empty_path {
        out.push_str(&input[..end]);
        return;
    }
    let at = out.len();
    out.push_str(&input[..p.path_start]);
    if p.upper {
        // the scheme, `://` and the host
        out[at..at + p.host_end].make_ascii_lowercase();
    }
    if p.empty_path {
        out.push('/');
    }
    out.push_str(&input[p.path_start..end]);
}

/// The plan of an input the fast path accepts.
#[inline(always)]
fn plan(b: &[u8], o: &ProfileOptions) -> Option<Plan> {
    let sep = o.query_separator;
    if !(o.encoding == encoding_rs::UTF_8 || o.encoding.is_ascii_compatible())
        || !sep.is_ascii()
        || CLASS[usize::from(sep)] & UNRES != 0
        || matches!(sep, b'+' | b'%' | b'=' | b'#')
    {
        return None;
    }
    let n = b.len();
    let (mut i, scheme_upper) = host_start(b)?;
    let start = i;
    // Eight bytes at a time while they are letters, digits, `-` or `.` (noting an upper-case
    // letter); then byte by byte from the first other byte (the end of the host, or `_`, `~`).
    let mut upper = if scheme_upper { UPPER } else { 0 };
    while let Some(chunk) = b.get(i..i + 8) {
        let w = word(chunk);
        let capitals = in_range(w, b'A', b'Z');
        let good = host_bytes(w) | capitals;
        if good != HIGH {
            let bad = !good & HIGH;
            // the capitals before the first other byte
            if capitals & ((bad & bad.wrapping_neg()) - 1) != 0 {
                upper = UPPER;
            }
            i += bad.trailing_zeros() as usize / 8;
            break;
        }
        if capitals != 0 {
            upper = UPPER;
        }
        i += 8;
    }
    while i < n && CLASS[usize::from(b[i])] & UNRES != 0 {
        upper |= CLASS[usize::from(b[i])];
        i += 1;
    }
    if i == start {
        return None;
    }
    let host_end = i;
    if b.get(i) == Some(&b':') {
        i += 1;
        let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let port = &b[i..i + digits];
        // at most five digits before the value is computed: a longer port would overflow
        if !(1..=5).contains(&digits) || port[0] == b'0' {
            return None;
        }
        let value = port.iter().fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'));
        if value > 65535 {
            return None;
        }
        i += digits;
    }
    let path_start = i;
    let mut repath = None;
    i = match path(b, i) {
        // its own key up to the query, the fragment or the end
        Ok(end) if b.get(end).is_none_or(|&c| c == b'?' || c == b'#') => end,
        // a path to write again, or a byte no path holds (the full path's then)
        Ok(plain) | Err(plain) => {
            let end = rewritten_path(b, i, plain)?;
            repath = Some(end);
            end
        }
    };
    let empty_path = i == path_start;
    let mut requery = None;
    if b.get(i) == Some(&b'?') {
        i = match query(b, i + 1, o) {
            Some(end) => end,
            None => {
                let q = i + 1;
                let end = b[q..]
                    .iter()
                    .position(|&c| !is_query_byte(c))
                    .map_or(n, |k| q + k);
                requery = Some((q, end));
                end
            }
        };
    }
    let end = if i == n {
        n
    } else if b[i] != b'#' {
        return None;
    } else {
        fragment(&b[i + 1..], o.keep_fragments)?.map_or(i, |()| n)
    };
    Some(Plan {
        host_end,
        upper: upper & UPPER != 0,
        path_start,
        empty_path,
        end,
        requery,
        repath,
    })
}

/// The end of a path that starts at `i` with `/` and is not its own key, where the full path
/// would write it from the same bytes: printable ASCII but `\` (no byte that `_strip` or the
/// backslash rule would change), up to `?`, `#` or the end (`_urlsplit`'s split). The full
/// path's own writer then writes it ([`super::push_path`]). The bytes before `plain` are
/// already known to be plain path bytes.
fn rewritten_path(b: &[u8], i: usize, plain: usize) -> Option<usize> {
    if b.get(i) != Some(&b'/') {
        return None;
    }
    let end = memchr::memchr2(b'?', b'#', &b[plain..]).map_or(b.len(), |k| plain + k);
    b[plain..end]
        .iter()
        .all(|&c| is_printable(c))
        .then_some(end)
}

/// The end of the path that starts at `i` (at `?`, `#` or the end of the input, or at a byte
/// no path holds), if the path is plain: no escape, no `;`, no dot segment. For one that is
/// not, `Err` with where the plain bytes from `i` end ([`rewritten_path`] then).
#[inline(always)]
fn path(b: &[u8], i: usize) -> Result<usize, usize> {
    let n = b.len();
    if i < n && b[i] != b'/' && b[i] != b'?' && b[i] != b'#' {
        return Err(i);
    }
    // The common path: plain bytes only, no "/." anywhere (so no dot segment). Eight bytes at
    // a time while they are all plain, then byte by byte.
    let (mut k, mut carry, mut dots_after_slash) = (i, 0u64, 0u64);
    while let Some(chunk) = b.get(k..).and_then(<[u8]>::first_chunk::<8>) {
        if !all_plain(chunk) {
            break;
        }
        let w = u64::from_le_bytes(*chunk);
        let (slashes, dots) = (zero_bytes(w ^ SLASHES), zero_bytes(w ^ DOTS));
        dots_after_slash |= ((slashes << 8) | carry) & dots;
        carry = slashes >> 56;
        k += 8;
    }
    let mut dot = dots_after_slash != 0;
    // Fewer than eight bytes left: where the last eight bytes of the input are all plain, the
    // path runs to the end. Those before `k` are the path so far or the scheme, host and port
    // (all plain), so the pairs in them and across `k` are all looked at; a "/." before `i` (a
    // host after "//" that starts with ".") only sends the path to the exact check.
    if let Some(last) = b
        .get(n.wrapping_sub(8)..)
        .and_then(<[u8]>::first_chunk::<8>)
        && k < n
        && n - k < 8
        && all_plain(last)
    {
        let w = u64::from_le_bytes(*last);
        let dots = (zero_bytes(w ^ SLASHES) << 8) & zero_bytes(w ^ DOTS);
        if dot || dots != 0 {
            return Err(n);
        }
        return Ok(n);
    }
    let mut slash = carry != 0;
    while k < n {
        let c = b[k];
        if CLASS[usize::from(c)] & PLAIN == 0 {
            break;
        }
        dot |= slash & (c == b'.');
        slash = c == b'/';
        k += 1;
    }
    if dot || (k < n && matches!(b[k], b'%' | b';')) {
        return Err(k);
    }
    Ok(k)
}

/// Whether every byte of `chunk` is plain.
#[inline(always)]
fn all_plain(chunk: &[u8]) -> bool {
    chunk.iter().fold(PLAIN, |a, &c| a & CLASS[usize::from(c)]) != 0
}

/// `/` in every byte.
const SLASHES: u64 = 0x2f2f_2f2f_2f2f_2f2f;
/// `.` in every byte.
const DOTS: u64 = 0x2e2e_2e2e_2e2e_2e2e;

/// `0x80` in every byte.
const HIGH: u64 = 0x8080_8080_8080_8080;
/// `0x01` in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Eight bytes as a little-endian word (the first byte lowest).
fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]))
}

/// `0x80` in each byte of `w` in `lo..=hi` (`hi` below `0x80`), exact in every byte below the
/// first one of `0x80` or more.
fn in_range(w: u64, lo: u8, hi: u8) -> u64 {
    let ge = w.wrapping_add(ONES * u64::from(0x80 - lo));
    let gt = w.wrapping_add(ONES * u64::from(0x7f - hi));
    ge & !gt & !w & HIGH
}

/// `0x80` in each byte of `w` that is a lower-case letter, a digit, `-` or `.` (exact up to
/// the first other byte).
fn host_bytes(w: u64) -> u64 {
    in_range(w, b'a', b'z') | in_range(w, b'0', b'9') | in_range(w, b'-', b'.')
}

/// `0x80` in each byte of `x` that is zero, `0` in the others (exact, no carries between
/// bytes).
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Whether `_PATH_SAFEST_CHARS` keeps `c` (`%` included).
fn is_safest(c: u8) -> bool {
    c == b'%' || CLASS[usize::from(c)] & PARAM != 0
}

/// The end of the query that starts at `i` (at `#` or the end of the input), if the query is
/// its own key.
fn query(b: &[u8], mut i: usize, o: &ProfileOptions) -> Option<usize> {
    let n = b.len();
    let sep = o.query_separator;
    let mut prev: Option<(&[u8], &[u8])> = None;
    loop {
        let start = i;
        let mut eq = usize::MAX;
        while i < n {
            let c = b[i];
            if CLASS[usize::from(c)] & UNRES != 0 || c == b'+' {
                i += 1;
            } else if c == b'%' && written_escape(b, i) {
                i += 3;
            } else if c == b'=' && eq == usize::MAX {
                eq = i;
                i += 1;
            } else {
                break;
            }
        }
        // A field without "=", an empty field, or a blank value dropped: not its own key.
        if eq == usize::MAX || (eq + 1 == i && !o.keep_blank_values) {
            return None;
        }
        let pair = (&b[start..eq], &b[eq + 1..i]);
        if let Some(p) = prev {
            let order = cmp_unquoted(p.0, pair.0).then_with(|| cmp_unquoted(p.1, pair.1));
            if order == Ordering::Greater {
                return None;
            }
        }
        prev = Some(pair);
        if i < n && b[i] == sep {
            i += 1;
            continue;
        }
        return (i == n || b[i] == b'#').then_some(i);
    }
}

/// Whether the full path takes `c` into the query as it is (printable ASCII, not `\`), and
/// [`query::push`] writes it (`#` ends the query).
fn is_query_byte(c: u8) -> bool {
    is_printable(c) && c != b'#'
}

/// Printable ASCII but `\`: a byte that neither `_strip` nor the backslash rule changes.
fn is_printable(c: u8) -> bool {
    (b'!'..=b'~').contains(&c) && c != b'\\'
}

/// Whether `b[i..]` starts with `%XY` (upper-case hex) of a byte that `_urlencode` writes so:
/// not unreserved, not a space.
fn written_escape(b: &[u8], i: usize) -> bool {
    let Some(&[hi, lo]) = b.get(i + 1..i + 3) else {
        return false;
    };
    let upper_hex = |c: u8| c.is_ascii_digit() || (b'A'..=b'F').contains(&c);
    if !upper_hex(hi) || !upper_hex(lo) {
        return false;
    }
    let v = hex_value(hi).unwrap_or(0) << 4 | hex_value(lo).unwrap_or(0);
    v != b' ' && CLASS[usize::from(v)] & UNRES == 0
}

/// The fragment's fate: `Some(Some(()))` kept, `Some(None)` dropped, `None` not provable.
fn fragment(f: &[u8], keep: bool) -> Option<Option<()>> {
    if !keep {
        return f.is_ascii().then_some(None);
    }
    if f.is_empty() {
        return Some(None);
    }
    f.iter().all(|&c| is_safest(c)).then_some(Some(()))
}

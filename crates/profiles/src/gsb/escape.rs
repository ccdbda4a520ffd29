//! Percent-decoding and -encoding as Safe Browsing does them (v4 "URLs and Hashing",
//! Canonicalization: "repeatedly percent-unescape the URL", then "percent-escape all characters
//! that are <= ASCII 32, >= 127, "#", or "%". The escapes should use uppercase hex
//! characters"), shared by the `gsb` profile (as the Go client's `unescape`,
//! `recursiveUnescape`, `escape` in `urls.go` read it, but in upper-case hex) and the `surt-ia`
//! profile (the `surt` package's `unescapeRepeatedly` and `escapeOnce` in
//! `GoogleURLCanonicalizer.py`, a port of the same rules).
//!
//! Both decode every `%XX` with two hex digits (either case) and leave any other `%` alone, and
//! both encode exactly the same bytes: the C0 controls, space, `#`, `%` and every byte from
//! 0x7F up, in upper-case hex. They differ in how often they decode (Go gives up after 1024
//! rounds).

/// The value of an ASCII hex digit.
fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The byte `%XX` at `i` stands for, if `s[i..]` starts with one.
pub(crate) fn pct_at(s: &[u8], i: usize) -> Option<u8> {
    if s.get(i) != Some(&b'%') {
        return None;
    }
    let h = hex(*s.get(i + 1)?)?;
    let l = hex(*s.get(i + 2)?)?;
    Some(h << 4 | l)
}

/// Whether `s` holds a `%XX` that decoding would change.
pub(crate) fn has_escape(s: &[u8]) -> bool {
    memchr::memchr_iter(b'%', s).any(|i| pct_at(s, i).is_some())
}

/// One round of decoding (Go `unescape`, Python `unquote_to_bytes`), `src` into `dst`.
pub(crate) fn unescape_once(src: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    let mut i = 0;
    while i < src.len() {
        match pct_at(src, i) {
            Some(b) => {
                dst.push(b);
                i += 3;
            }
            None => {
                dst.push(src[i]);
                i += 1;
            }
        }
    }
}

/// Decodes `buf` until a round changes nothing; `max_rounds` bounds the rounds that change
/// something (`None` when it would take more: Go's "unescaping is too recursive"). `scratch`
/// is reused between rounds.
pub(crate) fn unescape_repeatedly(
    buf: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    max_rounds: Option<usize>,
) -> Option<()> {
    let mut rounds = 0;
    while has_escape(buf) {
        if max_rounds.is_some_and(|m| rounds >= m) {
            return None;
        }
        unescape_once(buf, scratch);
        std::mem::swap(buf, scratch);
        rounds += 1;
    }
    Some(())
}

/// Whether the shared rule encodes `b`.
#[inline]
pub(crate) fn needs_escape(b: u8) -> bool {
    b <= b' ' || b >= 0x7f || b == b'#' || b == b'%'
}

/// Appends `s` to `out`, encoding the bytes of [`needs_escape`] as `%XX` in upper-case hex.
pub(crate) fn escape_into(s: &[u8], out: &mut Vec<u8>) {
    let digits = b"0123456789ABCDEF";
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        if needs_escape(b) {
            out.extend_from_slice(&s[start..i]);
            out.extend_from_slice(&[
                b'%',
                digits[usize::from(b >> 4)],
                digits[usize::from(b & 15)],
            ]);
            start = i + 1;
        }
    }
    out.extend_from_slice(&s[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_and_encode() {
        let mut b = b"%2525%41%zz%4".to_vec();
        let mut s = Vec::new();
        unescape_repeatedly(&mut b, &mut s, None).unwrap();
        assert_eq!(b, b"%A%zz%4");
        let mut b = b"%252525".to_vec();
        assert!(unescape_repeatedly(&mut b, &mut s, Some(2)).is_none());
        let mut out = Vec::new();
        escape_into(b"a b#%\x7f\xff~", &mut out);
        assert_eq!(out, b"a%20b%23%25%7F%FF~");
    }
}

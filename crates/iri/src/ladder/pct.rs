//! Percent-encoding helpers of the ladder. Kept here (not shared with `chars`) so that the
//! ladder depends only on the public behaviour of the parser.

/// Uppercase hex digits (CMP 4.2.1: "normalized to use uppercase letters for the digits A-F").
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Value of an ASCII hex digit.
#[inline]
pub(super) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The octet of the `%HH` at `b[i..]`, if there is one.
#[inline]
pub(super) fn pct_at(b: &[u8], i: usize) -> Option<u8> {
    if b.get(i) != Some(&b'%') {
        return None;
    }
    Some(hex_val(*b.get(i + 1)?)? << 4 | hex_val(*b.get(i + 2)?)?)
}

/// `unreserved` (RFC 3986 2.3): `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
#[inline]
pub(super) fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// `sub-delims` (RFC 3986 2.2).
#[inline]
pub(super) fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Appends `%HH` (uppercase) for `b`.
#[inline]
pub(super) fn push_pct(out: &mut String, b: u8) {
    out.push('%');
    out.push(HEX[usize::from(b >> 4)] as char);
    out.push(HEX[usize::from(b & 15)] as char);
}

/// Appends `text` with the syntax rung's percent-encoding (CMP 4.2.1, 4.2.3): every byte of a
/// non-ASCII character as `%HH` of its UTF-8 (3987bis 3.3: the IRI and URI forms are aligned by
/// mapping to the URI form), hex digits uppercase, `%HH` of an unreserved character decoded
/// (RFC 3986 2.3, 6.2.2.2). Reserved characters, `%25`, and octets >= 0x80 stay encoded. With
/// `lower`, ASCII letters outside `%HH` (decoded ones included) are lowercased.
pub(super) fn push_normal(out: &mut String, text: &str, lower: bool) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%'
            && let Some(v) = pct_at(b, i)
        {
            out.push_str(&text[run..i]);
            if is_unreserved(v) {
                out.push(if lower { v.to_ascii_lowercase() } else { v } as char);
            } else {
                push_pct(out, v);
            }
            i += 3;
            run = i;
        } else if c >= 0x80 {
            // `i` is at the start of a character (the loop steps over whole characters): encode
            // its UTF-8 octets.
            out.push_str(&text[run..i]);
            let len = match c {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
            for &o in &b[i..(i + len).min(b.len())] {
                push_pct(out, o);
            }
            i += len;
            run = i;
        } else if lower && c.is_ascii_uppercase() {
            out.push_str(&text[run..i]);
            out.push(c.to_ascii_lowercase() as char);
            i += 1;
            run = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[run..]);
}

/// True when the host is US-ASCII only (CMP 4.2.1): no non-ASCII character and no `%HH` of an
/// octet >= 0x80. Only such hosts are lowercased by the syntax rung; others wait for IDNA at the
/// scheme rung (CMP 4.2.1: case of non-ASCII host names is IDNA's business).
pub(super) fn ascii_only_host(text: &str) -> bool {
    let b = text.as_bytes();
    !b.iter()
        .enumerate()
        .any(|(i, &c)| c >= 0x80 || pct_at(b, i).is_some_and(|v| v >= 0x80))
}

/// Decodes every `%HH`; `None` when the octets are not UTF-8.
pub(super) fn decode_utf8(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if let Some(v) = pct_at(b, i) {
            bytes.push(v);
            i += 3;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str, lower: bool) -> String {
        let mut out = String::new();
        push_normal(&mut out, s, lower);
        out
    }

    #[test]
    fn normal_form() {
        assert_eq!(norm("%7e%41%2f%2F%25é", false), "~A%2F%2F%25%C3%A9");
        assert_eq!(norm("ABC%4A%c3%a9", true), "abcj%C3%A9");
        assert_eq!(norm("%FC", false), "%FC");
        assert!(ascii_only_host("EXAMPLE%2Ecom"));
        assert!(!ascii_only_host("r%C3%A9sum%C3%A9"));
        assert!(!ascii_only_host("résumé"));
        assert_eq!(decode_utf8("r%C3%A9").as_deref(), Some("ré"));
        assert_eq!(decode_utf8("%FC"), None);
    }
}

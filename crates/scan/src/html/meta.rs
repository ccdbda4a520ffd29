//! What `<meta>` says: the URL of a refresh, and the document's character encoding.

use std::ops::Range;

use crate::Encoding;

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_ws(s[i]) {
        i += 1;
    }
    i
}

/// The URL of `<meta http-equiv=refresh content="...">`, as a byte range of `content` (the
/// decoded attribute value), by HTML's "shared declarative refresh steps": a time, then `;` or
/// `,` or whitespace, then the URL, bare or after `url=`, in quotes or not. `None` where the
/// content is malformed or names no URL (a refresh of the document itself). Trailing ASCII
/// whitespace is not part of the range (the URL parser would strip it).
///
/// ```
/// use linksieve_scan::html::refresh_url;
/// let url = |c: &str| refresh_url(c).map(|r| c[r].to_string());
/// assert_eq!(url("5; url='/next?a=1'"), Some("/next?a=1".into()));
/// assert_eq!(url("0;URL = \"x.html\" trailing"), Some("x.html".into()));
/// assert_eq!(url("3, http://example.com/ "), Some("http://example.com/".into()));
/// assert_eq!(url("0.5"), None);
/// assert_eq!(url("soon; url=x"), None);
/// ```
pub fn refresh_url(content: &str) -> Option<Range<usize>> {
    let s = content.as_bytes();
    let mut i = skip_ws(s, 0);
    let digits = s[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 && s.get(i) != Some(&b'.') {
        return None;
    }
    i += digits;
    i += s[i..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    if i < s.len() {
        if !(s[i] == b';' || s[i] == b',' || is_ws(s[i])) {
            return None;
        }
        i = skip_ws(s, i);
        if i < s.len() && (s[i] == b';' || s[i] == b',') {
            i += 1;
        }
        i = skip_ws(s, i);
    }
    if i >= s.len() {
        return None;
    }
    let rest = i;
    let mut quote = None;
    // `url` `=`, each step optional in the way HTML says: a missing `u` goes on to the quotes,
    // a missing `r`, `l` or `=` takes the rest as the URL
    let url_eq = (|| {
        let mut j = i;
        if !s.get(j)?.eq_ignore_ascii_case(&b'u') {
            return Some(j);
        }
        j += 1;
        if !s.get(j)?.eq_ignore_ascii_case(&b'r') || !s.get(j + 1)?.eq_ignore_ascii_case(&b'l') {
            return None;
        }
        j = skip_ws(s, j + 2);
        if s.get(j) != Some(&b'=') {
            return None;
        }
        Some(skip_ws(s, j + 1))
    })();
    let (mut start, mut end) = (rest, s.len());
    if let Some(j) = url_eq {
        start = j;
        if let Some(&q @ (b'"' | b'\'')) = s.get(j) {
            quote = Some(q);
            start = j + 1;
        }
    }
    if let Some(q) = quote
        && let Some(k) = memchr::memchr(q, &s[start..])
    {
        end = start + k;
    }
    while end > start && is_ws(s[end - 1]) {
        end -= 1;
    }
    // a quote that opens nothing leaves an empty URL: the document itself
    (start < end).then_some(start..end)
}

/// The encoding named by the `content` of `<meta http-equiv=content-type>`, as a byte range
/// of `content` (HTML "algorithm for extracting a character encoding from a meta element":
/// `charset`, `=`, a value in quotes or up to whitespace or `;`).
///
/// ```
/// use linksieve_scan::html::charset_in_content;
/// let c = "text/html; charset=\"ISO-8859-1\"";
/// assert_eq!(charset_in_content(c).map(|r| &c[r]), Some("ISO-8859-1"));
/// let c = "text/html;CHARSET = utf-8 ; x";
/// assert_eq!(charset_in_content(c).map(|r| &c[r]), Some("utf-8"));
/// assert_eq!(charset_in_content("text/html; charset='utf-8"), None);
/// ```
pub fn charset_in_content(content: &str) -> Option<Range<usize>> {
    let s = content.as_bytes();
    let mut from = 0;
    loop {
        let at = s[from..]
            .windows(7)
            .position(|w| w.eq_ignore_ascii_case(b"charset"))?
            + from
            + 7;
        let i = skip_ws(s, at);
        if s.get(i) != Some(&b'=') {
            from = i;
            continue;
        }
        let i = skip_ws(s, i + 1);
        return match s.get(i) {
            None => None,
            Some(&q @ (b'"' | b'\'')) => {
                let k = memchr::memchr(q, &s[i + 1..])?;
                Some(i + 1..i + 1 + k)
            }
            Some(_) => {
                let n = s[i..]
                    .iter()
                    .take_while(|&&b| !is_ws(b) && b != b';')
                    .count();
                Some(i..i + n)
            }
        };
    }
}

/// HTML "get an encoding" for a `<meta>` label, with the changes the parser makes to what a
/// document may declare: UTF-16 labels mean UTF-8, `x-user-defined` means windows-1252.
pub(super) fn meta_encoding(label: &str) -> Option<&'static Encoding> {
    let e = Encoding::for_label(label.as_bytes())?;
    Some(
        if e == encoding_rs::UTF_16BE || e == encoding_rs::UTF_16LE {
            encoding_rs::UTF_8
        } else if e == encoding_rs::X_USER_DEFINED {
            encoding_rs::WINDOWS_1252
        } else {
            e
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(c: &str) -> Option<&str> {
        refresh_url(c).map(|r| &c[r])
    }

    #[test]
    fn refresh_forms() {
        assert_eq!(url("5;url=http://x/"), Some("http://x/"));
        assert_eq!(url("  5 ; URL=http://x/"), Some("http://x/"));
        assert_eq!(url("5,url=x"), Some("x"));
        assert_eq!(url("5 url=x"), Some("x"));
        assert_eq!(url("5;url='x'y"), Some("x"));
        assert_eq!(url("5;url=\"x"), Some("x"));
        assert_eq!(url("5;url = 'x'"), Some("x"));
        assert_eq!(url("5;'x'"), Some("x"));
        assert_eq!(url("5;ux"), Some("ux"));
        assert_eq!(url("5;urx"), Some("urx"));
        assert_eq!(url("5;url x"), Some("url x"));
        assert_eq!(url("5;x y "), Some("x y"));
        assert_eq!(url(".5;x"), Some("x"));
        assert_eq!(url("1.5.2;x"), Some("x"));
        assert_eq!(url("5x"), None);
        assert_eq!(url("5;"), None);
        assert_eq!(url("5"), None);
        assert_eq!(url(""), None);
        assert_eq!(url("5;url=''"), None);
        assert_eq!(url("5;u"), Some("u"));
        assert_eq!(url("5;url"), Some("url"));
    }

    #[test]
    fn charset() {
        let cs = |c: &str| charset_in_content(c).map(|r| c[r].to_string());
        assert_eq!(cs("text/html; charset=utf-8").as_deref(), Some("utf-8"));
        assert_eq!(cs("charsetcharset=x").as_deref(), Some("x"));
        assert_eq!(cs("charset x; charset=y").as_deref(), Some("y"));
        assert_eq!(cs("charset="), None);
        assert_eq!(cs("charset"), None);
        assert_eq!(cs("text/html"), None);
        assert_eq!(meta_encoding("utf-16le"), Some(encoding_rs::UTF_8));
        assert_eq!(meta_encoding(" latin1 "), Some(encoding_rs::WINDOWS_1252));
        assert_eq!(
            meta_encoding("x-user-defined"),
            Some(encoding_rs::WINDOWS_1252)
        );
        assert_eq!(meta_encoding("nonsense"), None);
    }
}

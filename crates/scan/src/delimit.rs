//! Where a link that starts a string ends, by the boundary table alone (`boundary.rs`): for
//! text that was changed after it was found, such as a link whose HTML character references
//! were decoded (`--html`), so that it ends where it would have ended had the text been
//! decoded first.

use crate::boundary::{Class, PAIRS, class, spaceless_script};

/// The length of the link at the start of `text`: up to the first character that ends a link
/// (whitespace, a stop character such as `"` `<` `>`, a bidi formatting character, U+200B,
/// a `,` right before `scheme://`,
/// typographic quotes, an unbalanced closing bracket, a private-use character outside the
/// query, Han/Kana/Hangul text glued after an ASCII word of an all-ASCII link), then with
/// trailing punctuation, an unbalanced `'` and opening brackets trimmed: the rules of the
/// scanner's boundary table (see the crate README). With `ascii_only` every non-ASCII
/// character ends the link.
///
/// ```
/// use linksieve_scan::link_end;
/// let t = "http://ex.com/a'";
/// assert_eq!(&t[..link_end(t, false)], "http://ex.com/a");
/// let t = "http://ex.com/b\u{202E}evil";
/// assert_eq!(&t[..link_end(t, false)], "http://ex.com/b");
/// let t = "http://ex.com/w_(x)).";
/// assert_eq!(&t[..link_end(t, false)], "http://ex.com/w_(x)");
/// let t = "http://ex.com/1,http://ex.com/2";
/// assert_eq!(&t[..link_end(t, false)], "http://ex.com/1");
/// ```
pub fn link_end(text: &str, ascii_only: bool) -> usize {
    let mut depth = [0u32; PAIRS];
    let mut apos = 0u32;
    let mut in_query = false;
    let mut ascii_so_far = true;
    let mut prev = None::<char>;
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        if prev.is_some_and(|p| p.is_ascii_alphanumeric())
            && ascii_so_far
            && !ascii_only
            && spaceless_script(c)
        {
            end = i;
            break;
        }
        match c {
            '?' => in_query = true,
            '#' => in_query = false,
            // links joined by commas: `,` right before `scheme://` ends a link
            ',' if scheme_follows(&text.as_bytes()[i + 1..]) => {
                end = i;
                break;
            }
            _ => {}
        }
        match class(c, ascii_only) {
            Class::Link | Class::Trailing => {}
            Class::Apostrophe => apos += 1,
            Class::Open(k) => depth[k as usize] += 1,
            Class::Close(k) => {
                if depth[k as usize] == 0 {
                    end = i;
                    break;
                }
                depth[k as usize] -= 1;
            }
            Class::Private if in_query => {}
            Class::Space { .. } | Class::Stop | Class::Private => {
                end = i;
                break;
            }
        }
        ascii_so_far &= c.is_ascii();
        prev = Some(c);
    }
    // trim as the finder trims
    let mut e = end;
    while let Some(c) = text[..e].chars().next_back() {
        match class(c, ascii_only) {
            Class::Trailing => {}
            Class::Apostrophe if apos % 2 == 1 => apos -= 1,
            Class::Open(k) => depth[k as usize] = depth[k as usize].saturating_sub(1),
            _ => break,
        }
        e -= c.len_utf8();
    }
    e
}

/// Whether `b` starts with `scheme://` (RFC 3986 3.1, at most 64 bytes of scheme), as the finder
/// reads it after a `,` (`find/json.rs`, where the slashes may also be JSON-escaped; the text
/// here is decoded).
fn scheme_follows(b: &[u8]) -> bool {
    let n = b
        .iter()
        .take(64)
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))
        .unwrap_or(b.len().min(64));
    n > 0 && b[0].is_ascii_alphabetic() && b[n..].starts_with(b"://")
}

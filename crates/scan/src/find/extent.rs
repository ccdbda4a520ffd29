//! The forward scan every link ends with: link characters from the boundary table, one table
//! lookup per plain ASCII byte, bracket pairs and apostrophes counted, `--html` character
//! references read; then trailing punctuation trimmed.

use super::{Ctx, NeedMore, R, char_at, char_before};
use crate::boundary::{Class, PAIRS, ascii_class, spaceless_script};

impl Ctx<'_> {
    /// Scans link characters from `i` (the link started at `start`). With `authority`, stops
    /// at the first `/`, `?` or `#` (returned as [`Extent::Delim`]).
    pub(super) fn extent(
        &mut self,
        mut i: usize,
        start: usize,
        st: &mut ScanState,
        authority: bool,
    ) -> R<Extent> {
        let t = self.text;
        let bytes = t.as_bytes();
        let max = self.opts.max_len;
        let plain = match (authority, self.opts.html) {
            (false, false) => &PLAIN,
            (true, false) => &PLAIN_AUTH,
            (false, true) => &PLAIN_HTML,
            (true, true) => &PLAIN_AUTH_HTML,
        };
        loop {
            // a run of plain ASCII link characters, one table lookup each
            let lim = bytes.len().min(start + max + 1);
            let j = i;
            // eight at a time: one test for eight lookups
            while let Some(c) = bytes.get(i..i + 8).filter(|_| i + 8 <= lim) {
                let all = c.iter().fold(1u8, |a, &x| a & plain[x as usize]);
                if all == 0 {
                    break;
                }
                i += 8;
            }
            while i < lim && plain[bytes[i] as usize] != 0 {
                i += 1;
            }
            self.work += (i - j) as u64;
            if i - start > max {
                return Ok(Extent::TooLong);
            }
            if i >= bytes.len() {
                return if self.eof {
                    Ok(Extent::End(i))
                } else {
                    Err(NeedMore)
                };
            }
            let b = bytes[i];
            let (cls, n) = if b < 0x80 {
                if authority && matches!(b, b'/' | b'?' | b'#') {
                    self.work += 1;
                    return Ok(Extent::Delim(i));
                }
                match b {
                    b'?' => st.in_query = true,
                    b'#' => st.in_query = false,
                    // links joined by commas: `,` right before `scheme://` ends a link
                    b',' if self.scheme_follows(i + 1)? => return Ok(Extent::End(i)),
                    b'\\' => {
                        // a JSON string escape (`json.rs`): the character it stands for
                        let Some((c, n)) = self.json_escape(i)? else {
                            return Ok(Extent::End(i));
                        };
                        self.work += n as u64;
                        st.json = true;
                        self.json = true;
                        if authority && matches!(c, '/' | '?' | '#') {
                            return Ok(Extent::Delim(i));
                        }
                        match self.cls(c) {
                            Class::Link | Class::Trailing => {}
                            Class::Apostrophe => st.apos += 1,
                            Class::Open(k) => st.depth[k as usize] += 1,
                            Class::Close(k) if st.depth[k as usize] > 0 => {
                                st.depth[k as usize] -= 1
                            }
                            Class::Private if st.in_query => {}
                            _ => return Ok(Extent::End(i)),
                        }
                        match c {
                            '?' => st.in_query = true,
                            '#' => st.in_query = false,
                            _ => {}
                        }
                        // the decoded text is not ASCII-only where the escape is not
                        st.not_ascii |= !c.is_ascii();
                        i += n;
                        continue;
                    }
                    b'&' if self.opts.html => {
                        // the decoded text may hold non-ASCII characters
                        st.not_ascii = true;
                        if let Some((c, n)) = self.html_reference(i)? {
                            self.work += n as u64;
                            match c {
                                '?' => st.in_query = true,
                                _ => {
                                    if let Class::Open(k) = self.cls(c) {
                                        st.depth[k as usize] += 1;
                                    }
                                }
                            }
                            i += n;
                            continue;
                        }
                    }
                    _ => {}
                }
                (ascii_class(b), 1)
            } else {
                let (c, n) = char_at(t, i);
                // text of a spaceless script glued after a word of an all-ASCII link ends it
                // (boundary.rs); `i > start`, so the byte before is the link's. The look back
                // runs once per link: it ends the link or sets `not_ascii`.
                if !authority
                    && !st.not_ascii
                    && bytes[i - 1].is_ascii_alphanumeric()
                    && spaceless_script(c)
                {
                    self.work += (i - start) as u64;
                    if bytes[start..i].is_ascii() {
                        return Ok(Extent::End(i));
                    }
                    st.not_ascii = true;
                }
                (self.cls(c), n)
            };
            self.work += n as u64;
            match cls {
                Class::Link | Class::Trailing => {}
                Class::Apostrophe => st.apos += 1,
                Class::Open(k) => st.depth[k as usize] += 1,
                Class::Close(k) => {
                    if st.depth[k as usize] == 0 {
                        return Ok(Extent::End(i));
                    }
                    st.depth[k as usize] -= 1;
                }
                Class::Private if st.in_query => {}
                Class::Space { .. } | Class::Stop | Class::Private => return Ok(Extent::End(i)),
            }
            i += n;
        }
    }

    /// `--html`: the character that a reference at `i` (`&#N;`, `&#xH;`, or one of the named
    /// references of brackets and `?`) stands for, and its length; `None` for any other `&`
    /// (decoded later: only brackets and `?` change where a link ends further on).
    fn html_reference(&self, i: usize) -> R<Option<(char, usize)>> {
        const LONGEST: usize = 10; // `&#x10FFFF;`, `&lbrace;`
        let bytes = self.text.as_bytes();
        let tail = &bytes[i + 1..bytes.len().min(i + 1 + LONGEST)];
        let Some(semi) = tail.iter().position(|&b| b == b';') else {
            if tail.len() < LONGEST
                && !self.eof
                && tail.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'#')
            {
                return Err(NeedMore);
            }
            return Ok(None);
        };
        let body = &self.text[i + 1..i + 1 + semi];
        let c = if let Some(num) = body.strip_prefix('#') {
            let v = match num.strip_prefix(['x', 'X']) {
                Some(hex) if !hex.is_empty() && hex.len() <= 6 => u32::from_str_radix(hex, 16).ok(),
                None if !num.is_empty() && num.len() <= 7 => num.parse().ok(),
                _ => None,
            };
            v.and_then(char::from_u32)
        } else {
            match body {
                "lpar" => Some('('),
                "lsqb" | "lbrack" => Some('['),
                "lcub" | "lbrace" => Some('{'),
                "laquo" => Some('\u{ab}'),
                "lsaquo" => Some('\u{2039}'),
                "quest" => Some('?'),
                _ => None,
            }
        };
        Ok(c.map(|c| (c, semi + 2)))
    }

    /// Trims trailing punctuation, unbalanced apostrophes and opening brackets from `[lo, e)`
    /// (written as JSON escapes too, `\u002e`).
    pub(super) fn trim(&mut self, lo: usize, mut e: usize, st: &mut ScanState) -> usize {
        while e > lo {
            let before = if st.json {
                self.json_escape_before(lo, e)
            } else {
                None
            };
            let Some((c, p)) = before.or_else(|| char_before(self.text, e)) else {
                break;
            };
            match self.cls(c) {
                Class::Trailing => e = p,
                Class::Apostrophe if st.apos % 2 == 1 => {
                    st.apos -= 1;
                    e = p;
                }
                Class::Open(k) => {
                    st.depth[k as usize] = st.depth[k as usize].saturating_sub(1);
                    e = p;
                }
                _ => break,
            }
            self.work += 1;
        }
        e
    }
}

/// ASCII bytes that [`Ctx::extent`] passes over without looking further (1; else 0): link
/// and trailing characters except `?` and `#` (they open and close the query) and `,` (a
/// scheme may follow it).
static PLAIN: [u8; 256] = plain_table(false);
/// [`PLAIN`] inside an authority, which also ends at `/`.
static PLAIN_AUTH: [u8; 256] = plain_table(true);
/// [`PLAIN`] for `ScanOptions::html`: `&` may start a character reference.
static PLAIN_HTML: [u8; 256] = without_amp(plain_table(false));
/// [`PLAIN_AUTH`] for `ScanOptions::html`.
static PLAIN_AUTH_HTML: [u8; 256] = without_amp(plain_table(true));

const fn without_amp(mut t: [u8; 256]) -> [u8; 256] {
    t[b'&' as usize] = 0;
    t
}

const fn plain_table(authority: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x80 {
        let c = b as u8;
        let plain = matches!(ascii_class(c), Class::Link | Class::Trailing)
            && c != b'?'
            && c != b'#'
            && c != b','
            && !(authority && c == b'/');
        t[b] = plain as u8;
        b += 1;
    }
    t
}

#[derive(Default)]
pub(super) struct ScanState {
    depth: [u32; PAIRS],
    apos: u32,
    in_query: bool,
    /// The link has non-ASCII text before this point (so glued text of a spaceless script is
    /// taken as the link's own: `http://中国.中国/foo中国`).
    not_ascii: bool,
    /// The link holds a JSON string escape (`json.rs`).
    pub(super) json: bool,
}

pub(super) enum Extent {
    /// the link's characters end here (before trimming)
    End(usize),
    /// an authority ended at `/`, `?` or `#`
    Delim(usize),
    TooLong,
}

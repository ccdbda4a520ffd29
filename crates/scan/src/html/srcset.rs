//! `srcset` and `imagesrcset` (HTML "parse a srcset attribute"): the candidate URLs, and the
//! descriptors only to drop the candidates HTML drops.

use std::ops::Range;

fn is_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The URLs of a `srcset` value's image candidates, as byte ranges of `value` (the decoded
/// attribute value), in order. A candidate whose descriptors HTML rejects (two densities, a
/// zero width, `2y`, ...) is dropped and counted ([`SrcsetUrls::dropped`]).
///
/// ```
/// use linksieve_scan::html::srcset_urls;
/// let v = "a.png 1x, b,c.png 2x,data:image/png;base64,AA== 3x, d.png 2y";
/// let mut it = srcset_urls(v);
/// let urls: Vec<&str> = it.by_ref().map(|r| &v[r]).collect();
/// assert_eq!(urls, ["a.png", "b,c.png", "data:image/png;base64,AA=="]);
/// assert_eq!(it.dropped(), 1);
/// ```
pub fn srcset_urls(value: &str) -> SrcsetUrls<'_> {
    SrcsetUrls {
        s: value.as_bytes(),
        pos: 0,
        dropped: 0,
    }
}

/// The iterator of [`srcset_urls`].
///
/// ```
/// use linksieve_scan::html::srcset_urls;
/// assert_eq!(srcset_urls(" , ,").count(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct SrcsetUrls<'a> {
    s: &'a [u8],
    pos: usize,
    dropped: usize,
}

impl SrcsetUrls<'_> {
    /// Candidates dropped so far for their descriptors.
    ///
    /// ```
    /// use linksieve_scan::html::srcset_urls;
    /// let mut it = srcset_urls("a 1x 2x, b 0w, c 10w 5h, d 5h");
    /// assert_eq!(it.by_ref().count(), 1);
    /// assert_eq!(it.dropped(), 3);
    /// ```
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

impl Iterator for SrcsetUrls<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let s = self.s;
        loop {
            // splitting loop: skip whitespace and commas
            while self.pos < s.len() && (is_ws(s[self.pos]) || s[self.pos] == b',') {
                self.pos += 1;
            }
            if self.pos >= s.len() {
                return None;
            }
            let start = self.pos;
            while self.pos < s.len() && !is_ws(s[self.pos]) {
                self.pos += 1;
            }
            let mut end = self.pos;
            if s[end - 1] == b',' {
                while end > start && s[end - 1] == b',' {
                    end -= 1;
                }
                // no descriptors
                if end > start {
                    return Some(start..end);
                }
                continue;
            }
            if self.descriptors_ok() {
                return Some(start..end);
            }
            self.dropped += 1;
        }
    }
}

impl SrcsetUrls<'_> {
    /// Tokenizes the descriptors after a URL (up to the `,` that ends the candidate, which is
    /// consumed) and checks them.
    fn descriptors_ok(&mut self) -> bool {
        let s = self.s;
        let mut check = Check::default();
        while self.pos < s.len() && is_ws(s[self.pos]) {
            self.pos += 1;
        }
        let mut cur = self.pos; // start of the current descriptor
        let mut in_parens = false;
        loop {
            let Some(&c) = s.get(self.pos) else {
                if cur < self.pos {
                    check.descriptor(&s[cur..self.pos]);
                }
                break;
            };
            if in_parens {
                if c == b')' {
                    in_parens = false;
                }
            } else if is_ws(c) {
                if cur < self.pos {
                    check.descriptor(&s[cur..self.pos]);
                }
                while self.pos < s.len() && is_ws(s[self.pos]) {
                    self.pos += 1;
                }
                cur = self.pos;
                continue;
            } else if c == b',' {
                if cur < self.pos {
                    check.descriptor(&s[cur..self.pos]);
                }
                self.pos += 1;
                break;
            } else if c == b'(' {
                in_parens = true;
            }
            self.pos += 1;
        }
        check.ok()
    }
}

#[derive(Default)]
struct Check {
    error: bool,
    width: bool,
    density: bool,
    height: bool,
}

impl Check {
    fn descriptor(&mut self, d: &[u8]) {
        let (num, last) = d.split_at(d.len() - 1);
        match last[0] {
            b'w' if is_integer(num) => {
                if self.width || self.density || num.iter().all(|&b| b == b'0') {
                    self.error = true;
                }
                self.width = true;
            }
            b'x' if is_float(num) => {
                // below zero: a `-` and a non-zero digit before any exponent ("-0x" is zero)
                let mantissa = num.split(|&b| b == b'e' || b == b'E').next().unwrap_or(num);
                let negative =
                    num.first() == Some(&b'-') && mantissa.iter().any(|b| matches!(b, b'1'..=b'9'));
                if self.width || self.density || self.height || negative {
                    self.error = true;
                }
                self.density = true;
            }
            b'h' if is_integer(num) => {
                if self.height || self.density || num.iter().all(|&b| b == b'0') {
                    self.error = true;
                }
                self.height = true;
            }
            _ => self.error = true,
        }
    }

    fn ok(&self) -> bool {
        !self.error && (self.width || !self.height)
    }
}

/// HTML "valid non-negative integer".
fn is_integer(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(u8::is_ascii_digit)
}

/// HTML "valid floating-point number".
fn is_float(s: &[u8]) -> bool {
    let s = s.strip_prefix(b"-").unwrap_or(s);
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let int = digits(s);
    let mut i = int;
    let mut frac = 0;
    if s.get(i) == Some(&b'.') {
        frac = digits(&s[i + 1..]);
        if frac == 0 {
            return false;
        }
        i += 1 + frac;
    }
    if int == 0 && frac == 0 {
        return false;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let e = digits(&s[i..]);
        if e == 0 {
            return false;
        }
        i += e;
    }
    i == s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(v: &str) -> (Vec<&str>, usize) {
        let mut it = srcset_urls(v);
        let u = it.by_ref().map(|r| &v[r]).collect();
        (u, it.dropped())
    }

    #[test]
    fn candidates() {
        assert_eq!(urls("a.png"), (vec!["a.png"], 0));
        assert_eq!(urls("  a.png  ,  b.png 2x  "), (vec!["a.png", "b.png"], 0));
        assert_eq!(urls("a.png,b.png"), (vec!["a.png,b.png"], 0));
        assert_eq!(urls("a.png,,, b.png"), (vec!["a.png", "b.png"], 0));
        assert_eq!(urls("a.png 100w,b.png 200w"), (vec!["a.png", "b.png"], 0));
        assert_eq!(
            urls("data:image/png;base64,iVBO= 1x, x.png 2x"),
            (vec!["data:image/png;base64,iVBO=", "x.png"], 0)
        );
        assert_eq!(
            urls("a.png 1.5x, b.png .5x, c.png 1e1x"),
            (vec!["a.png", "b.png", "c.png"], 0)
        );
        assert_eq!(urls("a.png 1.x, b.png x, c.png 1X"), (vec![], 3));
        assert_eq!(urls("a.png -1x, b.png -0x"), (vec!["b.png"], 1));
        assert_eq!(urls("a.png 10w 20h, b.png 20h"), (vec!["a.png"], 1));
        assert_eq!(urls("a.png calc(1 , 2)w, b"), (vec!["b"], 1));
        assert_eq!(urls("a.png (, b"), (vec![], 1));
        assert_eq!(urls(""), (vec![], 0));
    }
}

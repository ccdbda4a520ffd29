//! Finding links in text: per candidate (found by `trigger.rs`: `:` always; `.` with
//! `schemeless`; `@` with `email`), a bounded look back and a linear, table-driven scan forward
//! (`boundary.rs`). No regular expressions, no backtracking.
//!
//! Work bounds (why the whole scan is linear): every look back is bounded by a constant (a scheme
//! by [`SCHEME_MAX`], an e-mail local part by [`LOCAL_MAX`], a host run by [`HOST_MAX`], an IPv6
//! token by [`IP6_MAX`]); a rejected `scheme://` candidate has scanned only its authority, which
//! holds no `/`, so no other `://` candidate can start inside it; a rejected host run is skipped as
//! a whole; an accepted link is never scanned again (the next candidate starts after it); a
//! `<…>` attempt stops at the first `<`, so no two attempts share text; a candidate longer than
//! the maximum link length is skipped up to the next whitespace or stop character.

use crate::boundary::{Class, PAIRS, ascii_class, class, spaceless_script};
use crate::host::{self, HostCut};
use crate::schemes::{self, OPAQUE_CHECK_WINDOW, OpaqueCheck};
use crate::{LinkKind, Wrapper};

/// Longest scheme looked back for (bytes).
pub(crate) const SCHEME_MAX: usize = 64;
/// Longest e-mail local part (RFC 5321 4.5.3.1.1: 64 octets).
pub(crate) const LOCAL_MAX: usize = 64;
/// Longest host run looked at (bytes; a DNS name has at most 253 ASCII characters, an IDN in
/// Unicode form up to about four bytes per character).
pub(crate) const HOST_MAX: usize = 1024;
/// Longest IPv6 token (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255` is 45 bytes).
pub(crate) const IP6_MAX: usize = 45;
/// Text kept before the scan position: more than any look back can reach.
pub(crate) const LOOKBACK: usize = 2 * HOST_MAX;

/// More input is needed before this candidate can be decided.
#[derive(Debug)]
pub(crate) struct NeedMore;

type R<T> = Result<T, NeedMore>;

/// Options the finder needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Opts {
    pub schemeless: bool,
    pub ascii_only: bool,
    pub max_len: usize,
    /// `ScanOptions::html`: character references widen the extent.
    pub html: bool,
}

/// The text being scanned.
pub(crate) struct Ctx<'a> {
    pub text: &'a str,
    pub eof: bool,
    /// links never start before this (the end of the previous link)
    pub floor: usize,
    pub opts: Opts,
    /// bytes visited (a work counter for the linear-time tests)
    pub work: u64,
}

/// A link found, as offsets into the window.
#[derive(Debug)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    /// the link text when it differs from `text[start..end]` (whitespace removed in `<…>`)
    pub joined: Option<String>,
    pub kind: LinkKind,
    pub wrapper: Option<Wrapper>,
    pub url_prefix: bool,
    pub line_breaks: bool,
    /// end of the trailing punctuation that was trimmed (`== end` when none)
    pub trimmed_to: usize,
    pub host_cut: bool,
    /// where scanning resumes (after a closing `>` or at `end`)
    pub resume: usize,
}

/// What one candidate came to.
#[derive(Debug)]
pub(crate) enum Outcome {
    Hit(Found),
    Reject { resume: usize },
    TooLong { from: usize },
}

/// Skip mode after a too-long candidate: the first whitespace or stop character at or after
/// `from`, if the text has one.
pub(crate) fn skip_to_stop(ctx: &mut Ctx<'_>, from: usize) -> Option<usize> {
    let t = ctx.text;
    let mut i = from;
    while i < t.len() {
        let (c, n) = char_at(t, i);
        ctx.work += n as u64;
        if matches!(
            class(c, ctx.opts.ascii_only),
            Class::Space { .. } | Class::Stop
        ) {
            return Some(i);
        }
        i += n;
    }
    None
}

#[inline]
fn char_at(t: &str, i: usize) -> (char, usize) {
    let b = t.as_bytes()[i];
    if b < 0x80 {
        return (b as char, 1);
    }
    let c = t[i..].chars().next().unwrap_or('\u{fffd}');
    (c, c.len_utf8())
}

#[inline]
fn char_before(t: &str, i: usize) -> Option<(char, usize)> {
    if i == 0 {
        return None;
    }
    let b = t.as_bytes()[i - 1];
    if b < 0x80 {
        return Some((b as char, i - 1));
    }
    let c = t[..i].chars().next_back()?;
    Some((c, i - c.len_utf8()))
}

impl Ctx<'_> {
    /// The character at `i`, `Ok(None)` at the end of the input, `Err` when more text may come.
    #[inline]
    fn peek(&self, i: usize) -> R<Option<(char, usize)>> {
        if i < self.text.len() {
            Ok(Some(char_at(self.text, i)))
        } else if self.eof {
            Ok(None)
        } else {
            Err(NeedMore)
        }
    }

    #[inline]
    fn cls(&self, c: char) -> Class {
        class(c, self.opts.ascii_only)
    }

    fn is_host_char(&self, c: char) -> bool {
        if c.is_ascii() {
            c.is_ascii_alphanumeric() || c == '-' || c == '_'
        } else {
            self.cls(c) == Class::Link
        }
    }

    /// Examines the trigger at `t`.
    pub(crate) fn examine(&mut self, t: usize) -> R<Outcome> {
        match self.text.as_bytes()[t] {
            b':' => self.colon(t),
            b'.' => self.dot(t),
            _ => self.at(t),
        }
    }

    // ------------------------------------------------------------------ `scheme:`

    fn colon(&mut self, t: usize) -> R<Outcome> {
        let b = self.text.as_bytes();
        // fast reject for the common `word: text`, `a::b`, `12:30`: neither `//` nor the start
        // of an opaque IRI follows, or no letter precedes
        if !self.opts.schemeless {
            let next = b.get(t + 1).copied();
            if next.is_none() && !self.eof {
                return Err(NeedMore);
            }
            let slash = next == Some(b'/');
            if !slash {
                let opaque_start = match next {
                    Some(c) => {
                        c.is_ascii_alphanumeric()
                            || matches!(c, b'%' | b'?' | b'+' | b'-' | b',' | b';')
                            || c >= 0x80
                    }
                    None => false,
                };
                if !opaque_start || t == 0 || !b[t - 1].is_ascii_alphabetic() {
                    return Ok(Outcome::Reject { resume: t + 1 });
                }
            } else if t == 0
                || !b[t - 1].is_ascii_alphanumeric() && !matches!(b[t - 1], b'+' | b'-' | b'.')
            {
                return Ok(Outcome::Reject { resume: t + 1 });
            }
        }
        // the run of scheme characters before ':' (RFC 3986 3.1)
        let lo = t.saturating_sub(SCHEME_MAX + 1).max(self.floor);
        let mut s = t;
        while s > lo && SCHEME_CHAR[b[s - 1] as usize] {
            s -= 1;
        }
        self.work += (t - s) as u64;
        let too_long_scheme = s == lo && lo > self.floor && s > 0 && {
            let p = b[s - 1];
            p.is_ascii_alphanumeric() || matches!(p, b'+' | b'-' | b'.')
        };
        if s < t && !too_long_scheme {
            // leading junk such as `1.` in `1.http://`: the scheme starts after the last
            // separator that precedes a letter
            if !b[s].is_ascii_alphabetic() {
                let mut k = None;
                for i in s + 1..t {
                    if matches!(b[i - 1], b'+' | b'-' | b'.') && b[i].is_ascii_alphabetic() {
                        k = Some(i);
                        break;
                    }
                }
                s = match k {
                    Some(k) => k,
                    None => t,
                };
            }
        } else {
            s = t;
        }
        if s < t {
            if let Some(o) = self.scheme_link(s, t)? {
                return Ok(o);
            }
        }
        if self.opts.schemeless {
            if let Some(o) = self.ipv6(t)? {
                return Ok(o);
            }
        }
        Ok(Outcome::Reject { resume: t + 1 })
    }

    /// `URL:` (with or without a space) right before `s`: the start of that prefix.
    fn url_prefix(&self, s: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut p = s;
        if p > 0 && b[p - 1] == b' ' {
            p -= 1;
        }
        if p >= 4 && b[p - 4..p].eq_ignore_ascii_case(b"url:") {
            let q = p - 4;
            if q == 0 || !b[q - 1].is_ascii_alphanumeric() {
                return Some(q);
            }
        }
        None
    }

    fn scheme_link(&mut self, s: usize, t: usize) -> R<Option<Outcome>> {
        let scheme = &self.text[s..t];
        let b = self.text.as_bytes();
        // RFC 3986 appendix C: the prefix "URL:" is not part of the URI
        if scheme.eq_ignore_ascii_case("url") {
            if let Some((c, _)) = self.peek(t + 1)? {
                if c == ' ' || c.is_ascii_alphabetic() {
                    return Ok(None);
                }
            }
        }
        let prefix = self.url_prefix(s);
        let outer = prefix.unwrap_or(s);
        let angle = outer > 0 && b[outer - 1] == b'<';
        // two bytes after ':' decide between `scheme://` and an opaque scheme
        let after = &b[t + 1..(t + 3).min(b.len())];
        if after.len() < 2 && !self.eof && b"//".starts_with(after) {
            return Err(NeedMore);
        }
        let slashes = after == b"//";
        let check = schemes::opaque(scheme);
        if !slashes && check.is_none() {
            return Ok(None);
        }
        if angle {
            if let Some(f) = self.angle(s, t, slashes, prefix.is_some())? {
                return Ok(Some(Outcome::Hit(f)));
            }
        }
        // a registered opaque scheme with `//` is read as hierarchical: `news://host/group`
        // (RFC 5538 2.1) beside `news:comp.lang`
        let Some(check) = check.filter(|_| !slashes) else {
            return self.hierarchical(s, t, prefix.is_some()).map(Some);
        };
        self.opaque(s, t, check, prefix.is_some()).map(Some)
    }

    /// RFC 3986 appendix C: `<scheme:...>`, with whitespace runs that hold a line break removed.
    /// The scheme rules are the same as outside (XML qualified names such as `<dc:date>` look
    /// like `<scheme:...>`); the closing `>` decides where the link ends. `None`: not a closed
    /// wrapper (scan normally).
    fn angle(&mut self, s: usize, t: usize, slashes: bool, url_prefix: bool) -> R<Option<Found>> {
        let mut i = t + 1;
        let mut removed = false;
        let close;
        loop {
            if i - s > self.opts.max_len {
                return Ok(None);
            }
            let Some((c, n)) = self.peek(i)? else {
                return Ok(None);
            };
            self.work += n as u64;
            if c == '>' {
                close = i;
                break;
            }
            match self.cls(c) {
                Class::Space { line_break } => {
                    let mut j = i + n;
                    let mut lb = line_break;
                    loop {
                        let Some((d, m)) = self.peek(j)? else {
                            return Ok(None);
                        };
                        match self.cls(d) {
                            Class::Space { line_break } => {
                                lb |= line_break;
                                j += m;
                                self.work += m as u64;
                            }
                            _ => break,
                        }
                        if j - s > self.opts.max_len {
                            return Ok(None);
                        }
                    }
                    if !lb {
                        return Ok(None);
                    }
                    removed = true;
                    i = j;
                    continue;
                }
                Class::Stop if !wrapper_char(c) => return Ok(None),
                Class::Private => return Ok(None),
                _ => {}
            }
            i += n;
        }
        let raw = &self.text[s..close];
        let joined: String = if removed {
            raw.chars()
                .filter(|&c| !matches!(self.cls(c), Class::Space { .. }))
                .collect()
        } else {
            raw.to_owned()
        };
        let rest = &joined[t - s + 1..];
        if rest.is_empty() {
            return Ok(None);
        }
        if slashes {
            let auth_all = &rest[2..];
            let auth_end = auth_all.find(['/', '?', '#']).unwrap_or(auth_all.len());
            let followed = auth_all.as_bytes().get(auth_end) == Some(&b'/');
            if check_authority(&joined[..t - s], &auth_all[..auth_end], followed).is_none() {
                return Ok(None);
            }
        }
        let kind = if slashes {
            LinkKind::Scheme
        } else {
            LinkKind::Opaque
        };
        Ok(Some(Found {
            start: s,
            end: close,
            joined: removed.then_some(joined),
            kind,
            wrapper: Some(Wrapper::Angle),
            url_prefix,
            line_breaks: removed,
            trimmed_to: close,
            host_cut: false,
            resume: close + 1,
        }))
    }

    /// `scheme://authority path`.
    fn hierarchical(&mut self, s: usize, t: usize, url_prefix: bool) -> R<Outcome> {
        let a = t + 3;
        let mut st = ScanState::default();
        let (auth_end, more, scanned) = match self.extent(a, s, &mut st, true)? {
            Extent::TooLong => return Ok(Outcome::TooLong { from: s }),
            Extent::Delim(p) => (p, true, p),
            Extent::End(e) => (self.trim(a, e, &mut st), false, e),
        };
        let followed = more && self.text.as_bytes()[auth_end] == b'/';
        let scheme = &self.text[s..t];
        let Some(cut) = check_authority(scheme, &self.text[a..auth_end], followed) else {
            return Ok(Outcome::Reject { resume: t + 1 });
        };
        if let Some(n) = cut {
            let end = a + n;
            return Ok(Outcome::Hit(self.found(
                s,
                end,
                end,
                LinkKind::Scheme,
                url_prefix,
                true,
            )));
        }
        if !more {
            if auth_end == a {
                return Ok(Outcome::Reject { resume: t + 1 });
            }
            return Ok(Outcome::Hit(self.found(
                s,
                auth_end,
                scanned,
                LinkKind::Scheme,
                url_prefix,
                false,
            )));
        }
        let e = match self.extent(auth_end, s, &mut st, false)? {
            Extent::TooLong => return Ok(Outcome::TooLong { from: s }),
            Extent::End(e) | Extent::Delim(e) => e,
        };
        let end = self.trim(auth_end, e, &mut st);
        if end == a {
            return Ok(Outcome::Reject { resume: t + 1 });
        }
        Ok(Outcome::Hit(self.found(
            s,
            end,
            e,
            LinkKind::Scheme,
            url_prefix,
            false,
        )))
    }

    /// A registered scheme without `//` (`mailto:`, `urn:`, ...).
    fn opaque(&mut self, s: usize, t: usize, check: OpaqueCheck, url_prefix: bool) -> R<Outcome> {
        let r = t + 1;
        let wend = (r + OPAQUE_CHECK_WINDOW).min(self.text.len());
        let complete = r + OPAQUE_CHECK_WINDOW <= self.text.len() || self.eof;
        let window = self.text.as_bytes().get(r..wend).unwrap_or(&[]);
        self.work += window.len().min(64) as u64;
        match schemes::check_opaque(check, window, complete) {
            Err(()) => return Err(NeedMore),
            Ok(false) => return Ok(Outcome::Reject { resume: t + 1 }),
            Ok(true) => {}
        }
        let mut st = ScanState::default();
        let e = match self.extent(r, s, &mut st, false)? {
            Extent::TooLong => return Ok(Outcome::TooLong { from: s }),
            Extent::End(e) | Extent::Delim(e) => e,
        };
        let end = self.trim(r, e, &mut st);
        if end <= r || schemes::check_opaque(check, &self.text.as_bytes()[r..end], true) != Ok(true)
        {
            return Ok(Outcome::Reject { resume: t + 1 });
        }
        Ok(Outcome::Hit(self.found(
            s,
            end,
            e,
            LinkKind::Opaque,
            url_prefix,
            false,
        )))
    }

    fn found(
        &self,
        s: usize,
        end: usize,
        scanned: usize,
        kind: LinkKind,
        url_prefix: bool,
        host_cut: bool,
    ) -> Found {
        let b = self.text.as_bytes();
        let outer = if url_prefix {
            self.url_prefix(s).unwrap_or(s)
        } else {
            s
        };
        let before = if outer > 0 { Some(b[outer - 1]) } else { None };
        let after = b.get(end).copied();
        let wrapper = match (before, after) {
            (Some(b'<'), Some(b'>')) => Some(Wrapper::Angle),
            (Some(b'"'), Some(b'"')) => Some(Wrapper::Quote),
            _ => None,
        };
        let resume = if wrapper == Some(Wrapper::Angle) {
            end + 1
        } else {
            end
        };
        Found {
            start: s,
            end,
            joined: None,
            kind,
            wrapper,
            url_prefix,
            line_breaks: false,
            trimmed_to: scanned.max(end),
            host_cut,
            resume,
        }
    }

    // ------------------------------------------------------------------ forward scan

    /// Scans link characters from `i` (the link started at `start`). With `authority`, stops
    /// at the first `/`, `?` or `#` (returned as [`Extent::Delim`]).
    fn extent(
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

    /// Trims trailing punctuation, unbalanced apostrophes and opening brackets from `[lo, e)`.
    fn trim(&mut self, lo: usize, mut e: usize, st: &mut ScanState) -> usize {
        while e > lo {
            let Some((c, p)) = char_before(self.text, e) else {
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

    // ------------------------------------------------------------------ schemeless

    /// `.` with `schemeless`: a host run with a public suffix (or an IPv4 address), then an
    /// optional port and path.
    fn dot(&mut self, t: usize) -> R<Outcome> {
        let reject = Outcome::Reject { resume: t + 1 };
        let Some((cb, _)) = char_before(self.text, t) else {
            return Ok(reject);
        };
        if !self.is_host_char(cb) {
            return Ok(reject);
        }
        match self.peek(t + 1)? {
            Some((ca, _)) if self.is_host_char(ca) => {}
            _ => return Ok(reject),
        }
        // the whole run of host characters and dots around `t`
        let lo = t.saturating_sub(HOST_MAX).max(self.floor);
        let mut s = t;
        while let Some((c, p)) = char_before(self.text, s) {
            if p < lo || !(c == '.' || self.is_host_char(c)) {
                break;
            }
            s = p;
        }
        self.work += (t - s) as u64;
        let mut e = t;
        while let Some((c, n)) = self.peek(e)? {
            if !(c == '.' || self.is_host_char(c)) {
                break;
            }
            e += n;
            self.work += n as u64;
        }
        let skip = Outcome::Reject { resume: e };
        if e - s > HOST_MAX
            || (s == lo
                && s > self.floor
                && char_before(self.text, s).is_some_and(|(c, _)| c == '.' || self.is_host_char(c)))
        {
            return Ok(skip);
        }
        let run_end = e;
        // strip trailing dots (end of sentence, FQDN at the end)
        let mut he = run_end;
        while he > s && self.text.as_bytes()[he - 1] == b'.' {
            he -= 1;
        }
        // the run is an e-mail local part (`name.al+x@foo.com`)
        if self.local_part_follows(run_end)? {
            return Ok(skip);
        }
        let glue = host::leading_glue(&self.text[s..he]);
        let hs = s + glue;
        if glue == 0 {
            if let Some((p, q)) = char_before(self.text, s) {
                if p == '/' {
                    // protocol-relative `//host`, at the start of a word only
                    let b = self.text.as_bytes();
                    let ok = q >= 1
                        && b[q - 1] == b'/'
                        && (q < 2
                            || !(b[q - 2].is_ascii_alphanumeric()
                                || matches!(b[q - 2], b'/' | b':' | b'.' | b'_')));
                    if !ok {
                        return Ok(skip);
                    }
                } else if matches!(p, '@' | '#' | '$' | ':' | '&' | '=' | '%' | '+') {
                    return Ok(skip);
                }
            }
        }
        let first = self.text.as_bytes()[hs];
        if matches!(first, b'-' | b'_' | b'.') || hs >= he {
            return Ok(skip);
        }
        let host = &self.text[hs..he];
        let all_ip = host.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        let (host_end, cut) = if all_ip {
            if !host::is_ipv4(host) {
                return Ok(skip);
            }
            (he, false)
        } else {
            match host::check_dns(host, true) {
                None => return Ok(skip),
                Some(HostCut::Whole) => (he, false),
                Some(HostCut::Cut(n)) => (hs + n, true),
            }
        };
        let kind = if all_ip { LinkKind::Ip } else { LinkKind::Bare };
        if cut {
            return Ok(Outcome::Hit(
                self.found(hs, host_end, host_end, kind, false, true),
            ));
        }
        self.after_host(hs, host_end, kind, skip)
    }

    /// Whether e-mail local-part characters and then `@` follow `i`.
    fn local_part_follows(&mut self, mut i: usize) -> R<bool> {
        let lim = i + LOCAL_MAX;
        while let Some((c, n)) = self.peek(i)? {
            if c == '@' {
                return Ok(true);
            }
            if i >= lim || !self.is_local_char(c) || matches!(c, '/' | '?' | '=' | '&' | '#' | '.')
            {
                return Ok(false);
            }
            self.work += n as u64;
            i += n;
        }
        Ok(false)
    }

    /// Port and path after a host without a scheme.
    fn after_host(
        &mut self,
        hs: usize,
        host_end: usize,
        kind: LinkKind,
        skip: Outcome,
    ) -> R<Outcome> {
        let mut i = host_end;
        match self.peek(i)? {
            Some(('@', _)) => return Ok(skip),
            Some((':', _)) => {
                let mut j = i + 1;
                let mut digits = 0;
                while let Some((c, _)) = self.peek(j)? {
                    if !c.is_ascii_digit() {
                        break;
                    }
                    digits += 1;
                    j += 1;
                    if digits > 5 {
                        return Ok(skip);
                    }
                }
                if digits > 0 {
                    let port: u32 = self.text[i + 1..j].parse().unwrap_or(u32::MAX);
                    if port > 65535 {
                        return Ok(skip);
                    }
                    if let Some((c, _)) = self.peek(j)? {
                        if c.is_ascii_alphabetic() {
                            return Ok(skip);
                        }
                    }
                    i = j;
                }
            }
            _ => {}
        }
        match self.peek(i)? {
            Some(('/' | '?' | '#', _)) => {
                let mut st = ScanState::default();
                let e = match self.extent(i, hs, &mut st, false)? {
                    Extent::TooLong => return Ok(Outcome::TooLong { from: hs }),
                    Extent::End(e) | Extent::Delim(e) => e,
                };
                let end = self.trim(i, e, &mut st);
                Ok(Outcome::Hit(self.found(hs, end, e, kind, false, false)))
            }
            _ => Ok(Outcome::Hit(self.found(hs, i, i, kind, false, false))),
        }
    }

    /// Bare IPv6 address around the `:` at `t` (with `schemeless`).
    fn ipv6(&mut self, t: usize) -> R<Option<Outcome>> {
        let b = self.text.as_bytes();
        let ip6 = |c: u8| c.is_ascii_hexdigit() || c == b':' || c == b'.';
        let lo = t.saturating_sub(IP6_MAX).max(self.floor);
        let mut s = t;
        while s > lo && ip6(b[s - 1]) {
            s -= 1;
        }
        if s > 0
            && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_' || (s == lo && ip6(b[s - 1])))
        {
            return Ok(None);
        }
        let mut e = t;
        loop {
            match self.peek(e)? {
                Some((c, _)) if c.is_ascii() && ip6(c as u8) => {
                    e += 1;
                    if e - s > IP6_MAX + 1 {
                        return Ok(None);
                    }
                }
                Some((c, _)) if c.is_ascii_alphanumeric() || c == '_' => return Ok(None),
                _ => break,
            }
        }
        self.work += (e - s) as u64;
        let mut end = e;
        while end > s && b[end - 1] == b'.' {
            end -= 1;
        }
        let tok = &self.text[s..end];
        if !host::is_ipv6(tok) {
            return Ok(None);
        }
        Ok(Some(Outcome::Hit(self.found(
            s,
            end,
            e,
            LinkKind::Ip,
            false,
            false,
        ))))
    }

    // ------------------------------------------------------------------ e-mail

    /// `@` with `email`: `local@domain`.
    fn at(&mut self, t: usize) -> R<Outcome> {
        let reject = Outcome::Reject { resume: t + 1 };
        let lo = t.saturating_sub(LOCAL_MAX + 1).max(self.floor);
        let mut s = t;
        while let Some((c, p)) = char_before(self.text, s) {
            if p < lo || !self.is_local_char(c) {
                break;
            }
            s = p;
        }
        self.work += (t - s) as u64;
        if let Some((c, _)) = char_before(self.text, s) {
            if s <= lo && s > self.floor && self.is_local_char(c) {
                return Ok(reject);
            }
        }
        let b = self.text.as_bytes();
        // RFC 5321 dot-atom: no leading, trailing or doubled dots
        while s < t && matches!(b[s], b'.' | b'\'' | b'`') {
            s += 1;
        }
        if let Some(k) = self.text[s..t].rfind("..") {
            s += k + 2;
        }
        if s >= t || b[t - 1] == b'.' {
            return Ok(reject);
        }
        // the domain
        let mut e = t + 1;
        while let Some((c, n)) = self.peek(e)? {
            if !(c == '.' || self.is_host_char(c)) {
                break;
            }
            e += n;
            self.work += n as u64;
            if e - t > HOST_MAX {
                return Ok(reject);
            }
        }
        let mut he = e;
        while he > t + 1 && b[he - 1] == b'.' {
            he -= 1;
        }
        if he <= t + 1 || !b[t + 1].is_ascii_alphanumeric() && b[t + 1] < 0x80 {
            return Ok(reject);
        }
        let domain = &self.text[t + 1..he];
        if domain.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return Ok(reject);
        }
        // no public-suffix list for mail domains (internal mail domains are common): two or
        // more labels and a last label of two or more letters
        let end = match host::check_dns(domain, false) {
            None => return Ok(reject),
            Some(HostCut::Whole) => he,
            Some(HostCut::Cut(n)) => t + 1 + n,
        };
        let dom = self.text[t + 1..end].trim_end_matches('.');
        match dom.rsplit_once('.') {
            Some((_, last))
                if last.chars().count() >= 2 && last.chars().all(char::is_alphabetic) => {}
            _ => return Ok(reject),
        }
        if end == he {
            match self.peek(end)? {
                Some(('@' | '/' | '?' | '#', _)) => return Ok(reject),
                Some((':', _)) => {
                    if let Some((c, _)) = self.peek(end + 1)? {
                        if c.is_ascii_digit() {
                            return Ok(reject);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(Outcome::Hit(self.found(
            s,
            end,
            e.max(end),
            LinkKind::Email,
            false,
            end < he,
        )))
    }

    fn is_local_char(&self, c: char) -> bool {
        if c.is_ascii() {
            c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c)
        } else {
            self.cls(c) == Class::Link
        }
    }
}

/// Characters other than whitespace that may stand inside a `<…>` wrapper although they end a
/// link elsewhere: printable ASCII punctuation except `"` and `<` (markup), and CJK / general
/// punctuation. Controls, bidi formatting characters, noncharacters and U+FFFD may not.
fn wrapper_char(c: char) -> bool {
    let u = c as u32;
    (0x21..0x7f).contains(&u) && c != '<' && c != '"'
        || (0x2014..=0x2027).contains(&u)
        || (0x3001..=0x303f).contains(&u)
        || (0xff00..=0xffef).contains(&u)
}

/// Checks `userinfo@host:port` after `scheme://`. `followed`: a `/` follows the authority.
/// `None`: not a link; `Some(Some(n))`: the host is cut, the link ends `n` bytes into the
/// authority; `Some(None)`: fine.
fn check_authority(scheme: &str, auth: &str, followed: bool) -> Option<Option<usize>> {
    if auth.is_empty() {
        // `file:///path`: empty authority, then a path
        return followed.then_some(None);
    }
    // the common case: a host name of ASCII letters, digits, `-` and `.`, without userinfo or
    // port; the same decisions as below, in one pass
    if let Some((dns, dot)) = host::check_simple(auth.as_bytes()) {
        if scheme.len() == 4 && scheme.eq_ignore_ascii_case("file") {
            return Some(None);
        }
        if dot || schemes::is_dns(scheme) {
            return match dns? {
                HostCut::Whole => Some(None),
                HostCut::Cut(n) => Some(Some(n)),
            };
        }
        return Some(None);
    }
    let (ui_len, hostport) = match auth.rfind('@') {
        Some(at) => {
            let ui = &auth[..at];
            if ui.contains('@') || ui.contains(['[', ']']) {
                return None;
            }
            (at + 1, &auth[at + 1..])
        }
        None => (0, auth),
    };
    if hostport.is_empty() {
        return None;
    }
    let (host, port) = if let Some(inner) = hostport.strip_prefix('[') {
        let close = inner.find(']')?;
        let lit = &inner[..close];
        let ok = host::is_ipv6(lit)
            || (lit.len() > 2
                && (lit.starts_with('v') || lit.starts_with('V'))
                && lit.contains('.'));
        if !ok {
            return None;
        }
        let rest = &inner[close + 1..];
        match rest.strip_prefix(':') {
            Some(p) => (None, Some(p)),
            None if rest.is_empty() => (None, None),
            None => return None,
        }
    } else {
        match hostport.find(':') {
            Some(c) => (Some(&hostport[..c]), Some(&hostport[c + 1..])),
            None => (Some(hostport), None),
        }
    };
    if let Some(p) = port {
        if p.len() > 5
            || !p.bytes().all(|b| b.is_ascii_digit())
            || p.parse::<u32>().unwrap_or(0) > 65535
        {
            return None;
        }
    }
    let Some(host) = host else { return Some(None) };
    if host.is_empty() {
        return None;
    }
    if host.contains(['[', ']']) {
        return None;
    }
    if scheme.eq_ignore_ascii_case("file") {
        return Some(None);
    }
    let dns_char =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '%') || !c.is_ascii();
    let dns_chars = host.chars().all(dns_char);
    if schemes::is_dns(scheme) && !dns_chars && port.is_none() {
        // `https://example.org''`, `http://example.org'/>`: sub-delimiters glued after a DNS
        // host are not part of it; the link ends with the host
        let j = host.find(|c: char| !dns_char(c)).unwrap_or(host.len());
        if j > 0 && host[j..].chars().all(|c| "~!$&'()*+,;=".contains(c)) {
            return match host::check_dns(&host[..j], false)? {
                HostCut::Whole => Some(Some(ui_len + j)),
                HostCut::Cut(n) => Some(Some(ui_len + n)),
            };
        }
    }
    if schemes::is_dns(scheme) || (dns_chars && host.contains('.')) {
        if !dns_chars {
            return None;
        }
        return match host::check_dns(host, false)? {
            HostCut::Whole => Some(None),
            HostCut::Cut(n) => Some(Some(ui_len + n)),
        };
    }
    // other schemes: an RFC 3986 reg-name (unreserved, sub-delims, pct-encoded) or IRI chars
    let reg = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~%!$&'()*+,;=".contains(c) || !c.is_ascii());
    reg.then_some(None)
}

/// ASCII bytes that [`Ctx::extent`] passes over without looking further (1; else 0): link
/// and trailing characters except `?` and `#` (they open and close the query).
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
            && !(authority && c == b'/');
        t[b] = plain as u8;
        b += 1;
    }
    t
}

/// RFC 3986 3.1 scheme characters: letters, digits, `+`, `-`, `.`.
static SCHEME_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x80 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.';
        b += 1;
    }
    t
};

#[derive(Default)]
struct ScanState {
    depth: [u32; PAIRS],
    apos: u32,
    in_query: bool,
    /// The link has non-ASCII text before this point (so glued text of a spaceless script is
    /// taken as the link's own: `http://中国.中国/foo中国`).
    not_ascii: bool,
}

enum Extent {
    /// the link's characters end here (before trimming)
    End(usize),
    /// an authority ended at `/`, `?` or `#`
    Delim(usize),
    TooLong,
}

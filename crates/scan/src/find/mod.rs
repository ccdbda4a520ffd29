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
//! the maximum link length is skipped up to the next whitespace or stop character; the look
//! ahead after a `,` inside a link for `scheme://` is bounded by [`SCHEME_MAX`] plus two
//! (JSON-escaped) slashes, and a JSON escape is read once, at most 12 bytes (`json.rs`).

//!
//! One job per file: this one has the types, the character helpers and the dispatch per trigger
//! ([`Ctx::examine`]); `scheme.rs` the links with a scheme (`:`), `schemeless.rs` those
//! without (`.`, a bare IPv6 address, `@`), `extent.rs` the table-driven forward scan and the
//! trimming of trailing punctuation that all of them end with.

mod extent;
mod json;
mod scheme;
mod schemeless;

use crate::boundary::{Class, class};
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
    /// the candidate being examined holds a JSON string escape (`json.rs`)
    pub json: bool,
    /// links inside overlong candidates that [`skip_to_stop`] passed over
    pub skipped_links: u64,
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
    /// the link was written with JSON string escapes, undone in `joined`
    pub json_escapes: bool,
    /// where scanning resumes (after a closing `>` or at `end`)
    pub resume: usize,
}

/// What one candidate came to.
#[derive(Debug)]
pub(crate) enum Outcome {
    Hit(Found),
    Reject {
        resume: usize,
    },
    /// A candidate longer than the maximum link length, starting at `from` (skipped from after
    /// its trigger).
    TooLong {
        from: usize,
    },
}

/// Skip mode after a too-long candidate (from `from`, after its trigger): `Ok` the first
/// whitespace or stop character at or after `from`; `Err(p)` when the text ends first (skipping
/// goes on from `p` when more comes). Each `scheme://` passed over (the slashes as written in
/// JSON too) adds one to [`Ctx::skipped_links`]: the overlong candidate is counted as the links
/// it held.
pub(crate) fn skip_to_stop(ctx: &mut Ctx<'_>, from: usize) -> Result<usize, usize> {
    let t = ctx.text;
    let b = t.as_bytes();
    let mut i = from;
    while i < t.len() {
        let (c, n) = char_at(t, i);
        ctx.work += n as u64;
        if c == ':' && i > 0 && b[i - 1].is_ascii_alphanumeric() {
            match ctx.slashes_at(i + 1) {
                Ok(Some(_)) => ctx.skipped_links += 1,
                Ok(None) => {}
                // decided when more text comes
                Err(NeedMore) => return Err(i),
            }
        }
        if c == '\\' {
            // a JSON escape of a character that may stand in a link does not end the candidate
            match ctx.json_escape(i) {
                Ok(Some((d, m))) if !matches!(ctx.cls(d), Class::Space { .. } | Class::Stop) => {
                    ctx.work += m as u64;
                    i += m;
                    continue;
                }
                Ok(_) => {}
                Err(NeedMore) => return Err(i),
            }
        }
        if matches!(
            class(c, ctx.opts.ascii_only),
            Class::Space { .. } | Class::Stop
        ) {
            return Ok(i);
        }
        i += n;
    }
    Err(i)
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
        self.json = false;
        match self.text.as_bytes()[t] {
            b':' => self.colon(t),
            b'.' => self.dot(t),
            _ => self.at(t),
        }
    }

    /// The text of `[s, end)` with its JSON escapes undone, when it has any.
    #[cold]
    fn unescaped(&self, s: usize, end: usize) -> Option<String> {
        let raw = &self.text[s..end];
        raw.contains('\\').then(|| json::unescape(raw))
    }

    #[inline]
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
        // the link text with its JSON escapes undone (`json.rs`)
        let joined = if self.json {
            self.unescaped(s, end)
        } else {
            None
        };
        Found {
            start: s,
            end,
            json_escapes: joined.is_some(),
            joined,
            kind,
            wrapper,
            url_prefix,
            line_breaks: false,
            trimmed_to: scanned.max(end),
            host_cut,
            resume,
        }
    }
}

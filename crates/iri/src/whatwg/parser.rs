//! URL Standard 4.4 "basic URL parser", without the state override (which only the setters of
//! the `URL` API use).
//!
//! The states are methods; a state that "decreases the pointer" and hands over passes its own
//! position on. Delimiters are ASCII, so positions are byte offsets into the input, and every
//! component is percent-encoded straight into the output: the serialization (4.5) is built
//! while parsing, with the offsets of its components, and a path is shortened by truncating it.
//! The only other allocations are the input without tabs and newlines (when it has any) and
//! host work (percent-decoding and IDNA of non-ASCII domains).

use super::host::{HostInternal, parse_host};
use super::percent::{
    self, C0_CONTROL, FRAGMENT, PATH, QUERY, SPECIAL_QUERY, USERINFO, in_set, push_pct, push_run,
};
use super::{Scheme, WebError, WebUrl};
use encoding_rs::Encoding;
use std::borrow::Cow;

/// URL Standard 4.4 "basic URL parser" of `input` against `base`, with `encoding` (`None`:
/// UTF-8) for the query.
pub(super) fn parse(
    input: &str,
    base: Option<&WebUrl>,
    encoding: Option<&'static Encoding>,
) -> Result<WebUrl, WebError> {
    // Step 1: remove leading and trailing C0 control or space (ASCII: the cuts are at
    // character boundaries).
    let b = input.as_bytes();
    let start = b.iter().position(|&c| c > b' ').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c > b' ').map_or(start, |i| i + 1);
    let trimmed = input.get(start..end).unwrap_or_default();
    // Steps 2-3: remove all ASCII tab or newline.
    let cleaned: Cow<'_, str> =
        if memchr::memchr3(b'\t', b'\n', b'\r', trimmed.as_bytes()).is_some() {
            Cow::Owned(
                trimmed
                    .chars()
                    .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                    .collect(),
            )
        } else {
            Cow::Borrowed(trimmed)
        };
    // Step 5: "getting an output encoding"; UTF-8 is `None`.
    let encoding = encoding
        .map(Encoding::output_encoding)
        .filter(|e| *e != encoding_rs::UTF_8);
    let capacity = cleaned.len() + base.map_or(0, |b| b.as_str().len()) + 16;
    let mut p = Parser {
        input: &cleaned,
        bytes: cleaned.as_bytes(),
        base,
        encoding,
        out: String::with_capacity(capacity),
        scheme: Scheme::Other,
        scheme_end: 0,
        username_end: 0,
        host_start: 0,
        host_end: 0,
        host: HostInternal::None,
        port: None,
        path_start: 0,
        opaque_path: false,
        query_start: None,
        fragment_start: None,
    };
    p.scheme_start_state()?;
    Ok(p.finish())
}

/// The URL record under construction, as its serialization and offsets (see [`WebUrl`]).
struct Parser<'a> {
    input: &'a str,
    bytes: &'a [u8],
    base: Option<&'a WebUrl>,
    encoding: Option<&'static Encoding>,
    out: String,
    scheme: Scheme,
    scheme_end: usize,
    username_end: usize,
    host_start: usize,
    host_end: usize,
    host: HostInternal,
    port: Option<u16>,
    /// Where the path starts; until the path is written, where the authority ends.
    path_start: usize,
    opaque_path: bool,
    query_start: Option<usize>,
    fragment_start: Option<usize>,
}

/// Byte class: ends the authority (authority state: `/`, `?`, `#`, and `\` if special).
const ENDS_AUTHORITY: u8 = 1;
/// Byte class: ends a path segment (path state: `/`, `?`, `#`, and `\` if special).
const ENDS_SEGMENT: u8 = 2;
/// Byte class: in the path percent-encode set (all non-ASCII bytes too).
const ENCODE_IN_PATH: u8 = 4;

/// The byte classes for a special URL (`special`) or another one.
const fn classes(special: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let delim = b == b'/' || b == b'?' || b == b'#' || (special && b == b'\\');
        if delim {
            t[i] = ENDS_AUTHORITY | ENDS_SEGMENT;
        }
        if percent::in_set(b, PATH) {
            t[i] |= ENCODE_IN_PATH;
        }
        i += 1;
    }
    t
}

/// [`classes`] of special URLs.
static SPECIAL_CLASSES: [u8; 256] = classes(true);
/// [`classes`] of other URLs.
static OTHER_CLASSES: [u8; 256] = classes(false);

/// URL Standard 4.2: a Windows drive letter (an ASCII alpha, then `:` or `|`).
fn is_windows_drive_letter(s: &[u8]) -> bool {
    s.len() == 2 && s[0].is_ascii_alphabetic() && matches!(s[1], b':' | b'|')
}

/// URL Standard 4.2: a normalized Windows drive letter (an ASCII alpha, then `:`).
fn is_normalized_windows_drive_letter(s: &[u8]) -> bool {
    is_windows_drive_letter(s) && s[1] == b':'
}

/// URL Standard 4.2: "starts with a Windows drive letter".
fn starts_with_windows_drive_letter(s: &[u8]) -> bool {
    s.len() >= 2
        && is_windows_drive_letter(&s[..2])
        && (s.len() == 2 || matches!(s[2], b'/' | b'\\' | b'?' | b'#'))
}

/// URL Standard 4.1: a single-dot URL path segment (`.` or `%2e`, any case).
fn is_single_dot(s: &[u8]) -> bool {
    s == b"." || s.eq_ignore_ascii_case(b"%2e")
}

/// URL Standard 4.1: a double-dot URL path segment (`..`, `.%2e`, `%2e.`, `%2e%2e`, any case).
fn is_double_dot(s: &[u8]) -> bool {
    match s.len() {
        2 => s == b"..",
        4 => s.eq_ignore_ascii_case(b".%2e") || s.eq_ignore_ascii_case(b"%2e."),
        6 => s.eq_ignore_ascii_case(b"%2e%2e"),
        _ => false,
    }
}

/// The length of the scheme at the start of `s` when `s` starts with a scheme and `:` (URL
/// Standard 4.4 "scheme start state" and "scheme state").
fn scheme_len(s: &[u8]) -> Option<usize> {
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = s
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (s[n] == b':').then_some(n)
}

impl<'a> Parser<'a> {
    #[inline]
    fn at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    #[inline]
    fn special(&self) -> bool {
        self.scheme.is_special()
    }

    /// `input[from..to]` (positions at ASCII delimiters or the ends, so character boundaries).
    #[inline]
    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.input.get(from..to).unwrap_or_default()
    }

    /// Sets the scheme (lowercase, with its `:`) and marks an empty authority after it.
    fn set_scheme(&mut self, scheme: &str) {
        self.out.clear();
        self.out.push_str(scheme);
        self.out.make_ascii_lowercase();
        self.scheme = Scheme::from_lowercase(&self.out);
        self.scheme_end = self.out.len();
        self.out.push(':');
        self.mark_authority_end();
    }

    /// The authority is written (or absent): the path starts here.
    fn mark_authority_end(&mut self) {
        if self.host == HostInternal::None {
            self.username_end = self.out.len();
            self.host_start = self.out.len();
            self.host_end = self.out.len();
        }
        self.path_start = self.out.len();
    }

    /// "scheme start state" and "scheme state".
    fn scheme_start_state(&mut self) -> Result<(), WebError> {
        match scheme_len(self.bytes) {
            Some(n) => {
                self.set_scheme(self.slice(0, n));
                self.after_scheme(n + 1)
            }
            None => self.no_scheme_state(),
        }
    }

    /// "scheme state" after `:`, with `pos` the position after it.
    fn after_scheme(&mut self, pos: usize) -> Result<(), WebError> {
        let rest = self.bytes.get(pos..).unwrap_or_default();
        if self.scheme == Scheme::File {
            return self.file_state(pos);
        }
        if self.special() {
            let base_same = self.base.is_some_and(|b| b.scheme() == self.scheme_str());
            if base_same {
                // "special relative or authority state"
                return if rest.starts_with(b"//") {
                    self.special_authority_ignore_slashes_state(pos + 2)
                } else {
                    self.relative_state(pos)
                };
            }
            // "special authority slashes state"
            let pos = if rest.starts_with(b"//") {
                pos + 2
            } else {
                pos
            };
            return self.special_authority_ignore_slashes_state(pos);
        }
        if rest.first() == Some(&b'/') {
            // "path or authority state"
            if rest.get(1) == Some(&b'/') {
                return self.authority_state(pos + 2);
            }
            return self.path_state(pos + 1);
        }
        self.opaque_path_state(pos)
    }

    fn scheme_str(&self) -> &str {
        self.out.get(..self.scheme_end).unwrap_or_default()
    }

    /// "no scheme state".
    fn no_scheme_state(&mut self) -> Result<(), WebError> {
        let base = self.base.ok_or(WebError::MissingScheme)?;
        if base.has_opaque_path() {
            if self.at(0) != Some(b'#') {
                return Err(WebError::MissingScheme);
            }
            // The base's scheme, path and query, and a new fragment.
            let end = base.fragment_start.unwrap_or(base.as_str().len());
            self.out.clear();
            self.out.push_str(base.slice(0, end));
            self.scheme = base.scheme;
            self.scheme_end = base.scheme_end;
            self.username_end = base.username_end;
            self.host_start = base.host_start;
            self.host_end = base.host_end;
            self.path_start = base.path_start;
            self.opaque_path = true;
            self.query_start = base.query_start;
            return self.fragment_state(1);
        }
        if base.scheme == Scheme::File {
            self.set_scheme("file");
            return self.file_state(0);
        }
        self.relative_state(0)
    }

    /// Copies the base's scheme and authority (username, password, host, port).
    fn copy_base_authority(&mut self, base: &WebUrl) {
        self.out.clear();
        self.out.push_str(base.slice(0, base.authority_end));
        self.scheme = base.scheme;
        self.scheme_end = base.scheme_end;
        self.username_end = base.username_end;
        self.host_start = base.host_start;
        self.host_end = base.host_end;
        self.host = base.host;
        self.port = base.port;
        self.path_start = self.out.len();
    }

    /// Copies the base's path (a list: the base is not opaque here).
    fn copy_base_path(&mut self, base: &WebUrl) {
        self.out.push_str(base.path());
    }

    /// Copies the base's query.
    fn copy_base_query(&mut self, base: &WebUrl) {
        if let Some(q) = base.query() {
            self.query_start = Some(self.out.len());
            self.out.push('?');
            self.out.push_str(q);
        }
    }

    /// "relative state" (the base is not a `file` URL and has no opaque path).
    fn relative_state(&mut self, pos: usize) -> Result<(), WebError> {
        let base = self.base.ok_or(WebError::MissingScheme)?;
        self.set_scheme(base.scheme());
        let c = self.at(pos);
        if c == Some(b'/') || (self.special() && c == Some(b'\\')) {
            return self.relative_slash_state(base, pos + 1);
        }
        self.copy_base_authority(base);
        self.copy_base_path(base);
        match c {
            None => {
                self.copy_base_query(base);
                Ok(())
            }
            Some(b'?') => self.query_state(pos + 1),
            Some(b'#') => {
                self.copy_base_query(base);
                self.fragment_state(pos + 1)
            }
            Some(_) => {
                self.shorten();
                self.path_state(pos)
            }
        }
    }

    /// "relative slash state".
    fn relative_slash_state(&mut self, base: &WebUrl, pos: usize) -> Result<(), WebError> {
        match self.at(pos) {
            Some(b'/' | b'\\') if self.special() => {
                self.special_authority_ignore_slashes_state(pos + 1)
            }
            Some(b'/') => self.authority_state(pos + 1),
            _ => {
                self.copy_base_authority(base);
                self.path_state(pos)
            }
        }
    }

    /// "special authority ignore slashes state".
    fn special_authority_ignore_slashes_state(&mut self, pos: usize) -> Result<(), WebError> {
        let skip = self.bytes[pos.min(self.bytes.len())..]
            .iter()
            .take_while(|&&b| b == b'/' || b == b'\\')
            .count();
        self.authority_state(pos + skip)
    }

    /// "authority state": the userinfo before the last `@`, then the "host state".
    fn authority_state(&mut self, pos: usize) -> Result<(), WebError> {
        let table = if self.special() {
            &SPECIAL_CLASSES
        } else {
            &OTHER_CLASSES
        };
        let mut end = pos;
        while end < self.bytes.len() && table[usize::from(self.bytes[end])] & ENDS_AUTHORITY == 0 {
            end += 1;
        }
        self.out.push_str("//");
        let userinfo_start = self.out.len();
        let authority = self.slice(pos, end);
        let mut host_pos = pos;
        if let Some(at) = memchr::memrchr(b'@', authority.as_bytes()) {
            if at + 1 == authority.len() {
                return Err(WebError::HostMissing);
            }
            let userinfo = &authority[..at];
            let (username, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
            percent::utf8_percent_encode(&mut self.out, username, USERINFO);
            self.username_end = self.out.len();
            if !password.is_empty() {
                self.out.push(':');
                percent::utf8_percent_encode(&mut self.out, password, USERINFO);
            }
            if self.out.len() > userinfo_start {
                self.out.push('@');
            }
            host_pos = pos + at + 1;
        } else {
            self.username_end = userinfo_start;
        }
        self.host_start = self.out.len();
        self.host_state(host_pos, end)
    }

    /// Parses `input[from..to]` as the host and writes it.
    fn set_host(&mut self, from: usize, to: usize) -> Result<(), WebError> {
        let input = self.slice(from, to);
        self.host = parse_host(input, !self.special(), &mut self.out)?;
        self.host_end = self.out.len();
        Ok(())
    }

    /// "host state": the host ends at a `:` outside brackets or at the end of the authority.
    fn host_state(&mut self, pos: usize, end: usize) -> Result<(), WebError> {
        let mut inside_brackets = false;
        let mut i = pos;
        while i < end {
            match self.bytes[i] {
                b'[' => inside_brackets = true,
                b']' => inside_brackets = false,
                b':' if !inside_brackets => break,
                _ => {}
            }
            i += 1;
        }
        if i < end {
            if i == pos {
                return Err(WebError::HostMissing);
            }
            self.set_host(pos, i)?;
            return self.port_state(i + 1, end);
        }
        if self.special() && pos == end {
            return Err(WebError::HostMissing);
        }
        self.set_host(pos, end)?;
        self.path_start_state(end)
    }

    /// "port state": ASCII digits up to the end of the authority.
    fn port_state(&mut self, pos: usize, end: usize) -> Result<(), WebError> {
        let digits = self.bytes.get(pos..end).unwrap_or_default();
        if !digits.iter().all(u8::is_ascii_digit) {
            return Err(WebError::InvalidPort);
        }
        if !digits.is_empty() {
            let mut port: u32 = 0;
            for &d in digits {
                port = port * 10 + u32::from(d - b'0');
                if port > u32::from(u16::MAX) {
                    return Err(WebError::PortOutOfRange);
                }
            }
            let port = u16::try_from(port).map_err(|_| WebError::PortOutOfRange)?;
            if Some(port) != self.scheme.default_port() {
                self.out.push(':');
                percent::push_decimal(&mut self.out, u32::from(port));
                self.port = Some(port);
            }
        }
        self.path_start_state(end)
    }

    /// Writes the empty host (of a `file` URL).
    fn set_empty_host(&mut self) {
        self.out.push_str("//");
        self.username_end = self.out.len();
        self.host_start = self.out.len();
        self.host_end = self.out.len();
        self.host = HostInternal::Empty;
        self.path_start = self.out.len();
    }

    /// "file state" (the scheme is set to `file`).
    fn file_state(&mut self, pos: usize) -> Result<(), WebError> {
        let base = self.base.filter(|b| b.scheme == Scheme::File);
        let c = self.at(pos);
        if matches!(c, Some(b'/' | b'\\')) {
            return self.file_slash_state(base, pos + 1);
        }
        let Some(base) = base else {
            self.set_empty_host();
            return self.path_state(pos);
        };
        self.copy_base_authority(base);
        match c {
            None => {
                self.copy_base_path(base);
                self.copy_base_query(base);
                Ok(())
            }
            Some(b'?') => {
                self.copy_base_path(base);
                self.query_state(pos + 1)
            }
            Some(b'#') => {
                self.copy_base_path(base);
                self.copy_base_query(base);
                self.fragment_state(pos + 1)
            }
            Some(_) => {
                // The Windows drive letter quirk: a drive letter replaces the whole path.
                if !starts_with_windows_drive_letter(&self.bytes[pos..]) {
                    self.copy_base_path(base);
                    self.shorten();
                }
                self.path_state(pos)
            }
        }
    }

    /// "file slash state".
    fn file_slash_state(&mut self, base: Option<&WebUrl>, pos: usize) -> Result<(), WebError> {
        if matches!(self.at(pos), Some(b'/' | b'\\')) {
            return self.file_host_state(pos + 1);
        }
        match base {
            Some(base) => {
                self.copy_base_authority(base);
                // The Windows drive letter quirk: keep the base's drive.
                let rest = self.bytes.get(pos..).unwrap_or_default();
                let first = base.path().get(1..).unwrap_or_default();
                let first = first.split('/').next().unwrap_or_default();
                if !starts_with_windows_drive_letter(rest)
                    && is_normalized_windows_drive_letter(first.as_bytes())
                {
                    self.out.push('/');
                    self.out.push_str(first);
                }
            }
            None => self.set_empty_host(),
        }
        self.path_state(pos)
    }

    /// "file host state".
    fn file_host_state(&mut self, pos: usize) -> Result<(), WebError> {
        let rest = self.bytes.get(pos..).unwrap_or_default();
        let end = pos
            + rest
                .iter()
                .position(|b| matches!(b, b'/' | b'\\' | b'?' | b'#'))
                .unwrap_or(rest.len());
        self.set_empty_host();
        if is_windows_drive_letter(&self.bytes[pos..end]) {
            // The quirk: the drive letter is the first path segment, the host stays empty.
            return self.path_state(pos);
        }
        if pos < end {
            self.set_host(pos, end)?;
            if self.out.get(self.host_start..) == Some("localhost") {
                self.out.truncate(self.host_start);
                self.host = HostInternal::Empty;
                self.host_end = self.host_start;
            }
        }
        self.path_start_state(end)
    }

    /// "path start state".
    fn path_start_state(&mut self, pos: usize) -> Result<(), WebError> {
        self.mark_authority_end();
        let c = self.at(pos);
        if self.special() {
            let pos = if matches!(c, Some(b'/' | b'\\')) {
                pos + 1
            } else {
                pos
            };
            return self.path_state(pos);
        }
        match c {
            Some(b'?') => self.query_state(pos + 1),
            Some(b'#') => self.fragment_state(pos + 1),
            Some(b'/') => self.path_state(pos + 1),
            Some(_) => self.path_state(pos),
            None => Ok(()),
        }
    }

    /// URL Standard 4.2 "shorten a url's path".
    fn shorten(&mut self) {
        let path = self
            .out
            .get(self.path_start..)
            .unwrap_or_default()
            .as_bytes();
        if self.scheme == Scheme::File
            && path.len() == 3
            && is_normalized_windows_drive_letter(&path[1..])
        {
            return;
        }
        if let Some(i) = path.iter().rposition(|&b| b == b'/') {
            self.out.truncate(self.path_start + i);
        }
    }

    /// "path state", from the start of a segment at `pos`: one segment per round, each
    /// written as `/` and its percent-encoded text, then checked for dots.
    fn path_state(&mut self, mut pos: usize) -> Result<(), WebError> {
        let special = self.special();
        let table = if special {
            &SPECIAL_CLASSES
        } else {
            &OTHER_CLASSES
        };
        let len = self.bytes.len();
        loop {
            let seg_start = self.out.len();
            self.out.push('/');
            let mut i = pos;
            loop {
                let run = i;
                while i < len
                    && table[usize::from(self.bytes[i])] & (ENCODE_IN_PATH | ENDS_SEGMENT) == 0
                {
                    i += 1;
                }
                push_run(&mut self.out, self.input, run, i);
                match self.bytes.get(i) {
                    Some(&b) if table[usize::from(b)] & ENDS_SEGMENT == 0 => {
                        push_pct(&mut self.out, b);
                        i += 1;
                    }
                    _ => break,
                }
            }
            let c = self.at(i);
            let slash = c == Some(b'/') || (special && c == Some(b'\\'));
            let segment = self.out.as_bytes().get(seg_start + 1..).unwrap_or_default();
            if is_double_dot(segment) {
                self.out.truncate(seg_start);
                self.shorten();
                if !slash {
                    self.out.push('/');
                }
            } else if is_single_dot(segment) {
                self.out.truncate(seg_start);
                if !slash {
                    self.out.push('/');
                }
            } else if self.scheme == Scheme::File
                && seg_start == self.path_start
                && is_windows_drive_letter(segment)
            {
                // The Windows drive letter quirk: `C|` is written `C:`.
                self.out.truncate(seg_start + 2);
                self.out.push(':');
            }
            match c {
                None => return Ok(()),
                Some(b'?') => return self.query_state(i + 1),
                Some(b'#') => return self.fragment_state(i + 1),
                Some(_) => pos = i + 1,
            }
        }
    }

    /// "opaque path state".
    fn opaque_path_state(&mut self, pos: usize) -> Result<(), WebError> {
        self.opaque_path = true;
        self.path_start = self.out.len();
        let len = self.bytes.len();
        let mut i = pos;
        let mut run = pos;
        while i < len {
            let b = self.bytes[i];
            if b == b'?' || b == b'#' {
                break;
            }
            if b == b' ' {
                // A space before `?` or `#` is written `%20` (else it would be trimmed when the
                // serialization is parsed again).
                if matches!(self.at(i + 1), Some(b'?' | b'#')) {
                    push_run(&mut self.out, self.input, run, i);
                    self.out.push_str("%20");
                    run = i + 1;
                }
            } else if in_set(b, C0_CONTROL) {
                push_run(&mut self.out, self.input, run, i);
                push_pct(&mut self.out, b);
                run = i + 1;
            }
            i += 1;
        }
        push_run(&mut self.out, self.input, run, i);
        match self.at(i) {
            Some(b'?') => self.query_state(i + 1),
            Some(b'#') => self.fragment_state(i + 1),
            _ => Ok(()),
        }
    }

    /// "query state": up to `#` or the end, encoded as a whole (the encoding override may be
    /// stateful).
    fn query_state(&mut self, pos: usize) -> Result<(), WebError> {
        let rest = self.bytes.get(pos..).unwrap_or_default();
        let end = pos + memchr::memchr(b'#', rest).unwrap_or(rest.len());
        self.query_start = Some(self.out.len());
        self.out.push('?');
        let query = self.slice(pos, end);
        let set = if self.special() { SPECIAL_QUERY } else { QUERY };
        // Step 1: the encoding override applies to special URLs other than ws and wss.
        let legacy = self
            .encoding
            .filter(|_| self.special() && !matches!(self.scheme, Scheme::Ws | Scheme::Wss));
        match legacy {
            Some(e) => percent::encode_after_encoding(&mut self.out, query, e, set),
            None => percent::utf8_percent_encode(&mut self.out, query, set),
        }
        if end < self.bytes.len() {
            return self.fragment_state(end + 1);
        }
        Ok(())
    }

    /// "fragment state": the rest of the input.
    fn fragment_state(&mut self, pos: usize) -> Result<(), WebError> {
        self.fragment_start = Some(self.out.len());
        self.out.push('#');
        let fragment = self.input.get(pos..).unwrap_or_default();
        percent::utf8_percent_encode(&mut self.out, fragment, FRAGMENT);
        Ok(())
    }

    /// The record; URL Standard 4.5 "URL serializer" step 3: a path that would read as an
    /// authority (no host, a list path starting with an empty segment) gets `/.` before it.
    fn finish(mut self) -> WebUrl {
        let authority_end = self.path_start;
        if self.host == HostInternal::None
            && !self.opaque_path
            && self
                .out
                .get(self.path_start..)
                .is_some_and(|p| p.starts_with("//"))
        {
            self.out.insert_str(self.path_start, "/.");
            self.path_start += 2;
            self.query_start = self.query_start.map(|q| q + 2);
            self.fragment_start = self.fragment_start.map(|f| f + 2);
        }
        WebUrl {
            serialization: self.out,
            scheme: self.scheme,
            scheme_end: self.scheme_end,
            username_end: self.username_end,
            host_start: self.host_start,
            host_end: self.host_end,
            host: self.host,
            port: self.port,
            authority_end,
            path_start: self.path_start,
            opaque_path: self.opaque_path,
            query_start: self.query_start,
            fragment_start: self.fragment_start,
        }
    }
}

//! Links with a scheme, from the `:` after it: `scheme://authority...` (hierarchical), a
//! registered scheme without `//` (opaque: `mailto:`, `urn:`), and `<scheme:...>` wrappers with
//! whitespace inside (RFC 3986 appendix C).

use super::extent::{Extent, ScanState};
use super::{Ctx, Found, NeedMore, Outcome, R, SCHEME_MAX, json};
use crate::boundary::Class;
use crate::host::{self, HostCut};
use crate::schemes::{self, OPAQUE_CHECK_WINDOW, OpaqueCheck};
use crate::{LinkKind, Wrapper};

impl Ctx<'_> {
    pub(super) fn colon(&mut self, t: usize) -> R<Outcome> {
        let b = self.text.as_bytes();
        // fast reject for the common `word: text`, `a::b`, `12:30`: neither `//` nor the start
        // of an opaque IRI follows, or no letter precedes
        if !self.opts.schemeless {
            let next = b.get(t + 1).copied();
            if next.is_none() && !self.eof {
                return Err(NeedMore);
            }
            // `/`, or `\` of a JSON-escaped slash (`http:\/\/`)
            let slash = matches!(next, Some(b'/' | b'\\'));
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
        if s < t
            && let Some(o) = self.scheme_link(s, t)?
        {
            return Ok(o);
        }
        if self.opts.schemeless
            && let Some(o) = self.ipv6(t)?
        {
            return Ok(o);
        }
        Ok(Outcome::Reject { resume: t + 1 })
    }

    /// `URL:` (with or without a space) right before `s`: the start of that prefix.
    pub(super) fn url_prefix(&self, s: usize) -> Option<usize> {
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
        if scheme.eq_ignore_ascii_case("url")
            && let Some((c, _)) = self.peek(t + 1)?
            && (c == ' ' || c.is_ascii_alphabetic())
        {
            return Ok(None);
        }
        let prefix = self.url_prefix(s);
        let outer = prefix.unwrap_or(s);
        let angle = outer > 0 && b[outer - 1] == b'<';
        // the slashes after ':' (`//`, or JSON-escaped: `\/\/`, `\u002F\u002F`) decide
        // between `scheme://` and an opaque scheme
        // the common case `//` without a call; else JSON-escaped slashes (`\/\/`), or not
        let plain = b.get(t + 1..t + 3) == Some(b"//");
        let escaped = if plain {
            None
        } else {
            self.slashes_at(t + 1)?.map(|(n, _)| n)
        };
        let slashes = plain || escaped.is_some();
        let check = schemes::opaque(scheme);
        if !slashes && check.is_none() {
            return Ok(None);
        }
        // (`<…>` wrappers hold links as written in text, not in JSON strings)
        if angle
            && escaped.is_none()
            && let Some(f) = self.angle(s, t, slashes, prefix.is_some())?
        {
            return Ok(Some(Outcome::Hit(f)));
        }
        // a registered opaque scheme with `//` is read as hierarchical: `news://host/group`
        // (RFC 5538 2.1) beside `news:comp.lang`
        if slashes {
            let a = match escaped {
                Some(n) => {
                    self.json = true;
                    t + 1 + n
                }
                None => t + 3,
            };
            return self.hierarchical(s, t, a, prefix.is_some()).map(Some);
        }
        let Some(check) = check else {
            return Ok(None);
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
            json_escapes: false,
            resume: close + 1,
        }))
    }

    /// `scheme://authority path`; the authority starts at `a`.
    fn hierarchical(&mut self, s: usize, t: usize, a: usize, url_prefix: bool) -> R<Outcome> {
        let mut st = ScanState::default();
        st.json = self.json;
        let (auth_end, more, scanned) = match self.extent(a, s, &mut st, true)? {
            Extent::TooLong => return Ok(Outcome::TooLong { from: s }),
            Extent::Delim(p) => (p, true, p),
            Extent::End(e) => (self.trim(a, e, &mut st), false, e),
        };
        let b = self.text.as_bytes();
        let followed = more
            && (b[auth_end] == b'/'
                || b[auth_end] == b'\\'
                    && matches!(self.json_escape(auth_end), Ok(Some(('/', _)))));
        let scheme = &self.text[s..t];
        let raw_auth = &self.text[a..auth_end];
        // an authority with JSON escapes is checked as the text it stands for
        let decoded = (self.json && raw_auth.contains('\\')).then(|| json::unescape(raw_auth));
        let auth = decoded.as_deref().unwrap_or(raw_auth);
        let Some(cut) = check_authority(scheme, auth, followed) else {
            return Ok(Outcome::Reject { resume: t + 1 });
        };
        if let Some(n) = cut {
            let n = match &decoded {
                Some(_) => json::raw_offset(raw_auth, n),
                None => n,
            };
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
    // RFC 3986 3.2.3: port = *DIGIT, of any value (`linksieve parse` reads it so); whether a
    // port above 65535 has a key is the keying stage's to decide (a counted rejection there)
    if let Some(p) = port
        && !p.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
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

//! Links without a scheme: a host name or an IPv4 address from a `.` (`schemeless`), a bare IPv6
//! address around a `:` (`schemeless`), an e-mail address from an `@` (`email`).

use super::extent::{Extent, ScanState};
use super::{Ctx, HOST_MAX, IP6_MAX, LOCAL_MAX, Outcome, R, char_before};
use crate::LinkKind;
use crate::boundary::Class;
use crate::host::{self, HostCut};

impl Ctx<'_> {
    /// `.` with `schemeless`: a host run with a public suffix (or an IPv4 address), then an
    /// optional port and path.
    pub(super) fn dot(&mut self, t: usize) -> R<Outcome> {
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
        if glue == 0
            && let Some((p, q)) = char_before(self.text, s)
        {
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
                    if let Some((c, _)) = self.peek(j)?
                        && c.is_ascii_alphabetic()
                    {
                        return Ok(skip);
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
    pub(super) fn ipv6(&mut self, t: usize) -> R<Option<Outcome>> {
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
    pub(super) fn at(&mut self, t: usize) -> R<Outcome> {
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
        if let Some((c, _)) = char_before(self.text, s)
            && s <= lo
            && s > self.floor
            && self.is_local_char(c)
        {
            return Ok(reject);
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
                    if let Some((c, _)) = self.peek(end + 1)?
                        && c.is_ascii_digit()
                    {
                        return Ok(reject);
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
            LOCAL_CHAR[c as usize]
        } else {
            self.cls(c) == Class::Link
        }
    }
}

/// The ASCII characters of an e-mail local part (RFC 5322 `atext` and `.`): letters, digits and
/// [`LOCAL_PUNCT`]. A table, not a search of the string per character: the look back of every
/// `@` and the run after every `.` ask for each of their characters.
static LOCAL_CHAR: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let p = LOCAL_PUNCT.as_bytes();
    let mut i = 0;
    while i < p.len() {
        t[p[i] as usize] = true;
        i += 1;
    }
    t
};

/// The punctuation of an e-mail local part.
const LOCAL_PUNCT: &str = "!#$%&'*+-/=?^_`{|}~.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_char_table_is_letters_digits_and_the_punctuation() {
        for b in 0..128u8 {
            let c = b as char;
            let want = c.is_ascii_alphanumeric() || LOCAL_PUNCT.contains(c);
            assert_eq!(LOCAL_CHAR[b as usize], want, "{c:?}");
        }
    }
}

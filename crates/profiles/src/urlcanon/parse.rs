//! urlcanon 0.3.1 `parse.py`: `parse_url` and `parse_pathish`, hand-written from its regular
//! expressions (`LEADING_JUNK_REGEX`, `TRAILING_JUNK_REGEX`, `URL_REGEX`,
//! `SPECIAL_PATHISH_REGEX`, `NONSPECIAL_PATHISH_REGEX`, `FILE_PATHISH_REGEX`,
//! `AUTHORITY_REGEX`), plus the re-parse of `canon.py` `default_scheme_http`.
//!
//! Every field is a slice of the input: nothing here allocates.

/// The fields of urlcanon's `ParsedUrl` that its canonicalizers read, as slices of the input.
/// A separator that urlcanon keeps as its own field (`colon_before_port`, `question_mark`,
/// `hash_sign`) is the `Some` of the field after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Parts<'a> {
    /// `scheme` (`None`: there was no `scheme:`; `default_scheme_http` has not run yet).
    pub scheme: Option<&'a [u8]>,
    /// `slashes`.
    pub slashes: &'a [u8],
    /// `username`.
    pub username: &'a [u8],
    /// `password` (the colon before it is not needed: the canonicalizers drop userinfo).
    pub password: &'a [u8],
    /// `host`.
    pub host: &'a [u8],
    /// `port`, `Some` when there is a `colon_before_port`.
    pub port: Option<&'a [u8]>,
    /// `path`.
    pub path: &'a [u8],
    /// `query`, `Some` when there is a `question_mark`.
    pub query: Option<&'a [u8]>,
    /// `fragment`, `Some` when there is a `hash_sign`.
    pub fragment: Option<&'a [u8]>,
}

/// How `parse_pathish` reads the part after the scheme; chosen by the scheme with tabs and
/// newlines removed, lower-cased (`clean_scheme`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `FILE_PATHISH_REGEX`: two slashes (or backslashes) required, no userinfo or port.
    File,
    /// `SPECIAL_PATHISH_REGEX`: any run of slashes and backslashes, then the authority.
    Special,
    /// `NONSPECIAL_PATHISH_REGEX`: exactly two slashes required.
    NonSpecial,
}

/// Tab, LF, CR: `TAB_AND_NEWLINE_REGEX`.
pub(super) const fn is_tab(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\r')
}

/// Whether `scheme`, with tabs and newlines removed and ASCII lower-cased, is `name`.
fn clean_eq(scheme: &[u8], name: &[u8]) -> bool {
    let mut it = scheme.iter().filter(|b| !is_tab(**b));
    for n in name {
        match it.next() {
            Some(b) if b.to_ascii_lowercase() == *n => {}
            _ => return false,
        }
    }
    it.next().is_none()
}

/// `parse_url(input)` followed by `default_scheme_http` (the first steps of both profiles).
pub(super) fn parse(input: &[u8]) -> Parts<'_> {
    // LEADING_JUNK_REGEX, TRAILING_JUNK_REGEX: C0 controls and space at either end.
    let start = input.iter().position(|&b| b > 0x20).unwrap_or(input.len());
    let s = &input[start..];
    let end = s.iter().rposition(|&b| b > 0x20).map_or(0, |i| i + 1);
    let s = &s[..end];
    let mut p = Parts::default();
    // URL_REGEX: `[a-zA-Z][^:]*:` (the scheme runs to the first colon, whatever it holds),
    // then the pathish up to the first `?` or `#`, the query up to the first `#` after it.
    let mut rest = s;
    if let (Some(c), Some(i)) = (s.first(), memchr::memchr(b':', s))
        && c.is_ascii_alphabetic()
    {
        p.scheme = Some(&s[..i]);
        rest = &s[i + 1..];
    }
    let cut = memchr::memchr2(b'?', b'#', rest).unwrap_or(rest.len());
    let pathish = &rest[..cut];
    if cut < rest.len() {
        let after = &rest[cut + 1..];
        if rest[cut] == b'?' {
            match memchr::memchr(b'#', after) {
                Some(h) => {
                    p.query = Some(&after[..h]);
                    p.fragment = Some(&after[h + 1..]);
                }
                None => p.query = Some(after),
            }
        } else {
            p.fragment = Some(after);
        }
    }
    if !pathish.is_empty() {
        let kind = match p.scheme {
            Some(sc) if clean_eq(sc, b"file") => Kind::File,
            Some(sc) if super::SPECIAL.iter().any(|(n, _)| clean_eq(sc, n)) => Kind::Special,
            _ => Kind::NonSpecial,
        };
        parse_pathish(&mut p, kind, pathish);
    }
    // canon.py default_scheme_http: no scheme gives `http:`, and the path (only the path:
    // an authority found by the non-special reading is kept unless the path is not empty)
    // is read again as a special URL's pathish.
    if p.scheme.is_none() {
        p.scheme = Some(b"http");
        if !p.path.is_empty() {
            let path = p.path;
            parse_pathish(&mut p, Kind::Special, path);
        }
    }
    p
}

/// The length of the `[\r\n\t]*` run at the start of `s`.
fn tabs(s: &[u8]) -> usize {
    s.iter().take_while(|b| is_tab(**b)).count()
}

/// The length of `[\r\n\t]* (?:SLASH [\r\n\t]*){2}` at the start of `s`, if it is there.
fn two_slashes(s: &[u8], slash: impl Fn(u8) -> bool) -> Option<usize> {
    let mut i = tabs(s);
    for _ in 0..2 {
        if !s.get(i).is_some_and(|b| slash(*b)) {
            return None;
        }
        i += 1;
        i += tabs(&s[i..]);
    }
    Some(i)
}

/// `parse_pathish`: fills slashes, userinfo, host, port and path from `pathish`. Where its
/// regular expression does not match, only the path is set (the other fields keep their values).
fn parse_pathish<'a>(p: &mut Parts<'a>, kind: Kind, pathish: &'a [u8]) {
    let is_sep = |b: u8| b == b'/' || (kind != Kind::NonSpecial && b == b'\\');
    let slashes = match kind {
        Kind::Special => pathish
            .iter()
            .take_while(|b| matches!(b, b'/' | b'\\') || is_tab(**b))
            .count(),
        Kind::File => match two_slashes(pathish, is_sep) {
            Some(n) => n,
            None => {
                p.path = pathish;
                return;
            }
        },
        Kind::NonSpecial => match two_slashes(pathish, |b| b == b'/') {
            Some(n) => n,
            None => {
                p.path = pathish;
                return;
            }
        },
    };
    p.slashes = &pathish[..slashes];
    let rest = &pathish[slashes..];
    let a = rest.iter().position(|b| is_sep(*b)).unwrap_or(rest.len());
    p.path = &rest[a..];
    let authority = &rest[..a];
    if kind == Kind::File {
        p.host = authority;
        return;
    }
    // AUTHORITY_REGEX: `(?:(?P<username>[^:]*)(:(?P<password>.*))?@)?` backtracks to the
    // first colon with the last `@` after it, else to the last `@` before the first colon.
    let colon = memchr::memchr(b':', authority).unwrap_or(authority.len());
    let (mut username, mut password, mut hostport) = (&b""[..], &b""[..], authority);
    match memchr::memrchr(b'@', authority) {
        Some(at) if at > colon => {
            username = &authority[..colon];
            password = &authority[colon + 1..at];
            hostport = &authority[at + 1..];
        }
        _ => {
            if let Some(at) = memchr::memrchr(b'@', &authority[..colon]) {
                username = &authority[..at];
                hostport = &authority[at + 1..];
            }
        }
    }
    p.username = username;
    p.password = password;
    // `(?P<host>\[[^]]*\]|[^:]*)(?:(?P<colon_before_port>:)(?P<port>.*))?`
    let bracket = match (hostport.first(), memchr::memchr(b']', hostport)) {
        (Some(b'['), Some(j)) if j + 1 == hostport.len() || hostport[j + 1] == b':' => Some(j + 1),
        _ => None,
    };
    let h = bracket.unwrap_or_else(|| memchr::memchr(b':', hostport).unwrap_or(hostport.len()));
    p.host = &hostport[..h];
    p.port = (h < hostport.len()).then(|| &hostport[h + 1..]);
}

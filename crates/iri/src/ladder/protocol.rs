//! The protocol rung (CMP 4.4; RFC 3987 5.3.4): the fragment is dropped (the rung is for
//! network actions, CMP 2: "fragment components (if any) MUST be excluded"), then optional
//! crawler rules and equivalences learned from redirects.

use super::{NormalizeOptions, Rung, owned_key};
use crate::input::InputMode;
use crate::parse::{IriRef, Parts};
use crate::resolve::remove_dot_segments;
use std::collections::HashMap;

/// Crawler rules of the protocol rung, read from a TOML file. Every rule is off unless the file
/// turns it on. `version` is required: it names the rule set, so that keys made with different
/// rules are not mixed up (a frontier records it with its keys).
///
/// ```
/// let rules = linksieve_iri::Rules::from_toml(r#"
///     version = 3
///     sort_query = true
///     remove_params = ["jsessionid", "PHPSESSID", "sid"]
///     strip_www = true
///     index_files = ["index.html", "index.htm"]
/// "#).unwrap();
/// assert_eq!(rules.version, 3);
/// assert_eq!(rules.remove_params, ["jsessionid", "phpsessid", "sid"]);
/// assert!(linksieve_iri::Rules::from_toml("sort_query = true").is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// The version of the rule set (required).
    pub version: u32,
    /// Sort the `&`-separated query parameters by their text (byte order, stable).
    #[serde(default)]
    pub sort_query: bool,
    /// Parameter names to remove, compared without ASCII case (stored lowercase): query
    /// parameters `name` / `name=value`, and path parameters `;name=value` of any segment.
    #[serde(default)]
    pub remove_params: Vec<String>,
    /// Remove leading `www` / `www<digits>` labels while two labels or more remain.
    #[serde(default)]
    pub strip_www: bool,
    /// Last path segments to remove (compared exactly), keeping the `/` before them.
    #[serde(default)]
    pub index_files: Vec<String>,
}

/// Why a rule file was rejected.
///
/// ```
/// let e = linksieve_iri::Rules::from_toml("version = 1\nsort_query = 2").unwrap_err();
/// assert!(e.to_string().contains("sort_query"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule file: {0}")]
pub struct RulesError(String);

impl Rules {
    /// Reads a rule file (TOML).
    ///
    /// ```
    /// let r = linksieve_iri::Rules::from_toml("version = 1").unwrap();
    /// assert!(r.is_empty());
    /// ```
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let mut r: Rules = toml::from_str(text).map_err(|e| RulesError(e.to_string()))?;
        for p in &mut r.remove_params {
            p.make_ascii_lowercase();
        }
        Ok(r)
    }

    /// True when no rule is on.
    ///
    /// ```
    /// assert!(linksieve_iri::Rules::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        !self.sort_query
            && self.remove_params.is_empty()
            && !self.strip_www
            && self.index_files.is_empty()
    }

    fn removed(&self, param: &str) -> bool {
        let name = param.split_once('=').map_or(param, |(n, _)| n);
        self.remove_params
            .iter()
            .any(|p| p.eq_ignore_ascii_case(name))
    }

    /// Applies the rules to a scheme-rung key with an authority and without a fragment. Order:
    /// host (`www`), path (path parameters, then dot segments again since removing a parameter
    /// can leave `..`, then the index file), query (parameters, then sorting; a query left empty
    /// by removal loses its `?`). The result is scheme-normal and a fixed point of the rules.
    fn apply(&self, k: IriRef<String>) -> IriRef<String> {
        let mut parts = Parts::of(&k);
        let mut changed = false;
        if self.strip_www
            && let Some(h) = parts.host
        {
            let mut host = h;
            while let Some((label, rest)) = host.split_once('.') {
                let l = label.as_bytes();
                let www = l.len() >= 3
                    && l[..3].eq_ignore_ascii_case(b"www")
                    && l[3..].iter().all(u8::is_ascii_digit);
                if !www || !rest.contains('.') {
                    break;
                }
                host = rest;
            }
            if host.len() != h.len() {
                parts.host = Some(host);
                changed = true;
            }
        }
        let mut path_buf = String::new();
        if (!self.remove_params.is_empty() && parts.path.contains(';'))
            || !self.index_files.is_empty()
        {
            let mut p = String::with_capacity(parts.path.len());
            for (i, seg) in parts.path.split('/').enumerate() {
                if i > 0 {
                    p.push('/');
                }
                let mut pieces = seg.split(';');
                p.push_str(pieces.next().unwrap_or_default());
                for piece in pieces {
                    if !self.removed(piece) {
                        p.push(';');
                        p.push_str(piece);
                    }
                }
            }
            remove_dot_segments(&mut path_buf, &p);
            if let Some(slash) = path_buf.rfind('/')
                && self.index_files.iter().any(|f| *f == path_buf[slash + 1..])
            {
                path_buf.truncate(slash + 1);
            }
            if path_buf != parts.path {
                parts.path = &path_buf;
                changed = true;
            }
        }
        let query_buf: String;
        if let Some(q) = parts.query
            && (self.sort_query || !self.remove_params.is_empty())
        {
            let mut params: Vec<&str> = q.split('&').filter(|p| !self.removed(p)).collect();
            let removed = params.len() != q.split('&').count();
            if self.sort_query {
                params.sort_unstable();
            }
            query_buf = params.join("&");
            if removed && query_buf.is_empty() {
                parts.query = None;
                changed = true;
            } else if query_buf != q {
                parts.query = Some(&query_buf);
                changed = true;
            }
        }
        if !changed {
            return k;
        }
        parts.assemble()
    }
}

/// The protocol-rung key (without redirects) of a scheme-rung key.
pub(super) fn normalize(k: IriRef<String>, rules: Option<&Rules>) -> IriRef<String> {
    let k = if k.fragment().is_some() {
        k.without_fragment().to_owned()
    } else {
        k
    };
    match rules {
        Some(r) if k.host().is_some() => r.apply(k),
        _ => k,
    }
}

/// Counts of a redirect file.
///
/// ```
/// let s = linksieve_iri::RedirectStats::default();
/// assert_eq!(s.lines, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedirectStats {
    /// Lines read (blank lines and `#` comments not counted).
    pub lines: usize,
    /// Redirects learned: FROM and TO differ only by a trailing slash of the path.
    pub learned: usize,
    /// FROM and TO already have the same key (an index file removed by the rules, say).
    pub same: usize,
    /// Ignored: FROM and TO differ by more than a trailing slash (CMP 4.4 allows only
    /// differences that the scheme's conventions explain).
    pub ignored: usize,
    /// Not `FROM<TAB>TO`, or FROM or TO is not an absolute IRI.
    pub invalid: usize,
}

/// Equivalences learned from observed redirects (CMP 4.4: a crawler that sees
/// `http://example.com/data` redirect to `http://example.com/data/` may treat the two as one).
///
/// The file has one redirect per line, `FROM<TAB>TO`; blank lines and lines starting with `#`
/// are skipped. FROM and TO are keyed at the protocol rung with the rules but without
/// redirects. A line is learned only when the two keys differ by one trailing `/` of the path
/// and nothing else (with an index-file rule, `/a` -> `/a/index.html` is such a line, as the
/// rule makes the TO key `/a/`). Every other line is counted and ignored. Learned lines join
/// keys into classes, and every key of a class maps to one key: following the TO of each line
/// (chains `A -> B -> C` give `C`); in a loop, the TO of the line that closed it.
///
/// ```
/// use linksieve_iri::{normalize_str, InputMode, Rung, NormalizeOptions, Redirects};
/// use std::sync::Arc;
/// let opts = NormalizeOptions { rung: Rung::Protocol, ..Default::default() };
/// let text = "http://example.com/data\thttp://example.com/data/\nhttp://a/x\thttp://b/y\n";
/// let r = Redirects::parse(text, InputMode::Strict, &opts);
/// assert_eq!((r.stats().learned, r.stats().ignored), (1, 1));
/// let opts = NormalizeOptions { redirects: Some(Arc::new(r)), ..opts };
/// let key = normalize_str("HTTP://example.com/data#x", InputMode::Strict, &opts).unwrap();
/// assert_eq!(key, "http://example.com/data/");
/// ```
#[derive(Clone, Default)]
pub struct Redirects {
    map: HashMap<String, IriRef<String>>,
    stats: RedirectStats,
    problems: Vec<String>,
}

impl std::fmt::Debug for Redirects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redirects")
            .field("keys", &self.map.len())
            .field("stats", &self.stats)
            .finish()
    }
}

/// Union-find over keys, for the classes of [`Redirects`].
struct Classes {
    index: HashMap<String, usize>,
    keys: Vec<IriRef<String>>,
    parent: Vec<usize>,
}

impl Classes {
    fn id(&mut self, k: IriRef<String>) -> usize {
        if let Some(&i) = self.index.get(k.as_str()) {
            return i;
        }
        let i = self.keys.len();
        self.index.insert(k.as_str().to_owned(), i);
        self.keys.push(k);
        self.parent.push(i);
        i
    }

    fn find(&mut self, mut i: usize) -> usize {
        let mut root = i;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        while self.parent[i] != root {
            let next = self.parent[i];
            self.parent[i] = root;
            i = next;
        }
        root
    }
}

/// True when `a` and `b` differ only by one `/` at the end of the path.
fn trailing_slash_only(a: &IriRef<String>, b: &IriRef<String>) -> bool {
    let (pa, pb) = (Parts::of(a), Parts::of(b));
    let same_rest = Parts { path: "", ..pa } == Parts { path: "", ..pb };
    let (x, y) = if pa.path.len() < pb.path.len() {
        (pa.path, pb.path)
    } else {
        (pb.path, pa.path)
    };
    same_rest && y.len() == x.len() + 1 && y.starts_with(x) && y.ends_with('/')
}

impl Redirects {
    /// Reads a redirect file. Each IRI is read in `mode` and keyed with `opts` at the protocol
    /// rung (`opts.nfc` and `opts.rules` are used; `opts.redirects` and `opts.rung` are not):
    /// use the options the keys will be made with.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, NormalizeOptions, Redirects};
    /// let r = Redirects::parse("# comment\nnot a redirect\n", InputMode::Strict, &NormalizeOptions::default());
    /// assert_eq!((r.stats().lines, r.stats().invalid), (1, 1));
    /// assert_eq!(r.problems()[0], "line 2: no TAB between FROM and TO");
    /// ```
    pub fn parse(text: &str, mode: InputMode, opts: &NormalizeOptions) -> Redirects {
        let key_opts = NormalizeOptions {
            redirects: None,
            ..opts.at(Rung::Protocol)
        };
        let mut stats = RedirectStats::default();
        let mut problems = Vec::new();
        let mut classes = Classes {
            index: HashMap::new(),
            keys: Vec::new(),
            parent: Vec::new(),
        };
        let key = |s: &str| owned_key(s, mode, &key_opts).map_err(|e| e.to_string());
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            stats.lines += 1;
            let mut problem = |p: String| {
                stats.invalid += 1;
                if problems.len() < 20 {
                    problems.push(format!("line {}: {p}", n + 1));
                }
            };
            let Some((from, to)) = line.split_once('\t') else {
                problem("no TAB between FROM and TO".to_owned());
                continue;
            };
            let (f, t) = match (key(from), key(to)) {
                (Ok(f), Ok(t)) => (f, t),
                (Err(e), _) => {
                    problem(format!("FROM: {e}"));
                    continue;
                }
                (_, Err(e)) => {
                    problem(format!("TO: {e}"));
                    continue;
                }
            };
            if f == t {
                stats.same += 1;
            } else if trailing_slash_only(&f, &t) {
                stats.learned += 1;
                let (a, b) = (classes.id(f), classes.id(t));
                let (ra, rb) = (classes.find(a), classes.find(b));
                if ra != rb {
                    classes.parent[ra] = rb;
                }
            } else {
                stats.ignored += 1;
            }
        }
        let mut map = HashMap::new();
        for i in 0..classes.keys.len() {
            let root = classes.find(i);
            if root != i {
                map.insert(
                    classes.keys[i].as_str().to_owned(),
                    classes.keys[root].clone(),
                );
            }
        }
        Redirects {
            map,
            stats,
            problems,
        }
    }

    /// The counts of the file.
    ///
    /// ```
    /// let r = linksieve_iri::Redirects::default();
    /// assert_eq!(r.stats().learned, 0);
    /// ```
    pub fn stats(&self) -> &RedirectStats {
        &self.stats
    }

    /// The first (up to 20) invalid lines, with their line numbers and reasons.
    ///
    /// ```
    /// assert!(linksieve_iri::Redirects::default().problems().is_empty());
    /// ```
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The number of keys that map to another key.
    ///
    /// ```
    /// assert_eq!(linksieve_iri::Redirects::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing was learned.
    ///
    /// ```
    /// assert!(linksieve_iri::Redirects::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The key that a protocol-rung key (without redirects) maps to, if any.
    ///
    /// ```
    /// use linksieve_iri::{InputMode, NormalizeOptions, Redirects};
    /// let r = Redirects::parse("http://h/a/\thttp://h/a\n", InputMode::Strict, &NormalizeOptions::default());
    /// assert_eq!(r.get("http://h/a/"), Some("http://h/a"));
    /// assert_eq!(r.get("http://h/a"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(IriRef::as_str)
    }

    pub(super) fn target(&self, key: &str) -> Option<&IriRef<String>> {
        self.map.get(key)
    }
}

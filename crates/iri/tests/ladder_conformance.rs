//! Conformance of the comparison ladder: every case of kind `normalize-syntax`,
//! `normalize-scheme` and `canonicalize-aggressive` in `testdata/normalize/*.jsonl`.
//!
//! The `op` field of a case names the operation that produced `expected` in its source
//! project; [`model`] picks the rung, key form, input mode and protocol rules that model it,
//! and how a bare component (a path, a host, a query) is put into an IRI and taken out of the
//! key. Where a suite's operation has no counterpart on the ladder, the case still runs, with
//! the nearest model, and is listed with its reason in `testdata/normalize/ladder-expectations.tsv`.
//! A listed case that passes fails the test, and so does an unlisted case that fails.
//!
//! Expected values of suites read as LEIRIs or web addresses are mapped with 3987bis 6.1
//! (`leiri_to_iri`: only characters that an IRI cannot hold are percent-encoded) before the
//! comparison, since ladder keys are IRIs; nothing else is done to them.
//!
//! Run with `--nocapture` for the pass rate of each suite.

use linksieve_iri::{
    Component, InputMode, IriRef, KeyForm, NormalizeOptions, Parts, Rules, Rung, leiri_to_iri,
    normalize_str, parse_input,
};
use serde_json::Value;

use crate::common;
use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::sync::Arc;

const KINDS: [&str; 3] = [
    "normalize-syntax",
    "normalize-scheme",
    "canonicalize-aggressive",
];

use common::testdata;

struct Case {
    id: String,
    file: String,
    kind: String,
    op: String,
    input: String,
    expected: Option<String>,
}

/// The cases of [`KINDS`], as `tests/conformance.rs` loads its own (the files hold no lone
/// surrogates outside the WPT files, which have none of these kinds).
/// Vector files that only the profiles reproduce.
const PROFILE_ONLY: [&str; 3] = [
    "crawler-commons-basic-url-normalizer.jsonl",
    "safebrowsing-published.jsonl",
    "safebrowsing-urls.jsonl",
];

fn load() -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(testdata())
        .expect("testdata/normalize")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read vectors");
        let file = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The tests of crawler-commons and of Safe Browsing were ported for their profiles
        // (crates/profiles/tests/vectors.rs); no rung of the ladder models them.
        if PROFILE_ONLY.contains(&file.as_str()) {
            continue;
        }
        for line in text.lines() {
            if !KINDS
                .iter()
                .any(|k| line.contains(&format!("\"kind\": \"{k}\"")))
            {
                continue;
            }
            let v: Value = serde_json::from_str(line).expect("valid JSON line");
            let kind = v["kind"].as_str().unwrap_or_default().to_owned();
            assert!(KINDS.contains(&kind.as_str()), "{line}");
            let s = |k: &str| v[k].as_str().map(str::to_owned);
            out.push(Case {
                id: s("id").expect("id"),
                file: file.clone(),
                kind,
                op: s("op").unwrap_or_default(),
                input: s("input").expect("input"),
                expected: s("expected"),
            });
        }
    }
    out
}

/// `id -> reason` from `ladder-expectations.tsv`.
fn expectations() -> BTreeMap<String, String> {
    common::expectations("ladder-expectations.tsv")
}

/// How a case's input becomes an IRI, and the result is taken from the key.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wrap {
    /// The input is a whole reference; the result is the whole key.
    Whole,
    /// A bare path, put after `s://h` (an absolute path) or `s:` (a relative one, so that its
    /// dot segments are removed as in an absolute IRI); the result is the key's path and what
    /// follows. `\` is not a path separator in an IRI: LEIRI input percent-encodes it.
    Path,
    /// A bare path of a WHATWG special scheme (urlcanon's `special=True`), put after `http://h`
    /// and read as a web address (3987bis 6.2): `\` is a path separator there, as in the
    /// browsers the suite was generated from. The result is the key's path and what follows;
    /// the expected value is read the same way (its `\` are `/`, see [`expected_text`]).
    SpecialPath,
    /// A bare host (`http://HOST/`); the result is the key's host.
    Host,
    /// A bare authority (`http://AUTH/`); the result is the key's authority.
    Authority,
    /// A bare query (`http://h/?QUERY`); the result is the key's query (empty when none).
    Query,
    /// A bare host; the result is the host part of the SURT key, between `(` and `)`.
    SurtHost,
}

struct Model {
    mode: InputMode,
    rung: Rung,
    form: KeyForm,
    rules: Option<Rules>,
    wrap: Wrap,
    /// uriparser's component mask: the components taken from the key, the others from input.
    select: Option<Vec<Component>>,
}

impl Model {
    fn new(mode: InputMode, rung: Rung) -> Self {
        Model {
            mode,
            rung,
            form: KeyForm::Uri,
            rules: None,
            wrap: Wrap::Whole,
            select: None,
        }
    }
    fn form(self, form: KeyForm) -> Self {
        Model { form, ..self }
    }
    fn wrap(self, wrap: Wrap) -> Self {
        Model { wrap, ..self }
    }
    fn rules(self, toml: &str) -> Self {
        let rules = Rules::from_toml(&format!("version = 1\n{toml}")).expect("rules");
        Model {
            rules: Some(rules),
            ..self
        }
    }
}

/// Session-id parameters that the IA / urlcanon canonicalizers remove.
const SESSION_IDS: &str =
    r#"remove_params = ["jsessionid", "phpsessid", "sid", "aspsessionid", "cfid", "cftoken"]"#;
/// Directory index files (purell's `FlagRemoveDirectoryIndex`: `(default|index).\w{1,4}`).
const INDEX_FILES: &str = r#"index_files = ["index.html", "index.htm", "index.php", "index.asp", "index.aspx", "default.asp", "default.aspx", "default.htm", "default.html"]"#;

/// The model of a case's operation (see the module documentation).
fn model(c: &Case) -> Model {
    use InputMode::{Leiri, Strict, Web};
    use Rung::{Protocol, Scheme, String as Str, Syntax};
    let op = c.op.as_str();
    match c.file.as_str() {
        "fluent-uri-normalize.jsonl" | "iri-string-normalize.jsonl" => {
            let m = Model::new(Strict, Syntax);
            if op.contains("IriRef") || op.contains("IriStr") {
                m.form(KeyForm::Iri)
            } else {
                m
            }
        }
        "uriparser-normalize.jsonl" => {
            let mask = op
                .trim_start_matches("uriNormalizeSyntaxEx(")
                .trim_end_matches(')');
            let select = match mask {
                "all" => None,
                "URI_NORMALIZE_SCHEME" => Some(vec![Component::Scheme]),
                "URI_NORMALIZE_USER_INFO" => Some(vec![Component::Userinfo]),
                "URI_NORMALIZE_HOST" => Some(vec![Component::Host]),
                "URI_NORMALIZE_PORT" => Some(vec![Component::Port]),
                "URI_NORMALIZE_PATH" => Some(vec![Component::Path]),
                "URI_NORMALIZE_QUERY" => Some(vec![Component::Query]),
                "URI_NORMALIZE_FRAGMENT" => Some(vec![Component::Fragment]),
                other => panic!("unknown uriparser mask {other}"),
            };
            // Port normalization (leading zeros) is on the scheme rung of the ladder.
            let rung = if mask == "URI_NORMALIZE_PORT" {
                Scheme
            } else {
                Syntax
            };
            Model {
                select,
                ..Model::new(Strict, rung)
            }
        }
        "rfc3986-python-normalizers.jsonl" => {
            let wrap = match op {
                "normalize_host" => Wrap::Host,
                "normalize authority" => Wrap::Authority,
                _ => Wrap::Path,
            };
            Model::new(Strict, Syntax).wrap(wrap)
        }
        // Both variants run through the ladder's own dot-segment removal; they differ only for
        // `\`, which special schemes treat as "/" (WHATWG, the ladder's web input) and an IRI
        // does not (LEIRI input percent-encodes it).
        "urlcanon-path-dots.jsonl" if op.contains("special=True") => {
            Model::new(Web, Syntax).wrap(Wrap::SpecialPath)
        }
        "urlcanon-path-dots.jsonl" => Model::new(Leiri, Syntax).wrap(Wrap::Path),
        // A lossless parse and serialization: the string rung.
        "urlcanon-idempotence.jsonl" => Model::new(Strict, Str),
        "purell.jsonl" => {
            // purell's flag sets: FlagsSafe (case, escapes, default port, empty "?"),
            // FlagsUsuallySafe* (+ dot segments, trailing slash), FlagsUnsafe* (+ directory
            // index, fragment, www, sorted query, ...), FlagsAll* (+ host forms).
            let unsafe_set = op.contains("FlagsUnsafe") || op.contains("FlagsAll");
            let has = |f: &str| op.contains(f);
            let safe = unsafe_set || has("FlagsSafe") || has("FlagsUsuallySafe");
            let sort = unsafe_set || has("FlagSortQuery");
            let www = unsafe_set || has("FlagRemoveWWW");
            let index = unsafe_set || has("FlagRemoveDirectoryIndex");
            let fragment = unsafe_set || has("FlagRemoveFragment");
            // purell's host decoding flags parse IPv4 in octal, hex and DWORD: the ladder's web
            // input (WHATWG IPv4 parsing, 3987bis 6.2).
            let mode = if has("Host)") && has("FlagDecode") {
                Web
            } else {
                Leiri
            };
            let mut rules = String::new();
            if sort {
                rules.push_str("sort_query = true\n");
            }
            if www {
                rules.push_str("strip_www = true\n");
            }
            if index {
                rules.push_str(INDEX_FILES);
            }
            if fragment || sort || www || index {
                Model::new(mode, Protocol).rules(&rules)
            } else if safe {
                Model::new(mode, Scheme)
            } else {
                Model::new(mode, Syntax)
            }
        }
        "w3lib-canonicalize-url.jsonl" => {
            // keep_fragments=True: no rung keeps the fragment and sorts the query; the scheme
            // rung keeps the fragment.
            if op.contains("keep_fragments=True") {
                Model::new(Web, Scheme)
            } else {
                Model::new(Web, Protocol).rules("sort_query = true")
            }
        }
        "urlcanon-aggressive.jsonl" => Model::new(Web, Protocol).rules(&format!(
            "sort_query = true\nstrip_www = true\n{SESSION_IDS}"
        )),
        "urlcanon-semantic-precise.jsonl" => Model::new(Web, Scheme),
        "surt-python.jsonl" | "urlcanon-surt.jsonl" | "urlcanon-ssurt.jsonl" => surt_model(op),
        other => panic!("no model for {other} ({op})"),
    }
}

/// Models of the SURT / IA canonicalizer operations (surt-python, urlcanon).
fn surt_model(op: &str) -> Model {
    use InputMode::{Leiri, Web};
    use Rung::{Protocol, Scheme, String as Str, Syntax};
    let ia = format!("sort_query = true\nstrip_www = true\n{SESSION_IDS}");
    if op.contains("attemptIPFormats") {
        // WHATWG IPv4 parsing (web input, 3987bis 6.2) is the ladder's nearest operation.
        Model::new(Web, Scheme).wrap(Wrap::Host)
    } else if op.contains("unescapeRepeatedly") || op.contains("unescape-repeatedly") {
        Model::new(Leiri, Syntax).wrap(Wrap::Path)
    } else if op.contains("alphaReorderQuery") || op.contains("alpha-reorder-query") {
        Model::new(Leiri, Protocol)
            .rules("sort_query = true")
            .wrap(Wrap::Query)
    } else if op.contains("massageHost") || op.contains("massage-host") {
        Model::new(Leiri, Protocol)
            .rules("strip_www = true")
            .wrap(Wrap::Host)
    } else if op.contains("stripPathSessionID") || op.contains("strip-path-session-id") {
        Model::new(Leiri, Protocol)
            .rules(SESSION_IDS)
            .wrap(Wrap::Path)
    } else if op.contains("reverseHost") || op.contains("ssurtHost") {
        Model::new(Leiri, Str)
            .form(KeyForm::Surt)
            .wrap(Wrap::SurtHost)
    } else if op.starts_with("ssurt:") {
        Model::new(Leiri, Str).form(KeyForm::Surt)
    } else if op.contains("google-safebrowsing") {
        Model::new(Web, Protocol)
    } else if op == "ia-canonicalizer" || op == "ia-default-canonicalizer" {
        Model::new(Web, Protocol).rules(&ia)
    } else if op.starts_with("surt") {
        let massage = !op.contains("host_massage=False") && !op.contains("lambda");
        let rules = if massage {
            ia
        } else {
            format!("sort_query = true\n{SESSION_IDS}")
        };
        Model::new(Leiri, Protocol)
            .form(KeyForm::Surt)
            .rules(&rules)
    } else {
        panic!("no SURT model for {op}")
    }
}

/// Runs a case through its model.
fn run(c: &Case, m: &Model) -> Result<String, String> {
    let opts = NormalizeOptions {
        rung: m.rung,
        form: m.form,
        rules: m.rules.clone().map(Arc::new),
        ..Default::default()
    };
    let input = c.input.as_str();
    let (text, prefix_len) = match m.wrap {
        Wrap::Whole => (input.to_owned(), 0),
        Wrap::Path => {
            let p = if input.starts_with('/') {
                "s://h"
            } else {
                "s:"
            };
            (format!("{p}{input}"), p.len())
        }
        Wrap::SpecialPath => (format!("http://h{input}"), 0),
        Wrap::Host | Wrap::Authority | Wrap::SurtHost => (format!("http://{input}/"), 0),
        Wrap::Query => (format!("http://h/?{input}"), 0),
    };
    let key = normalize_str(&text, m.mode, &opts).map_err(|e| e.to_string())?;
    if m.form == KeyForm::Surt && m.wrap == Wrap::Whole {
        return Ok(key);
    }
    if m.wrap == Wrap::SurtHost {
        let start = key.find('(').ok_or("no ( in the SURT key")? + 1;
        let end = key.find(')').ok_or("no ) in the SURT key")?;
        return Ok(key[start..end].to_owned());
    }
    let k = IriRef::parse(key.as_str()).map_err(|e| format!("key {key}: {e}"))?;
    Ok(match m.wrap {
        Wrap::Whole => match &m.select {
            None => key.clone(),
            Some(sel) => {
                let orig = parse_input(input, m.mode).map_err(|e| e.to_string())?;
                select(&orig, &k, sel)
            }
        },
        Wrap::Path if prefix_len == 2 => key["s:".len()..].to_owned(),
        Wrap::Path | Wrap::SpecialPath => key[k.spans().path().start..].to_owned(),
        Wrap::Host => k.host().unwrap_or_default().to_owned(),
        Wrap::Authority => k.authority().unwrap_or_default().to_owned(),
        Wrap::Query => k.query().unwrap_or_default().to_owned(),
        Wrap::SurtHost => unreachable!("returned above"),
    })
}

/// The components of `sel` from `key`, the others from `orig` (uriparser's component masks).
fn select(orig: &IriRef<String>, key: &IriRef<&str>, sel: &[Component]) -> String {
    let (o, k) = (Parts::of(orig), Parts::of(key));
    let pick = |c: Component| sel.contains(&c);
    let p = Parts {
        scheme: if pick(Component::Scheme) {
            k.scheme
        } else {
            o.scheme
        },
        userinfo: if pick(Component::Userinfo) {
            k.userinfo
        } else {
            o.userinfo
        },
        host: if pick(Component::Host) {
            k.host
        } else {
            o.host
        },
        port: if pick(Component::Port) {
            k.port
        } else {
            o.port
        },
        path: if pick(Component::Path) {
            k.path
        } else {
            o.path
        },
        query: if pick(Component::Query) {
            k.query
        } else {
            o.query
        },
        fragment: if pick(Component::Fragment) {
            k.fragment
        } else {
            o.fragment
        },
    };
    let built: Result<_, Infallible> = p.build(|out, _, t| {
        out.push_str(t);
        Ok(())
    });
    built.unwrap_or_else(|e| match e {}).into_inner()
}

/// A case's expected value as the key it stands for (see the module documentation): mapped with
/// 3987bis 6.1 when the suite reads LEIRIs or web addresses; a special-scheme path
/// ([`Wrap::SpecialPath`]) also has its `\` read as `/`, as the WHATWG URL Standard's path
/// state reads them (urlcanon writes the separators of its input back unchanged).
fn expected_text(x: &str, m: &Model) -> String {
    match m.mode {
        _ if m.wrap == Wrap::SpecialPath => leiri_to_iri(&x.replace('\\', "/")).into_owned(),
        InputMode::Leiri | InputMode::Web => leiri_to_iri(x).into_owned(),
        InputMode::Strict => x.to_owned(),
    }
}

#[test]
fn ladder_vectors() {
    let cases = load();
    assert!(cases.len() > 1000, "{} cases", cases.len());
    let listed = expectations();
    let mut per_suite: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut per_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for c in &cases {
        assert!(seen.insert(c.id.clone()), "duplicate id {}", c.id);
        let m = model(c);
        let got = run(c, &m);
        let expected = c.expected.as_deref().map(|x| expected_text(x, &m));
        let pass = match (&got, &expected) {
            (Ok(g), Some(x)) => g == x,
            (Err(_), None) => true,
            _ => false,
        };
        for e in [
            per_suite
                .entry((c.file.clone(), c.kind.clone()))
                .or_default(),
            per_kind.entry(c.kind.clone()).or_default(),
        ] {
            e.1 += 1;
            e.0 += usize::from(pass);
        }
        match (pass, listed.contains_key(&c.id)) {
            (true, true) => problems.push(format!(
                "{}: listed in ladder-expectations.tsv but passes now; remove it",
                c.id
            )),
            (false, false) => problems.push(format!(
                "{}\t{} [{}] input {:?}: expected {:?}, got {:?}",
                c.id, c.op, m.rung, c.input, expected, got
            )),
            _ => {}
        }
    }
    println!("{:<36} {:<24} {:>9} {:>7}", "suite", "kind", "pass", "rate");
    for ((file, kind), (pass, total)) in &per_suite {
        println!(
            "{file:<36} {kind:<24} {:>9} {:>6.1}%",
            format!("{pass}/{total}"),
            100.0 * *pass as f64 / *total as f64
        );
    }
    for (kind, (pass, total)) in &per_kind {
        println!(
            "{:<36} {kind:<24} {:>9} {:>6.1}%",
            "(all)",
            format!("{pass}/{total}"),
            100.0 * *pass as f64 / *total as f64
        );
    }
    common::assert_no_problems(&problems);
}

#[test]
fn ladder_expectations_name_real_cases() {
    let all: BTreeSet<String> = load().into_iter().map(|c| c.id).collect();
    for id in expectations().keys() {
        assert!(
            all.contains(id),
            "ladder-expectations.tsv lists unknown case {id}"
        );
    }
}

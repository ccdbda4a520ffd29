//! Shared by the IRI crate's integration tests: the vector folder, the expectations files, the
//! final report of a conformance run, and the assembly of generated IRI references.
#![allow(dead_code)] // each test file uses a part

pub mod work;

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `testdata/normalize` of the repository.
pub fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/normalize")
}

/// `id -> reason` from an expectations file of `testdata/normalize` (`id<TAB>reason`, `#`
/// comments); every listed case needs a reason and is listed once.
pub fn expectations(file: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(testdata().join(file)).expect("expectations file");
    let mut out = BTreeMap::new();
    for l in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (id, reason) = l.split_once('\t').expect("id<TAB>reason");
        assert!(
            !reason.trim().is_empty(),
            "{id}: a listed case needs a reason"
        );
        assert!(
            out.insert(id.to_owned(), reason.to_owned()).is_none(),
            "{id} listed twice"
        );
    }
    out
}

/// Fails with every problem of a conformance run (unlisted failures, listed passes).
pub fn assert_no_problems(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// An authority of a generated reference: userinfo, host, port.
pub type Authority = (Option<String>, String, Option<String>);

/// Assembles a generated IRI reference from its parts so that it is valid: an absolute path
/// under an authority, `/.` before a path that would start with `//` without one, `./` before a
/// first segment with a colon in a relative-path reference (RFC 3986 4.2).
pub fn assemble(
    scheme: Option<String>,
    auth: Option<Authority>,
    abs: bool,
    segs: Vec<String>,
    query: Option<String>,
    fragment: Option<String>,
) -> String {
    let mut s = String::new();
    if let Some(sc) = &scheme {
        s.push_str(sc);
        s.push(':');
    }
    let has_auth = auth.is_some();
    if let Some((ui, h, port)) = auth {
        s.push_str("//");
        if let Some(ui) = ui {
            s.push_str(&ui);
            s.push('@');
        }
        s.push_str(&h);
        if let Some(p) = port {
            s.push(':');
            s.push_str(&p);
        }
    }
    let mut path = segs.join("/");
    if (abs || has_auth) && !path.is_empty() {
        path.insert(0, '/');
    }
    if !has_auth && path.starts_with("//") {
        path.insert_str(0, "/.");
    }
    if scheme.is_none() && !has_auth {
        let first = path.split('/').next().unwrap_or_default().to_owned();
        if first.contains(':') {
            path.insert_str(0, "./");
        }
    }
    s.push_str(&path);
    if let Some(q) = query {
        s.push('?');
        s.push_str(&q);
    }
    if let Some(f) = fragment {
        s.push('#');
        s.push_str(&f);
    }
    s
}

//! `normalize` and `compare` end to end: rungs, forms, rules and redirect files, line
//! conventions and exit statuses.

use crate::common;
use common::linksieve;

/// A file with `text` in the temporary directory, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> Self {
        let p = std::env::temp_dir().join(format!("linksieve-{}-{name}", std::process::id()));
        std::fs::write(&p, text).expect("write temp file");
        TempFile(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn normalize_defaults_to_the_scheme_rung_and_uri_keys() {
    let r = linksieve(
        &["normalize"],
        "HTTP://Résumé.Example.ORG:80\nhttp://example.com/a b\nhttp://[2001:DB8::0:1]:0080/#x\n",
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        "http://xn--rsum-bpad.example.org/\nhttp://[2001:db8::1]/#x\n"
    );
    assert_eq!(
        r.stderr,
        "line 2: scheme rung: invalid character U+0020 in ipath at byte 20\n"
    );
}

#[test]
fn normalize_levels_forms_and_jsonl() {
    let iri = "eXAMPLE://a/./b/../b/%63/%7bfoo%7d/ros%C3%A9";
    let r = linksieve(&["normalize", "--rung", "syntax", "--form", "iri", iri], "");
    assert_eq!(r.stdout, "example://a/b/c/%7Bfoo%7D/rosé\n");
    let r = linksieve(&["normalize", "--rung", "string", iri], "");
    assert_eq!(r.stdout, format!("{iri}\n"));
    let r = linksieve(
        &["normalize", "--form", "surt", "--format", "jsonl", "-"],
        "http://www.example.com/p\n",
    );
    assert_eq!(
        r.stdout,
        "{\"input\":\"http://www.example.com/p\",\"output\":\"http://(com,example,www,)/p\"}\n"
    );
    let r = linksieve(
        &["normalize", "--input-mode", "leiri", "--rung", "protocol"],
        "http://h/a b#top\n",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "http://h/a%20b\n"));
    let r = linksieve(
        &["normalize", "--nfc", "--rung", "syntax"],
        "http://h/re\u{301}sume\u{301}\n",
    );
    assert_eq!(r.stdout, "http://h/r%C3%A9sum%C3%A9\n");
}

/// An old flag name kept as an alias (issue 32: one name per concept, old spellings kept):
/// each command of `cmds` writes the same with `old VALUE` as with `new VALUE`, and otherwise
/// with `new OTHER`; a `dedup --seen` store made with `old VALUE` opens with `new VALUE` and
/// refuses `new OTHER`; `run --help` shows `new <METAVAR>` and the alias.
fn check_alias(
    [new, old, metavar]: [&str; 3],
    [value, other]: [&str; 2],
    cmds: &[&[&str]],
    input: &str,
) {
    let with = |cmd: &[&str], flag: &str, v: &str| {
        let mut args = cmd.to_vec();
        args.extend([flag, v]);
        linksieve(&args, input)
    };
    for cmd in cmds {
        let (by_new, by_old) = (with(cmd, new, value), with(cmd, old, value));
        assert_eq!(
            (by_new.code, &by_new.stdout),
            (by_old.code, &by_old.stdout),
            "{cmd:?} {new}: {}",
            by_new.stderr
        );
        let by_other = with(cmd, new, other);
        assert_ne!(by_new.stdout, by_other.stdout, "{cmd:?}: {new} applies");
    }
    let store = common::tempdir("alias").join("seen");
    let s = store.to_str().expect("utf-8 path");
    let dedup =
        |flag: &str, v: &str, lines: &str| linksieve(&["dedup", "-q", flag, v, "--seen", s], lines);
    let r = dedup(old, value, "http://a/\n");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://a/\n"),
        "{}",
        r.stderr
    );
    let r = dedup(new, value, "http://a/\nhttp://b/\n");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "http://b/\n"),
        "{}",
        r.stderr
    );
    let r = dedup(new, other, "http://c/\n");
    assert_eq!(
        r.code, 2,
        "{new} {other} is refused by the store: {}",
        r.stderr
    );
    let help = linksieve(&["run", "--help"], "").stdout;
    let (shown, alias) = (format!("{new} <{metavar}>"), format!("[alias: {old}]"));
    assert!(help.contains(&shown) && help.contains(&alias), "{help}");
}

/// `--level` is the old name of `--rung`.
#[test]
fn level_is_an_alias_of_rung() {
    check_alias(
        ["--rung", "--level", "RUNG"],
        ["protocol", "scheme"],
        &[&["normalize"], &["run", "-q", "-"]],
        "HTTP://www.Example.com:80/a/../b?q#f\nhttp://h/%7e#x\nhttp://h/~#y\n",
    );
}

/// `--input` is the old name of `--input-mode` ("input" names the files a command reads).
#[test]
fn input_is_an_alias_of_input_mode() {
    // `{` in a path: the web mode reads it, strict refuses it; `\` and a space end a link in
    // text, and only the web mode reads them in a line
    check_alias(
        ["--input-mode", "--input", "MODE"],
        ["web", "strict"],
        &[
            &["normalize"],
            &["run", "-q", "--format", "jsonl", "-"],
            &["scan", "--format", "tsv", "-"],
            &["resolve", "--base", "http://h/x/"],
        ],
        "http://h/a\\b c\nhttp://h/{x}\n",
    );
}

#[test]
fn rules_and_redirects_files() {
    let rules = TempFile::new(
        "rules.toml",
        "version = 2\nsort_query = true\nremove_params = [\"sid\"]\nstrip_www = true\nindex_files = [\"index.html\"]\n",
    );
    let redirects = TempFile::new(
        "redirects.tsv",
        "http://example.com/data\thttp://example.com/data/\nhttp://example.com/a\thttp://example.org/a\nbroken\n",
    );
    let r = linksieve(
        &[
            "normalize",
            "--rung",
            "protocol",
            "--rules",
            rules.path(),
            "--redirects",
            redirects.path(),
        ],
        "http://www.example.com/data?b=1&sid=2&a=3#f\nhttp://www.example.com/x/index.html\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "http://example.com/data?a=3&b=1\nhttp://example.com/x/\n"
    );
    assert!(
        r.stderr
            .contains("3 redirects: 1 learned, 0 already equal, 1 ignored"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("line 3: no TAB"), "{}", r.stderr);
    let r = linksieve(
        &[
            "normalize",
            "--rung",
            "protocol",
            "--redirects",
            redirects.path(),
        ],
        "http://EXAMPLE.com/data\n",
    );
    assert_eq!(r.stdout, "http://example.com/data/\n");
    // Rules outside the protocol rung, or a bad rule file, are usage errors.
    let r = linksieve(&["normalize", "--rules", rules.path(), "x:y"], "");
    assert_eq!(r.code, 2);
    let bad = TempFile::new("bad.toml", "sort_query = true\n");
    let r = linksieve(
        &[
            "normalize",
            "--rung",
            "protocol",
            "--rules",
            bad.path(),
            "x:y",
        ],
        "",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("version"), "{}", r.stderr);
}

#[test]
fn compare_prints_the_lowest_rung_or_the_difference() {
    let r = linksieve(
        &["compare", "http://example.com", "http://example.com:80/"],
        "",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "equivalent at scheme\n"));
    let r = linksieve(
        &["compare", "http://example.com/?", "http://example.com/"],
        "",
    );
    assert_eq!((r.code, r.stdout.as_str()), (1, "different up to scheme\n"));
    let r = linksieve(
        &[
            "compare",
            "--rung",
            "protocol",
            "http://example.com/#",
            "http://example.com/",
        ],
        "",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "equivalent at protocol\n"));
    let r = linksieve(&["compare", "a:b", "a:b"], "");
    assert_eq!(r.stdout, "equivalent at string\n");
    let r = linksieve(&["compare", "http://a b/", "http://ab/"], "");
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("linksieve: A: "), "{}", r.stderr);
    let r = linksieve(&["compare", "http://h/a", "//h/a"], "");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("B: scheme rung: relative reference"),
        "{}",
        r.stderr
    );
}

#[test]
fn compare_explain_lists_keys_and_changes() {
    let r = linksieve(
        &[
            "compare",
            "--explain",
            "HTTP://Example.com:80/a/./b",
            "http://example.com/a/b",
        ],
        "",
    );
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "string    A  HTTP://Example.com:80/a/./b
          B  http://example.com/a/b
          => different
syntax    A  http://example.com:80/a/b\t(changed: scheme, ihost, ipath)
          B  http://example.com/a/b
          => different
scheme    A  http://example.com/a/b\t(changed: port)
          B  http://example.com/a/b
          => equal
equivalent at scheme
"
    );
}

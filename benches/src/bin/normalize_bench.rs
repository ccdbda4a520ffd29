//! `normalize_bench`: normalization throughput of the comparison ladder against peer crates, on
//! a real URL list, one thread.
//!
//! Every implementation parses a URL and produces its normalized text as a new `String`:
//! linksieve's key at the scheme rung in `uri` form (and at the syntax rung, which is what
//! iri-string and fluent-uri normalize to), `url` and `ada-url` parse and serialize (WHATWG,
//! which lowercases, drops default ports and converts hosts, but never decodes `%7E`),
//! iri-string and fluent-uri normalize (RFC 3986 6.2.2 syntax normalization). The work differs
//! between crates; the table says what each does. One warm-up pass, then `--runs` timed passes,
//! round-robin across implementations; the median pass is reported as URLs per second, with
//! its ratio to linksieve and to ada-url.
//!
//! Two lists are measured (`scripts/bench-normalize.sh` runs both): the real kasztp list, whose
//! links are nearly all already normal (the ladder's fast path), and the same list made
//! non-normal by `benches/make-non-normal.py` (an upper-case scheme or host, an explicit
//! default port, a dot segment, a lower-case percent-escape: the ladder's general path).
//!
//! ```text
//! normalize_bench [--urls FILE] [--runs N] [--only TEXT]
//! ```

use linksieve_benches::{count_ok, median, use_ok};
use linksieve_iri::{InputMode, NormalizeOptions, Rung, normalize_str, normalize_str_into};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const DEFAULT_URLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/corpora/data/url-list-kasztp.txt"
);
const DEFAULT_RUNS: usize = 31;

/// One implementation: normalizes every URL, returns how many it accepted.
struct Case {
    name: &'static str,
    op: &'static str,
    run: fn(&[String]) -> usize,
}

fn ladder(urls: &[String], rung: Rung) -> usize {
    let opts = NormalizeOptions {
        rung,
        ..Default::default()
    };
    count_ok(urls, |u| {
        use_ok(normalize_str(u, InputMode::Strict, &opts), |k| {
            black_box(k);
        })
    })
}

fn linksieve_scheme(urls: &[String]) -> usize {
    ladder(urls, Rung::Scheme)
}

/// The scheme-rung key appended to one buffer, cleared every 4096 keys: how `linksieve run`
/// collects a chunk's keys (no allocation per key).
fn linksieve_scheme_into(urls: &[String]) -> usize {
    let opts = NormalizeOptions::default();
    let mut buf = String::with_capacity(1 << 20);
    let mut n = 0;
    count_ok(urls, |u| {
        n += 1;
        if n % 4096 == 0 {
            black_box(&buf);
            buf.clear();
        }
        use_ok(
            normalize_str_into(u, InputMode::Strict, &opts, &mut buf),
            |()| {
                buf.push('\n');
            },
        )
    })
}

fn linksieve_syntax(urls: &[String]) -> usize {
    ladder(urls, Rung::Syntax)
}

fn linksieve_protocol(urls: &[String]) -> usize {
    ladder(urls, Rung::Protocol)
}

/// The same URLs with the scheme in uppercase, which no key has: every URL takes the general
/// path. Made once, in the warm-up pass.
fn linksieve_general(urls: &[String]) -> usize {
    static UPPER: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let upper = UPPER.get_or_init(|| {
        urls.iter()
            .map(|u| match u.split_once(':') {
                Some((s, rest)) => format!("{}:{rest}", s.to_ascii_uppercase()),
                None => u.clone(),
            })
            .collect()
    });
    ladder(upper, Rung::Scheme)
}

fn linksieve_string(urls: &[String]) -> usize {
    ladder(urls, Rung::String)
}

fn url_parse(urls: &[String]) -> usize {
    count_ok(urls, |u| {
        use_ok(url::Url::parse(u), |r| {
            black_box(String::from(r));
        })
    })
}

fn ada_parse(urls: &[String]) -> usize {
    count_ok(urls, |u| {
        use_ok(ada_url::Url::parse(u, None), |r| {
            black_box(r.href().to_owned());
        })
    })
}

fn iri_string_normalize(urls: &[String]) -> usize {
    use iri_string::format::ToDedicatedString;
    count_ok(urls, |u| {
        use_ok(iri_string::types::IriStr::new(u), |r| {
            black_box(r.normalize().to_dedicated_string());
        })
    })
}

fn fluent_normalize(urls: &[String]) -> usize {
    count_ok(urls, |u| {
        use_ok(fluent_uri::Iri::parse(u), |r| {
            black_box(r.normalize());
        })
    })
}

const CASES: &[Case] = &[
    Case {
        name: "linksieve (scheme rung)",
        op: "normalize_str(Strict, Scheme, uri key)",
        run: linksieve_scheme,
    },
    Case {
        name: "linksieve (scheme, buffer)",
        op: "normalize_str_into(Strict, Scheme): keys appended to one buffer",
        run: linksieve_scheme_into,
    },
    Case {
        name: "linksieve (syntax rung)",
        op: "normalize_str(Strict, Syntax, uri key)",
        run: linksieve_syntax,
    },
    Case {
        name: "linksieve (protocol rung)",
        op: "normalize_str(Strict, Protocol, uri key)",
        run: linksieve_protocol,
    },
    Case {
        name: "linksieve (general path)",
        op: "the same, scheme uppercased: no URL is its own key",
        run: linksieve_general,
    },
    Case {
        name: "linksieve (string rung)",
        op: "normalize_str(Strict, String): parse + copy, the floor",
        run: linksieve_string,
    },
    Case {
        name: "url 2.5.8",
        op: "Url::parse + into String (WHATWG)",
        run: url_parse,
    },
    Case {
        name: "ada-url 4.0.0",
        op: "Url::parse + href to String (WHATWG)",
        run: ada_parse,
    },
    Case {
        name: "iri-string 0.7.14",
        op: "IriStr::new + normalize().to_dedicated_string()",
        run: iri_string_normalize,
    },
    Case {
        name: "fluent-uri 0.4.1",
        op: "Iri::parse + normalize()",
        run: fluent_normalize,
    },
];

fn usage() -> String {
    format!(
        "usage: normalize_bench [--urls FILE] [--runs N] [--only TEXT]\n  \
         --urls  URL list, one per line, a UTF-8 BOM stripped (default {DEFAULT_URLS})\n  \
         --runs  timed passes per implementation after one warm-up (default {DEFAULT_RUNS})\n  \
         --only  run only the implementations whose name contains TEXT (profiling)"
    )
}

struct Args {
    urls: PathBuf,
    runs: usize,
    only: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let (mut urls, mut runs, mut only) = (PathBuf::from(DEFAULT_URLS), DEFAULT_RUNS, None);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--urls" => urls = value()?.into(),
            "--runs" => {
                runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?;
                if runs == 0 {
                    return Err("--runs must be at least 1".into());
                }
            }
            "--only" => only = Some(value()?),
            "-h" | "--help" => return Err(usage()),
            _ => return Err(format!("unknown argument {flag}\n{}", usage())),
        }
    }
    Ok(Args { urls, runs, only })
}

fn main() -> ExitCode {
    let Args {
        urls: path,
        runs,
        only,
    } = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("{m}");
            return ExitCode::from(2);
        }
    };
    let urls = match linksieve_benches::load_url_list(&path) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("normalize_bench: {e}");
            return ExitCode::from(2);
        }
    };
    let bytes: usize = urls.iter().map(String::len).sum();

    // Correctness first: keys are idempotent; count the URLs that are already their own key
    // (the fast path).
    let opts = NormalizeOptions::default();
    let mut own = 0;
    for u in &urls {
        if let Ok(k) = normalize_str(u, InputMode::Strict, &opts) {
            own += usize::from(k == *u);
            match normalize_str(&k, InputMode::Strict, &opts) {
                Ok(k2) if k2 == k => {}
                other => {
                    eprintln!("normalize_bench: key {k:?} of {u:?} normalizes to {other:?}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }

    println!(
        "{} URLs ({} bytes) from {}; {} already their own scheme-rung key; {} timed passes after one warm-up; one thread",
        urls.len(),
        bytes,
        path.display(),
        own,
        runs
    );
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| only.as_ref().is_none_or(|o| c.name.contains(o.as_str())))
        .collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); cases.len()];
    let mut accepted = vec![0; cases.len()];
    for (i, c) in cases.iter().enumerate() {
        accepted[i] = (c.run)(&urls);
    }
    for _ in 0..runs {
        for (i, c) in cases.iter().enumerate() {
            let t = Instant::now();
            black_box((c.run)(black_box(&urls)));
            times[i].push(t.elapsed());
        }
    }
    let rates: Vec<f64> = times
        .iter_mut()
        .map(|t| urls.len() as f64 / median(t).as_secs_f64())
        .collect();
    let ada = cases
        .iter()
        .position(|c| c.name.starts_with("ada-url"))
        .map_or(f64::NAN, |i| rates[i]);
    println!(
        "{:<24} {:>9} {:>12} {:>12} {:>10}  operation",
        "implementation", "accepted", "URLs/s", "vs linksieve", "vs ada-url"
    );
    for (i, c) in cases.iter().enumerate() {
        println!(
            "{:<24} {:>9} {:>12.0} {:>11.2}x {:>9.2}x  {}",
            c.name,
            accepted[i],
            rates[i],
            rates[i] / rates[0],
            rates[i] / ada,
            c.op
        );
    }
    ExitCode::SUCCESS
}

//! `web_bench`: WHATWG URL parsing, linksieve's own parser (`parse_web`) against `url` 2.5.8 and
//! `ada-url` 4.0.0, on the same inputs:
//!
//! - conformance: each engine's pass count on the WPT URL vectors and ada's additions
//!   (`testdata/normalize/wpt-urltestdata.jsonl`, `ada-extra-urltestdata.jsonl`), href or
//!   failure as expected;
//! - throughput on the vectors (repeated `--repeat` times per pass; a base is given as text and
//!   parsed for each case by every engine, as ada's API does);
//! - throughput on a real URL list (parse without base, href kept), and how often each peer's
//!   href (or failure) differs from linksieve's there.
//!
//! One warm-up pass, then `--runs` timed passes, round-robin across engines; rates are inputs
//! per second of the median pass.
//!
//! ```text
//! web_bench [--urls FILE] [--runs N] [--repeat N]
//! ```

use linksieve_benches::load_url_list;
use linksieve_benches::median;
use linksieve_iri::{WebUrl, parse_web};
use serde_json::Value;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const VECTORS: [&str; 2] = [
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/normalize/wpt-urltestdata.jsonl"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/normalize/ada-extra-urltestdata.jsonl"
    ),
];
const DEFAULT_URLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/corpora/data/url-list-kasztp.txt"
);

/// One WPT case: input, optional base, expected href (`None`: failure).
struct Vector {
    input: String,
    base: Option<String>,
    expected: Option<String>,
}

/// An input and its base, as text.
type Case = (String, Option<String>);

/// One engine: the href (or `None` for failure) of `input` against `base` given as text.
struct Engine {
    name: &'static str,
    op: &'static str,
    href: fn(&str, Option<&str>) -> Option<String>,
    /// Parses every input (base given as text), keeps the href alive; returns the accepted count.
    run: fn(&[Case]) -> usize,
}

fn linksieve_href(input: &str, base: Option<&str>) -> Option<String> {
    let base = match base {
        Some(b) => Some(WebUrl::parse(b).ok()?),
        None => None,
    };
    parse_web(input, base.as_ref(), None).ok().map(String::from)
}

fn url_href(input: &str, base: Option<&str>) -> Option<String> {
    let base = match base {
        Some(b) => Some(url::Url::parse(b).ok()?),
        None => None,
    };
    url::Url::options()
        .base_url(base.as_ref())
        .parse(input)
        .ok()
        .map(String::from)
}

fn ada_href(input: &str, base: Option<&str>) -> Option<String> {
    ada_url::Url::parse(input, base)
        .ok()
        .map(|u| u.href().to_owned())
}

fn linksieve_run(inputs: &[Case]) -> usize {
    let mut ok = 0;
    for (input, base) in inputs {
        let base = match base {
            Some(b) => match WebUrl::parse(black_box(b)) {
                Ok(b) => Some(b),
                Err(e) => {
                    black_box(e);
                    continue;
                }
            },
            None => None,
        };
        match parse_web(black_box(input), base.as_ref(), None) {
            Ok(u) => {
                black_box(u.as_str());
                ok += 1;
            }
            Err(e) => {
                black_box(e);
            }
        }
    }
    ok
}

fn url_run(inputs: &[Case]) -> usize {
    let mut ok = 0;
    for (input, base) in inputs {
        let base = match base {
            Some(b) => match url::Url::parse(black_box(b)) {
                Ok(b) => Some(b),
                Err(e) => {
                    black_box(e);
                    continue;
                }
            },
            None => None,
        };
        match url::Url::options()
            .base_url(base.as_ref())
            .parse(black_box(input))
        {
            Ok(u) => {
                black_box(u.as_str());
                ok += 1;
            }
            Err(e) => {
                black_box(e);
            }
        }
    }
    ok
}

fn ada_run(inputs: &[Case]) -> usize {
    let mut ok = 0;
    for (input, base) in inputs {
        match ada_url::Url::parse(black_box(input.as_str()), base.as_deref()) {
            Ok(u) => {
                black_box(u.href());
                ok += 1;
            }
            Err(e) => {
                black_box(e);
            }
        }
    }
    ok
}

const ENGINES: &[Engine] = &[
    Engine {
        name: "linksieve",
        op: "parse_web + as_str",
        href: linksieve_href,
        run: linksieve_run,
    },
    Engine {
        name: "url 2.5.8",
        op: "Url::options().base_url().parse + as_str",
        href: url_href,
        run: url_run,
    },
    Engine {
        name: "ada-url 4.0.0",
        op: "Url::parse(input, base) + href",
        href: ada_href,
        run: ada_run,
    },
];

/// WPT inputs may hold lone surrogates (`\uD800`), which browsers turn into U+FFFD before URL
/// parsing; do the same so the JSON parses (as `crates/iri/tests/conformance.rs` does).
fn usv(line: &str) -> String {
    let b = line.as_bytes();
    let sur = |i: usize| -> Option<u16> {
        let h = line.get(i + 2..i + 6)?;
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(h, 16).ok())
            .flatten()
            .filter(|v| (0xD800..0xE000).contains(v))
    };
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push_str("\\\\");
            i += 2;
            continue;
        }
        if let Some(hi) = sur(i) {
            if (0xD800..0xDC00).contains(&hi) && sur(i + 6).is_some_and(|lo| lo >= 0xDC00) {
                out.push_str(&line[i..i + 12]);
                i += 12;
            } else {
                out.push_str("\\uFFFD");
                i += 6;
            }
            continue;
        }
        let ch = line[i..].chars().next().unwrap_or_default();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

fn load_vectors() -> Result<Vec<Vector>, String> {
    let mut out = Vec::new();
    for path in VECTORS {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        for line in text.lines() {
            let v: Value = serde_json::from_str(&usv(line)).map_err(|e| format!("{path}: {e}"))?;
            let s = |k: &str| v[k].as_str().map(str::to_owned);
            out.push(Vector {
                input: s("input").ok_or("a vector without input")?,
                base: s("base"),
                expected: s("expected"),
            });
        }
    }
    Ok(out)
}

struct Args {
    urls: PathBuf,
    runs: usize,
    repeat: usize,
}

fn parse_args() -> Result<Args, String> {
    let usage = format!(
        "usage: web_bench [--urls FILE] [--runs N] [--repeat N]\n  \
         --urls    URL list, one per line (default {DEFAULT_URLS})\n  \
         --runs    timed passes per engine after one warm-up (default 51)\n  \
         --repeat  copies of the vectors per pass (default 20)"
    );
    let mut a = Args {
        urls: DEFAULT_URLS.into(),
        runs: 51,
        repeat: 20,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{usage}"))
        };
        match flag.as_str() {
            "--urls" => a.urls = value()?.into(),
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--repeat" => a.repeat = value()?.parse().map_err(|e| format!("--repeat: {e}"))?,
            "-h" | "--help" => {
                println!("{usage}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument {flag}\n{usage}")),
        }
    }
    if a.runs == 0 || a.repeat == 0 {
        return Err("--runs and --repeat must be at least 1".into());
    }
    Ok(a)
}

/// Median pass of each engine over `inputs` (round-robin) and the accepted counts.
fn time_engines(inputs: &[Case], runs: usize) -> Vec<(Duration, usize)> {
    let accepted: Vec<usize> = ENGINES.iter().map(|e| (e.run)(inputs)).collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); ENGINES.len()];
    for _ in 0..runs {
        for (e, t) in ENGINES.iter().zip(&mut times) {
            let start = Instant::now();
            black_box((e.run)(black_box(inputs)));
            t.push(start.elapsed());
        }
    }
    times.iter_mut().map(|t| median(t)).zip(accepted).collect()
}

fn print_rates(title: &str, n: usize, res: &[(Duration, usize)]) {
    println!();
    println!("{title}");
    println!();
    println!("| engine | operation | accepted | median inputs/s | linksieve / this |");
    println!("| --- | --- | ---: | ---: | ---: |");
    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    for (e, (d, ok)) in ENGINES.iter().zip(res) {
        println!(
            "| {} | `{}` | {ok} | {:.0} | {:.2}x |",
            e.name,
            e.op,
            rate(*d),
            rate(res[0].0) / rate(*d)
        );
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("{m}");
            return ExitCode::from(2);
        }
    };
    let (vectors, urls) = match (load_vectors(), load_url_list(&args.urls)) {
        (Ok(v), Ok(u)) => (v, u),
        (Err(m), _) | (_, Err(m)) => {
            eprintln!("web_bench: {m}");
            return ExitCode::from(2);
        }
    };

    println!(
        "web_bench: {} WPT + ada-extra vectors (x{} per pass), {} URLs from {}; one thread; \
         1 warm-up + {} timed passes per engine, round-robin",
        vectors.len(),
        args.repeat,
        urls.len(),
        args.urls.display(),
        args.runs
    );
    println!();
    println!(
        "| engine | WPT + ada-extra vectors passed | failures expected, got href | href differs |"
    );
    println!("| --- | ---: | ---: | ---: |");
    for e in ENGINES {
        let (mut pass, mut accepted_bad, mut wrong) = (0, 0, 0);
        for v in &vectors {
            let got = (e.href)(&v.input, v.base.as_deref());
            match (&got, &v.expected) {
                (a, b) if a == b => pass += 1,
                (Some(_), None) => accepted_bad += 1,
                _ => wrong += 1,
            }
        }
        println!(
            "| {} | {pass}/{} ({:.1}%) | {accepted_bad} | {wrong} |",
            e.name,
            vectors.len(),
            100.0 * pass as f64 / vectors.len() as f64
        );
    }

    let wpt: Vec<Case> = (0..args.repeat)
        .flat_map(|_| vectors.iter().map(|v| (v.input.clone(), v.base.clone())))
        .collect();
    let res = time_engines(&wpt, args.runs);
    print_rates(
        &format!(
            "Vectors ({} inputs per pass, bases parsed per case)",
            wpt.len()
        ),
        wpt.len(),
        &res,
    );

    let list: Vec<Case> = urls.iter().map(|u| (u.clone(), None)).collect();
    let res = time_engines(&list, args.runs);
    print_rates(
        &format!("URL list ({} URLs per pass, no base)", list.len()),
        list.len(),
        &res,
    );

    println!();
    for e in &ENGINES[1..] {
        let mut differ = 0;
        let mut examples = Vec::new();
        for u in &urls {
            let ours = linksieve_href(u, None);
            let theirs = (e.href)(u, None);
            if ours != theirs {
                differ += 1;
                if examples.len() < 5 {
                    examples.push(format!("{u:?}: linksieve {ours:?}, {} {theirs:?}", e.name));
                }
            }
        }
        println!(
            "URL list: {} differs from linksieve on {differ} of {} URLs",
            e.name,
            urls.len()
        );
        for x in examples {
            println!("  {x}");
        }
    }
    ExitCode::SUCCESS
}

//! `parse_bench`: IRI/URL parsing throughput of linksieve against peer crates, on real URLs.
//!
//! Input: a URL list (one per line, a UTF-8 BOM on the first line is stripped) and the `http(s)`
//! Referer fields of an Apache combined log (kept as logged, `\xHH` escapes included). Every
//! implementation runs over the whole list on this one thread: one warm-up pass, then `--runs`
//! timed passes, round-robin across implementations so that load from other processes is spread
//! over all of them. The table reports the median pass (and the best) as URLs per second.
//!
//! ```text
//! parse_bench [--urls FILE] [--log FILE] [--runs N] [--only TEXT]
//! ```

use linksieve_benches::{count_ok, load_url_list, median, use_ok};
use linksieve_iri::{Grammar, IriRef};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const DEFAULT_URLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/corpora/data/url-list-kasztp.txt"
);
const DEFAULT_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/corpora/data/apache_logs.log"
);
const DEFAULT_RUNS: usize = 51;

/// The two kinds of work compared.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Is the string a valid IRI / URL? Nothing kept.
    Validate,
    /// Parse, then produce the serialization as text.
    ParseSerialize,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Validate => "validate",
            Class::ParseSerialize => "parse+serialize",
        }
    }
}

/// One implementation: runs over every URL, returns how many it accepted.
struct Case {
    class: Class,
    name: &'static str,
    op: &'static str,
    run: fn(&[String], &mut String) -> usize,
}

fn linksieve_validate(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| {
        black_box(linksieve_iri::validate(u, Grammar::Iri)).is_ok()
    })
}

fn linksieve_parse_write(urls: &[String], out: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(IriRef::parse(u), |r| {
            out.clear();
            r.write_to(out);
            black_box(out.as_str());
        })
    })
}

fn oxiri_validate(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| black_box(oxiri::Iri::parse(u)).is_ok())
}

fn oxiri_parse_copy(urls: &[String], out: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(oxiri::Iri::parse(u), |r| {
            out.clear();
            out.push_str(r.as_str());
            black_box(out.as_str());
        })
    })
}

fn iri_string_validate(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| {
        black_box(iri_string::types::IriStr::new(u)).is_ok()
    })
}

fn iri_string_to_string(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(iri_string::types::IriStr::new(u), |r| {
            black_box(r.to_string());
        })
    })
}

fn fluent_validate(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| black_box(fluent_uri::Iri::parse(u)).is_ok())
}

fn fluent_parse_copy(urls: &[String], out: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(fluent_uri::Iri::parse(u), |r| {
            out.clear();
            out.push_str(r.as_str());
            black_box(out.as_str());
        })
    })
}

fn url_parse(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(url::Url::parse(u), |r| {
            black_box(r.as_str());
        })
    })
}

fn ada_parse(urls: &[String], _: &mut String) -> usize {
    count_ok(urls, |u| {
        use_ok(ada_url::Url::parse(u, None), |r| {
            black_box(r.href());
        })
    })
}

const CASES: &[Case] = &[
    Case {
        class: Class::Validate,
        name: "linksieve",
        op: "validate(s, Grammar::Iri)",
        run: linksieve_validate,
    },
    Case {
        class: Class::Validate,
        name: "oxiri 0.3.1",
        op: "Iri::parse",
        run: oxiri_validate,
    },
    Case {
        class: Class::Validate,
        name: "iri-string 0.7.14",
        op: "IriStr::new",
        run: iri_string_validate,
    },
    Case {
        class: Class::Validate,
        name: "fluent-uri 0.4.1",
        op: "Iri::parse",
        run: fluent_validate,
    },
    Case {
        class: Class::ParseSerialize,
        name: "linksieve",
        op: "IriRef::parse + write_to (reused String)",
        run: linksieve_parse_write,
    },
    Case {
        class: Class::ParseSerialize,
        name: "url 2.5.8",
        op: "Url::parse + as_str",
        run: url_parse,
    },
    Case {
        class: Class::ParseSerialize,
        name: "ada-url 4.0.0",
        op: "Url::parse + href",
        run: ada_parse,
    },
    Case {
        class: Class::ParseSerialize,
        name: "oxiri 0.3.1",
        op: "Iri::parse + as_str (copied to reused String)",
        run: oxiri_parse_copy,
    },
    Case {
        class: Class::ParseSerialize,
        name: "iri-string 0.7.14",
        op: "IriStr::new + to_string (allocates)",
        run: iri_string_to_string,
    },
    Case {
        class: Class::ParseSerialize,
        name: "fluent-uri 0.4.1",
        op: "Iri::parse + as_str (copied to reused String)",
        run: fluent_parse_copy,
    },
];

struct Args {
    urls: PathBuf,
    log: PathBuf,
    runs: usize,
    only: Option<String>,
}

fn usage() -> String {
    format!(
        "usage: parse_bench [--urls FILE] [--log FILE] [--runs N] [--only TEXT]\n  \
         --urls  URL list, one per line (default {DEFAULT_URLS})\n  \
         --log   Apache combined log; its http(s) Referers are added (default {DEFAULT_LOG})\n  \
         --runs  timed passes per implementation after one warm-up (default {DEFAULT_RUNS})\n  \
         --only  run only the implementations whose \"class implementation\" contains TEXT (profiling)"
    )
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        urls: DEFAULT_URLS.into(),
        log: DEFAULT_LOG.into(),
        runs: DEFAULT_RUNS,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        match flag.as_str() {
            "--urls" => a.urls = value()?.into(),
            "--log" => a.log = value()?.into(),
            "--runs" => {
                a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?;
                if a.runs == 0 {
                    return Err("--runs must be at least 1".into());
                }
            }
            "--only" => a.only = Some(value()?),
            "-h" | "--help" => {
                println!("{}", usage());
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument {flag}\n{}", usage())),
        }
    }
    Ok(a)
}

/// The fields of an Apache log line: bare words, `[...]`, or `"..."` with `\"` escapes inside.
/// Quoted fields are returned without their quotes, escapes kept as logged.
fn log_fields(line: &str) -> Vec<&str> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' => i += 1,
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                out.push(&line[start..end]);
                i = end + 1;
            }
            b'[' => {
                let end = line[i..].find(']').map_or(b.len(), |p| i + p + 1);
                out.push(&line[i..end]);
                i = end;
            }
            _ => {
                let end = line[i..].find(' ').map_or(b.len(), |p| i + p);
                out.push(&line[i..end]);
                i = end;
            }
        }
    }
    out
}

/// The Referer (field 8 of the combined format: host ident user \[time\] "request" status size
/// "referer" "agent") of each line, when it starts with `http://` or `https://`.
fn load_referers(path: &PathBuf) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .filter_map(|l| log_fields(l).get(7).copied())
        .filter(|r| r.starts_with("http://") || r.starts_with("https://"))
        .map(str::to_owned)
        .collect())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(m) => {
            eprintln!("{m}");
            return ExitCode::from(2);
        }
    };
    let (list, refs) = match (load_url_list(&args.urls), load_referers(&args.log)) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(m), _) | (_, Err(m)) => {
            eprintln!("parse_bench: {m}");
            return ExitCode::from(2);
        }
    };
    let n_list = list.len();
    let n_refs = refs.len();
    let urls: Vec<String> = list.into_iter().chain(refs).collect();
    let bytes: usize = urls.iter().map(String::len).sum();

    // Correctness first: linksieve's recomposition must give back the input it accepted.
    let mut out = String::new();
    for u in &urls {
        if let Ok(r) = IriRef::parse(u) {
            out.clear();
            r.write_to(&mut out);
            if out != *u {
                eprintln!("parse_bench: write_to changed {u:?} into {out:?}");
                return ExitCode::FAILURE;
            }
        }
    }

    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| {
            let label = format!("{} {}", c.class.name(), c.name);
            args.only.as_deref().is_none_or(|o| label.contains(o))
        })
        .collect();

    // Warm-up pass (also gives the accepted counts), then round-robin timed passes.
    let accepted: Vec<usize> = cases.iter().map(|c| (c.run)(&urls, &mut out)).collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(args.runs); cases.len()];
    for _ in 0..args.runs {
        for (c, t) in cases.iter().zip(&mut times) {
            let start = Instant::now();
            let ok = (c.run)(black_box(&urls), &mut out);
            t.push(start.elapsed());
            black_box(ok);
        }
    }
    let med: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    let best: Vec<Duration> = times.iter().map(|t| t[0]).collect(); // sorted by median()

    println!(
        "{} URLs ({n_list} from {}, {n_refs} http(s) Referers from {}), {:.2} MB; one thread; \
         1 warm-up + {} timed passes per implementation, round-robin; rate = URLs / median pass",
        urls.len(),
        args.urls.display(),
        args.log.display(),
        bytes as f64 / 1e6,
        args.runs,
    );
    println!();
    println!(
        "| class | implementation | operation | accepted | rejected | median URLs/s | best URLs/s | MB/s (median) | linksieve / this |"
    );
    println!("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let rate = |d: Duration| urls.len() as f64 / d.as_secs_f64();
    for class in [Class::Validate, Class::ParseSerialize] {
        let base = cases
            .iter()
            .position(|c| c.class == class && c.name == "linksieve");
        for (i, c) in cases.iter().enumerate().filter(|(_, c)| c.class == class) {
            let ratio = base.map_or("-".to_owned(), |b| {
                format!("{:.2}x", rate(med[b]) / rate(med[i]))
            });
            println!(
                "| {} | {} | `{}` | {} | {} | {:.0} | {:.0} | {:.1} | {ratio} |",
                class.name(),
                c.name,
                c.op,
                accepted[i],
                urls.len() - accepted[i],
                rate(med[i]),
                rate(best[i]),
                bytes as f64 / med[i].as_secs_f64() / 1e6,
            );
        }
    }
    ExitCode::SUCCESS
}

//! `profile_bench`: throughput of each profile (`Profile::canonicalize`, the key as a new
//! `String`) on a URL list, one thread, beside ada-url's parse + serialize (`href`) in the same
//! run. `benches/profiles/bench.py` runs it and times the Python libraries that the profiles
//! reproduce (w3lib, urlcanon, surt) on the same list, and prints the ratios.
//!
//! One warm-up pass, then `--runs` timed passes round-robin across cases; the median pass is
//! reported as URLs per second. `--json` prints one JSON object per case instead of a table.
//!
//! ```text
//! profile_bench [--urls FILE] [--runs N] [--json] [--only NAME]
//! ```

use linksieve_benches::{count_ok, median, use_ok};
use linksieve_profiles::{Profile, ProfileKind};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const DEFAULT_URLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/corpora/data/url-list-kasztp.txt"
);
const DEFAULT_RUNS: usize = 11;

/// One case: a name and the work on every URL (how many it accepted).
type Run = Box<dyn Fn(&[String]) -> usize>;

fn cases() -> Vec<(String, Run)> {
    let mut v: Vec<(String, Run)> = ProfileKind::ALL
        .into_iter()
        .map(|k| {
            let p = Profile::new(k);
            let run: Run = Box::new(move |urls: &[String]| {
                count_ok(urls, |u| {
                    use_ok(p.canonicalize(u), |k| {
                        black_box(k);
                    })
                })
            });
            (k.name().to_owned(), run)
        })
        .collect();
    v.push((
        "ada-url 4.0.0".to_owned(),
        Box::new(|urls: &[String]| {
            count_ok(urls, |u| {
                use_ok(ada_url::Url::parse(u, None), |r| {
                    black_box(r.href().to_owned());
                })
            })
        }),
    ));
    v
}

fn usage() -> String {
    format!(
        "usage: profile_bench [--urls FILE] [--runs N] [--json] [--only NAME]\n  \
         --urls  URL list, one per line, a UTF-8 BOM stripped (default {DEFAULT_URLS})\n  \
         --runs  timed passes per case after one warm-up, 1..=1000 (default {DEFAULT_RUNS})\n  \
         --json  one JSON object per case: name, accepted, urls_per_s\n  \
         --only  run only the profile NAME and ada-url (for profilers such as callgrind)"
    )
}

fn main() -> ExitCode {
    let (mut path, mut runs, mut json) = (PathBuf::from(DEFAULT_URLS), DEFAULT_RUNS, false);
    let mut only: Option<String> = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let parsed = match flag.as_str() {
            "--urls" => it
                .next()
                .map(|v| path = v.into())
                .ok_or("--urls needs a value"),
            "--runs" => it
                .next()
                .and_then(|v| v.parse().ok())
                .filter(|n| (1..=1000).contains(n))
                .map(|n| runs = n)
                .ok_or("--runs needs a number in 1..=1000"),
            "--only" => it
                .next()
                .map(|v| only = Some(v))
                .ok_or("--only needs a profile name"),
            "--json" => {
                json = true;
                Ok(())
            }
            _ => Err("unknown argument"),
        };
        if let Err(m) = parsed {
            eprintln!("profile_bench: {flag}: {m}\n{}", usage());
            return ExitCode::from(2);
        }
    }
    let urls = match linksieve_benches::load_url_list(&path) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("profile_bench: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cases = cases();
    if let Some(name) = &only {
        let last = cases.len() - 1;
        let mut i = 0;
        cases.retain(|(n, _)| {
            i += 1;
            n == name || i - 1 == last
        });
        if cases.len() < 2 {
            eprintln!(
                "profile_bench: --only: no profile named {name}\n{}",
                usage()
            );
            return ExitCode::from(2);
        }
    }
    let accepted: Vec<usize> = cases.iter().map(|(_, run)| run(&urls)).collect();
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); cases.len()];
    for _ in 0..runs {
        for (i, (_, run)) in cases.iter().enumerate() {
            let t = Instant::now();
            black_box(run(black_box(&urls)));
            times[i].push(t.elapsed());
        }
    }
    let rates: Vec<f64> = times
        .iter_mut()
        .map(|t| urls.len() as f64 / median(t).as_secs_f64())
        .collect();
    let ada = rates[rates.len() - 1];
    if !json {
        println!(
            "{} URLs from {}; {runs} timed passes after one warm-up; one thread",
            urls.len(),
            path.display()
        );
        println!(
            "{:<22} {:>9} {:>12} {:>10}",
            "case", "accepted", "URLs/s", "vs ada-url"
        );
    }
    for (i, (name, _)) in cases.iter().enumerate() {
        if json {
            println!(
                "{{\"name\":\"{name}\",\"accepted\":{},\"urls_per_s\":{:.0}}}",
                accepted[i], rates[i]
            );
        } else {
            println!(
                "{name:<22} {:>9} {:>12.0} {:>9.2}x",
                accepted[i],
                rates[i],
                rates[i] / ada
            );
        }
    }
    ExitCode::SUCCESS
}

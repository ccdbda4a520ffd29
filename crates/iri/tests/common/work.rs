//! Linear cost checked by counting work, not by timing it: the instructions a call executes,
//! counted by valgrind's callgrind, the same on every run and every machine load.
//!
//! A test that checks scaling calls [`Work::count`] with its own name. Run by the test harness,
//! that starts this test binary again under `valgrind --tool=callgrind`, running only that test
//! (the child). In the child, [`Work::linear`] runs each case at sizes `n` and `4n` inside
//! [`work_marker`], the only function callgrind counts in (`--collect-atstart=no
//! --toggle-collect`), and callgrind writes one count per call (`--dump-after`); building the
//! inputs is not counted. Back in the parent, [`Work::linear`] reads the two counts of each case
//! and asserts that 4x the input costs less than [`MAX_RATIO`] times the instructions: linear
//! work gives 4x, a quadratic step 16x.
//!
//! The tests that use it are `#[ignore]`d (valgrind is not part of a Rust toolchain):
//! `scripts/test.sh` runs them (`--include-ignored`), and `.ci/run` installs valgrind.
//! Without valgrind the test fails and says so.
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the child: the folder where it lists its cases and callgrind writes its counts.
const CHILD_ENV: &str = "LINKSIEVE_WORK_CHILD";

/// The largest instruction ratio allowed between a case at `4n` and at `n`. Linear work gives
/// at most 4x (less with a fixed cost; 3.67x to 4.06x on the shapes here, sorting a query's
/// n log n included), a quadratic step 16x. The counts do not move from run to run, so the bound
/// can be close: a quadratic part as cheap as moving the rest of the input once a byte
/// (`Vec::remove(0)` in a loop: one memmove a byte) gave 5.51x beside the adversarial test's
/// work at its sizes.
pub const MAX_RATIO: f64 = 4.6;

/// Runs `f` where callgrind counts (and only there). Never inlined, so that callgrind sees the
/// function by its name.
#[inline(never)]
pub fn work_marker(f: &dyn Fn()) {
    f();
    std::hint::black_box(());
}

/// The counts of one scaling test: in the child, where to list the cases; in the parent, the
/// instruction counts the child left, one per call of [`work_marker`], in call order.
pub enum Work {
    /// Running under callgrind: measure each case.
    Child(PathBuf),
    /// The harness's run: check each case against the child's counts.
    Parent {
        /// `(case name, size, instructions)`, in call order.
        counts: VecDeque<(String, usize, u64)>,
        /// `name: ratio` of each case checked, for the report.
        report: Vec<String>,
    },
}

impl Work {
    /// In the child, the measuring side. In the parent, runs `test` (the harness's name of the
    /// calling test, `module::fn` in a binary of modules) under callgrind and reads its counts.
    pub fn count(test: &str) -> Work {
        if let Some(dir) = std::env::var_os(CHILD_ENV) {
            return Work::Child(PathBuf::from(dir));
        }
        let dir = std::env::temp_dir().join(format!(
            "linksieve-work-{}-{}",
            std::process::id(),
            test.replace("::", "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder for callgrind's counts");
        let exe = std::env::current_exe().expect("the test binary's path");
        // callgrind 3.19 matches `--dump-after` by the whole name (no wildcards).
        let marker = concat!(module_path!(), "::work_marker");
        let out = Command::new("valgrind")
            .args([
                "--tool=callgrind",
                "--collect-atstart=no",
                "--dump-instr=no",
            ])
            .arg(format!("--toggle-collect={marker}"))
            .arg(format!("--dump-after={marker}"))
            .arg(format!("--callgrind-out-file={}", dir.join("cg").display()))
            .arg(&exe)
            .args([test, "--exact", "--include-ignored", "--test-threads=1"])
            .env(CHILD_ENV, &dir)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "{test}: cannot run valgrind ({e}): this test counts instructions under \
                     callgrind; install valgrind (apt-get install valgrind)"
                )
            });
        let log = |what: &str| {
            format!(
                "{what}\n--- stdout\n{}\n--- stderr\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        };
        assert!(
            out.status.success(),
            "{}",
            log("the child under callgrind failed")
        );
        let cases = std::fs::read_to_string(dir.join("cases"))
            .unwrap_or_else(|_| panic!("{}", log(&format!("{test}: the child measured no case"))));
        let counts = dumps(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let cases: Vec<(String, usize)> = cases
            .lines()
            .map(|l| {
                let (name, size) = l.rsplit_once('\t').expect("name<TAB>size");
                (name.to_owned(), size.parse().expect("a size"))
            })
            .collect();
        assert_eq!(
            cases.len(),
            counts.len(),
            "{}",
            log("one count per measured call")
        );
        Work::Parent {
            counts: cases
                .into_iter()
                .zip(counts)
                .map(|((name, size), c)| (name, size, c))
                .collect(),
            report: Vec::new(),
        }
    }

    /// Checks that `f` costs linear work: `make(n)` builds the input of size `n`; `f` runs on
    /// sizes `n` and `4n` (in the child; the parent checks the child's counts).
    pub fn linear<T>(&mut self, name: &str, n: usize, make: impl Fn(usize) -> T, f: impl Fn(&T)) {
        match self {
            Work::Child(dir) => {
                for size in [n, 4 * n] {
                    let input = make(size);
                    work_marker(&|| f(&input));
                    use std::io::Write;
                    let mut list = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(dir.join("cases"))
                        .expect("the case list");
                    writeln!(list, "{name}\t{size}").expect("the case list");
                }
            }
            Work::Parent { counts, report } => {
                let mut next = |size: usize| {
                    let (got, s, c) = counts
                        .pop_front()
                        .unwrap_or_else(|| panic!("{name}: no count from the child"));
                    assert_eq!(
                        (got.as_str(), s),
                        (name, size),
                        "the child's cases in order"
                    );
                    c
                };
                let small = next(n);
                let large = next(4 * n);
                assert!(small > 0, "{name}: no instruction counted");
                let ratio = large as f64 / small as f64;
                assert!(
                    ratio < MAX_RATIO,
                    "{name}: {small} instructions at size {n}, {large} at {} ({ratio:.2}x; \
                     linear is 4x, the bound {MAX_RATIO}x)",
                    4 * n
                );
                report.push(format!("{name}: {ratio:.2}x"));
            }
        }
    }

    /// In the parent, checks that every count was read, and prints the ratios (for
    /// `--nocapture`).
    pub fn finish(self) {
        if let Work::Parent { counts, report } = self {
            assert!(counts.is_empty(), "counts left over: {counts:?}");
            eprintln!("instructions for 4x the input: {}", report.join(", "));
        }
    }
}

/// The instruction counts of callgrind's dumps in `dir` (`cg.1`, `cg.2`, ...: one per call of
/// [`work_marker`]), in dump order.
fn dumps(dir: &Path) -> Vec<u64> {
    let mut files: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .expect("callgrind's folder")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let n = p.file_name()?.to_str()?.strip_prefix("cg.")?.parse().ok()?;
            Some((n, p))
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|(_, p)| {
            let text = std::fs::read_to_string(p).expect("a callgrind dump");
            text.lines()
                .find_map(|l| l.strip_prefix("totals:").or(l.strip_prefix("summary:")))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .unwrap_or_else(|| panic!("{}: no totals line", p.display()))
        })
        .collect()
}

//! Pieces the benchmark binaries share: the per-URL loop that counts accepted inputs, the
//! median of timed passes, and the random fingerprints of the seen-set benchmarks.

use std::hint::black_box;
use std::time::Duration;

/// Calls `f` on every URL (through `black_box`) and counts the calls that returned `true`.
///
/// ```
/// let urls = vec!["a".to_owned(), "".to_owned()];
/// assert_eq!(linksieve_benches::count_ok(&urls, |u| !u.is_empty()), 1);
/// ```
#[inline]
pub fn count_ok(urls: &[String], mut f: impl FnMut(&str) -> bool) -> usize {
    urls.iter()
        .map(|u| usize::from(f(black_box(u.as_str()))))
        .sum()
}

/// Hands an accepted result to `use_ok` and returns `true`; keeps a rejection alive through
/// `black_box` (so that it is built, as a caller would build it) and returns `false`.
///
/// ```
/// let mut seen = 0;
/// assert!(linksieve_benches::use_ok(Ok::<u8, ()>(3), |v| seen = v));
/// assert!(!linksieve_benches::use_ok(Err::<u8, ()>(()), |_| {}));
/// assert_eq!(seen, 3);
/// ```
#[inline]
pub fn use_ok<T, E>(r: Result<T, E>, use_ok: impl FnOnce(T)) -> bool {
    match r {
        Ok(v) => {
            use_ok(v);
            true
        }
        Err(e) => {
            black_box(e);
            false
        }
    }
}

/// The median of timed passes (sorts `d`).
///
/// ```
/// use std::time::Duration;
/// let mut d = [3, 1, 2].map(Duration::from_millis);
/// assert_eq!(linksieve_benches::median(&mut d), Duration::from_millis(2));
/// ```
pub fn median(d: &mut [Duration]) -> Duration {
    d.sort_unstable();
    d[d.len() / 2]
}

/// SplitMix64: the next pseudo-random value of `state` (fixed sequences for the seen-set
/// benchmarks).
///
/// ```
/// let mut s = 0;
/// assert_ne!(linksieve_benches::splitmix(&mut s), linksieve_benches::splitmix(&mut s));
/// ```
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pseudo-random 128-bit value from two [`splitmix`] steps (a fingerprint for the seen-set
/// benchmarks).
///
/// ```
/// let mut s = 7;
/// assert_ne!(linksieve_benches::random_u128(&mut s), linksieve_benches::random_u128(&mut s));
/// ```
pub fn random_u128(state: &mut u64) -> u128 {
    ((splitmix(state) as u128) << 64) | splitmix(state) as u128
}

/// The command-line arguments as numbers (panics with "number" on one that is not: these are
/// benchmark drivers).
///
/// ```
/// assert!(linksieve_benches::number_args().len() < 1000);
/// ```
pub fn number_args() -> Vec<f64> {
    std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("number"))
        .collect()
}

/// A field of /proc/self/status (`VmRSS:`, `VmHWM:`) in bytes; 0 where it cannot be read.
///
/// ```
/// let _ = linksieve_benches::proc_status("VmRSS:");
/// ```
pub fn proc_status(name: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// The URLs of a list, one per non-empty line (trailing whitespace dropped); a UTF-8 BOM at the
/// start is not part of the first URL.
///
/// ```
/// let p = std::env::temp_dir().join("linksieve-benches-doc-urls.txt");
/// std::fs::write(&p, "\u{FEFF}http://a/\n\nhttp://b/ \n").unwrap();
/// assert_eq!(linksieve_benches::load_url_list(&p).unwrap(), ["http://a/", "http://b/"]);
/// ```
pub fn load_url_list(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    Ok(text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

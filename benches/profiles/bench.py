"""Profiles against the Python libraries they reproduce, in the same run, one core each.

Times w3lib's canonicalize_url, urlcanon's semantic_precise and aggressive, and surt's surt on a
URL list (the median of --runs passes, one process), runs `profile_bench --json` (linksieve's
profiles and ada-url's parse + serialize, one thread) on the same list, and prints URLs/s with
the ratios: each profile to its library, and to ada-url.

    python benches/profiles/bench.py --bench target/release/profile_bench [--urls FILE] [--runs N]

scripts/bench-profiles.sh builds the venv (benches/profiles/requirements.txt) and the binary.
"""

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import surt
import urlcanon
from w3lib.url import canonicalize_url

REPO = Path(__file__).resolve().parents[2]

# profile -> (library, the call it reproduces)
LIBRARIES = {
    "w3lib": ("w3lib 2.5.0", canonicalize_url),
    "urlcanon-semantic": ("urlcanon 0.3.1", lambda u: str(urlcanon.semantic_precise(u))),
    "urlcanon-aggressive": ("urlcanon 0.3.1", lambda u: str(urlcanon.aggressive(u))),
    "surt-ia": ("surt 0.3.1", surt.surt),
}


def rate(fn, urls, runs):
    """URLs per second: the median of `runs` passes (after one warm-up)."""

    def one():
        ok = 0
        t = time.perf_counter()
        for u in urls:
            try:
                fn(u)
                ok += 1
            except Exception:
                pass
        return time.perf_counter() - t, ok

    one()
    passes = [one() for _ in range(runs)]
    return len(urls) / statistics.median(p[0] for p in passes), passes[0][1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True, help="the profile_bench binary (release)")
    ap.add_argument("--urls", default=str(REPO / "testdata/corpora/data/url-list-kasztp.txt"))
    ap.add_argument("--runs", type=int, default=3, help="timed passes of each Python library")
    args = ap.parse_args()
    if not 1 <= args.runs <= 100:
        ap.error("--runs must be in 1..=100")
    text = Path(args.urls).read_text(encoding="utf-8-sig")
    urls = [line for line in text.split("\n") if line]
    ours = {}
    out = subprocess.run(
        [args.bench, "--urls", args.urls, "--json"], capture_output=True, text=True, check=True
    ).stdout
    for line in out.splitlines():
        row = json.loads(line)
        ours[row["name"]] = row["urls_per_s"]
    ada = ours.pop("ada-url 4.0.0")
    print(f"{len(urls)} URLs from {args.urls}; one core each; ada-url 4.0.0 parse+href: {ada:,.0f} URLs/s")
    print(f"{'profile':<20} {'linksieve/s':>13} {'library':<15} {'library/s':>11} {'vs library':>11} {'vs ada':>8}")
    for name, per_s in ours.items():
        lib, lib_rate = "-", None
        if name in LIBRARIES:
            lib, fn = LIBRARIES[name]
            lib_rate, _ = rate(fn, urls, args.runs)
        vs_lib = f"{per_s / lib_rate:>10.1f}x" if lib_rate else f"{'-':>11}"
        lib_col = f"{lib_rate:>11,.0f}" if lib_rate else f"{'-':>11}"
        print(f"{name:<20} {per_s:>13,.0f} {lib:<15} {lib_col} {vs_lib} {per_s / ada:>7.2f}x")


if __name__ == "__main__":
    main()

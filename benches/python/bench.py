"""The `linksieve` Python module against its peers, in one run (scripts/bench-python.sh).

1. Per call, one core: `normalize` (the scheme rung, and the w3lib profile) against
   `urllib.parse.urlsplit(u).geturl()` (which normalizes nothing), `w3lib.url.canonicalize_url`,
   the `ada-url` package (`ada_url.URL(u).href`) and `can_ada` (`can_ada.parse(u).href`).
2. `normalize_many` on the whole list: a list and a pyarrow array, one thread and two.
3. `SeenSet.add_many` against a Python `set` of SHA-1 digests (what Scrapy's RFPDupeFilter
   keeps), with the memory per key (tracemalloc for the set and its digests; the SeenSet's
   own count of its table for linksieve).
4. A persistent `SeenSet` on the temporary folder's disk: `add` per call and one `add_many`
   (`commit="every"`: each call records the keys of the call before it, one disk sync a call).

Each time is the best of --runs runs, after one untimed run. Prints a Markdown table, then
the targets of issue 22 with PASS or FAIL. A list of URLs that are already keys (most of the
kasztp list) favours the list path, which returns such an input as the same object; the
pyarrow path writes every key into a new array.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import tempfile
import time
import tracemalloc
import urllib.parse
from collections.abc import Callable
from functools import partial

import ada_url
import can_ada
import pyarrow as pa
from w3lib.url import canonicalize_url

import linksieve


W3LIB_CALL = 'linksieve normalize(u, profile="w3lib")'


def best(runs: int, f: Callable[[], object]) -> float:
    """The best time of `runs` calls of f, after one untimed call (allocator pools and caches
    warm: pyarrow's first calls run up to twice as slow)."""
    f()
    t = float("inf")
    for _ in range(runs):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def per_call(urls: list[str], f: Callable[[str], object]) -> Callable[[], None]:
    def go() -> None:
        for u in urls:
            try:
                f(u)
            except Exception:  # noqa: BLE001  (every library refuses some inputs)
                pass

    return go


def per_call_w3lib(urls: list[str]) -> Callable[[], None]:
    """The loop of per_call, with normalize called as a user writes it: the keyword in the
    call (vectorcall), not through functools.partial (which copies its keywords each call)."""
    normalize = linksieve.normalize

    def go() -> None:
        for u in urls:
            try:
                normalize(u, profile="w3lib")
            except Exception:  # noqa: BLE001
                pass

    return go


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--urls", default="testdata/corpora/data/url-list-kasztp.txt")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with open(args.urls, encoding="utf-8-sig") as f:
        urls = [u for u in f.read().split("\n") if u]
    n = len(urls)
    cores = sorted(os.sched_getaffinity(0))
    print(f"# {n} URLs from {args.urls}; Python {platform.python_version()}, "
          f"linksieve {linksieve.__version__}, {len(cores)} cores; best of {args.runs}\n")

    # 1. per call, one core
    os.sched_setaffinity(0, {cores[0]})
    calls = {
        "urlsplit + geturl": lambda u: urllib.parse.urlsplit(u).geturl(),
        "w3lib canonicalize_url": canonicalize_url,
        "ada-url URL(u).href": lambda u: ada_url.URL(u).href,
        "can_ada parse(u).href": lambda u: can_ada.parse(u).href,
        "linksieve normalize": linksieve.normalize,
        "linksieve normalize, partial(profile=w3lib)": partial(linksieve.normalize, profile="w3lib"),
        "linksieve Normalizer(profile=w3lib)": linksieve.Normalizer(profile="w3lib"),
    }
    ns = {name: best(args.runs, per_call(urls, f)) / n * 1e9 for name, f in calls.items()}
    ns[W3LIB_CALL] = best(args.runs, per_call_w3lib(urls)) / n * 1e9
    print("| per call, one core | ns/URL | URLs/s |")
    print("|---|---:|---:|")
    for name, v in ns.items():
        print(f"| {name} | {v:.0f} | {1e9 / v / 1e6:.2f} M |")

    # 2. normalize_many: one thread on one core, then two threads on every core
    arr = pa.array(urls)
    many = {}
    for threads in (1, 2):
        if threads == 2:
            os.sched_setaffinity(0, set(cores))
        for kind, data in (("list", urls), ("pyarrow", arr)):
            for prof in (None, "w3lib"):
                t = best(args.runs, lambda: linksieve.normalize_many(
                    data, threads=threads, profile=prof))
                many[(threads, kind, prof)] = n / t
    print("\n| normalize_many | threads | URLs/s |")
    print("|---|---:|---:|")
    for (threads, kind, prof), v in many.items():
        label = kind + (f", profile={prof}" if prof else "")
        print(f"| {label} | {threads} | {v / 1e6:.1f} M |")

    # 3. seen-sets: SHA-1 digests of the URLs, as RFPDupeFilter keeps them
    os.sched_setaffinity(0, {cores[0]})
    tracemalloc.start()
    digests = [hashlib.sha1(u.encode()).digest() for u in urls]  # noqa: S324
    py_set = set(digests)
    py_bytes = tracemalloc.get_traced_memory()[0] - sys.getsizeof(digests)
    tracemalloc.stop()
    t_py = best(args.runs, lambda: set().update(digests))
    sets = []

    def fill() -> None:
        s = linksieve.SeenSet()
        s.add_many(digests)
        sets.append(s)

    t_ls = best(args.runs, fill)
    ls_bytes = sets[-1].memory_bytes
    assert len(sets[-1]) == len(py_set)
    print("\n| seen-set of SHA-1 digests | ns/key | bytes/key |")
    print("|---|---:|---:|")
    print(f"| Python set (+ the digests) | {t_py / n * 1e9:.0f} | {py_bytes / len(py_set):.1f} |")
    print(f"| linksieve SeenSet().add_many | {t_ls / n * 1e9:.0f} | {ls_bytes / len(py_set):.1f} |")

    # 4. a persistent SeenSet: each call records the call before it (a disk sync)
    with tempfile.TemporaryDirectory() as d:
        with linksieve.SeenSet("persistent", os.path.join(d, "seen.store"), commit="every") as store:
            calls = 300
            t = time.perf_counter()
            for u in urls[:calls]:
                store.add(u)
            per_add = (time.perf_counter() - t) / calls
            batch = urls[calls:calls + 10_000]
            t = time.perf_counter()
            store.add_many(batch)
            per_batch = time.perf_counter() - t
    print("\n| persistent SeenSet (temporary folder's disk) | time |")
    print("|---|---:|")
    print(f"| add, one call ({calls} calls) | {per_add * 1e3:.2f} ms |")
    print(f"| add_many of {len(batch):,} keys, one call | {per_batch * 1e3:.1f} ms |")

    # the targets
    print("\n| target | measured | |")
    print("|---|---|---|")
    checks = [
        ("per call faster than urlsplit + geturl",
         f"{ns['urlsplit + geturl'] / ns['linksieve normalize']:.1f}x",
         ns["linksieve normalize"] < ns["urlsplit + geturl"]),
        ("per call >= 50x canonicalize_url (the same keys: normalize(u, profile=\"w3lib\"))",
         f"{ns['w3lib canonicalize_url'] / ns[W3LIB_CALL]:.1f}x",
         ns["w3lib canonicalize_url"] / ns[W3LIB_CALL] >= 50),
        ("the same with Normalizer(profile=w3lib)",
         f"{ns['w3lib canonicalize_url'] / ns['linksieve Normalizer(profile=w3lib)']:.1f}x",
         ns["w3lib canonicalize_url"] / ns["linksieve Normalizer(profile=w3lib)"] >= 50),
        ("normalize_many >= 10 M URLs/s on two cores (list)",
         f"{many[(2, 'list', None)] / 1e6:.1f} M/s", many[(2, "list", None)] >= 10e6),
        ("SeenSet memory per key <= 1/4 of the Python set's",
         f"1/{py_bytes / ls_bytes:.1f}", ls_bytes * 4 <= py_bytes),
    ]
    for name, value, ok in checks:
        print(f"| {name} | {value} | {'PASS' if ok else 'FAIL'} |")
    return 0 if all(ok for *_, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())

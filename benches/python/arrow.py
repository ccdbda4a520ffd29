"""`normalize_many` from a list and from pyarrow, in alternating rounds (medians).

    python benches/python/arrow.py [--urls FILE] [--copies N] [--threads T] [--rounds R]

Run with the module and pyarrow installed (scripts/bench-python.sh's venv), under
`taskset -c 1` for one core. The URL list (default: the kasztp list of testdata/corpora,
48,010 URLs) is repeated N times. Cases, each checked to give the list's keys:

- list: a Python list of str;
- pyarrow array: one `string` array (the module keys it in pieces of `_ARROW_PIECE` rows);
- one call, whole buffers: the way before 2026-11-28, one call of the module with copies of
  the array's whole buffers (kept here to compare the two);
- chunked, slices of 10,000: a chunked array whose chunks are slices of one array (as
  `Table.slice` or `to_batches` give), so each chunk shares its parent's buffers.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import pyarrow as pa

import linksieve
from linksieve import _linksieve

ROOT = Path(__file__).resolve().parents[2]


def whole_buffers(arr: Any, threads: int) -> Any:
    """One call of the module over copies of the array's whole buffers."""
    validity, offsets, data = arr.buffers()
    v, o, d, nulls = _linksieve._normalize_arrow(
        validity.to_pybytes() if validity is not None and arr.null_count else None,
        offsets.to_pybytes(),
        data.to_pybytes(),
        arr.offset,
        len(arr),
        pa.types.is_large_string(arr.type),
        threads=threads,
    )
    bufs = [pa.py_buffer(v) if v is not None else None, pa.py_buffer(o), pa.py_buffer(d)]
    return pa.Array.from_buffers(pa.large_string(), len(arr), bufs, null_count=nulls)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--urls", default=str(ROOT / "testdata/corpora/data/url-list-kasztp.txt"))
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    text = Path(args.urls).read_text(encoding="utf-8-sig", errors="replace")
    urls = [u for u in text.split("\n") if u] * args.copies
    n, threads = len(urls), args.threads
    arr = pa.array(urls, pa.string())
    chunked = pa.chunked_array([arr.slice(at, 10_000) for at in range(0, n, 10_000)])
    cases = {
        "list": lambda: linksieve.normalize_many(urls, threads=threads),
        "pyarrow array": lambda: linksieve.normalize_many(arr, threads=threads),
        "one call, whole buffers": lambda: whole_buffers(arr, threads),
        "chunked, slices of 10,000": lambda: linksieve.normalize_many(chunked, threads=threads),
    }
    want = cases["list"]()
    for name, f in cases.items():
        got = f()
        assert (got if isinstance(got, list) else got.to_pylist()) == want, name
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.rounds):
        for name, f in cases.items():
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    print(f"| normalize_many, {n:,} URLs, threads={threads} | median | URLs/s |")
    print("|---|---:|---:|")
    for name, v in times.items():
        m = statistics.median(v)
        print(f"| {name} | {m * 1e3:.1f} ms | {n / m / 1e6:.2f} M |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The Python frontier benchmark (issue 31): what a request costs a seen-set, and a crawl.

    target/python-venv/bin/python scripts/bench-frontier.py keys [--n 100000] [--max-seconds 20]
    target/python-venv/bin/python scripts/bench-frontier.py crawl [--pages 500] [--runs 3]

`keys`: N request fingerprints (20 random bytes, as Scrapy's SHA-1; a quarter of the requests
repeat an earlier one), added one a call (`SeenSet.add`: the DupeFilter pattern) and in batches
of 256 (`add_many`: one page's outlinks), against a Python `set` and SQLite `INSERT OR IGNORE`
(WAL, synchronous=NORMAL, a commit per call, `fingerprint BLOB PRIMARY KEY` WITHOUT ROWID: the
design of Scrapy's coming disk dupefilter, scrapy PR #7952), for the memory kind and the
persistent kind with the commit policies every / 10000 / 1s / end. Each case stops after
--max-seconds (its rate is over what it did). Every answer is checked against the Python set.
Stores live in a temporary folder under target/ (a real disk: /tmp may be a tmpfs).

`crawl`: a site of --pages pages on 127.0.0.1 (each page links to 20 others: 20 requests
through the dupefilter a page), crawled by `scrapy runspider` with JOBDIR, plain Scrapy against
the linksieve DupeFilter (and Scheduler), and the same with kind memory (no store: the floor a
commit-free store approaches); the wall time of each process, the median of --runs.

Not a test: it prints figures. Needs the `linksieve` module (scripts/python-tests.sh builds it).
"""

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def requests(n, seed=1):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if out and rng.random() < 0.25:
            out.append(out[rng.randrange(len(out))])
        else:
            out.append(rng.randbytes(20))
    return out


def oracle(fps):
    seen, out = set(), []
    for fp in fps:
        out.append(fp not in seen)
        seen.add(fp)
    return out


class PySet:
    name = "python set"

    def __init__(self, _dir):
        self.s = set()

    def add(self, fp):
        if fp in self.s:
            return False
        self.s.add(fp)
        return True

    def add_many(self, fps):
        return [self.add(fp) for fp in fps]

    def close(self):
        pass


class Sqlite:
    name = "sqlite INSERT OR IGNORE (WAL, NORMAL, commit a call)"

    def __init__(self, d):
        self.db = sqlite3.connect(os.path.join(d, "seen.sqlite"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE seen (fingerprint BLOB PRIMARY KEY) WITHOUT ROWID")

    def add(self, fp):
        self.db.execute("BEGIN")
        new = self.db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (fp,)).rowcount == 1
        self.db.execute("COMMIT")
        return new

    def add_many(self, fps):
        self.db.execute("BEGIN")
        ins = "INSERT OR IGNORE INTO seen VALUES (?)"
        out = [self.db.execute(ins, (fp,)).rowcount == 1 for fp in fps]
        self.db.execute("COMMIT")
        return out

    def close(self):
        self.db.close()


def linksieve_kind(kind, commit=None):
    import linksieve

    class Ls:
        name = f"linksieve {kind}" + (f" commit={commit}" if commit else "")

        def __init__(self, d):
            if kind == "persistent":
                self.s = linksieve.SeenSet(kind, os.path.join(d, "seen.redb"), commit=commit,
                                           namespace="bench")
            else:
                self.s = linksieve.SeenSet(kind)
            self.add = self.s.add
            self.add_many = self.s.add_many

        def close(self):
            self.s.close()

    return Ls


def run_case(make, fps, want, batch, max_seconds, base):
    with tempfile.TemporaryDirectory(dir=base) as d:
        s = make(d)
        got, done = [], 0
        t0 = time.perf_counter()
        deadline = t0 + max_seconds
        if batch == 1:
            add = s.add
            for i, fp in enumerate(fps):
                got.append(add(fp))
                if i & 255 == 255 and time.perf_counter() > deadline:
                    break
        else:
            for i in range(0, len(fps), batch):
                got.extend(s.add_many(fps[i:i + batch]))
                if time.perf_counter() > deadline:
                    break
        done = len(got)
        t_add = time.perf_counter() - t0
        s.close()
        t_all = time.perf_counter() - t0
        assert got == want[:done], f"{s.name}: wrong answers"
        return done, t_add, t_all


def bench_keys(args):
    fps = requests(args.n)
    want = oracle(fps)
    base = ROOT / "target" / "bench-frontier"
    base.mkdir(parents=True, exist_ok=True)
    cases = [PySet, Sqlite, linksieve_kind("memory")]
    cases += [linksieve_kind("persistent", c) for c in ("every", "10000", "1s", "end")]
    print(f"{args.n} requests ({want.count(True)} distinct), 20-byte fingerprints; "
          f"at most {args.max_seconds} s a case")
    print("| set | call | requests | requests/s (add) | requests/s (with close) |")
    print("|---|---|---:|---:|---:|")
    for batch in (1, 256):
        for make in cases:
            done, t_add, t_all = run_case(make, fps, want, batch, args.max_seconds, base)
            call = "add" if batch == 1 else "add_many(256)"
            print(f"| {make.name} | {call} | {done} | {done / t_add:,.0f} | {done / t_all:,.0f} |",
                  flush=True)


SITE_SERVER = r'''
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PAGES = int(sys.argv[1])


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        try:
            i = int(self.path.lstrip("/p") or 0)
        except ValueError:
            i = 0
        links = [f"/p{(i * 31 + k * 17 + 1) % PAGES}" for k in range(20)]
        body = "".join(f'<a href="{h}">x</a>' for h in links).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
'''

SPIDER = '''
import scrapy


class S(scrapy.Spider):
    name = "bench"

    def __init__(self, start, **kw):
        super().__init__(**kw)
        self.start_urls = [start]

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)
'''


def bench_crawl(args):
    base = ROOT / "target" / "bench-frontier"
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as d:
        d = Path(d)
        (d / "server.py").write_text(SITE_SERVER)
        (d / "spider.py").write_text(textwrap.dedent(SPIDER))
        server = subprocess.Popen([sys.executable, str(d / "server.py"), str(args.pages)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline())
            configs = {
                "plain Scrapy, JOBDIR": [],
                "linksieve DupeFilter + Scheduler, JOBDIR": [
                    "DUPEFILTER_CLASS=linksieve.scrapy.DupeFilter",
                    "REQUEST_FINGERPRINTER_CLASS=linksieve.scrapy.RequestFingerprinter",
                    "SCHEDULER=linksieve.scrapy.Scheduler",
                ],
                # the floor: the same without a store (what a commit-free store approaches)
                "linksieve, kind memory (no store), JOBDIR": [
                    "DUPEFILTER_CLASS=linksieve.scrapy.DupeFilter",
                    "REQUEST_FINGERPRINTER_CLASS=linksieve.scrapy.RequestFingerprinter",
                    "SCHEDULER=linksieve.scrapy.Scheduler",
                    "LINKSIEVE_DUPEFILTER_KIND=memory",
                ],
            }
            times = {k: [] for k in configs}
            env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
            for run in range(args.runs):
                for name, settings in configs.items():  # interleaved: the machine is shared
                    job = d / f"job-{run}-{len(times[name])}-{name[:5]}"
                    cmd = [sys.executable, "-m", "scrapy", "runspider", str(d / "spider.py"),
                           "-a", f"start=http://127.0.0.1:{port}/p0", "-s", "LOG_LEVEL=INFO",
                           "-s", "TELNETCONSOLE_ENABLED=False", "-s", "ROBOTSTXT_OBEY=False",
                           "-s", "REMOTE_CONTROL_ENABLED=False", "-s", f"JOBDIR={job}"]
                    for s in settings:
                        cmd += ["-s", s]
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True)
                    times[name].append(time.perf_counter() - t0)
                    assert p.returncode == 0, p.stderr[-3000:]
                    # every page once, and the start URL (dont_filter) once more as a link
                    want = f"'downloader/response_status_count/200': {args.pages + 1},"
                    assert want in p.stderr, p.stderr[-3000:]
        finally:
            server.terminate()
            server.wait()
    plain = statistics.median(times["plain Scrapy, JOBDIR"])
    print(f"{args.pages} pages, {20 * args.pages} links; median of {args.runs} runs (s)")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m:.2f} | {m / plain:.2f}x | {', '.join(f'{t:.2f}' for t in ts)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    k = sub.add_parser("keys")
    k.add_argument("--n", type=int, default=100_000)
    k.add_argument("--max-seconds", type=float, default=20)
    c = sub.add_parser("crawl")
    c.add_argument("--pages", type=int, default=500)
    c.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    (bench_keys if args.what == "keys" else bench_crawl)(args)


if __name__ == "__main__":
    main()

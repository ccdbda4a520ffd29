"""Real Scrapy crawls (subprocesses of `scrapy runspider`) of a small generated site, served on
127.0.0.1 by a tiny http.server that logs every request it gets: Scrapy's defaults against
linksieve's DupeFilter and RequestFingerprinter, and a JOBDIR crawl stopped by SIGINT and
resumed.

The site is named http://site.example/ and reached through the server as an HTTP proxy
(http_proxy=http://127.0.0.1:PORT in the crawls' environment): so its links can differ in host
case and default port, and nothing leaves 127.0.0.1 (no name is resolved).
"""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from urllib.parse import urljoin

import pytest

pytest.importorskip("scrapy")

from w3lib.url import canonicalize_url  # noqa: E402

HOST = "http://site.example"
START = HOST + "/"
N = 16  # chained pages /p0 .. /p15, and the leaves they link to: 39 pages in all
TIMEOUT = 240  # seconds for one crawl, on a slow loaded machine (they take a few)

SERVER = r'''
"""serve SITE_JSON LOG DELAY PORT_FILE: the site (canonical URL -> hrefs), as an origin server
or an HTTP proxy, on 127.0.0.1 (a free port, written to PORT_FILE once it listens); one line a
request (its absolute target) to LOG, flushed, before sleeping DELAY seconds and answering."""
import html
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from w3lib.url import canonicalize_url

site_path, log_path, delay, port_path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
with open(site_path, encoding="utf-8") as f:
    SITE = json.load(f)
lock = threading.Lock()
log = open(log_path, "a", encoding="utf-8")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        target = self.path
        if target.startswith("/"):  # origin-form: not through the proxy
            target = "http://" + self.headers.get("Host", "") + target
        with lock:
            log.write(target + "\n")
            log.flush()
        if delay:
            time.sleep(delay)
        hrefs = SITE.get(canonicalize_url(target))
        if hrefs is None:
            body = b"not found\n"
            self.send_response(404)
            self.send_header("Content-Type", "text/plain")
        else:
            body = "<!doctype html><meta charset=utf-8><title>page</title>\n" + "".join(
                f'<a href="{html.escape(h)}">{i}</a>\n' for i, h in enumerate(hrefs))
            body = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_path + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_path + ".tmp", port_path)
server.serve_forever()
'''

SPIDER = r'''
"""Follows every <a href>; records each response and, for each request it makes, the
fingerprints of the crawler's fingerprinter and of scrapy.utils.request.fingerprint."""
import json

import scrapy
from scrapy.utils.request import fingerprint


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start, out, **kwargs):
        super().__init__(**kwargs)
        self.start_url = start
        self.out = out

    async def start(self):
        # filtered (dont_filter is False), unlike start_urls: a resumed job does not fetch it again
        yield scrapy.Request(self.start_url, callback=self.parse)

    def record(self, **obj):
        with open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(obj) + "\n")

    def parse(self, response):
        self.record(response=response.url, status=response.status)
        fp = self.crawler.request_fingerprinter
        name = type(fp).__module__ + "." + type(fp).__qualname__
        for href in response.css("a::attr(href)").getall():
            request = response.follow(href, callback=self.parse)
            self.record(href=href, request=request.url, fingerprinter=name,
                        ours=fp.fingerprint(request).hex(), scrapy=fingerprint(request).hex())
            yield request
'''


def spellings(i):
    """Spellings of /p{i} that w3lib's canonicalize_url (hence Scrapy) takes as one URL."""
    return [
        f"/p{i}", f"HTTP://SITE.EXAMPLE/p{i}", f"http://Site.Example/p{i}#frag", f"/./p{i}",
        f"/x/../p{i}", f"p{i}", f"//site.example/p{i}#top", f"/p{i}?", f"HTTP://site.EXAMPLE/./p{i}#",
    ]


def make_site():
    """{canonical URL: hrefs}: a chain of pages (each links ahead twice, so a page whose links
    are lost does not cut the chain) with leaves of several spellings each, and duplicates."""
    site = {START: ["/p0", "p0#a", "HTTP://SITE.EXAMPLE/", "/"]}
    for i in range(N):
        s = spellings(i)
        hrefs = ["/", s[(i + 3) % len(s)]]
        for j in (i + 1, i + 2):
            if j < N:
                hrefs += [spellings(j)[(i + j) % 9], spellings(j)[(2 * i + j + 4) % 9]]
        leaves = []
        if i % 3 == 0:  # query order
            leaves.append([f"/p{i}?b=2&a=1", f"/p{i}?a=1&b=2#x", f"HTTP://SITE.EXAMPLE/p{i}?b=2&a=1"])
        if i % 4 == 1:  # blank query values
            leaves.append([f"/q{i}?e=&x=1", f"/q{i}?x=1&e", f"/q{i}?x=1&e=#"])
        if i % 4 == 2:  # an unreserved character percent-encoded or not
            leaves.append([f"/~u{i}", f"/%7eu{i}", f"/%7Eu{i}"])
        if i % 4 == 3:  # non-ASCII, and the case of percent-encoding
            leaves.append([f"/café{i}", f"/caf%c3%a9{i}", f"/caf%C3%A9{i}"])
        if i % 5 == 0:  # a default port: w3lib (so Scrapy) keeps it, another page to it
            leaves.append([f"http://site.example:80/p{i}", f"HTTP://SITE.example:80/p{i}#z"])
        base = f"{HOST}/p{i}"
        for spelled in leaves:
            keys = {canonicalize_url(urljoin(base, h)) for h in spelled}
            assert len(keys) == 1, keys
            site[keys.pop()] = [START, f"{HOST}/p{i}#back"]  # duplicates only
            hrefs += spelled
        site[canonicalize_url(base)] = hrefs
    return site


SITE = make_site()


def test_the_site_is_reachable_and_has_duplicates():
    seen, todo, links = {START}, [START], 0
    while todo:
        url = todo.pop()
        for href in SITE[url]:
            links += 1
            key = canonicalize_url(urljoin(url, href))
            assert key in SITE, (url, href)
            if key not in seen:
                seen.add(key)
                todo.append(key)
    assert seen == set(SITE) and 30 <= len(SITE) <= 45
    assert links > 3 * len(SITE)


def stop(proc):
    """Terminate a process we started, and reap it (kill it if it does not go)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture
def procs():
    """The processes (and their log files) a test starts: all stopped (closed) at its end."""
    started = []
    yield started
    for thing in reversed(started):
        if isinstance(thing, subprocess.Popen):
            stop(thing)
        else:
            thing.close()


def wait_for(predicate, timeout, what, proc=None):
    """Poll predicate() until true; fail after timeout, or when proc has exited first."""
    deadline = time.monotonic() + timeout
    delay = 0.02
    while True:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what}: the process exited ({proc.returncode}) first")
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout} s")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)


class Server:
    def __init__(self, directory, procs, delay=0.0):
        self.dir = directory
        self.dir.mkdir()
        (self.dir / "server.py").write_text(SERVER, encoding="utf-8")
        (self.dir / "site.json").write_text(json.dumps(SITE), encoding="utf-8")
        self.log = self.dir / "requests.log"
        self.log.touch()
        port_file = self.dir / "port"
        self.stderr = open(self.dir / "stderr", "wb")  # noqa: SIM115
        procs.append(self.stderr)
        self.proc = subprocess.Popen(
            [sys.executable, str(self.dir / "server.py"), str(self.dir / "site.json"),
             str(self.log), str(delay), str(port_file)],
            stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr, cwd=self.dir,
        )
        procs.append(self.proc)
        wait_for(port_file.exists, 60, "the server's port", self.proc)
        self.port = int(port_file.read_text())

    def requests(self):
        """The request targets the server got, in order."""
        return self.log.read_text(encoding="utf-8").splitlines()

    def pages(self):
        """How many times each page (as w3lib's canonicalize_url sees it) was fetched."""
        return Counter(canonicalize_url(t) for t in self.requests()
                       if not t.endswith("/robots.txt"))


@pytest.fixture
def serve(tmp_path, procs):
    servers = []

    def start(delay=0.0):
        server = Server(tmp_path / f"server{len(servers)}", procs, delay)
        servers.append(server)
        return server

    yield start
    for server in servers:
        stop(server.proc)


LINKSIEVE = [
    "DUPEFILTER_CLASS=linksieve.scrapy.DupeFilter",
    "REQUEST_FINGERPRINTER_CLASS=linksieve.scrapy.RequestFingerprinter",
]


class Crawl:
    """One `scrapy runspider` of the site spider, through the server as the proxy."""

    def __init__(self, workdir, server, name, settings=()):
        self.dir = workdir
        self.dir.mkdir(exist_ok=True)
        spider = self.dir / "site_spider.py"
        spider.write_text(textwrap.dedent(SPIDER), encoding="utf-8")
        self.out = self.dir / f"{name}.jsonl"
        self.stderr_path = self.dir / f"{name}.log"
        self.args = [
            sys.executable, "-m", "scrapy", "runspider", str(spider),
            "-a", f"start={START}", "-a", f"out={self.out}",
            "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False",
            # Scrapy 2.19's remote control: no listening port, no job file in the home directory
            "-s", "REMOTE_CONTROL_ENABLED=False",
            "-s", "ROBOTSTXT_OBEY=False", "-s", "RETRY_ENABLED=False",  # a fetch is a fetch
            "-s", "DOWNLOAD_TIMEOUT=120",
        ]
        for s in settings:
            self.args += ["-s", s]
        env = {k: v for k, v in os.environ.items()
               if not k.lower().endswith("_proxy") and not k.startswith("SCRAPY_")}
        env["http_proxy"] = f"http://127.0.0.1:{server.port}"
        self.env = env

    def start(self, procs):
        self.stderr = open(self.stderr_path, "wb")  # noqa: SIM115
        procs.append(self.stderr)
        self.proc = subprocess.Popen(self.args, cwd=self.dir, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=self.stderr, stderr=subprocess.STDOUT)
        procs.append(self.proc)
        return self.proc

    def wait(self, timeout=TIMEOUT):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(self.proc)
            pytest.fail(f"the crawl did not end within {timeout} s:\n{self.log()[-3000:]}")
        finally:
            self.stderr.close()
        return self.proc.returncode

    def run(self, procs):
        self.start(procs)
        rc = self.wait()
        assert rc == 0, self.log()[-5000:]
        return self

    def log(self):
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stats(self):
        """The integer stats of Scrapy's dump at the end of the log."""
        text = self.log()
        assert "Dumping Scrapy stats:" in text, text[-3000:]
        dump = text.rsplit("Dumping Scrapy stats:", 1)[1]
        stats = {k: int(v) for k, v in re.findall(r"'([^']+)': (\d+)\b(?![.\d])", dump)}
        stats["finish_reason"] = re.search(r"'finish_reason': '([^']*)'", dump).group(1)
        return stats

    def records(self):
        if not self.out.exists():
            return [], []
        rows = [json.loads(line) for line in self.out.read_text(encoding="utf-8").splitlines()]
        return [r for r in rows if "response" in r], [r for r in rows if "request" in r]


def check_full_crawl(crawl, server, fingerprinter):
    pages = server.pages()
    assert set(pages) == set(SITE), set(pages) ^ set(SITE)
    assert [p for p, n in pages.items() if n > 1] == []  # no page fetched twice
    responses, requests = crawl.records()
    assert Counter(canonicalize_url(r["response"]) for r in responses) == Counter(set(SITE))
    assert {r["status"] for r in responses} == {200}
    assert {r["fingerprinter"] for r in requests} == {fingerprinter}
    stats = crawl.stats()
    assert stats["finish_reason"] == "finished"
    assert stats["downloader/response_status_count/200"] == len(SITE)
    assert "log_count/ERROR" not in stats, crawl.log()[-5000:]
    assert stats["dupefilter/filtered"] > 0
    # every request went through the dupefilter: the start request and the spider's
    assert stats["dupefilter/filtered"] + len(SITE) == len(requests) + 1
    return stats, requests


def test_crawl_defaults_and_linksieve_fetch_the_same_pages(tmp_path, serve, procs):
    server = serve()
    default = Crawl(tmp_path / "crawl", server, "default").run(procs)
    stats, requests = check_full_crawl(default, server, "scrapy.utils.request.RequestFingerprinter")
    assert "linksieve/seen" not in stats

    server2 = serve()
    ours = Crawl(tmp_path / "crawl", server2, "linksieve", LINKSIEVE).run(procs)
    ours_stats, ours_requests = check_full_crawl(ours, server2, "linksieve.scrapy.RequestFingerprinter")
    assert set(server2.pages()) == set(server.pages())
    assert ours_stats["linksieve/seen"] == len(SITE)
    assert ours_stats["linksieve/seen_memory_bytes"] > 0
    assert ours_stats["dupefilter/filtered"] == stats["dupefilter/filtered"]
    # the crawler's fingerprinter (linksieve's) and Scrapy's agree on each request it made
    assert len(ours_requests) == len(requests) > 3 * len(SITE)
    assert [r for r in ours_requests if r["ours"] != r["scrapy"]] == []
    assert [r for r in requests if r["ours"] != r["scrapy"]] == []
    # and the same requests (the same URLs, in whatever order) have the same fingerprints
    assert {(r["request"], r["ours"]) for r in ours_requests} == {
        (r["request"], r["scrapy"]) for r in requests}


def test_jobdir_crawl_stopped_by_sigint_resumes_without_refetching(tmp_path, serve, procs):
    server = serve(delay=0.2)
    jobdir = tmp_path / "job"
    settings = LINKSIEVE + [f"JOBDIR={jobdir}", "CONCURRENT_REQUESTS=1", "DOWNLOAD_DELAY=0.05"]
    first = Crawl(tmp_path / "crawl", server, "first", settings)
    proc = first.start(procs)
    wait_for(lambda: len(server.requests()) >= 8, TIMEOUT, "8 pages fetched", proc)
    proc.send_signal(signal.SIGINT)  # once: a graceful stop
    assert first.wait() == 0, first.log()[-5000:]
    log = first.log()
    assert "Received SIGINT" in log, log[-3000:]
    assert first.stats()["finish_reason"] == "shutdown"
    fetched_first = server.pages()
    assert 8 <= len(fetched_first) < len(SITE)
    assert (jobdir / "requests.seen.linksieve").exists()
    assert not (jobdir / "requests.seen").exists()

    second = Crawl(tmp_path / "crawl", server, "second", settings).run(procs)
    assert re.search(r"Resuming crawl \((\d+) requests scheduled\)", second.log())
    pages = server.pages()
    assert set(pages) == set(SITE), set(pages) ^ set(SITE)
    assert [p for p, n in pages.items() if n > 1] == []  # none twice, across both runs
    assert len(pages) > len(fetched_first)
    s1, s2 = first.stats(), second.stats()
    assert s2["finish_reason"] == "finished"
    assert "log_count/ERROR" not in s1 and "log_count/ERROR" not in s2
    assert s1.get("linksieve/seen", 0) + s2.get("linksieve/seen", 0) == len(SITE)
    assert s2["dupefilter/filtered"] > 0  # the start request, at least
    assert (jobdir / "requests.seen.linksieve").exists()
    _, requests = first.records()
    _, more = second.records()
    assert [r for r in requests + more if r["ours"] != r["scrapy"]] == []

"""Real Scrapy crawls of a server on 127.0.0.1 that serves the redirect shapes of issue 31:
a page that redirects to itself (scrapy#1225), one that redirects to its own URL with the query
in another order (scrapy#1225), a 503 then a redirect (retried, then redirected: scrapy#6895),
and a start URL that answers 301, found again later as a link (StormCrawler#239).

The oracle is the server's log (path and status of every request it answered), against what a
crawl that loses nothing and fetches nothing twice must make, worked out by hand below; plain
Scrapy (its own dupefilter and scheduler) is crawled too, to show what it drops and fetches twice.
"""

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

pytest.importorskip("scrapy")

from test_scrapy_crawl import procs, stop, wait_for  # noqa: E402, F401 (procs: a fixture)

SERVER = r'''
"""serve LOG PORT_FILE: the redirect shapes, on 127.0.0.1 (a free port, written to PORT_FILE);
one JSON line [path, status] a request to LOG."""
import json, os, sys, threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_path, port_path = sys.argv[1], sys.argv[2]
lock = threading.Lock()
times = Counter()
log = open(log_path, "a", encoding="utf-8")
HOME = ["/self", "/q?b=2&a=1", "/flaky", "/after-retry", "/", "/leaf"]


def route(path, n):
    """(status, Location or links) of the n-th request (from 0) for path."""
    if path == "/":
        return 301, "/home"
    if path == "/home":
        return 200, HOME
    if path == "/self":  # a page that sets a cookie by redirecting to itself, once
        return (302, "/self") if n == 0 else (200, ["/leaf"])
    if path == "/q?b=2&a=1":
        return 302, "/q?a=1&b=2"
    if path in ("/q?a=1&b=2", "/after-retry", "/leaf"):
        return 200, []
    if path == "/flaky":  # down once, then moved
        return (503, []) if n == 0 else (302, "/after-retry")
    return 404, []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        with lock:
            n = times[self.path]
            times[self.path] += 1
            status, what = route(self.path, n)
            log.write(json.dumps([self.path, status]) + "\n")
            log.flush()
        self.send_response(status)
        body = b""
        if isinstance(what, str):
            self.send_header("Location", what)
        else:
            body = "".join(f'<a href="{h}">{h}</a>\n' for h in what).encode()
            self.send_header("Content-Type", "text/html")
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
import scrapy


class RedirectSpider(scrapy.Spider):
    name = "redirects"

    def __init__(self, start, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]  # dont_filter, as Scrapy's start URLs are

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
'''

#: What a crawl must make: each page once, each redirect hop once (the self-redirect twice: the
#: redirect and the page; /flaky twice: the 503 and its retry, which is redirected).
EXPECTED = Counter({
    ("/", 301): 1, ("/home", 200): 1, ("/self", 302): 1, ("/self", 200): 1, ("/leaf", 200): 1,
    ("/q?b=2&a=1", 302): 1, ("/q?a=1&b=2", 200): 1, ("/flaky", 503): 1, ("/flaky", 302): 1,
    ("/after-retry", 200): 1,
})

LINKSIEVE = [
    "DUPEFILTER_CLASS=linksieve.scrapy.DupeFilter",
    "REQUEST_FINGERPRINTER_CLASS=linksieve.scrapy.RequestFingerprinter",
    "SCHEDULER=linksieve.scrapy.Scheduler",
]


def crawl(tmp_path, procs, name, settings):
    """Serve the shapes, crawl them with `settings`; Counter of (path, status) served."""
    d = tmp_path / name
    d.mkdir()
    (d / "server.py").write_text(SERVER, encoding="utf-8")
    (d / "spider.py").write_text(SPIDER, encoding="utf-8")
    log, port = d / "requests.log", d / "port"
    err = open(d / "server.err", "wb")  # noqa: SIM115
    procs.append(err)
    server = subprocess.Popen([sys.executable, str(d / "server.py"), str(log), str(port)],
                              stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    procs.append(server)
    wait_for(port.exists, 60, "the server's port", server)
    args = [sys.executable, "-m", "scrapy", "runspider", str(d / "spider.py"),
            "-a", f"start=http://127.0.0.1:{port.read_text()}/",
            "-s", "LOG_LEVEL=DEBUG", "-s", "TELNETCONSOLE_ENABLED=False",
            "-s", "REMOTE_CONTROL_ENABLED=False", "-s", "ROBOTSTXT_OBEY=False",
            "-s", "CONCURRENT_REQUESTS=1", "-s", "RETRY_TIMES=2"]
    for s in settings:
        args += ["-s", s]
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith("_proxy") and not k.startswith("SCRAPY_")}
    p = subprocess.run(args, cwd=d, env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-5000:]
    assert "ERROR" not in p.stderr, p.stderr[-5000:]
    stop(server)
    served = [tuple(json.loads(line)) for line in log.read_text(encoding="utf-8").splitlines()]
    return Counter(served), p.stderr


def test_redirect_shapes_every_page_once_none_dropped(tmp_path, procs):
    ours, log = crawl(tmp_path, procs, "linksieve", LINKSIEVE)
    assert ours == EXPECTED, (ours - EXPECTED, EXPECTED - ours, log[-5000:])
    # the same under JOBDIR (the persistent store)
    ours, log = crawl(tmp_path, procs, "linksieve-jobdir", [*LINKSIEVE, f"JOBDIR={tmp_path / 'j'}"])
    assert ours == EXPECTED, (ours - EXPECTED, EXPECTED - ours, log[-5000:])


def test_plain_scrapy_drops_and_refetches_what_linksieve_does_not(tmp_path, procs):
    plain, log = crawl(tmp_path, procs, "plain", [])
    # scrapy#1225: the self-redirect's page and the query-order target are dropped
    assert ("/self", 200) not in plain and ("/q?a=1&b=2", 200) not in plain, plain
    # scrapy#6895: the retried then redirected target is fetched twice (also found as a link)
    assert plain[("/after-retry", 200)] == 2, plain
    # the 301 start URL, found again as a link, is fetched again (and its target too)
    assert plain[("/", 301)] == 2 and plain[("/home", 200)] == 2, plain

"""SeenSet("redis") and the Scrapy DupeFilter with LINKSIEVE_REDIS_URL against a real redis-server
on 127.0.0.1 (each test starts its own on a free port, in its own folder, and stops it by pid),
checked against a Python set, against xxhash's XXH3-128 of each key and against what
`redis-cli HKEYS` finds on the server. A missing redis-server fails (never skips)."""

import ast
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import xxhash

import linksieve
from test_scrapy_crawl import procs, serve  # noqa: F401 (fixtures)


def _tool(name):
    path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
    if path is None:
        pytest.fail(f"{name} is needed by the Redis tests: apt-get install -y redis-server")
    return path


class Server:
    def __init__(self, tmp_path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [_tool("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(tmp_path), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while self.cli("PING").strip() != "PONG":
            assert time.time() < deadline, "redis-server did not start"
            time.sleep(0.02)

    def url(self, query):
        return f"redis://127.0.0.1:{self.port}/0?{query}"

    def cli(self, *args):
        p = subprocess.run([_tool("redis-cli"), "-h", "127.0.0.1", "-p", str(self.port), *args],
                           capture_output=True, text=True)
        return p.stdout

    def fingerprints(self, prefix):
        """Every member of the set's buckets, read with redis-cli HKEYS."""
        out = set()
        for key in self.cli("--scan", "--pattern", prefix + ":{*}:*").split():
            if ":log:" in key or ":{m}:" in key:
                continue
            for line in self.cli("--no-raw", "HKEYS", key).splitlines():
                quoted = line.split(") ", 1)[-1]
                raw = ast.literal_eval("b" + quoted)
                assert len(raw) == 16, line
                out.add(raw)
        return out

    def stop(self):
        self.proc.kill()  # by pid
        self.proc.wait()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    s.stop()


def fp(key):
    return xxhash.xxh3_128_digest(key.encode())


def test_answers_match_a_set_xxhash_and_the_server(server):
    keys = [f"http://example.com/{i * 7919 % 3000}" for i in range(5000)]
    oracle = set()
    with linksieve.SeenSet("redis", url=server.url("prefix=py1"), namespace="t") as seen:
        assert seen.kind == "redis"
        for i in range(0, 4000, 256):
            batch = keys[i : i + 256]
            got = seen.add_many(batch)
            want = []
            for k in batch:
                want.append(k not in oracle)
                oracle.add(k)
            assert got == want
        for k in keys[4000:]:
            assert seen.add(k) == (k not in oracle)
            oracle.add(k)
        assert len(seen) == len(oracle)
        assert keys[0] in seen and "http://example.com/never" not in seen
    assert server.fingerprints("py1") == {fp(k) for k in oracle}
    # another process (here another set) sees them all
    with linksieve.SeenSet("redis", url=server.url("prefix=py1"), namespace="t") as again:
        assert not any(again.add_many(keys))
        again.clear()
        assert again.add(keys[0])
    assert server.fingerprints("py1") == {fp(keys[0])}


def test_a_wrong_identity_and_a_bad_url_are_refused(server):
    linksieve.SeenSet("redis", url=server.url("prefix=py2"), namespace="a").close()
    with pytest.raises(linksieve.StoreError, match="identity"):
        linksieve.SeenSet("redis", url=server.url("prefix=py2"), namespace="b")
    with pytest.raises(ValueError, match="url"):
        linksieve.SeenSet("redis")
    with pytest.raises(ValueError, match="scheme"):
        linksieve.SeenSet("redis", url="http://127.0.0.1/")


def test_a_killed_process_loses_no_returned_key(server):
    url = server.url("prefix=py3&lease=1s")
    child = textwrap.dedent(f"""
        import sys, time, linksieve
        s = linksieve.SeenSet("redis", url={url!r}, namespace="t", commit="every")
        # commit="every": the second call records "a" and "b"; "c": returned, not yet recorded
        print(s.add_many(["a", "b"]), s.add("c"), flush=True)
        time.sleep(60)
    """)
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True,
                         env={**os.environ})
    assert p.stdout.readline().strip() == "[True, True] True"
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(1.3)  # the lease expires
    with linksieve.SeenSet("redis", url=url, namespace="t") as seen:
        assert seen.add_many(["a", "b", "c", "d"]) == [False, False, True, True]


def test_a_process_idle_longer_than_its_lease_keeps_its_claims(server):
    # a crawl waiting on slow pages: its process renews the lease between calls
    url = server.url("prefix=py5&lease=1s")
    idle = linksieve.SeenSet("redis", url=url, namespace="t", commit="every")
    assert idle.add("a") and idle.add("b")  # "b": returned, not yet recorded
    time.sleep(1.6)
    with linksieve.SeenSet("redis", url=url, namespace="t") as other:
        assert other.add_many(["a", "b", "c"]) == [False, False, True]
    assert idle.add("d")
    idle.close()


def test_a_server_that_closes_idle_clients(server):
    # `timeout 1`: the set's connection is closed while the crawl waits, and opened again
    assert server.cli("CONFIG", "SET", "timeout", "1").strip() == "OK"
    with linksieve.SeenSet("redis", url=server.url("prefix=py6"), namespace="t") as seen:
        assert seen.add("a")
        time.sleep(2.6)
        assert seen.add_many(["a", "b"]) == [False, True]


def test_a_server_that_evicts_keys_is_a_warning(server, caplog):
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from linksieve.scrapy import DupeFilter

    with linksieve.SeenSet("redis", url=server.url("prefix=py7"), namespace="t") as seen:
        assert seen.warning is None
    assert server.cli("CONFIG", "SET", "maxmemory-policy", "allkeys-lru").strip() == "OK"
    with linksieve.SeenSet("redis", url=server.url("prefix=py7"), namespace="t") as seen:
        assert "maxmemory-policy allkeys-lru" in seen.warning

    class S(Spider):
        name = "evicts"

    crawler = get_crawler(S, {"LINKSIEVE_REDIS_URL": server.url("")})
    with caplog.at_level("WARNING", logger="linksieve.scrapy"):
        DupeFilter.from_crawler(crawler).close("finished")
    said = [r.getMessage() for r in caplog.records if "allkeys-lru" in r.getMessage()]
    assert len(said) == 2, said  # at open and at close


def test_a_crawl_slower_than_the_lease_keeps_it(tmp_path, server, serve, procs):
    # a real Scrapy crawl whose every page takes 1.3 s against a lease of 1 s: its dupefilter is
    # called only between pages. Before, the lease expired between two calls and the next
    # request_seen raised StoreError (logged as an ERROR, the page's links dropped).
    from test_scrapy_crawl import LINKSIEVE, Crawl

    web = serve(delay=1.3)
    url = server.url("prefix=slow&lease=1s")
    settings = [*LINKSIEVE, f"LINKSIEVE_REDIS_URL={url}", "CONCURRENT_REQUESTS=1",
                "CLOSESPIDER_PAGECOUNT=4"]
    crawl = Crawl(tmp_path / "crawl", web, "slow", settings).run(procs)
    stats = crawl.stats()
    assert "log_count/ERROR" not in stats, crawl.log()[-3000:]
    assert stats["downloader/response_status_count/200"] >= 4
    assert len(server.fingerprints("slow")) == stats["linksieve/seen"] > 4


def test_a_dead_server_is_a_store_error(server):
    seen = linksieve.SeenSet("redis", url=server.url("prefix=py4&timeout=1s"), namespace="t")
    assert seen.add("x")
    server.stop()
    with pytest.raises(linksieve.StoreError, match="seen-set server"):
        seen.add("y")


def test_scrapy_dupefilter_with_linksieve_redis_url(server):
    from scrapy import Request, Spider
    from scrapy.utils.test import get_crawler

    from linksieve.scrapy import DupeFilter

    class S(Spider):
        name = "shop"

    settings = {"LINKSIEVE_REDIS_URL": server.url("")}
    one = DupeFilter.from_crawler(get_crawler(S, settings))
    two = DupeFilter.from_crawler(get_crawler(S, settings))  # a second crawler process
    r = Request("http://example.com/a?b=1&a=2")
    assert not one.request_seen(r)
    assert two.request_seen(Request("http://example.com/a?a=2&b=1"))  # the same fingerprint
    assert not two.request_seen(Request("http://example.com/other"))
    one.close("finished")
    two.clear()
    assert not two.request_seen(r)
    two.close("finished")
    # the default prefix is the spider's, as scrapy-redis's "%(spider)s:dupefilter"
    assert server.cli("HGET", "shop-dupefilter:{m}:meta", "identity").strip()

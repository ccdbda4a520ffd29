"""SeenSet("redis") from Python against scrapy-redis's dupefilter pattern, on one local server.

    python benches/python/redis_bench.py --port PORT [--requests N]

Needs a redis-server of its own on 127.0.0.1:PORT (it is FLUSHALLed) and redis-py for the
scrapy-redis rows (pip install redis). Rows, each on an empty server:
- scrapy-redis pattern: what `RFPDupeFilter.request_seen` does, `SADD key <40-hex SHA-1>` a
  request with redis-py, one round trip each (the fingerprint made with hashlib, as
  scrapy-redis's `request_fingerprint` does, is counted);
- linksieve add: `SeenSet("redis").add(sha1 digest)` a request (one round trip, which also
  records the answer before it);
- linksieve add_many 256: batches of 256 fingerprints.
"""

import argparse
import hashlib
import time

import linksieve


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", type=int, default=50_000)
    a = ap.parse_args()
    n = a.requests
    urls = [f"http://example.com/page/{i}?q={i * 7}" for i in range(n)]
    rows = []
    try:
        import redis

        r = redis.Redis(host="127.0.0.1", port=a.port)
        r.flushall()
        t = time.perf_counter()
        for u in urls:
            fp = hashlib.sha1(u.encode()).hexdigest()
            _seen = r.sadd("spider:dupefilter", fp) == 0
        rows.append(("scrapy-redis pattern (SADD 40-hex a request)", n, time.perf_counter() - t))
    except ImportError:
        rows.append(("scrapy-redis pattern: redis-py not installed", 0, 1))
        r = None
    url = f"redis://127.0.0.1:{a.port}/0?prefix=bench"
    if r is not None:
        r.flushall()
    with linksieve.SeenSet("redis", url=url, namespace="bench") as seen:
        t = time.perf_counter()
        for u in urls:
            seen.add(hashlib.sha1(u.encode()).digest())
        rows.append(("linksieve SeenSet('redis').add a request", n, time.perf_counter() - t))
    if r is not None:
        r.flushall()
    with linksieve.SeenSet("redis", url=url, namespace="bench") as seen:
        t = time.perf_counter()
        for i in range(0, n, 256):
            seen.add_many([hashlib.sha1(u.encode()).digest() for u in urls[i : i + 256]])
        rows.append(("linksieve SeenSet('redis').add_many, batches of 256", n, time.perf_counter() - t))
    print("| pattern | requests | seconds | requests/s |")
    print("| --- | ---: | ---: | ---: |")
    for name, k, s in rows:
        print(f"| {name} | {k} | {s:.3f} | {k / s:.0f} |")


if __name__ == "__main__":
    main()

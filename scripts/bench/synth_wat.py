"""A synthetic WAT file for timing the WAT reader and the edge table (the review record of
CHANGELOG 2026-11-28): 20,000 response envelopes of 60 links each (mixed paths), a gzip
member per record, in Common Crawl's layout.

    python3 scripts/bench/synth_wat.py OUT.wat.gz
"""
import gzip, json, random, sys
rnd = random.Random(7)
paths = ["A@/href"] * 6 + ["IMG@/src", "LINK@/href", "SCRIPT@/src", "FORM@/action", "IFRAME@/src"]
out = open(sys.argv[1], "wb")
for i in range(20000):
    url = f"http://h{i % 997}.example.org/p{i}"
    links = [{"path": rnd.choice(paths), "url": f"http://t{rnd.randrange(5000)}.example.net/x/{rnd.randrange(100)}", "text": "some anchor text"} for _ in range(60)]
    env = {"Container": {}, "Envelope": {"WARC-Header-Metadata": {"WARC-Type": "response", "WARC-Target-URI": url},
           "Payload-Metadata": {"HTTP-Response-Metadata": {"Response-Message": {"Status": "200"}, "Headers": {"Content-Type": "text/html"},
           "HTML-Metadata": {"Head": {"Scripts": [{"path": "SCRIPT@/src", "url": "/s.js"}]}, "Links": links}}}}}
    body = json.dumps(env).encode()
    head = (f"WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: {url}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    out.write(gzip.compress(head + body + b"\r\n\r\n", 1))

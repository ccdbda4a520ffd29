"""JSON-escaped links (issue #30 item 10): `linksieve run` on a JSON document finds the links of
its strings as Python's `json.loads` reads them, keyed as the WHATWG URL parser (ada-url) writes
them. The document is written the ways real JSON writers escape: every `/` as `\\/` (PHP's
json_encode, WordPress), `&` `<` `>` as `\\u0026` ... (Go's encoding/json), non-ASCII as `\\uXXXX`
(Python's `ensure_ascii`), `/` as `\\u002F` (JavaScript serialisers for inline scripts), and the
links of one string joined by commas.
"""

import json

import ada_url

URLS = [
    "http://json.example.com/a",
    "https://api.example.org/v1/items?page=2&limit=50",
    "https://cdn.example.net/img/caf\u00e9.png",
    "http://d.example/\U0001F600/x",
    "https://e.example:8443/p/q;r?s=t#frag",
    "http://f.example/search?q=a%20b&lang=en",
]


def php_style(s: str) -> str:
    return json.dumps(s).replace("/", "\\/")


def go_style(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    for c in "&<>":
        out = out.replace(c, "\\u%04x" % ord(c))
    return out


def js_style(s: str) -> str:
    return json.dumps(s).replace("/", "\\u002F")


def test_json_escaped_links_are_those_of_json_loads(run, tmp_path):
    doc = {}
    for i, u in enumerate(URLS):
        doc[f"php{i}"] = php_style(u)
        doc[f"go{i}"] = go_style(u)
        doc[f"js{i}"] = js_style(u)
    doc["list"] = php_style(",".join(URLS))
    text = "{" + ",\n".join(f'"{k}":{v}' for k, v in doc.items()) + "}"
    # the document is valid JSON and holds the links as written above
    loaded = json.loads(text)
    strings = [loaded[k] for k in doc]
    assert strings[:3] == [URLS[0]] * 3
    assert loaded["list"].split(",") == URLS
    want = []
    for s in strings:
        for u in s.split(","):
            href = ada_url.URL(u).href
            if href not in want:
                want.append(href)
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    p = run("run", "-q", path, check_status=0)
    assert p.stdout.splitlines() == want
    # each link is found where it is written, escapes and all
    p = run("scan", "--format", "jsonl", path, check_status=0)
    hits = [json.loads(line) for line in p.stdout.splitlines()]
    raw = text.encode("utf-8")
    assert len(hits) == len(URLS) * 4
    for h in hits:
        written = raw[h["start"] : h["end"]].decode("utf-8")
        assert h.get("raw", h["link"]) == written
        assert json.loads('"' + written + '"') == h["link"]

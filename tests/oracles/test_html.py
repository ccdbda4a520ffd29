"""HTML outlinks against readers linksieve did not write: real documentation sites (Debian's
PostgreSQL, Django and Python documentation, fetched by scripts/fetch-corpora.sh) served on 127.0.0.1
and crawled into WARC files by wget, plain and with gzip bodies; the expected outlinks come from
Python's html.parser, the ada-url WHATWG parser and warcio (tests/oracles/outlink_oracle.py)."""

import json
import os
import re
from pathlib import Path

import pytest

from crawl import crawl
from outlink_oracle import html_responses, outlinks


def corpus(site):
    root = os.environ.get("LINKSIEVE_CORPORA")
    d = Path(root) / "html-docs" / site if root else None
    if d is None or not (d / "index.html").exists():
        raise RuntimeError(
            f"html-docs/{site} not found under LINKSIEVE_CORPORA={root!r}: "
            "run scripts/fetch-corpora.sh (scripts/test.sh does)"
        )
    return d


URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]")


def iri_model(href):
    """A WHATWG href as a key holds it (3987bis 6.2 steps 3-4): characters RFC 3986 does not
    allow percent-encoded, a `%` that starts no `%HH` written `%25`, a second `#` encoded."""
    out, i, frag = [], 0, False
    while i < len(href):
        c = href[i]
        if c == "%":
            out.append(c if re.match(r"[0-9A-Fa-f]{2}", href[i + 1:i + 3]) else "%25")
        elif c == "#":
            out.append("%23" if frag else c)
            frag = True
        elif URI_CHARS.match(c):
            out.append(c)
        else:
            out.append("".join(f"%{b:02X}" for b in c.encode()))
        i += 1
    return "".join(out)


@pytest.mark.parametrize(
    "site,use_gzip", [("postgresql", False), ("django", True), ("python", False)]
)
def test_outlinks_of_a_crawl_match_html_parser_and_ada(tmp_path, run, site, use_gzip):
    warc = crawl(corpus(site), tmp_path / site, use_gzip)
    expected, documents, found = set(), 0, 0
    for url, text in html_responses(warc):
        documents += 1
        links, _ = outlinks(text, url)
        found += len(links)
        expected.update(iri_model(h) for _, _, h in links if h is not None)
    assert documents > 500 and len(expected) > 1000
    # The string rung in web mode: each resolved URL as the URL Standard writes it.
    p = run("run", "--html", "--rung", "string", "--input-mode", "web", "--format", "jsonl",
            "--stats", tmp_path / "s.json", warc, check_status=0)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    keys = {r["key"] for r in rows if "key" in r}
    from_attributes = {r["key"] for r in rows if r.get("from") == "attribute"}
    # Recall: every outlink the oracle resolved is a key (first found in an attribute or in
    # the text). Precision: every key first found in an attribute is one the oracle found.
    assert expected - keys == set()
    assert from_attributes - expected == set()
    stats = json.loads((tmp_path / "s.json").read_text())
    assert stats["outlinks"]["documents"] == documents
    assert stats["outlinks"]["found"] == found


def test_relative_links_without_a_base_are_counted_and_named(tmp_path, run):
    page = tmp_path / "p.html"
    page.write_text('<a href="a.html">a</a> <a href="http://h.example/x">x</a>')
    p = run("run", "--html", page, check_status=0)
    assert p.stdout.splitlines() == ["http://h.example/x"]
    assert "relative outlinks not resolved: 1" in p.stderr and "--base URL" in p.stderr
    p = run("run", "--html", "--base", "http://d.example/dir/", page, check_status=0)
    assert p.stdout.splitlines() == ["http://d.example/dir/a.html", "http://h.example/x"]


@pytest.mark.parametrize(
    "base_href",
    [
        "javascript:void(0)",
        "JavaScript:alert(1)",
        "data:text/html,<p>x</p>",
        " data:,x ",
        "http://[::1",  # does not parse: the fallback too
    ],
)
def test_a_javascript_or_data_base_is_skipped_as_browsers_do(tmp_path, run, base_href):
    """Issue #30 item 8: a `<base href>` that is a javascript: or data: URL (or that fails to
    parse) leaves the fallback base (the document's address), so relative outlinks still
    resolve; html.parser + ada-url (tests/oracles/outlink_oracle.py) give the expected keys."""
    address = "http://site.example/dir/page.html"
    doc = (
        f'<html><head><base href="{base_href}"><base href="/later/">'
        '</head><body><a href="a.html">a</a> <img src="/img/b.png">'
        ' <a href="?q=1">q</a> <a href="#top">top</a></body></html>'
    )
    page = tmp_path / "p.html"
    page.write_text(doc)
    expected, _ = outlinks(doc, address)
    want = [href for _, _, href in expected if href is not None]
    assert want and all(h.startswith("http://site.example/") for h in want), want
    p = run("run", "--html", "--all-schemes", "--rung", "string", "--base", address, page,
            check_status=0)
    # the text of the markup is scanned too, where `data:,x` is a link of its own
    got = [k for k in p.stdout.splitlines() if not k.startswith("data:")]
    assert got == list(dict.fromkeys(iri_model(h) for h in want))
    assert ", 0 invalid" in p.stderr, p.stderr

"""An HTML outlink extractor that shares no code with linksieve, for the oracle tests and the
benchmark: Python's `html.parser` finds the URL-valued attributes, the `ada-url` package (a
WHATWG URL parser) resolves them, `warcio` reads the WARC files.

What counts as an outlink follows issue #20 and the table in docs/guide.md ("HTML outlinks"):
the extraction is crates/scan/tests/html_oracle.py's; each URL is resolved
against the document base (the first `<base href>`, itself resolved against the record's
WARC-Target-URI). Values are stripped of ASCII whitespace (HTML "strip leading and trailing
ASCII whitespace"); the URL parser does the rest.
"""

import re
import sys
from pathlib import Path

import ada_url

# The extraction half is the oracle of crates/scan/tests/html.rs (html.parser with the table of
# URL-valued attributes and the srcset / refresh rules written from the HTML Standard): one
# oracle for the tokenizer's test and this one. This module adds the resolution and the WARC.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "crates" / "scan" / "tests"))
from html_oracle import Outlinks  # noqa: E402

# Schemes that name no resource to fetch: found and counted, not keyed (issue #20).
NOT_KEYED = ("javascript:", "data:", "about:", "blob:", "vbscript:")


def outlinks(text, url):
    """The outlinks of one HTML document at `url`: a list of (tag, attr, href) with each value
    resolved by the WHATWG parser, the values that did not resolve as (tag, attr, None), and the
    count of links in a scheme that is not keyed."""
    rows = []
    p = Outlinks(url, rows)
    p.feed(text)
    p.close()
    found = [(tag, attr, value) for _, tag, attr, value, _ in rows if tag not in ("base", "meta")
             or (tag == "meta" and attr == "content")]
    base = url
    first_base = next((value for _, tag, _, value, _ in rows if tag == "base"), None)
    if first_base is not None:
        try:
            joined = ada_url.join_url(url, first_base)
            # browsers refuse javascript: and data: URLs as a base (Chromium: "'data:' URLs may
            # not be used as base URLs for a document"); the fallback base stays
            if not joined.lower().startswith(("javascript:", "data:")):
                base = joined
        except ValueError:
            pass
    out, skipped = [], 0
    for tag, attr, value in found:
        try:
            href = ada_url.join_url(base, value)
        except ValueError:
            out.append((tag, attr, None))
            continue
        if href.lower().startswith(NOT_KEYED):
            skipped += 1
            continue
        out.append((tag, attr, href))
    return out, skipped


def visited_urls(path):
    """WARC-Target-URI of every response record of a WARC file, read by warcio: the URLs
    cc-pyspark makes nodes of its graphs, links or none ("every visited URL should be a node",
    `wat_extract_links.py`)."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type == "response":
                yield rec.rec_headers.get_header("WARC-Target-URI")


def html_responses(path):
    """(WARC-Target-URI, decoded text) of every HTML response record of a WARC file, read by
    warcio (which undoes chunking and gzip/deflate/br content codings)."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response" or rec.http_headers is None:
                continue
            ctype = rec.http_headers.get_header("Content-Type") or ""
            if "html" not in ctype.lower():
                continue
            m = re.search(r"charset=[\"']?([^\"';\s]+)", ctype, re.I)
            body = rec.content_stream().read()
            try:
                text = body.decode(m.group(1) if m else "utf-8", errors="replace")
            except LookupError:
                text = body.decode("utf-8", errors="replace")
            yield rec.rec_headers.get_header("WARC-Target-URI"), text

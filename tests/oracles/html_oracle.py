"""An HTML outlink extractor that shares no code with linksieve, for the oracle tests and the
benchmark: Python's `html.parser` finds the URL-valued attributes, the `ada-url` package (a
WHATWG URL parser) resolves them, `warcio` reads the WARC files.

What counts as an outlink follows issue #20 and the table in docs/guide.md ("HTML outlinks"),
written out again here: the attributes below, `srcset` candidates, `ping` URLs, the URL of
`<meta http-equiv=refresh>`, each resolved
against the document base (the first `<base href>`, itself resolved against the record's
WARC-Target-URI). Values are stripped of ASCII whitespace (HTML "strip leading and trailing
ASCII whitespace"); the URL parser does the rest.
"""

import html.parser
import re

import ada_url

# (tag, attribute) pairs whose value is one URL; `srcset` and meta refresh are handled apart.
URL_ATTRS = {
    ("a", "href"), ("area", "href"), ("link", "href"),
    ("img", "src"), ("input", "src"), ("script", "src"), ("iframe", "src"), ("frame", "src"),
    ("embed", "src"), ("source", "src"), ("track", "src"), ("audio", "src"), ("video", "src"),
    ("input", "formaction"), ("button", "formaction"),
    ("form", "action"), ("object", "data"), ("video", "poster"),
    ("blockquote", "cite"), ("q", "cite"), ("del", "cite"), ("ins", "cite"),
}
# (tag, attribute) pairs holding a srcset, and those holding URLs separated by whitespace.
SRCSET_ATTRS = {("img", "srcset"), ("source", "srcset"), ("link", "imagesrcset")}
PING_ATTRS = {("a", "ping"), ("area", "ping")}
# Schemes that name no resource to fetch: found and counted, not keyed (issue #20).
NOT_KEYED = ("javascript:", "data:", "about:", "blob:", "vbscript:")
ASCII_WS = " \t\n\f\r"


def srcset_urls(value):
    """The URLs of a srcset attribute (HTML Standard, "parse a srcset attribute")."""
    urls, i, n = [], 0, len(value)
    while True:
        while i < n and (value[i] in ASCII_WS or value[i] == ","):
            i += 1
        if i >= n:
            return urls
        j = i
        while j < n and value[j] not in ASCII_WS:
            j += 1
        url = value[i:j]
        i = j
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            # skip the descriptors, up to a comma outside parentheses
            depth = 0
            while i < n:
                c = value[i]
                if c == "(":
                    depth += 1
                elif c == ")" and depth:
                    depth -= 1
                elif c == "," and not depth:
                    i += 1
                    break
                i += 1
        if url:
            urls.append(url)


def refresh_url(content):
    """The URL of a meta refresh `content` (HTML Standard, "shared declarative refresh
    steps"), or None when it names none."""
    s = content.lstrip(ASCII_WS)
    m = re.match(r"[0-9]*(\.[0-9.]*)?", s)
    if not m or (m.end() == 0):
        return None
    s = s[m.end():].lstrip(ASCII_WS)
    if not s:
        return None
    if s[0] not in ";,":
        return None
    s = s[1:].lstrip(ASCII_WS)
    if s[:3].lower() == "url":
        t = s[3:].lstrip(ASCII_WS)
        if t.startswith("="):
            s = t[1:].lstrip(ASCII_WS)
    if s[:1] in ("'", '"'):
        q = s[0]
        s = s[1:]
        end = s.find(q)
        if end >= 0:
            s = s[:end]
    return s or None


class Links(html.parser.HTMLParser):
    """Collects (tag, attr, value) for every URL-valued attribute, and the first base href."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []
        self.base = None

    def handle_starttag(self, tag, attrs):
        first = {}
        for k, v in attrs:
            first.setdefault(k, v)  # a repeated attribute: the first one counts
        if tag == "base" and self.base is None and first.get("href") is not None:
            self.base = first["href"].strip(ASCII_WS)
        for attr, v in first.items():
            if v is None:
                continue
            if (tag, attr) in URL_ATTRS:
                self.found.append((tag, attr, v.strip(ASCII_WS)))
            elif (tag, attr) in SRCSET_ATTRS:
                self.found.extend((tag, attr, u) for u in srcset_urls(v))
            elif (tag, attr) in PING_ATTRS:
                self.found.extend((tag, attr, u) for u in v.split())
        if (tag == "meta" and (first.get("http-equiv") or "").lower() == "refresh"
                and first.get("content") is not None):
            u = refresh_url(first["content"])
            if u is not None:
                self.found.append((tag, "content", u))

    handle_startendtag = handle_starttag


def outlinks(text, url):
    """The outlinks of one HTML document at `url`: a list of (tag, attr, href) with each value
    resolved by the WHATWG parser, the values that did not resolve as (tag, attr, None), and the
    count of links in a scheme that is not keyed."""
    p = Links()
    p.feed(text)
    p.close()
    base = url
    if p.base is not None:
        try:
            base = ada_url.join_url(url, p.base)
        except ValueError:
            pass
    out, skipped = [], 0
    for tag, attr, value in p.found:
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

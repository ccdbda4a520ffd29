#!/usr/bin/env python3
"""The outlinks of HTML files by Python's html.parser: the oracle of tests/html_oracle.rs.

    usage: html_oracle.py FILE...

Prints one JSON array a line, [file, tag, attr, value, rel], for every outlink in document
order, by the same selection rules as linksieve_scan::html (written again here, from the
HTML Standard, not from the Rust code): the table of URL-valued attributes, the first of
duplicate attributes, the first <base> with an href, srcset candidates ("parse a srcset
attribute"), ping tokens, the URL of <meta http-equiv=refresh> ("shared declarative refresh
steps"), leading and trailing ASCII whitespace stripped; and the first declared charset as
[file, "meta", "charset", label, null]. Tokenizing and character references are
html.parser's own (convert_charrefs=True: attribute values through html.unescape); its known
differences from the HTML Standard are listed in testdata/html/README.md.

Files are read as UTF-8 with newlines as they are.
"""

import codecs
import html.parser
import json
import re
import sys

WS = " \t\n\r\f"

TABLE = {
    "a": {"href": "url", "ping": "ping"},
    "area": {"href": "url", "ping": "ping"},
    "link": {"href": "url", "imagesrcset": "srcset"},
    "base": {"href": "url"},
    "img": {"src": "url", "srcset": "srcset"},
    "input": {"src": "url", "formaction": "url"},
    "button": {"formaction": "url"},
    "script": {"src": "url"},
    "iframe": {"src": "url"},
    "frame": {"src": "url"},
    "embed": {"src": "url"},
    "source": {"src": "url", "srcset": "srcset"},
    "track": {"src": "url"},
    "audio": {"src": "url"},
    "video": {"src": "url", "poster": "url"},
    "form": {"action": "url"},
    "object": {"data": "url"},
    "blockquote": {"cite": "url"},
    "q": {"cite": "url"},
    "del": {"cite": "url"},
    "ins": {"cite": "url"},
}


def srcset_urls(s):
    """HTML "parse a srcset attribute": the URLs of the candidates it keeps."""
    out = []
    pos, n = 0, len(s)
    while True:
        while pos < n and (s[pos] in WS or s[pos] == ","):
            pos += 1
        if pos >= n:
            return out
        start = pos
        while pos < n and s[pos] not in WS:
            pos += 1
        url = s[start:pos]
        if url.endswith(","):
            url = url.rstrip(",")
            if url:
                out.append(url)
            continue
        descriptors, cur, state = [], "", "in"
        while pos < n and s[pos] in WS:
            pos += 1
        while True:
            c = s[pos] if pos < n else None
            if state == "in":
                if c is not None and c in WS:
                    if cur:
                        descriptors.append(cur)
                        cur = ""
                    state = "after"
                elif c == ",":
                    pos += 1
                    if cur:
                        descriptors.append(cur)
                    break
                elif c == "(":
                    cur += c
                    state = "parens"
                elif c is None:
                    if cur:
                        descriptors.append(cur)
                    break
                else:
                    cur += c
            elif state == "parens":
                if c == ")":
                    cur += c
                    state = "in"
                elif c is None:
                    descriptors.append(cur)
                    break
                else:
                    cur += c
            else:  # after descriptor
                if c is None:
                    break
                if c not in WS:
                    state = "in"
                    continue
            pos += 1
        if descriptors_ok(descriptors):
            out.append(url)


INT = re.compile(r"[0-9]+\Z")
FLOAT = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")


def descriptors_ok(descriptors):
    width = density = height = False
    for d in descriptors:
        num, last = d[:-1], d[-1:]
        if last == "w" and INT.match(num):
            if width or density or int(num) == 0:
                return False
            width = True
        elif last == "x" and FLOAT.match(num):
            if width or density or height or float(num) < 0:
                return False
            density = True
        elif last == "h" and INT.match(num):
            if height or density or int(num) == 0:
                return False
            height = True
        else:
            return False
    return not (height and not width)


def refresh_url(s):
    """HTML "shared declarative refresh steps": the URL, or None."""
    pos, n = 0, len(s)

    def skip(p):
        while p < n and s[p] in WS:
            p += 1
        return p

    pos = skip(pos)
    start = pos
    while pos < n and s[pos].isascii() and s[pos].isdigit():
        pos += 1
    if pos == start and (pos >= n or s[pos] != "."):
        return None
    while pos < n and (s[pos] == "." or (s[pos].isascii() and s[pos].isdigit())):
        pos += 1
    if pos < n:
        if s[pos] not in ";," + WS:
            return None
        pos = skip(pos)
        if pos < n and s[pos] in ";,":
            pos += 1
        pos = skip(pos)
    if pos >= n:
        return None
    url = s[pos:]
    quote = ""
    skip_quotes = False
    if s[pos] in "Uu":
        p = pos + 1
        if p < n and s[p] in "Rr":
            p += 1
            if p < n and s[p] in "Ll":
                p = skip(p + 1)
                if p < n and s[p] == "=":
                    pos = skip(p + 1)
                    skip_quotes = True
    else:
        skip_quotes = True
    if skip_quotes:
        if pos < n and s[pos] in "'\"":
            quote = s[pos]
            pos += 1
        url = s[pos:]
        if quote and quote in url:
            url = url[: url.index(quote)]
    url = url.rstrip(WS)
    return url or None


def charset_in_content(s):
    """HTML "algorithm for extracting a character encoding from a meta element"."""
    low = s.lower()
    pos = 0
    while True:
        k = low.find("charset", pos)
        if k < 0:
            return None
        i = k + 7
        while i < len(s) and s[i] in WS:
            i += 1
        if i >= len(s) or s[i] != "=":
            pos = i
            continue
        i += 1
        while i < len(s) and s[i] in WS:
            i += 1
        if i >= len(s):
            return None
        if s[i] in "'\"":
            j = s.find(s[i], i + 1)
            return None if j < 0 else s[i + 1 : j]
        j = i
        while j < len(s) and s[j] not in WS and s[j] != ";":
            j += 1
        return s[i:j]


def known_encoding(label):
    try:
        codecs.lookup(label)
        return True
    except LookupError:
        return False


class Outlinks(html.parser.HTMLParser):
    def __init__(self, name, out):
        super().__init__(convert_charrefs=True)
        self.name = name
        self.out = out
        self.base = False
        self.charset = False

    def emit(self, tag, attr, value, rel=None):
        self.out.append([self.name, tag, attr, value, rel])

    def handle_starttag(self, tag, attrs):
        if tag == "image":
            tag = "img"
        first = {}
        for k, v in attrs:
            if k not in first:
                first[k] = "" if v is None else v
        if tag == "meta":
            return self.meta(first)
        if tag == "base":
            if not self.base and "href" in first:
                self.base = True
                self.emit("base", "href", first["href"].strip(WS))
            return
        rows = TABLE.get(tag)
        if not rows:
            return
        rel = first["rel"].strip(WS) if tag in ("a", "area", "link") and "rel" in first else None
        for k, v in first.items():
            kind = rows.get(k)
            if kind == "url":
                self.emit(tag, k, v.strip(WS), rel)
            elif kind == "srcset":
                for u in srcset_urls(v):
                    self.emit(tag, k, u, rel)
            elif kind == "ping":
                for u in re.split("[ \t\n\r\f]+", v):
                    if u:
                        self.emit(tag, k, u, rel)

    handle_startendtag = handle_starttag

    def meta(self, a):
        equiv = a.get("http-equiv", "").lower()
        if not self.charset and "charset" in a:
            label = a["charset"].strip(WS)
            if known_encoding(label):
                self.charset = True
                self.emit("meta", "charset", label)
        if equiv == "refresh" and "content" in a:
            u = refresh_url(a["content"])
            if u is not None:
                self.emit("meta", "content", u)
        elif equiv == "content-type" and "content" in a and not self.charset:
            label = charset_in_content(a["content"])
            if label is not None and known_encoding(label.strip(WS)):
                self.charset = True
                self.emit("meta", "charset", label.strip(WS))


def main(files):
    out = []
    for name in files:
        with open(name, encoding="utf-8", newline="") as f:
            text = f.read()
        p = Outlinks(name, out)
        p.feed(text)
        p.close()
    for row in out:
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])

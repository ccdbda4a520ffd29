"""The links of a WARC response record outside its HTML, as Common Crawl's graphs take them: the
oracle of linksieve's record links (`run` on WARC files, `--format edges`).

The four patterns are copied from cc-pyspark's `wat_extract_links.py` (class `ExtractLinksJob`,
https://github.com/commoncrawl/cc-pyspark, commit 49daea0, MIT licence, Copyright (c) 2017
Common Crawl): a redirect is a status line matching `http_redirect_pattern`, its target the
first `Location` field (`http_redirect_location_pattern`); `Link` fields give each `<...>`
(`http_link_pattern`; cc-pyspark reads them from WAT records, linksieve from WARC records too);
a robots.txt answered 200 gives its `Sitemap:` lines (`robotstxt_sitemap_pattern`; cc-pyspark
reads them from its robots.txt crawl, linksieve from any record whose target path is
`/robots.txt`). The records are read by warcio, not by linksieve.

One deliberate difference: cc-pyspark's `http_link_pattern` also takes a `<...>` written inside
a quoted parameter value (`rel="preload"; title="<x>"`), which RFC 8288 3 makes no link; the
oracle reads a `Link` field so by default (`rfc8288=True`), and cc-pyspark's way on request, so
that the test can check that the two differ by exactly those values.
"""

import re
from urllib.parse import urlsplit

http_redirect_pattern = re.compile(b'^HTTP\\s*/\\s*1\\.[01]\\s*30[12378]\\b')
http_redirect_location_pattern = re.compile(b'^Location:\\s*(\\S+)', re.IGNORECASE)
http_link_pattern = re.compile(r'<([^>]*)>')
http_success_pattern = re.compile(b'^HTTP\\s*/\\s*1\\.[01]\\s*200\\b')
robotstxt_sitemap_pattern = re.compile(b'^Sitemap:\\s*(\\S+)', re.IGNORECASE)
# RFC 8288 3 (and RFC 9110 5.6.4): a quoted-string, whose `<` and `>` are no delimiters
quoted_string = re.compile(r'"(?:[^"\\]|\\.)*"')


def links_of(rec, rfc8288=True, body=None):
    """(type, URI-reference as written) of each record link of one warcio record, in the order
    linksieve reports them; type is linksieve's name (`redirect-301`, `link-header`,
    `sitemap`). A robots.txt's payload is `body`, else read from the record."""
    if rec.rec_type != "response" or rec.http_headers is None:
        return
    target = rec.rec_headers.get_header("WARC-Target-URI")
    h = rec.http_headers
    status_line = f"{h.protocol} {h.statusline}".encode()
    if http_redirect_pattern.match(status_line):
        for name, value in h.headers:
            m = http_redirect_location_pattern.match(f"{name}: {value}".encode())
            if m:
                yield "redirect-" + h.get_statuscode(), m.group(1).decode()
                break
    for name, value in h.headers:
        if name.lower() == "link":
            if rfc8288:
                value = quoted_string.sub('""', value)
            for m in http_link_pattern.finditer(value):
                yield "link-header", m.group(1).strip()
    if http_success_pattern.match(status_line) and urlsplit(target).path == "/robots.txt":
        if body is None:
            body = rec.content_stream().read()
        for line in body.split(b"\n"):
            m = robotstxt_sitemap_pattern.match(line)
            if m:
                yield "sitemap", m.group(1).strip().decode()


def record_links(path, rfc8288=True):
    """(WARC-Target-URI, type, URI-reference as written) of each record link of a WARC file, in
    file order (`links_of`)."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            target = rec.rec_headers.get_header("WARC-Target-URI")
            for kind, value in links_of(rec, rfc8288):
                yield target, kind, value

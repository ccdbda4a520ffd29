"""WAT files in Common Crawl's JSON layout, made from a WARC file by the oracle, and read back
as cc-pyspark reads them: the oracle of linksieve's WAT input.

`write_wat` reads each response of a WARC file with warcio and writes one `metadata` record of
`application/json` for it, as Common Crawl's WAT files hold them (`Envelope` ->
`WARC-Header-Metadata`, `Payload-Metadata` -> `HTTP-Response-Metadata` -> `Response-Message`,
`Headers`, `HTML-Metadata` -> `Head` (`Base`, `Link`, `Scripts`) and `Links`, each link a
`path` such as `A@/href` and a `url` as written); the HTML is read by Python's html.parser
(`html_oracle.Outlinks`, shared with the HTML oracle).

`get_links` is cc-pyspark's `ExtractLinksJob.get_links` with `yield_links` and
`extract_http_header_links` (`wat_extract_links.py`, https://github.com/commoncrawl/cc-pyspark,
commit 49daea0, MIT licence, Copyright (c) 2017 Common Crawl), their Spark counters left out:
each link joined to the page's base by `urllib.parse.urljoin`.
"""

import io
import json
import re
from urllib.parse import urljoin


http_link_pattern = re.compile(r'<([^>]*)>')
url_abs_pattern = re.compile(r'^(?:https?:)?//')
html_meta_property_links = {
    'og:url', 'og:image', 'og:image:secure_url',
    'og:video', 'og:video:url', 'og:video:secure_url',
    'twitter:url', 'twitter:image:src'}
html_meta_links = {
    'twitter:image', 'thumbnail', 'application-url',
    'msapplication-starturl', 'msapplication-TileImage', 'vb_meta_bburl'}


def envelope(url, status, headers, html):
    """The WAT JSON of one response: `headers` a list of (name, value), `html` its text or
    None."""
    meta = {"Response-Message": {"Version": "HTTP/1.1", "Status": str(status)},
            "Headers": {}}
    for name, value in headers:
        old = meta["Headers"].get(name)
        meta["Headers"][name] = value if old is None else (
            old + [value] if isinstance(old, list) else [old, value])
    if html is not None:
        from outlink_oracle import Outlinks  # (html.parser and ada-url: the oracle venv only)

        rows = []
        p = Outlinks(url, rows)
        p.feed(html)
        p.close()
        head, links = {}, []
        for _, tag, attr, value, rel in rows:
            entry = {"path": f"{tag.upper()}@/{attr}", "url": value}
            if rel:
                entry["rel"] = rel
            if tag == "base":
                head.setdefault("Base", value)
            elif tag == "link":
                head.setdefault("Link", []).append(entry)
            elif tag == "script":
                head.setdefault("Scripts", []).append(entry)
            elif tag != "meta":
                links.append(entry)
        meta["HTML-Metadata"] = {"Head": head, "Links": links}
    return {"Container": {"Filename": "oracle.warc.gz"},
            "Envelope": {"Format": "WARC",
                         "WARC-Header-Metadata": {"WARC-Type": "response",
                                                  "WARC-Target-URI": url},
                         "Payload-Metadata": {"Actual-Content-Type":
                                              "application/http; msgtype=response",
                                              "HTTP-Response-Metadata": meta}}}


def write_wat(warc, wat):
    """Writes the WAT file of WARC file `warc` to `wat` (gzip, one member per record)."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    with open(warc, "rb") as f, open(wat, "wb") as out:
        w = WARCWriter(out, gzip=True)
        for rec in ArchiveIterator(f):
            if rec.rec_type != "response" or rec.http_headers is None:
                continue
            url = rec.rec_headers.get_header("WARC-Target-URI")
            h = rec.http_headers
            ctype = h.get_header("Content-Type") or ""
            body = rec.content_stream().read()
            html = body.decode("utf-8", "replace") if "html" in ctype.lower() else None
            data = json.dumps(envelope(url, h.get_statuscode(), h.headers, html)).encode()
            w.write_record(w.create_warc_record(
                url, "metadata", payload=io.BytesIO(data), length=len(data),
                warc_content_type="application/json"))


def extract_http_header_links(headers):
    links = []
    for header in headers:
        header_name = header.lower()
        if header_name == 'content-location':
            if isinstance(headers[header], list):
                for cl in headers[header]:
                    links.append(cl)
            else:
                links.append(headers[header])
        elif header_name == 'link':
            if isinstance(headers[header], list):
                for li in headers[header]:
                    for m in http_link_pattern.finditer(li):
                        links.append(m.group(1))
            else:
                for m in http_link_pattern.finditer(headers[header]):
                    links.append(m.group(1))
    return links


def yield_links(src_url, base_url, links, url_attr, opt_attr=None):
    if not base_url:
        base_url = src_url
    has_links = False
    for l in links:
        link = None
        if url_attr in l:
            link = l[url_attr]
        elif opt_attr in l and url_abs_pattern.match(l[opt_attr]):
            link = l[opt_attr]
        else:
            continue
        try:
            lurl = urljoin(base_url, link)
        except ValueError:
            continue
        has_links = True
        yield src_url, lurl
    if not has_links:
        yield src_url, src_url


def get_links(url, record):
    response_meta = record['Envelope']['Payload-Metadata']['HTTP-Response-Metadata']
    if 'Headers' in response_meta:
        for l in extract_http_header_links(response_meta['Headers']):
            yield url, l
    if 'HTML-Metadata' not in response_meta:
        return
    html_meta = response_meta['HTML-Metadata']
    base = None
    if 'Head' in html_meta:
        head = html_meta['Head']
        if 'Base' in head:
            try:
                base = urljoin(url, head['Base'])
            except ValueError:
                pass
        if 'Link' in head:
            for l in yield_links(url, base, head['Link'], 'url'):
                yield l
        if 'Metas' in head:
            for m in head['Metas']:
                if (('property' in m and m['property'] in html_meta_property_links)
                        or ('name' in m and m['name'] in html_meta_links)
                        or ('content' in m and url_abs_pattern.match(m['content']))):
                    for l in yield_links(url, base, [m], 'content'):
                        yield l
        if 'Scripts' in head:
            for l in yield_links(url, base, head['Scripts'], 'url'):
                yield l
    if 'Links' in html_meta:
        for l in yield_links(url, base, html_meta['Links'], 'url', 'href'):
            yield l


def wat_records(wat):
    """(target URI, WAT JSON) of each response envelope of a WAT file, read by warcio."""
    from warcio.archiveiterator import ArchiveIterator

    with open(wat, "rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type != "metadata":
                continue
            record = json.loads(rec.content_stream().read())
            warc_header = record['Envelope']['WARC-Header-Metadata']
            if warc_header['WARC-Type'] == 'response':
                yield warc_header['WARC-Target-URI'], record

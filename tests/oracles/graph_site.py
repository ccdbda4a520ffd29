"""The site of the graph tests: several virtual hosts, all served by one HTTP proxy on
127.0.0.1 (wget sends it absolute URLs, so no name is ever looked up), with pages that link
through every tag, redirects of four statuses, `Link` fields and robots.txt files; and
`crawl_site`, wget's crawl of it into a WARC file. Shared by `test_graph.py` (the CLI) and
`tests/python/test_records.py` (the Python module)."""

import http.server
import random
import re
import subprocess
from urllib.parse import urljoin, urlsplit

from cc_hosts import get_surt_host
from cc_wat import get_links, wat_records, write_wat
from crawl import serving

# The hosts the proxy serves (wget crawls them); links also go to hosts it does not serve.
SERVED = ["www.alpha.example", "alpha.example", "beta.example.org", "shop.beta.example.org",
          "gamma.example.net", "xn--bcher-kva.example", "www.com.example",
          "www.shop.example.co.uk", "blog.me.github.io"]
ELSEWHERE = ["http://external.example.com/x", "http://WWW.Upper.Example.ORG./y",
             "http://b\u00fccher.example/z", "http://192.0.2.7/ip", "http://www.10.0.0.1/",
             "http://localhost/l", "mailto:a@example.net", "javascript:void(0)",
             "http://under_score.example/u", "https://sub.alpha.example:8443/port",
             "//gamma.example.net/protocol-relative", "ftp://files.example.net/f",
             "http://news.example.co.uk/", "https://you.github.io/", "http://github.io/",
             "http://co.uk/", "http://a.b.c.ck/", "http://WWW.CK./", "http://x.b.s3.amazonaws.com/"]
# Elements with content are closed: an unclosed `<iframe>` or `<script>` makes the rest of the
# page its raw text (HTML "RAWTEXT state", as linksieve reads it), while html.parser treats only
# `script` and `style` so (a difference of the oracle, not under test here).
TAGS = [("a", "href", "</a>"), ("img", "src", ""), ("script", "src", "</script>"),
        ("iframe", "src", "</iframe>"), ("link rel=stylesheet", "href", ""),
        ("link rel=canonical", "href", ""), ("area", "href", "")]


def site(seed=7, pages=8):
    """host -> path -> HTML: pages that link within their host (relative and absolute), to the
    other served hosts and to hosts elsewhere, through every tag of TAGS; some pages with a
    `<base href>` on another host."""
    rnd = random.Random(seed)
    out = {}
    for h in SERVED:
        out[h] = {}
        for p in range(pages):
            links = []
            for _ in range(rnd.randrange(4, 14)):
                kind = rnd.random()
                if kind < 0.3:
                    target = f"p{rnd.randrange(pages)}.html"
                elif kind < 0.65:
                    target = f"http://{rnd.choice(SERVED)}/p{rnd.randrange(pages)}.html"
                else:
                    target = rnd.choice(ELSEWHERE)
                tag, attr, end = rnd.choice(TAGS)
                links.append(f"<{tag} {attr}=\"{target}\">{end}")
            # redirects: r{n}.html answers 301, 302, 307 or 308 (`Proxy.redirect`)
            if rnd.random() < 0.5:
                links.append(f"<a href=\"http://{rnd.choice(SERVED)}/r{rnd.randrange(8)}.html\">r</a>")
            base = f"<base href=\"http://{rnd.choice(SERVED)}/\">" if p == 3 else ""
            out[h][f"/p{p}.html"] = (f"<html><head>{base}</head><body>"
                                     + "\n".join(links) + "</body></html>")
    return out


def redirect(host, n):
    """The status and `Location` of /r{n}.html on `host`: to a page of this host (relative,
    or absolute) or of another served host."""
    status = [301, 302, 307, 308][n % 4]
    other = SERVED[(SERVED.index(host) + n + 1) % len(SERVED)]
    location = [f"p{n}.html", f"http://{host}/p{n}.html", f"http://{other}/p{n}.html"][n % 3]
    return status, location


def robots(host):
    """A robots.txt that allows all and names two sitemaps, one on another host."""
    return (f"User-agent: *\nAllow: /\nSitemap: http://{host}/sitemap.xml\n"
            f"sitemap:   http://sitemaps.example.net/{host}.xml\n")


class Proxy(http.server.BaseHTTPRequestHandler):
    """An HTTP proxy that answers for the hosts of `server.site` itself (and 404 for others):
    their pages (every third with `Link` fields), redirects (`redirect`) and robots.txt."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        u = urlsplit(self.path)
        host = u.hostname or ""
        page = self.server.site.get(host, {}).get(u.path)
        fields = []
        if host in SERVED and u.path == "/robots.txt":
            body, status, ctype = robots(host).encode(), 200, "text/plain"
        elif host in SERVED and re.fullmatch(r"/r\d\.html", u.path):
            status, location = redirect(host, int(u.path[2]))
            body, ctype = f"<a href='{location}'>moved</a>".encode(), "text/html"
            fields = [("Location", location)]
        elif page is None:
            body, status, ctype = b"not here", 404, "text/plain"
        else:
            body, status, ctype = page.encode(), 200, "text/html; charset=utf-8"
            if int(u.path[2]) % 3 == 1:
                fields = [("Link", "</p0.html>; rel=prefetch, <http://cdn.example.com/s.css>; "
                                   "rel=\"preload; as=<style>\"")]
        self.send_response(status)
        for name, value in fields:
            self.send_header(name, value)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def crawl_site(d):
    """wget's recursive crawl of `site()` through the proxy into `d`/crawl.warc.gz (robots.txt
    read, redirects followed); returns its path."""
    with serving(Proxy, site=site()) as server:
        host, port = server.server_address[:2]
        subprocess.run(
            ["wget", "-r", "-l", "inf", "-e", "robots=on", "-nv", "-e", "use_proxy=yes",
             "-e", f"http_proxy=http://{host}:{port}/", "--span-hosts",
             "--domains=" + ",".join(SERVED), f"--warc-file={d / 'crawl'}", "-P",
             str(d / "site"), "-o", str(d / "wget.log"),
             *[f"http://{h}/p0.html" for h in SERVED]],
            check=False, timeout=300,
        )
    path = d / "crawl.warc.gz"
    assert path.exists(), (d / "wget.log").read_text()
    return path


def crawl_wat(warc, d):
    """The crawl's WAT file in `d`, made by the oracle in Common Crawl's layout (`cc_wat.py`)."""
    path = d / "crawl.wat.gz"
    write_wat(warc, path)
    return path


def edge_rows(text):
    """The rows of `linksieve run --format edges`: (source, target) -> (count, types)."""
    out = {}
    for line in text.splitlines():
        s, t, n, types = line.split("\t")
        out[(s, t)] = (int(n), set(types.split(",")))
    return out


def wat_host_edges(wat):
    """The host edges of a WAT file as cc-pyspark reads it (`get_links` over warcio and `json`,
    `get_surt_host`), with a redirect's `Location` from a WAT record's head, which linksieve
    also takes (cc-pyspark takes it from WARC files only), and each page's host as a node
    (h, h), as linksieve marks every visited page; the count of those redirects; and the pairs
    cc-pyspark's `process_record` writes, whose self-link is only that of a page that gave
    no link."""
    expected, redirects, cc_pairs = set(), 0, set()
    for url, record in wat_records(wat):
        source = get_surt_host(url)
        links = [link for _, link in get_links(url, record)]
        meta = record["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]
        if meta["Response-Message"]["Status"] in ("301", "302", "303", "307", "308"):
            links.append(urljoin(url, meta["Headers"]["Location"]))
            redirects += 1
        pairs = set()
        for link in links:
            target = get_surt_host(link)
            if source and target and target != source:
                pairs.add((source, target))
        if source:
            expected.add((source, source))
            if not pairs:
                cc_pairs.add((source, source))
        expected |= pairs
        cc_pairs |= pairs
    return expected, redirects, cc_pairs

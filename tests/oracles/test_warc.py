"""`linksieve run` on WARC files against independent readers.

Oracles that are not linksieve's WARC code:
- warcio (the Webrecorder reader) writes the records and reads them back: the payloads it
  decodes (chunked, gzip, deflate, br undone; charset from the HTTP head) are written out as one
  UTF-8 text file, and `linksieve run` on that text must give the keys of `linksieve run` on the
  WARC, in the same order, for every chunk size and thread count. The links a response states
  outside its payload (a redirect's `Location`, `Link` fields, robots.txt `Sitemap:` lines) are
  read from warcio's HTTP head by cc-pyspark's patterns (`cc_records.py`), resolved by ada-url,
  and written before the record's payload.
- wget crawls pages served on 127.0.0.1 (with gzip on and off, chunked or not) and writes a
  WARC; the keys must be exactly the links the server put in its pages.
"""

import gzip
import http.server
import io
import json
import subprocess
import threading
import zlib

import ada_url
import brotli
import pytest

from cc_records import links_of
from crawl import serving
from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader
from warcio.warcwriter import WARCWriter


class BrotliDecompressor:
    """Google's `brotli` module with the attribute warcio's `br` hook sets (it was written for
    `brotlipy`, whose objects took it; `brotli.Decompressor` refuses new attributes)."""

    unused_data = None

    def __init__(self):
        self.inner = brotli.Decompressor()

    def decompress(self, data):
        return self.inner.process(data)

    def flush(self):
        return b""


BufferedReader.DECOMPRESSORS["br"] = BrotliDecompressor

# What linksieve scans by default (`--warc-records content`): response payloads and resource /
# conversion blocks, except `metadata:` targets and media types without text.
BINARY_TOP = {"image", "audio", "video", "font", "model"}
BINARY_APP = {"octet-stream", "zip", "gzip", "x-gzip", "x-tar", "wasm"}


def binary(ctype):
    mime = (ctype or "").split(";")[0].strip().lower()
    top, _, sub = mime.partition("/")
    if sub.endswith("+xml") or sub.endswith("+json"):
        return False
    return top in BINARY_TOP or (top == "application" and sub in BINARY_APP)


def charset(ctype):
    for p in (ctype or "").split(";")[1:]:
        k, _, v = p.partition("=")
        if k.strip().lower() == "charset":
            return v.strip().strip("\"'")
    return None


def chunked(body, size):
    out = b""
    for i in range(0, len(body), size):
        part = body[i : i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def http_response(body, ctype="text/html", coding=None, chunk=None, extra=b"", declared=None):
    """An HTTP response as a crawler stores it: the body coded as the head says."""
    coded = body
    if coding == "gzip":
        coded = gzip.compress(body)
    elif coding == "deflate":
        coded = zlib.compress(body)
    elif coding == "deflate-raw":
        c = zlib.compressobj(wbits=-15)
        coded = c.compress(body) + c.flush()
        coding = "deflate"
    elif coding == "br":
        coded = brotli.compress(body)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype.encode() + b"\r\n" + extra
    if declared or coding:
        head += b"Content-Encoding: " + (declared or coding).encode() + b"\r\n"
    if chunk:
        head += b"Transfer-Encoding: chunked\r\n"
        coded = chunked(coded, chunk)
    elif chunk == 0:
        # declared chunked, stored decoded
        head += b"Transfer-Encoding: chunked\r\n"
    else:
        head += b"Content-Length: %d\r\n" % len(coded)
    return head + b"\r\n" + coded


def page(n, words=40):
    links = " ".join(
        f'<a href="http://site{n}.example/p/{i}?q={n * i}">l{i}</a> see https://t{n}.example/{i}'
        for i in range(words)
    )
    return f"<html><body><p>{links}</p></body></html>".encode()


def records():
    """(type, target URI, WARC Content-Type, block) of every shape the reader must handle."""
    big_cookie = b"Set-Cookie: s=" + b"http://cookie.example/x" * 4000 + b"\r\n"
    cyr = "<a href='http://пример.рф/путь'>ссылка</a> http://ru.example/1".encode("windows-1251")
    sjis = "リンク http://例え.テスト/パス http://jp.example/2 ".encode("shift_jis")
    resp = "application/http; msgtype=response"
    return [
        ("warcinfo", None, "application/warc-fields", b"software: oracle\r\n"),
        ("request", "http://a.example/", "application/http; msgtype=request",
         b"GET / HTTP/1.1\r\nReferer: http://ref.example/\r\n\r\n"),
        ("response", "http://a.example/", resp, http_response(page(1))),
        ("response", "http://b.example/", resp, http_response(page(2), chunk=7)),
        ("response", "http://c.example/", resp, http_response(page(3), coding="gzip", chunk=1000)),
        ("response", "http://d.example/", resp, http_response(page(4), coding="deflate")),
        ("response", "http://e.example/", resp, http_response(page(5), coding="deflate-raw", chunk=3)),
        ("response", "http://f.example/", resp, http_response(page(6), coding="br")),
        # a head far longer than a read, with a link field and a cookie (not content)
        ("response", "http://g.example/", resp,
         http_response(page(7), coding="gzip",
                       extra=big_cookie + b"Link: <http://header.example/>; rel=preload\r\n")),
        # a redirect (its Location relative) and a robots.txt: their links come first
        ("response", "http://m.example/old", resp,
         b"HTTP/1.1 301 Moved Permanently\r\nLocation: ../new?x=1\r\nContent-Length: 0\r\n\r\n"),
        ("response", "http://m.example/robots.txt", resp,
         http_response(b"User-agent: *\nSitemap: /sitemap.xml\nSitemap: https://s.example/m.xml\n",
                       ctype="text/plain")),
        ("response", "http://h.example/", resp,
         http_response(cyr, ctype="text/html; charset=windows-1251", chunk=5)),
        ("response", "http://i.example/", resp,
         http_response(sjis, ctype="text/plain; charset=Shift_JIS", coding="gzip")),
        # stored decoded, coding headers kept
        ("response", "http://j.example/", resp, http_response(page(8), declared="gzip")),
        ("response", "http://k.example/", resp, http_response(page(9), chunk=0)),
        # an image: its payload is skipped, its Link field is not
        ("response", "http://l.example/", resp,
         http_response(b"\x89PNG http://png.example/", ctype="image/png",
                       extra=b"Link: </license>; rel=license\r\n")),
        ("resource", "metadata://gnu.org/software/wget/warc/wget.log", "text/plain",
         b"--2026-01-01-- http://log.example/\n"),
        ("resource", "http://img.example/x.png", "image/png", b"\x89PNG http://img.example/y"),
        ("resource", "http://res.example/notes.txt", "text/plain", b"notes http://res.example/n\n"),
        ("conversion", "http://wet.example/", "text/plain", page(10, 5)),
        ("metadata", "http://a.example/", "application/warc-fields",
         b"outlink: http://outlink.example/ L a/@href\r\n"),
    ]


def write_warc(path, recs, compress):
    with open(path, "wb") as f:
        w = WARCWriter(f, gzip=compress)
        for kind, uri, ctype, block in recs:
            rec = w.create_warc_record(
                uri or "", kind, payload=io.BytesIO(block), length=len(block),
                warc_content_type=ctype,
            )
            w.write_record(rec)


def warcio_text(path, everything=False):
    """The text warcio reads out of the records linksieve scans, as UTF-8."""
    out = []
    with open(path, "rb") as f:
        for r in ArchiveIterator(f):
            uri = r.rec_headers.get_header("WARC-Target-URI") or ""
            ctype = r.rec_headers.get_header("Content-Type")
            if r.rec_type == "response" and r.http_headers:
                ctype = r.http_headers.get_header("Content-Type")
            elif r.rec_type not in ("resource", "conversion") and not everything:
                continue
            elif uri.lower().startswith("metadata:") and not everything:
                continue
            data = r.content_stream().read()
            if r.rec_type == "response":
                for _, value in links_of(r, body=data):
                    out.append(ada_url.join_url(uri, value))
            if binary(ctype) and not everything:
                continue
            if r.rec_type != "response" and r.http_headers:
                # `--warc-records all` scans other records' blocks whole, HTTP head included
                data = r.http_headers.to_bytes() + data
            out.append(data.decode(charset(ctype) or "utf-8", errors="replace"))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("compress", [False, True], ids=["warc", "warc.gz"])
def test_records_match_warcio(tmp_path, run, compress):
    warc = tmp_path / ("x.warc.gz" if compress else "x.warc")
    write_warc(warc, records(), compress)
    text = tmp_path / "oracle.txt"
    text.write_text(warcio_text(warc), encoding="utf-8")
    want = run("run", "-q", text, check_status=0).stdout.splitlines()
    assert len(want) > 400
    for chunk in ["4K", "64K", "1M"]:
        for j in ["1", "2"]:
            got = run("run", "-q", "--chunk-size", chunk, "-j", j, warc, check_status=0)
            assert got.stdout.splitlines() == want, (chunk, j)
    out = run("run", "-q", warc).stdout
    # cookies, request records, crawler logs and images are not content
    for host in ["cookie", "ref", "log", "png", "img", "outlink"]:
        assert f"{host}.example" not in out, host
    # a Link field, a redirect's Location, sitemaps (resolved against the target URI) are
    for key in ["http://header.example/", "http://m.example/new?x=1", "http://l.example/license",
                "http://m.example/sitemap.xml"]:
        assert key in out.splitlines(), key
    # and are left out when asked
    bare = run("run", "-q", "--no-record-links", warc).stdout.splitlines()
    assert "http://header.example/" not in bare and "http://m.example/new?x=1" not in bare
    assert "http://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C" in out
    assert "http://jp.example/2" in out


def test_all_records_match_warcio(tmp_path, run):
    warc = tmp_path / "x.warc.gz"
    write_warc(warc, records(), True)
    text = tmp_path / "oracle.txt"
    text.write_text(warcio_text(warc, everything=True), encoding="utf-8")
    want = run("run", "-q", text, check_status=0).stdout.splitlines()
    got = run("run", "-q", "--warc-records", "all", warc, check_status=0).stdout.splitlines()
    assert got == want
    for host in ["ref", "log", "img", "outlink"]:
        assert any(f"{host}.example" in k for k in got), host


def test_stats_name_the_codings(tmp_path, run):
    warc = tmp_path / "x.warc"
    write_warc(warc, records(), False)
    run("run", "-q", "--stats", tmp_path / "s.json", warc, check_status=0)

    s = json.loads((tmp_path / "s.json").read_text())
    codings = s["payload_codings"]
    assert codings["chunked"] == 4
    assert codings["gzip"] == 3
    assert codings["deflate"] == 2
    assert codings["br"] == 1
    assert codings["gzip declared, body not so (read as it is)"] == 1
    assert codings["chunked declared, body not so (read as it is)"] == 1
    skipped = s["bytes_skipped"]
    assert skipped["WARC resource records (metadata: target)"] > 0
    assert skipped["WARC resource records (media type without text)"] > 0
    assert skipped["WARC response records (media type without text)"] > 0


def test_content_length_past_the_end_is_reported(tmp_path, run):
    recs = records()[:4]
    warc = tmp_path / "cut.warc"
    write_warc(warc, recs, False)
    data = warc.read_bytes()
    warc.write_bytes(data[: len(data) - 300])
    p = run("run", warc)
    assert p.returncode == 1, p.stderr
    assert "Content-Length" in p.stderr and "input ends after" in p.stderr
    # what came before the cut is still keyed
    assert "http://site1.example/p/0?q=0" in p.stdout


def test_a_damaged_body_fails_its_record_not_the_next(tmp_path, run):
    body = gzip.compress(page(11))
    broken = body[:40] + bytes(b ^ 0x55 for b in body[40:80]) + body[80:]
    block = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: %d\r\n\r\n" % len(broken) + broken
    )
    recs = [
        ("response", "http://bad.example/", "application/http; msgtype=response", block),
        ("response", "http://good.example/", "application/http; msgtype=response",
         http_response(page(12), coding="gzip")),
    ]
    warc = tmp_path / "bad.warc.gz"
    write_warc(warc, recs, True)
    p = run("run", "--format", "jsonl", warc)
    assert p.returncode == 1, p.stderr
    assert "WARC record at byte 0 (http://bad.example/)" in p.stderr
    assert '"error"' in p.stdout and "http://bad.example/" in p.stdout
    assert "http://site12.example/p/39?q=468" in p.stdout


# --- a real crawl: wget writing WARC files of pages served on 127.0.0.1 ---

PAGES = 60


class Site(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    use_gzip = True

    def log_message(self, *args):
        pass

    def body(self, n):
        host, port = self.server.server_address[:2]
        here = f"http://{host}:{port}"
        links = [f"{here}/p/{(n * 7 + k) % PAGES}" for k in range(1, 4)]
        links += [f"https://ext{n}.example/a/{k}?from={n}" for k in range(25)]
        html = "".join(f'<a href="{u}">{u[-6:]}</a>\n' for u in links)
        return f"<!doctype html><title>{n}</title>{html}".encode(), links

    def do_GET(self):
        if self.path == "/":
            n = 0
        elif self.path.startswith("/p/"):
            n = int(self.path[3:])
        else:
            self.send_error(404)
            return
        body, links = self.body(n)
        self.server.served[self.path] = links
        gz = self.use_gzip and "gzip" in self.headers.get("Accept-Encoding", "")
        if gz:
            body = gzip.compress(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if gz:
            self.send_header("Content-Encoding", "gzip")
        if n % 2:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(chunked(body, 97))
        else:
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


@pytest.mark.parametrize("use_gzip", [True, False], ids=["gzip", "identity"])
def test_wget_crawl(tmp_path, run, use_gzip):
    handler = type("H", (Site,), {"use_gzip": use_gzip})
    with serving(handler, served={}) as server:
        host, port = server.server_address[:2]
        subprocess.run(
            ["wget", "-r", "-l", "inf", "-e", "robots=off", "-nv", "--compression=auto",
             "--no-proxy", f"--warc-file={tmp_path / 'crawl'}", "-P", str(tmp_path / "site"),
             "-o", str(tmp_path / "wget.log"), f"http://{host}:{port}/"],
            check=False, timeout=120,
        )
    # The links the server put in the pages it served.
    expected = set().union(*server.served.values())
    assert len(server.served) == PAGES + 1
    warc = tmp_path / "crawl.warc.gz"
    assert warc.exists()
    p = run("run", "--stats", tmp_path / "s.json", warc, check_status=0)
    got = p.stdout.splitlines()
    assert len(got) == len(set(got))
    assert set(got) == expected, (len(got), len(expected))
    # the crawl's root is only in wget's log and request records, never in a page
    assert f"http://{host}:{port}/" not in got
    # and warcio reading the same file agrees, in order
    text = tmp_path / "oracle.txt"
    text.write_text(warcio_text(warc), encoding="utf-8")
    assert run("run", "-q", text, check_status=0).stdout.splitlines() == got

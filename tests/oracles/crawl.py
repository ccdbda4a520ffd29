"""A real crawl of a folder of HTML: served on 127.0.0.1 by a server started here (and stopped),
crawled by wget into a WARC file. Used by the HTML oracle test and the outlinks benchmark.

  python tests/oracles/crawl.py SITE_DIR WARC_PREFIX [--gzip]

writes WARC_PREFIX.warc.gz (wget compresses its WARC files) and prints its path.
"""

import argparse
import contextlib
import functools
import gzip
import http.server
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; with `use_gzip`, HTML bodies are sent gzip-encoded to clients that accept
    it, and every other one chunked, so that the WARC holds both HTTP framings."""

    protocol_version = "HTTP/1.1"
    # headers and body leave at once (no 40 ms wait for a delayed ACK per response)
    disable_nagle_algorithm = True
    use_gzip = False

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() or not self.use_gzip or path.suffix != ".html" or not path.exists():
            return super().send_head()
        body = path.read_bytes()
        gz = "gzip" in self.headers.get("Accept-Encoding", "")
        if gz:
            body = gzip.compress(body, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if gz:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None


@contextlib.contextmanager
def serving(handler, **attrs):
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) with `handler`, its attributes `attrs`
    set: yields the server, and stops it (and its thread) however the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    for k, v in attrs.items():
        setattr(server, k, v)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class ProxyHandler(Handler):
    """`Handler` as an HTTP proxy for one virtual host: wget sends it absolute URLs
    (`GET http://NAME/path`), served from the folder by their path, so the WARC records name
    the host (no name is ever looked up)."""

    def translate_path(self, path):
        return super().translate_path(urlsplit(path).path or "/")


def crawl(site: Path, prefix: Path, use_gzip: bool, timeout: int = 900,
          host_name: str | None = None) -> Path:
    """Serves `site` on 127.0.0.1, crawls it with wget into `prefix`.warc.gz, stops the server.
    With `host_name`, the server is a proxy and the site is crawled as `http://host_name/`."""
    base = ProxyHandler if host_name else Handler
    handler = type("H", (base,), {"use_gzip": use_gzip})
    with serving(functools.partial(handler, directory=str(site))) as server:
        host, port = server.server_address[:2]
        if host_name:
            route = ["-e", "use_proxy=yes", "-e", f"http_proxy=http://{host}:{port}/"]
            start = f"http://{host_name}/index.html"
        else:
            route, start = ["--no-proxy"], f"http://{host}:{port}/index.html"
        subprocess.run(
            ["wget", "-r", "-l", "inf", "-e", "robots=off", "-nv", "--compression=auto",
             *route, "--no-parent", "--reject-regex", r"\.(png|jpg|gif|svg|woff2?|ttf)$",
             f"--warc-file={prefix}", "-P", str(prefix.parent / (prefix.name + "-site")),
             "-o", str(prefix.parent / (prefix.name + "-wget.log")), start],
            check=False, timeout=timeout,
        )
    warc = Path(str(prefix) + ".warc.gz")
    if not warc.exists():
        raise RuntimeError(f"wget wrote no {warc}")
    return warc


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("site", type=Path)
    ap.add_argument("prefix", type=Path)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--host", help="crawl the site as http://HOST/ (the server a proxy)")
    a = ap.parse_args()
    print(crawl(a.site, a.prefix.resolve(), a.gzip, host_name=a.host))
    sys.exit(0)

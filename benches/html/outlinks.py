"""HTML outlinks of a WARC file: linksieve against what corpus users run today, in one run.

  python benches/html/outlinks.py WARC [--runs N] [--linksieve PATH]

Each tool reads the WARC, finds the outlinks of every HTML response (the URL-valued
attributes of issue #20), resolves them against the document base (WHATWG, with the `ada-url`
package for both Python pipelines) and writes each resolved URL once:

- `warcio+lxml`: warcio's ArchiveIterator, `lxml.html` parsing and `iterlinks()`;
- `fastwarc+resiliparse`: FastWARC's ArchiveIterator and Resiliparse's HTML parser (lexbor),
  the fastest native pair on PyPI;
- `linksieve`: `linksieve run --html -j1 --rung string --input-mode web -q` (the string rung: each
  resolved URL as the URL Standard writes it).

Prints, per tool, the best wall time of N runs, MB/s of WARC, peak RSS (the child's, from
`wait4`), the number of distinct URLs, the agreement with linksieve (Jaccard) and the speed ratio
of linksieve to the tool. One core each: the Python tools are single-threaded; linksieve runs
with `-j1`.
"""

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

PY_WARCIO = r"""
import sys, re, ada_url, lxml.html
from warcio.archiveiterator import ArchiveIterator
seen = set()
out = sys.stdout
with open(sys.argv[1], 'rb') as f:
    for rec in ArchiveIterator(f):
        if rec.rec_type != 'response' or rec.http_headers is None:
            continue
        if 'html' not in (rec.http_headers.get_header('Content-Type') or '').lower():
            continue
        body = rec.content_stream().read()
        if not body.strip():
            continue
        url = rec.rec_headers.get_header('WARC-Target-URI')
        try:
            doc = lxml.html.document_fromstring(body)
        except Exception:
            continue
        base = url
        b = doc.find('.//base[@href]')
        if b is not None:
            try:
                base = ada_url.join_url(url, b.get('href').strip())
            except ValueError:
                pass
        for el, attr, link, pos in doc.iterlinks():
            if el.tag == 'base':
                continue
            try:
                u = ada_url.join_url(base, link.strip())
            except ValueError:
                continue
            if u not in seen:
                seen.add(u)
                out.write(u + '\n')
"""

PY_FASTWARC = r"""
import sys, ada_url
from fastwarc.warc import ArchiveIterator, WarcRecordType
from resiliparse.parse.html import HTMLTree
from resiliparse.parse.encoding import detect_encoding
TAGS = {'a': ('href', 'ping'), 'area': ('href', 'ping'), 'link': ('href', 'imagesrcset'),
        'img': ('src', 'srcset'), 'input': ('src', 'formaction'), 'button': ('formaction',),
        'script': ('src',), 'iframe': ('src',), 'frame': ('src',), 'embed': ('src',),
        'source': ('src', 'srcset'), 'track': ('src',), 'audio': ('src',),
        'video': ('src', 'poster'), 'form': ('action',), 'object': ('data',),
        'blockquote': ('cite',), 'q': ('cite',), 'del': ('cite',), 'ins': ('cite',)}
LISTS = {'srcset', 'imagesrcset', 'ping'}
seen = set()
out = sys.stdout
for rec in ArchiveIterator(open(sys.argv[1], 'rb'), record_types=WarcRecordType.response,
                           parse_http=True, auto_decode='all'):
    if 'html' not in (rec.http_content_type or ''):
        continue
    body = rec.reader.read()
    if not body.strip():
        continue
    # wget writes the target URI in angle brackets (WARC 1.0); warcio strips them
    url = rec.headers.get('WARC-Target-URI').strip('<>')
    tree = HTMLTree.parse_from_bytes(body, rec.http_charset or detect_encoding(body))
    base = url
    b = next((e for e in tree.document.get_elements_by_tag_name('base') if e.hasattr('href')), None)
    if b is not None:
        try:
            base = ada_url.join_url(url, b.getattr('href').strip())
        except ValueError:
            pass
    for tag, attrs in TAGS.items():
        for el in tree.document.get_elements_by_tag_name(tag):
            links = []
            for a in attrs:
                if not el.hasattr(a):
                    continue
                v = el.getattr(a)
                if a == 'ping':
                    links += v.split()
                elif a in LISTS:
                    links += [c.strip().split()[0] for c in v.split(',') if c.strip()]
                else:
                    links.append(v)
            for link in links:
                try:
                    u = ada_url.join_url(base, link.strip())
                except ValueError:
                    continue
                if u not in seen:
                    seen.add(u)
                    out.write(u + '\n')
"""


def measure(cmd):
    """(seconds, peak RSS bytes, stdout lines) of one run of `cmd`."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    if status != 0 and os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{cmd[0]} failed with status {status}")
    return secs, usage.ru_maxrss * 1024, out.decode("utf-8", "replace").splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("warc")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--linksieve", default=os.path.join(HERE, "../../target/release/linksieve"))
    a = ap.parse_args()
    size = os.path.getsize(a.warc)
    tools = {
        "linksieve": [a.linksieve, "run", "--html", "-j1", "--rung", "string", "--input-mode", "web",
                      "-q", a.warc],
        "fastwarc+resiliparse": [sys.executable, "-c", PY_FASTWARC, a.warc],
        "warcio+lxml": [sys.executable, "-c", PY_WARCIO, a.warc],
    }
    results = {}
    for name, cmd in tools.items():
        runs = [measure(cmd) for _ in range(a.runs)]
        best = min(runs, key=lambda r: r[0])
        results[name] = (best[0], max(r[1] for r in runs), set(best[2]))
    ls_secs, _, ls_set = results["linksieve"]
    print(f"WARC {a.warc}: {size / 1e6:.1f} MB, best of {a.runs} runs, one core each")
    print(f"{'tool':<22} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'URLs':>8} "
          f"{'Jaccard':>8} {'linksieve x':>12}")
    for name, (secs, rss, urls) in results.items():
        inter = len(urls & ls_set)
        union = len(urls | ls_set) or 1
        print(f"{name:<22} {secs:8.3f} {size / 1e6 / secs:8.1f} {rss / 1e6:12.1f} {len(urls):8d} "
              f"{inter / union:8.3f} {secs / ls_secs:12.1f}")


if __name__ == "__main__":
    main()

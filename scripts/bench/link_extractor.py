"""Scrapy's LinkExtractor against linksieve.scrapy.LinkExtractor on the pages of a folder:
each page is made an HtmlResponse (its text decoded beforehand, as a spider's callback finds
it), and only `extract_links` is timed; the two alternate, ROUNDS rounds each, in one process.
Prints each round's seconds, the links found (equal for both, or it fails) and the ratio of the
best rounds.

    python scripts/bench/link_extractor.py DIR [ROUNDS]

DIR: a folder of .html files (scripts/fetch-corpora.sh's html-docs); needs Scrapy and the
linksieve module installed (scripts/python-tests.sh makes such a venv under target/).
"""

import gc
import sys
import time
from pathlib import Path

from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor as ScrapyLinkExtractor

from linksieve.scrapy import LinkExtractor


def main():
    root = Path(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    pages = [(f"http://docs.example/{p.relative_to(root)}", p.read_bytes())
             for p in sorted(root.rglob("*.html"))]
    print(f"{len(pages)} pages, {sum(len(b) for _, b in pages) / 1e6:.1f} MB")
    gc.freeze()
    best, found = {}, {}
    for _ in range(rounds):
        for name, extractor in (("scrapy", ScrapyLinkExtractor()), ("linksieve", LinkExtractor())):
            total, n = 0.0, 0
            for url, body in pages:
                response = HtmlResponse(url, body=body)
                response.text  # noqa: B018 (decoded before the clock starts)
                t = time.perf_counter()
                n += len(extractor.extract_links(response))
                total += time.perf_counter() - t
            print(f"{name:9} {total:7.3f} s  {n} links")
            best[name] = min(best.get(name, total), total)
            found.setdefault(name, n)
    assert found["scrapy"] == found["linksieve"], found
    print(f"best: scrapy {best['scrapy']:.3f} s, linksieve {best['linksieve']:.3f} s, "
          f"ratio {best['scrapy'] / best['linksieve']:.2f}x")


if __name__ == "__main__":
    main()

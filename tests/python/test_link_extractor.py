"""`linksieve.scrapy.LinkExtractor` against Scrapy's own `LinkExtractor`: real Scrapy crawls
(`scrapy runspider`, a CrawlSpider kept to 127.0.0.1) of the Django documentation (the
html-docs corpus of scripts/fetch-corpora.sh, 692 pages) served on 127.0.0.1, one following
links with Scrapy's extractor, one with linksieve's: the same pages fetched, and on every page
of the second both extractors give the same links (URL, text, nofollow, order) under four sets
of options; and the texts of links in malformed markup, as lxml builds its tree."""

import functools
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor as ScrapyLinkExtractor

from linksieve.scrapy import LinkExtractor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracles"))
from crawl import Handler, serving  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPORA = Path(os.environ.get("LINKSIEVE_CORPORA", ROOT / "target/corpora"))

# `options` of each extractor pair the spider compares on every page (a Python literal)
OPTIONS = '''[
    {},
    {"tags": ("a", "area", "link"), "unique": False, "canonicalize": True},
    {"allow": r"/ref/", "deny": r"/contrib/", "deny_extensions": [], "restrict_text": r"\\w"},
    {"deny_domains": ["djangoproject.com"], "tags": "a", "attrs": ["href"],
     "process_value": lambda v: None if "#" in v else v},
]'''

SPIDER = r'''
import json

from scrapy.linkextractors import LinkExtractor as ScrapyLinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from linksieve.scrapy import LinkExtractor

OPTIONS = __OPTIONS__
PAIRS = [(ScrapyLinkExtractor(**o), LinkExtractor(**o)) for o in OPTIONS]


class DocsSpider(CrawlSpider):
    name = "docs"
    # nothing leaves 127.0.0.1 (the pages link to the web)
    allowed_domains = ["127.0.0.1"]

    def __init__(self, start, out, which, **kwargs):
        self.start_urls = [start]
        self.out = out
        self.compare = which == "linksieve"
        extractor = LinkExtractor() if self.compare else ScrapyLinkExtractor()
        self.rules = (Rule(extractor, callback="parse_page", follow=True),)
        super().__init__(**kwargs)

    def parse_start_url(self, response):
        return self.parse_page(response)

    def parse_page(self, response):
        row = {"url": response.url, "fast": [ours.fast for _, ours in PAIRS], "links": []}
        for theirs, ours in PAIRS if self.compare else []:
            a = [(l.url, l.text, l.nofollow) for l in theirs.extract_links(response)]
            b = [(l.url, l.text, l.nofollow) for l in ours.extract_links(response)]
            row["links"].append(len(a))
            if a != b:
                row.setdefault("differ", []).append([a, b])
        with open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        return []
'''.replace("__OPTIONS__", OPTIONS)


@pytest.fixture(scope="module")
def site():
    path = CORPORA / "html-docs" / "django"
    assert path.is_dir(), f"{path}: run scripts/fetch-corpora.sh (scripts/test.sh does)"
    return path


def crawl(tmp, site, which):
    """Pages fetched by a CrawlSpider whose rule follows `which` extractor's links: url ->
    row (following linksieve's: the links each extractor pair gave, and any difference)."""
    spider = tmp / "docs_spider.py"
    spider.write_text(textwrap.dedent(SPIDER), encoding="utf-8")
    out = tmp / f"{which}.jsonl"
    with serving(functools.partial(Handler, directory=str(site))) as server:
        host, port = server.server_address[:2]
        p = subprocess.run(
            [sys.executable, "-m", "scrapy", "runspider", str(spider),
             "-a", f"start=http://{host}:{port}/index.html", "-a", f"out={out}",
             "-a", f"which={which}", "-s", "LOG_LEVEL=WARNING",
             "-s", "TELNETCONSOLE_ENABLED=False", "-s", "REMOTE_CONTROL_ENABLED=False",
             "-s", "ROBOTSTXT_OBEY=False", "-s", "CONCURRENT_REQUESTS=32",
             "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=32"],
            capture_output=True, text=True, timeout=600, cwd=tmp,
        )
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {row["url"].split("/", 3)[3]: row for row in rows}


def test_a_crawl_fetches_the_same_pages_and_every_page_the_same_links(tmp_path, site):
    theirs = crawl(tmp_path, site, "scrapy")
    ours = crawl(tmp_path, site, "linksieve")
    assert set(ours) == set(theirs)
    assert len(ours) >= 600, len(ours)
    for row in ours.values():
        assert all(row["fast"]), row["fast"]  # linksieve read every page, under every option
        assert "differ" not in row, (row["url"], row["differ"][0])
    assert sum(sum(row["links"]) for row in ours.values()) > 50_000


# Markup whose tree libxml2 builds by its HTML 4 rules (the text is each element's `string()`)
MARKUP = [
    "<a href=x>foo <b>bar</b> baz</a>", "<div><a href=x>foo</div>after",
    "<a href=x>one<a href=y>two</a>", "<a href=x>a &amp; b &check; &nbsp;c &amp d &ampx</a>",
    "<a href=x>x\r\ny\rz</a>", "<a href=x><p>para</p>tail</a>",
    "<a href=x>t<script>var s='<b>';</script>u</a>", "<a href=x>t<!-- c -->u</a>",
    "<p><a href=x>foo<p>bar</a>", "<table><tr><td><a href=x>foo</td><td>bar</td></tr></table>",
    "<a href=x>foo<span>bar", "<a href=x>foo</span>bar</a>", "<a href=x>foo<br>bar</a>",
    "<ul><li><a href=x>one<li>two</ul>", "<a href=x>foo<table><tr><td>c</td></tr></table>d</a>",
    "<a href=x>foo<textarea>t<b>x</textarea>bar</a>", "<span><a href=x>foo</span>bar</a>",
    "<a href=x>foo<p>bar<a href=y>baz</a>", "<a href=x>&#x41;&#65;&#0;&#128;</a>",
    "<a href=x>foo<option>o<a href=y>q</a>", "<b><a href=x>foo</b>bar</a>",
    "<a href=x>foo<!DOCTYPE html>bar</a>", "<a href=x>foo<?php x ?>bar</a>",
    "<a href=x>foo<3 bar</a>", "<a href=x>foo</ a>bar</a>", "<a href=x>foo</body>bar</a>",
    "<a href=x>foo</div>bar</a>", "<a href='x'/>foo", "<a href=x/>foo</a>",
    "<div><a href=x>a<div>b</div>c</div>d</a>", "<td><a href=x>a<tr>b</a>",
    "<a href=x>a<!--->b<!-->c<!-- x --!>d</a>", "<a href=x title='>'>a</a>b",
    "<html><body><a href=x>a</body><body>b</a>", "<a href=x>a<plaintext>b</a>c",
    "<a rel='noFollow ugc' href=x>a</a><area href=y rel=nofollow>",
    # a misplaced html/head/body tag closed by `/>` closes the current element
    "<a href=x>f<head/>g</a><a href=y>h</a>", "<html><body><a href=x>f<body/>g</a>",
    "<html><body><a href=x>f<html/>g<head/>i</a>j", "<a href=x><span>f<head/>g</span>k</a>l",
    "<a href=x>f<head>g</a>",
    # script data escapes (HTML5 tokenizer): the first `</script>` inside `<!--<script>` is text
    "<script><!--<script></script><a href=x>in</a>--></script><a href=y>out</a>",
    "<script><!--<script>--></script><a href=x>b</a></script><a href=y>c</a>",
    "<a href=y>t<script><!--<script></script><td>--></script>u</a>",
    "<a href=y>t<script><!--<script></script>x</script>u</a>",
    "<a href=y>t<script><!-- <b> </script>u</a>", "<a href=y>t<script><!--></script>u</a>",
    "<a href=y>t<script><!--<script>--></script>v</script>u</a>",
    "<a href=y>t<script><!--<scriptx></script>u</a>", "<a href=y>t<script><!--<script></script>",
    "<a href=y>t<script><!---></script>u</a>", "<a href=y>t<script>a<!--b-->c</script>u</a>",
    "<a href=y>t<script><!--<script>-- ></script>v</script>u</a>",
    "<a href=y>t<script><!--<SCRIPT/></script>v</script>u</a>",
    "<a href=y>t<script><!--<script></scripT x>v</script>u</a>",
    "<a href=y>t<script><!--<script></script>--></script>u</a>",
    # foreign content, which libxml2 does not have: in its tree a `title` or `style` inside
    # `<svg>` holds text, an `<a>` inside `<math>` is an element
    "<svg><title><a href=x>t</a></title></svg><a href=y>y</a>",
    "<svg><style><a href=x>t</a></style></svg><a href=y>y</a>",
    "<svg><a href=x>s</a><foreignObject><a href=y>f</a></foreignObject></svg>",
    "<math><mi><a href=x>mi</a></mi></math><svg><image href=i.png /></svg>",
    "<svg><![CDATA[<a href=x>c</a>]]></svg><a href=y>y</a>",
    "<math><textarea><li><style></textarea><area href=ar>",
    "<svg><desc><a href=x>d</a></desc><style><a href=y>s</a></style></svg><a href=z>z</a>",
    # after `</html>` closed the root, libxml2 starts another root element, which Scrapy does
    # not read: no link there
    "<p><a href=x>a</a></p></html>\n<script>s</script><a href=y>b</a>",
    "<html><body><div></body></html><a href=y>b</a></html><a href=z>c</a>",
    "<p>t</body>u<a href=x>a</a></p>", "</html><a href=x>a</a>", "<head></head></html>",
    "<p>x<html lang=en></html><a href=y>b</a>",
    # parsel strips the page (Python's white space) and removes NUL before lxml reads it
    "<a href=x>a b \n", "<a href=x>a&#32; ", "<a href=x>a\xa0\x0c", "<a href=x>a<textarea>s \n",
    "\u2003<a href=x>a</a>", "<a href='x\x00y'>a\x00b</a>", "<a href=x>a&#0;b</a>",
]


# Pieces of generated pages: tags whose tree rules differ (libxml2's start-close table, raw text
# and RCDATA elements, misplaced html/head/body, `<base>`, SVG and MathML, which libxml2 reads
# as HTML), broken markup, text and references.
PIECES = [
    "<svg>", "</svg>", "<math>", "</math>", "<image href=im>", "<mi>", "<foreignObject>",
    "<![CDATA[",
    "<a href=x>", "<a href='y z'>", "</a>", "<p>", "</p>", "<div>", "</div>", "<td>", "<tr>",
    "<table>", "</table>", "<li>", "<ul>", "</ul>", "<b>", "</b>", "<span>", "</span>", "<br>",
    "<br/>", "<script>", "</script>", "<!--", "-->", "<style>", "</style>", "<textarea>",
    "</textarea>", "<title>", "</title>", "<head>", "<head/>", "<body>", "</body>", "<html>",
    "</html>", "<img src=i.png>", "<area href=ar>", "<link href=l.css>", "text", "é", "&amp;",
    "&nbsp;", " ", "\n", "<", ">", "/>", "<!DOCTYPE html>", "<?x?>", "<option>", "<select>",
    "</select>", "<form>", "</form>", "<h1>", "</h1>", "<dl>", "<dt>", "<dd>", "<iframe>",
    "</iframe>", "<noscript>", "</noscript>", "<a href=\"q\" rel=nofollow>",
    "<base href='http://o.test/b/'>", "<plaintext>", "<xmp>", "</xmp>", "<caption>", "<col>",
    "<colgroup>", "<tbody>", "<th>", "<font>", "<center>", "<object>", "</object>", "<applet>",
    "<embed src=e>", "<frameset>", "<frame src=f>", "<noframes>", "</noframes>", "<noembed>",
    "</noembed>", "<template>", "</template>",
]


def test_generated_pages_give_scrapys_links():
    """3,000 pages of random pieces (a fixed seed), each read by both extractors."""
    rng = random.Random(34)
    for _ in range(3000):
        page = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))
        response = HtmlResponse("http://h.example/d/", body=page.encode(), encoding="utf-8")
        theirs = [(l.url, l.text, l.nofollow)
                  for l in ScrapyLinkExtractor().extract_links(response)]
        ours = [(l.url, l.text, l.nofollow) for l in LinkExtractor().extract_links(response)]
        assert ours == theirs, page


@pytest.mark.parametrize("markup", MARKUP)
def test_link_texts_are_lxmls(markup):
    response = HtmlResponse("http://h.example/d/", body=markup.encode(), encoding="utf-8")
    theirs = [(l.url, l.text, l.nofollow) for l in ScrapyLinkExtractor().extract_links(response)]
    ours = [(l.url, l.text, l.nofollow) for l in LinkExtractor().extract_links(response)]
    assert ours == theirs


def test_scrapys_own_code_where_linksieve_would_find_other_attributes():
    assert LinkExtractor().fast
    assert LinkExtractor(tags=("a", "area", "img"), deny_tags="img").fast
    for slow in [dict(restrict_css="div"), dict(restrict_xpaths="//div"), dict(strip=False),
                 dict(tags="*"), dict(attrs="*"), dict(tags="img", attrs="srcset"),
                 dict(tags=("a", "img"), attrs=("href", "src"))]:
        assert not LinkExtractor(**slow).fast, slow

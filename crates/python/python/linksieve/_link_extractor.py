"""``linksieve.scrapy.LinkExtractor``: Scrapy's ``LinkExtractor`` (``LxmlLinkExtractor``) with
every option of its own, whose pages are read by linksieve instead of lxml.

Scrapy parses each page into an lxml tree, walks every element of it in Python and gives each
link its element's text (XPath ``string()``). Here linksieve's HTML reader (HTML5 tokenization,
in Rust) finds the attributes and the texts of their elements as lxml's tree holds them
(libxml2's HTML 4 tree rules: ``<td>`` closes an open ``<a>``, ...); the rest is Scrapy's own
code, called as Scrapy calls it: the base URL (``get_base_url``), each value joined and made
safe (``urljoin``, ``safe_url_string``, ``urljoin``), ``process_value``, the filters (``allow``,
``deny``, domains, extensions, ``restrict_text``), ``canonicalize`` and ``unique``. A value seen
twice on a page is joined once.

Scrapy's own code path is taken, whole, where linksieve would not find the same attributes:
``restrict_xpaths`` or ``restrict_css``, ``strip=False``, ``'*'`` in ``tags`` or ``attrs``, or a
tag and attribute pair whose value HTML does not define as one URL (``img``/``srcset``, ``a``/
``src``...). What still differs where the page is malformed is listed in ``docs/python.md``.

>>> from scrapy.http import HtmlResponse
>>> from linksieve.scrapy import LinkExtractor
>>> page = b'<a href="/a" rel="nofollow">one <b>two</b></a><a href="b.html">three</a>'
>>> response = HtmlResponse("http://example.com/x/", body=page, encoding="utf-8")
>>> [(link.url, link.text, link.nofollow) for link in LinkExtractor().extract_links(response)]
[('http://example.com/a', 'one two', True), ('http://example.com/x/b.html', 'three', False)]
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlparse

from scrapy.link import Link
from scrapy.linkextractors import _is_valid_url, _matches
from scrapy.linkextractors.lxmlhtml import LxmlLinkExtractor
from scrapy.linkextractors.lxmlhtml import _identity as _scrapy_identity
from scrapy.utils.misc import rel_has_nofollow
from scrapy.utils.python import unique as unique_list
from scrapy.utils.response import get_base_url
from scrapy.utils.url import url_is_from_any_domain
from w3lib.url import canonicalize_url, safe_url_string

import linksieve

if TYPE_CHECKING:
    from scrapy.http import TextResponse

_PROBE = '<{tag} {attr}="v w" rel="nofollow">'


def _one_url(tag: str, attr: str) -> bool:
    """linksieve finds attribute ``attr`` of element ``tag`` whole, as one URL (not split as a
    ``srcset`` or a ``ping``, not read as a ``<meta>`` refresh), with the element's ``rel``."""
    found = [
        link
        for link in linksieve.extract(_PROBE.format(tag=tag, attr=attr), html=True)
        if link.kind == "attribute"
    ]
    return len(found) == 1 and found[0].text == "v w" and found[0].rel == "nofollow"


class LinkExtractor(LxmlLinkExtractor):
    """A drop-in for ``scrapy.linkextractors.LinkExtractor``: the same options and the same
    :class:`scrapy.link.Link` objects (URL, text, ``nofollow``), in the same order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        le = self.link_extractor
        self._extensions = tuple(self.deny_extensions)
        # the tag and attribute names, as Scrapy 2.17+ keeps them (`partial(_name_matches, ...)`)
        tag_names = getattr(le.scan_tag, "args", None)
        attr_names = getattr(le.scan_attr, "args", None)
        #: Whether linksieve reads the pages (else Scrapy's own code does, whole).
        self.fast = False
        if tag_names is None or attr_names is None or self.restrict_xpaths or not le.strip:
            return
        (tags, deny_tags), (attrs, deny_attrs) = tag_names, attr_names
        pairs = product(tags - deny_tags, attrs - deny_attrs)
        self.fast = "*" not in tags and "*" not in attrs and all(_one_url(t, a) for t, a in pairs)

    def extract_links(self, response: TextResponse) -> list[Link]:
        """The links of ``response``, as Scrapy's ``extract_links`` gives them."""
        if not self.fast:
            return super().extract_links(response)
        links = self._process_links(self._links(response))
        if self.link_extractor.unique:
            return unique_list(links, key=self.link_extractor.link_key)
        return links

    def _links(self, response: TextResponse) -> list[Link]:
        """``LxmlParserLinkExtractor._extract_links`` with linksieve's reading of the page."""
        le = self.link_extractor
        base_url, url_of = get_base_url(response), response.url
        encoding = response.encoding
        process = le.process_attr
        # Scrapy's default `process_value` is pure: a value's URL is the same each time
        cache = process is _scrapy_identity
        joined: dict[str, str | None] = {}
        links = []
        # the text lxml reads: parsel's `create_root_node` strips the page (Python's white
        # space, U+00A0 included) and removes NUL characters before parsing it
        text = response.text.strip().replace("\x00", "")
        for found in linksieve.extract(text, html=True, element_text=True):
            tag, attr = found.tag, found.attr
            if tag is None or attr is None or not le.scan_tag(tag) or not le.scan_attr(attr):
                continue
            if found.element_text is None:
                # no element of the tree Scrapy reads: after `</html>` closed the root element
                # (libxml2 starts a second root there), or a tag libxml2 reads as text
                continue
            value = found.text
            if cache and value in joined:
                url = joined[value]
            else:
                url = _join(value, base_url, url_of, encoding, process)
                if cache:
                    joined[value] = url
            if url is None:
                continue
            links.append(Link(url, found.element_text, nofollow=rel_has_nofollow(found.rel)))
        return le._deduplicate_if_needed(links)

    def _link_allowed(self, link: Link) -> bool:
        """Scrapy's ``_link_allowed``, the same tests in the same order; the extensions in one
        ``str.endswith`` (Scrapy's ``url_has_any_extension`` tries them one by one)."""
        url = link.url
        if not _is_valid_url(url):
            return False
        if self.allow_res and not _matches(url, self.allow_res):
            return False
        if self.deny_res and _matches(url, self.deny_res):
            return False
        parsed_url = urlparse(url)
        if self.allow_domains and not url_is_from_any_domain(parsed_url, self.allow_domains):
            return False
        if self.deny_domains and url_is_from_any_domain(parsed_url, self.deny_domains):
            return False
        if self._extensions and parsed_url.path.lower().endswith(self._extensions):
            return False
        return not self.restrict_text or _matches(link.text, self.restrict_text)

    def _process_links(self, links: list[Link]) -> list[Link]:
        """Scrapy's filters, with each URL's answer kept for the page (all but
        ``restrict_text`` read the URL alone)."""
        if self.restrict_text:
            kept = [link for link in links if self._link_allowed(link)]
        else:
            allowed: dict[str, bool] = {}
            kept = []
            for link in links:
                ok = allowed.get(link.url)
                if ok is None:
                    ok = allowed[link.url] = self._link_allowed(link)
                if ok:
                    kept.append(link)
        if self.canonicalize:
            for link in kept:
                link.url = canonicalize_url(link.url)
        return self.link_extractor._process_links(kept)


def _join(value: str, base_url: str, response_url: str, encoding: str, process: Any) -> str | None:
    """A value's URL as Scrapy makes it, or None where Scrapy skips the link."""
    try:
        joined = urljoin(base_url, value)
    except ValueError:
        return None
    url = process(joined)
    if url is None:
        return None
    try:
        url = safe_url_string(url, encoding=encoding)
    except ValueError:
        return None
    return urljoin(response_url, url)

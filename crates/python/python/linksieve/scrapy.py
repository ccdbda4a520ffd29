"""Scrapy drop-ins: a request fingerprinter whose URL is canonicalized by linksieve, a
dupefilter that keeps 16 bytes a request (in memory) or a persistent store under ``JOBDIR``,
and :class:`LinkExtractor`, Scrapy's link extractor with its options, whose pages linksieve
reads (``from linksieve.scrapy import LinkExtractor``; see ``linksieve._link_extractor``).

In ``settings.py``::

    REQUEST_FINGERPRINTER_CLASS = "linksieve.scrapy.RequestFingerprinter"
    DUPEFILTER_CLASS = "linksieve.scrapy.DupeFilter"

Settings (all optional):

``LINKSIEVE_PROFILE``
    The profile that canonicalizes the URL (default ``"w3lib"``: fingerprints byte-identical to
    Scrapy's default fingerprinter, so an existing ``JOBDIR`` keeps working). ``None`` (or an
    empty string) with ``LINKSIEVE_RUNG`` uses the comparison ladder instead.
``LINKSIEVE_RUNG``, ``LINKSIEVE_INPUT_MODE``
    The rung (``"syntax"``, ``"scheme"``, ``"protocol"``) and input mode (default ``"web"``) of
    ladder keys, when ``LINKSIEVE_PROFILE`` is None; the fingerprint drops the key's
    fragment, as Scrapy's recipe does. ``LINKSIEVE_LEVEL`` and ``LINKSIEVE_INPUT``, their old
    names, are still read when the new ones are not set.
``LINKSIEVE_DUPEFILTER_KIND``
    ``"memory"`` (default without ``JOBDIR``), ``"approx"`` (a Bloom filter: a duplicate is
    never fetched twice, a new request is dropped with probability ``LINKSIEVE_FP_RATE``) or
    ``"persistent"`` (default under ``JOBDIR``: ``JOBDIR/requests.seen.linksieve``, bounded
    memory). The persistent store's keys count once the crawl closes cleanly, when Scrapy
    writes its request queue's state: a crawl killed before that is resumed with its
    requests new again, so every page plain Scrapy would fetch is fetched (some twice, none
    lost). ``memory`` and ``approx`` under ``JOBDIR`` keep nothing: a warning says so.
``LINKSIEVE_EXPECTED``, ``LINKSIEVE_FP_RATE``
    The size of the ``approx`` filter (default 10,000,000 requests, 0.001).
``LINKSIEVE_REDIS_URL``
    A seen-set shared by every process of the crawl on a Redis or Valkey server (kind
    ``"redis"``, a drop-in for scrapy-redis's ``RFPDupeFilter``, which it also replaces under
    scrapy-redis's scheduler): ``redis://HOST:PORT/DB?prefix=NAME`` (``%(spider)s`` in it is the
    spider's name; without ``prefix=`` it is ``SPIDER-dupefilter``). See ``docs/python.md``.

Redirects: the dupefilter reads ``redirect_urls`` and ``redirect_reasons`` of ``request.meta``
(set by Scrapy's ``RedirectMiddleware``): a redirect target equal to a request of its own
chain is fetched (scrapy#1225), and the sources of 301 and 308 redirects are recorded as seen.
A retried request is ``dont_filter``, and Scrapy's ``RedirectMiddleware`` passes that on to
its redirect target, which then skips the dupefilter (scrapy#6895); the target of a
``dont_filter`` start URL does too, so its 301 source, found again as a link, is fetched again.
:class:`Scheduler` filters the first and records the second's 301/308 sources::

    SCHEDULER = "linksieve.scrapy.Scheduler"

>>> from scrapy import Request
>>> from linksieve.scrapy import RequestFingerprinter
>>> from scrapy.utils.request import fingerprint
>>> request = Request("http://Example.com:80/a?b=1&a=2#top")
>>> RequestFingerprinter().fingerprint(request) == fingerprint(request)
True
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import weakref
from typing import TYPE_CHECKING, Any, cast

from w3lib.url import canonicalize_url

import linksieve

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

STORE_FILE = "requests.seen.linksieve"


def __getattr__(name: str) -> Any:
    # `LinkExtractor` subclasses Scrapy's: imported when it is first asked for
    if name == "LinkExtractor":
        from ._link_extractor import LinkExtractor

        return LinkExtractor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Under JOBDIR the store records its unsynced keys once this many new requests wait (they
#: still count only once the crawl closes cleanly): one disk commit a 100,000 new requests.
COMMIT_KEYS = 100_000


class RequestFingerprinter:
    """Scrapy's fingerprint recipe (SHA-1 of the JSON of method, canonical URL, body and no
    headers; ``verbatim_url`` honoured) with the URL canonicalized by linksieve.

    With the default ``w3lib`` profile the fingerprints are those of
    ``scrapy.utils.request.fingerprint``, byte for byte. A URL the profile refuses is handed to
    ``w3lib.url.canonicalize_url`` itself, so an error is Scrapy's own.
    """

    def __init__(
        self,
        crawler: Crawler | None = None,
        *,
        profile: str | None = "w3lib",
        rung: str | None = None,
        input_mode: str | None = None,
        level: str | None = None,
        input: str | None = None,
    ) -> None:
        # `level` and `input`: the old names of `rung` and `input_mode`
        rung, input_mode = rung or level, input_mode or input or "web"
        if crawler is not None:
            s = crawler.settings
            # `Settings.get` answers its default for a setting set to None: read it directly
            if "LINKSIEVE_PROFILE" in s:
                profile = s["LINKSIEVE_PROFILE"]
            rung = s.get("LINKSIEVE_RUNG") or s.get("LINKSIEVE_LEVEL") or rung
            input_mode = s.get("LINKSIEVE_INPUT_MODE") or s.get("LINKSIEVE_INPUT") or input_mode
        profile = profile or None
        if profile is None and rung is None:
            raise ValueError("RequestFingerprinter: set LINKSIEVE_PROFILE or LINKSIEVE_RUNG")
        options: dict[str, Any] = {"profile": profile} if profile else {"rung": rung, "input_mode": input_mode}
        self._normalize = linksieve.Normalizer(**options)  # a bad option fails here, once
        self._ladder = profile is None
        self._cache: weakref.WeakKeyDictionary[Request, bytes] = weakref.WeakKeyDictionary()
        ident = linksieve.identity(**({"profile": profile} if profile else {"rung": rung}))
        #: What the fingerprints are: the recipe and the key identity (stored by DupeFilter).
        recipe = ident["profile"] or f"{ident['rung']}/{input_mode}"
        self.identity = f"scrapy-sha1 {recipe}"

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RequestFingerprinter:
        return cls(crawler)

    def canonical_url(self, url: str) -> str:
        """The URL as the fingerprint sees it: without its fragment, as in Scrapy's recipe
        (``keep_fragments=False``)."""
        try:
            key = self._normalize(url)
        except linksieve.NormalizeError:
            if self._ladder:
                raise
            # the profile refuses what its library refuses: the library raises Scrapy's error
            return canonicalize_url(url)
        if self._ladder:
            # a ladder key keeps the fragment; its first "#" is the delimiter (a "#" in the
            # path or query is percent-encoded in a key), so the page is fetched once
            key = key.partition("#")[0]
        return key

    def fingerprint(self, request: Request) -> bytes:
        """The 20-byte SHA-1 fingerprint of the request."""
        fp = self._cache.get(request)
        if fp is None:
            if request.meta.get("verbatim_url"):
                url = request.url
            else:
                url = self.canonical_url(request.url)
            data = {
                "method": str(request.method),
                "url": url,
                "body": (request.body or b"").hex(),
                "headers": {},
            }
            fp = hashlib.sha1(json.dumps(data, sort_keys=True).encode()).digest()  # noqa: S324
            self._cache[request] = fp
        return fp


def _read_scrapy_seen(path: str) -> list[bytes]:
    """The fingerprints of Scrapy's own ``requests.seen`` (length-prefixed, or hex lines)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        from scrapy.dupefilters import _read_fingerprints

        return list(_read_fingerprints(data))
    except ImportError:
        return [bytes.fromhex(line.decode("ascii")) for line in data.split() if line]


def _fsync_tree(folder: str) -> None:
    """Makes the files of `folder` (Scrapy's request queue) and their names durable, best
    effort: the store's record then never runs ahead of the queue's, even after a power cut."""
    for root, _dirs, files in os.walk(folder):
        for name in [*files, "."]:
            try:
                fd = os.open(os.path.join(root, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fsync(fd)
            except OSError:
                pass
            finally:
                os.close(fd)


def _set_aside_unclean_queue(jobdir: str, logger: logging.Logger) -> None:
    """Moves aside ``JOBDIR/requests.queue`` when a crawl left it without ``active.json``
    (Scrapy writes that file only at a clean close, so the crawl was killed).

    Scrapy starts such a crawl over without that queue's state, but reopens its files when it
    pushes at the same slot and priority. A file the kill cut (its 4-byte header still in
    Python's buffer) then stops the resumed crawl with ``struct.error`` after its first
    request. The persistent store counts that crawl's requests as new again, so the resumed
    crawl finds them from its start requests. The folder is renamed
    (``requests.queue.unclean-N``), never deleted.
    """
    queue = os.path.join(jobdir, "requests.queue")
    if not os.path.isdir(queue) or os.path.exists(os.path.join(queue, "active.json")):
        return
    if not os.listdir(queue):
        return
    n = 0
    while os.path.exists(f"{queue}.unclean-{n}"):
        n += 1
    aside = f"{queue}.unclean-{n}"
    os.rename(queue, aside)
    os.makedirs(queue)
    logger.warning(
        "linksieve: %s was left by a crawl that did not close (no active.json): moved to %s;"
        " the crawl starts over from its start requests, and the store counts that crawl's"
        " requests as new",
        queue,
        aside,
    )


class DupeFilter:
    """``request_seen`` through a :class:`linksieve.SeenSet` of request fingerprints.

    In memory by default (16 bytes a request in the table, about 22 with its free slots); under
    ``JOBDIR`` a persistent store, ``JOBDIR/requests.seen.linksieve``, that records which
    fingerprinter made its keys and refuses another. A ``JOBDIR`` that has Scrapy's own
    ``requests.seen`` and no store yet is imported once. Counts ``dupefilter/filtered`` and
    ``linksieve/seen`` in Scrapy's stats and logs as ``RFPDupeFilter`` does.
    """

    def __init__(
        self,
        path: str | None = None,
        debug: bool = False,
        *,
        fingerprinter: Any = None,
        kind: str | None = None,
        expected: int = 10_000_000,
        fp_rate: float = 0.001,
        stats: Any = None,
        redis_url: str | None = None,
    ) -> None:
        self.fingerprinter = fingerprinter or RequestFingerprinter()
        self.debug = debug
        self.logdupes = True
        self.stats = stats
        self.logger = logging.getLogger(__name__)
        kind = kind or ("redis" if redis_url else "persistent" if path else "memory")
        namespace = getattr(self.fingerprinter, "identity", None) or (
            f"{type(self.fingerprinter).__module__}.{type(self.fingerprinter).__qualname__}"
        )
        self.jobdir = path
        if kind == "persistent":
            if not path:
                raise ValueError("DupeFilter: kind 'persistent' needs JOBDIR")
            store = os.path.join(path, STORE_FILE)
            legacy = os.path.join(path, "requests.seen")
            if not os.path.exists(store) and os.path.exists(legacy):
                # Scrapy's own record: seen for good (a run of its own, finished at once)
                with linksieve.SeenSet("persistent", store, namespace=namespace) as seen:
                    n = seen.add_many(_read_scrapy_seen(legacy)).count(True)
                self.logger.info("linksieve: imported %d fingerprints of %s", n, legacy)
            # The keys of this crawl count once close() finishes the run, after Scrapy wrote its
            # queue's state; a killed crawl's keys are new again (its queue is lost too). So
            # nothing needs to be durable before then: a request costs no disk commit, and a
            # sync every COMMIT_KEYS new requests only bounds the memory of unsynced keys.
            self.seen = linksieve.SeenSet(
                "persistent", store, namespace=namespace, commit=COMMIT_KEYS, abandoned="new"
            )
            # after the store opened (a JOBDIR in use by another crawl is refused before this)
            _set_aside_unclean_queue(path, self.logger)
        elif kind == "redis":
            if not redis_url:
                raise ValueError("DupeFilter: kind 'redis' needs LINKSIEVE_REDIS_URL")
            self.seen = linksieve.SeenSet("redis", url=redis_url, namespace=namespace)
            if self.seen.warning:
                self.logger.warning("linksieve: %s", self.seen.warning)
        else:
            if path:
                self.logger.warning(
                    "linksieve: LINKSIEVE_DUPEFILTER_KIND=%r keeps nothing under JOBDIR: a resumed"
                    " crawl fetches again what this one fetched (use 'persistent')",
                    kind,
                )
            if kind == "approx":
                self.seen = linksieve.SeenSet("approx", expected=expected, fp_rate=fp_rate)
            else:
                # any other kind is SeenSet's to refuse (a ValueError naming the kinds)
                self.seen = linksieve.SeenSet(cast(Any, kind))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DupeFilter:
        from scrapy.utils.job import job_dir

        s = crawler.settings
        redis_url = s.get("LINKSIEVE_REDIS_URL") or None
        if redis_url:
            spidercls = getattr(crawler, "spider", None) or getattr(crawler, "spidercls", None)
            spider = getattr(spidercls, "name", None) or "spider"
            redis_url = redis_url.replace("%(spider)s", spider)
            if "prefix=" not in redis_url:
                redis_url += ("&" if "?" in redis_url else "?") + f"prefix={spider}-dupefilter"
        return cls(
            job_dir(s),
            s.getbool("DUPEFILTER_DEBUG"),
            fingerprinter=crawler.request_fingerprinter,
            kind=s.get("LINKSIEVE_DUPEFILTER_KIND"),
            expected=s.getint("LINKSIEVE_EXPECTED", 10_000_000),
            fp_rate=s.getfloat("LINKSIEVE_FP_RATE", 0.001),
            stats=crawler.stats,
            redis_url=redis_url,
        )

    @classmethod
    def from_spider(cls, spider: Spider) -> DupeFilter:
        """scrapy-redis's scheduler makes its dupefilter with this."""
        return cls.from_crawler(spider.crawler)

    def clear(self) -> None:
        """Forgets every request, for every process (scrapy-redis's scheduler calls it at close
        unless ``SCHEDULER_PERSIST``); only with ``LINKSIEVE_REDIS_URL``."""
        self.seen.clear()

    def open(self) -> None:
        pass

    def request_seen(self, request: Request) -> bool:
        """True when an equal request was seen (this one is then dropped). A redirect target
        (``redirect_urls`` in its meta) equal to a request of its own chain is never seen, and
        the sources of its chain's 301 and 308 redirects are recorded as seen."""
        fp = self.fingerprinter.fingerprint(request)
        chain = self._chain(request)
        new = self.seen.add(fp, chain=chain) if chain else self.seen.add(fp)
        if new and self.stats is not None:
            self.stats.inc_value("linksieve/seen")
        return not new

    def _chain(self, request: Request) -> list[tuple[bytes, Any]]:
        """The fingerprints of the request's redirect chain (``redirect_urls``, with the
        method and body of this request: a link found later is a GET) and their statuses."""
        urls = request.meta.get("redirect_urls") or []
        reasons = list(request.meta.get("redirect_reasons") or [])
        reasons += [None] * (len(urls) - len(reasons))
        return [
            (self.fingerprinter.fingerprint(request.replace(url=url)), reason)
            for url, reason in zip(urls, reasons)
        ]

    def record_redirect(self, request: Request) -> None:
        """Records the 301 and 308 sources of the chain of a request that is not filtered
        (``dont_filter``): found again later, they are seen (:class:`Scheduler` calls it)."""
        aliases = [fp for fp, reason in self._chain(request) if reason in (301, 308)]
        if aliases:
            self.seen.add_many(aliases)

    def close(self, reason: str) -> None:
        """Closes the set; under ``JOBDIR`` the store's keys count from now on. Scrapy's
        scheduler calls it after writing its queue's state, which is made durable first."""
        if self.stats is not None:
            self.stats.set_value("linksieve/seen_memory_bytes", self.seen.memory_bytes)
        if self.seen.warning:
            self.logger.warning("linksieve: %s", self.seen.warning)
        if self.jobdir and self.seen.kind == "persistent":
            _fsync_tree(os.path.join(self.jobdir, "requests.queue"))
        self.seen.close()

    def log(self, request: Request, spider: Spider) -> None:
        from scrapy.utils.request import referer_str

        if self.debug:
            msg = "Filtered duplicate request: %(request)s (referer: %(referer)s)"
            args = {"request": request, "referer": referer_str(request)}
            self.logger.debug(msg, args, extra={"spider": spider})
        elif self.logdupes:
            msg = (
                "Filtered duplicate request: %(request)s"
                " - no more duplicates will be shown"
                " (see DUPEFILTER_DEBUG to show all duplicates)"
            )
            self.logger.debug(msg, {"request": request}, extra={"spider": spider})
            self.logdupes = False
        spider.crawler.stats.inc_value("dupefilter/filtered")



#: The meta key where :class:`Scheduler` keeps a request's own ``dont_filter`` and URL, before a
#: retry or a redirect changes them (both copy the meta).
DONT_FILTER_META = "linksieve_dont_filter"


def _scheduler_base() -> type:
    from scrapy.core.scheduler import Scheduler as Base

    return Base


class Scheduler(_scheduler_base()):  # type: ignore[misc]
    """Scrapy's scheduler, except for redirect targets that are ``dont_filter`` (the flag
    Scrapy's ``RedirectMiddleware`` copies from the redirected request): when the request that
    started the chain was not ``dont_filter`` (a retry set the flag, scrapy#6895), the target
    goes through the dupefilter; when it was (a start URL), the target is scheduled unfiltered
    and the dupefilter records the chain's 301 and 308 sources as seen. ``SCHEDULER =
    "linksieve.scrapy.Scheduler"``; tested with Scrapy 2.19.
    """

    def enqueue_request(self, request: Request) -> bool:
        own, first = request.meta.setdefault(DONT_FILTER_META, [request.dont_filter, request.url])
        urls = request.meta.get("redirect_urls")
        if request.dont_filter and urls:
            if own is False and urls[0] == first:
                request.dont_filter = False  # a retry's flag, not the request's own
            else:
                record = getattr(self.df, "record_redirect", None)
                if record is not None:
                    record(request)
        return bool(super().enqueue_request(request))

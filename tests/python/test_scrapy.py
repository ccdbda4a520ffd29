"""linksieve.scrapy against Scrapy itself (no network): RequestFingerprinter's fingerprints are
scrapy.utils.request.fingerprint's, byte for byte, under the default w3lib profile; the ladder
settings; DupeFilter answers as RFPDupeFilter does, in memory, under JOBDIR, after Scrapy's own
requests.seen, and counts its stats. The real crawls are in test_scrapy_crawl.py."""

import logging
import os
import random

import pytest

pytest.importorskip("scrapy")

from scrapy import Request, Spider  # noqa: E402
from scrapy.dupefilters import RFPDupeFilter  # noqa: E402
from scrapy.http.headers import Headers  # noqa: E402
from scrapy.utils.request import fingerprint as scrapy_fingerprint  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

import linksieve  # noqa: E402
from linksieve.scrapy import STORE_FILE, DupeFilter, RequestFingerprinter  # noqa: E402

# URLs that take each branch of canonicalize_url: case, default ports, query order and blank
# values, fragments, percent-encoding (case, reserved, invalid, non-ASCII), IDN hosts, IP
# literals, dot segments, userinfo, other schemes, and some nonsense Request() still accepts.
TRICKY = [
    "HTTP://Example.COM/", "http://example.com:80/", "https://example.com:443/a",
    "http://example.com:8080/", "HTTPS://EXAMPLE.com:443/A/B", "http://example.com:/",
    "http://example.com:0/", "http://example.com", "http://example.com.", "http://example.com./",
    "http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2", "http://example.com/?a=2&a=1",
    "http://example.com/p#frag", "http://example.com/p?#", "http://example.com/#",
    "http://example.com/p?x=1#a?b=c", "http://example.com/p?", "http://example.com/p??",
    "http://example.com/p?a=&b", "http://example.com/p?a", "http://example.com/p?a=1&a=0&a=",
    "http://example.com/p?=1", "http://example.com/p?&&a=1&&", "http://example.com/?a=1;b=2",
    "http://example.com/%7euser", "http://example.com/%7Euser", "http://example.com/~user",
    "http://example.com/a%2fb", "http://example.com/a%2Fb", "http://example.com/a/b",
    "http://example.com/%41%42", "http://example.com/?%61=%62", "http://example.com/?a=%2526",
    "http://example.com/%e2%82%ac", "http://example.com/%E2%82%AC", "http://example.com/€",
    "http://example.com/é", "http://example.com/?%C3%A9=%C3%A9", "http://example.com/?é=é",
    "http://example.com/%zz", "http://example.com/%", "http://example.com/%2", "http://ex%41mple.com/",
    "http://example.com/a b", "http://example.com/?q=a b", "http://example.com/?q=a+b",
    "http://example.com/?q=a%20b", "http://example.com/?q=a%2Bb", "http://example.com/?q=%E2%9C%93",
    "http://example.com/?q=%e2%9c%93", "https://example.com/?utf8=✓", "http://example.com/\\path",
    "http://example.com/path;params?x=1", "http://example.com/a;b;c", "http://example.com/a;b=c/d",
    "http://example.com/./a/../b", "http://example.com//a//b", "http://example.com/a/./b/../c/",
    "http://example.com/%2e%2e/a", "http://example.com/a/%2E/b",
    "http://bücher.example/", "http://BÜCHER.example/", "http://xn--bcher-kva.example/",
    "http://XN--BCHER-KVA.example/", "http://例え.テスト/パス?クエリ=値#フラグ", "http://💩.la/",
    "http://xn--ls8h.la/", "http://straße.de/", "http://faß.example/", "http://ａｂｃ.example/",
    "http://a\u00ad.com/", "http://a\u200d.com/", "http://xn--/", "http://xn--a.com/",
    "http://" + "a" * 64 + ".com/", "http://" + "a" * 300 + "/", "http://-a.com/", "http://a-.com/",
    "http://.example/", "http://a..b/", "http://Exa mple.com/", "http://%zz/", "http://a%00b/",
    "http://user:pass@example.com/", "http://User:P%40ss@Example.com:80/", "http://@/",
    "http://:80/", "http:///path", "http://[::1]:80/", "http://[2001:DB8::1]/", "http://[v1.x]/",
    "http://127.0.0.1/", "http://0x7f.1/", "http://1.2.3.4.5/", "http://127.0.0.1:8080/~a/%7Eb",
    "ftp://example.com/file", "FTP://Example.com:21/a b", "file:///tmp/x", "file:///C:/a%20b",
    "data:text/plain,hello", "about:blank", "s3://b/k?x=1",
]

# Request() refuses these (Scrapy's own checks): counted, not compared.
REFUSED = [
    "", "no-scheme", "/relative", "//example.com/a", "http://[::1/", "http://[zz]/",
    "http://example.com:65536/", "http://a:b:c/", "http://example.com:8o/", "mailto:x@y",
    "urn:isbn:0451450523",
]


class Raw:
    """What the fingerprinters read of a request, with a URL that Request() would refuse."""

    def __init__(self, url, method="GET", body=b"", meta=None):
        self.url, self.method, self.body = url, method, body
        self.meta = meta or {}
        self.headers = Headers()


def outcome(fp, request):
    """The fingerprint, or the type and message of the error."""
    try:
        return fp(request)
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e))


def compare_all(urls, fingerprinter, **kwargs):
    """Fingerprint every URL both ways (all must agree): (refused by Request(), raised by both)."""
    ours = fingerprinter.fingerprint
    refused = raised = 0
    mismatches = []
    for url in urls:
        try:
            request = Request(url, **kwargs)
        except (ValueError, TypeError):
            refused += 1
            continue
        want, got = outcome(scrapy_fingerprint, request), outcome(ours, request)
        if isinstance(want, tuple):
            raised += 1
        if want != got:
            mismatches.append((url, want, got))
    assert not mismatches, mismatches[:10]
    return refused, raised


@pytest.mark.parametrize("corpus", ["kasztp", "non_normal"])
def test_fingerprints_are_scrapys_on_the_corpus(request, corpus):
    urls = request.getfixturevalue(corpus)
    assert len(urls) > 40_000
    fp = RequestFingerprinter()
    refused, raised = compare_all(urls, fp)
    assert refused <= len(urls) // 100, refused  # most of them are compared
    assert raised <= len(urls) // 100, raised
    # other methods, bodies and verbatim_url on a sample of them (a fresh fingerprinter each:
    # its cache is per request, so nothing is carried over)
    sample = urls[::17]
    for kwargs in [
        {"method": "POST", "body": b"a=1&b=2"},
        {"method": "put", "body": "é=ü", "encoding": "latin-1"},
        {"meta": {"verbatim_url": True}},
        {"method": "HEAD", "meta": {"verbatim_url": True}, "body": b"\x00\xff"},
    ]:
        r, _ = compare_all(sample, RequestFingerprinter(), **kwargs)
        assert r <= len(sample) // 100


def test_fingerprints_are_scrapys_on_tricky_urls():
    refused, _ = compare_all(TRICKY, RequestFingerprinter())
    assert refused == 0  # every tricky URL is compared
    for url in TRICKY:
        for kwargs in [
            {"method": "post"}, {"method": "Post", "body": b"x=1"}, {"method": "GET", "body": "é"},
            {"meta": {"verbatim_url": True}}, {"meta": {"verbatim_url": False}},
            {"meta": {"verbatim_url": 1}, "method": "delete"},
        ]:
            request = Request(url, **kwargs)
            assert RequestFingerprinter().fingerprint(request) == scrapy_fingerprint(request), (
                url, kwargs)
    # Request() upper-cases the method: the method's case does not matter, to either
    assert (RequestFingerprinter().fingerprint(Request(TRICKY[0], method="post"))
            == scrapy_fingerprint(Request(TRICKY[0], method="POST")))


def test_equivalent_urls_share_a_fingerprint_as_in_scrapy():
    fp = RequestFingerprinter()
    same = ["http://Example.com/a?b=2&a=1#x", "HTTP://EXAMPLE.COM/a?a=1&b=2", "http://example.com/a?a=1&b=2#"]
    assert len({fp.fingerprint(Request(u)) for u in same}) == 1
    assert len({scrapy_fingerprint(Request(u)) for u in same}) == 1
    assert fp.fingerprint(Request("http://example.com/%7e")) == fp.fingerprint(
        Request("http://example.com/~"))
    # but w3lib keeps a default port and the method and body count
    base = fp.fingerprint(Request("http://example.com/"))
    assert fp.fingerprint(Request("http://example.com:80/")) != base
    assert fp.fingerprint(Request("http://example.com/", method="POST")) != base
    assert fp.fingerprint(Request("http://example.com/", body=b"x")) != base
    # verbatim_url: the URL as it is
    verbatim = Request("http://Example.com/a?b=2&a=1", meta={"verbatim_url": True})
    assert fp.fingerprint(verbatim) != fp.fingerprint(Request("http://Example.com/a?b=2&a=1"))
    assert fp.fingerprint(verbatim) == scrapy_fingerprint(verbatim)
    assert fp.canonical_url("HTTP://Example.com/a?b=2&a=1#x") == "http://example.com/a?a=1&b=2"


def test_where_scrapy_raises_ours_raises_too():
    fp = RequestFingerprinter()
    raised = 0
    for url in REFUSED + TRICKY:
        want, got = outcome(scrapy_fingerprint, Raw(url)), outcome(fp.fingerprint, Raw(url))
        assert want == got, url
        raised += isinstance(want, tuple)
    assert raised >= 5  # the bad IPv6 literals and ports
    with pytest.raises(ValueError, match="Port out of range"):
        fp.fingerprint(Raw("http://a:99999/"))


def test_fingerprints_are_scrapys_on_random_urls():
    """Seeded random strings of the pieces that canonicalizers trip on, through Request() and
    around it: same fingerprint, or the same error."""
    pieces = [
        "a", "B", "é", "ü", "例", "💩", ".", "..", "/", "//", "?", "&", "=", "#", ":", "@", "%",
        "%7e", "%7E", "%2F", "%20", "%zz", "%e2%82%ac", " ", "+", ";", "[", "]", "::1", "80",
        ":80", ":8080", ":99999", "xn--", "-", "\\", "\t", "\x00", "\ufffd", "~", "!", "$", "'",
        "(", ")", "*", ",", "{", "}", "|", "^", "`", '"', "<", ">", "\u200b", "\u00ad", "ß", "ﬁ",
        "Ⅸ", "İ", "\u0301",
    ]
    rng = random.Random(20240611)
    fp = RequestFingerprinter()
    raised = refused = 0
    for _ in range(15_000):
        url = rng.choice(["http://", "https://", "HTTP://", "ftp://"]) + "".join(
            rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        try:
            request = Request(url)
        except ValueError:
            refused += 1
            request = Raw(url)
        want, got = outcome(scrapy_fingerprint, request), outcome(fp.fingerprint, request)
        assert want == got, url
        raised += isinstance(want, tuple)
    # Scrapy raises exactly on what Request() refuses; most URLs are fingerprinted
    assert refused == raised and 0 < raised < 7_500


# --- the ladder (LINKSIEVE_PROFILE unset to None/"" and LINKSIEVE_RUNG) ----------------------

NO_PROFILE = [pytest.param(None, id="None"), pytest.param("", id="empty")]

SCHEME_EQUAL = [
    ("http://A.example:80/%7e", "http://a.example/~"),
    ("HTTP://a.example/./b/../c", "http://a.example/c"),
    ("https://a.example:443/%41", "https://a.example/A"),
    ("http://bücher.example/", "http://xn--bcher-kva.example/"),
    ("http://a.example", "http://a.example/"),
]
SCHEME_DIFFERENT = [
    ("http://a.example/?b=1&a=2", "http://a.example/?a=2&b=1"),  # the ladder keeps query order
    ("http://a.example/x", "http://a.example/y"),
    ("http://a.example/", "https://a.example/"),
    ("http://a.example:8080/", "http://a.example/"),
    ("http://a.example/a%2Fb", "http://a.example/a/b"),
]


def ladder_crawler(profile, rung="scheme", **more):
    return get_crawler(settings_dict={
        "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter",
        "LINKSIEVE_PROFILE": profile,
        "LINKSIEVE_RUNG": rung,
        **more,
    })


@pytest.mark.parametrize("profile", NO_PROFILE)
def test_crawler_ladder_fingerprinter(profile):
    crawler = ladder_crawler(profile)
    fp = crawler.request_fingerprinter
    assert isinstance(fp, RequestFingerprinter)
    assert fp.identity == "scrapy-sha1 scheme/web"
    for a, b in SCHEME_EQUAL:
        assert linksieve.compare(a, b, rung="scheme", input_mode="web") is not None
        assert fp.fingerprint(Request(a)) == fp.fingerprint(Request(b)), (a, b)
    for a, b in SCHEME_DIFFERENT:
        assert linksieve.compare(a, b, rung="scheme", input_mode="web") is None
        assert fp.fingerprint(Request(a)) != fp.fingerprint(Request(b)), (a, b)
    # method, body and verbatim_url still count
    url = SCHEME_EQUAL[0][0]
    base = fp.fingerprint(Request(url))
    assert fp.fingerprint(Request(url, method="POST")) != base
    assert fp.fingerprint(Request(url, body=b"x")) != base
    assert fp.fingerprint(Request(url, meta={"verbatim_url": True})) != base
    assert fp.fingerprint(Request(url, meta={"verbatim_url": True})) == scrapy_fingerprint(
        Request(url, meta={"verbatim_url": True}))
    # what the ladder refuses is an error (NormalizeError is a ValueError), not a fallback
    with pytest.raises(linksieve.NormalizeError):
        fp.fingerprint(Request("http://a b/"))


@pytest.mark.parametrize("profile", NO_PROFILE)
def test_crawler_ladder_fingerprints_follow_the_keys(profile, kasztp, non_normal):
    """On the corpus: equal fingerprints exactly where the scheme-rung keys are equal (each URL
    against its non-normal rewrite, and against its neighbour)."""
    fp = ladder_crawler(profile).request_fingerprinter
    equal = 0
    for i in range(0, len(kasztp) - 1, 7):
        for a, b in [(kasztp[i], non_normal[i]), (kasztp[i], kasztp[i + 1])]:
            ra, rb = Request(a), Request(b)
            try:
                ka = linksieve.normalize(ra.url, rung="scheme", input_mode="web")
                kb = linksieve.normalize(rb.url, rung="scheme", input_mode="web")
            except linksieve.NormalizeError:
                continue
            # the ladder keeps fragments, Scrapy's recipe (and so the fingerprint) does not
            same = ka.partition("#")[0] == kb.partition("#")[0]
            equal += same
            assert (fp.fingerprint(ra) == fp.fingerprint(rb)) == same, (a, b)
    assert equal > 5_000


def test_level_is_the_old_name_of_rung():
    """``LINKSIEVE_LEVEL`` and ``level=`` (the old names) make the fingerprints that
    ``LINKSIEVE_RUNG`` and ``rung=`` make; the new name wins when both are set."""
    urls = ["http://A.example:80/%7e?b=1#x", "http://a.example/%41"]  # the string rung keeps %7e, %41
    def fps(fp):
        return [fp.fingerprint(Request(u)) for u in urls]
    new = ladder_crawler("", "string").request_fingerprinter
    old = get_crawler(settings_dict={
        "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter",
        "LINKSIEVE_PROFILE": "", "LINKSIEVE_LEVEL": "string"}).request_fingerprinter
    both = ladder_crawler("", "string", LINKSIEVE_LEVEL="syntax").request_fingerprinter
    syntax = ladder_crawler("", "syntax").request_fingerprinter
    assert fps(new) == fps(old) == fps(both) != fps(syntax)
    assert new.identity == old.identity == "scrapy-sha1 string/web"
    assert fps(RequestFingerprinter(profile=None, level="string")) == fps(new)
    # input mode: LINKSIEVE_INPUT / input= (old) as LINKSIEVE_INPUT_MODE / input_mode= (new)
    leiri = ladder_crawler("", "string", LINKSIEVE_INPUT_MODE="leiri").request_fingerprinter
    old = ladder_crawler("", "string", LINKSIEVE_INPUT="leiri").request_fingerprinter
    assert leiri.identity == old.identity == "scrapy-sha1 string/leiri"
    assert fps(leiri) == fps(old) == fps(RequestFingerprinter(profile=None, rung="string",
                                                              input="leiri"))


def test_crawler_ladder_fingerprint_ignores_the_fragment():
    fp = ladder_crawler("").request_fingerprinter
    assert fp.fingerprint(Request("http://a.example/p#top")) == fp.fingerprint(
        Request("http://a.example/p"))
    # as in Scrapy's recipe (keep_fragments=False), whatever the fragment holds
    assert fp.canonical_url("http://A.example/p?q=1#a#b?c") == "http://a.example/p?q=1"
    assert fp.canonical_url("http://a.example/%23x#y") == "http://a.example/%23x"


@pytest.mark.parametrize("settings", [
    pytest.param({"LINKSIEVE_PROFILE": None}, id="None-no-rung"),
    pytest.param({"LINKSIEVE_PROFILE": None, "LINKSIEVE_RUNG": "bogus"},
                 id="None-bad-rung"),
    pytest.param({"LINKSIEVE_PROFILE": None, "LINKSIEVE_LEVEL": "bogus"},
                 id="None-bad-level"),
    pytest.param({"LINKSIEVE_PROFILE": None, "LINKSIEVE_RUNG": "scheme",
                  "LINKSIEVE_INPUT_MODE": "bogus"}, id="None-bad-input"),
    pytest.param({"LINKSIEVE_PROFILE": ""}, id="empty-no-rung"),
    pytest.param({"LINKSIEVE_PROFILE": "", "LINKSIEVE_RUNG": "bogus"}, id="empty-bad-rung"),
    pytest.param({"LINKSIEVE_PROFILE": "", "LINKSIEVE_RUNG": "scheme",
                  "LINKSIEVE_INPUT": "bogus"}, id="empty-bad-input"),
    pytest.param({"LINKSIEVE_PROFILE": "no-such-profile"}, id="bad-profile"),
])
def test_bad_settings_raise_valueerror(settings):
    with pytest.raises(ValueError):
        RequestFingerprinter.from_crawler(get_crawler(settings_dict=settings))
    with pytest.raises(ValueError):
        get_crawler(settings_dict={
            "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter", **settings})


def test_default_settings_are_the_w3lib_profile():
    fp = get_crawler(settings_dict={
        "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter"
    }).request_fingerprinter
    assert isinstance(fp, RequestFingerprinter)
    assert fp.identity.startswith("scrapy-sha1 w3lib@")
    request = Request("http://A.example:80/%7e?b=1&a=2#x")
    assert fp.fingerprint(request) == scrapy_fingerprint(request)
    with pytest.raises(ValueError):
        RequestFingerprinter(profile=None)
    with pytest.raises(ValueError):
        RequestFingerprinter(profile=None, rung="nope")


# --- DupeFilter ------------------------------------------------------------------------------

def request_sequence(urls, n=4_000, seed=5):
    """Requests with repeats and w3lib-equivalent spellings (scheme/host case, fragments, query
    order), and some that w3lib keeps apart (a default port, another method or body)."""
    rng = random.Random(seed)
    pool = rng.sample(urls, n // 3)
    out = []
    for _ in range(n):
        url = rng.choice(pool)
        k = rng.randrange(8)
        if k == 1:
            scheme, rest = url.split(":", 1)
            url = scheme.upper() + ":" + rest
        elif k == 2:
            url = url.split("#")[0] + "#frag" + str(rng.randrange(3))
        elif k == 3 and "?" in url:
            head, query = url.split("#")[0].split("?", 1)
            url = head + "?" + "&".join(reversed(query.split("&")))
        elif k == 4:
            out.append(Request(url, method="POST", body=str(rng.randrange(2)).encode()))
            continue
        out.append(Request(url))
    return out


def answers(dupefilter, requests):
    return [dupefilter.request_seen(r) for r in requests]


@pytest.fixture(scope="module")
def sequence(kasztp):
    return request_sequence(kasztp)


def test_request_seen_answers_like_rfpdupefilter(sequence):
    want = answers(RFPDupeFilter(), sequence)
    assert 1_000 < sum(want) < len(want) - 1_000  # duplicates and new ones
    df = DupeFilter()
    assert df.seen.kind == "memory"
    assert answers(df, sequence) == want
    assert answers(df, sequence[:100]) == [True] * 100
    df.close("finished")
    # with another fingerprinter: the answers of a set of its fingerprints
    fp = RequestFingerprinter(profile=None, rung="scheme")
    ladder = DupeFilter(fingerprinter=fp)
    seen, want = set(), []
    for r in sequence:
        want.append(fp.fingerprint(r) in seen)
        seen.add(fp.fingerprint(r))
    assert answers(ladder, sequence) == want
    ladder.close("finished")


def test_approx_kind_never_lets_a_duplicate_through(sequence):
    want = answers(RFPDupeFilter(), sequence)
    df = DupeFilter(kind="approx", expected=100_000, fp_rate=0.001)
    got = answers(df, sequence)
    assert all(g for g, w in zip(got, want) if w)
    assert sum(g and not w for g, w in zip(got, want)) <= 20  # new ones dropped: ~ fp_rate
    df.close("finished")


def test_persistent_under_jobdir_survives_reopening(tmp_path, sequence):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    want = answers(RFPDupeFilter(), sequence)
    got_ours, got_theirs = [], []
    thirds = [sequence[: len(sequence) // 3], sequence[len(sequence) // 3: 2 * len(sequence) // 3],
              sequence[2 * len(sequence) // 3:]]
    for part in thirds:  # close then reopen between the parts, as a resumed job does
        df = DupeFilter(str(ours))
        assert df.seen.kind == "persistent"
        got_ours += answers(df, part)
        df.close("shutdown")
        rfp = RFPDupeFilter(str(theirs))
        got_theirs += answers(rfp, part)
        rfp.close("shutdown")
    assert got_theirs == want
    assert got_ours == want
    # the store (its file and its folder of runs), and no requests.seen of ours
    assert sorted(os.listdir(ours)) == [STORE_FILE, STORE_FILE + ".runs"]
    # through from_crawler: JOBDIR picks the persistent kind and the same store
    crawler = get_crawler(settings_dict={
        "JOBDIR": str(ours),
        "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter",
    })
    df = DupeFilter.from_crawler(crawler)
    assert df.seen.kind == "persistent"
    assert answers(df, sequence[:50]) == [True] * 50
    # a second one on the same store while it is open is refused
    with pytest.raises(linksieve.StoreError):
        DupeFilter(str(ours))
    df.close("finished")


def test_store_refuses_another_fingerprinter(tmp_path):
    df = DupeFilter(str(tmp_path))
    df.request_seen(Request("http://a.example/"))
    df.close("finished")
    with pytest.raises(linksieve.StoreError):
        DupeFilter(str(tmp_path), fingerprinter=RequestFingerprinter(profile=None, rung="scheme"))
    df = DupeFilter(str(tmp_path))  # the same one is fine
    assert df.request_seen(Request("HTTP://A.example/#x"))
    df.close("finished")


def test_scrapys_requests_seen_is_imported_once(tmp_path, sequence, caplog):
    old, new = sequence[:2_000], sequence[2_000:]
    rfp = RFPDupeFilter(str(tmp_path))
    answers(rfp, old)
    rfp.close("shutdown")
    assert (tmp_path / "requests.seen").exists()
    imported = len({scrapy_fingerprint(r) for r in old})
    with caplog.at_level(logging.INFO, logger="linksieve.scrapy"):
        df = DupeFilter(str(tmp_path))
    assert f"imported {imported} fingerprints" in caplog.text
    assert answers(df, old) == [True] * len(old)
    want = answers(RFPDupeFilter(), old + new)[len(old):]
    assert answers(df, new) == want
    df.close("shutdown")
    assert (tmp_path / STORE_FILE).exists()
    # once: what Scrapy writes to requests.seen after the store exists is not read again
    late = Request("http://late.example/")
    rfp = RFPDupeFilter(str(tmp_path))
    assert not rfp.request_seen(late)
    rfp.close("shutdown")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="linksieve.scrapy"):
        df = DupeFilter(str(tmp_path))
    assert "imported" not in caplog.text
    assert not df.request_seen(late)
    assert df.request_seen(old[0])
    df.close("shutdown")


def test_requests_seen_is_read_without_scrapys_reader(tmp_path, sequence, monkeypatch):
    """The fallback for a Scrapy without `_read_fingerprints` (before 2.19), whose
    RFPDupeFilter wrote a hex line per fingerprint: those lines read as the fingerprints that
    Scrapy's own reader gives of the file today's RFPDupeFilter writes."""
    import scrapy.dupefilters

    from linksieve.scrapy import _read_scrapy_seen

    rfp = RFPDupeFilter(str(tmp_path))
    answers(rfp, sequence[:500])
    rfp.close("shutdown")
    theirs = _read_scrapy_seen(str(tmp_path / "requests.seen"))
    assert len(theirs) == len({scrapy_fingerprint(r) for r in sequence[:500]})
    old = tmp_path / "old.seen"
    old.write_text("".join(fp.hex() + "\n" for fp in theirs))
    monkeypatch.delattr(scrapy.dupefilters, "_read_fingerprints")
    assert _read_scrapy_seen(str(old)) == theirs


def crawler_with(dupefilter, **settings):
    crawler = get_crawler(settings_dict={
        "DUPEFILTER_CLASS": dupefilter,
        "REQUEST_FINGERPRINTER_CLASS": "linksieve.scrapy.RequestFingerprinter",
        **settings,
    })
    spider = Spider.from_crawler(crawler, name="t")
    return crawler, spider


def filter_through(dupefilter_cls, requests, **settings):
    """What the scheduler does: request_seen, and log() for each duplicate."""
    crawler, spider = crawler_with(dupefilter_cls, **settings)
    df = dupefilter_cls.from_crawler(crawler)
    got = []
    for r in requests:
        seen = df.request_seen(r)
        if seen:
            df.log(r, spider)
        got.append(seen)
    df.close("finished")
    return got, crawler.stats.get_stats(), df


def test_stats_and_log_are_rfpdupefilters(sequence, caplog):
    requests = sequence[:1_500]
    with caplog.at_level(logging.DEBUG):
        want, their_stats, _ = filter_through(RFPDupeFilter, requests)
    theirs = [r for r in caplog.records if "Filtered duplicate" in r.getMessage()]
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        got, stats, df = filter_through(DupeFilter, requests)
    mine = [r for r in caplog.records if "Filtered duplicate" in r.getMessage()]
    assert isinstance(df.fingerprinter, RequestFingerprinter)
    assert got == want
    assert stats["dupefilter/filtered"] == their_stats["dupefilter/filtered"] == sum(want)
    assert stats["linksieve/seen"] == len(want) - sum(want)
    assert stats["linksieve/seen_memory_bytes"] > 0
    assert [r.getMessage() for r in mine] == [r.getMessage() for r in theirs]
    assert len(mine) == 1 and "no more duplicates will be shown" in mine[0].getMessage()
    # DUPEFILTER_DEBUG: every duplicate, with its referer
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        got, stats, df = filter_through(DupeFilter, requests, DUPEFILTER_DEBUG=True)
    mine = [r for r in caplog.records if "Filtered duplicate" in r.getMessage()]
    assert df.debug and len(mine) == sum(want)
    assert all("(referer: None)" in r.getMessage() for r in mine)


def test_from_crawler_takes_the_crawlers_fingerprinter_and_kind(tmp_path):
    crawler, _ = crawler_with(DupeFilter)
    df = DupeFilter.from_crawler(crawler)
    assert df.fingerprinter is crawler.request_fingerprinter
    assert df.seen.kind == "memory"
    df.close("finished")
    crawler, _ = crawler_with(DupeFilter, LINKSIEVE_DUPEFILTER_KIND="approx",
                              LINKSIEVE_EXPECTED=1000, LINKSIEVE_FP_RATE=0.01)
    df = DupeFilter.from_crawler(crawler)
    assert df.seen.kind == "approx"
    df.close("finished")
    # Scrapy's own fingerprinter works too (its fingerprints are the same)
    crawler = get_crawler(settings_dict={"DUPEFILTER_CLASS": DupeFilter})
    df = DupeFilter.from_crawler(crawler)
    assert not isinstance(df.fingerprinter, RequestFingerprinter)
    assert not df.request_seen(Request("http://a.example/"))
    assert df.request_seen(Request("HTTP://A.example/#x"))
    df.close("finished")
    with pytest.raises(ValueError):
        DupeFilter(kind="persistent")
    with pytest.raises(ValueError):
        DupeFilter(kind="bogus")
    with pytest.raises(ValueError):
        DupeFilter.from_crawler(crawler_with(DupeFilter, LINKSIEVE_DUPEFILTER_KIND="nope")[0])

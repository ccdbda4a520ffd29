"""`linksieve.records` (the outlinks and edges of each record of a WARC or WAT file) against
what it did not compute: wget's crawl of the graph tests' site (`tests/oracles/graph_site.py`:
virtual hosts behind a proxy on 127.0.0.1, redirects, `Link` fields, robots.txt), its records
as warcio reads them, the host edges of cc-pyspark's rules over warcio, html.parser and
ada-url (`tests/oracles`: `cc_hosts.py`, `cc_records.py`, `outlink_oracle.py`), the WAT of
the crawl read by cc-pyspark's `get_links` (`cc_wat.py`); and `linksieve run --format edges`,
another path through linksieve (the pipeline's workers and its edge table)."""

import gzip
import shutil
import sys
import threading
import zlib
from collections import Counter
from pathlib import Path
from urllib.parse import urljoin

import pytest
from warcio.archiveiterator import ArchiveIterator

import linksieve

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracles"))
from cc_hosts import get_surt_host  # noqa: E402
from cc_records import record_links  # noqa: E402
from graph_site import SERVED, crawl_site, crawl_wat, edge_rows, wat_host_edges  # noqa: E402
from outlink_oracle import html_responses, outlinks, visited_urls  # noqa: E402


@pytest.fixture(scope="module")
def warc(tmp_path_factory):
    assert shutil.which("wget"), "the crawl needs wget (scripts/oracles.sh installs it)"
    return crawl_site(tmp_path_factory.mktemp("records"))


@pytest.fixture(scope="module")
def plain(warc):
    """The crawl decompressed: warcio's offsets are then offsets in the decompressed input."""
    path = warc.with_name("crawl.warc")
    with gzip.open(warc, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


@pytest.fixture(scope="module")
def wat(warc, tmp_path_factory):
    return crawl_wat(warc, tmp_path_factory.mktemp("wat"))


def run_edges(cli, path, *args):
    """`linksieve run --format edges`: (source, target) -> (count, types)."""
    return edge_rows(cli("run", "-q", "--format", "edges", *args, path).stdout)


def page_edges(path):
    """The page edges of every record, from its links: (source, target) -> (count, types);
    and the page of each response (WARC) or WAT record of one as a node (page, page), count
    0, type `node`."""
    count, types = Counter(), {}
    for r in linksieve.records(path):
        if r.page is not None and r.type in ("response", "metadata"):
            count[(r.page, r.page)] += 0
            types.setdefault((r.page, r.page), set()).add("node")
        for link in r.links:
            if r.page is not None and link.key is not None:
                count[(r.page, link.key)] += 1
                types.setdefault((r.page, link.key), set()).add(link.type)
    return {pair: (n, types[pair]) for pair, n in count.items()}


def union(path, graph, www="keep"):
    return {e for r in linksieve.records(path) for e in r.edges(graph, www)}


def test_records_are_warcios_records(warc, plain):
    read = [(r.offset, r.type, r.target_uri) for r in linksieve.records(plain)]
    with open(plain, "rb") as f:
        it = ArchiveIterator(f)
        warcio = {(it.get_record_offset(), rec.rec_type, rec.rec_headers.get_header(
            "WARC-Target-URI")) for rec in it}
    assert set(read) <= warcio and len(read) == len(set(read))
    # every HTML response, redirect and robots.txt is there; no request
    html = {url for url, _ in html_responses(warc)}
    assert len(html) >= len(SERVED) * 6
    assert html <= {uri for _, kind, uri in read if kind == "response"}
    assert {uri for uri, _, _ in record_links(warc)} <= {uri for _, _, uri in read}
    assert "request" not in {kind for _, kind, _ in read}
    # compressed or not, the same records, links and all
    assert [(r.offset, r.links) for r in linksieve.records(warc)] == \
        [(r.offset, r.links) for r in linksieve.records(str(plain))]


@pytest.mark.parametrize("fmt", ["warc", "wat"])
def test_page_edges_are_runs(request, cli, fmt):
    path = request.getfixturevalue(fmt)
    found = page_edges(path)
    assert len(found) > 100
    assert found == run_edges(cli, path)
    assert union(path, "page") == set(found)


@pytest.mark.parametrize("graph,www", [("host", "keep"), ("host", "strip"), ("domain", "keep")])
def test_host_and_domain_edges_are_runs(cli, warc, wat, graph, www):
    for path in (warc, wat):
        www_flag = ["--www", www] if graph == "host" else []
        assert union(path, graph, www) == set(run_edges(cli, path, "--graph", graph, *www_flag))


@pytest.mark.parametrize("www", ["keep", "strip"])
def test_host_edges_match_cc_pyspark(warc, www):
    strip = www == "strip"
    expected = set()
    for url, text in html_responses(warc):
        source = get_surt_host(url, strip)
        for _, _, href in outlinks(text, url)[0]:
            target = get_surt_host(href, strip) if href is not None else None
            if source and target and target != source:
                expected.add((source, target))
    for url, _, value in record_links(warc):
        source, target = get_surt_host(url, strip), get_surt_host(urljoin(url, value), strip)
        if source and target and target != source:
            expected.add((source, target))
    assert len(expected) > 20
    # every visited URL is a node (cc-pyspark's self-link)
    nodes = {(h, h) for h in (get_surt_host(u, strip) for u in visited_urls(warc)) if h}
    assert union(warc, "host", www) == expected | nodes


def test_wat_host_edges_match_cc_pyspark_get_links(wat):
    """cc-pyspark's `get_links` over warcio and `json`, and a redirect's `Location` from the
    WAT record's head (which cc-pyspark takes from WARC files only)."""
    expected, redirects, _ = wat_host_edges(wat)
    assert redirects > 5
    assert len(expected) > 20
    assert union(wat, "host") == expected


def test_record_links_and_keys_as_chosen(warc):
    kinds = Counter(link.type for r in linksieve.records(warc) for link in r.links)
    assert kinds["sitemap"] == 2 * len(SERVED) and kinds["link-header"] > 10
    assert {k for k in kinds if k.startswith("redirect-")} == {
        "redirect-301", "redirect-302", "redirect-307", "redirect-308"}
    off = Counter(link.type for r in linksieve.records(warc, record_links=False)
                  for link in r.links)
    assert not {k for k in off if k.startswith("redirect-") or k in ("sitemap", "link-header")}
    # a Normalizer's keys: those `normalize` makes of each resolved URL
    n = linksieve.Normalizer(rung="syntax", input_mode="web")
    for r in linksieve.records(warc, key=n):
        for link in r.links:
            if link.url is not None and link.key is not None:
                assert link.key == n(link.url), link


def test_a_cut_file_ends_with_an_error_after_its_records(plain, tmp_path):
    whole = [(r.offset, r.target_uri) for r in linksieve.records(plain)]
    data = plain.read_bytes()
    cut_at = whole[len(whole) // 2][0] + 40  # inside a record's header block
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[:cut_at])
    got = []
    with pytest.raises((ValueError, OSError)):
        for r in linksieve.records(cut):
            got.append((r.offset, r.target_uri))
    assert got == [x for x in whole if x[0] < whole[len(whole) // 2][0]]


def test_a_damaged_record_is_not_given(warc, tmp_path):
    """One bit flipped inside a record's gzip member (wget writes one member per record): the
    records before it are given as they were, that record and those after it are not, and the
    iterator raises; no link is given that the crawl does not hold (a record is given only once
    its member passed gzip's CRC check)."""
    def listed(source):
        return [(r.offset, r.target_uri, tuple(link.key for link in r.links))
                for r in linksieve.records(source)]

    whole = listed(warc)
    data = warc.read_bytes()
    # each gzip member as Python's zlib reads it: (start in the file, end, start decompressed)
    members, at, out = [], 0, 0
    while at < len(data):
        d = zlib.decompressobj(31)
        n = len(d.decompress(data[at:]))
        end = len(data) - len(d.unused_data)
        members.append((at, end, out))
        at, out = end, out + n
    assert len(members) > 10, len(members)
    # the member of a record in the middle of the crawl that has links
    with_links = [r for r in whole if r[2]]
    record = with_links[len(with_links) // 2]
    start, end, _ = [m for m in members if m[2] <= record[0]][-1]
    flipped = bytearray(data)
    flipped[(start + end) // 2] ^= 0x10
    f = tmp_path / "flipped.warc.gz"
    f.write_bytes(flipped)
    got = []
    with pytest.raises((ValueError, OSError)):
        for r in linksieve.records(f):
            got.append((r.offset, r.target_uri, tuple(link.key for link in r.links)))
    assert 0 < len(got) < len(whole)
    assert got == whole[: len(got)]
    assert record not in got


def test_stopping_early_and_errors(plain, tmp_path):
    for _ in range(50):  # each iterator's reader stops when it is dropped
        it = linksieve.records(plain)
        next(it)
        del it
    assert len(list(linksieve.records(plain.read_bytes()))) == len(list(linksieve.records(plain)))
    with pytest.raises(OSError):
        linksieve.records(tmp_path / "missing.warc")
    with pytest.raises(ValueError):
        linksieve.records(plain, key=False)
    r = next(linksieve.records(plain))
    assert r.links is r.links  # made once
    with pytest.raises(ValueError):
        r.edges("site")
    with pytest.raises(ValueError):
        r.edges("domain", "strip")


def test_one_iterator_shared_by_two_threads(plain):
    """Each record reaches one thread once; a next() while another thread waits is a
    RuntimeError, never a deadlock (the waiting thread holds no lock the other needs)."""
    whole = [r.offset for r in linksieve.records(plain)]
    it = linksieve.records(plain)
    got, busy = [[], []], [0, 0]

    def take(k):
        while True:
            try:
                got[k].append(next(it).offset)
            except StopIteration:
                return
            except RuntimeError:
                busy[k] += 1

    threads = [threading.Thread(target=take, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert sorted(got[0] + got[1]) == sorted(whole)

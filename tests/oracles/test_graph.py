"""`linksieve run --format edges` against a graph linksieve did not compute: a real crawl by
wget of several virtual hosts, all served by one HTTP proxy that the test starts on 127.0.0.1
(wget sends it absolute URLs, so no name is ever looked up), into a WARC file, with redirects,
`Link` fields and robots.txt files; the expected edges come from warcio, Python's html.parser
and the ada-url WHATWG parser (`outlink_oracle.py`), cc-pyspark's patterns for the links of
records (`cc_records.py`); at host level, cc-pyspark's own host rule (`cc_hosts.py`, copied
from its repository); at domain level, that rule then tldextract's Public Suffix List (its own
snapshot, private suffixes included), as cc-webgraph folds a host graph into a domain graph.
The graph files are read by WebGraph's own tools (compression and PageRank), as cc-webgraph
reads Common Crawl's."""

import gzip
import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import ada_url
import networkx
import pytest
import tldextract

from cc_hosts import get_surt_host
from cc_records import record_links
from graph_site import SERVED, crawl_site, crawl_wat, edge_rows, wat_host_edges
from outlink_oracle import html_responses, outlinks, visited_urls
from test_html import iri_model


@pytest.fixture(scope="module")
def warc(tmp_path_factory):
    return crawl_site(tmp_path_factory.mktemp("graph"))


@pytest.fixture(scope="module")
def wat(warc, tmp_path_factory):
    return crawl_wat(warc, tmp_path_factory.mktemp("wat"))


def edges(run, warc, *args):
    """linksieve's edges: (source, target) -> (count, types)."""
    return edge_rows(run("run", "-q", "--format", "edges", *args, warc, check_status=0).stdout)


def attribute_pairs(found):
    """The pairs that some link of an attribute made (not only links of the text), and the
    node rows."""
    return {pair for pair, (_, types) in found.items() if types != {"text"}}


def node_pairs(warc, node):
    """(n, n) for the node `n` of each visited URL that has one (cc-pyspark's self-link,
    written by linksieve for every visited URL, as the row `n n 0 node`)."""
    return {(n, n) for n in map(node, visited_urls(warc)) if n}


def check_node_rows(found, nodes):
    """The node rows are those of the visited URLs: count 0 unless a link made the pair too."""
    assert {pair for pair, (_, types) in found.items() if "node" in types} == nodes
    assert all(found[p][0] == 0 for p in nodes if found[p][1] == {"node"})


def header_pairs(warc):
    """(target URI, link resolved against it by ada-url, type) of each record link."""
    for url, kind, value in record_links(warc):
        yield url, ada_url.join_url(url, value), kind


def test_the_crawl_has_redirects_link_fields_and_sitemaps(warc):
    kinds = Counter(kind for _, kind, _ in record_links(warc))
    assert {k for k in kinds if k.startswith("redirect-")} == {
        "redirect-301", "redirect-302", "redirect-307", "redirect-308"}, kinds
    assert kinds["link-header"] > 10 and kinds["sitemap"] == 2 * len(SERVED), kinds
    # the one difference from cc-pyspark's Link pattern (`cc_records.py`): the `<style>` inside
    # a quoted parameter is no link (RFC 8288 3)
    cc = Counter(record_links(warc, rfc8288=False)) - Counter(record_links(warc))
    assert {value for _, _, value in cc} == {"style"}, cc


def test_page_edges_match_html_parser_and_ada(run, warc):
    expected = Counter()
    types = {}
    documents = 0
    for url, text in html_responses(warc):
        documents += 1
        source = iri_model(ada_url.URL(url).href)
        links, _ = outlinks(text, url)
        expected.update((source, iri_model(h)) for _, _, h in links if h is not None)
    for url, link, kind in header_pairs(warc):
        pair = (iri_model(ada_url.URL(url).href), iri_model(link))
        expected[pair] += 1
        types.setdefault(pair, set()).add(kind)
    assert documents >= len(SERVED) * 6, documents
    # the string rung in web mode: each URL as the URL Standard writes it
    found = edges(run, warc, "--rung", "string", "--input-mode", "web")
    nodes = node_pairs(warc, lambda url: iri_model(ada_url.URL(url).href))
    check_node_rows(found, nodes)
    assert attribute_pairs(found) == set(expected) | nodes
    for pair, (n, found_types) in found.items():
        if "text" not in found_types:
            assert n == expected[pair], pair
    # each record link's type is on its edge
    for pair, kinds in types.items():
        assert kinds <= found[pair][1], (pair, found[pair])


@pytest.mark.parametrize("www", ["keep", "strip"])
def test_host_edges_match_cc_pyspark(run, warc, www):
    strip = www == "strip"
    expected = set()
    for url, text in html_responses(warc):
        source = get_surt_host(url, strip)
        links, _ = outlinks(text, url)
        for _, _, href in links:
            target = get_surt_host(href, strip) if href is not None else None
            if source and target and target != source:
                expected.add((source, target))
    for url, link, _ in header_pairs(warc):
        source, target = get_surt_host(url, strip), get_surt_host(link, strip)
        if source and target and target != source:
            expected.add((source, target))
    assert len(expected) > 20
    found = edges(run, warc, "--graph", "host", "--www", www)
    nodes = node_pairs(warc, lambda url: get_surt_host(url, strip))
    check_node_rows(found, nodes)
    assert attribute_pairs(found) == expected | nodes
    # the hosts the rule drops made no node: IPs, single labels, no authority
    names = {n for pair in found for n in pair}
    assert not any(n.endswith(".10.0.0") or n == "localhost" or "192" in n for n in names)
    assert ("org.example.upper" if strip else "org.example.upper.www") in names


# tldextract's own copy of the list (no fetch), private suffixes included
SUFFIXES = tldextract.TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)


def domain_of(surt_host):
    """cc-webgraph's fold of a reversed host name into its reversed registered domain (None for
    a public suffix itself, or a name on no rule of the list)."""
    if surt_host is None:
        return None
    domain = SUFFIXES(".".join(reversed(surt_host.split(".")))).top_domain_under_public_suffix
    return ".".join(reversed(domain.split("."))) if domain else None


def test_domain_edges_match_cc_pyspark_then_the_suffix_list(run, warc):
    expected = set()
    for url, text in html_responses(warc):
        source = domain_of(get_surt_host(url))
        links, _ = outlinks(text, url)
        for _, _, href in links:
            target = domain_of(get_surt_host(href)) if href is not None else None
            if source and target and target != source:
                expected.add((source, target))
    for url, link, _ in header_pairs(warc):
        source, target = domain_of(get_surt_host(url)), domain_of(get_surt_host(link))
        if source and target and target != source:
            expected.add((source, target))
    # the crawl's domains: the hosts under .example have none (no such suffix on the list)
    sources = {"uk.co.example", "io.github.me", "org.example", "net.example"}
    assert {s for s, _ in expected} == sources, expected
    # a private suffix: another github.io site is another domain
    assert "io.github.you" in {t for _, t in expected}
    found = edges(run, warc, "--graph", "domain")
    nodes = node_pairs(warc, lambda url: domain_of(get_surt_host(url)))
    check_node_rows(found, nodes)
    assert attribute_pairs(found) == expected | nodes


@pytest.mark.parametrize("graph", ["host", "domain"])
def test_graph_files_as_hostlinks_to_graph_writes_them(run, warc, tmp_path, graph):
    """`linksieve graph` against cc-pyspark's `hostlinks_to_graph.py` (commit 49daea0), ported
    here: vertices the distinct names sorted and numbered from 0 (one partition,
    `monotonically_increasing_id`), edges the pairs' IDs, self-loops removed, sorted; both
    files gzip text, `id<TAB>name` and `s<TAB>t`, read back by Python's gzip."""
    rows = tmp_path / "rows.tsv"
    rows.write_text(run("run", "-q", "--format", "edges", "--graph", graph, warc,
                        check_status=0).stdout)
    pairs = [tuple(line.split("\t")[:2]) for line in rows.read_text().splitlines()]
    names = sorted({n for pair in pairs for n in pair}, key=lambda n: n.encode())
    ids = {n: i for i, n in enumerate(names)}
    edges = sorted({(ids[s], ids[t]) for s, t in pairs if s != t})
    out = tmp_path / "g"
    run("graph", "-q", "--out", out, rows, check_status=0)
    with gzip.open(out / "vertices.txt.gz", "rt") as f:
        assert f.read() == "".join(f"{i}\t{n}\n" for i, n in enumerate(names))
    with gzip.open(out / "edges.txt.gz", "rt") as f:
        assert f.read() == "".join(f"{s}\t{t}\n" for s, t in edges)
    assert len(edges) > 10
    run("graph", "--check", out, check_status=0)


def test_wat_host_edges_match_cc_pyspark_get_links(run, wat):
    """Host edges of the WAT file against cc-pyspark's own reading of it (`get_links`, copied
    into `cc_wat.py`, over warcio and `json`); linksieve also takes a redirect's `Location`
    from a WAT record's head (cc-pyspark takes it from WARC files only)."""
    expected, redirects, cc_pairs = wat_host_edges(wat)
    assert redirects > 5 and len(expected) > 20
    found = set(edges(run, wat, "--graph", "host"))
    assert found == expected
    # cc-pyspark writes a page's self-link only when the page gave no link; linksieve marks
    # every visited page: more rows, the same vertices (a loop is no edge of the graph files)
    vertices = lambda pairs: {n for pair in pairs for n in pair}  # noqa: E731
    assert vertices(found) == vertices(cc_pairs)
    assert {(s, t) for s, t in cc_pairs if s == t} <= {(s, t) for s, t in found if s == t}


def test_wat_page_edges_are_the_warcs_read_as_html(run, wat, warc):
    """Two readings, two paths through linksieve: the WAT's listed links against the WARC's
    HTML, heads and all, read by the tokenizer; the same pairs but for the links of the text
    and the robots.txt sitemaps (which a WAT does not list)."""
    from_warc = {pair for pair, (_, types) in edges(run, warc).items()
                 if types - {"text", "sitemap"}}
    assert set(edges(run, wat)) == from_warc


def test_edges_summary_counts_the_links(run, warc, tmp_path):
    stats = tmp_path / "s.json"
    run("run", "-q", "--format", "edges", "--graph", "host", "--stats", stats, warc,
        check_status=0)
    e = json.loads(stats.read_text())["edges"]
    assert e["documents"] >= len(SERVED) * 6
    assert e["links_without_edge"] > 0 and e["edges"] > 20


@pytest.fixture(scope="session")
def webgraph():
    """The bin folder of WebGraph's tools (webgraph-cli, the Rust port of the framework by its
    authors; `scripts/webgraph.sh` builds it and `scripts/oracles.sh` names it)."""
    folder = os.environ.get("LINKSIEVE_WEBGRAPH")
    if not folder or not (Path(folder) / "webgraph-rank").exists():
        raise RuntimeError("LINKSIEVE_WEBGRAPH names no webgraph-cli build: run the oracle "
                           "tests through scripts/oracles.sh")
    return Path(folder)


@pytest.mark.parametrize("graph", ["page", "host"])
def test_webgraph_compresses_and_ranks_the_graph_files(run, warc, tmp_path, webgraph, graph):
    """The graph files through WebGraph itself, as cc-webgraph's `process_webgraph.sh` takes
    them: edges.txt.gz unzipped into `from arcs` (there `BVGraph -g ArcListASCIIGraph`), the
    compressed graph written back as arcs equal to the file, its node and arc counts those of
    vertices.txt.gz and edges.txt.gz, the weighted file read the same (its third column left);
    then the transpose and PageRank (`webgraph-rank`, Gauss-Seidel), equal to networkx's
    PageRank of the files read with Python's gzip, so a rank joined to a vertex by its line
    number names the same page or host."""
    rows = tmp_path / "rows.tsv"
    rows.write_text(run("run", "-q", "--format", "edges", "--graph", graph, warc,
                        check_status=0).stdout)
    with_weights = tmp_path / "weighted"
    run("graph", "-q", "--out", tmp_path, rows, check_status=0)
    run("graph", "-q", "--weights", "--out", with_weights, rows, check_status=0)
    with gzip.open(tmp_path / "vertices.txt.gz", "rt") as f:
        names = [line.rstrip("\n").split("\t")[1] for line in f]
    with gzip.open(tmp_path / "edges.txt.gz", "rb") as f:
        arcs = f.read()
    edges = [tuple(map(int, line.split(b"\t"))) for line in arcs.splitlines()]
    assert len(names) > 20 and len(edges) > len(names), (len(names), len(edges))

    def tool(name, *args, stdin=None):
        p = subprocess.run([str(webgraph / name), *map(str, args)], input=stdin,
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr.decode()[-2000:]
        return p.stdout

    for folder, base in [(tmp_path, tmp_path / "bv"), (with_weights, tmp_path / "bvw")]:
        with gzip.open(folder / "edges.txt.gz", "rb") as f:
            tool("webgraph", "from", "arcs", "--num-nodes", len(names), base, stdin=f.read())
        assert tool("webgraph", "to", "arcs", base) == arcs
        props = dict(line.split("=", 1) for line in
                     Path(f"{base}.properties").read_text().splitlines() if "=" in line)
        assert (int(props["nodes"]), int(props["arcs"])) == (len(names), len(edges))
    base, transpose, ranks = tmp_path / "bv", tmp_path / "bvt", tmp_path / "pagerank.txt"
    tool("webgraph", "build", "ef", base)
    tool("webgraph", "transform", "transpose", base, transpose)
    tool("webgraph", "build", "ef", transpose)
    tool("webgraph-rank", "pagerank", "--threshold", "1e-10", "-o", ranks, transpose)
    found = [float(x) for x in ranks.read_text().split()]
    g = networkx.DiGraph()
    g.add_nodes_from(range(len(names)))
    g.add_edges_from(edges)
    expected = networkx.pagerank(g, alpha=0.85, tol=1e-12, max_iter=1000)
    assert len(found) == len(names)
    assert max(abs(found[i] - expected[i]) for i in range(len(names))) < 1e-8

"""`--format parquet` (`run`) and `graph --format parquet` read by DuckDB, a reader linksieve
did not write: the rows must be those of the text formats (JSONL, TSV, the gzip graph files),
the host columns those of Python's `urllib` and tldextract's Public Suffix List, and the
queries of docs/guide.md must run."""

import gzip
import json
from urllib.parse import urlsplit

import duckdb
import tldextract

from test_warc import records, write_warc

SUFFIXES = tldextract.TLDExtract(suffix_list_urls=(), include_psl_private_domains=True)


def test_link_rows_in_duckdb_are_the_jsonl_rows(run, tmp_path):
    warc = tmp_path / "x.warc.gz"
    write_warc(warc, records(), True)
    rows = [json.loads(line) for line in
            run("run", "-q", "--format", "jsonl", warc, check_status=0).stdout.splitlines()]
    keys = {r["key"]: r for r in rows if "key" in r}
    tsv = dict(line.split("\t")[1::-1][:2] for line in
               run("run", "-q", "--format", "tsv", warc, check_status=0).stdout.splitlines())
    out = tmp_path / "links.parquet"
    run("run", "-q", "--format", "parquet", "--out", out, warc, check_status=0)
    got = duckdb.sql(
        f"SELECT url, lower(hex(fingerprint)), original, warc_filename, \"offset\", line, "
        f"provenance, rung, url_host_name, url_host_registered_domain, link_type "
        f"FROM '{out}'").fetchall()
    assert len(got) == len(keys) > 400
    for (url, fp, original, filename, offset, line, provenance, rung, host, domain,
         link_type) in got:
        want = keys[url]
        assert (original, filename, offset, line, provenance, rung) == (
            want["original"], want["file"], want["offset"], want["line"],
            want["provenance"], want["rung"]), url
        assert fp == tsv[url]
        expected_host = urlsplit(url).hostname
        assert host == expected_host, url
        if host:
            expected_domain = SUFFIXES(host).top_domain_under_public_suffix or None
            assert domain == expected_domain, url
        # a type where JSONL says where the link came from
        assert (link_type is not None) == ("from" in want), url
    # the guide's query
    top = duckdb.sql(f"SELECT url_host_registered_domain, count(*) AS links FROM '{out}' "
                     "GROUP BY 1 ORDER BY links DESC, 1 LIMIT 5").fetchall()
    assert top and top[0][1] >= top[-1][1]


def test_an_empty_run_is_an_empty_table(run, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("no links here\n")
    out = tmp_path / "e.parquet"
    run("run", "-q", "--format", "parquet", "--out", out, empty, check_status=0)
    assert duckdb.sql(f"SELECT count(*) FROM '{out}'").fetchall() == [(0,)]


def test_graph_tables_in_duckdb_are_the_text_files(run, tmp_path):
    rows = tmp_path / "rows.tsv"
    rows.write_text("".join(f"org.h{i % 13}\tcom.h{(i * 7) % 17}\t{i % 3 + 1}\n"
                            for i in range(300)) + "org.h1\torg.h1\t1\n")
    text, table = tmp_path / "text", tmp_path / "table"
    run("graph", "-q", "--weights", "--out", text, rows, check_status=0)
    run("graph", "-q", "--weights", "--format", "parquet", "--out", table, rows,
        check_status=0)
    with gzip.open(text / "vertices.txt.gz", "rt") as f:
        vertices = [(int(i), n) for i, n in (line.split("\t") for line in f.read().splitlines())]
    with gzip.open(text / "edges.txt.gz", "rt") as f:
        edges = [tuple(map(int, line.split("\t"))) for line in f.read().splitlines()]
    assert duckdb.sql(f"SELECT id, name FROM '{table}/vertices.parquet'").fetchall() == vertices
    assert duckdb.sql(f"SELECT s, t, count FROM '{table}/edges.parquet'").fetchall() == edges
    # the guide's backlink query
    top = duckdb.sql(
        f"SELECT v.name, count(*) AS backlinks FROM '{table}/edges.parquet' e "
        f"JOIN '{table}/vertices.parquet' v ON e.t = v.id "
        "GROUP BY v.name ORDER BY backlinks DESC, v.name LIMIT 3").fetchall()
    assert top[0][0].startswith("com.h")


def test_graph_check_reads_tables_duckdb_wrote(run, tmp_path):
    """`graph --check` on Parquet graph tables written by DuckDB (not by linksieve): the sorted
    tables pass, and each broken rule fails (exit 1) naming the table and the row."""

    def tables(name, vertices, edges):
        d = tmp_path / name
        d.mkdir()
        v = ", ".join(f"({i}, '{n}')" for i, n in vertices) or "(0, 'x')"
        e = ", ".join(f"({s}, {t})" for s, t in edges) or "(0, 0)"
        where = "" if vertices else " WHERE false"
        duckdb.sql(f"COPY (SELECT * FROM (VALUES {v}) AS v(id, name){where}) "
                   f"TO '{d}/vertices.parquet' (FORMAT parquet)")
        where = "" if edges else " WHERE false"
        duckdb.sql(f"COPY (SELECT * FROM (VALUES {e}) AS e(s, t){where}) "
                   f"TO '{d}/edges.parquet' (FORMAT parquet)")
        return d

    names = [(0, "com.a"), (1, "com.b"), (2, "org.a")]
    ok = tables("ok", names, [(0, 1), (0, 2), (2, 0)])
    r = run("graph", "--check", ok, check_status=0)
    assert "3 vertices, 3 edges" in r.stderr
    run("graph", "-q", "--check", tables("empty", [], []), check_status=0)
    for name, vertices, edges, why in [
        ("names", [(0, "com.b"), (1, "com.a")], [], "vertices.parquet row 2: vertices not sorted"),
        ("ids", [(0, "com.a"), (2, "com.b")], [], "vertices.parquet row 2: ID \"2\" where 1"),
        ("order", names, [(0, 2), (0, 1)], "edges.parquet row 2: edges not sorted"),
        ("loop", names, [(1, 1)], "edges.parquet row 1: a self-loop on 1"),
        ("dangling", names, [(0, 3)], "edges.parquet row 1: \"3\" is no vertex ID"),
    ]:
        r = run("graph", "--check", tables(name, vertices, edges), check_status=1)
        assert why in r.stderr, (name, r.stderr)
    # linksieve's own tables pass, and a table without the layout's columns is refused
    rows = tmp_path / "rows.tsv"
    rows.write_text("org.b\tcom.a\t2\ncom.a\torg.b\t1\ncom.a\tcom.a\t0\n")
    own = tmp_path / "own"
    run("graph", "-q", "--format", "parquet", "--out", own, rows, check_status=0)
    assert "2 vertices, 2 edges" in run("graph", "--check", own, check_status=0).stderr
    duckdb.sql(f"COPY (SELECT 0 AS id, 'com.a' AS label) TO '{ok}/vertices.parquet' "
               "(FORMAT parquet)")
    assert "no column \"name\"" in run("graph", "--check", ok, check_status=1).stderr

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

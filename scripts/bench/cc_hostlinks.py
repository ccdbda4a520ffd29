"""The peer of `scripts/bench-graph.sh`: Common Crawl's host-link extraction as cc-pyspark runs
it (`hostlinks_extract_fastwarc.py`: WAT records for the links of pages, WARC responses for
redirects, FastWARC reading them), under local PySpark on one core.

The record logic is copied from cc-pyspark's `wat_extract_links.py` (`ExtractLinksJob`,
`ExtractHostLinksJob`) and `hostlinks_extract_fastwarc.py` (https://github.com/commoncrawl/cc-pyspark,
commit 49daea0, MIT licence, Copyright (c) 2017 Common Crawl): the methods are functions here and
the Spark counters are left out; `get_surt_host` is tests/oracles/cc_hosts.py's copy (which
strips `www.` as this commit does), the page-level pieces both jobs share are
tests/oracles/cc_wat.py's copies. The job reads each input file in a partition, keeps each
(source host, target host) pair once (`distinct`, as the job's `dropDuplicates`; the
self-link of a record that gave no link included, as the job writes it), and writes the
pairs sorted to OUT.

    python cc_hostlinks.py OUT FILE...      (spark-venv python; cc_hosts.py on sys.path)

Prints `records=N pairs=M job_s=S` (S: from the first task to the last pair collected).
"""

import json
import re
import sys
import time
from urllib.parse import urljoin

from cc_hosts import get_surt_host as _surt
from cc_wat import (extract_http_header_links, html_meta_links, html_meta_property_links,
                    url_abs_pattern)

http_redirect_pattern = re.compile(b'^HTTP\\s*/\\s*1\\.[01]\\s*30[12378]\\b')
http_redirect_location_pattern = re.compile(b'^Location:\\s*(\\S+)', re.IGNORECASE)
global_link_pattern = re.compile(r'^(?:[a-z][a-z0-9]{1,5}:)?//', re.IGNORECASE | re.ASCII)


def get_surt_host(url):
    return _surt(url, True)


def yield_http_header_links(url, headers, src_host=None):
    links = extract_http_header_links(headers)
    if links:
        if not src_host:
            src_host = get_surt_host(url)
            if not src_host:
                return
        for link in links:
            host = get_surt_host(link)
            if host is not None and src_host != host:
                yield src_host, host


def yield_links(src_url, base_url, links, url_attr, opt_attr=None, src_host=None,
                base_host=None):
    if not src_host:
        src_host = get_surt_host(src_url)
    if base_url and not base_host:
        base_host = get_surt_host(base_url)
    if base_host and not src_host:
        src_host = base_host
    if not src_host:
        return
    target_hosts = set()
    inner_host_links = 0
    for l in links:
        if not l:
            continue
        if url_attr in l:
            link = l[url_attr]
        elif opt_attr in l and url_abs_pattern.match(l[opt_attr]):
            link = l[opt_attr]
        else:
            continue
        if global_link_pattern.match(link):
            try:
                thost = get_surt_host(link)
                if not thost:
                    pass
                elif thost == src_host:
                    pass
                else:
                    target_hosts.add(thost)
            except ValueError:
                pass
        else:
            inner_host_links += 1
    for t in target_hosts:
        yield src_host, t
    if inner_host_links > 0 and base_url is not None:
        if base_host and base_host != src_host:
            yield src_host, base_host


def yield_link(src, target):
    src_host = get_surt_host(src)
    thost = get_surt_host(target)
    if thost and src_host:
        yield src_host, thost


def get_links(url, record):
    try:
        response_meta = record['Envelope']['Payload-Metadata']['HTTP-Response-Metadata']
        src_host = get_surt_host(url)
        if src_host:
            if 'Headers' in response_meta:
                for l in yield_http_header_links(url, response_meta['Headers'],
                                                 src_host=src_host):
                    yield l
        if 'HTML-Metadata' not in response_meta:
            return
        html_meta = response_meta['HTML-Metadata']
        base = None
        base_host = None
        if 'Head' in html_meta:
            head = html_meta['Head']
            if 'Base' in head:
                try:
                    base = urljoin(url, head['Base'])
                    base_host = get_surt_host(base)
                except ValueError:
                    pass
            if 'Link' in head:
                for l in yield_links(url, base, head['Link'], 'url',
                                     src_host=src_host, base_host=base_host):
                    yield l
            if 'Metas' in head:
                for m in head['Metas']:
                    if (('property' in m and m['property'] in html_meta_property_links)
                            or ('name' in m and m['name'] in html_meta_links)
                            or ('content' in m and url_abs_pattern.match(m['content']))):
                        for l in yield_links(url, base, [m], 'content',
                                             src_host=src_host, base_host=base_host):
                            yield l
            if 'Scripts' in head:
                for l in yield_links(url, base, head['Scripts'], 'url',
                                     src_host=src_host, base_host=base_host):
                    yield l
        if 'Links' in html_meta:
            for l in yield_links(url, base, html_meta['Links'], 'url', 'href',
                                 src_host=src_host, base_host=base_host):
                yield l
    except KeyError:
        return


def process_redirect(record, stream):
    line = stream.readline()
    while line:
        m = http_redirect_location_pattern.match(line)
        if m:
            redir_to = m.group(1).strip()
            try:
                redir_to = redir_to.decode('utf-8')
            except UnicodeError:
                return
            redir_from = record.headers.get('WARC-Target-URI')
            for link in yield_link(redir_from, redir_to):
                yield link
            return
        elif line == b'\r\n':
            return
        line = stream.readline()


def process_record(record):
    from fastwarc.warc import WarcRecordType
    link_count = 0
    if (record.record_type == WarcRecordType.metadata
            and record.headers.get('Content-Type') == 'application/json'):
        try:
            wat_record = json.loads(record.reader.read())
        except ValueError:
            return
        warc_header = wat_record['Envelope']['WARC-Header-Metadata']
        if warc_header['WARC-Type'] != 'response':
            return
        url = warc_header['WARC-Target-URI']
        for link in get_links(url, wat_record):
            link_count += 1
            yield link
    elif record.record_type == WarcRecordType.response:
        stream = record.reader
        http_status_line = stream.readline()
        if http_redirect_pattern.match(http_status_line):
            for link in process_redirect(record, stream):
                link_count += 1
                yield link
    else:
        return
    if link_count == 0:
        uri = record.headers.get('WARC-Target-URI')
        for link in yield_link(uri, uri):
            yield link


def process_file(path, counter):
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    it = ArchiveIterator(path, record_types=WarcRecordType.metadata | WarcRecordType.response,
                         parse_http=False)
    for record in it:
        counter.add(1)
        for pair in process_record(record):
            yield pair


def main():
    from pyspark.sql import SparkSession
    out, files = sys.argv[1], sys.argv[2:]
    spark = (SparkSession.builder.master("local[1]").appName("cc-hostlinks")
             .config("spark.ui.enabled", "false").getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    for module in ("cc_hosts", "cc_wat"):
        sc.addPyFile(sys.modules[module].__file__)
    records = sc.accumulator(0)
    t0 = time.monotonic()
    pairs = (sc.parallelize(files, len(files))
             .flatMap(lambda f: process_file(f, records))
             .distinct()
             .collect())
    job_s = time.monotonic() - t0
    with open(out, "w") as f:
        for s, t in sorted(pairs):
            f.write(f"{s}\t{t}\n")
    print(f"records={records.value} pairs={len(pairs)} job_s={job_s:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()

"""integrations/spark/linksieve_arrow.py's mapInArrow function, without Spark: record batches
in, the same keys as normalize_many out (the loopback cluster run is in
scripts/spark-loopback.sh, job G)."""

import doctest
import importlib.util
from pathlib import Path

import pyarrow as pa

import linksieve

PATH = Path(__file__).resolve().parents[2] / "integrations/spark/linksieve_arrow.py"


def load():
    spec = importlib.util.spec_from_file_location("linksieve_arrow", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_key_batches_equal_normalize_many(non_normal):
    job = load()
    urls = non_normal[:10000] + ["http://a b/"]
    batches = [pa.RecordBatch.from_pydict({"value": urls[i:i + 3000]})
               for i in range(0, len(urls), 3000)]
    out = list(job.key_batches(iter(batches), {"level": "protocol"}))
    assert [b.schema.names for b in out] == [["url", "key"]] * len(batches)
    assert all(b.schema.field("key").type == pa.string() for b in out)
    keys = [k for b in out for k in b.column("key").to_pylist()]
    assert keys == linksieve.normalize_many(urls, level="protocol")
    assert keys[-1] is None


def test_module_doctest():
    failures, tried = doctest.testmod(load())
    assert tried > 0 and failures == 0


def test_bad_partitions_is_a_usage_error():
    assert load().main(["--input", "x", "--out", "y", "--partitions", "0"]) == 2

"""integrations/spark/linksieve_arrow.py's mapInArrow function, without Spark: record batches
in, the same keys as normalize_many out (the loopback cluster run is in
scripts/spark-loopback.sh, job G)."""

import doctest
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

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
    out = list(job.key_batches(iter(batches), {"rung": "protocol"}))
    assert [b.schema.names for b in out] == [["url", "key"]] * len(batches)
    assert all(b.schema.field("key").type == pa.string() for b in out)
    keys = [k for b in out for k in b.column("key").to_pylist()]
    assert keys == linksieve.normalize_many(urls, rung="protocol")
    assert keys[-1] is None


def test_module_doctest():
    failures, tried = doctest.testmod(load())
    assert tried > 0 and failures == 0


def test_bad_partitions_is_a_usage_error():
    assert load().main(["--input", "x", "--out", "y", "--partitions", "0"]) == 2


def test_use_wheel_imports_the_module_of_the_wheel(tmp_path):
    """--wheel: the module comes from the extracted wheel, ahead of the installed one."""
    wheel = os.environ.get("LINKSIEVE_WHEEL")
    if not wheel:
        pytest.fail("LINKSIEVE_WHEEL is not set: run scripts/python-tests.sh")
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('job', {str(PATH)!r})\n"
        "job = importlib.util.module_from_spec(spec); spec.loader.exec_module(job)\n"
        f"job.use_wheel({wheel!r}, {str(tmp_path)!r})\n"
        f"job.use_wheel({wheel!r}, {str(tmp_path)!r})  # once: the second finds it extracted\n"
        "import linksieve\n"
        "print(linksieve.__file__)\n"
        "print(linksieve.normalize('HTTP://A.example:80/x'))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    where, key = p.stdout.splitlines()
    assert where.startswith(str(tmp_path)) and key == "http://a.example/x"
    assert [e.name for e in tmp_path.iterdir()] == [Path(wheel).name + ".d"]

"""Keys for a column of URLs on Apache Spark with the `linksieve` Python module, through Arrow:
``mapInArrow`` hands each task its rows as pyarrow record batches and ``normalize_many`` keys a
batch's column in Rust, on the executor's cores, without a Python object per URL.

Where the module is installed on the executors (its wheel, ``scripts/wheel.sh``, into the Python
that ``PYSPARK_PYTHON`` names), or shipped with the job (``--wheel``: Spark copies the wheel to
each executor, which extracts it once and imports the module from it), this replaces the subprocess of
``linksieve_spark.py`` for URL columns (tables, logs already split into fields); the
``linksieve`` binary remains the tool for whole files (decoding, WARC, link extraction).

    spark-submit linksieve_arrow.py --input FILE[,FILE...] --out DIR \\
        [--rung string|syntax|scheme|protocol] [--form uri|iri|surt] [--input-mode strict|leiri|web] \\
        [--profile NAME[:OPTS]] [--partitions N] [--wheel linksieve-*.whl]

Reads the inputs as text, one URL a line (``spark.read.text``), keys each line, drops the lines
without a key (counted), keeps each key once (``dropDuplicates``) and writes the keys to
``--out`` (must not exist), sorted by code point in text part files whose concatenation in
name order is sorted: the output of ``cat FILES | linksieve normalize | LC_ALL=C sort -u``.

A summary goes to stderr: ``linksieve_arrow: N lines, K keys, R lines without a key``.
Exit status: 0; 1 when the job failed; 2 on usage errors.

Needs PySpark 4.x, pyarrow and pandas (PySpark's ``mapInArrow`` checks for it) on the driver and
the executors, and linksieve there too unless ``--wheel`` ships it.

>>> import pyarrow as pa
>>> batch = pa.RecordBatch.from_pydict({"value": ["HTTP://A.example:80/x", "http://a b/"]})
>>> [b.to_pydict() for b in key_batches([batch], {"rung": "scheme"})]
[{'url': ['HTTP://A.example:80/x', 'http://a b/'], 'key': ['http://a.example/x', None]}]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from typing import Any

EXIT_USAGE = 2


def use_wheel(path: str, root: str) -> None:
    """Puts the module of the wheel at ``path`` first on ``sys.path``, extracted under ``root``
    once (a wheel is a zip, and the extension module in it cannot be imported from the zip).
    The Python workers of one executor may race: the first to rename its extraction wins."""
    target = os.path.join(root, os.path.basename(path) + ".d")
    if not os.path.isdir(target):
        tmp = tempfile.mkdtemp(prefix=".linksieve-extract-", dir=root)
        with zipfile.ZipFile(path) as z:
            z.extractall(tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    if target not in sys.path:
        sys.path.insert(0, target)


def key_batches(
    batches: Iterator[Any], options: dict[str, Any], wheel: str | None = None
) -> Iterator[Any]:
    """The mapInArrow function: each batch's ``value`` column with its keys beside it (null
    where a line has no key). Runs on the executors; ``wheel``: the file name of a wheel the job
    shipped (``SparkContext.addFile``), whose module is used."""
    import pyarrow as pa

    if wheel is not None:
        from pyspark import SparkFiles

        use_wheel(SparkFiles.get(wheel), SparkFiles.getRootDirectory())
    import linksieve

    for batch in batches:
        urls = batch.column("value")
        keys = linksieve.normalize_many(urls, **options)
        yield pa.RecordBatch.from_arrays([urls, keys.cast(pa.string())], names=["url", "key"])


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", required=True, help="comma-separated files or folders")
    p.add_argument("--out", required=True, help="output folder (must not exist)")
    p.add_argument("--rung", "--level", dest="rung", default="scheme",
                   choices=["string", "syntax", "scheme", "protocol"],
                   help="rung of the comparison ladder (--level is its old name)")
    p.add_argument("--form", default="uri", choices=["uri", "iri", "surt"])
    p.add_argument("--input-mode", "--mode", dest="input_mode", default="strict",
                   choices=["strict", "leiri", "web"],
                   help="input mode (3987bis 6; --mode is its old name)")
    p.add_argument("--profile", help="a canonicalizer to reproduce (w3lib, surt-ia, ...)")
    p.add_argument("--partitions", type=int, default=None,
                   help="output partitions, 1 to 100000 (default: Spark's)")
    p.add_argument("--wheel", help="a linksieve wheel (scripts/wheel.sh) to ship to the "
                   "executors and use there and here, instead of an installed module")
    return p


def main(argv: list[str] | None = None, spark=None) -> int:
    """The job with the arguments ``argv`` (default: the command line). ``spark``: a session to
    run it in, which is left running; by default the job makes its own and stops it."""
    args = build_parser().parse_args(argv)
    if args.partitions is not None and not 1 <= args.partitions <= 100_000:
        print("linksieve_arrow: --partitions must be 1 to 100000", file=sys.stderr)
        return EXIT_USAGE
    scratch = None
    if args.wheel:
        if not os.path.isfile(args.wheel):
            print(f"linksieve_arrow: --wheel {args.wheel}: no such file", file=sys.stderr)
            return EXIT_USAGE
        scratch = tempfile.mkdtemp(prefix="linksieve-arrow-")
        use_wheel(args.wheel, scratch)
    try:
        return run(args, spark)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def run(args: argparse.Namespace, spark=None) -> int:
    """The job, with its arguments checked, in ``spark`` (left running) or in a session of its
    own."""
    import linksieve
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    options: dict[str, Any] = {"rung": args.rung, "form": args.form, "input_mode": args.input_mode}
    if args.profile:
        options = {"profile": args.profile}
    try:
        linksieve.Normalizer(**options)  # a bad option is a usage error, before any work
    except ValueError as e:
        print(f"linksieve_arrow: {e}", file=sys.stderr)
        return EXIT_USAGE
    own = spark is None
    if own:
        spark = SparkSession.builder.appName("linksieve_arrow").getOrCreate()
    wheel = None
    if args.wheel:
        spark.sparkContext.addFile(os.path.abspath(args.wheel))
        wheel = os.path.basename(args.wheel)
    try:
        lines = spark.read.text(args.input.split(","))
        keyed = lines.mapInArrow(
            lambda batches: key_batches(batches, options, wheel), "url string, key string"
        ).cache()
        total = keyed.count()
        rejected = keyed.filter(F.col("key").isNull()).count()
        keys = keyed.filter(F.col("key").isNotNull()).select("key").dropDuplicates(["key"])
        if args.partitions:
            keys = keys.repartitionByRange(args.partitions, "key")
        # binary order of the UTF-8 bytes: the code point order of LC_ALL=C sort
        ordered = keys.orderBy(F.col("key").cast("binary"))
        ordered.write.text(args.out)
        n_keys = spark.read.text(args.out).count()
    except Exception as e:  # noqa: BLE001  (a failed job is exit status 1 with its reason)
        print(f"linksieve_arrow: job failed: {e}", file=sys.stderr)
        return 1
    finally:
        if own:
            spark.stop()
    print(f"linksieve_arrow: {total} lines, {n_keys} keys, {rejected} lines without a key",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

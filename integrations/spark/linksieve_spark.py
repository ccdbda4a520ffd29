"""linksieve on Apache Spark: find every IRI in the inputs, key it, and let each key leave the
cluster once.

Submit with the linksieve binary shipped to every executor:

    spark-submit --files /path/to/linksieve linksieve_spark.py \\
        --input PATH[,PATH...] --out DIR [--seen DIR] \\
        [--rung string|syntax|scheme|protocol] [--form uri|iri|surt] [--rules FILE] \\
        [--profile NAME[:OPTS]] \\
        [--partitions N] [--tsv | --edges page|host|domain [--www keep|strip]]

What happens:

1. Inputs are read with ``sc.binaryFiles``: whole files, as bytes. Not ``sc.textFile`` (nor
   ``RDD.pipe``): PySpark decodes those as UTF-8 line by line, which would destroy legacy
   encodings (Shift_JIS, Big5, KOI8-R, ...), compressed files (gzip, zstd, bzip2) and WARC/WET
   record framing before linksieve sees them. With whole files, each file is read exactly as
   ``linksieve run`` reads it on one machine: compression sniffed by magic number, WARC/WET read
   record by record with the charset each record declares, per-file encoding detection.
   Folders are read recursively; Hadoop's input rule applies: files and folders whose name
   starts with ``_`` or ``.`` are skipped (``linksieve run`` reads them).
2. Per partition (``mapPartitions``), the partition's files are written to a temporary folder and
   ONE ``linksieve run --format tsv -q -j 1 FILES...`` process keys them. Its rows
   (``fingerprint<TAB>key<TAB>original<TAB>provenance``) are streamed back; the temporary paths in
   the provenance are mapped back to the original paths. A non-zero exit fails the task with
   linksieve's stderr in the error, which is what ``RDD.pipe(..., checkCode=True)`` does: Spark
   retries the task and, after ``spark.task.maxFailures``, fails the job; no partial partition
   is ever taken for complete.
3. Exact dedup by the fingerprint (the 128-bit XXH3 fingerprint of the key, the first field) with Spark's
   shuffle (``reduceByKey``), keeping the row of the first occurrence in (path, line, offset)
   order, so each key leaves the cluster once.
4. With ``--seen DIR``: a Parquet set of the keys written by earlier runs (column ``key``: 16-byte
   binary, or 32 hex digits) and a sidecar ``DIR/_linksieve_identity.json`` (the output of
   ``linksieve identity`` for the options used). A run whose identity differs in hash, hash
   version, rung, form, rule-set version or profile is refused before any work (exit status 3), as the
   local persistent store refuses to open. New keys are the run's keys left-anti-joined with the
   set; they are written to ``--out`` first and only then appended to the set.
5. ``--out DIR`` (must not exist) gets the new canonical keys, one per line, sorted by code point
   (the order of ``LC_ALL=C sort``), in text part files whose concatenation in name order is
   sorted; with ``--tsv``, the full rows instead, fields escaped as linksieve escapes them
   (``\\\\`` ``\\t`` ``\\n`` ``\\r``), sorted the same way.

6. With ``--edges page|host|domain``, the link graph instead of keys: each partition runs
   ``linksieve run --format edges --graph LEVEL``; the edges are summed over the partitions by
   (source, target) through the shuffle (counts added, link types joined) and written sorted by
   source then target, ``source<TAB>target<TAB>count<TAB>types``: the rows ``linksieve run
   --format edges`` writes on one machine for the same inputs (the loopback test checks it).

A one-line summary goes to stderr at the end. Exit status: 0; 1 when the job failed (an input
could not be read, an executor could not run linksieve); 2 on usage errors; 3 when the seen set
belongs to other options.

Needs Python 3.11 and PySpark 4.x, nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

IDENTITY_FILE = "_linksieve_identity.json"
# The fields of `linksieve identity` that decide whether two runs' keys may be compared.
IDENTITY_FIELDS = (
    "hash", "hash_version", "rung", "form", "ruleset_version", "profile", "nfc", "input",
)
# What a sidecar written before `linksieve identity` printed a field meant by its absence.
IDENTITY_DEFAULTS = {"nfc": False, "input": "leiri"}
EXIT_USAGE = 2
EXIT_SEEN_MISMATCH = 3

_UNESCAPE = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def escape_field(text: str) -> str:
    """Escape a field as linksieve's TSV does: backslash, TAB, LF, CR.

    >>> escape_field("a\\tb\\\\c")
    'a\\\\tb\\\\\\\\c'
    """
    return (
        text.replace("\\", "\\\\")
        .replace("\t", "\\t")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )


def unescape_field(text: str) -> str:
    """Undo :func:`escape_field` (an unknown escape is kept as it is).

    >>> unescape_field("a\\\\tb\\\\\\\\c")
    'a\\tb\\\\c'
    """
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in _UNESCAPE:
            out.append(_UNESCAPE[text[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _local_binary(name: str) -> str:
    """Path of a file shipped with ``--files`` (or ``sc.addFile``), made executable."""
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if not os.path.exists(path):
        raise RuntimeError(
            f"{name} not found at {path}: submit with `spark-submit --files /path/to/{name} ...`"
        )
    if not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError:
            # Not ours to chmod: run a private copy.
            copy = os.path.join(tempfile.mkdtemp(prefix="linksieve-bin-"), name)
            shutil.copy(path, copy)
            os.chmod(copy, 0o755)
            path = copy
    return path


def _key_options(rung: str, form: str, rules: str | None, profile: str | None) -> list[str]:
    """The options that decide the keys, for `run` and `identity` alike (executor side)."""
    from pyspark import SparkFiles

    opts = ["--rung", rung, "--form", form]
    if rules:
        opts += ["--rules", SparkFiles.get(rules)]
    if profile:
        opts += ["--profile", profile]
    return opts


def _scratch_root() -> str:
    # Executors get their local dirs in SPARK_LOCAL_DIRS (standalone, YARN): use the first.
    dirs = os.environ.get("SPARK_LOCAL_DIRS", "")
    first = dirs.split(",")[0] if dirs else ""
    return first if first and os.path.isdir(first) else tempfile.gettempdir()


def _sort_key(provenance: str, files: dict[str, str]):
    """(kind, where, line, offset) for an (unmapped) provenance; kind 0 = a file position."""
    parts = provenance.rsplit(":", 2)
    if len(parts) == 3 and parts[0] in files and parts[1].isdigit() and parts[2].isdigit():
        return (0, files[parts[0]], int(parts[1]), int(parts[2]))
    # A WARC/WET record: its WARC-Target-URI.
    return (1, provenance, 0, 0)


def _linksieve_lines(records, args: list[str], files_acc):
    """Writes a partition's (path, bytes) files to a temporary folder, in path order, and runs ONE
    ``linksieve ARGS -q -j 1 FILES...`` over them; yields ``(fields, files)`` for each line it
    prints (``files``: temporary path -> original path). A non-zero exit raises, with linksieve's
    stderr, after the lines (as ``RDD.pipe(..., checkCode=True)``: Spark retries the task, then
    fails the job; a partial partition is never taken for a whole one)."""
    binary = _local_binary("linksieve")
    tmp = tempfile.mkdtemp(prefix="linksieve-part-", dir=_scratch_root())
    try:
        # In path order, so the first occurrence linksieve keeps in this partition is the
        # smallest (path, line, offset) of the partition.
        written: list[tuple[str, str]] = []
        for n, (path, data) in enumerate(records):
            local = os.path.join(tmp, f"{n:07d}")
            with open(local, "wb") as f:
                f.write(data)
            written.append((path, local))
        if not written:
            return
        written.sort()
        files = {local: path for path, local in written}
        files_acc.add(len(written))
        cmd = [binary, *args, "-q", "-j", "1", "--"] + [local for _, local in written]
        with open(os.path.join(tmp, "stderr"), "w+b") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
            try:
                for raw in proc.stdout:
                    yield raw.decode("utf-8").rstrip("\n").split("\t"), files
            finally:
                proc.stdout.close()
                code = proc.wait()
            if code != 0:
                err.seek(0)
                msg = err.read().decode("utf-8", "replace").strip()
                raise RuntimeError(
                    f"linksieve exited with status {code} on a partition of "
                    f"{len(written)} files ({written[0][0]} ...): {msg[-4000:]}"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def make_partition_runner(
    rung: str, form: str, rules: str | None, profile: str | None, files_acc, rows_acc
):
    """The mapPartitions function: (path, bytes) pairs in, (key, value) rows out.

    The value is ``(sort_key, canonical, original, provenance)``, fields as linksieve escaped
    them, with temporary paths in the provenance replaced by the original (escaped) path.
    """

    def run_partition(records):
        args = ["run", "--format", "tsv"] + _key_options(rung, form, rules, profile)
        count = 0
        for fields, files in _linksieve_lines(records, args, files_acc):
            if len(fields) != 4:
                raise RuntimeError(
                    f"linksieve printed a row with {len(fields)} fields, not 4 "
                    f"(is the binary older than `--format tsv` with 4 fields?): "
                    f"{chr(9).join(fields)[:200]!r}"
                )
            key, canonical, original, prov = fields
            sk = _sort_key(prov, files)
            if sk[0] == 0:
                prov = f"{escape_field(sk[1])}:{sk[2]}:{sk[3]}"
            count += 1
            yield key, (sk, canonical, original, prov)
        rows_acc.add(count)

    return run_partition


# The link types of an edge, in the order `linksieve run --format edges` writes them
# (crates/graph/src/types.rs, `ALL`); the loopback test compares the cluster's edges with one
# machine's, so an order that drifted would fail it.
LINK_TYPES = (
    "a", "img", "script", "style", "canonical", "link", "refresh", "frame", "other", "text",
    "redirect-301", "redirect-302", "redirect-303", "redirect-307", "redirect-308",
    "link-header", "sitemap", "node",
)


def make_edges_runner(graph: str, www: str | None, key_args: list[str], files_acc, rows_acc):
    """The mapPartitions function of ``--edges``: (path, bytes) pairs in, ``((source, target),
    (count, types))`` out, one per edge of the partition's documents (names as linksieve
    escaped them)."""

    def run_partition(records):
        args = ["run", "--format", "edges", "--graph", graph] + key_args
        if www:
            args += ["--www", www]
        count = 0
        for fields, _ in _linksieve_lines(records, args, files_acc):
            if len(fields) != 4:
                raise RuntimeError(f"linksieve printed an edge of {len(fields)} fields, not 4")
            source, target, n, types = fields
            count += 1
            yield (source, target), (int(n), frozenset(types.split(",")))
        rows_acc.add(count)

    return run_partition


def _sum_edges(a, b):
    """Two partitions' counts of one edge, summed, their types joined."""
    return a[0] + b[0], a[1] | b[1]


def _first(a, b):
    """The representative of a key: the smallest (provenance order, then original)."""
    return a if (a[0], a[2]) <= (b[0], b[2]) else b


def identity_of(sc, rung: str, form: str, rules: str | None, profile: str | None) -> dict:
    """`linksieve identity` for these options, run by an executor (the binary that makes keys)."""

    def ident(_):
        binary = _local_binary("linksieve")
        cmd = [binary, "identity"] + _key_options(rung, form, rules, profile)
        proc = subprocess.run(cmd, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"`linksieve identity` failed with status {proc.returncode}: "
                + proc.stderr.decode("utf-8", "replace")
            )
        yield proc.stdout.decode("utf-8")

    out = sc.parallelize([0], 1).mapPartitions(ident).collect()
    return json.loads(out[0])


class _HadoopFs:
    """Small files next to the data (the identity sidecar) on any Hadoop file system."""

    def __init__(self, spark, directory: str):
        jvm = spark.sparkContext._jvm
        self._jvm = jvm
        self._dir = jvm.org.apache.hadoop.fs.Path(directory)
        self._fs = self._dir.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def exists(self, name: str | None = None) -> bool:
        p = self._dir if name is None else self._jvm.org.apache.hadoop.fs.Path(self._dir, name)
        return bool(self._fs.exists(p))

    def has_data(self) -> bool:
        """True when the folder holds a file that Spark would read (not `_x` or `.x`)."""
        if not self._fs.exists(self._dir):
            return False
        for st in self._fs.listStatus(self._dir):
            name = st.getPath().getName()
            if not name.startswith(("_", ".")):
                return True
        return False

    def read_text(self, name: str) -> str:
        p = self._jvm.org.apache.hadoop.fs.Path(self._dir, name)
        stream = self._fs.open(p)
        try:
            reader = self._jvm.java.io.BufferedReader(
                self._jvm.java.io.InputStreamReader(stream, "UTF-8")
            )
            lines = []
            while True:
                line = reader.readLine()
                if line is None:
                    break
                lines.append(line)
            return "\n".join(lines)
        finally:
            stream.close()

    def write_text(self, name: str, text: str) -> None:
        self._fs.mkdirs(self._dir)
        p = self._jvm.org.apache.hadoop.fs.Path(self._dir, name)
        out = self._fs.create(p, True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()


def check_seen_identity(fs: _HadoopFs, seen: str, ident: dict) -> str | None:
    """None when the seen set may be used with `ident`, else the reason to refuse."""
    if not fs.exists(IDENTITY_FILE):
        if fs.has_data():
            return (
                f"{seen} holds data but no {IDENTITY_FILE}: refusing to compare keys of "
                "unknown rung/form/hash"
            )
        return None
    try:
        stored = json.loads(fs.read_text(IDENTITY_FILE))
    except ValueError as e:
        return f"{seen}/{IDENTITY_FILE} is not JSON: {e}"
    diffs = [
        f"{k}: seen set has {stored.get(k, IDENTITY_DEFAULTS.get(k))!r}, this run {ident.get(k)!r}"
        for k in IDENTITY_FIELDS
        if stored.get(k, IDENTITY_DEFAULTS.get(k)) != ident.get(k)
    ]
    if diffs:
        return f"{seen} was written with other options: " + "; ".join(diffs)
    return None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="linksieve_spark.py",
        description=(
            "linksieve on Apache Spark: key every IRI of the inputs with linksieve (one process "
            "per partition) and write each key once, deduplicated exactly by its 128-bit "
            "fingerprint through Spark's shuffle. Submit with "
            "`spark-submit --files /path/to/linksieve linksieve_spark.py ...`."
        ),
        epilog=(
            "Exit status: 0 ok; 1 job failed (e.g. an input could not be read); 2 usage error; "
            "3 the --seen set was written with another rung/form/hash/rule set."
        ),
    )
    p.add_argument(
        "--input",
        required=True,
        metavar="PATH[,PATH...]",
        help="files, folders (recursive) or globs, comma-separated; any Hadoop file system "
        "(file:, hdfs:, s3a:, ...). Files whose name starts with _ or . are skipped (Hadoop's rule)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (must not exist)")
    p.add_argument(
        "--seen",
        metavar="DIR",
        help="Parquet set of keys written by earlier runs (created if missing): only keys not in "
        "it are written, then they are added to it",
    )
    p.add_argument(
        "--rung",
        "--level",
        dest="rung",
        default="scheme",
        choices=["string", "syntax", "scheme", "protocol"],
        help="rung of the comparison ladder (default: scheme; --level is its old name)",
    )
    p.add_argument(
        "--form", default="uri", choices=["uri", "iri", "surt"], help="form of the keys (default: uri)"
    )
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="protocol-rung rules (TOML, needs --rung protocol); shipped to the executors",
    )
    p.add_argument(
        "--profile",
        metavar="NAME[:OPTS]",
        help="make the keys another canonicalizer makes (w3lib, urlcanon-semantic, "
        "urlcanon-aggressive, surt-ia, crawler-commons, gsb; docs/profiles.md)",
    )
    p.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        help="minimum number of input partitions, one linksieve process each (default: the "
        "cluster's default parallelism); see also spark.files.maxPartitionBytes",
    )
    p.add_argument(
        "--tsv",
        action="store_true",
        help="write full rows fingerprint<TAB>key<TAB>original<TAB>provenance instead of keys",
    )
    p.add_argument(
        "--edges",
        choices=["page", "host", "domain"],
        help="write the link graph instead of keys: source<TAB>target<TAB>count<TAB>types, each "
        "pair once, counts summed and types joined over the partitions, sorted (as "
        "`linksieve run --format edges --graph LEVEL` on one machine)",
    )
    p.add_argument(
        "--www", choices=["keep", "strip"], help="with --edges host: a leading www. (default keep)"
    )
    return p


def main(argv: list[str] | None = None, spark=None) -> int:
    """The job with the arguments ``argv`` (default: the command line). ``spark``: a session to
    run it in, which is left running (several jobs in one application; the loopback test does
    that); by default the job makes its own and stops it."""
    args = build_parser().parse_args(argv)
    if args.partitions is not None and args.partitions < 1:
        print("linksieve_spark: --partitions must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.edges and (args.seen or args.tsv):
        print("linksieve_spark: --edges writes each edge once: --seen and --tsv are for keys",
              file=sys.stderr)
        return EXIT_USAGE
    if args.www and args.edges != "host":
        print("linksieve_spark: --www is for --edges host", file=sys.stderr)
        return EXIT_USAGE
    if args.rules and not os.path.isfile(args.rules):
        print(f"linksieve_spark: --rules {args.rules}: no such file", file=sys.stderr)
        return EXIT_USAGE

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    from pyspark import SparkConf

    own = spark is None
    if own:
        builder = SparkSession.builder.appName("linksieve")
        if args.partitions and not SparkConf().contains("spark.files.openCostInBytes"):
            # binaryFiles packs files into splits of max(openCost, total / partitions) bytes,
            # counting every file as openCost (4 MiB) more than it is: a few hundred small files
            # would make one partition whatever --partitions says. At 0, --partitions means
            # what it says.
            builder = builder.config("spark.files.openCostInBytes", "0")
        spark = builder.getOrCreate()
    sc = spark.sparkContext
    try:
        start = time.monotonic()
        # Folders are read recursively, as `linksieve run` reads them.
        sc._jsc.hadoopConfiguration().set(
            "mapreduce.input.fileinputformat.input.dir.recursive", "true"
        )
        rules = None
        if args.rules:
            sc.addFile(os.path.abspath(args.rules))
            rules = os.path.basename(args.rules)

        seen_fs = None
        ident = None
        if args.seen:
            ident = identity_of(sc, args.rung, args.form, rules, args.profile)
            seen_fs = _HadoopFs(spark, args.seen)
            reason = check_seen_identity(seen_fs, args.seen, ident)
            if reason:
                print(f"linksieve_spark: refusing --seen: {reason}", file=sys.stderr)
                return EXIT_SEEN_MISMATCH
        seen_keys = None  # the keys of earlier runs, as 16-byte binary `key_bin`
        seen_hex = False  # the stored column type: 16-byte binary (ours), or 32 hex digits
        if args.seen and seen_fs.has_data():
            seen_df = spark.read.parquet(args.seen)
            key_type = seen_df.schema["key"].dataType if "key" in seen_df.columns else None
            if not isinstance(key_type, (StringType, BinaryType)):
                print(
                    f"linksieve_spark: refusing --seen: {args.seen} has no `key` column of "
                    f"16-byte binary or hex string (found {key_type})",
                    file=sys.stderr,
                )
                return EXIT_SEEN_MISMATCH
            seen_hex = isinstance(key_type, StringType)
            if seen_hex:
                seen_keys = seen_df.select(F.unhex(F.lower("key")).alias("key_bin"))
            else:
                seen_keys = seen_df.select(F.col("key").alias("key_bin"))

        files_acc = sc.accumulator(0)
        rows_acc = sc.accumulator(0)
        parts = args.partitions or sc.defaultParallelism
        inputs = sc.binaryFiles(args.input, minPartitions=parts)
        n_parts = inputs.getNumPartitions()
        if args.edges:
            key_args = _key_options(args.rung, args.form, rules, args.profile)
            edges = inputs.mapPartitions(
                make_edges_runner(args.edges, args.www, key_args, files_acc, rows_acc)
            ).reduceByKey(_sum_edges)
            order = {t: i for i, t in enumerate(LINK_TYPES)}
            rows = edges.map(
                lambda kv: (
                    unescape_field(kv[0][0]),
                    unescape_field(kv[0][1]),
                    "\t".join(
                        [kv[0][0], kv[0][1], str(kv[1][0]),
                         ",".join(sorted(kv[1][1], key=lambda t: order.get(t, len(order))))]
                    ),
                )
            )
            schema = StructType(
                [
                    StructField("s", StringType(), False),
                    StructField("t", StringType(), False),
                    StructField("value", StringType(), False),
                ]
            )
            df = spark.createDataFrame(rows, schema).persist()
            n_edges = df.count()
            # sorted by source then target, compared as UTF-8 bytes (Spark's string order),
            # as one machine writes them
            df.orderBy("s", "t").select("value").write.text(args.out)
            secs = time.monotonic() - start
            print(
                f"linksieve_spark: {files_acc.value} files in {n_parts} partitions, "
                f"{rows_acc.value} partition edges, {n_edges} edges, {secs:.2f} s",
                file=sys.stderr,
            )
            return 0
        rows = inputs.mapPartitions(
            make_partition_runner(args.rung, args.form, rules, args.profile, files_acc, rows_acc)
        )
        # Exact dedup through the shuffle: one row per 128-bit key, the first occurrence.
        unique = rows.reduceByKey(_first).map(
            lambda kv: (kv[0], kv[1][1], kv[1][2], kv[1][3], unescape_field(kv[1][1]))
        )
        schema = StructType(
            [
                StructField("key", StringType(), False),
                StructField("canonical", StringType(), False),
                StructField("original", StringType(), False),
                StructField("provenance", StringType(), False),
                StructField("text", StringType(), False),  # canonical, unescaped
            ]
        )
        df = spark.createDataFrame(unique, schema).withColumn("key_bin", F.unhex("key"))
        df = df.persist()
        n_unique = df.count()  # runs linksieve and the shuffle once; the rest reads the cache

        if seen_keys is not None:
            new = df.join(seen_keys, on="key_bin", how="left_anti").persist()
            n_new = new.count()
        else:
            new, n_new = df, n_unique

        if args.tsv:
            line = F.concat_ws("\t", "key", "canonical", "original", "provenance")
        else:
            line = F.col("text")
        # Sorted by code point (Spark compares strings as UTF-8 bytes: the order of LC_ALL=C sort).
        new.orderBy("text", "key").select(line.alias("value")).write.text(args.out)

        if args.seen:
            # Output first, then the seen set: a crash between the two leaves keys that were
            # written but not recorded, so the rerun writes them again (a duplicate downstream
            # can be dropped); the other order would record keys that were never delivered, and
            # they would be lost for good.
            if not seen_fs.exists(IDENTITY_FILE):
                seen_fs.write_text(IDENTITY_FILE, json.dumps(ident, sort_keys=True) + "\n")
            files_out = n_new // 1_000_000 + 1  # about 16 MB of keys per Parquet file
            stored = F.col("key") if seen_hex else F.col("key_bin").alias("key")
            new.select(stored).coalesce(files_out).write.mode("append").parquet(args.seen)

        secs = time.monotonic() - start
        print(
            f"linksieve_spark: {files_acc.value} files in {n_parts} partitions, "
            f"{rows_acc.value} rows, "
            f"{n_unique} unique keys, {n_new} new keys, {secs:.2f} s, "
            f"{n_unique / secs if secs > 0 else 0:.0f} keys/s",
            file=sys.stderr,
        )
        return 0
    except Exception as e:  # a failed job: one line, then Spark's own trace above it
        print(f"linksieve_spark: job failed: {e}".splitlines()[0][:2000], file=sys.stderr)
        raise
    finally:
        if own:
            spark.stop()


if __name__ == "__main__":
    sys.exit(main())

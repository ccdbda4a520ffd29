"""Several jobs of the Spark drivers in one Spark application, for scripts/spark-loopback.sh.

Each ``spark-submit`` starts a driver JVM and, on the loopback cluster, two executor JVMs and
their Python workers: 10-30 s of start-up a job on the project's 2-core machine, most of what
the loopback test cost. The first job (A) of the test runs as users run it,
``spark-submit linksieve_spark.py``; the others run here, one after the other, in one session:

    spark-submit --files linksieve jobs.py PLAN.json

``PLAN.json`` lists the jobs in order: ``{"name": "B", "driver": "linksieve_spark" or
"linksieve_arrow", "argv": [...], "log": FILE}``. Each job calls its driver's ``main(argv,
spark)`` as ``spark-submit DRIVER.py ARGV`` would call ``main()``, with what the driver writes
to stderr (its summary, its refusals, its errors with Spark's exception) going to ``log`` and
its exit status to ``log + ".rc"``: the status ``main`` returns, 1 for an exception (as
``spark-submit`` exits when the script raises), or argparse's for a usage error. The drivers'
modules are imported from the folder given as ``--drivers`` and pickled by value, as
``spark-submit`` ships a main script, so the executors need nothing of them installed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
import traceback


def run_job(module, job: dict, spark) -> int:
    """Runs one job; returns its exit status (its stderr goes to ``job["log"]``)."""
    with open(job["log"], "w", encoding="utf-8") as log, contextlib.redirect_stderr(log):
        try:
            return module.main(job["argv"], spark)
        except SystemExit as e:  # argparse's usage errors
            return e.code if isinstance(e.code, int) else 2
        except Exception:  # noqa: BLE001  (spark-submit exits 1 when the script raises)
            traceback.print_exc()
            return 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--drivers", required=True, help="the folder of linksieve_spark.py")
    p.add_argument("plan", help="the jobs, in order (JSON)")
    args = p.parse_args()
    with open(args.plan, encoding="utf-8") as f:
        plan = json.load(f)
    sys.path.insert(0, args.drivers)
    from pyspark import cloudpickle
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("linksieve-loopback-jobs").getOrCreate()
    try:
        for job in plan:
            module = importlib.import_module(job["driver"])
            cloudpickle.register_pickle_by_value(module)
            rc = run_job(module, job, spark)
            with open(job["log"] + ".rc", "w", encoding="utf-8") as f:
                f.write(f"{rc}\n")
            print(f"jobs.py: {job['name']}: exit status {rc}", file=sys.stderr)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

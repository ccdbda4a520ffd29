#!/usr/bin/env bash
# linksieve on Apache Spark, tested on a loopback cluster: a standalone master and two workers
# (1 core, 1 GiB each) bound to 127.0.0.1 only, with spark.shuffle.readHostLocalDisk=false so
# shuffle blocks cross TCP between the two executors. Runs integrations/spark/linksieve_spark.py
# on a few MB of real corpora and checks it against `linksieve run` on one machine:
#
#   A  the whole set, keys        == `linksieve run` keys (sorted, byte for byte)
#   B  the whole set, --tsv       4 escaped fields, keys unique, (key, canonical) pairs equal to
#                                 the local TSV, provenance mapped back to the original files
#   C  a subset with --seen S, then
#   D  the whole set with --seen S: D == local minus C, C and D disjoint, C + D == local
#   E  --seen S with another rung (given by --level, the old name of --rung): refused (exit 3),
#      nothing written
#   F  a corrupt .gz among the inputs: the job fails (linksieve's exit status is checked)
#   H  --edges host on two WARC files (a page in both): == `linksieve run --format edges --graph
#      host` on one machine (counts summed and types joined over the partitions, sorted)
#   I  the same with --edges page
#   G  integrations/spark/linksieve_arrow.py (the Python module through mapInArrow, its wheel
#      shipped to the executors with --wheel, not installed) on a URL list ==
#      `linksieve normalize < LIST | LC_ALL=C sort -u`, and the same count of lines without a key
#
# A is a `spark-submit linksieve_spark.py` as users run it; B-I run one after the other in one
# more application (tests/spark/jobs.py calls each driver's main), which saves the start-up of
# five applications (a driver and two executor JVMs each).
#
# Prints the keys/s of the cluster job and of one `linksieve run` process, then stops every
# process it started, by pid, and checks that no JVM or Python worker of this run is left.
#
#   usage: scripts/spark-loopback.sh [--prepare]
#
# --prepare: only install what the test needs (Java, the venv with pyspark, pyarrow and pandas)
# and stop (scripts/prepare.sh --spark).
#
# LINKSIEVE_PROFILE  the cargo profile of the binary and of job G's wheel (default pytest: optimized,
#                    without the link-time optimization of a release, so it builds in a fraction of
#                    the time and the keys/s printed are a little below a release's; release for
#                    the build users get)
# LINKSIEVE_BIN      the binary (default ${CARGO_TARGET_DIR:-target}/$LINKSIEVE_PROFILE/linksieve,
#                    built first when LINKSIEVE_BIN is unset)
# LINKSIEVE_CACHE    where the venv with pyspark is kept (default ~/.cache/linksieve); pip's own
#                    cache makes a rebuilt venv quick
# LINKSIEVE_CORPORA  scripts/fetch-corpora.sh output (default target/corpora; its legacy/ and
#                    linux-doc-translations.txt are used when present, not built here)
# LINKSIEVE_PYSPARK  the pip requirement (default pyspark==4.3.0, the version tested here)
# LINKSIEVE_KEEP_TMP=1  keep the temporary folder (logs, outputs) for a look afterwards
#
# Needs: bash, python3 (3.9+, with venv), Java 17+ (installed with apt-get if missing), coreutils.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
t_start=$(date +%s.%N)
say() { echo "spark-loopback: $*" >&2; }
die() { echo "spark-loopback: FAIL: $*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
best_of_3() { # COMMAND...: the best wall time of three runs, output to /dev/null
    local i t s best=
    for i in 1 2 3; do
        t=$(date +%s.%N); "$@" > /dev/null; s=$(elapsed "$t")
        best=$(awk -v a="$s" -v b="${best:-$s}" 'BEGIN { print (a < b ? a : b) }')
    done
    echo "$best"
}

corpora="${LINKSIEVE_CORPORA:-$root/target/corpora}"
cache="${LINKSIEVE_CACHE:-$HOME/.cache/linksieve}"
venv="$cache/spark-venv"
profile="${LINKSIEVE_PROFILE:-pytest}"

prepare_only=0
case "${1:-}" in
    "") ;;
    --prepare) prepare_only=1 ;;
    *) echo "usage: scripts/spark-loopback.sh [--prepare]" >&2; exit 2 ;;
esac

# ---------------------------------------------------------------- the binary
if [ "$prepare_only" = 1 ]; then
    :
elif [ -n "${LINKSIEVE_BIN:-}" ]; then
    bin="$LINKSIEVE_BIN"
    [ -x "$bin" ] || die "LINKSIEVE_BIN=$bin is not an executable file"
else
    dir=$profile
    [ "$profile" != dev ] || dir=debug # cargo writes the `dev` profile's build under debug/
    bin="${CARGO_TARGET_DIR:-$root/target}/$dir/linksieve"
    # always: a no-op when the binary is up to date, and never a stale binary
    say "cargo build --profile $profile -p linksieve-cli"
    cargo build --profile "$profile" --locked -q -p linksieve-cli >&2
fi
[ "$prepare_only" = 1 ] || "$bin" identity >/dev/null 2>&1 \
    || die "$bin has no \`identity\` subcommand (too old for the Spark driver)"

# ---------------------------------------------------------------- Java and pyspark
if ! command -v java >/dev/null 2>&1; then
    say "installing Java (openjdk-17-jre-headless)"
    apt-get update -qq >&2 && apt-get install -y -qq openjdk-17-jre-headless >&2 \
        || die "no java on PATH and apt-get could not install it"
fi
java_major="$(java -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')"
[ "${java_major:-0}" -ge 17 ] || die "Spark 4 needs Java 17 or later; java on PATH is ${java_major:-unknown}"
python="$(command -v python3.11 || command -v python3)"
pyspark_req="${LINKSIEVE_PYSPARK:-pyspark==4.3.0}"
t_pip=$(date +%s.%N)
if [ "$(cat "$venv/.pyspark-ok" 2>/dev/null)" = "$pyspark_req" ] \
    && "$venv/bin/python" -c 'import pyspark' 2>/dev/null; then
    pip_note="cached venv, no install"
else
    say "installing $pyspark_req into $venv (about 460 MB the first time; pip's cache makes it quick after)"
    rm -rf "$venv"
    mkdir -p "$cache"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$pyspark_req" >&2
    echo "$pyspark_req" > "$venv/.pyspark-ok"
    pip_note="installed"
fi
# (PySpark's mapInArrow also checks for pandas, though the job makes no DataFrame of it)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "pyarrow==26.0.1" \
    "pandas==2.3.3" >&2
pip_secs=$(elapsed "$t_pip")
[ "$prepare_only" = 0 ] || { say "prepared: java and $venv ($pip_note, ${pip_secs} s)"; exit 0; }
spark_home="$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
spark_version="$("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
say "pyspark $spark_version ($pip_note, ${pip_secs} s), $(java -version 2>&1 | head -n1)"
# The Python module for job G: its wheel as users install it (scripts/wheel.sh: abi3,
# manylinux2014), built from this checkout (a no-op for cargo when it is up to date, so never a
# stale module) with $LINKSIEVE_PROFILE (by default the `pytest` profile of the Python tests: the
# same build). It is not installed: job G ships it to the executors (--wheel), so the venv must not
# have it.
wheel=$(scripts/wheel.sh "$profile" "${CARGO_TARGET_DIR:-$root/target}/wheels") \
    || die "could not build the linksieve wheel (scripts/wheel.sh)"
"$venv/bin/python" -m pip uninstall -q -y --disable-pip-version-check linksieve >&2 2>/dev/null || true
! "$venv/bin/python" -c 'import linksieve' 2>/dev/null || die "the Spark venv still imports linksieve"

# ---------------------------------------------------------------- processes and cleanup
tmp="$(mktemp -d "${TMPDIR:-/tmp}/linksieve-spark.XXXXXX")"
tag="$(basename "$tmp")"     # in every JVM's command line: -Dlinksieve.loopback=TAG
pids=()        # master, worker 1, worker 2
submit_pid=   # the spark-submit running now, if any
ours() {
    # Processes of this run still alive: JVMs carrying the tag, and anything whose working
    # folder is inside $tmp (the Python workers of the executors, the Python driver).
    { pgrep -f -- "-Dlinksieve.loopback=$tag" || true
      for p in /proc/[0-9]*; do
          case "$(readlink "$p/cwd" 2>/dev/null)" in "$tmp"|"$tmp"/*) echo "${p#/proc/}";; esac
      done; } | sort -un | grep -vx "$$" || true
}
stop_pid() {
    local pid=$1 i
    kill "$pid" 2>/dev/null || return 0
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
    local rc=$? pid left i
    set +e
    # A driver still running (interrupted), then the workers and the master.
    [ -z "$submit_pid" ] || stop_pid "$submit_pid"
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[$i]}"; done
    wait 2>/dev/null
    # Executors and their Python workers go with their worker (give them 10 s); anything left
    # is ours by the tag or the working folder: stop it by pid and fail.
    for i in $(seq 50); do left="$(ours)"; [ -n "$left" ] || break; sleep 0.2; done
    if [ -n "$left" ]; then
        echo "spark-loopback: FAIL: processes left after stopping the cluster:" >&2
        for pid in $left; do ps -o pid=,args= -p "$pid" | cut -c1-200 >&2; stop_pid "$pid"; done
        rc=1
    else
        say "stopped ${#pids[@]} daemons by pid; no JVM or Python worker of this run is left (ps)"
    fi
    if [ "${LINKSIEVE_KEEP_TMP:-0}" = 1 ] || [ "$rc" != 0 ]; then
        say "logs and outputs kept in $tmp"
    else
        rm -rf "$tmp"
    fi
    say "total wall time $(elapsed "$t_start") s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# One copy for the whole run (a rebuild meanwhile cannot mix two binaries), named `linksieve`
# as the driver expects it in SparkFiles.
cp "$bin" "$tmp/linksieve"
bin="$tmp/linksieve"

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() { # FILE PATTERN PID SECONDS
    local i
    for i in $(seq $(( $4 * 5 ))); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        kill -0 "$3" 2>/dev/null || { tail -n 30 "$1" >&2; die "process $3 died (log $1)"; }
        sleep 0.2
    done
    tail -n 30 "$1" >&2
    die "timed out waiting for '$2' in $1"
}

export SPARK_HOME="$spark_home" SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_HOSTNAME=127.0.0.1
export PYSPARK_PYTHON="$venv/bin/python" PYSPARK_DRIVER_PYTHON="$venv/bin/python"
export SPARK_DAEMON_JAVA_OPTS="-Dlinksieve.loopback=$tag -Dspark.master.rest.enabled=false"
export SPARK_NO_DAEMONIZE=1
mkdir -p "$tmp/master" "$tmp/w1/work" "$tmp/w1/local" "$tmp/w2/work" "$tmp/w2/local" \
    "$tmp/driver/local" "$tmp/conf" "$tmp/events" "$tmp/in/gen" "$tmp/out"
cat > "$tmp/conf/log4j2.properties" <<'EOF'
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
EOF

t_cluster=$(date +%s.%N)
port="$(free_port)"
master="spark://127.0.0.1:$port"
( cd "$tmp/master" && exec "$spark_home/bin/spark-class" org.apache.spark.deploy.master.Master \
    --host 127.0.0.1 --port "$port" --webui-port 0 ) > "$tmp/master/log" 2>&1 &
pids+=($!)
wait_for "$tmp/master/log" "I have been elected leader" "${pids[0]}" 60
for w in 1 2; do
    ( cd "$tmp/w$w" && SPARK_LOCAL_DIRS="$tmp/w$w/local" exec "$spark_home/bin/spark-class" \
        org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port 0 --webui-port 0 \
        --cores 1 --memory 1g --work-dir "$tmp/w$w/work" "$master" ) > "$tmp/w$w/log" 2>&1 &
    pids+=($!)
done
wait_for "$tmp/w1/log" "Successfully registered with master" "${pids[1]}" 60
wait_for "$tmp/w2/log" "Successfully registered with master" "${pids[2]}" 60
say "master $master and 2 workers up (pids ${pids[*]}) in $(elapsed "$t_cluster") s"

# ---------------------------------------------------------------- inputs
# Generated (always there): a legacy-encoded page, a Shift_JIS text, a gzipped WARC whose
# response records declare their charsets, and the Apache log gzipped. Real: the data files of
# testdata/corpora and, when scripts/fetch-corpora.sh has run, the chardet legacy pages and the CJK translations.
data="$root/testdata/corpora/data"
[ -f "$data/apache_logs.log" ] && [ -f "$data/url-list-kasztp.txt" ] \
    || die "$data/{apache_logs.log,url-list-kasztp.txt} not found"
gzip -c "$data/apache_logs.log" > "$tmp/in/gen/apache_logs.log.gz"
"$python" - "$tmp/in/gen" <<'EOF'
import gzip, sys
out = sys.argv[1]
ru = "Смотри http://пример.рф/страница?q=значение и https://example.org/путь#якорь, ещё http://ПРИМЕР.РФ/страница?q=значение.\n"
open(f"{out}/page-cp1251.txt", "wb").write((ru * 3).encode("cp1251"))
ja = "詳しくは http://例え.テスト/ページ を参照。https://example.jp/資料/一覧 も。\n"
open(f"{out}/notes-sjis.txt", "wb").write((ja * 3).encode("shift_jis"))
def record(uri, charset, body):
    http = f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset={charset}\r\n\r\n".encode() + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:{abs(hash(uri)):032x}>\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n")
    return gzip.compress(head.encode() + http + b"\r\n\r\n")
warc = record("http://warc.example/ru", "windows-1251", ("<p>" + ru + "</p>").encode("cp1251"))
warc += record("http://warc.example/ja", "shift_jis", ("<p>" + ja + "</p>").encode("shift_jis"))
warc += record("http://warc.example/plain", "utf-8", b'<a href="https://warc.example/only-in-warc">x</a> http://example.org/')
open(f"{out}/crawl.warc.gz", "wb").write(warc)
EOF
# The link graph's inputs (jobs H, I): two gzipped WARC files of pages on 23 hosts linking to
# 41, a redirect and a Link field among them, one page in both files (its edges count twice).
mkdir -p "$tmp/in/edges"
"$python" - "$tmp/in/edges" <<'EOF'
import gzip, random, sys
out = sys.argv[1]
def record(uri, head, body):
    http = f"HTTP/1.1 {head}\r\nContent-Type: text/html\r\n\r\n".encode() + body
    warc = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:{abs(hash(uri)):032x}>\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n")
    return gzip.compress(warc.encode() + http + b"\r\n\r\n")
rnd = random.Random(34)
pages = []
for i in range(400):
    links = "".join(
        f"<a href='http://t{rnd.randrange(41)}.example.net/{rnd.randrange(9)}'>x</a>"
        f"<img src='//h{rnd.randrange(23)}.example.org/i.png'>" for _ in range(rnd.randrange(1, 9)))
    pages.append(record(f"http://h{i % 23}.example.org/p{i}", "200 OK", links.encode()))
pages.append(record("http://h1.example.org/old", "301 Moved\r\nLocation: http://t40.example.net/new", b""))
pages.append(record("http://h2.example.org/l", "200 OK\r\nLink: <http://cdn.example.com/s.css>; rel=preload", b""))
open(f"{out}/edges-1.warc.gz", "wb").write(b"".join(pages[:200] + [pages[300]]))
open(f"{out}/edges-2.warc.gz", "wb").write(b"".join(pages[200:]))
EOF
subset=("$data/url-list-kasztp.txt" "$tmp/in/gen")
full=("$data/url-list-kasztp.txt" "$tmp/in/gen")
[ -d "$corpora/legacy" ] && full+=("$corpora/legacy") \
    || say "no $corpora/legacy (run scripts/test.sh or scripts/fetch-corpora.sh for the chardet pages); using the generated legacy files only"
[ -f "$corpora/linux-doc-translations.txt" ] && full+=("$corpora/linux-doc-translations.txt")
join() { local IFS=,; echo "$*"; }
# The files Spark reads: Hadoop skips names starting with `_` or `.` (the chardet corpus has
# `_ude_1.txt` and the like), `linksieve run` does not; one machine gets the same list.
hadoop_files() { find -L "$@" \( -name '_*' -o -name '.*' \) -prune -o -type f -print | LC_ALL=C sort; }
mapfile -t full_files < <(hadoop_files "${full[@]}")
mapfile -t subset_files < <(hadoop_files "${subset[@]}")
in_bytes=$(cat "${full_files[@]}" | wc -c)
say "inputs: ${#full_files[@]} files, $in_bytes bytes: ${full[*]}"

# ---------------------------------------------------------------- one machine
"$bin" run -q "${full_files[@]}" > "$tmp/local.keys"
local_secs=$(best_of_3 "$bin" run -q "${full_files[@]}")
local1_secs=$(best_of_3 "$bin" run -q -j 1 "${full_files[@]}")
LC_ALL=C sort "$tmp/local.keys" > "$tmp/local.sorted"
"$bin" run -q --format tsv "${full_files[@]}" | cut -f1,2 | LC_ALL=C sort > "$tmp/local.pairs"
"$bin" run -q "${subset_files[@]}" | LC_ALL=C sort > "$tmp/local-subset.sorted"
"$bin" run -q --format edges --graph host "$tmp"/in/edges/*.warc.gz > "$tmp/local.host-edges"
"$bin" run -q --format edges "$tmp"/in/edges/*.warc.gz > "$tmp/local.page-edges"
n_local=$(wc -l < "$tmp/local.sorted")
[ "$n_local" -gt 1000 ] || die "only $n_local keys from one machine: the inputs are not what they should be"

# ---------------------------------------------------------------- the cluster job
submit() { # OUT_LOG ARGS... (runs the driver; returns its exit status)
    local log=$1 rc=0 pid; shift
    ( cd "$tmp/driver" && SPARK_CONF_DIR="$tmp/conf" SPARK_LOCAL_DIRS="$tmp/driver/local" \
        exec "$spark_home/bin/spark-submit" --master "$master" \
        --conf spark.shuffle.readHostLocalDisk=false \
        --conf spark.ui.enabled=false \
        --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
        --conf spark.executor.memory=768m \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.compress=false \
        --conf "spark.eventLog.dir=file://$tmp/events" \
        --conf "spark.executor.extraJavaOptions=-Dlinksieve.loopback=$tag" \
        --driver-java-options "-Dlinksieve.loopback=$tag" \
        "${submit_conf[@]}" \
        --files "$bin" "${job:-$root/integrations/spark/linksieve_spark.py}" "$@" ) > "$log" 2>&1 &
    pid=$!
    submit_pid=$pid
    wait "$pid" || rc=$?
    submit_pid=
    return "$rc"
}
submit_conf=()
cat_out() { cat "$1"/part-* 2>/dev/null || true; }
summary() { grep '^linksieve_spark:' "$1" | tail -n1; }

say "A: the whole set on the cluster (keys)"
t=$(date +%s.%N)
submit "$tmp/A.log" --input "$(join "${full[@]}")" --out "$tmp/out/A" --partitions 4 \
    || { tail -n 40 "$tmp/A.log" >&2; die "job A failed"; }
a_wall=$(elapsed "$t")
summary "$tmp/A.log" >&2
cat_out "$tmp/out/A" > "$tmp/A.keys"
LC_ALL=C sort -c "$tmp/A.keys" || die "A: output is not sorted (LC_ALL=C)"
cmp -s "$tmp/A.keys" "$tmp/local.sorted" \
    || { diff "$tmp/local.sorted" "$tmp/A.keys" | head -n 20 >&2; die "A: keys differ from one machine"; }
say "A: ok: $(wc -l < "$tmp/A.keys") keys == linksieve run on one machine (sorted)"
# The shuffle really crossed TCP, and both executors worked.
"$python" - "$tmp/events" <<'EOF' || die "A: the event log shows no remote shuffle read or one executor only"
import glob, json, sys
# Spark 4 writes rolling event logs: a folder per application, events_N_* files inside.
files = sorted(glob.glob(sys.argv[1] + "/*/events_*")) or sorted(glob.glob(sys.argv[1] + "/*"))
remote, execs = 0, set()
for line in (l for f in files for l in open(f, encoding="utf-8")):
    ev = json.loads(line)
    if ev.get("Event") == "SparkListenerTaskEnd":
        execs.add(ev["Task Info"]["Executor ID"])
        remote += ev.get("Task Metrics", {}).get("Shuffle Read Metrics", {}).get("Remote Bytes Read", 0)
print(f"spark-loopback: A: {remote} shuffle bytes fetched over TCP; tasks ran on executors {sorted(execs)}", file=sys.stderr)
sys.exit(0 if remote > 0 and len(execs) >= 2 else 1)
EOF

# B-I: one application (tests/spark/jobs.py), the jobs one after the other in one session; each
# job's stderr in $tmp/NAME.log, its exit status in $tmp/NAME.log.rc. F's task must fail at once
# (no retries), so none of them is retried: a flaky task fails the test instead of hiding.
plan=()
add_job() { # NAME DRIVER ARGS...
    plan+=("$("$python" -c 'import json, sys
n, d, log, *argv = sys.argv[1:]
print(json.dumps({"name": n, "driver": d, "log": log, "argv": argv}))' "$1" "$2" "$tmp/$1.log" "${@:3}")")
}
add_job B linksieve_spark --input "$(join "${full[@]}")" --out "$tmp/out/B" --partitions 4 --tsv
add_job C linksieve_spark --input "$(join "${subset[@]}")" --out "$tmp/out/C" --seen "$tmp/seen"
add_job D linksieve_spark --input "$(join "${full[@]}")" --out "$tmp/out/D" --seen "$tmp/seen" \
    --partitions 4
add_job E linksieve_spark --input "$(join "${subset[@]}")" --out "$tmp/out/E" --seen "$tmp/seen" \
    --level syntax
head -c 20000 "$tmp/in/gen/apache_logs.log.gz" > "$tmp/in/truncated.gz"
add_job F linksieve_spark --input "$tmp/in/truncated.gz,$data/url-list-kasztp.txt" --out "$tmp/out/F"
list="$data/url-list-kasztp-non-normal.txt"
add_job H linksieve_spark --input "$tmp/in/edges" --out "$tmp/out/H" --partitions 2 --edges host
add_job I linksieve_spark --input "$tmp/in/edges" --out "$tmp/out/I" --partitions 2 --edges page
add_job G linksieve_arrow --input "$list" --out "$tmp/out/G" --partitions 3 --rung protocol \
    --wheel "$wheel"
printf '%s\n' "${plan[@]}" | "$python" -c 'import json, sys
json.dump([json.loads(l) for l in sys.stdin], open(sys.argv[1], "w"))' "$tmp/plan.json"
say "B-I: jobs B, C, D, E, F, H, I, G in one application (tests/spark/jobs.py)"
submit_conf=(--conf spark.task.maxFailures=1 --conf spark.files.openCostInBytes=0)
job="$root/tests/spark/jobs.py" submit "$tmp/jobs.log" --drivers "$root/integrations/spark" \
    "$tmp/plan.json" || { tail -n 40 "$tmp/jobs.log" >&2; die "the application of jobs B-I failed"; }
submit_conf=()
status_of() { cat "$tmp/$1.log.rc" 2>/dev/null || echo "none"; }
ran_ok() { # NAME: the job exited 0, else its log and a failure
    [ "$(status_of "$1")" = 0 ] || { tail -n 40 "$tmp/$1.log" >&2; die "job $1 failed (exit status $(status_of "$1"))"; }
}

say "B: the whole set on the cluster (--tsv)"
ran_ok B
cat_out "$tmp/out/B" > "$tmp/B.tsv"
"$python" - "$tmp/B.tsv" "$tmp/local.pairs" "$data/url-list-kasztp.txt" "$tmp" <<'EOF' || die "B: TSV checks failed"
import bisect, re, sys
path, pairs_path, kasztp, tmp = sys.argv[1:]
un = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
def unescape(s):
    return re.sub(r"\\([\\tnr])", lambda m: un[m.group(1)], s)
rows = [l.rstrip("\n").split("\t") for l in open(path, encoding="utf-8")]
bad = [r for r in rows if len(r) != 4 or not re.fullmatch(r"[0-9a-f]{32}", r[0])]
assert not bad, f"{len(bad)} rows without 4 fields and a 32-hex key, e.g. {bad[:2]}"
keys = [r[0] for r in rows]
assert len(set(keys)) == len(keys), "a key written twice"
pairs = sorted(f"{r[0]}\t{r[1]}" for r in rows)
local = [l.rstrip("\n") for l in open(pairs_path, encoding="utf-8")]
assert pairs == local, f"(key, canonical) pairs differ from the local TSV ({len(pairs)} vs {len(local)})"
leaked = [r for r in rows if "linksieve-part-" in r[3]]
assert not leaked, f"temporary paths left in provenance: {leaked[:2]}"
warc = [r for r in rows if r[3].startswith("http://warc.example/")]
assert warc, "no row with a WARC-Target-URI provenance"
# Rows from the (plain UTF-8) kasztp list: LINE:OFFSET point at the original text in the file.
data = open(kasztp, "rb").read()
# the offset of each line feed: the line of an offset is one more than the feeds before it
feeds = [m.start() for m in re.finditer(b"\n", data)]
mine = [r for r in rows if r[3].rsplit(":", 2)[0] in ("file:" + kasztp, kasztp)]
assert mine, "no row with the kasztp file as provenance"
for r in mine:
    _, line, off = r[3].rsplit(":", 2)
    orig = unescape(r[2]).encode("utf-8")
    off, line = int(off), int(line)
    assert data[off:off + len(orig)] == orig, f"offset {off} does not hold {orig[:60]!r}"
    assert bisect.bisect_left(feeds, off) + 1 == line, f"line {line} wrong for offset {off}"
print(f"spark-loopback: B: ok: {len(rows)} rows, 4 escaped fields, (key, canonical) == local TSV, "
      f"{len(warc)} WARC-Target-URI provenances, {len(mine)} file:LINE:OFFSET checked in the file",
      file=sys.stderr)
EOF

say "C, D: --seen: a subset first, then the whole set"
ran_ok C
summary "$tmp/C.log" >&2
[ -f "$tmp/seen/_linksieve_identity.json" ] || die "C: no identity file in the seen set"
ran_ok D
summary "$tmp/D.log" >&2
cat_out "$tmp/out/C" > "$tmp/C.keys"
cat_out "$tmp/out/D" > "$tmp/D.keys"
cmp -s "$tmp/C.keys" "$tmp/local-subset.sorted" || die "C: keys differ from one machine on the subset"
[ -z "$(LC_ALL=C comm -12 "$tmp/C.keys" "$tmp/D.keys")" ] || die "C and D share keys"
LC_ALL=C comm -23 "$tmp/local.sorted" "$tmp/C.keys" | cmp -s - "$tmp/D.keys" \
    || die "D is not exactly the keys that C did not write"
LC_ALL=C sort -m "$tmp/C.keys" "$tmp/D.keys" | cmp -s - "$tmp/local.sorted" \
    || die "C + D differ from one machine"
say "C, D: ok: $(wc -l < "$tmp/C.keys") + $(wc -l < "$tmp/D.keys") keys, disjoint, union == one machine"

say "E: the same seen set with --level syntax (the old name of --rung) must be refused"
rc=$(status_of E)
[ "$rc" = 3 ] || { tail -n 20 "$tmp/E.log" >&2; die "E: exit status $rc, not 3"; }
[ ! -e "$tmp/out/E" ] || die "E: output written although refused"
grep -q 'refusing --seen' "$tmp/E.log" || die "E: no clear error"
say "E: ok: $(grep -o 'refusing --seen.*' "$tmp/E.log" | cut -c1-160)"

say "H, I: the link graph on the cluster (--edges host, --edges page)"
for j in H:host I:page; do
    name=${j%%:*} level=${j#*:}
    ran_ok "$name"
    summary "$tmp/$name.log" >&2
    cat_out "$tmp/out/$name" > "$tmp/$name.edges"
    cmp -s "$tmp/$name.edges" "$tmp/local.$level-edges" \
        || { diff "$tmp/local.$level-edges" "$tmp/$name.edges" | head -n 20 >&2; die "$name: edges differ from one machine"; }
    say "$name: ok: $(wc -l < "$tmp/$name.edges") $level edges (counts summed over 2 partitions, types joined) == linksieve run --format edges on one machine"
done

say "F: a corrupt .gz among the inputs must fail the job"
rc=$(status_of F)
[ "$rc" != 0 ] && [ "$rc" != none ] || die "F: the job succeeded on a corrupt input (or did not run)"
grep -q 'linksieve exited with status' "$tmp/F.log" || { tail -n 20 "$tmp/F.log" >&2; die "F: no linksieve status in the error"; }
say "F: ok: exit status $rc, task error: $(grep -o 'linksieve exited with status [0-9]*' "$tmp/F.log" | head -n1)"

say "G: linksieve_arrow.py (the Python module through mapInArrow, its wheel shipped with the job) on a URL list"
ran_ok G
summary_g="$(grep '^linksieve_arrow:' "$tmp/G.log" | tail -n1)"
cat_out "$tmp/out/G" > "$tmp/G.keys"
# normalize reads the list on stdin and exits 1 when it rejects a line: 0 and 1 are fine here
rc=0
"$bin" normalize --rung protocol < "$list" 2>/dev/null > "$tmp/G.normalized" || rc=$?
[ "$rc" -le 1 ] || die "G: linksieve normalize failed (status $rc)"
LC_ALL=C sort -u "$tmp/G.normalized" > "$tmp/G.local"
[ -s "$tmp/G.local" ] || die "G: linksieve normalize gave no keys"
cmp -s "$tmp/G.keys" "$tmp/G.local" \
    || { diff "$tmp/G.local" "$tmp/G.keys" | head -n 20 >&2 || true; die "G: keys differ from linksieve normalize | sort -u"; }
rc=0
"$bin" normalize --rung protocol --format jsonl < "$list" > "$tmp/G.jsonl" || rc=$?
[ "$rc" -le 1 ] || die "G: linksieve normalize --format jsonl failed (status $rc)"
g_rejected="$(grep -c '"error"' "$tmp/G.jsonl" || true)"
grep -q " $g_rejected lines without a key\$" <<< "$summary_g" \
    || die "G: $summary_g; linksieve normalize rejects $g_rejected lines"
say "G: ok: $summary_g; == linksieve normalize | LC_ALL=C sort -u"

# ---------------------------------------------------------------- figures
a_line="$(summary "$tmp/A.log")"
a_secs="$(sed -E 's/.* ([0-9.]+) s, .*/\1/' <<< "$a_line")"
"$python" - "$n_local" "$a_secs" "$a_wall" "$local_secs" "$local1_secs" "$in_bytes" "$bin" <<'EOF'
import sys
n, job, wall, loc, loc1, size = int(sys.argv[1]), *map(float, sys.argv[2:6]), int(sys.argv[6])
print(f"spark-loopback: {n} keys from {size / 1e6:.1f} MB:\n"
      f"  cluster (2 workers x 1 core, loopback): {n / job:,.0f} keys/s in the job ({job:.2f} s, "
      f"SparkContext up), {n / wall:,.0f} keys/s for the whole spark-submit ({wall:.1f} s)\n"
      f"  one process, linksieve run (all cores):   {n / loc:,.0f} keys/s ({loc:.2f} s, best of 3)\n"
      f"  one process, linksieve run -j 1:          {n / loc1:,.0f} keys/s ({loc1:.2f} s, best of 3)\n"
      f"  (the binary: {sys.argv[7]})", file=sys.stderr)
EOF
say "pip: $pip_note in ${pip_secs} s"
say "all checks passed"

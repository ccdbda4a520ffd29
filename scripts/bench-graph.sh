#!/usr/bin/env bash
# Host-graph extraction (issue 34's benchmark): linksieve against Common Crawl's host-link job
# (cc-pyspark's hostlinks_extract_fastwarc.py, its record logic copied into
# scripts/bench/cc_hostlinks.py) under local PySpark on one core, on the same inputs: wget
# crawls of three documentation sites served on 127.0.0.1 as three named hosts through a proxy
# (tests/oracles/crawl.py --host docs.SITE.example.org, WARC), whose external links make the
# host graph, and
# their WAT files in Common Crawl's layout (tests/oracles/cc_wat.py). The peer reads the WAT
# for the pages' links and the WARC for redirects, as Common Crawl does; linksieve reads the
# same files (`run -j1 --format edges --graph host --www strip`), and the WARC files alone
# (their HTML read directly: no WAT needed). Both graphs are compared: linksieve's host pairs
# (those of a link of an element, header or redirect) and vertices must be the peer's.
#
#   usage: scripts/bench-graph.sh [ROUNDS]     (default 3; the median is printed)
#
# Needs: the corpora (scripts/fetch-corpora.sh; LINKSIEVE_CORPORA, default target/corpora),
# wget, Java 17+ and the Spark venv of scripts/spark-loopback.sh (--prepare makes it; fastwarc
# is added to it here). Writes under target/bench-graph.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"
corpora="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
work="$PWD/target/bench-graph"
spark_venv="${LINKSIEVE_CACHE:-$HOME/.cache/linksieve}/spark-venv"
die() { echo "bench-graph.sh: error: $*" >&2; exit 1; }
say() { echo "bench-graph.sh: $*" >&2; }

[ -d "$corpora/html-docs/python" ] || die "no $corpora/html-docs: run scripts/fetch-corpora.sh $corpora"
[ -x "$spark_venv/bin/python" ] || scripts/spark-loopback.sh --prepare
"$spark_venv/bin/python" -c 'import fastwarc, idna' 2>/dev/null \
    || "$spark_venv/bin/pip" install -q --disable-pip-version-check "fastwarc==2.0.1" "idna==3.20" >&2
oracle="$(scripts/venv.sh oracle)"
mkdir -p "$work"

# the inputs: one crawl per site (WARC, gzip bodies for django), and its WAT
inputs=()
for site in postgresql django python; do
    warc="$work/$site.warc.gz"
    if [ ! -s "$warc" ]; then
        say "crawling $site"
        gz=(); [ "$site" = django ] && gz=(--gzip)
        "$oracle/bin/python" tests/oracles/crawl.py "$corpora/html-docs/$site" "$work/$site" \
            --host "docs.$site.example.org" "${gz[@]}" >/dev/null
    fi
    wat="$work/$site.wat.gz"
    if [ ! -s "$wat" ]; then
        PYTHONPATH=tests/oracles "$oracle/bin/python" -c \
            'import sys; from cc_wat import write_wat; write_wat(sys.argv[1], sys.argv[2])' "$warc" "$wat"
    fi
    inputs+=("$wat" "$warc")
done
warcs=("$work"/*.warc.gz)
bytes=$(cat "${inputs[@]}" | wc -c)

cargo build --release --locked -q -p linksieve-cli
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
bin="$target_dir/release/linksieve"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peer_wall=(); peer_job=(); ls_wall=(); ls_rss=(); warc_wall=()
for r in $(seq "$ROUNDS"); do
    t0=$(date +%s.%N)
    line=$(PYSPARK_PYTHON="$spark_venv/bin/python" PYTHONPATH=tests/oracles:scripts/bench \
        "$spark_venv/bin/python" scripts/bench/cc_hostlinks.py \
        "$work/peer.tsv" "${inputs[@]}" 2>"$work/peer.log" | tail -1)
    peer_wall+=("$(echo "$(date +%s.%N) - $t0" | bc)")
    peer_job+=("$(echo "$line" | sed -n 's/.*job_s=\([0-9.]*\).*/\1/p')")
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" run -q -j1 --format edges --graph host \
        --www strip --memory 64M "${inputs[@]}" > "$work/linksieve.tsv"
    read -r s rss < "$work/time"; ls_wall+=("$s"); ls_rss+=("$rss")
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" run -q -j1 --format edges --graph host \
        --www strip --memory 64M "${warcs[@]}" > "$work/linksieve-warc.tsv"
    read -r s _ < "$work/time"; warc_wall+=("$s")
    say "round $r: peer ${peer_wall[-1]} s (job ${peer_job[-1]} s), linksieve ${ls_wall[-1]} s (${ls_rss[-1]} KB), WARC only ${warc_wall[-1]} s"
done

# the same graph: linksieve's pairs of elements, headers and redirects are the peer's, and so
# are the vertices (the peer's self-links and linksieve's node rows make them; both are loops)
same() {  # same WHAT LINKSIEVE_FILE PEER_FILE
    if ! cmp -s "$2" "$3"; then
        diff "$3" "$2" | head -20 >&2
        die "the $1 differ (peer < , linksieve >)"
    fi
}
awk -F'\t' '$4 != "text" && $1 != $2' "$work/linksieve.tsv" | cut -f1,2 | LC_ALL=C sort > "$work/linksieve-pairs.tsv"
awk -F'\t' '$1 != $2' "$work/peer.tsv" | LC_ALL=C sort > "$work/peer-pairs.tsv"
same "host pairs" "$work/linksieve-pairs.tsv" "$work/peer-pairs.tsv"
awk -F'\t' '$4 != "text" {print $1; print $2}' "$work/linksieve.tsv" | LC_ALL=C sort -u > "$work/linksieve-vertices.txt"
awk -F'\t' '{print $1; print $2}' "$work/peer.tsv" | LC_ALL=C sort -u > "$work/peer-vertices.txt"
same "vertices" "$work/linksieve-vertices.txt" "$work/peer-vertices.txt"

pw=$(printf '%s\n' "${peer_wall[@]}" | median); pj=$(printf '%s\n' "${peer_job[@]}" | median)
lw=$(printf '%s\n' "${ls_wall[@]}" | median); lr=$(printf '%s\n' "${ls_rss[@]}" | median)
ww=$(printf '%s\n' "${warc_wall[@]}" | median)
echo "inputs: ${#inputs[@]} files (WAT + WARC of 3 sites), $bytes bytes as stored; $(wc -l < "$work/peer-pairs.tsv") host pairs and $(wc -l < "$work/peer-vertices.txt") vertices, the same from both"
echo "cc-pyspark host-link job, local[1]: ${pw} s wall (${pj} s of job after the JVM started)"
echo "linksieve -j1, WAT + WARC:         ${lw} s wall, peak RSS ${lr} KB (--memory 64M)"
echo "linksieve -j1, WARC only:          ${ww} s wall"
echo "ratio (peer wall / linksieve wall): $(echo "scale=1; $pw / $lw" | bc)x; job time only: $(echo "scale=1; $pj / $lw" | bc)x"

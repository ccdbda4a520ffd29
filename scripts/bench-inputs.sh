#!/usr/bin/env bash
# The bench corpora of scripts/bench.sh and scripts/bench-compare.sh, made once in OUT (default
# target/bench-run) from the real corpora (testdata/corpora/data and the output of
# scripts/fetch-corpora.sh, fetched first when missing):
#
#   linux-doc-x8.txt   8 copies of linux-doc.txt (UTF-8 prose, sparse links)      ~340 MB
#   apache-x150.log    150 copies of apache_logs.log (dense log, all ASCII)       ~355 MB
#   urls-x140-shuf.txt kasztp URL list x140, `#N` (N = copy mod 20) appended, shuffled
#                      (6.7 M lines, 0.96 M distinct)                             ~324 MB
#
#   scripts/bench-inputs.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
data="$PWD/testdata/corpora/data"
corpora="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
out="${1:-$PWD/target/bench-run}"
mkdir -p "$out"
export LC_ALL=C
if [ ! -e "$corpora/.done/linux-doc" ]; then
    apt-cache policy linux-source-6.1 2>/dev/null | grep -q Candidate || apt-get update -qq >&2
    scripts/fetch-corpora.sh "$corpora"
fi
if [ ! -s "$out/linux-doc-x8.txt" ]; then
    for _ in 1 2 3 4 5 6 7 8; do cat "$corpora/linux-doc.txt"; done > "$out/linux-doc-x8.txt"
fi
if [ ! -s "$out/apache-x150.log" ]; then
    for _ in $(seq 150); do cat "$data/apache_logs.log"; done > "$out/apache-x150.log"
fi
if [ ! -s "$out/urls-x140-shuf.txt" ]; then
    for i in $(seq 140); do sed "1s/^\xEF\xBB\xBF//; s|\$|#$((i % 20))|" "$data/url-list-kasztp.txt"; done \
        | shuf --random-source=<(yes) > "$out/urls-x140-shuf.txt"
fi

#!/usr/bin/env bash
# Throughput of `linksieve scan` against ripgrep with a URL regex and the `linkify` crate, in one
# run, on corpora built by scripts/fetch-corpora.sh and testdata/corpora/data:
#
#   linux-doc-x8.txt      8 copies of linux-doc.txt (UTF-8, sparse links)        ~340 MB
#   legacy-mixed-x50.bin  every non-UTF legacy file of the chardet corpus, x50   ~300 MB
#   apache-x150.log       150 copies of apache_logs.log (dense log)              ~355 MB
#
#   usage: scripts/bench-scan.sh [RUNS]      (best of RUNS timed runs, default 3)
#
# LINKSIEVE_CORPORA: scripts/fetch-corpora.sh output (default target/corpora; built here if missing, which needs
# apt-get update once).
# Installs ripgrep with apt-get (or cargo install) where it is missing. One thread everywhere
# (`rg -j1`; linksieve scan and linkify are single-threaded). Prints MB/s (10^6 bytes per
# second of wall time, whole process including reading the file from the page cache) and
# ratios; the link counts show what each tool finds.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
data="$PWD/testdata/corpora/data"
corpora="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
out="$PWD/target/bench-scan"
mkdir -p "$out"

if [ ! -e "$corpora/.done/legacy" ] || [ ! -e "$corpora/.done/linux-doc" ]; then
    echo "bench-scan: building corpora in $corpora" >&2
    apt-cache policy linux-source-6.1 2>/dev/null | grep -q Candidate || apt-get update -qq >&2
    scripts/fetch-corpora.sh "$corpora"
fi
if ! command -v rg >/dev/null 2>&1; then
    echo "bench-scan: installing ripgrep" >&2
    (apt-get install -y -qq ripgrep >&2) || cargo install --locked ripgrep >&2
fi

# ---- derived corpora (coreutils only)
if [ ! -s "$out/linux-doc-x8.txt" ]; then
    for _ in 1 2 3 4 5 6 7 8; do cat "$corpora/linux-doc.txt"; done > "$out/linux-doc-x8.txt"
fi
if [ ! -s "$out/legacy-mixed-x50.bin" ]; then
    ( cd "$corpora/legacy" && find . -type f ! -path './utf-8*' ! -path './UTF-*' ! -path './ascii/*' ! -name README.txt -print0 \
        | LC_ALL=C sort -z | xargs -0 cat ) > "$out/legacy-mixed.bin"
    for _ in $(seq 50); do cat "$out/legacy-mixed.bin"; done > "$out/legacy-mixed-x50.bin"
fi
if [ ! -s "$out/apache-x150.log" ]; then
    for _ in $(seq 150); do cat "$data/apache_logs.log"; done > "$out/apache-x150.log"
fi

cargo build --release --locked -q -p linksieve-cli
cargo build --release --locked -q -p linksieve-benches --bin scan_linkify --bin scan_inproc
LS="$PWD/target/release/linksieve"
LK="$PWD/target/release/scan_linkify"
URL_RE='[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]<>"]+'

# best wall time (microseconds) of RUNS runs of "$@" with stdout to /dev/null
best() {
    local b="" t0 t1 d
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N)
        d=$(( (t1 - t0) / 1000 ))
        if [ -z "$b" ] || [ "$d" -lt "$b" ]; then b=$d; fi
    done
    echo "$b"   # microseconds
}
mbs() { awk -v b="$1" -v us="$2" 'BEGIN { printf "%.0f", b / us }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '%-22s %8s | %-26s | %-26s | %-26s | %s\n' corpus MB "linksieve scan (MB/s, links)" "rg -o -a -j1 URL_RE" "linkify 0.10" "ratios"
for f in linux-doc-x8.txt legacy-mixed-x50.bin apache-x150.log; do
    p="$out/$f"
    size=$(stat -c %s "$p")
    n_ls=$("$LS" scan "$p" | wc -l)
    n_rg=$(rg -o -a -j1 "$URL_RE" "$p" | wc -l)
    n_lk=$("$LK" "$p" 2>/dev/null)
    t_ls=$(best "$LS" scan "$p")
    t_rg=$(best rg -o -a -j1 "$URL_RE" "$p")
    t_lk=$(best "$LK" "$p")
    r1=$(ratio "$t_rg" "$t_ls")
    r2=$(ratio "$t_lk" "$t_ls")
    printf '%-22s %8s | %6s MB/s %11s links | %6s MB/s %11s links | %6s MB/s %11s links | %sx rg, %sx linkify\n' \
        "$f" "$((size / 1000000))" "$(mbs "$size" "$t_ls")" "$n_ls" "$(mbs "$size" "$t_rg")" "$n_rg" "$(mbs "$size" "$t_lk")" "$n_lk" "$r1" "$r2"
done
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
rgv=$(rg --version | awk 'NR == 1 {print $2}')
echo "machine: $(nproc) cores, $cpu; ripgrep $rgv; load average $(cut -d' ' -f1-3 /proc/loadavg)"

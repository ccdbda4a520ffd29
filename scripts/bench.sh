#!/usr/bin/env bash
# The main job against what users run today, in one run, on >= 300 MB inputs built from the real
# corpora (scripts/bench-inputs.sh: linux-doc-x8.txt, apache-x150.log, urls-x140-shuf.txt).
#
# Compared: `linksieve run` (scan + normalize at the scheme rung + dedup), with 1 and 2 threads;
# `rg -o -a URL_REGEX | sort -u` (finds, no normalization); the linkify + url crate + HashSet
# program of benches/src/bin/run_linkify_url.rs; and for dedup alone on a list of URLs:
# `linksieve dedup` (the seen-set stage alone, lines as bytes), `linksieve run --level string`
# (scan + IRI check + dedup), `huniq` and `sort -u`. `-j1` is one thread (reader, workers and
# sink on one thread), `-j2` two workers beside the reader and the sink. Prints seconds, MB/s,
# lines/s, peak RSS and ratios.
#
#   usage: scripts/bench.sh [RUNS]      (best of RUNS, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
out="$PWD/target/bench-run"
mkdir -p "$out"
export LC_ALL=C

scripts/bench-inputs.sh "$out"
command -v rg >/dev/null 2>&1 || (apt-get install -y -qq ripgrep >&2) || cargo install --locked ripgrep >&2
command -v huniq >/dev/null 2>&1 || cargo install --locked huniq >&2
[ -x /usr/bin/time ] || apt-get install -y -qq time >&2

cargo build --release -q -p linksieve-cli
cargo build --release -q -p linksieve-benches --bin run_linkify_url
ls=target/release/linksieve
peer=target/release/run_linkify_url
re='[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]<>"]+'

# best of RUNS: prints "seconds peak_kb lines". Wall time from `date +%s%N` around the command
# (millisecond resolution: /usr/bin/time's %e has 10 ms, too coarse for the sparse runs); peak
# RSS from /usr/bin/time. Both include the same few ms of bash start-up for every tool.
measure() {
    local best="" kb=0 lines=0 t0 t1 t m
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s%N)
        /usr/bin/time -f '%M' -o "$out/time" bash -c "$1" > "$out/stdout"
        t1=$(date +%s%N)
        t=$(awk "BEGIN{printf \"%.3f\", ($t1 - $t0) / 1e9}")
        read -r m < "$out/time"
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; kb=$m; fi
    done
    lines=$(wc -l < "$out/stdout")
    echo "$best $kb $lines"
}

row() { # name cmd file
    read -r t kb lines < <(measure "$2")
    local mb; mb=$(stat -L -c %s "$3")
    printf '%-44s %8.3f s %9.1f MB/s %10.0f lines/s %8d MB peak %9d lines\n' "$1" "$t" \
        "$(awk "BEGIN{print $mb/1e6/($t>0?$t:1e-9)}")" "$(awk "BEGIN{print $(wc -l < "$3")/($t>0?$t:1e-9)}")" \
        "$((kb / 1024))" "$lines"
    echo "$t" > "$out/last"
}

ratio() { awk "BEGIN{printf \"%.2fx\", $1/$2}"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in linux-doc-x8.txt apache-x150.log; do
    p="$out/$f"
    echo "== $f ($(($(stat -L -c %s "$p") / 1000000)) MB)"
    row "linksieve run -j1" "$ls run -q -j1 $p" "$p"; t1=$(cat "$out/last")
    row "linksieve run -j2" "$ls run -q -j2 $p" "$p"; t2=$(cat "$out/last")
    row "rg -o -a -j1 URL_RE | sort -u" "rg -o -a -j1 '$re' $p | sort -u" "$p"; trg=$(cat "$out/last")
    row "linkify + url + HashSet" "$peer $p" "$p"; tpeer=$(cat "$out/last")
    echo "   2 threads / 1 thread: $(ratio "$t1" "$t2"); linksieve -j2 vs rg|sort -u: $(ratio "$trg" "$t2"); -j1 vs linkify+url: $(ratio "$tpeer" "$t1")"
done
# Scaling on a larger dense input (fixed costs out of the ratio).
p="$out/apache-x600.log"
[ -s "$p" ] || for _ in 1 2 3 4; do cat "$out/apache-x150.log"; done > "$p"
echo "== scaling: apache-x600.log ($(($(stat -L -c %s "$p") / 1000000)) MB)"
row "linksieve run -j1" "$ls run -q -j1 $p" "$p"; t1=$(cat "$out/last")
row "linksieve run -j2" "$ls run -q -j2 $p" "$p"; t2=$(cat "$out/last")
echo "   2 threads / 1 thread: $(ratio "$t1" "$t2")"
p="$out/urls-x140-shuf.txt"
echo "== dedup alone: $(wc -l < "$p") URL lines ($(($(stat -L -c %s "$p") / 1000000)) MB), $(sort -u "$p" | wc -l) distinct"
row "linksieve dedup" "$ls dedup -q $p" "$p"; td=$(cat "$out/last")
row "linksieve run --level string -j2" "$ls run -q -j2 --level string $p" "$p"; tl=$(cat "$out/last")
row "huniq" "huniq < $p" "$p"; th=$(cat "$out/last")
row "sort -u" "sort -u $p" "$p"; ts=$(cat "$out/last")
echo "   linksieve dedup vs huniq: $(ratio "$th" "$td"); vs sort -u: $(ratio "$ts" "$td"); run --level string vs huniq: $(ratio "$th" "$tl")"

#!/usr/bin/env bash
# The main job against what users run today, in one run, on >= 300 MB inputs built from the real
# corpora (scripts/bench-inputs.sh: linux-doc-x8.txt, apache-x150.log, urls-x140-shuf.txt).
#
# Per corpus, in rounds that run every command in turn (alternating: a slow minute of the machine
# hits them all), the median wall time of each, single-threaded commands pinned to one core
# (`taskset -c 1`):
#   floor            `rg -c -F` of a literal that never occurs (qqqzzzxw): reading every byte,
#                    the least a scanner can cost (ripgrep maps the file)
#   floor, read()    the same with `--no-mmap`: the file copied out of the page cache by
#                    read(), as linksieve reads it (it maps no file: docs/decisions.md)
#   linksieve scan   the scanner alone; against `rg -o -a -j1 URL_REGEX` (finds, no keys)
#   run -j1          `linksieve run` (scan + normalize at the scheme rung + dedup) on one core,
#                    against `rg -o | sort -u` on one core and the linkify + url crate + HashSet
#                    program of benches/src/bin/run_linkify_url.rs
#   run -j2          on both cores (not pinned), against `rg -o | sort --parallel=2 -u`
# and the ratios that issue 33 sets targets for. Then the scaling of `run` on a larger dense
# input, and dedup alone on a list of URLs: `linksieve dedup` (the seen-set stage alone, lines
# as bytes), `linksieve run --rung string` (scan + IRI check + dedup), `huniq` and `sort -u`
# (best of RUNS, with peak RSS). `-j1` is one thread (reader, workers and sink on one thread),
# `-j2` two workers beside the reader and the sink.
#
#   usage: scripts/bench.sh [RUNS]      (RUNS rounds or runs, default 3; 5 or more for a record)
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
command -v taskset >/dev/null 2>&1 || { echo "bench.sh: taskset (util-linux) is needed" >&2; exit 2; }

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

# Alternating rounds: `alternate NAME CMD [NAME CMD]...` runs each CMD (bash, output to
# /dev/null; pinned to one core, children too, where NAME ends in "(1 core)") once a round for
# RUNS rounds, then sets med[NAME] to its median wall time (seconds) and prints a line for it
# with the MB/s of $p.
declare -A med
alternate() {
    local -a names=() cmds=()
    local -A all=()
    local i r t0 t1
    while [ $# -gt 0 ]; do names+=("$1"); cmds+=("$2"); shift 2; done
    for r in $(seq "$RUNS"); do
        for i in "${!cmds[@]}"; do
            t0=$(date +%s%N)
            case ${names[$i]} in
                *"(1 core)") taskset -c 1 bash -c "${cmds[$i]}" > /dev/null ;;
                *) bash -c "${cmds[$i]}" > /dev/null ;;
            esac
            t1=$(date +%s%N)
            all[$i]+="$(( (t1 - t0) / 1000 )) "
        done
    done
    local mb; mb=$(stat -L -c %s "$p")
    for i in "${!cmds[@]}"; do
        # shellcheck disable=SC2086 # the times are words
        med[${names[$i]}]=$(printf '%s\n' ${all[$i]} | sort -n \
            | awk '{a[NR] = $1} END {printf "%.4f", a[int((NR + 1) / 2)] / 1e6}')
        printf '%-44s %8.3f s %9.1f MB/s   (median of %d: %s us)\n' "${names[$i]}" \
            "${med[${names[$i]}]}" "$(awk "BEGIN{print $mb / 1e6 / ${med[${names[$i]}]}}")" \
            "$RUNS" "${all[$i]% }"
    done
}

r() { ratio "${med[$1]}" "${med[$2]}"; }   # the ratio of two medians by name

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in linux-doc-x8.txt apache-x150.log; do
    p="$out/$f"
    echo "== $f ($(($(stat -L -c %s "$p") / 1000000)) MB)"
    cat "$p" > /dev/null   # in the page cache before the first round
    alternate \
        "floor: rg -c -F -a -j1 (1 core)" "rg -c -F -a -j1 qqqzzzxw $p || true" \
        "floor, read(): rg --no-mmap -c -F (1 core)" "rg --no-mmap -c -F -a -j1 qqqzzzxw $p || true" \
        "linksieve scan (1 core)" "$ls scan $p" \
        "rg -o -a -j1 URL_RE (1 core)" "rg -o -a -j1 '$re' $p" \
        "linksieve run -j1 (1 core)" "$ls run -q -j1 $p" \
        "rg -o | sort -u (1 core)" "rg -o -a -j1 '$re' $p | sort -u" \
        "linkify + url + HashSet (1 core)" "$peer $p" \
        "linksieve run -j2 (2 cores)" "$ls run -q -j2 $p" \
        "rg -o | sort --parallel=2 -u (2 cores)" "rg -o -a '$re' $p | sort --parallel=2 -u"
    echo "   scanner at $(r "floor: rg -c -F -a -j1 (1 core)" "linksieve scan (1 core)") of the floor's speed," \
        "$(r "floor, read(): rg --no-mmap -c -F (1 core)" "linksieve scan (1 core)") of read()'s;" \
        "scan vs rg -o: $(r "rg -o -a -j1 URL_RE (1 core)" "linksieve scan (1 core)") (target 1.5x sparse, 3x dense)"
    echo "   run -j1 vs rg|sort -u: $(r "rg -o | sort -u (1 core)" "linksieve run -j1 (1 core)") (target 1.5x);" \
        "run -j2 vs the pipeline on 2 cores: $(r "rg -o | sort --parallel=2 -u (2 cores)" "linksieve run -j2 (2 cores)") (target 2x);" \
        "-j2 / -j1: $(r "linksieve run -j1 (1 core)" "linksieve run -j2 (2 cores)") (target 1.8x);" \
        "run -j1 vs linkify+url: $(r "linkify + url + HashSet (1 core)" "linksieve run -j1 (1 core)")"
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
row "linksieve run --rung string -j2" "$ls run -q -j2 --rung string $p" "$p"; tl=$(cat "$out/last")
row "huniq" "huniq < $p" "$p"; th=$(cat "$out/last")
row "sort -u" "sort -u $p" "$p"; ts=$(cat "$out/last")
echo "   linksieve dedup vs huniq: $(ratio "$th" "$td"); vs sort -u: $(ratio "$ts" "$td"); run --rung string vs huniq: $(ratio "$th" "$tl")"

#!/usr/bin/env bash
# Two builds of linksieve on the bench corpora (scripts/bench-inputs.sh), in one sitting: the
# main job (`run -q`, -j1 and -j2) and `scan`, the two binaries alternating run by run; prints
# the median seconds of each, the ratio old/new (above 1: the new one is faster) and whether
# the outputs are byte-identical (keys and the summary's counts, times left out).
#
#   scripts/bench-compare.sh OLD_BINARY NEW_BINARY [RUNS]     (default 7 runs each)
#
# Build OLD from another commit in a worktree: git worktree add /tmp/old REV && (cd /tmp/old &&
# cargo build --release -p linksieve-cli); then scripts/bench-compare.sh /tmp/old/target/release/linksieve
# target/release/linksieve.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/bench-compare.sh OLD_BINARY NEW_BINARY [RUNS]" >&2; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
runs="${3:-7}"
cd "$(dirname "$0")/.."
out="$PWD/target/bench-run"
scripts/bench-inputs.sh "$out"
export LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seconds of one run of "$@" (stdout to $tmp/out, stderr to $tmp/err)
once() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" > "$tmp/out" 2> "$tmp/err"
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

printf '%-34s %10s %10s %8s %s\n' "job" "old ms" "new ms" "old/new" "output"
for f in linux-doc-x8.txt apache-x150.log urls-x140-shuf.txt; do
    for job in "run -q -j1" "run -q -j2" "scan"; do
        # shellcheck disable=SC2086
        set -- $job
        : > "$tmp/old.ms"; : > "$tmp/new.ms"
        for _ in $(seq "$runs"); do
            once "$old" "$@" "$out/$f" >> "$tmp/old.ms"
            cp "$tmp/out" "$tmp/old.out"
            once "$new" "$@" "$out/$f" >> "$tmp/new.ms"
        done
        same=identical
        cmp -s "$tmp/old.out" "$tmp/out" || same=DIFFERENT
        o=$(median < "$tmp/old.ms"); n=$(median < "$tmp/new.ms")
        printf '%-34s %10s %10s %8.3f %s\n' "$f: $job" "$o" "$n" "$(echo "$o / $n" | bc -l)" "$same"
    done
done

#!/usr/bin/env bash
# Two builds of linksieve on the bench corpora (scripts/bench-inputs.sh), in one sitting: the
# main job (`run -q`, -j1 and -j2) and `scan`, the two binaries alternating run by run
# (scripts/ab.sh); prints the median milliseconds of each, the ratio old/new (above 1: the new
# one is faster) and whether the outputs (the keys, the links) are byte-identical.
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

printf '%-34s %10s %10s %8s %s\n' "job" "old ms" "new ms" "old/new" "output"
for f in linux-doc-x8.txt apache-x150.log urls-x140-shuf.txt; do
    for job in "run -q -j1" "run -q -j2" "scan"; do
        # shellcheck disable=SC2086
        set -- $job
        # the medians of alternating runs (scripts/ab.sh), then one run of each for the output
        line=$(scripts/ab.sh "$runs" "$old" "$@" "$out/$f" -- "$new" "$@" "$out/$f")
        o=$(echo "$line" | sed -E 's/^A: .*median ([0-9]+) ms \|.*/\1/')
        n=$(echo "$line" | sed -E 's/.*B: .*median ([0-9]+) ms$/\1/')
        "$old" "$@" "$out/$f" > "$tmp/old.out" 2> /dev/null
        "$new" "$@" "$out/$f" > "$tmp/new.out" 2> /dev/null
        same=identical
        cmp -s "$tmp/old.out" "$tmp/new.out" || same=DIFFERENT
        printf '%-34s %10s %10s %8.3f %s\n' "$f: $job" "$o" "$n" "$(echo "$o / $n" | bc -l)" "$same"
    done
done

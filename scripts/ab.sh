#!/usr/bin/env bash
# Alternating A/B timing of two commands: runs A, then B, RUNS times, and prints the best and
# the median wall time (ms) of each. Alternating spreads the drift of a shared VM over both.
#
#   usage: scripts/ab.sh RUNS CMD_A... -- CMD_B...
#   e.g.   scripts/ab.sh 7 target/release/linksieve run -q -j1 F -- target/release/linksieve run -q -j2 F
# Both commands run with LC_ALL=C, as scripts/bench.sh runs its peers: `sort` is about 10% slower
# in a UTF-8 locale, which would flatter a comparison with `rg | sort -u`.
set -euo pipefail
export LC_ALL=C
RUNS="$1"; shift
A=(); B=(); cur=A
for x in "$@"; do
    if [ "$x" = "--" ]; then cur=B; continue; fi
    if [ "$cur" = A ]; then A+=("$x"); else B+=("$x"); fi
done
ta=(); tb=()
ms() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1 || true; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
for _ in $(seq "$RUNS"); do
    ta+=("$(ms "${A[@]}")")
    tb+=("$(ms "${B[@]}")")
done
stat() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "best %d ms, median %d ms", v[1], v[int((NR+1)/2)]}'; }
echo "A: $(stat "${ta[@]}") | B: $(stat "${tb[@]}")"

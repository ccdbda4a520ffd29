#!/usr/bin/env bash
# Builds and runs every fuzz target (fuzz/fuzz_targets/*.rs) for SECONDS each, one after the
# other, and prints the executions and crashes of each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]        (default: 60 seconds, every target)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and python3 (for the seeds). The stable
# toolchain is enough: RUSTC_BOOTSTRAP=1 lets it take the unstable flags cargo-fuzz passes.
# fuzz/ is its own cargo workspace, so the root build never sees it.
#
# Environment:
#   FUZZ_SANITIZER  none (default: the crates forbid unsafe code, so a sanitizer buys little
#                   and slows every execution) or address, memory, thread, leak
#   FUZZ_ARGS       extra libFuzzer flags, e.g. "-max_len=256"
#
# Each target runs as one libFuzzer process at a time (`-fork=1`: one child, restarted after a
# crash, which is counted and kept rather than ending the run; `-jobs=1` would stop at the first
# crash), under `nice -n 10`. The exit status is 1 when a target left new crash inputs. Seeds come
# from the conformance vectors (fuzz/seed.py), the corpus grows in fuzz/corpus/<target>, crash
# inputs land in fuzz/artifacts/<target>/ and the libFuzzer log in fuzz/artifacts/<target>.log
# (all three ignored by git). Scanner hits that no input mode parses are not crashes (the
# pipeline rejects and counts them); the scan target lists them in
# fuzz/artifacts/scan-unparsed.tsv (hit, input hex). Reproduce a crash with
#   fuzz/target/x86_64-unknown-linux-gnu/release/<target> fuzz/artifacts/<target>/crash-...
# and minimize it with
#   fuzz/target/x86_64-unknown-linux-gnu/release/<target> -minimize_crash=1 -runs=100000 FILE
set -euo pipefail

secs=${1:-60}
shift || true
if ! [[ $secs =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 2
fi
if ! command -v python3 >/dev/null; then
    echo "fuzz.sh: python3 is needed to write the seed corpora" >&2
    exit 2
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for f in fuzz/fuzz_targets/*.rs; do
        targets+=("$(basename "$f" .rs)")
    done
fi

san=${FUZZ_SANITIZER:-none}
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTC_BOOTSTRAP=1
echo "== building ${*:-every target} (release, debug assertions on, sanitizer: $san)" >&2
# The targets named (all of them when none is), the pipeline and differential targets with
# crates/pipeline: a target that does not build fails the run rather than being left out.
build=(nice -n 10 cargo fuzz build --sanitizer "$san" --features pipeline)
if [ $# -gt 0 ]; then
    for t in "${targets[@]}"; do
        "${build[@]}" "$t" >&2 || { echo "fuzz.sh: the fuzz target $t does not build" >&2; exit 1; }
    done
else
    "${build[@]}" >&2 || { echo "fuzz.sh: the fuzz targets do not build" >&2; exit 1; }
fi
python3 fuzz/seed.py "$root" fuzz/corpus >&2

# Per-target libFuzzer settings: input size and dictionary.
flags_for() {
    case $1 in
    scan) echo "-max_len=8192 -dict=fuzz/dict/scan.dict" ;;
    pipeline | differential) echo "-max_len=16384 -dict=fuzz/dict/scan.dict" ;;
    parse | convert | normalize | profile) echo "-max_len=1024 -dict=fuzz/dict/iri.dict" ;;
    *) echo "-max_len=4096" ;;
    esac
}

# Temporary files (libFuzzer's fork-mode folders, the pipeline target's input file) stay under
# fuzz/artifacts and are removed after each target.
export TMPDIR=$root/fuzz/artifacts/tmp
mkdir -p "$TMPDIR"

# The scan target reports hits that no input mode parses here (see fuzz/src/scan.rs).
unparsed=$root/fuzz/artifacts/scan-unparsed.tsv
rm -f "$unparsed"
export LINKSIEVE_FUZZ_UNPARSED=$unparsed
# Crash, timeout and out-of-memory inputs kept for target $1.
artifacts() {
    find "fuzz/artifacts/$1" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) |
        wc -l
}

summary=()
status=0
for t in "${targets[@]}"; do
    bin=fuzz/target/$triple/release/$t
    if [ ! -x "$bin" ]; then
        echo "fuzz.sh: no binary for target $t ($bin)" >&2
        exit 2
    fi
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log=fuzz/artifacts/$t.log
    echo "== $t: ${secs}s, log $log" >&2
    before=$(artifacts "$t")
    # shellcheck disable=SC2046 # the flags are words
    nice -n 10 "$bin" "fuzz/corpus/$t" \
        -max_total_time="$secs" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" $(flags_for "$t") ${FUZZ_ARGS:-} \
        >"$log" 2>&1 || true
    rm -rf "${TMPDIR:?}"/*
    after=$(artifacts "$t")
    # The fork-mode status lines:
    #   "#RUNS: cov: C ft: F corp: N exec/s: E oom/timeout/crash: a/b/c time: T job: J ...".
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1 || true)
    runs=$(sed -nE 's/^#([0-9]+): cov:.*/\1/p' <<<"$last")
    otc=$(sed -nE 's/.*oom\/timeout\/crash: ([0-9]+\/[0-9]+\/[0-9]+).*/\1/p' <<<"$last")
    cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$last")
    corp=$(find "fuzz/corpus/$t" -type f | wc -l)
    fmt='%-10s executions %12s  cov %6s  corpus %6s  oom/timeout/crash %-9s  new artifacts %s'
    line=$(printf "$fmt" "$t" "${runs:-?}" "${cov:-?}" "$corp" "${otc:-?}" "$((after - before))")
    if [ -s "$unparsed" ] && [ "$t" = scan ]; then
        distinct=$(cut -f1 "$unparsed" | sort -u | wc -l)
        line+=$(printf '  unparsed hits reported %s (%s)' "$distinct" "$unparsed")
    fi
    echo "$line" >&2
    summary+=("$line")
    if [ "$((after - before))" -gt 0 ]; then
        status=1
    fi
done

echo "== summary (${secs}s per target; artifacts in fuzz/artifacts/)"
printf '%s\n' "${summary[@]}"
exit "$status"

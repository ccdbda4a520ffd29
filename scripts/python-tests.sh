#!/usr/bin/env bash
# The Python tests (tests/python/): builds the `linksieve` module's wheel as users install it
# (scripts/wheel.sh: one abi3 wheel, manylinux2014, linked by Zig; with the `pytest` profile of
# Cargo.toml: optimized, without the release's link-time optimization;
# LINKSIEVE_PY_PROFILE=release for the wheel users get) into target/wheels, installs it into a
# venv under target/ with tests/python/requirements.txt, builds the debug CLI (the tests'
# oracle), then runs pytest with no Rust toolchain on PATH (the wheel is all the module needs):
# the API against the CLI and xxhash, pyarrow in and out, the GIL released, the seen-sets
# against a Python set and a kill, the type stubs (mypy), every docstring example, Scrapy's
# fingerprints and a real Scrapy crawl of a server on 127.0.0.1. The tests run on as many
# pytest-xdist workers as there are cores (`-n auto`; `-n 0` among the args: one process).
#
#   scripts/python-tests.sh [pytest args]
#
# LINKSIEVE_PY_VENV: the venv (default ${CARGO_TARGET_DIR:-target}/python-venv; rebuilt when
# tests/python/requirements.txt changes). Needs python3 (3.10+, with venv).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv=$(scripts/venv.sh python)
wheel=$(scripts/wheel.sh "${LINKSIEVE_PY_PROFILE:-pytest}" "$target_dir/wheels")
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
cargo build --locked -q -p linksieve-cli
# PATH without the folders that hold cargo, rustc or rustup
no_rust=
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
    [ -e "$d/cargo" ] || [ -e "$d/rustc" ] || [ -e "$d/rustup" ] || no_rust="${no_rust:+$no_rust:}$d"
done
if env PATH="$no_rust" sh -c "command -v cargo || command -v rustc" >/dev/null; then
    echo "python-tests.sh: a Rust toolchain is still on PATH" >&2
    exit 1
fi
PATH="$venv/bin:$no_rust" LINKSIEVE_BIN="$target_dir/debug/linksieve" LINKSIEVE_WHEEL="$wheel" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -n auto tests/python "$@"

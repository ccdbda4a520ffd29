#!/usr/bin/env bash
# The Python module's wheel as users install it: one abi3 wheel (CPython 3.10 and later) for
# manylinux2014 (x86_64 Linux with glibc 2.17 or later), linked by Zig (`maturin build --zig`,
# Zig from the `ziglang` package on PyPI: no container, no system linker flags), checked by
# maturin's own auditwheel step. `pip install linksieve-*.whl` then needs no Rust toolchain.
#
#   scripts/wheel.sh [PROFILE] [OUT_DIR]
#
# PROFILE: the Cargo profile, `release` (the default: what users get, with link-time
# optimization) or `pytest` (optimized without it, for the tests; see Cargo.toml). OUT_DIR:
# default ${CARGO_TARGET_DIR:-target}/wheels; its older linksieve wheels are removed. Prints
# the wheel's path. LINKSIEVE_WHEEL_VENV: the venv with maturin and ziglang (default
# ${CARGO_TARGET_DIR:-target}/wheel-venv, from scripts/wheel-requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
profile="${1:-release}"
out="${2:-$target_dir/wheels}"
case "$profile" in
    release | pytest) ;;
    *) echo "usage: scripts/wheel.sh [release|pytest] [OUT_DIR]" >&2; exit 2 ;;
esac
venv=$(scripts/venv.sh wheel)
mkdir -p "$out"
rm -f "$out"/linksieve-*.whl
# maturin finds zig (python -m ziglang) in its own venv
PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --quiet --locked --zig \
    --compatibility manylinux2014 --profile "$profile" --out "$out" >&2
wheel=$(ls "$out"/linksieve-*.whl)
case "$(basename "$wheel")" in
    linksieve-*-cp310-abi3-*manylinux_2_17_x86_64.whl) ;;
    *) echo "wheel.sh: $wheel is not an abi3 manylinux2014 wheel" >&2; exit 1 ;;
esac
echo "$wheel"

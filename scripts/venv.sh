#!/usr/bin/env bash
# The venvs of the Python-based scripts: makes VENV with the pinned REQUIREMENTS file installed,
# or keeps it when it was made from the same file (a copy is kept in VENV/requirements.txt);
# rebuilt when the file changes. Prints the venv's path.
#
#   scripts/venv.sh VENV REQUIREMENTS
#   scripts/venv.sh oracle|python|wheel     the venvs of oracles.sh, python-tests.sh and
#                                           wheel.sh (and prepare.sh), named here only:
#     oracle  ${LINKSIEVE_ORACLE_VENV:-${CARGO_TARGET_DIR:-target}/oracle-venv}, tests/oracles/requirements.txt
#     python  ${LINKSIEVE_PY_VENV:-${CARGO_TARGET_DIR:-target}/python-venv}, tests/python/requirements.txt
#     wheel   ${LINKSIEVE_WHEEL_VENV:-${CARGO_TARGET_DIR:-target}/wheel-venv}, scripts/wheel-requirements.txt
#
# Needs python3 with venv, and pip's registry (PyPI) the first time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$#:${1:-}" in
    1:oracle) venv="${LINKSIEVE_ORACLE_VENV:-$target_dir/oracle-venv}" req="$root/tests/oracles/requirements.txt" ;;
    1:python) venv="${LINKSIEVE_PY_VENV:-$target_dir/python-venv}" req="$root/tests/python/requirements.txt" ;;
    1:wheel) venv="${LINKSIEVE_WHEEL_VENV:-$target_dir/wheel-venv}" req="$root/scripts/wheel-requirements.txt" ;;
    2:*) venv="$1" req="$2" ;;
    *) echo "usage: scripts/venv.sh VENV REQUIREMENTS | oracle | python | wheel" >&2; exit 2 ;;
esac
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    cp "$req" "$venv/requirements.txt"
fi
echo "$venv"

#!/usr/bin/env bash
# The venvs of the Python-based scripts (oracles.sh, python-tests.sh, bench-profiles.sh,
# bench-python.sh): makes VENV with the pinned REQUIREMENTS file installed, or keeps it when it
# was made from the same file (a copy is kept in VENV/requirements.txt); rebuilt when the file
# changes.
#
#   scripts/venv.sh VENV REQUIREMENTS
#
# Needs python3 with venv, and pip's registry (PyPI) the first time.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/venv.sh VENV REQUIREMENTS" >&2; exit 2; }
venv="$1"
req="$2"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    cp "$req" "$venv/requirements.txt"
fi

#!/usr/bin/env bash
# Normalize benchmark: the comparison ladder vs ada-url, url, iri-string, fluent-uri, one thread,
# on two lists: the real kasztp list (mostly already normal: the ladder's fast path) and the
# same list made non-normal by benches/make-non-normal.py (the general path), which is made
# here when it is missing. Ratios to ada-url are taken within each run.
# Usage: scripts/bench-normalize.sh [--runs N] [--only TEXT]
set -euo pipefail
cd "$(dirname "$0")/.."
data=testdata/corpora/data
[ -f "$data/url-list-kasztp-non-normal.txt" ] \
    || python3 benches/make-non-normal.py "$data/url-list-kasztp.txt" "$data/url-list-kasztp-non-normal.txt"
cargo build --release -p linksieve-benches --bin normalize_bench
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
for list in url-list-kasztp.txt url-list-kasztp-non-normal.txt; do
    "${target_dir:-target}/release/normalize_bench" --urls "$data/$list" "$@"
done

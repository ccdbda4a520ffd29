#!/usr/bin/env bash
# Parse benchmark (issue 2): linksieve vs url, ada-url, oxiri, iri-string, fluent-uri on real URLs.
# Usage: scripts/bench-parse.sh [--urls FILE] [--log FILE] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p linksieve-benches --bin parse_bench
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
exec "${target_dir:-target}/release/parse_bench" "$@"

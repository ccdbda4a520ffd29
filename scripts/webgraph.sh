#!/usr/bin/env bash
# WebGraph's own tools for the oracle test of the graph files (tests/oracles/test_graph.py):
# webgraph-cli, the Rust port of the WebGraph framework by its authors, from crates.io at a
# pinned version with its own lock file, its `webgraph` and `webgraph-rank` binaries built once
# (a debug build: the test's graphs are small; about 3 minutes on two cores) into
# ${LINKSIEVE_CACHE:-~/.cache/linksieve}/webgraph-cli-VERSION. Prints that build's bin folder.
# (Java's WebGraph, which cc-webgraph runs, comes from Maven Central, which CI does not reach.)
#
#   scripts/webgraph.sh
set -euo pipefail
version=0.5.0
root="${LINKSIEVE_CACHE:-$HOME/.cache/linksieve}/webgraph-cli-$version"
if [ ! -x "$root/bin/webgraph-rank" ] || [ ! -x "$root/bin/webgraph" ]; then
    echo "webgraph.sh: building webgraph-cli $version from crates.io (once)" >&2
    CARGO_TARGET_DIR="$root/target" cargo install -q --locked --debug --force \
        "webgraph-cli@$version" --bin webgraph --bin webgraph-rank --root "$root" >&2
    rm -rf "$root/target"
fi
echo "$root/bin"

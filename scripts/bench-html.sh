#!/usr/bin/env bash
# Outlinks of real HTML by three tokenizers in one run (benches/src/bin/html_bench.rs):
# linksieve_scan::html (whole page, and 64 KiB chunks), html5ever's tokenizer, lol_html.
#
#   usage: scripts/bench-html.sh [ROUNDS]     (median of ROUNDS timed passes, default 5)
#
# The corpus: every .html/.htm page of the Debian packages python3.11-doc, git-doc,
# postgresql-doc-15 and debian-reference-en (apt-get download; run 'apt-get update' once),
# unpacked into LINKSIEVE_HTML_CORPUS (default target/corpora/html; built when missing, its
# .done marker records the package versions; ~20 MB of downloads, ~190 MB of pages). The same
# directory serves the differential test against Python's html.parser:
#   LINKSIEVE_HTML_CORPUS=target/corpora/html cargo test -p linksieve-scan --test integration html_oracle:: -- --ignored --nocapture
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
corpus="${LINKSIEVE_HTML_CORPUS:-$PWD/target/corpora/html}"
PKGS="python3.11-doc git-doc postgresql-doc-15 debian-reference-en"

die() { echo "bench-html.sh: error: $*" >&2; exit 1; }

if [ ! -e "$corpus/.done" ]; then
    for t in apt-get dpkg-deb; do
        command -v "$t" >/dev/null 2>&1 || die "required tool '$t' not found on PATH"
    done
    echo "bench-html.sh: building the HTML corpus in $corpus" >&2
    mkdir -p "$corpus/.cache"
    rm -f "$corpus/.cache"/*.deb
    # shellcheck disable=SC2086
    ( cd "$corpus/.cache" && apt-get download $PKGS ) \
        || die "apt-get download failed (run 'apt-get update' first)"
    : > "$corpus/.done.tmp"
    for deb in "$corpus"/.cache/*.deb; do
        pkg="$(dpkg-deb -f "$deb" Package)"
        ver="$(dpkg-deb -f "$deb" Version)"
        rm -rf "${corpus:?}/$pkg" "$corpus/.cache/x"
        mkdir -p "$corpus/.cache/x" "$corpus/$pkg"
        dpkg-deb -x "$deb" "$corpus/.cache/x" || die "cannot unpack $deb"
        ( cd "$corpus/.cache/x" && find . -type f \( -name '*.html' -o -name '*.htm' \) -print0 \
            | xargs -0 -r cp --parents -t "$corpus/$pkg" )
        printf '%s\t%s\t%s\n' "$pkg" "$ver" "$(find "$corpus/$pkg" -type f | wc -l)" >> "$corpus/.done.tmp"
    done
    rm -rf "$corpus/.cache/x"
    mv "$corpus/.done.tmp" "$corpus/.done"
fi
echo "bench-html.sh: corpus $corpus:" >&2
sed 's/^/  /' "$corpus/.done" >&2

cargo build --release --locked -q -p linksieve-benches --bin html_bench
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
"$target_dir/release/html_bench" --rounds "$ROUNDS" "$corpus"

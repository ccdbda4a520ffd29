#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the conformance vectors.

usage: fuzz/seed.py REPO_ROOT CORPUS_DIR

Reads the `input` (and `base`, `expected`) strings of testdata/normalize/*.jsonl and the
`input` / `input_hex` texts of testdata/extract/*.jsonl, and writes one file per seed into
CORPUS_DIR/<target>/, named by the SHA-1 of its content as libFuzzer does (so running it again
adds nothing). The layouts follow the targets (fuzz/src/*.rs):

- parse:     the text; `base\\ninput` for resolution vectors
- convert:   one option byte, then the text
- normalize: one option byte, then `input\\nexpected` (a pair the vectors call equivalent)
- profile:   one option byte, then the input (its exact bytes where `input_hex` gives them)
- scan:      one option byte (encoding, modes), one chunking byte, then the text encoded
- pipeline:  one option byte, then about 12 KB of extraction inputs, one per line (several
             of the pipeline's 4 KiB chunks)
- differential: the pipeline's texts, with an option byte of its own (bits 0-4) and a
  container byte (none, or rotating through gzip, zstd, zstd with a dictionary frame, xz and
  lzma), small HTML documents (HTML_SEEDS), JSON documents with JSON-escaped links (JSON_SEEDS,
  also given to scan), a text in each container, plain and as a WARC, and links wrapped in
  `<…>` across line breaks (WRAPPED_SEEDS)
"""

import glob
import hashlib
import json
import os
import sys

# Python codec names of the scan target's encodings, in its order (fuzz/src/scan.rs).
SCAN_CODECS = ["utf-8", "utf-16-le", "shift_jis", "euc_jp", "iso2022_jp", "big5", "gb18030", "cp1252"]


def write(dir_, data):
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(dir_, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
        return 1
    return 0


def records(pattern):
    for path in sorted(glob.glob(pattern)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


def main():
    root, corpus = sys.argv[1], sys.argv[2]
    dirs = {t: os.path.join(corpus, t) for t in ["parse", "convert", "normalize", "profile", "scan", "pipeline", "differential"]}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    counts = dict.fromkeys(dirs, 0)
    n = 0
    for r in records(os.path.join(root, "testdata/normalize/*.jsonl")):
        inp = r.get("input")
        if not isinstance(inp, str):
            continue
        n += 1
        exp = r.get("expected") if isinstance(r.get("expected"), str) else None
        base = r.get("base") if isinstance(r.get("base"), str) else None
        texts = [inp] + ([exp] if exp else [])
        for t in texts:
            counts["parse"] += write(dirs["parse"], t.encode("utf-8", "surrogatepass"))
        if isinstance(r.get("input_hex"), str):
            # The exact bytes, which may not be UTF-8 (the target reads them lossily).
            counts["parse"] += write(dirs["parse"], bytes.fromhex(r["input_hex"]))
        if base:
            counts["parse"] += write(dirs["parse"], (base + "\n" + inp).encode("utf-8", "surrogatepass"))
        flag = bytes([n % 4 << 4 | n % 2])
        counts["convert"] += write(dirs["convert"], flag + inp.encode("utf-8", "surrogatepass"))
        pair = inp + ("\n" + exp if exp else "")
        counts["normalize"] += write(dirs["normalize"], bytes([n % 16]) + pair.encode("utf-8", "surrogatepass"))
        raw = bytes.fromhex(r["input_hex"]) if isinstance(r.get("input_hex"), str) else inp.encode("utf-8", "surrogatepass")
        counts["profile"] += write(dirs["profile"], bytes([n % 8]) + raw)
    batch, files = [], 0
    for r in records(os.path.join(root, "testdata/extract/*.jsonl")):
        if isinstance(r.get("input"), str):
            batch.append(r["input"].encode("utf-8", "surrogatepass"))
            if len(batch) % 16 == 1:
                # Some small inputs too, each alone.
                counts["pipeline"] += write(dirs["pipeline"], bytes([len(batch) % 128]) + batch[-1])
                # the differential target (its option byte: bits 0-4; no container) gets the
                # same texts
                counts["differential"] += write(dirs["differential"], bytes([len(batch) % 32, 0]) + batch[-1])
            if sum(len(b) + 1 for b in batch) > 12000:
                flag = bytes([files % 128])
                counts["pipeline"] += write(dirs["pipeline"], flag + b"\n".join(batch))
                counts["differential"] += write(dirs["differential"], bytes([files % 32, files % 8]) + b"\n".join(batch))
                batch, files = [], files + 1
        if isinstance(r.get("input_hex"), str):
            raw = [bytes.fromhex(r["input_hex"])]
        elif isinstance(r.get("input"), str):
            text = r["input"]
            raw = [text.encode("utf-8", "surrogatepass")]
            # The same text in one more encoding, rotating through the scan target's list.
            enc = 1 + n % (len(SCAN_CODECS) - 1)
            try:
                raw.append(text.encode(SCAN_CODECS[enc], "xmlcharrefreplace"))
            except (UnicodeError, LookupError):
                enc = 0
        else:
            continue
        n += 1
        modes = r.get("modes") or []
        mode_bits = (0x08 if "schemeless" in modes else 0) | (0x10 if "email" in modes else 0)
        for i, data in enumerate(raw):
            enc_bits = 0 if i == 0 else enc
            flag = bytes([enc_bits | mode_bits])
            counts["scan"] += write(dirs["scan"], flag + bytes([n % 256]) + data)
    # HTML documents (option bit 2) whose attributes' outlinks key otherwise than the links of
    # their text: the differential oracle must read them as documents (a fuzzing find of
    # 2026-11-26: an unquoted href that ends in a quote, a scheme the text scan splits)
    for i, page in enumerate(HTML_SEEDS):
        for flag in (0x04, 0x06, 0x14):
            counts["differential"] += write(dirs["differential"], bytes([flag, 0]) + page)
    # each container (byte 1: 3 gzip, 4 zstd, 5 zstd with a dictionary frame, 6 xz, 7 lzma)
    # around a text, a WARC of it, and a WARC with a chunked, gzip-coded payload
    for container in range(3, 8):
        for flag in (0x00, 0x20, 0xE0):
            counts["differential"] += write(dirs["differential"], bytes([flag, container]) + CONTAINER_SEED)
    # JSON-escaped links (issue #30 item 10): `\/`, `\u002F`, `\u0026`, surrogate pairs, escaped
    # quotes and line breaks that end a link; plain (bit 3: separator-free, so the links of a
    # line are joined by commas), as the payload of a WARC record (bit 5) and gzip-coded (bit 7);
    # byte 1: no container, and one in zstd (4)
    for i, doc in enumerate(JSON_SEEDS):
        for flag in (0x00, 0x08, 0x20, 0xA0, 0x04):
            for container in (0, 4):
                counts["differential"] += write(dirs["differential"], bytes([flag, container]) + doc)
            counts["scan"] += write(dirs["scan"], bytes([0, i % 256]) + doc)
    # links wrapped in `<…>` across line breaks (RFC 3986 appendix C), one longer than a 4 KiB
    # chunk (a fuzzing find of 2026-11-27: `run` also wrote the links inside such a wrapper that
    # fell into the chunk after a cut at a line feed); plain, schemeless and e-mail, gzip-coded
    for doc in WRAPPED_SEEDS:
        for flag in (0x00, 0x03, 0x10):
            for container in (0, 3):
                counts["differential"] += write(dirs["differential"], bytes([flag, container]) + doc)
    print(" ".join(f"{t}={c}" for t, c in counts.items()), "new seeds")


CONTAINER_SEED = (
    b"see http://a.example/x?q=1 and https://b.example/p/q, <http://c.example/>\n"
    b"mailto:m@d.example www.e.example/path http://f.example/caf\xc3\xa9 end\n"
)

HTML_SEEDS = [
    b'<a href=http://www.example.com/path/">example1</a>\n',
    b'<a href=URL:ps://www.example.com/path/">example1</a>\n',
    b'<a href="http://a.example/x y">t</a> http://a.example/x <img src=HTTP://B.example:80/>\n',
    b'<a href=&quot;http://q.example/&quot;>q</a><a href="rel/ative">r</a>\n',
    b'<base href="http://base.example/d/"><a href="../up">u</a> <a href="mailto:me@x.example">m</a>\n',
]

JSON_SEEDS = [
    b'{"url":"http:\\/\\/json.example.com\\/a","q":"http://js.example/p?q=\\u0026x=1"}\n',
    b'{"cdn":"https:\\u002F\\u002Fcdn.example\\u002Fimg.png","e":"http:\\/\\/d.example\\/\\ud83d\\ude00"}\n',
    b'{"html":"<a href=\\"http:\\/\\/b.example\\/c\\">x<\\/a>\\nhttp:\\/\\/c.example\\/d\\u002e"}\n',
    b'["http:\\/\\/a.example\\/1,http:\\/\\/a.example\\/2","http:\\/\\/u@h.example:99999\\/p\\ud83d"]\n',
    b'{"a":"HTTP:\\/\\/A.Example\\/%7e\\u00e9?x=\\u0026amp;","b":"http:\\/\\/","c":"http:\\/\\/x\\u00"}\n',
]

WRAPPED_SEEDS = [
    b"see <http://c.example/\n"
    + b"".join(b"https://in%d.example/%d\n" % (i % 7, i) for i in range(220))
    + b">, then http://d.example/\n",
    b"> quoted http://q.example/\n>> <http://w.example/a\n   b/c> and <URL:http://u.example/x\n y>\n"
    b'<http://b.example/\nhttps://x.example/" y>\n',
]


if __name__ == "__main__":
    main()

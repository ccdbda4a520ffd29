"""Writes testdata/normalize/python-idna2003.tsv: non-ASCII hosts and what CPython 3.11's
`encodings.idna` codec (`host.encode("idna")`: RFC 3490 ToASCII, RFC 3491 Nameprep, RFC 3492
Punycode) makes of them, for the shared IDNA 2003 module's test (`idna2003.rs`).
Run once with CPython 3.11 (the codec is in the standard library; no package needed):
    python3 crates/profiles/tools/gen_idna2003_vectors.py > testdata/normalize/python-idna2003.tsv
"""
import random
import sys

rng = random.Random(3490)
WORDS = ["bücher", "münchen", "中国", "пример", "العربية", "עברית", "ελληνικά", "日本語", "한국어",
         "straße", "ΣΊΣΥΦΟΣ", "ﬁnance", "㎏", "Ⅷ", "ǅemal", "İstanbul", "ᾳ", "ŉ", "ｅｘａｍｐｌｅ",
         "\u0221x", "ꭰᏸ", "Ꭰbc", "ẞig", "🎉", "x\u00adn", "a\u200db", "a\ue000", "\u0340a",
         "\u05d0\u05d1", "\u05d0a", "1\u0627", "\u0627\u0661", "ç", "xn--ü", "Ǆ", "ΐ", "ﬃ",
         "\u2f00", "\u1e9b\u0323", "\u0958", "\u2126", "\u212b", "\u03d2\u0301", "\uff21\uff22"]
BLOCKS = [(0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x6FF), (0x900, 0x97F),
          (0x1E00, 0x1FFF), (0x2000, 0x2BFF), (0x3000, 0x30FF), (0x4E00, 0x4E80), (0xAC00, 0xAC80),
          (0xFB00, 0xFFEF), (0x13A0, 0x13FF), (0xAB70, 0xABBF), (0x1D400, 0x1D7FF),
          (0x1F300, 0x1F6FF), (0x10000, 0x100FF)]
DOTS = [".", "\u3002", "\uff0e", "\uff61"]


def rand_label():
    if rng.random() < 0.4:
        return rng.choice(WORDS)
    lo, hi = rng.choice(BLOCKS)
    n = rng.randint(1, 8)
    s = "".join(chr(rng.randint(lo, hi)) for _ in range(n))
    if rng.random() < 0.3:
        s = rng.choice(["a", "xn", "Ex", "w3"]) + s
    return s


def rand_host():
    labels = [rand_label() for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        labels.append(rng.choice(["com", "de", "ORG", "网络"]))
    r = rng.random()
    if r < 0.05:
        labels.insert(1, "")
    elif r < 0.1:
        labels[0] = labels[0] * 20
    host = labels[0]
    for l in labels[1:]:
        host += rng.choice(DOTS) + l
    if rng.random() < 0.1:
        host += rng.choice(DOTS)
    return host


out, seen = [], set()
for w in WORDS:
    seen.add(w)
    out.append(w)
while len(out) < 400:
    h = rand_host()
    if h in seen or h.isascii() or any(c in h for c in "\t\n\r") or any(0xD800 <= ord(c) <= 0xDFFF for c in h):
        continue
    seen.add(h)
    out.append(h)
print(f"# CPython {sys.version.split()[0]} `host.encode('idna')` of non-ASCII hosts (crates/profiles/tools/"
      "gen_idna2003_vectors.py); host TAB result, `!` where Python raises UnicodeError.")
for h in out:
    try:
        r = h.encode("idna").decode("ascii")
        assert "\t" not in r and "\n" not in r
    except UnicodeError:
        r = "!"
    print(f"{h}\t{r}")

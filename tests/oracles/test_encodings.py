"""Issue #30 item 4: text in a legacy encoding whose first 64 KiB are ASCII. `auto` decides at
the first non-ASCII byte, so every link after it is decoded whole; the expected links are the
text as Python's codecs encode and decode it (an oracle that shares no code with linksieve)."""

import gzip

import pytest

# (codec, a sentence in the language, hosts and paths with its letters)
CASES = [
    ("cp1252", "Le café de la forêt est fermé à Noël, déjà très tôt.",
     ["http://shop.example/café/menu", "http://shop.example/café/contact?q=crème"]),
    ("koi8_r", "Съешь же ещё этих мягких французских булок, да выпей чаю.",
     ["http://магазин.example/меню", "http://site.example/путь/к/файлу"]),
    ("shift_jis", "いろはにほへと ちりぬるを わかよたれそ つねならむ 日本語の文章です。",
     ["http://例え.example/日本語/ページ", "http://site.example/パス"]),
    ("gbk", "我能吞下玻璃而不伤身体。这是一个中文句子，用于测试编码。",
     ["http://例子.example/中文/页面", "http://site.example/路径"]),
]


def log_lines(size):
    out, n = [], 0
    while n < size:
        line = f'127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a{n}.gif HTTP/1.0" 200 2326\n'
        out.append(line)
        n += len(line)
    return "".join(out)


@pytest.mark.parametrize("codec,sentence,urls", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("ascii_before", [0, 86_000, 300_000])
@pytest.mark.parametrize("compressed", [False, True])
def test_links_after_an_ascii_start_are_decoded_whole(
    tmp_path, run, codec, sentence, urls, ascii_before, compressed
):
    body = " ".join(f"{sentence} {u} ." for u in urls) + "\n"
    text = log_lines(ascii_before) + body * 3
    data = text.encode(codec)
    assert data.decode(codec) == text
    f = tmp_path / ("in.txt.gz" if compressed else "in.txt")
    f.write_bytes(gzip.compress(data) if compressed else data)
    for chunk in ("4K", "64K", "1M"):
        for j in ("1", "2"):
            p = run("run", "--rung", "string", "--form", "iri", "--chunk-size", chunk, "-j", j,
                    f, check_status=0)
            assert p.stdout.splitlines() == urls, (chunk, j, p.stdout[-500:])
            assert any(f"encodings: {e} x1" in p.stderr for e in ENCODING[codec]), p.stderr
    # `scan` (the streaming scanner): every occurrence, as written
    p = run("scan", f, check_status=0)
    assert p.stdout.splitlines() == urls * 3, p.stdout[-500:]


# the WHATWG names the detector may give (KOI8-U reads Russian letters as KOI8-R does; a
# GBK text is GB18030 too)
ENCODING = {
    "cp1252": ["windows-1252"],
    "koi8_r": ["KOI8-R", "KOI8-U"],
    "shift_jis": ["Shift_JIS"],
    "gbk": ["GBK", "gb18030"],
}

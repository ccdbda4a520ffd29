"""`linksieve run` on compressed and folded inputs against readers it did not write.

Oracles:
- the `zstandard` package (python-zstandard, over the reference libzstd) writes the IIPC
  WARC-zstd layout: a dictionary trained on the records, in a skippable frame with the magic
  number 0x184D2A5D (plain, or itself a zstd frame), then one frame per record compressed with
  it; the package decompresses it back to the plain WARC (the file is what the spec says), and
  warcio reads the plain WARC: the keys of the `.warc.zst` are those of the text warcio reads.
- Python's `lzma` (over xz-utils' liblzma) writes .xz (one stream and several) and .lzma
  (FORMAT_ALONE) files of a text; their keys are those of the text.
- warcio reads a WARC whose headers are folded onto continuation lines (a line that starts with
  a space or a tab continues the previous field: ISO 28500 4): the keys are those of the text
  warcio reads, with the charset it finds on a folded Content-Type.
"""

import io
import lzma

import pytest
import zstandard
from warcio.warcwriter import WARCWriter

from test_warc import page, records, warcio_text, http_response

RESPONSE = "application/http; msgtype=response"


def record_bytes(kind, uri, ctype, block):
    """One WARC record as warcio writes it, uncompressed."""
    out = io.BytesIO()
    w = WARCWriter(out, gzip=False)
    rec = w.create_warc_record(
        uri or "", kind, payload=io.BytesIO(block), length=len(block), warc_content_type=ctype
    )
    w.write_record(rec)
    return out.getvalue()


def many_records():
    """The shapes of test_warc's records, and enough pages beside them to train a dictionary."""
    recs = [record_bytes(*r) for r in records()]
    for n in range(20, 220):
        recs.append(record_bytes("response", f"http://p{n}.example/", RESPONSE,
                                 http_response(page(n, 8), chunk=50 if n % 3 else None)))
    return recs


def skippable(magic, data):
    return magic.to_bytes(4, "little") + len(data).to_bytes(4, "little") + data


@pytest.mark.parametrize("compressed_dict", [False, True], ids=["dict", "zstd-dict"])
def test_iipc_warc_zstd_matches_warcio(tmp_path, run, compressed_dict):
    recs = many_records()
    plain = tmp_path / "plain.warc"
    plain.write_bytes(b"".join(recs))
    text = tmp_path / "oracle.txt"
    text.write_text(warcio_text(plain), encoding="utf-8")
    want = run("run", "-q", text, check_status=0).stdout.splitlines()
    assert len(want) > 1000

    d = zstandard.train_dictionary(16384, recs)
    dict_bytes = d.as_bytes()
    assert dict_bytes[:4] == b"\x37\xa4\x30\xec"
    if compressed_dict:
        # IIPC WARC-zstd: one frame, no dictionary, with its content size and checksum
        dict_data = zstandard.ZstdCompressor(write_checksum=True).compress(dict_bytes)
    else:
        dict_data = dict_bytes
    c = zstandard.ZstdCompressor(level=3, dict_data=d, write_checksum=True,
                                 write_content_size=True, write_dict_id=True)
    frames = [c.compress(r) for r in recs]
    body = skippable(0x184D2A5D, dict_data) + b"".join(frames[:10])
    body += skippable(0x184D2A5E, b"an extension frame") + b"".join(frames[10:])
    zst = tmp_path / "x.warc.zst"
    zst.write_bytes(body)

    # the file is the spec's layout: the package reads it back to the plain WARC
    dctx = zstandard.ZstdDecompressor(dict_data=d)
    assert dctx.stream_reader(io.BytesIO(body[8 + len(dict_data):]), read_across_frames=True) \
        .read() == plain.read_bytes()
    for chunk in ["4K", "1M"]:
        got = run("run", "-q", "--chunk-size", chunk, zst, check_status=0)
        assert got.stdout.splitlines() == want, chunk
    # without its dictionary frame the frames cannot be read: a failed input, no keys
    bare = tmp_path / "bare.warc.zst"
    bare.write_bytes(b"".join(frames))
    p = run("run", bare)
    assert p.returncode == 1 and p.stdout == "", p.stderr


def text_with_links():
    return "".join(
        f"{i} see http://x{i % 89}.example/a/{i}?q={i * 7} and https://y.example/{i}\n"
        for i in range(3000)
    ).encode()


@pytest.mark.parametrize("form", ["xz", "xz-streams", "lzma", "xz-warc"])
def test_xz_and_lzma_match_the_plain_input(tmp_path, run, form):
    if form == "xz-warc":
        data = b"".join(record_bytes(*r) for r in records())
        plain = tmp_path / "plain.warc"
        plain.write_bytes(data)
        oracle = tmp_path / "oracle.txt"
        oracle.write_text(warcio_text(plain), encoding="utf-8")
    else:
        data = text_with_links()
        oracle = tmp_path / "plain.txt"
        oracle.write_bytes(data)
    want = run("run", "-q", oracle, check_status=0).stdout
    assert len(want.splitlines()) > 400
    if form == "lzma":
        packed = lzma.compress(data, format=lzma.FORMAT_ALONE)
    elif form == "xz-streams":
        third = len(data) // 3
        packed = b"".join(lzma.compress(data[i:j]) for i, j in
                          [(0, third), (third, 2 * third), (2 * third, len(data))])
    else:
        packed = lzma.compress(data, preset=6)
    f = tmp_path / f"input.{form}"
    f.write_bytes(packed)
    assert run("run", "-q", f, check_status=0).stdout == want


def folded_warc():
    """Records whose headers fold onto continuation lines (SP or HT first), written by hand:
    warcio's writer never folds."""
    cyr = "ссылка http://пример.example/путь http://ru.example/1\n".encode("windows-1251")
    parts = [
        (b"WARC-Date: 2026-01-01T00:00:00Z\r\nX-Note: a note\r\n folded: once\r\n\tand twice\r\n"
         b"Content-Type: text/plain\r\n", b"http://one.example/a http://one.example/b\n"),
        (b"Content-Type: text/plain;\r\n\tcharset=windows-1251\r\n", cyr),
        (b"Content-Type:\r\n text/plain\r\n", b"http://three.example/\n"),
    ]
    out = b""
    for n, (fields, block) in enumerate(parts):
        out += (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\n"
                b"WARC-Target-URI: http://f%d.example/\r\n" % (n, n))
        out += fields + b"Content-Length: %d\r\n\r\n" % len(block) + block + b"\r\n\r\n"
    return out


def test_folded_warc_headers_match_warcio(tmp_path, run):
    warc = tmp_path / "folded.warc"
    warc.write_bytes(folded_warc())
    text = tmp_path / "oracle.txt"
    text.write_text(warcio_text(warc), encoding="utf-8")
    want = run("run", "-q", text, check_status=0).stdout.splitlines()
    # warcio unfolded the charset: the Cyrillic IRI was decoded from windows-1251
    assert "http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C" in want
    assert "http://three.example/" in want
    got = run("run", "-q", warc, check_status=0).stdout.splitlines()
    assert got == want

"""An input that a read error ends early, against decoders linksieve did not write.

A compressed file cut short (gzip, bzip2, xz, zstd; a plain text and a WARC of HTML pages) and
a plain WARC whose input ends inside a record's block. Python's `zlib`, `bz2` and `lzma` (over
zlib, libbzip2 and liblzma) and python-zstandard (over libzstd) decode the cut file as far as
it goes: that text is what the input held before the error. A link of it is complete when a
delimiter follows it (a space, a quote, `<`, a line break).

linksieve must write every complete link that ends before the text's last space or line break,
and nothing else: not a key made of a link the error cut short (before, the last link was
written as far as it went, a key the input never held), while the run still fails (status 1).
Whatever follows that last white space is dropped by design, since the error may have cut it
(`docs/guide.md`, "Damaged inputs").

A WARC.gz with one bit flipped (one gzip member per record, as WARC writers compress): no key
that the file's pages do not hold, since a record is used only once its member passed gzip's
CRC check.
"""

import bz2
import gzip
import lzma
import random
import re
import zlib

import pytest
import zstandard

LINK = re.compile(rb'(https://ex\.org/[0-9a-f]{32}-end)(?=[ "<\n])')
WHITE = re.compile(rb"[ \t\n]")


def links(n, seed):
    r = random.Random(seed)
    return [f"https://ex.org/{r.getrandbits(128):032x}-end" for _ in range(n)]


def text(urls):
    return "".join(f"see {u} now\n" for u in urls).encode()


def warc(urls):
    """Two response records of HTML pages, each link in an `href` and in the text."""
    out = b""
    for n, part in enumerate((urls[: len(urls) // 2], urls[len(urls) // 2:])):
        body = ("<html><body>" + "".join(
            f'<p><a href="{u}">x</a> see {u} now</p>\n' for u in part) + "</body></html>").encode()
        http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)) + body
        out += (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://page%d.example/\r\n"
                b"WARC-Record-ID: <urn:uuid:%032x>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\n"
                b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
                % (n, n, len(http))) + http + b"\r\n\r\n"
    return out


def gzip_members(data):
    """gzip, one member per WARC record as crawlers write them."""
    recs = data.split(b"WARC/1.0\r\n")[1:]
    return b"".join(gzip.compress(b"WARC/1.0\r\n" + r) for r in recs)


def inflate(cut):
    out, rest = b"", cut
    while rest:
        d = zlib.decompressobj(wbits=31)
        out += d.decompress(rest)
        if not d.eof:
            break
        rest = d.unused_data
    return out


def unbzip(cut):
    try:
        return bz2.BZ2Decompressor().decompress(cut)
    except EOFError:
        return b""


def unxz(cut):
    return lzma.LZMADecompressor().decompress(cut)


def unzstd(cut):
    return zstandard.ZstdDecompressor().decompressobj().decompress(cut)


FORMS = {
    # name: (what is compressed, how, how the oracle decodes a cut copy)
    "gz": (text, gzip.compress, inflate),
    # blocks of 100 kB, so that a cut keeps whole blocks before it
    "bz2": (text, lambda d: bz2.compress(d, 1), unbzip),
    "xz": (text, lzma.compress, unxz),
    "zst": (text, lambda d: zstandard.ZstdCompressor(level=3).compress(d), unzstd),
    "warc": (warc, lambda d: d, lambda cut: cut),
    "warc.gz": (warc, gzip_members, inflate),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_cut_input_gives_its_complete_links_and_no_cut_one(tmp_path, run, form):
    make, pack, decode = FORMS[form]
    urls = links(6000, seed=len(form))
    packed = pack(make(urls))
    every = {u.encode() for u in urls}
    checked = 0
    for frac in (0.13, 0.37, 0.61, 0.79, 0.93):
        cut = packed[: int(len(packed) * frac)]
        f = tmp_path / f"cut.{form}"
        f.write_bytes(cut)
        p = run("run", f)
        assert p.returncode == 1, (frac, p.returncode, p.stderr)
        got = set(p.stdout.encode().splitlines())
        made = {k for k in got if k not in every and not k.startswith(b"http://page")}
        assert not made, f"{form} cut at {frac}: keys the input never held: {sorted(made)[:3]}"
        prefix = decode(cut)
        last_white = max((m.start() for m in WHITE.finditer(prefix)), default=0)
        want = {m.group(1) for m in LINK.finditer(prefix) if m.end(1) <= last_white}
        got_links = {k for k in got if k in every}
        assert got_links == want, (form, frac, len(got_links), len(want),
                                   sorted(want - got_links)[:3], sorted(got_links - want)[:3])
        checked += len(want)
    assert checked > 1000, checked


def test_a_flipped_bit_in_a_warc_gz_gives_no_key_the_file_never_held(tmp_path, run):
    """A WARC file of one gzip member per record (Python's gzip writes it, as WARC writers
    do) with one bit flipped at 120 places: no key that none of its pages holds (a record is
    used only once its member passed gzip's CRC check and the next record starts where its
    Content-Length says), and most flips fail the input."""
    urls = links(2000, seed=99)
    data = warc(urls)
    packed = bytearray(gzip_members(data))
    every = {u.encode() for u in urls}
    f = tmp_path / "flip.warc.gz"
    f.write_bytes(packed)
    assert {k for k in run("run", "-q", f, check_status=0).stdout.encode().split()
            if k in every} == every
    r = random.Random(5)
    failed = 0
    for _ in range(120):
        at, bit = r.randrange(len(packed)), r.randrange(8)
        flipped = bytearray(packed)
        flipped[at] ^= 1 << bit
        f.write_bytes(flipped)
        p = run("run", "-q", f)
        made = {k for k in p.stdout.encode().split()
                if k not in every and not k.startswith(b"http://page")}
        assert not made, f"bit {bit} of byte {at}: keys the file never held: {sorted(made)[:3]}"
        failed += p.returncode == 1
    assert failed > 100, failed

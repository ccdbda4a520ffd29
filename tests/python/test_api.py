"""The module's functions against oracles it did not write: the `linksieve` CLI (another path
through the library), the xxhash package (the fingerprint), slicing of the input (offsets)."""

import json
import re
import threading
import time

import pytest
import xxhash

import linksieve

RUNGS = ["string", "syntax", "scheme", "protocol"]


def cli_jsonl(cli, urls, *args):
    """The CLI's answer for each URL: the output, or None when it has none."""
    p = cli("normalize", "--format", "jsonl", *args, "-", input="\n".join(urls) + "\n", status=None)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["input"] for r in rows] == urls
    return [r.get("output") for r in rows]


@pytest.mark.parametrize("rung", RUNGS)
@pytest.mark.parametrize("input", ["strict", "leiri", "web"])
def test_normalize_many_equals_cli(cli, non_normal, rung, input):
    urls = non_normal[:4000]
    want = cli_jsonl(cli, urls, "--rung", rung, "--input-mode", input)
    errors = []
    got = linksieve.normalize_many(urls, rung=rung, input_mode=input, errors=errors)
    assert got == want
    assert sorted(i for i, _ in errors) == [i for i, w in enumerate(want) if w is None]
    # per call: the same keys, the same errors
    for u, w in zip(urls[:500], want[:500]):
        if w is None:
            with pytest.raises(linksieve.NormalizeError):
                linksieve.normalize(u, rung=rung, input_mode=input)
        else:
            assert linksieve.normalize(u, rung=rung, input_mode=input) == w


def test_defaults_are_those_of_the_cli_normalize(cli, non_normal):
    """One set of defaults: `normalize` with no option is `linksieve normalize` with none
    (strict input, the scheme rung, the uri form), on inputs that need rewriting and some
    that have no key."""
    urls = non_normal[:3000]
    want = cli_jsonl(cli, urls)
    assert any(w is None for w in want) and any(w != u for u, w in zip(urls, want) if w)
    assert linksieve.normalize_many(urls) == want
    for u, w in zip(urls[:300], want[:300]):
        if w is None:
            with pytest.raises(linksieve.NormalizeError):
                linksieve.normalize(u)
        else:
            assert linksieve.normalize(u) == w


@pytest.mark.parametrize("form", ["uri", "iri", "surt"])
def test_forms_equal_cli(cli, kasztp, form):
    urls = kasztp[:3000]
    assert linksieve.normalize_many(urls, form=form) == cli_jsonl(cli, urls, "--form", form)


@pytest.mark.parametrize("profile", ["w3lib", "w3lib:keep_fragments=true", "surt-ia",
                                     "urlcanon-semantic", "urlcanon-aggressive", "gsb",
                                     "crawler-commons"])
def test_profiles_equal_cli(cli, non_normal, profile):
    urls = non_normal[:3000]
    assert linksieve.normalize_many(urls, profile=profile) == cli_jsonl(
        cli, urls, "--profile", profile
    )


def test_whole_list_in_parallel_equals_one_thread_and_per_call(kasztp, non_normal):
    urls = kasztp + non_normal
    assert len(urls) > 4 * linksieve.PARALLEL_THRESHOLD
    one = linksieve.normalize_many(urls, threads=1)
    assert linksieve.normalize_many(urls, threads=2) == one
    assert linksieve.normalize_many(urls, threads=7) == one
    per_call = []
    for u in urls:
        try:
            per_call.append(linksieve.normalize(u))
        except linksieve.NormalizeError:
            per_call.append(None)
    assert per_call == one


def test_kinds_in_and_out():
    urls = ["HTTP://A.example", None, "http://a b"]
    assert linksieve.normalize_many(tuple(urls)) == ("http://a.example/", None, None)
    assert linksieve.normalize_many(iter(urls)) == ["http://a.example/", None, None]
    assert linksieve.normalize_many(u for u in urls) == ["http://a.example/", None, None]
    assert linksieve.normalize_many([]) == []
    with pytest.raises(TypeError, match=r"urls\[1\]: expected str or None, not int"):
        linksieve.normalize_many(["http://a/", 3])
    with pytest.raises(TypeError):
        linksieve.normalize_many(5)


def test_unchanged_input_is_returned_as_itself():
    url = "http://example.com/already/normal"
    assert linksieve.normalize(url) is url
    assert linksieve.normalize_many([url])[0] is url


def test_errors_carry_rung_rule_offset():
    with pytest.raises(linksieve.NormalizeError) as e:
        linksieve.normalize("http://a b/")
    assert isinstance(e.value, ValueError)
    assert (e.value.input, e.value.rung, e.value.rule, e.value.offset) == (
        "http://a b/", "scheme", "ihost", 8)
    assert str(e.value) == "scheme rung: invalid character U+0020 in ihost at byte 8"
    with pytest.raises(linksieve.NormalizeError) as e:
        linksieve.normalize("../a")
    assert (e.value.rule, e.value.offset) == ("relative-ref", 0)
    assert linksieve.normalize("../a", rung="syntax") == "../a"
    with pytest.raises(linksieve.NormalizeError) as e:
        linksieve.normalize("http://[::1/", input_mode="web")
    assert (e.value.rule, e.value.offset) == ("url-standard", None)
    with pytest.raises(linksieve.NormalizeError) as e:
        linksieve.normalize("http://[::1/", profile="w3lib")
    assert e.value.rung == "scheme" and str(e.value).startswith("w3lib profile: ")
    errors = []
    assert linksieve.normalize_many(["http://ok/", "http://a b/"], errors=errors) == [
        "http://ok/", None]
    [(i, err)] = errors
    assert i == 1 and err.offset == 8 and err.input == "http://a b/"



def test_level_is_the_old_name_of_rung(tmp_path):
    """``level=`` (the old name) is ``rung=`` on every call that takes it; both at once is a
    TypeError; what a call reports names the rung ``rung``."""
    urls = ["HTTP://A.example:80/a/../%7e?q#f", "http://a.example/b"]
    for rung in RUNGS:
        assert linksieve.normalize_many(urls, level=rung) == linksieve.normalize_many(
            urls, rung=rung)
        assert linksieve.normalize(urls[0], level=rung) == linksieve.normalize(urls[0], rung=rung)
        assert linksieve.compare(*urls, level=rung) == linksieve.compare(*urls, rung=rung)
        assert linksieve.identity(level=rung) == linksieve.identity(rung=rung)
        assert linksieve.identity(level=rung)["rung"] == rung
        assert linksieve.Normalizer(level=rung).options["rung"] == rung
        assert linksieve.Normalizer(level=rung)(urls[0]) == linksieve.normalize(urls[0], rung=rung)
    assert linksieve.normalize(urls[0], rung="string") != linksieve.normalize(urls[0])
    # a store made with level= records the rung: rung= opens it, another rung is refused
    with linksieve.SeenSet("persistent", str(tmp_path / "s"), level="protocol") as s:
        assert s.add("http://a.example/") and not s.add("http://a.example/")
    with pytest.raises(linksieve.StoreError):
        linksieve.SeenSet("persistent", str(tmp_path / "s"), rung="scheme")
    with linksieve.SeenSet("persistent", str(tmp_path / "s"), rung="protocol") as s:
        assert not s.add("http://a.example/")
    for call in (lambda: linksieve.normalize("http://a/", rung="syntax", level="syntax"),
                 lambda: linksieve.Normalizer(rung="syntax", level="scheme"),
                 lambda: linksieve.SeenSet(rung="syntax", level="syntax")):
        with pytest.raises(TypeError, match="level is the old name of rung"):
            call()

@pytest.mark.parametrize("kwargs, message", [
    ({"rung": "top"}, "rung: "),
    ({"form": "bad"}, "form: "),
    ({"input_mode": "loose"}, "input_mode: unknown input mode"),
    ({"profile": "nope"}, "profile: "),
    ({"profile": "w3lib:bogus=1"}, "profile: "),
    ({"profile": "w3lib", "form": "iri"}, "form: a profile"),
])
def test_bad_options_are_value_errors(kwargs, message):
    for call in (lambda: linksieve.normalize("http://a/", **kwargs),
                 lambda: linksieve.normalize_many(["http://a/"], **kwargs)):
        with pytest.raises(ValueError, match=message) as e:
            call()
        assert not isinstance(e.value, linksieve.NormalizeError)
    with pytest.raises(ValueError, match="threads: must be at least 1"):
        linksieve.normalize_many(["http://a/"], threads=0)


def test_input_is_the_old_name_of_input_mode():
    """``input=`` (the old name) is ``input_mode=`` on every call that takes it; both at once
    is a TypeError."""
    urls = ["http://a.example/{x}", "http://a.example/a\\b"]  # read by web only, or web and leiri
    for mode in ("strict", "leiri", "web"):
        assert linksieve.normalize_many(urls, input=mode) == linksieve.normalize_many(
            urls, input_mode=mode)
        assert linksieve.Normalizer(input=mode).options["input_mode"] == mode
        assert linksieve.Normalizer(input=mode).many(urls) == linksieve.normalize_many(
            urls, input_mode=mode)
        pair = ("http://a.example/%7e", "http://A.example/~")
        assert linksieve.compare(*pair, input=mode) == linksieve.compare(*pair, input_mode=mode)
        assert linksieve.resolve("http://a/b/", "../g", input=mode, strict=False) == (
            linksieve.resolve("http://a/b/", "../g", input_mode=mode, strict=False))
    assert linksieve.normalize_many(urls, input_mode="web") != linksieve.normalize_many(urls)
    assert linksieve.resolve("http://a/b/", "..\\g", input="web") == "http://a/g"
    for call in (lambda: linksieve.normalize("http://a/", input_mode="web", input="web"),
                 lambda: linksieve.Normalizer(input_mode="web", input="leiri"),
                 lambda: linksieve.resolve("http://a/", "b", input_mode="web", input="web")):
        with pytest.raises(TypeError, match="input is the old name of input_mode"):
            call()


def test_compare():
    assert linksieve.compare("http://a/x", "http://a/x") == "string"
    assert linksieve.compare("http://a/%7e", "http://a/~") == "syntax"
    assert linksieve.compare("http://a.example/", "HTTP://A.example:80") == "scheme"
    assert linksieve.compare("http://a/?b&a", "http://a/?a&b") is None
    assert linksieve.compare("http://a/?b&a", "http://a/?a&b", profile="w3lib") == "profile"
    assert linksieve.compare("http://a/%7e", "http://a/~", rung="string") is None
    assert linksieve.compare("a/./b", "a/b", rung="syntax") == "syntax"
    with pytest.raises(linksieve.NormalizeError) as e:
        linksieve.compare("http://ok/", "http://a b/")
    assert e.value.input == "http://a b/"


def test_compare_equals_cli(cli, non_normal):
    urls = non_normal[:150]
    for a, b in zip(urls, urls[1:] + urls[:1]):
        for x, y in ((a, a.upper()), (a, b), (a, linksieve.normalize_many([a])[0] or a)):
            for profile in ([], ["--profile", "w3lib"]):
                p = cli("compare", *profile, x, y, status=None)
                kwargs = {"profile": profile[1]} if profile else {}
                if p.returncode == 2:
                    with pytest.raises(linksieve.NormalizeError):
                        linksieve.compare(x, y, **kwargs)
                    continue
                first = p.stdout.splitlines()[0]
                m = re.match(r"equivalent (?:at (\w+)|under profile)", first)
                want = (m.group(1) or "profile") if m else None
                assert linksieve.compare(x, y, **kwargs) == want, (x, y, first)


def test_fingerprint_is_xxh3_128_and_the_cli_tsv_key(cli, kasztp):
    urls = kasztp[:2000]
    p = cli("normalize", "--format", "tsv", "-", input="\n".join(urls) + "\n", status=None)
    for row in p.stdout.splitlines():
        hexfp, canonical = row.split("\t")[:2]
        assert linksieve.fingerprint(canonical).hex() == hexfp
        assert linksieve.fingerprint(canonical.encode()) == xxhash.xxh3_128_digest(canonical)
    assert linksieve.fingerprint("") == xxhash.xxh3_128_digest(b"")
    with pytest.raises(TypeError):
        linksieve.fingerprint(3)


@pytest.mark.parametrize("args", [
    {}, {"rung": "protocol"}, {"form": "surt"}, {"profile": "w3lib"},
    {"profile": "w3lib:keep_fragments=true"}, {"profile": "surt-ia"},
])
def test_identity_equals_cli(cli, args):
    flags = [x for k, v in args.items() for x in (f"--{k}", v)]
    assert linksieve.identity(**args) == json.loads(cli("identity", *flags).stdout)


def test_extract_text_offsets_slice_the_input():
    text = "Voir http://example.com/é, <https://b.example/x> et (www.example.com/p).\nmail a@b.example"
    data = text.encode("utf-8")
    links = linksieve.extract(data, schemeless=True, email=True)
    assert [(l.text, l.kind, l.line) for l in links] == [
        ("http://example.com/é", "scheme", 1),
        ("https://b.example/x", "scheme", 1),
        ("www.example.com/p", "bare", 1),
        ("a@b.example", "email", 2),
    ]
    for link in links:
        assert link.encoding == "UTF-8" and link.tag is None
        assert data[link.start:link.end].decode() == link.text
    assert linksieve.extract(text, schemeless=True, email=True) == links


def test_extract_legacy_encoding_offsets_are_byte_offsets():
    data = "Café: http://example.com/é\n".encode("iso-8859-1")
    [link] = linksieve.extract(data, encoding="iso-8859-1")
    assert link.text == "http://example.com/é" and link.encoding == "windows-1252"
    assert data[link.start:link.end].decode("iso-8859-1") == link.text
    with pytest.raises(ValueError, match="encoding: "):
        linksieve.extract(b"x", encoding="no-such-encoding")
    with pytest.raises(ValueError, match="encoding: a str is already text"):
        linksieve.extract("x", encoding="utf-8")
    with pytest.raises(ValueError, match="base: only with html=True"):
        linksieve.extract("x", base="http://a/")


def test_extract_says_from_legacy_and_its_key_is_the_cli_one(cli, tmp_path):
    """A link of a page in a legacy encoding (windows-1258 writes an accent as a combining
    character) is keyed by `linksieve run --html` with NFC: `from_legacy` says to pass nfc=True."""
    page = ("<html><head><meta charset=\"windows-1258\"></head><body>\n"
            "<p>see http://example.com/cafe\u0301 now</p></body></html>\n").encode("cp1258")
    f = tmp_path / "p.html"
    f.write_bytes(page)
    [link] = linksieve.extract(page, html=True)
    assert link.encoding == "windows-1258" and link.from_legacy
    assert link.text == "http://example.com/cafe\u0301"
    key = linksieve.normalize(link.text, input_mode="leiri", nfc=link.from_legacy)
    assert key == "http://example.com/caf%C3%A9"
    assert cli("run", "--html", "-q", f).stdout.splitlines() == [key]
    # the same text in UTF-8 is not from a legacy encoding
    [utf8] = linksieve.extract(page.decode("cp1258").replace("windows-1258", "utf-8"), html=True)
    assert not utf8.from_legacy


def _run_keys_and_rejected(cli, *args):
    """`linksieve run --format jsonl ARGS`: the keys in order, and the rejected count."""
    rows = [json.loads(r) for r in cli("run", "--format", "jsonl", *args, status=None).stdout.splitlines()]
    return [r["key"] for r in rows if "key" in r], sum("rejected" in r for r in rows)


def test_extract_keys_are_the_keys_run_writes(cli, tmp_path, kasztp):
    """extract(key=...) keys each link as `linksieve run` does, by the same step (a found link
    with its implied scheme, an attribute's resolved URL, NFC for legacy text): its distinct keys
    in order are run's output, and its key errors run's rejected links. Text with bare hosts,
    e-mails, JSON escapes and real URLs; a windows-1258 page with attributes (relative,
    invalid, javascript:) and text links; run's defaults (key=True) and Normalizers."""
    lines = []
    for i, u in enumerate(kasztp[:3000]):
        lines.append(f"{i}: see {u}, or www.Host{i % 50}.com:80/p?q=1 / mail Jane{i % 7}@Example.ORG")
        if i % 11 == 0:
            lines.append(f'{{"u": "{u.replace("/", chr(92) + "/")}"}} and http://h%zz{i}.example/ too')
    text = tmp_path / "t.txt"
    text.write_bytes("\n".join(lines).encode())
    data = text.read_bytes()
    for key, args in [
        (True, []),
        (linksieve.Normalizer(input_mode="leiri", rung="protocol"), ["--rung", "protocol"]),
        (linksieve.Normalizer(input_mode="leiri", form="iri", rung="syntax"), ["--form", "iri", "--rung", "syntax"]),
        (linksieve.Normalizer(profile="w3lib"), ["--profile", "w3lib"]),
    ]:
        links = linksieve.extract(data, schemeless=True, email=True, key=key)
        want, rejected = _run_keys_and_rejected(cli, "--schemeless", "--email", *args, text)
        assert list(dict.fromkeys(l.key for l in links if l.key is not None)) == want, args
        assert sum(l.key_error is not None for l in links) == rejected, args
        assert rejected > 0 or key is not True
        assert {l.kind for l in links if l.key} >= {"scheme", "bare", "email"}, args
    page = ("<html><head><meta charset=\"windows-1258\"></head><body>\n"
            + "".join(f"<p><a href=\"../p{i}/cafe\u0301?a=1&amp;b=2\">x</a> <img src=\"http://[x{i}\">"
                      f" <a href=\"javascript:go({i})\">j</a> see http://t{i}.example/\u00e9&amp;z</p>\n"
                      for i in range(200))
            + "</body></html>\n").encode("cp1258")
    f = tmp_path / "p.html"
    f.write_bytes(page)
    base = "http://h.example/a/b/"
    links = linksieve.extract(page, html=True, base=base, key=True)
    want, rejected = _run_keys_and_rejected(cli, "--html", "--base", base, f)
    assert list(dict.fromkeys(l.key for l in links if l.key is not None)) == want
    assert sum(l.key_error is not None for l in links) == rejected == 200
    assert all(l.key is None and l.key_error is None for l in links if l.text.startswith("javascript:"))
    # without key=, no keys
    assert all(l.key is None and l.key_error is None for l in linksieve.extract(page, html=True, base=base))
    with pytest.raises(TypeError):
        linksieve.extract(page, key="yes")


def test_resolve_equals_cli_resolve(cli):
    """linksieve.resolve gives what `linksieve resolve` prints, in every input mode, and
    refuses what it refuses (RFC 3986 5.4's examples and a few web ones)."""
    base = "http://a/b/c/d;p?q"
    refs = ["g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", ";x", "", ".",
            "./", "..", "../", "../g", "../..", "../../g", "../../../g", "/./g", "g.", "..g",
            "./../g", "g;x=1/../y", "http:g", "..\\g", "h\tt p://x/", "%zz", "é/ü"]
    for mode in ["strict", "leiri", "web"]:
        for non_strict in [False, True]:
            args = ["resolve", "--base", base, "--input-mode", mode, "--format", "jsonl"]
            if non_strict:
                args.append("--non-strict")
            rows = [json.loads(x) for x in cli(*args, *refs, status=None).stdout.splitlines()]
            assert len(rows) == len(refs)
            for ref, row in zip(refs, rows):
                case = (mode, non_strict, ref)
                if "output" in row:
                    got = linksieve.resolve(base, ref, input_mode=mode, strict=not non_strict)
                    assert got == row["output"], case
                else:
                    with pytest.raises(ValueError):
                        linksieve.resolve(base, ref, input_mode=mode, strict=not non_strict)
    assert linksieve.resolve(base, "../g") == "http://a/b/g"
    with pytest.raises(ValueError, match="input"):
        linksieve.resolve(base, "g", input_mode="loose")


def test_extract_equals_cli_scan(cli, tmp_path):
    page = (b'<html><head><base href="/root/"><title>t</title></head><body>\n'
            b'<a href="a.html">a</a> <img src="//cdn.example/i.png" srcset="x.png 1x, y.png 2x">\n'
            b'<p>see http://text.example/p?q=1&amp;r=2 and <a href="javascript:void(0)">j</a>\n'
            b'<a href="http://[bad/">bad</a></body></html>\n')
    f = tmp_path / "p.html"
    f.write_bytes(page)
    base = "https://site.example/dir/page.html"
    rows = [json.loads(x) for x in cli("scan", "--html", "--base", base, "--format", "jsonl",
                                       f).stdout.splitlines()]
    links = linksieve.extract(page, html=True, base=base)
    assert len(links) == len(rows) > 5
    for link, row in zip(links, rows):
        assert (link.start, link.end, link.line) == (row["start"], row["end"], row["line"])
        if row["from"] == "attribute":
            assert (link.kind, link.tag, link.attr, link.text) == (
                "attribute", row["tag"], row["attr"], row["value"])
            assert link.url == row["link"] and link.error == row.get("error")
        else:
            assert (link.kind, link.text) == (row["kind"], row["link"])
    urls = {l.url for l in links if l.url}
    assert "https://site.example/root/a.html" in urls
    assert "https://cdn.example/i.png" in urls


def test_gil_is_released_by_normalize_many(kasztp, non_normal):
    """While one thread is inside normalize_many, the other keeps running Python: the largest
    gap between its steps is far below the call's length (with the GIL held it would be all)."""
    urls = (kasztp + non_normal) * 8
    done = threading.Event()
    took = []

    def work():
        t = time.perf_counter()
        linksieve.normalize_many(urls, profile="w3lib", threads=1)
        took.append(time.perf_counter() - t)
        done.set()

    worker = threading.Thread(target=work)
    last, gap, steps = time.perf_counter(), 0.0, 0
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        gap, last, steps = max(gap, now - last), now, steps + 1
    worker.join()
    assert took[0] > 0.2, "the call is too short to tell"
    assert gap < took[0] / 2, (gap, took[0], steps)


def test_threads_call_concurrently(kasztp):
    want = linksieve.normalize_many(kasztp[:5000], rung="protocol")
    results = [None] * 4

    def work(i):
        results[i] = linksieve.normalize_many(kasztp[:5000], rung="protocol", threads=2)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 4


def test_normalizer_equals_normalize(non_normal):
    urls = non_normal[:3000]
    for options in ({}, {"rung": "protocol", "input_mode": "web"}, {"profile": "w3lib"},
                    {"form": "iri", "nfc": True}):
        n = linksieve.Normalizer(**options)
        errors, want_errors = [], []
        assert n.many(urls, errors=errors) == linksieve.normalize_many(
            urls, errors=want_errors, **options)
        assert [i for i, _ in errors] == [i for i, _ in want_errors]
        for u in urls[:300]:
            try:
                want = linksieve.normalize(u, **options)
            except linksieve.NormalizeError as e:
                with pytest.raises(linksieve.NormalizeError) as got:
                    n(u)
                assert (got.value.rule, got.value.offset) == (e.rule, e.offset)
            else:
                assert n(u) == want
        assert {k: v for k, v in n.options.items() if k in options} == options
    assert repr(linksieve.Normalizer(profile="w3lib")) == (
        "Normalizer(rung='scheme', form='uri', input_mode='strict', profile='w3lib', nfc=False)")
    with pytest.raises(ValueError, match="rung: "):
        linksieve.Normalizer(rung="top")

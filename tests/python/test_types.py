"""The type stubs: mypy.stubtest checks them against the built module (every name, every
signature), and mypy checks a typed use of the API, and refuses a wrong one."""

import subprocess
import sys
import textwrap

GOOD = """
import linksieve
from linksieve.scrapy import DupeFilter, RequestFingerprinter

key: str = linksieve.normalize("http://a/", rung="syntax", input_mode="web")
old: str = linksieve.normalize("http://a/", level="syntax")
keys: list[str | None] = linksieve.normalize_many(["http://a/", None])
tup: tuple[str | None, ...] = linksieve.normalize_many(("http://a/",))
errors: list[tuple[int, linksieve.NormalizeError]] = []
linksieve.normalize_many(iter(["x"]), errors=errors, threads=2)
rung: str | None = linksieve.compare("http://a/", "http://A/")
fp: bytes = linksieve.fingerprint(b"k")
ident = linksieve.identity(profile="w3lib")
for link in linksieve.extract(b"http://a/", html=False):
    start: int = link.start
    url: str | None = link.url
with linksieve.SeenSet("persistent", "/tmp/x", profile="w3lib") as seen:
    new: bool = seen.add("k")
    answers: list[bool] = seen.add_many([b"a", "b"])
    n: int = len(seen)
try:
    linksieve.normalize("x")
except linksieve.NormalizeError as e:
    offset: int | None = e.offset
    rule: str = e.rule
"""

BAD = {
    "normalize(1)": "linksieve.normalize(1)",
    "bad rung": 'linksieve.normalize("x", rung="top")',
    "bad level": 'linksieve.normalize("x", level="top")',
    "positional option": 'linksieve.normalize("x", "scheme")',
    "bad kind": 'linksieve.SeenSet("disk")',
    "add an int": "linksieve.SeenSet().add(3)",
    "offset is optional": 'o: int = linksieve.NormalizeError("x").offset',
}


def run_mypy(source, tmp_path, name):
    f = tmp_path / f"{name}.py"
    f.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / ".mypy"), str(f)],
        capture_output=True, text=True, cwd=tmp_path,
    )


def test_stubs_match_the_module():
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "linksieve._linksieve"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_typed_use_checks(tmp_path):
    p = run_mypy(GOOD, tmp_path, "good")
    assert p.returncode == 0, p.stdout


def test_wrong_use_is_refused(tmp_path):
    for i, (what, line) in enumerate(BAD.items()):
        p = run_mypy("import linksieve\n" + line + "\n", tmp_path, f"bad{i}")
        assert p.returncode == 1 and "error:" in p.stdout, (what, p.stdout)


def test_the_package_checks_strict(tmp_path):
    """The package's own Python (`__init__`, `scrapy`, the link extractor) under `--strict`."""
    p = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / ".mypy"), "-p", "linksieve"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert p.returncode == 0, p.stdout

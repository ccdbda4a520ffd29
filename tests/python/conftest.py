"""Fixtures of the Python tests: the linksieve binary (an oracle that takes another path
through the library: its own argument parsing, line reading and printing) and the URL lists."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """cli(*args, input=None) -> CompletedProcess of `linksieve ARGS` (text)."""
    path = Path(os.environ.get("LINKSIEVE_BIN", ROOT / "target/debug/linksieve")).resolve()
    if not path.exists():
        raise RuntimeError(f"{path} not found: build it first (scripts/python-tests.sh does)")

    def go(*args, input=None, status=0):
        p = subprocess.run(
            [str(path), *map(str, args)], input=input, capture_output=True, text=True, timeout=300
        )
        if status is not None:
            assert p.returncode == status, (p.returncode, p.stderr[-2000:])
        return p

    return go


@pytest.fixture(scope="session")
def kasztp():
    """The 48k real URLs of testdata/corpora (one per line)."""
    text = (ROOT / "testdata/corpora/data/url-list-kasztp.txt").read_text(encoding="utf-8-sig")
    return [u for u in text.split("\n") if u]


@pytest.fixture(scope="session")
def non_normal():
    """The same URLs rewritten so that every rung has work (benches/make-non-normal.py)."""
    text = (ROOT / "testdata/corpora/data/url-list-kasztp-non-normal.txt").read_text("utf-8-sig")
    return [u for u in text.split("\n") if u]

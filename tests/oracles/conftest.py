"""Shared fixtures of the oracle tests: the linksieve binary and a runner for it."""

import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def linksieve() -> Path:
    path = Path(os.environ.get("LINKSIEVE_BIN", "target/debug/linksieve")).resolve()
    if not path.exists():
        raise RuntimeError(f"{path} not found: build it first (scripts/oracles.sh does)")
    return path


@pytest.fixture(scope="session")
def run(linksieve):
    """run(*args) -> CompletedProcess of `linksieve ARGS`, stdout and stderr as text."""

    def go(*args, check_status=None):
        p = subprocess.run(
            [str(linksieve), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check_status is not None:
            assert p.returncode == check_status, (p.returncode, p.stderr)
        return p

    return go

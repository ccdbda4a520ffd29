"""Every example in the docstrings of the module, run (so the documentation cannot drift)."""

import doctest

import pytest

import linksieve
import linksieve.scrapy

OBJECTS = [
    linksieve,
    linksieve.normalize,
    linksieve.normalize_many,
    linksieve.Normalizer,
    linksieve.compare,
    linksieve.fingerprint,
    linksieve.identity,
    linksieve.extract,
    linksieve.Link,
    linksieve.SeenSet,
    linksieve.NormalizeError,
    linksieve.StoreError,
    linksieve.scrapy,
]


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: getattr(o, "__name__", repr(o)))
def test_docstring_examples(obj):
    doc = obj.__doc__ or ""
    assert ">>>" in doc, f"{obj} has no example"
    test = doctest.DocTestParser().get_doctest(doc, {}, getattr(obj, "__name__", "doc"), None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {obj}"


def test_guide_examples():
    """The examples of docs/python.md."""
    from pathlib import Path

    guide = Path(__file__).resolve().parents[2] / "docs/python.md"
    failures, tried = doctest.testfile(str(guide), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 10 and failures == 0

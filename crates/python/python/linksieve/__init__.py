"""linksieve: IRI/URI keys by the IRI comparison ladder, the keys of other canonicalizers
(profiles), link extraction from text and HTML, the outlinks of each record of a WARC or WAT file, and seen-sets that keep 16 bytes a key.

The work is done by the Rust library (``linksieve._linksieve``); this package adds the
pyarrow path of :func:`normalize_many` and, in :mod:`linksieve.scrapy`, drop-ins for Scrapy.

>>> import linksieve
>>> linksieve.normalize("HTTP://Example.COM:80/a/../b")
'http://example.com/b'
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, overload

from . import _linksieve
from ._linksieve import (
    PARALLEL_THRESHOLD,
    RUNGS,
    Link,
    NormalizeError,
    Normalizer,
    Outlink,
    Record,
    Records,
    SeenSet,
    StoreError,
    __version__,
    compare,
    extract,
    fingerprint,
    identity,
    normalize,
    records,
    resolve,
)

__all__ = [
    "PARALLEL_THRESHOLD",
    "RUNGS",
    "Link",
    "NormalizeError",
    "Normalizer",
    "Outlink",
    "Record",
    "Records",
    "SeenSet",
    "StoreError",
    "__version__",
    "compare",
    "extract",
    "fingerprint",
    "identity",
    "normalize",
    "normalize_many",
    "records",
    "resolve",
]


if TYPE_CHECKING:
    from ._linksieve import _Form as Form
    from ._linksieve import _InputMode as InputMode
    from ._linksieve import _Rung as Rung


@overload
def normalize_many(  # type: ignore[overload-overlap]
    urls: tuple[str | None, ...],
    *,
    rung: Rung | None = ...,
    level: Rung | None = ...,
    form: Form = ...,
    input_mode: InputMode | None = ...,
    input: InputMode | None = ...,
    profile: str | None = ...,
    nfc: bool = ...,
    threads: int | None = ...,
    errors: list[tuple[int, NormalizeError]] | None = ...,
) -> tuple[str | None, ...]: ...
@overload
def normalize_many(
    urls: Iterable[str | None],
    *,
    rung: Rung | None = ...,
    level: Rung | None = ...,
    form: Form = ...,
    input_mode: InputMode | None = ...,
    input: InputMode | None = ...,
    profile: str | None = ...,
    nfc: bool = ...,
    threads: int | None = ...,
    errors: list[tuple[int, NormalizeError]] | None = ...,
) -> list[str | None]: ...
@overload
def normalize_many(
    urls: Any,
    *,
    rung: Rung | None = ...,
    level: Rung | None = ...,
    form: Form = ...,
    input_mode: InputMode | None = ...,
    input: InputMode | None = ...,
    profile: str | None = ...,
    nfc: bool = ...,
    threads: int | None = ...,
    errors: list[tuple[int, NormalizeError]] | None = ...,
) -> Any: ...
def normalize_many(urls: Any, **options: Any) -> Any:
    """The keys of many URLs: :func:`normalize` on each, with the GIL released and, from
    ``PARALLEL_THRESHOLD`` URLs up, on ``threads`` threads (None: every core).

    ``urls``: a list, a tuple, any iterable of str (None stays None), or a pyarrow string
    array or chunked array. The result is of the same kind (a list for other iterables; a
    pyarrow ``large_string`` array, or chunked array, for pyarrow input), with None (null)
    where an input has no key. Pass a list as ``errors=`` to get ``(index, NormalizeError)``
    for each of those. The other options are :func:`normalize`'s.

    >>> import linksieve
    >>> errors = []
    >>> linksieve.normalize_many(["HTTP://A.example", "http://a b", None], errors=errors)
    ['http://a.example/', None, None]
    >>> [(i, e.rule, e.offset) for i, e in errors]
    [(1, 'ihost', 8)]
    """
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        if isinstance(urls, pa.ChunkedArray):
            return _chunked(pa, urls, options)
        if isinstance(urls, pa.Array):
            return _array(pa, urls, options)
    return _linksieve.normalize_many(urls, **options)


# Rows per call of the module on a pyarrow array. A longer array is keyed in pieces of this
# many rows, joined by `pa.concat_arrays` (one more copy of the keys): a piece's buffers come
# from the allocator's heap and go back to it, where one call over a whole large array got
# fresh pages from the kernel for its input, keys and output, and paid for zeroing them (960,200
# URLs on one thread: 12.4 M URLs/s in pieces against 7.0 M in one call; a list 8.6 M).
_ARROW_PIECE = 1 << 15


def _array(pa: Any, arr: Any, options: dict[str, Any], base: int = 0) -> Any:
    """normalize_many over one pyarrow array, in pieces of ``_ARROW_PIECE`` rows."""
    if len(arr) <= _ARROW_PIECE:
        return _piece(pa, arr, options, base)
    return pa.concat_arrays(
        [
            _piece(pa, arr.slice(at, _ARROW_PIECE), options, base + at)
            for at in range(0, len(arr), _ARROW_PIECE)
        ]
    )


def _piece(pa: Any, arr: Any, options: dict[str, Any], base: int) -> Any:
    """normalize_many over one pyarrow array, through its buffers (no Python object per URL)."""
    if pa.types.is_string(arr.type):
        large = False
    elif pa.types.is_large_string(arr.type):
        large = True
    else:
        raise TypeError(f"urls: expected a pyarrow string array, not {arr.type}")
    validity, offsets, data = arr.buffers()
    n = len(arr)
    # Only the bytes the array uses are copied: a slice of an array (of a table, a chunked
    # array) shares its parent's buffers, and copying those whole made every slice cost as
    # much as its parent. `skip` keeps the validity bitmap's bits where they are.
    skip = arr.offset % 8
    start = arr.offset - skip
    width = 8 if large else 4
    first = last = 0
    if offsets is not None:
        offsets = offsets.slice(start * width, (skip + n + 1) * width)
        view = memoryview(offsets).cast("q" if large else "i")
        first, last = view[skip], view[skip + n]
    errors = options.get("errors")
    mine: list[tuple[int, str]] | None = [] if errors is not None else None
    out_validity, out_offsets, out_data, nulls = _linksieve._normalize_arrow(
        validity.slice(start // 8, (skip + n + 7) // 8).to_pybytes()
        if validity is not None and arr.null_count
        else None,
        offsets.to_pybytes() if offsets is not None else bytes(width * (skip + n + 1)),
        data.slice(first, last - first).to_pybytes() if data is not None else b"",
        skip,
        n,
        large,
        first,
        **{**options, "errors": mine},
    )
    if errors is not None and mine is not None:
        errors.extend((base + i, e) for i, e in mine)
    buffers = [
        pa.py_buffer(out_validity) if out_validity is not None else None,
        pa.py_buffer(out_offsets),
        pa.py_buffer(out_data),
    ]
    return pa.Array.from_buffers(pa.large_string(), len(arr), buffers, null_count=nulls)


def _chunked(pa: Any, arr: Any, options: dict[str, Any]) -> Any:
    """normalize_many over a chunked array, chunk by chunk (indices of errors count across)."""
    chunks, base = [], 0
    for chunk in arr.chunks:
        chunks.append(_array(pa, chunk, options, base))
        base += len(chunk)
    return pa.chunked_array(chunks, type=pa.large_string())

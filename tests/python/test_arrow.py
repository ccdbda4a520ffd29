"""normalize_many on pyarrow arrays: the same keys as on a list, nulls kept, slices and chunks."""

import pyarrow as pa
import pytest

import linksieve


@pytest.mark.parametrize("type_", [pa.string(), pa.large_string()])
def test_arrow_equals_list(non_normal, type_):
    urls = non_normal[:20000] + [None, "http://a b/", "HTTP://X.example"]
    arr = pa.array(urls, type=type_)
    want = linksieve.normalize_many(urls)
    for threads in (1, 2):
        errors = []
        got = linksieve.normalize_many(arr, threads=threads, errors=errors)
        assert isinstance(got, pa.Array) and got.type == pa.large_string()
        assert got.to_pylist() == want
        assert got.null_count == sum(w is None for w in want)
        assert sorted(i for i, _ in errors) == [
            i for i, (u, w) in enumerate(zip(urls, want)) if u is not None and w is None]
        got.validate(full=True)


def test_arrow_slices_and_chunks(kasztp):
    arr = pa.array([None] + kasztp[:5000] + [None, "http://a b/"])
    part = arr.slice(3, 4000)
    assert linksieve.normalize_many(part).to_pylist() == linksieve.normalize_many(
        part.to_pylist())
    chunked = pa.chunked_array([arr.slice(0, 10), arr.slice(10), pa.array([], pa.string())])
    errors, want_errors = [], []
    got = linksieve.normalize_many(chunked, errors=errors)
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 3
    assert got.to_pylist() == linksieve.normalize_many(arr.to_pylist(), errors=want_errors)
    assert [i for i, _ in errors] == [i for i, _ in want_errors]
    assert errors[-1][0] == len(arr) - 1


@pytest.mark.parametrize("type_", [pa.string(), pa.large_string()])
def test_arrow_slices_copy_only_their_values(non_normal, monkeypatch, type_):
    # nulls at every 7th row, slices at offsets that are not a multiple of 8 (the validity
    # bitmap's bits shift), arrays longer than a piece (keyed in pieces, then joined)
    urls = [None if i % 7 == 3 else u for i, u in enumerate(non_normal[:6000])]
    urls[100] = "http://a b/"
    arr = pa.array(urls, type=type_)
    monkeypatch.setattr(linksieve, "_ARROW_PIECE", 1000)
    from linksieve import _linksieve

    sent = []
    real = _linksieve._normalize_arrow

    def spy(validity, offsets, data, *args, **kw):
        sent.append(len(data))
        return real(validity, offsets, data, *args, **kw)

    monkeypatch.setattr(_linksieve, "_normalize_arrow", spy)
    for start, length in [(0, 6000), (13, 2987), (1001, 999), (4093, 1907), (5, 0)]:
        part = arr.slice(start, length)
        sent.clear()
        errors, want_errors = [], []
        got = linksieve.normalize_many(part, errors=errors)
        want = linksieve.normalize_many(urls[start:start + length], errors=want_errors)
        assert got.to_pylist() == want and got.type == pa.large_string()
        assert got.null_count == sum(w is None for w in want)
        got.validate(full=True)
        assert [i for i, _ in errors] == [i for i, _ in want_errors]
        # the module is sent the bytes of the slice's values, in pieces, not its parent's buffer
        values = sum(len(u.encode()) for u in urls[start:start + length] if u is not None)
        assert sum(sent) == values and len(sent) == max(1, -(-length // 1000))


def test_arrow_edge_cases():
    assert linksieve.normalize_many(pa.array([], pa.string())).to_pylist() == []
    assert linksieve.normalize_many(pa.array([None, None], pa.string())).to_pylist() == [None, None]
    assert linksieve.normalize_many(pa.array(["", "http://a/"])).to_pylist() == [None, "http://a/"]
    with pytest.raises(TypeError, match="pyarrow string array"):
        linksieve.normalize_many(pa.array([1, 2]))


def test_arrow_buffers_are_checked():
    from linksieve import _linksieve

    offsets = (0).to_bytes(4, "little") + (99).to_bytes(4, "little")
    with pytest.raises(ValueError, match="arrow: offsets outside the data"):
        _linksieve._normalize_arrow(None, offsets, b"http://a/", 0, 1, False)
    with pytest.raises(ValueError, match="arrow: offsets buffer too short"):
        _linksieve._normalize_arrow(None, offsets, b"http://a/", 0, 2, False)
    # `data` starts at data_start of the array's data: an offset before it is outside
    offsets = (0).to_bytes(4, "little") + (9).to_bytes(4, "little")
    with pytest.raises(ValueError, match="arrow: offsets outside the data"):
        _linksieve._normalize_arrow(None, offsets, b"http://a/", 0, 1, False, 1)
    offsets = (5).to_bytes(4, "little") + (14).to_bytes(4, "little")
    _, _, data, _ = _linksieve._normalize_arrow(None, offsets, b"http://a/", 0, 1, False, 5)
    assert data == b"http://a/"
    # bytes that are not UTF-8 (Arrow promises they never are): a null and an error, no panic
    offsets = (0).to_bytes(4, "little") + (9).to_bytes(4, "little")
    errors = []
    _, _, data, nulls = _linksieve._normalize_arrow(
        None, offsets, b"http://\xff/", 0, 1, False, errors=errors)
    assert (data, nulls) == (b"", 1) and "not UTF-8" in str(errors[0][1])

"""SeenSet of every kind against a Python set (the oracle), and the persistent store's
identity checks and crash contract."""

import os
import random
import signal
import subprocess
import sys
import textwrap

import pytest

import linksieve


def keys(n, seed=7):
    rng = random.Random(seed)
    return [f"http://h{rng.randrange(n // 2)}.example/{rng.randrange(50)}" for _ in range(n)]


def oracle(ks, seen=None):
    seen = set() if seen is None else seen
    out = []
    for k in ks:
        out.append(k not in seen)
        seen.add(k)
    return out


@pytest.mark.parametrize("kind, kwargs", [
    ("memory", {}),
    ("spill", {"memory": 1 << 20}),
    ("persistent", {}),
])
def test_exact_kinds_answer_as_a_python_set(tmp_path, kind, kwargs):
    ks = keys(120_000)
    path = tmp_path / "seen.redb" if kind == "persistent" else (
        tmp_path if kind == "spill" else None)
    with linksieve.SeenSet(kind, path, **kwargs) as s:
        assert s.kind == kind
        first, rest = ks[:100_000], ks[100_000:]
        assert s.add_many(first) == oracle(first)
        seen = set(first)
        assert [s.add(k) for k in rest[:50]] == oracle(rest[:50], set(seen))
        seen.update(rest[:50])
        assert s.add_many(iter(rest[50:])) == oracle(rest[50:], set(seen))
        seen.update(rest)
        assert len(s) == len(seen)
        sample = random.Random(1).sample(ks, 200)
        assert all(k in s for k in sample)
        assert not any(f"http://absent{i}/" in s for i in range(200))
        assert s.add(b"raw bytes") and not s.add(b"raw bytes")
        assert "raw bytes" in s  # a str is its UTF-8 bytes
        assert s.memory_bytes > 0
    with pytest.raises(linksieve.StoreError, match="closed"):
        s.add("x")
    with pytest.raises(linksieve.StoreError, match="closed"):
        len(s)


def test_approx_never_forgets_and_rarely_drops():
    ks = keys(200_000, seed=3)
    s = linksieve.SeenSet("approx", expected=200_000, fp_rate=0.01)
    got, want = s.add_many(ks), oracle(ks)
    # a key seen before is always "seen"; a new key is called seen at about the false rate
    assert all(g is False for g, w in zip(got, want) if not w)
    new = sum(want)
    dropped = sum(1 for g, w in zip(got, want) if w and not g)
    assert dropped <= 0.02 * new, (dropped, new)
    assert all(k in s for k in ks[:1000])
    assert s.warning is None
    s.add_many(keys(300_000, seed=4))  # past its expected count: it grows, and says so
    assert "grew past its expected count" in s.warning
    assert linksieve.SeenSet().warning is None


def test_memory_per_key_is_a_fraction_of_a_python_set_of_sha1(kasztp):
    import hashlib
    import tracemalloc

    # what RFPDupeFilter keeps: a set of 20-byte SHA-1 digests (the bytes objects and the table)
    tracemalloc.start()
    fps = [hashlib.sha1(u.encode()).digest() for u in kasztp]
    list_bytes = tracemalloc.get_traced_memory()[0] - sys.getsizeof(fps)
    py = set(fps)
    py_bytes = tracemalloc.get_traced_memory()[0] - sys.getsizeof(fps)
    tracemalloc.stop()
    assert py_bytes > list_bytes
    s = linksieve.SeenSet()
    s.add_many(fps)
    assert len(s) == len(py)
    assert s.memory_bytes * 4 <= py_bytes, (s.memory_bytes, py_bytes)


def test_bad_options():
    for kwargs, msg in [
        ({"kind": "nope"}, "kind: unknown seen-set"),
        ({"kind": "persistent"}, "path: kind=\"persistent\" needs"),
        ({"kind": "memory", "memory": 5}, "memory sets the budget of the spill or approx kind"),
        ({"kind": "approx", "expected": 10**11}, "expected 100000000000 is above"),
        ({"kind": "approx", "fp_rate": 2.0}, r"false-positive rate 2 is outside \[1e-12, 0.5\]"),
        ({"kind": "spill", "memory": 1000}, r"memory 1000 is outside 64K\.\.=1T"),
        ({"kind": "persistent", "path": "x", "memory": 1 << 20}, "memory sets the budget"),
    ]:
        with pytest.raises(ValueError, match=msg):
            linksieve.SeenSet(**kwargs)
    with pytest.raises(TypeError):
        linksieve.SeenSet().add(3)


def test_persistent_store_keeps_keys_and_its_identity(tmp_path):
    path = tmp_path / "s.redb"
    with linksieve.SeenSet("persistent", path, profile="w3lib") as s:
        assert s.add_many(["a", "b", "a"]) == [True, True, False]
    with linksieve.SeenSet("persistent", str(path), profile="w3lib") as s:
        assert s.add_many(["b", "c"]) == [False, True] and len(s) == 3
    for other in ({}, {"profile": "w3lib:keep_fragments=true"}, {"rung": "syntax"},
                  {"namespace": "x"}):
        with pytest.raises(linksieve.StoreError, match="identity|differs|rung|form"):
            linksieve.SeenSet("persistent", path, **other)
    with linksieve.SeenSet("persistent", tmp_path / "n.redb", namespace="mine") as s:
        s.add("k")
    with pytest.raises(linksieve.StoreError):
        linksieve.SeenSet("persistent", tmp_path / "n.redb", namespace="theirs")


def test_persistent_store_survives_kill(tmp_path):
    """A process adds batches and prints each batch's new keys only after add_many returns;
    killed with SIGKILL, every key it printed is seen by the next process, except those of the
    last line it printed: the commit policy "every" records a call's keys at the next call,
    once they were delivered (those may be answered new again: at least once)."""
    path = tmp_path / "s.redb"
    script = textwrap.dedent(f"""
        import sys, linksieve
        s = linksieve.SeenSet("persistent", {str(path)!r}, commit="every")
        for b in range(10_000):
            batch = [f"k{{b}}-{{i}}" for i in range(100)]
            new = [k for k, n in zip(batch, s.add_many(batch)) if n]
            print(" ".join(new), flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    printed, last = [], []
    for line in p.stdout:
        printed.extend(last)
        last = line.split()
        if len(printed) >= 3000:
            break
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    with linksieve.SeenSet("persistent", path) as s:
        assert all(k in s for k in printed)
        assert len(s) >= len(printed)
        assert s.add_many(printed) == [False] * len(printed)


def test_threads_share_a_set():
    import threading

    s = linksieve.SeenSet()
    ks = keys(40_000, seed=11)
    answers = [None] * 4

    def work(i):
        answers[i] = s.add_many(ks[i::4])

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sum(sum(a) for a in answers) == len(set(ks)) == len(s)


def test_commit_policies():
    for commit, shown in [(None, "100000,1s"), ("every", "every"), ("end", "end"), (10_000, "10000"),
                          ("1s", "1s"), ("250ms", "250ms"), ("100000,1s", "100000,1s")]:
        with linksieve.SeenSet(commit=commit) as s:
            assert s.commit == shown
            assert s.add_many(["a", "b", "a"]) == [True, True, False]
            s.sync()
            assert s.unsynced == 0
    for bad in ["", "0", 0, "1,2", "2d", "often", 1.5]:
        with pytest.raises((ValueError, TypeError)):
            linksieve.SeenSet(commit=bad)
    with pytest.raises(ValueError):
        linksieve.SeenSet(abandoned="new")  # only a persistent store has runs to abandon
    with pytest.raises(ValueError):
        linksieve.SeenSet("persistent", "x", abandoned="maybe")


@pytest.mark.parametrize("commit", ["every", "end", "3", "1s"])
def test_abandoned_new_keys_count_only_once_closed(tmp_path, commit):
    """abandoned="new": the keys of a process killed before close() are new to the next one
    (Scrapy's JOBDIR: the queue is lost too); once closed, they are seen."""
    path = tmp_path / "s.redb"
    script = textwrap.dedent(f"""
        import os, sys, linksieve
        s = linksieve.SeenSet("persistent", {str(path)!r}, commit={commit!r}, abandoned="new")
        assert s.add_many([f"k{{i}}" for i in range(50)]) == [True] * 50
        assert [s.add(f"k{{i}}") for i in range(40, 60)] == [False] * 10 + [True] * 10
        assert s.add_many(["x0", "x1"]) == [sys.argv[1] == "kill"] * 2
        s.sync()
        if sys.argv[1] == "close":
            s.close()
        else:
            os.kill(os.getpid(), 9)
    """)
    killed = subprocess.run([sys.executable, "-c", script, "kill"])
    assert killed.returncode == -signal.SIGKILL
    ks = [f"k{i}" for i in range(60)]
    with linksieve.SeenSet("persistent", path, abandoned="new") as s:
        assert not any(k in s for k in ks)
        assert s.add_many(["x0", "x1"]) == [True] * 2  # this process closes: these count
    subprocess.run([sys.executable, "-c", script, "close"], check=True)
    with linksieve.SeenSet("persistent", path) as s:
        assert all(k in s for k in ks)
        assert s.add_many(ks) == [False] * 60


def chain_oracle(events):
    """What add(key, chain) answers, in Python: fetched when new or equal to a key of its own
    chain; the key and the chain's 301/308 sources are seen afterwards."""
    seen, out = set(), []
    for key, chain in events:
        out.append(key not in seen or any(k == key for k, _ in chain))
        seen.add(key)
        seen.update(k for k, status in chain if status in (301, 308))
    return out


@pytest.mark.parametrize("kind", ["memory", "persistent"])
def test_add_with_a_redirect_chain_answers_as_the_rule_says(tmp_path, kind):
    rng = random.Random(5)
    events, n = [], 300 if kind == "memory" else 40
    for _ in range(3000 if kind == "memory" else 300):  # a persistent add: a disk commit
        chain = [(f"u{rng.randrange(n)}", rng.choice([301, 302, 303, 307, 308, "meta refresh"]))
                 for _ in range(rng.choice([0, 0, 1, 2, 3]))]
        key = rng.choice([f"u{rng.randrange(n)}", *[k for k, _ in chain]])
        events.append((key, chain))
    path = tmp_path / "s.redb" if kind == "persistent" else None
    with linksieve.SeenSet(kind, path, commit="end") as s:
        got = [s.add(k, chain=c) if c else s.add(k) for k, c in events]
    assert got == chain_oracle(events)
    assert 0 < got.count(False) < len(got)


def test_add_edge():
    with linksieve.SeenSet() as s:
        assert s.add_edge("http://a/old", "http://a/new", 308) == 1
        assert s.add_edge("http://a/old", "http://a/new", 301) == 0
        assert s.add_edge("http://a/tmp", "http://a/x", 302) == 0
        assert s.add_edge(b"http://a/p", "http://a/c", "canonical") == 2
        found = ["http://a/old" in s, "http://a/new" in s, "http://a/tmp" in s]
        assert found == [True, False, False]
        for bad in [0, "moved", None]:
            with pytest.raises((ValueError, TypeError)):
                s.add_edge("a", "b", bad)
        with pytest.raises(TypeError):
            s.add("a", chain=[("b",)])

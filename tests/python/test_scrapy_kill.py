"""A JOBDIR crawl killed with SIGKILL and resumed fetches every page plain Scrapy fetches.

Scrapy keeps its request queue on disk but writes the queue's state (``active.json``) only when
the crawl closes: a killed crawl resumes with an empty queue, and only the start requests. So
the DupeFilter's store must not count a killed crawl's requests as seen (the store's keys count
once the crawl closes cleanly), or the pages those requests led to are never fetched (issue 31:
10-13 of 26 pages lost). The oracle is the server's log of a plain Scrapy crawl (no linksieve)
of the same site, without a kill.
"""

import signal

import pytest

pytest.importorskip("scrapy")

from test_scrapy_crawl import (  # noqa: E402, F401 (procs and serve: fixtures)
    LINKSIEVE, SITE, TIMEOUT, Crawl, procs, serve, wait_for,
)


def kill_and_resume(tmp_path, serve, procs, settings, name, after):
    """Crawl with `settings` under a fresh JOBDIR, SIGKILL it once the server got `after`
    requests, resume it to its end; the server's pages (fetch counts) and the first run's."""
    server = serve(delay=0.05)
    jobdir = tmp_path / f"job-{name}"
    settings = [*settings, f"JOBDIR={jobdir}", "CONCURRENT_REQUESTS=2"]
    first = Crawl(tmp_path / f"crawl-{name}", server, "first", settings)
    proc = first.start(procs)
    wait_for(lambda: len(server.requests()) >= after, TIMEOUT, f"{after} requests", proc)
    proc.send_signal(signal.SIGKILL)
    assert first.wait() == -signal.SIGKILL
    fetched_first = set(server.pages())
    second = Crawl(tmp_path / f"crawl-{name}", server, "second", settings).run(procs)
    assert second.stats()["finish_reason"] == "finished"
    return server.pages(), fetched_first


def test_jobdir_crawl_killed_then_resumed_fetches_every_page(tmp_path, serve, procs):
    plain_server = serve()
    plain_job = f"JOBDIR={tmp_path / 'job-plain'}"
    Crawl(tmp_path / "plain", plain_server, "plain", [plain_job]).run(procs)
    plain = set(plain_server.pages())
    assert plain == set(SITE)
    for after in (3, 12, 25):
        pages, first = kill_and_resume(tmp_path, serve, procs, LINKSIEVE, f"k{after}", after)
        assert len(first) < len(SITE), "killed after the crawl ended: kill earlier"
        missing = plain - set(pages)
        assert not missing, f"killed after {after} requests: {len(missing)} pages never fetched"


def test_a_queue_file_cut_by_a_kill_is_set_aside(tmp_path, serve, procs):
    """A kill right after Scrapy made a disk queue file leaves it empty (its header was still
    in Python's buffer) and no ``active.json``: the resumed crawl reopens that file at its first
    push and stops (``struct.error``), one page fetched. The DupeFilter moves the queue aside,
    and the crawl fetches every page. (This is how the kill test above failed at random.)"""
    jobdir = tmp_path / "job"
    slot = jobdir / "requests.queue" / "site.example-6ce193fac58af5db55b9ccb731d93e41"
    slot.mkdir(parents=True)
    (slot / "0").write_bytes(b"")
    server = serve()
    crawl = Crawl(tmp_path / "crawl", server, "resumed", [*LINKSIEVE, f"JOBDIR={jobdir}"])
    crawl.run(procs)
    assert set(server.pages()) == set(SITE), crawl.log()[-3000:]
    assert (jobdir / "requests.queue.unclean-0" / slot.name / "0").exists()
    assert "did not close" in crawl.log()


@pytest.mark.parametrize("kind", ["memory", "approx"])
def test_a_kind_that_keeps_nothing_under_jobdir_is_a_warning(tmp_path, caplog, kind):
    from linksieve.scrapy import DupeFilter

    with caplog.at_level("WARNING", logger="linksieve.scrapy"):
        DupeFilter(str(tmp_path), kind=kind, expected=1000).close("finished")
        DupeFilter(None, kind=kind, expected=1000).close("finished")
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "keeps nothing under JOBDIR" in warnings[0].getMessage()


def test_the_jobdir_store_counts_a_crawls_requests_once_it_closes(tmp_path):
    """The DupeFilter alone: a crawl that never closes (killed) leaves its requests new."""
    from scrapy import Request

    from linksieve.scrapy import DupeFilter

    requests = [Request(f"http://site.example/p{i}") for i in range(10)]
    killed = DupeFilter(str(tmp_path))
    assert [killed.request_seen(r) for r in requests + requests[:3]] == [False] * 10 + [True] * 3
    killed.seen = None  # never closed: as after SIGKILL (the store is released, not finished)
    resumed = DupeFilter(str(tmp_path))
    assert [resumed.request_seen(r) for r in requests[:5]] == [False] * 5
    resumed.close("shutdown")
    after = DupeFilter(str(tmp_path))
    assert [after.request_seen(r) for r in requests] == [True] * 5 + [False] * 5
    after.close("finished")

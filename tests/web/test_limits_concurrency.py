"""Limits that hold under concurrency, in SQLite and in the real PostgreSQL: 50 uploads at once against a limit of
20 an hour store exactly 20; the pre-flight queue is fair between owners (one owner's slow uploads never make another's
wait); pre-flights are leased, so a second web
server on the same database never takes one that runs, and takes up one whose server died once its lease ends."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.store import Store
from arena.store.hosting import Hosting
from arena.submissions.queue import PreflightQueue
from tests.pg import fresh_schema


@pytest.fixture(params=["sqlite", "postgresql"])
def hosting(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Hosting]:
    if request.param == "sqlite":
        store = Store.open(f"sqlite:///{tmp_path / 'limits.db'}")
        yield _with_owner(store)
        store.close()
        return
    with fresh_schema() as url:
        store = Store.open(url)
        yield _with_owner(store)
        store.close()


def _with_owner(store: Store) -> Hosting:
    store.owners.add("ann", "0" * 64)
    store.owners.add("bob", "1" * 64)
    return Hosting(store)


def test_fifty_uploads_at_once_against_a_limit_of_twenty_store_exactly_twenty(hosting: Hosting) -> None:
    start = threading.Barrier(50)
    accepted: list[int | None] = []
    lock = threading.Lock()

    def upload(number: int) -> None:
        start.wait()
        found = hosting.add_submission("ann", f"bot{number}.zip", 100, f"/nowhere/{number}", per_hour=20)
        with lock:
            accepted.append(found)

    threads = [threading.Thread(target=upload, args=(number,)) for number in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(found is not None for found in accepted) == 20
    assert len(hosting.submissions("ann", limit=100)) == 20


def test_a_second_web_server_never_takes_a_running_preflight_and_takes_up_a_dead_ones(hosting: Hosting) -> None:
    first = hosting.add_submission("ann", "a.zip", 1, "/a")
    assert first is not None
    assert hosting.claim(first, "web-1", lease_s=60)
    assert not hosting.claim(first, "web-2", lease_s=60)  # leased and renewed by web-1
    assert [submission for submission, _owner in hosting.queued()] == []
    assert hosting.renew(first, "web-1", lease_s=60) and not hosting.renew(first, "web-2", lease_s=60)
    assert hosting.renew(first, "web-1", lease_s=-1)  # as if web-1 died a while ago: its lease ran out
    assert [submission for submission, _owner in hosting.queued()] == [first]
    assert hosting.claim(first, "web-2", lease_s=60)
    assert not hosting.renew(first, "web-1", lease_s=60)  # it is web-2's now


class Running:
    def __init__(self) -> None:
        self.returncode = None


def test_the_queue_is_fair_between_owners(tmp_path: Path) -> None:
    """Ann's ten uploads came first; Bob's one still goes next once Ann has one running, and with three workers
    Ann never takes the last free one (it is kept for an owner with nothing running)."""
    queue = PreflightQueue(None, "", tmp_path, workers=3)  # type: ignore[arg-type]
    waiting = [(number, "ann") for number in range(1, 11)] + [(11, "bob")]
    assert queue.next_up(waiting) == (1, "ann")
    queue.running[1] = ("ann", Running())  # type: ignore[assignment]
    assert queue.next_up(waiting) == (11, "bob")
    assert queue.next_up(waiting[:10]) == (2, "ann")  # Bob's not there: Ann's second takes the second worker
    queue.running[11] = ("bob", Running())  # type: ignore[assignment]
    assert queue.next_up(waiting) is None  # the last worker is kept for an owner with nothing running
    assert queue.next_up([*waiting, (12, "cat")]) == (12, "cat")
    queue.workers = 1  # one worker: it is nobody's to keep (Bob waits one pre-flight at most)
    queue.running.clear()
    assert queue.next_up(waiting[:10]) == (1, "ann")


class HeldQueue(PreflightQueue):
    """The real queue, whose pre-flights are processes that end once the test releases them (a file each)."""

    async def _spawn(self, submission_id: int, owner: str) -> None:
        release = self.bot_store / f"release-{submission_id}"
        wait = "import os, sys, time\nwhile not os.path.exists(sys.argv[1]):\n    time.sleep(0.02)"
        process = await asyncio.create_subprocess_exec(sys.executable, "-c", wait, str(release),
                                                       stdin=asyncio.subprocess.DEVNULL,
                                                       stderr=asyncio.subprocess.PIPE)
        self.running[submission_id] = (owner, process)
        asyncio.get_running_loop().create_task(self._reap(submission_id, process))

    def release(self) -> None:
        for submission_id in [*self.running, *range(1, 100)]:
            (self.bot_store / f"release-{submission_id}").touch()


async def _until(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    ends = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < ends, "the condition never held"
        await asyncio.sleep(0.02)


def test_one_owners_slow_uploads_never_make_another_wait(hosting: Hosting, tmp_path: Path) -> None:
    """Ann queued three slow uploads on a queue of two workers: Bob's upload, queued after, starts while Ann's
    first is still running (Ann's second waits for it, not Bob)."""
    ann = [hosting.add_submission("ann", f"a{number}.zip", 1, f"/a{number}") for number in range(3)]
    status = lambda submission: getattr(hosting.submission(submission or 0), "status", "")  # noqa: E731

    async def scenario() -> None:
        queue = HeldQueue(hosting, "", tmp_path, workers=2)
        queue.start()
        try:
            await _until(lambda: status(ann[0]) == "running")
            bob = hosting.add_submission("bob", "b.zip", 1, "/b")
            queue.wake()
            await _until(lambda: status(bob) == "running")
            assert status(ann[0]) == "running" and status(ann[1]) == "queued"
            queue.release()
            await _until(lambda: all(status(submission) == "error" for submission in [*ann, bob]))
        finally:
            queue.release()
            await queue.stop()

    asyncio.run(scenario())


"""Limits that hold under concurrency, in SQLite and in the real PostgreSQL: 50 uploads at once against a limit of
20 an hour store exactly 20; the pre-flight queue is fair between owners; pre-flights are leased, so a second web
server on the same database never takes one that runs, and takes up one whose server died once its lease ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
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
    """Ann's ten uploads came first; Bob's one still goes next once Ann has one running."""
    queue = PreflightQueue(None, "", tmp_path)  # type: ignore[arg-type]
    waiting = [(number, "ann") for number in range(1, 11)] + [(11, "bob")]
    assert queue.next_up(waiting) == (1, "ann")
    queue.running[1] = ("ann", Running())  # type: ignore[assignment]
    assert queue.next_up(waiting) == (11, "bob")
    queue.running[11] = ("bob", Running())  # type: ignore[assignment]
    assert queue.next_up(waiting) == (2, "ann")


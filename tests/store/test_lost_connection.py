"""A database connection cut mid-transaction (`pg_terminate_backend` on the run's busy backend, as a server
restart or a network cut does) does not end a tournament: the store runs the call again, whole, and the run
carries on, storing every match exactly once. Against the real PostgreSQL (tests/pg.py); skipped without it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy.exc import OperationalError

from arena.store import Store
from arena.store.retry import connection_lost, run_again_on_lost_connection
from tests.pg import HOST, fresh_schema, server_user

psycopg = pytest.importorskip("psycopg", reason="psycopg (PostgreSQL driver) is not installed")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with fresh_schema() as url:
        yield url


def _terminate_busy(client: object, name: str) -> list[str]:
    """Terminate the backends of `name` that are in the middle of something (not idle); what each was doing."""
    rows = client.execute(  # type: ignore[attr-defined]
        "SELECT pid, state, query FROM pg_stat_activity WHERE application_name = %s AND state <> 'idle' "
        "AND pid <> pg_backend_pid()", (name,)).fetchall()
    cut = []
    for pid, state, query in rows:
        if client.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0]:  # type: ignore[attr-defined]
            cut.append(f"{state}: {query[:60]}")
    return cut


def _stored(client: object, schema: str) -> bool:
    """Whether the run has stored a match yet."""
    try:
        return bool(client.execute(f'SELECT count(*) FROM "{schema}".matches').fetchone()[0])  # type: ignore[attr-defined]
    except psycopg.errors.UndefinedTable:
        return False


def test_a_tournament_carries_on_when_its_busy_connection_is_terminated(postgres_url: str) -> None:
    """`arena tournament run` on PostgreSQL; its backend is terminated while it is not idle, again and again;
    it says so once per loss, carries on, ends with rc 0 and stores every match once, every rating with it."""
    name = f"arena-cut-{uuid.uuid4().hex[:8]}"
    url = f"{postgres_url}&application_name={name}"
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    run = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "tournament", "run",
                            "major-general/breakthrough", "--bots", ",".join(f"b{i}=random" for i in range(8)),
                            "--rounds", "3", "-j", "2", "--seed", "5", "--name", "cut", "--db", url],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    schema = postgres_url.rsplit("search_path%3D", 1)[1]
    cuts: list[str] = []
    with psycopg.connect(host=HOST, port=5432, dbname="test", user=server_user(), autocommit=True) as client:
        while run.poll() is None and not _stored(client, schema):  # opened, and playing
            time.sleep(0.01)
        while run.poll() is None:
            if len(cuts) < 4:
                cuts += _terminate_busy(client, name)
            time.sleep(0.002)
    out, err = run.communicate()
    assert run.returncode == 0, err.decode()[-3000:]
    assert cuts, "no backend of the run was caught busy (the run ended first)"
    assert "Traceback" not in err.decode()
    said = [line for line in err.decode().splitlines() if "lost the database connection" in line]
    assert 1 <= len(said) <= len(cuts), err.decode()
    store = Store.open(postgres_url)
    try:
        tournament = store.tournaments.get("cut")
        assert tournament is not None and tournament.status == "finished"
        matches = store.matches.of_tournament(tournament.id)
        keys = [(m.round, m.pairing, m.rotation) for m in matches]
        assert len(keys) == len(set(keys)) == 3 * 28 * 2  # three cycles of 28 pairings, both seatings: once each
        assert sum(row.games for row in store.ratings.of_pool(tournament.pool)) == 2 * len(keys)
    finally:
        store.close()


def test_a_lost_connection_is_tried_again_and_anything_else_is_raised(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The retry itself: a lost connection is run again (said once, and its end), other errors at once."""
    monkeypatch.setattr("arena.store.retry.FIRST_PAUSE_S", 0.0)
    lost = OperationalError("SELECT 1", {}, Exception("terminating connection due to administrator command"),
                            connection_invalidated=True)
    calls: list[int] = []

    class Holder:
        def call(self, fail_times: int, error: Exception) -> str:
            calls.append(1)
            if len(calls) <= fail_times:
                raise error
            return "done"

    retried = run_again_on_lost_connection(Holder.call, lambda _self: "postgresql")
    with caplog.at_level(logging.WARNING, logger="arena.store"):
        assert retried(Holder(), 3, lost) == "done"
    assert len(calls) == 4
    assert [record.message.split(" (")[0].split(" after")[0] for record in caplog.records] == [
        "lost the database connection", "the database connection is back"]
    calls.clear()
    locked = OperationalError("INSERT", {}, Exception("database is locked"))
    assert connection_lost(lost, "sqlite") and not connection_lost(locked, "sqlite")
    with pytest.raises(OperationalError):
        run_again_on_lost_connection(Holder.call, lambda _self: "sqlite")(Holder(), 1, locked)
    assert len(calls) == 1

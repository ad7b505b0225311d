"""Commands on a disk that fills: `arena play --out` prints what it played, then one line saying which record
was not stored and what was (no traceback, no .part file; every record stored replays); a tournament whose
database fills says so in one line, and the database stays sound."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store.db import full_disk_line
from tests.small_disk import parts, roomier_disk, small_disk  # noqa: F401 (fixtures)


def test_arena_play_on_a_disk_that_fills(small_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "major-general", "--players", "greedy,random", "--games", "400", "--seed", "1",
                 "--out", str(small_disk)])
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    stored = sorted(small_disk.rglob("*.jsonl"))
    assert 0 < len(stored) < 400
    played = len(stored) + 1  # the series stopped at the first record not stored
    assert captured.err.startswith(f"arena: error: the record of game {played} was not stored (cannot write the "
                                   f"record {small_disk}/records/major-general/")
    assert captured.err.rstrip().endswith(f": No space left on device); stopped after {played} of 400 game(s): "
                                          f"{len(stored)} record(s) stored, 1 not")
    assert f"{played} game(s) in" in captured.out and "By player" in captured.out  # the summary first
    assert parts(small_disk) == []
    for path in stored:
        replay(MatchRecord.read(path))


def test_a_tournament_whose_database_fills(roomier_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = roomier_disk / "arena.db"
    code = main(["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "2000", "-j", "1",
                 "--seed", "1", "--no-standings", "--db", str(database)])
    err = capsys.readouterr().err.strip()
    assert code == 1
    assert "Traceback" not in err and err.count("\n") == 0, err
    assert err == (f"arena: error: the database {database} is full: its disk has no room left (database or disk "
                   "is full); what was stored before is intact: free some space and run the command again "
                   "(`arena tournament resume` continues a tournament)")
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert connection.execute("SELECT count(*) FROM matches").fetchone()[0] > 0


def test_postgresqls_disk_full_is_the_same_line() -> None:
    class DiskFull(Exception):
        sqlstate = "53100"

    line = full_disk_line(DiskFull('could not extend file "base/16384/2619": No space left on device'),
                          "postgresql+psycopg://arena:secret@db/arena")
    assert line is not None and line.startswith("the database postgresql+psycopg://arena:***@db/arena is full: ")
    assert full_disk_line(Exception("database is locked"), "sqlite:///x.db") is None

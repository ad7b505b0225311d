"""The hostile-bot suite's referee: sandboxed (the default), with the hostile bots and a history.

The history is a results folder that already holds a tournament in its SQLite database and match
records on disk; every hostile match must leave all of it exactly as it was.
"""

from __future__ import annotations

import hashlib
import shutil
import tomllib
from pathlib import Path
from typing import Iterator

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.referee.clock import ClockSettings
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_BOTS = Path(__file__).resolve().parent / "bots"
SHARED_PROGRAM = "hostile.py"  # in HOSTILE_BOTS: the program of every hostile bot but the probe
CLOCK = ClockSettings(move_time_s=2.0, bank_s=2.0, grace_s=1.0)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the SHA-256 of its bytes (but the database's note of its last page check,
    which each open that checks rewrites: arena.store.db.checked_marker)."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.name.endswith("-checked")}


class History:
    """What was stored before the hostile matches: a database and records that must not change."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self.database = results / "arena.db"
        self.before = snapshot(results)

    def check_intact(self) -> None:
        """Every file stored before is still there, byte for byte, and the database still answers."""
        now = snapshot(self.results)
        changed = [name for name, digest in self.before.items() if now.get(name) != digest]
        assert not changed, f"stored files changed or lost: {changed}"
        code = main(["leaderboard", "major-general", "--db", f"sqlite:///{self.database}", "--json"])
        assert code == 0


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    """A results folder with a stored round-robin (database and exported records)."""
    results = tmp_path_factory.mktemp("history")
    database = f"sqlite:///{results / 'arena.db'}"
    assert main(["tournament", "run", "major-general", "--bots", "random,greedy", "--rounds", "2", "--seed", "1",
                 "--name", "before", "-j", "1", "--db", database, "--json"]) == 0
    assert main(["tournament", "export", "before", "--db", database, "--out", str(results / "records")]) == 0
    wal = results / "arena.db-wal"
    if wal.exists():  # checkpointed, so that the snapshot is of files nobody writes any more
        import sqlite3

        with sqlite3.connect(results / "arena.db") as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return History(results)


def copy_with_program(source: Path, target: Path) -> Path:
    """A copy of the hostile bots with the one hostile.py they share put in each folder whose command runs it
    (a sandboxed bot sees its own folder only)."""
    shutil.copytree(source, target)
    shared = source / SHARED_PROGRAM
    for manifest in target.glob("*/bot.toml"):
        if SHARED_PROGRAM in tomllib.loads(manifest.read_text())["command"]:
            shutil.copy2(shared, manifest.parent / SHARED_PROGRAM)
    return target


@pytest.fixture(scope="module")
def referee_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def hostile_bots(tmp_path_factory: pytest.TempPathFactory, history: History, referee_port: int) -> Path:
    """A copy of tests/hostile/bots; the probe is told where the secrets are (as if it had guessed)."""
    bots = copy_with_program(HOSTILE_BOTS, tmp_path_factory.mktemp("hostile") / "bots")
    targets = ":".join(str(p) for p in (history.results, history.database, BUILTIN_BOTS, ROOT))
    with (bots / "probe" / "bot.toml").open("a") as manifest:
        manifest.write(f'\n[env]\nPROBE_TARGETS = "{targets}"\nPROBE_REFEREE = "127.0.0.1:{referee_port}"\n')
    return bots


@pytest.fixture(scope="module")
def referee(hostile_bots: Path, history: History, referee_port: int) -> Iterator[BackgroundReferee]:
    """A default, sandboxed referee whose records go into the history's results folder."""
    config = ServerConfig(port=referee_port, bot_dirs=(BUILTIN_BOTS, hostile_bots), results_dir=history.results,
                          clock=CLOCK, startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server

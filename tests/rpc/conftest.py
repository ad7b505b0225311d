"""One real referee server for the rpc tests: a free loopback port, real bot subprocesses."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from arena.referee.clock import ClockSettings
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS = Path(__file__).resolve().parent / "bots"
# Generous clocks: the machine running the tests may be busy, and only the sleep test wants a timeout.
RELAXED_CLOCK = ClockSettings(move_time_s=5.0, bank_s=30.0, grace_s=1.0)


@pytest.fixture(scope="session")
def stubonly_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the stub-only bot writes every DecisionRequest it receives."""
    return tmp_path_factory.mktemp("stubonly-dump")


@pytest.fixture(scope="session")
def referee(tmp_path_factory: pytest.TempPathFactory, stubonly_dump: Path) -> Iterator[BackgroundReferee]:
    """The shared server: bots/ plus the test bots; records in a temporary results folder."""
    previous = os.environ.get("ARENA_STUBONLY_DUMP")
    os.environ["ARENA_STUBONLY_DUMP"] = str(stubonly_dump)  # inherited by the launched bots
    config = ServerConfig(port=0, bot_dirs=(ROOT / "bots", TEST_BOTS), results_dir=tmp_path_factory.mktemp("results"),
                          clock=RELAXED_CLOCK, startup_timeout_s=60.0)
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server
    if previous is None:
        os.environ.pop("ARENA_STUBONLY_DUMP", None)
    else:
        os.environ["ARENA_STUBONLY_DUMP"] = previous

"""One real referee server for the rpc tests: a free loopback port, real bot subprocesses in their
sandboxes (bubblewrap, as a referee runs them by default)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

from arena.bots import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
TEST_BOTS_SOURCE = Path(__file__).resolve().parent / "bots"
# Generous clocks: the machine running the tests may be busy, and only the sleep test wants a timeout.
RELAXED_CLOCK = ClockSettings(move_time_s=5.0, bank_s=30.0, grace_s=1.0)


def self_contained_copy(source: Path, target: Path) -> Path:
    """The test bots with their shared misbehave.py link resolved: a sandboxed bot sees its own folder only."""
    shutil.copytree(source, target, symlinks=False)
    return target


@pytest.fixture(scope="session")
def test_bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/rpc/bots, each folder self-contained."""
    return self_contained_copy(TEST_BOTS_SOURCE, tmp_path_factory.mktemp("test-bots") / "bots")


@pytest.fixture(scope="session")
def referee(tmp_path_factory: pytest.TempPathFactory, test_bots: Path) -> Iterator[BackgroundReferee]:
    """The shared server: bots/ plus the test bots; records in a temporary results folder. Its bots get the
    seeds agents get in local play (public seeds), so matches here can be compared with local ones."""
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS, test_bots), results_dir=tmp_path_factory.mktemp("results"),
                          clock=RELAXED_CLOCK, startup_timeout_s=60.0, public_seeds=True)
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server

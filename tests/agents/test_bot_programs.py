"""bots/scripted, bots/greedy and bots/mcts: the built-in agents as bot programs through the referee."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from arena.agents import make_agent
from arena.bots import BUILTIN_BOTS
from arena.referee import play_match
from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.rpc.background import BackgroundReferee
from arena.rpc.manifest import load_manifest
from arena.rpc.server import ServerConfig
from arena.sandbox import SandboxSettings

ROOT = Path(__file__).resolve().parents[2]
MCTS_SPEC = "mcts:iterations=30"  # an iteration budget, so the remote games are reproducible


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundReferee]:
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=tmp_path_factory.mktemp("results"),
                          clock=ClockSettings(move_time_s=5.0, bank_s=30.0, grace_s=1.0), startup_timeout_s=60.0,
                          sandbox=SandboxSettings(env={"ARENA_MCTS_SPEC": MCTS_SPEC}),  # as --bot-env passes it
                          public_seeds=True)  # the bots get the seeds agents get in local play
    with BackgroundReferee(config, drain_s=0.0) as server:
        yield server


@pytest.mark.parametrize("name", ["scripted", "greedy", "mcts"])
def test_manifests_are_valid(name: str) -> None:
    manifest = load_manifest(BUILTIN_BOTS / name)
    assert manifest.name == name and manifest.plays("major-general", "major-general")


def test_bot_programs_play_the_same_games_as_the_agents(referee: BackgroundReferee) -> None:
    for bots, specs, seed in ((["mcts", "scripted"], [MCTS_SPEC, "scripted"], 3),
                              (["greedy", "mcts"], ["greedy", MCTS_SPEC], 4)):
        remote = referee.run_match("major-general", bots, seed=seed)
        local = play_match("major-general", [make_agent(spec) for spec in specs], seed)
        assert [(s.seat, s.action) for s in remote.steps] == [(s.seat, s.action) for s in local.steps]
        assert remote.result == local.result
        assert [player.kind for player in remote.players] == [PlayerKind.BOT, PlayerKind.BOT]

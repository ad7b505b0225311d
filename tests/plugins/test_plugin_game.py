"""A game from outside Arena (tests/plugins/odd_one_out: three seats, secret picks, public chance),
registered only through its own distribution's arena.games entry point (tests/conftest.py installs
it), plays through `arena play`, `arena match` (bot programs over gRPC, with the generic JSON
observation, in their sandboxes) and a tournament that mixes agents and a program: each command run
as a user would, in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.bots import BUILTIN_BOTS
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from tests.conftest import PLUGIN_SITE

ROOT = Path(__file__).resolve().parents[2]


def arena(*argv: str, cwd: Path) -> Any:
    """Run `arena ARGV --json` as a user would (the plug-in on PYTHONPATH); its JSON output."""
    env = dict(os.environ, PYTHONPATH=str(PLUGIN_SITE), COLUMNS="200")
    done = subprocess.run([sys.executable, "-c", "from arena.cli.main import run; run()", *argv, "--json"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_plugged_in_game_is_listed(tmp_path: Path) -> None:
    listed = {mode["name"]: mode for mode in arena("games", cwd=tmp_path)}
    assert {"odd-one-out", "odd-one-out/long", "major-general"} <= set(listed)
    assert listed["odd-one-out"]["seats"] == 3 and listed["odd-one-out"]["family"] == "odd-one-out"


def test_it_plays_in_process(tmp_path: Path) -> None:
    data = arena("play", "odd-one-out", "--players", "random,scripted,greedy", "--games", "3", "--seed", "4",
                 "--out", str(tmp_path), cwd=tmp_path)
    assert len(data["games"]) == 3 and all(game["reason"] == "score" for game in data["games"])
    for game in data["games"]:
        replay(MatchRecord.read(Path(game["record"])))


def test_it_plays_through_the_referee_with_a_generic_observation(tmp_path: Path) -> None:
    data = arena("match", "odd-one-out", str(BUILTIN_BOTS / "greedy"), "random", str(BUILTIN_BOTS / "trivial"),
                 "--games", "3", "--seed", "9", "--bots", str(BUILTIN_BOTS), "--out", str(tmp_path), cwd=tmp_path)
    games = data["games"]
    assert [game["reason"] for game in games] == ["score"] * 3, games
    assert [game["seats"] for game in games] == [["greedy", "random", "trivial"], ["random", "trivial", "greedy"],
                                                 ["trivial", "greedy", "random"]]  # every rotation of the table
    for game in games:
        record = MatchRecord.read(Path(game["record"]))
        assert [player.kind for player in record.players] == [PlayerKind.BOT] * 3
        replay(record)


def test_it_plays_in_a_tournament_of_agents_and_a_program(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    data = arena("tournament", "run", "odd-one-out", "--bots", f"random,greedy,scripted,p={BUILTIN_BOTS / 'random'}",
                 "--rounds", "1", "--seed", "3", "-j", "2", "--db", url, cwd=tmp_path)
    report = data["tournaments"][0]
    assert report["finished"] and report["stored"] == report["expected"] == 12  # 4 tables of 3, 3 rotations each
    assert {line["bot"] for line in report["standings"]} == {"random", "greedy", "scripted", "p"}
    board = arena("leaderboard", "odd-one-out", "--db", url, cwd=tmp_path)
    assert {row["bot"] for row in board["pools"][0]["standings"]} == {"random", "greedy", "scripted", "p"}

"""One name per bot everywhere: a built-in agent goes by its spec with the settings by value, in the
table, in --json, in records and on the web; the leaderboard table keeps each bot on one line."""

from __future__ import annotations

import json

import pytest

from arena.agents import agent_name, make_agent
from arena.cli.show import display_name
from arena.cli.main import main
from arena.tournament.bots import parse_bot


def test_agent_names() -> None:
    assert agent_name("greedy") == "greedy"
    assert agent_name("mcts:iterations=30") == "mcts(30)"
    assert agent_name("openspiel-mcts:simulations=20:evaluator=arena") == "openspiel-mcts(20,arena)"
    assert make_agent("mcts:iterations=30").name == "mcts(30)"  # what records and arena play show
    assert parse_bot("mcts:iterations=30").name == "mcts(30)"  # what tournaments store
    assert parse_bot("fast=mcts:iterations=30").name == "fast"  # a name its user gave is kept
    long = display_name("a-bot-with-a-really-long-name-that-goes-on-and-on")
    assert len(long) == 26 and long.endswith("…")


def test_the_table_keeps_each_bot_on_one_line(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    spec = "mcts:iterations=8:uct_c=0.4:depth=2:worlds=4"
    assert main(["tournament", "run", "major-general", "--bots", f"random,{spec}", "--rounds", "1", "-j", "1",
                 "--db", url, "--json"]) == 0
    capsys.readouterr()
    assert main(["leaderboard", "--db", url]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "│" in line and "random" not in line and "bot" not in line]
    assert len(rows) == 1 and "mcts(8,0.4,2,4)" in rows[0]
    assert main(["leaderboard", "--db", url, "--json"]) == 0
    names = {row["bot"] for row in json.loads(capsys.readouterr().out)["pools"][0]["standings"]}
    assert names == {"random", "mcts(8,0.4,2,4)"}

"""`arena play` rotates the seats from game to game by default (as `arena match` and tournaments do), says
which seat each game gave whom, and counts each player's games per seat; --no-swap keeps the order."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main


def play_json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    code = main(["play", "major-general", "--players", "random,greedy", "--games", "4", "--seed", "3", "--no-save",
                 "--json", *extra])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_seats_rotate_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    report = play_json(capsys)
    assert report["swap"] is True
    assert [game["seats"] for game in report["games"]] == [["random", "greedy"], ["greedy", "random"]] * 2
    for row in report["by_player"]:
        assert row["games"] == 4 and row["seats"] == {"Yellow": 2, "Red": 2}
        assert row["wins"] + row["draws"] + row["losses"] == 4
    greedy = next(row for row in report["by_player"] if row["player"] == "greedy")
    wins = sum(1 for game in report["games"]
               if game["ranking"][game["seats"].index("greedy")] == 0 and game["ranking"].count(0) == 1)
    assert greedy["wins"] == wins


def test_no_swap_keeps_the_order(capsys: pytest.CaptureFixture[str]) -> None:
    report = play_json(capsys, "--no-swap")
    assert report["swap"] is False
    assert all(game["seats"] == ["random", "greedy"] for game in report["games"])
    assert report["by_player"][0]["seats"] == {"Yellow": 4, "Red": 0}


def test_the_table_says_who_sat_where(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "major-general", "--players", "random,greedy", "--games", "2", "--seed", "3", "--no-save"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Yellow: random, Red: greedy" in out and "Yellow: greedy, Red: random" in out
    assert "as Yellow" in out and "seats rotated" in out

"""The series runner behind `arena play` and `arena match`: seats rotate (or keep their order), every game on
a chance seed of its own (keyed by the series' seed; duplicate: one per rotation, in-process agents only),
every game is played, kept and tallied once."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.agents import make_agent
from arena.games.registry import load_game
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.referee.seeds import game_seed
from arena.tournament.series import (InProcess, RemoteReferee, SeriesError, describe, labels_of, run_series, schedule,
                                     tally)


def test_seats_rotate_and_every_game_has_a_seed_of_its_own() -> None:
    games = schedule(2, 4, 7)
    assert [game.order for game in games] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert len({game.seed for game in games}) == 4 and 7 not in {game.seed for game in games}
    assert [game.seed for game in games] == [game_seed(7, index) for index in range(4)]
    assert schedule(2, 4, 7) == games  # the series' seed plays the same games again
    assert [game.order for game in schedule(3, 3, 1)] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    kept = schedule(2, 3, 5, rotate=False)
    assert [game.order for game in kept] == [(0, 1)] * 3 and len({game.seed for game in kept}) == 3


def test_the_duplicate_format_plays_each_rotation_on_one_seed_for_in_process_agents_only() -> None:
    games = schedule(2, 4, 7, duplicate=True)
    assert [game.seed for game in games] == [game_seed(7, 0)] * 2 + [game_seed(7, 1)] * 2
    assert {game.seed for game in schedule(3, 3, 1, duplicate=True)} == {game_seed(1, 0)}
    with pytest.raises(SeriesError, match="only for in-process agents"):
        run_series(RemoteReferee("127.0.0.1:1", None, Path("unused")), "major-general", ["a", "b"], 2, 1,
                   duplicate=True)


def test_two_players_of_one_name_are_told_apart() -> None:
    assert labels_of(["random", "greedy", "random"]) == ("random (1)", "greedy", "random (3)")


def test_an_in_process_series_plays_keeps_and_tallies_every_game(tmp_path: Path) -> None:
    game = load_game("major-general")
    runner = InProcess(game, [make_agent("greedy"), make_agent("random")], tmp_path)
    heard: list[str] = []
    series = run_series(runner, game.name, ["greedy", "random"], 4, 11,
                        on_game=lambda played, labels: heard.append(describe(played, labels)))
    assert [played.game.index for played in series.games] == [0, 1, 2, 3] and len(heard) == 4
    assert [played.seats(series.labels) for played in series.games] == [["greedy", "random"], ["random", "greedy"]] * 2
    for played in series.games:
        assert played.path is not None and played.path.is_file()
        replay(MatchRecord.read(played.path))
    greedy, random_ = tally(series)
    assert greedy.games == random_.games == 4 and greedy.seats == {0: 2, 1: 2}
    assert greedy.wins == random_.losses and greedy.draws == random_.draws
    assert greedy.wins + greedy.draws + greedy.losses == 4 and greedy.think_ms

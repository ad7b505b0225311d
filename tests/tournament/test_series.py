"""The series runner behind `arena play` and `arena match`: seats rotate with a seed per rotation (or keep
their order, a seed a game), every game is played, kept and tallied once."""

from __future__ import annotations

from pathlib import Path

from arena.agents import make_agent
from arena.games.registry import load_game
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.tournament.series import InProcess, SeriesGame, describe, labels_of, run_series, schedule, tally


def test_seats_rotate_and_each_seed_is_played_once_per_rotation() -> None:
    assert schedule(2, 4, 7) == [SeriesGame(0, 7, (0, 1)), SeriesGame(1, 7, (1, 0)),
                                 SeriesGame(2, 8, (0, 1)), SeriesGame(3, 8, (1, 0))]
    assert [game.order for game in schedule(3, 3, 1)] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert {game.seed for game in schedule(3, 3, 1)} == {1}
    assert schedule(2, 3, 5, rotate=False) == [SeriesGame(0, 5, (0, 1)), SeriesGame(1, 6, (0, 1)),
                                               SeriesGame(2, 7, (0, 1))]


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

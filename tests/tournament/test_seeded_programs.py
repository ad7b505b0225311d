"""`--seed` fixes every match of a tournament, those with a bot program in them too (issue 48): the seeds the
referee hands its seats (the program's and the built-in agents' beside it) are keyed by a secret derived from the
chosen seed, not by the referee's per-start secret. The same small tournament twice with one seed and the Python
starter bot stores the same matches; another seed, other matches. (Run from a checkout whose `arena` the bot's
Python imports: bubblewrap shows the sandbox only the running package; `ARENA_SANDBOX=none` otherwise.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.referee.authority import seat_seed
from arena.referee.record import MatchRecord
from arena.referee.seeds import game_seed, seat_salt
from arena.store import Store

STARTER = Path(__file__).resolve().parents[2] / "bots" / "python"

Played = tuple[int, list[tuple[str, str, int]], list[tuple[int, int, str]], tuple[int, ...], str]


def tournament(tmp_path: Path, name: str, seed: int) -> list[Played]:
    """Play a round robin of the starter, random and greedy with `seed`; each stored match as what was played
    (its seed, who sat where, every step, the result): not its timings, ids or times."""
    path = tmp_path / f"{name}.db"
    code = main(["tournament", "run", "major-general", "--bots", f"{STARTER},random,greedy", "--rounds", "1",
                 "--seed", str(seed), "-j", "2", "--db", f"sqlite:///{path}", "--no-standings"])
    assert code == 0
    return stored(path)


def stored(path: Path) -> list[Played]:
    """Each match of the store's first tournament as what was played, in the order of its place."""
    store = Store.open(f"sqlite:///{path}", create=False)
    played = []
    for match in store.matches.of_tournament(1):
        record = MatchRecord.from_bytes(store.matches.record(match))
        assert record.result is not None and record.result.reason != "crash", record.result  # the program played
        played.append((record.seed, [(p.name, p.kind.value, p.seat) for p in record.players],
                       [(step.seat, step.action, step.label) for step in record.steps],
                       tuple(record.result.ranking), str(record.result.reason)))
    store.close()
    return played


def test_the_same_seed_plays_the_same_matches_with_a_bot_program(tmp_path: Path) -> None:
    first, again = tournament(tmp_path, "first", 4242), tournament(tmp_path, "again", 4242)
    assert len(first) == 6
    assert sum(any(kind == "program" for _, kind, _ in match[1]) for match in first) == 4
    assert first == again
    other = tournament(tmp_path, "other", 4243)
    assert sum(a != b for a, b in zip(first, other)) == len(first)  # another seed: every match another


def test_a_resumed_tournament_plays_what_is_left_as_one_run_would(tmp_path: Path) -> None:
    """Stopped after two matches and resumed (`arena tournament resume`, which is not told the seed): each match
    the same as in the run that was not stopped, the bot program's moves too (its seat keyed as before)."""
    from arena.cli.settings import sandbox_settings
    from arena.games import load_game
    from arena.tournament.bots import parse_bots
    from arena.tournament.service import PlaySettings, TournamentSpec, create, play

    whole = tournament(tmp_path, "whole", 4242)
    path = tmp_path / "stopped.db"
    store = Store.open(f"sqlite:///{path}")
    game = load_game("major-general")
    spec = TournamentSpec(games=(game,), bots=tuple(parse_bots(f"{STARTER},random,greedy")), rounds=1,
                          seed=4242)
    sandbox = sandbox_settings(os.environ.get("ARENA_SANDBOX"))  # (as the command reads it)
    [summary] = play(store, create(spec, store), PlaySettings(concurrency=1, sandbox=sandbox), max_matches=2)
    store.close()
    assert not summary.finished and 2 <= summary.played < len(whole)
    assert main(["tournament", "resume", "1", "-j", "2", "--db", f"sqlite:///{path}"]) == 0
    assert sorted(stored(path)) == sorted(whole)


def test_the_seats_seeds_stay_keyed_by_a_secret() -> None:
    """Fair play kept: the salt is keyed by the series' secret, so a game's public seed (or one seat's seed) does
    not give another seat's; each chosen seed its own salt; no salt is the seed itself."""
    salts = {seat_salt(secret) for secret in range(100)}
    assert len(salts) == 100 and all(len(salt) == 32 for salt in salts)
    assert seat_salt(4242) == seat_salt(4242) and str(4242) not in seat_salt(4242)
    game = game_seed(4242, 0, 0, 0)
    keyed = [seat_seed(game, seat, seat_salt(4242)) for seat in range(2)]
    assert keyed != [seat_seed(game, seat) for seat in range(2)]  # not the public rule's seeds


@pytest.mark.parametrize("flag", [["--help"]])
def test_the_help_says_what_the_seed_fixes(capsys: pytest.CaptureFixture[str], flag: list[str]) -> None:
    assert main(["tournament", "run", *flag]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Fixes the schedule and every match" in text and "bot programs' too" in text


def test_arena_match_with_a_seed_plays_the_same_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`arena match --seed` through a referee started here: Arena's own random bot program plays by its seed."""
    import json

    from arena.bots import BUILTIN_BOTS

    def games(out: str) -> list[list[tuple[int, int]]]:
        code = main(["match", "major-general", "random", str(BUILTIN_BOTS / "trivial"), "--games", "2", "--seed", "9",
                     "--bots", str(BUILTIN_BOTS), "--out", str(tmp_path / out), "--json"])
        assert code == 0
        played = json.loads(capsys.readouterr().out)["games"]
        records = [MatchRecord.read(game["record"]) for game in played]
        assert all(record.result is not None and record.result.reason != "crash" for record in records)
        return [[(step.seat, step.action) for step in record.steps] for record in records]

    assert games("first") == games("again")

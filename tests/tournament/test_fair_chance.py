"""Every game its own chance: the games of a pairing (every format), of a series (`arena play`, `arena match`) and
of a ladder round are dealt and rolled from seeds of their own, so a bot that remembers one game's cards learns
nothing of the next. The duplicate format (one deal per pairing) is an explicit option, for in-process agents
only; these tests show it would hand the next game's cards to a bot that remembers."""

from __future__ import annotations

import gzip
import json
import random
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena.agents import AGENTS, Agent, DecisionRequest
from arena.cli.main import main
from arena.games.base import CHANCE
from arena.games.registry import load_game
from arena.referee.record import MatchRecord
from arena.sandbox import SandboxSettings
from arena.store import Store
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots
from arena.tournament.formats import FormatError
from arena.tournament.series import EmbeddedReferee, InProcess, run_series

GAME = "major-general/no-scenario"
HANDS = 56  # C(8, 3): the hands a seat may be dealt from its deck of 8; a blind guess is right 1 time in 56


def chance_steps(record: MatchRecord) -> list[tuple[int, int]]:
    return [(step.n, step.action) for step in record.steps if step.seat == CHANCE]


def opening_hands(record: MatchRecord) -> list[list[int]]:
    """Each seat's hand once the opening deal is done (replayed from the record)."""
    game = load_game(record.game, record.options)
    state = game.new_initial_state()
    for step in record.steps:
        if state.current_player() != CHANCE:
            break
        state.apply_action(step.action)
    return [sorted(state.observation(seat)["hand"]) for seat in range(game.num_seats)]


class RememberingAgent(Agent):
    """Remembers its opening hand; at its first decision of the next match it names that hand as the opponent's
    (right every time under duplicate deals, where the seats swap and the deal does not)."""

    name = "rememberer"
    remembered: ClassVar[list[int] | None] = None
    guesses: ClassVar[list[tuple[list[int], list[int]]]] = []  # (guessed opponent's hand, own hand)

    def reset(self, game: Any, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.first = True
        self.rng = random.Random(seed)

    def act(self, request: DecisionRequest) -> int:
        if self.first:
            self.first = False
            hand = sorted(request.observation["hand"])
            if RememberingAgent.remembered is not None:
                RememberingAgent.guesses.append((RememberingAgent.remembered, hand))
            RememberingAgent.remembered = hand
        return self.rng.choice(request.legal_actions)


def right_guesses(records: list[MatchRecord], name: str = "rememberer") -> tuple[int, int]:
    """(right, made): how often the guess the rememberer made in a game named its opponent's opening hand."""
    guesses = list(RememberingAgent.guesses)
    right = 0
    for record, (guess, _own) in zip(records[1:], guesses):
        seat = next(player.seat for player in record.players if player.name.startswith(name))
        right += opening_hands(record)[1 - seat] == guess
    return right, len(guesses)


@pytest.fixture(autouse=True)
def forget() -> None:
    RememberingAgent.remembered = None
    RememberingAgent.guesses = []


@pytest.mark.parametrize("format, bots, rounds", [
    ("round-robin", "a=random,b=random,c=random", 2), ("gauntlet", "a=random,b=random,c=random", 2),
    ("swiss", "a=random,b=random,c=random,d=random", 2), ("knockout", "a=random,b=random,c=random,d=random", 2),
    ("ladder", "a=random,b=random,c=random,d=random", 1)])
def test_the_games_of_a_pairing_differ_in_their_chance_in_every_format(store: Store, format: str, bots: str,
                                                                       rounds: int) -> None:
    tournament = create_tournament(store, game=load_game(GAME), bots=parse_bots(bots), format=format, rounds=rounds,
                                   seed=5)
    TournamentRunner(store, tournament, InlineExecutor(), max_matches=16).run()
    matches = store.matches.of_tournament(tournament)
    assert len(matches) >= 4
    assert len({match.seed for match in matches}) == len(matches)
    by_pairing: dict[tuple[int, int], list[list[tuple[int, int]]]] = {}
    for match in matches:
        record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode())
        by_pairing.setdefault((match.round, match.pairing), []).append(chance_steps(record))
    pairs = [games for games in by_pairing.values() if len(games) == 2]
    assert pairs
    for first, second in pairs:
        assert first != second  # another deal, other draws, other dice


def test_a_bot_that_remembers_learns_nothing_in_a_series_and_everything_from_duplicate_deals(tmp_path: Path) -> None:
    game = load_game(GAME)
    for duplicate in (False, True):
        RememberingAgent.remembered, RememberingAgent.guesses = None, []
        runner = InProcess(game, [RememberingAgent(), AGENTS["random"]()], None)
        series = run_series(runner, game.name, ["rememberer", "random"], 40, 17, duplicate=duplicate)
        records = [played.record for played in series.games]
        right, made = right_guesses(records)
        assert made == 39
        if duplicate:  # the second game of each pair: its opponent holds the hand it had
            assert right >= 20, right
        else:
            assert right <= 5, right  # a blind guess: 39/56 expected; 5 is beyond chance by far


def test_a_bot_that_remembers_learns_nothing_across_a_tournaments_games(store: Store,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENTS, "rememberer", RememberingAgent)
    tournament = create_tournament(store, game=load_game(GAME), bots=parse_bots("rememberer,random"),
                                   format="round-robin", rounds=30, seed=3)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    records = []
    for match in store.matches.of_tournament(tournament):
        records.append(MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode()))
    right, made = right_guesses(records)
    assert made == 59 and right <= 6, (right, made)


def test_duplicate_deals_are_refused_where_a_seat_can_remember(store: Store, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from arena.bots import BUILTIN_BOTS

    program = str(BUILTIN_BOTS / "random")
    with pytest.raises(FormatError, match="only for in-process agents"):
        create_tournament(store, game=load_game(GAME), bots=parse_bots(f"a=random,p={program}"),
                          format="round-robin", rounds=1, seed=1, settings={"duplicate": True})
    assert main(["tournament", "run", GAME, "--bots", f"a=random,p={program}", "--duplicate",
                 "--db", str(tmp_path / "d.db")]) == 2
    assert "only for in-process agents" in capsys.readouterr().err
    assert main(["play", GAME, "--duplicate", "--games", "2", "--no-save", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["duplicate"] is True


REMEMBERING_BOT = r'''
import json
import os

from arena.agents.base import Agent, DecisionRequest
from arena.sdk import run_bot

MEMORY = []  # the process stays warm between matches: what it saw stays here


class Rememberer(Agent):
    name = "remembering-program"

    def reset(self, game, seat, seed):
        super().reset(game, seat, seed)
        self.first = True

    def act(self, request: DecisionRequest) -> int:
        if self.first:
            self.first = False
            hand = sorted(request.observation["hand"])
            with open(os.environ["GUESSES"], "a") as out:  # (unsandboxed here, to tell the test)
                out.write(json.dumps({"guess": MEMORY[-1] if MEMORY else None, "own": hand}) + "\n")
            MEMORY.append(hand)
        return request.legal_actions[0]


if __name__ == "__main__":
    run_bot(Rememberer())
'''


def test_a_bot_program_that_remembers_learns_nothing_in_arena_match(tmp_path: Path) -> None:
    """The same through the referee (`arena match`): a warm process keeps its memory from game to game."""
    folder = tmp_path / "bots" / "remembering-program"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(REMEMBERING_BOT))
    guesses_file = tmp_path / "guesses.jsonl"
    (folder / "bot.toml").write_text('name = "remembering-program"\nversion = "1"\ncommand = ["{python}", "bot.py"]\n'
                                     f'games = ["major-general"]\n[env]\nGUESSES = "{guesses_file}"\n')
    from arena.bots import BUILTIN_BOTS

    runner = EmbeddedReferee([tmp_path / "bots", BUILTIN_BOTS], tmp_path / "results", SandboxSettings(mode="none"))
    series = run_series(runner, GAME, ["remembering-program", "random"], 12, 23)
    records = [played.record for played in series.games]
    assert len({record.seed for record in records}) == 12
    guesses = [json.loads(line)["guess"] for line in guesses_file.read_text().splitlines()]
    assert len(guesses) == 12 and guesses[0] is None and all(guesses[1:])  # one process remembered them all
    right = 0
    for record, guess in zip(records[1:], guesses[1:]):
        seat = next(player.seat for player in record.players if player.name == "remembering-program")
        right += opening_hands(record)[1 - seat] == guess
    assert right <= 3, right  # blind: 11/56 expected

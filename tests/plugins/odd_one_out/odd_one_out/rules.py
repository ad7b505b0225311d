"""Odd One Out: a three-player free-for-all with hidden choices and public chance.

Each round a chance node names the seat that picks first; then each seat in turn, from that one,
picks 1, 2 or 3 in secret. When all three have picked, the picks are shown: a seat whose number
no other seat picked scores that number. After the last round the highest score wins; equal
scores share their place.

A seat sees its own pick of the round, which seats have picked, every earlier round's picks and
the scores; never another seat's pick of the round until it is shown. Actions: 0..2 pick 1..3.
Chance outcomes: 0..2, that seat picks first.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import (
    CHANCE,
    JSON,
    TERMINAL,
    Game,
    GameInfo,
    IllegalActionError,
    Outcome,
    State,
    StateFormatError,
    ranking_from_scores,
)

TITLE = "Odd One Out"
SEATS = ("Amber", "Blue", "Coral")
NUM_SEATS = 3
PICKS = 3


class OddOneOutGame(Game):
    """Odd One Out with a number of rounds."""

    def __init__(self, rounds: int = 5, name: str | None = None) -> None:
        if not isinstance(rounds, int) or not 1 <= rounds <= 50:
            raise ValueError("rounds must be a whole number from 1 to 50")
        self.rounds = rounds
        self._info = GameInfo(name=name or "odd-one-out", title=TITLE,
                              num_seats=NUM_SEATS, num_actions=PICKS, num_chance_outcomes=NUM_SEATS,
                              max_game_length=rounds * (NUM_SEATS + 1), has_hidden_information=True,
                              has_chance=True, seat_names=SEATS, options={"rounds": rounds})

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> OddOneOutState:
        return OddOneOutState(self)

    def action_label(self, action: int) -> str:
        if not 0 <= action < PICKS:
            raise IllegalActionError(f"action {action} is outside the action space 0..{PICKS - 1}")
        return f"pick {action + 1}"

    def chance_label(self, outcome: int) -> str:
        if not 0 <= outcome < NUM_SEATS:
            raise IllegalActionError(f"chance outcome {outcome} is outside 0..{NUM_SEATS - 1}")
        return f"{SEATS[outcome]} picks first"

    def state_from_json(self, data: JSON) -> OddOneOutState:
        try:
            state = OddOneOutState(self)
            state.round = int(data["round"])
            state.first = int(data["first"])
            state.picks = [None if pick is None else int(pick) for pick in data["picks"]]
            state.history = [[int(pick) for pick in picks] for picks in data["history"]]
            state.scores = [int(score) for score in data["scores"]]
        except (KeyError, TypeError, ValueError) as error:
            raise StateFormatError(f"not an Odd One Out state: {error!r}") from None
        if len(state.picks) != NUM_SEATS or len(state.scores) != NUM_SEATS:
            raise StateFormatError("an Odd One Out state has three seats")
        return state

    def determinize(self, observation: JSON, rng: random.Random) -> OddOneOutState:
        """The others' hidden picks of the round, drawn at random."""
        try:
            seat = int(observation["seat"])
            data = {key: observation[key] for key in ("round", "first", "history", "scores")}
            data["picks"] = [observation["own_pick"] if other == seat else
                             (rng.randrange(PICKS) if has_picked else None)
                             for other, has_picked in enumerate(observation["picked"])]
        except (KeyError, TypeError, ValueError) as error:
            raise StateFormatError(f"not an Odd One Out observation: {error!r}") from None
        return self.state_from_json(data)


class OddOneOutState(State):
    """A position of Odd One Out."""

    __slots__ = ("_game", "round", "first", "picks", "history", "scores")

    def __init__(self, game: OddOneOutGame) -> None:
        self._game = game
        self.round = 0
        self.first = -1  # -1: the round's chance node has not been resolved
        self.picks: list[int | None] = [None] * NUM_SEATS
        self.history: list[list[int]] = []
        self.scores = [0] * NUM_SEATS

    @property
    def game(self) -> OddOneOutGame:
        return self._game

    def current_player(self) -> int:
        if self.round >= self._game.rounds:
            return TERMINAL
        if self.first < 0:
            return CHANCE
        for offset in range(NUM_SEATS):
            seat = (self.first + offset) % NUM_SEATS
            if self.picks[seat] is None:
                return seat
        raise AssertionError("a round with every pick made is over")

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return list(range(NUM_SEATS))
        return [] if player == TERMINAL else list(range(PICKS))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        return [(seat, 1.0 / NUM_SEATS) for seat in range(NUM_SEATS)]

    def apply_action(self, action: int) -> None:
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalActionError("the game is over")
        if not isinstance(action, int) or not 0 <= action < (NUM_SEATS if player == CHANCE else PICKS):
            raise IllegalActionError(f"action {action!r} is not legal here (legal: {self.legal_actions()})")
        if player == CHANCE:
            self.first = action
            return
        self.picks[player] = action
        if all(pick is not None for pick in self.picks):
            shown = [int(pick) for pick in self.picks if pick is not None]
            for seat, pick in enumerate(shown):
                if shown.count(pick) == 1:
                    self.scores[seat] += pick + 1
            self.history.append(shown)
            self.picks = [None] * NUM_SEATS
            self.first = -1
            self.round += 1

    def clone(self) -> OddOneOutState:
        other = OddOneOutState(self._game)
        other.round, other.first = self.round, self.first
        other.picks = list(self.picks)
        other.history = [list(picks) for picks in self.history]
        other.scores = list(self.scores)
        return other

    def outcome(self) -> Outcome | None:
        if self.round < self._game.rounds:
            return None
        return Outcome(ranking_from_scores(self.scores), "score", tuple(float(s) for s in self.scores))

    def observation(self, seat: int) -> JSON:
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat {seat} is not a seat of Odd One Out (0, 1 or 2)")
        return {"seat": seat, "round": self.round, "first": self.first, "own_pick": self.picks[seat],
                "picked": [pick is not None for pick in self.picks],
                "history": [list(picks) for picks in self.history], "scores": list(self.scores)}

    def to_json(self) -> JSON:
        return {"round": self.round, "first": self.first, "picks": list(self.picks),
                "history": [list(picks) for picks in self.history], "scores": list(self.scores)}

    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        if player == CHANCE:
            return self._game.chance_label(action)
        if player == TERMINAL:
            return self._game.action_label(action)
        return f"{SEATS[player]} picks {action + 1}"

    def spectator_label(self, action: int) -> str | None:
        """A pick is secret until the round's last one shows them all; who starts is public."""
        player = self.current_player()
        if player >= 0:
            return f"{SEATS[player]} picks in secret"
        return None

    def board_text(self) -> str:
        return (f"round {self.round + 1}/{self._game.rounds}  scores " +
                ", ".join(f"{name} {score}" for name, score in zip(SEATS, self.scores)))


def new_game(rounds: int = 5, name: str | None = None, **unknown: Any) -> OddOneOutGame:
    """The registry's factory."""
    if unknown:
        raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return OddOneOutGame(rounds, name)

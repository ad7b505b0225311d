"""The Game / State interface every Arena game implements.

Semantics follow OpenSpiel: a state names the seat that must decide now (`current_player`), which
may be CHANCE (the referee samples an outcome from `chance_outcomes`) or TERMINAL. Actions are
small integers in a fixed action space per game, each with a readable label. Chance outcomes are
integers too, in their own space of `Game.num_chance_outcomes` values.

Nothing here assumes two players: seats run from 0 to `num_seats - 1` and a finished game yields a
ranking of seats (rank 0 is first; equal ranks are draws).

Pure rules: standard library only, no IO, no global random state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

CHANCE = -1
TERMINAL = -2

JSON = dict[str, Any]


class IllegalActionError(ValueError):
    """Raised by `State.apply_action` for an action that is not legal; the state is untouched."""


class StateFormatError(ValueError):
    """Raised when a JSON state or observation cannot be turned back into a state."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: a rank per seat (0 = first, equal ranks draw), and why."""

    ranking: tuple[int, ...]
    reason: str
    scores: tuple[float, ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats ranked first (several on a draw)."""
        return tuple(seat for seat, rank in enumerate(self.ranking) if rank == 0)

    @property
    def is_draw(self) -> bool:
        """True when every seat shares first place."""
        return all(rank == 0 for rank in self.ranking)

    def to_json(self) -> JSON:
        """The outcome as a JSON-able dict."""
        return {"ranking": list(self.ranking), "reason": self.reason, "scores": list(self.scores)}

    @classmethod
    def from_json(cls, data: JSON) -> Outcome:
        """Inverse of `to_json`."""
        return cls(tuple(data["ranking"]), data["reason"], tuple(data.get("scores", ())))


def ranking_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Competition ranking: a seat's rank is the number of seats that scored strictly more."""
    return tuple(sum(1 for other in scores if other > mine) for mine in scores)


def points(wins: float, draws: float = 0.0) -> float:
    """A result in points, a win 1 and a draw 1/2: one game's (`points(mine < theirs, mine == theirs)`, ranks
    compared) or a tally's (`points(wins, draws)`)."""
    return wins + 0.5 * draws


def returns_from_ranking(ranking: Sequence[int]) -> list[float]:
    """Zero-sum returns in [-1, 1] from a ranking: +1 for first, -1 for last, draws share."""
    n = len(ranking)
    if n < 2:
        return [0.0] * n
    # Each seat scores +1 per seat it beats and -1 per seat that beats it, scaled to [-1, 1].
    return [
        sum((r_other > r_mine) - (r_other < r_mine) for r_other in ranking) / (n - 1)
        for r_mine in ranking
    ]


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game (what OpenSpiel calls the game type and its sizes)."""

    name: str
    title: str
    num_seats: int
    num_actions: int
    num_chance_outcomes: int
    max_game_length: int
    has_hidden_information: bool
    has_chance: bool
    seat_names: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


class Game(ABC):
    """A game with fixed options: creates states, names actions, and rebuilds states from JSON."""

    #: Bumped whenever a rules change would make old records replay differently.
    rules_version: ClassVar[str] = "1"

    @property
    @abstractmethod
    def info(self) -> GameInfo:
        """Static facts: name, seats, action space sizes."""

    @property
    def name(self) -> str:
        """Registered name, e.g. 'major-general/hold-the-centre'."""
        return self.info.name

    @property
    def num_seats(self) -> int:
        """Number of seats (players)."""
        return self.info.num_seats

    @property
    def num_actions(self) -> int:
        """Size of the fixed action space: actions are 0 .. num_actions - 1."""
        return self.info.num_actions

    @property
    def options(self) -> dict[str, Any]:
        """The options this game was built with (part of every match record)."""
        return dict(self.info.options)

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action (often a chance node for the setup)."""

    @abstractmethod
    def action_label(self, action: int) -> str:
        """A context-free label for an action id (what the action space documents)."""

    @abstractmethod
    def chance_label(self, outcome: int) -> str:
        """A context-free label for a chance outcome id."""

    @abstractmethod
    def state_from_json(self, data: JSON) -> State:
        """Rebuild a full state from `State.to_json()`; raises StateFormatError on bad input."""

    @abstractmethod
    def determinize(self, observation: JSON, rng: random.Random) -> State:
        """A full state consistent with `observation`, its hidden parts sampled with `rng`."""

    def action_space(self) -> list[tuple[int, str]]:
        """Every action id with its label: the documented action space."""
        return [(action, self.action_label(action)) for action in range(self.num_actions)]


class State(ABC):
    """A position in a game. Mutable: `apply_action` changes it in place; `clone` copies it."""

    __slots__ = ()

    @property
    @abstractmethod
    def game(self) -> Game:
        """The game this state belongs to."""

    @abstractmethod
    def current_player(self) -> int:
        """The seat that must decide now, or CHANCE, or TERMINAL."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal actions for the deciding seat, ascending; chance outcome ids at a chance node."""

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Apply a decision or a chance outcome; raise IllegalActionError and change nothing if illegal."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is running."""

    @abstractmethod
    def observation(self, seat: int) -> JSON:
        """All that `seat` may know, as a JSON-able dict (never the opponent's hand or the deck)."""

    @abstractmethod
    def to_json(self) -> JSON:
        """The full state, secrets included, as a JSON-able dict."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """A label for `action` in this state (a chance outcome at a chance node)."""

    def spectator_label(self, action: int) -> str | None:
        """What someone in no seat may read of `action` taken here when the step hides something from
        them (a card drawn into a hand), else None: the step is public and `action_to_string` may be shown.

        The default hides every chance outcome of a game with hidden information; games say which
        of theirs are public (dice, who starts) by overriding this.
        """
        if self.game.info.has_hidden_information and self.current_player() == CHANCE:
            return "a hidden chance outcome"
        return None

    def board_text(self) -> str:
        """A plain-text picture of the position for terminals and logs."""
        return repr(self)

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        """True when the next step is a chance outcome."""
        return self.current_player() == CHANCE

    def returns(self) -> list[float]:
        """Per-seat returns: zero until the end, then derived from the ranking."""
        outcome = self.outcome()
        if outcome is None:
            return [0.0] * self.game.num_seats
        return returns_from_ranking(outcome.ranking)

    def is_legal(self, action: int) -> bool:
        """True when `action` may be applied now."""
        return action in self.legal_actions()

    def sample_chance(self, rng: random.Random) -> int:
        """Draw a chance outcome with `rng` (one `rng.random()` call, outcomes in listed order)."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise IllegalActionError("no chance outcome to sample: this is not a chance node")
        point = rng.random()
        cumulative = 0.0
        for outcome, probability in outcomes:
            cumulative += probability
            if point < cumulative:
                return outcome
        return outcomes[-1][0]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game.name == other.game.name and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, like a list

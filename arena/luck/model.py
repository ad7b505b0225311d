"""The value model behind the luck: seat 0's chance to win, read off a position by a logistic model of the
family's value features (its knowledge module's `value_features`), after the chance outcome's own
consequence is played out (its `settle`: a roll kept, say), and, where the model says so (`lookahead`), once
the family's scripted players have played on from there to the next chance event (at most `lookahead` decisions):
the players' own short rollout, with no chance in it, so that what a draw or a roll lets a player do next is on
the board the model reads (a card drawn is worth what it does on the next turn, not a fixed weight).

A model is a JSON file in arena/luck/models/, one per game family, written by `python -m arena.luck.fit`
from a corpus of self-play games of its own (the file says which: players, seeds, games) and never
refitted on the games it judges. `beta` is the control variate's coefficient, fixed with the model on
validation games of their own: a match's luck counts `beta` times (1 is AIVAT's plain correction).
"""

from __future__ import annotations

import json
import math
from operator import mul
from dataclasses import dataclass, field
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.agents.knowledge import knowledge_for
from arena.games.base import CHANCE, Game, State, points
from arena.games.registry import UnknownGameError, family_of
from arena.luck.features import INPUTS

MODELS = Path(__file__).resolve().parent / "models"


@dataclass(frozen=True)
class ValueModel:
    """A fitted value model of one game family."""

    family: str
    version: int
    features: tuple[str, ...]
    weights: tuple[float, ...]  # the intercept first, then one per feature
    beta: float = 1.0
    fit: dict[str, Any] = field(default_factory=dict, compare=False)  # how it was fitted: corpus, validation
    lookahead: int = 0  # the scripted players' decisions played before the features are read (0: none)
    inputs: str = "value"  # what the features are: the family's value features, or arena.luck.features.INPUTS'

    @property
    def label(self) -> str:
        """'general-orders-wwii v1': what a stored luck says it was measured with."""
        return f"{self.family} v{self.version}"

    def chance(self, game: Game, state: State) -> float:
        """Seat 0's chance to win from `state` (a draw counts half): the result once the game is over."""
        return self.scorer(game)(state)

    def scorer(self, game: Game) -> Callable[[State], float]:
        """`chance` of `game`'s positions, its look-ups made once: what a LuckMeter calls for every outcome of every
        chance event."""
        knowledge = knowledge_for(game)
        read = knowledge.value_features if self.inputs == "value" else INPUTS[self.inputs][1]
        settle, lookahead = knowledge.settle, self.lookahead
        squash = self._squash()

        def score(state: State) -> float:
            if lookahead:
                state = value_position(game, state, lookahead)
            elif settle is not None:
                state = settle(state)
            if state.is_terminal():
                returns = state.returns()
                return points(returns[0] > returns[1], returns[0] == returns[1])
            assert read is not None
            return squash(read(state))

        return score

    def outcomes_scorer(self, game: Game) -> Callable[[State, Sequence[int]], list[float] | None] | None:
        """`chance` after each of a chance event's outcomes at once, read off by the family's knowledge
        (`outcome_features`: a draw's outcomes differ in a hand alone) with no outcome played but one: the same
        values `scorer` gives, or None at an event the family does not read so. None for a model that reads other
        inputs or plays a lookahead, and for a family with no such knowledge or one that settles an outcome (its
        features are read after the settling)."""
        knowledge = knowledge_for(game)
        outcome_features = knowledge.outcome_features
        if outcome_features is None or knowledge.settle is not None or self.inputs != "value" or self.lookahead:
            return None
        squash = self._squash()

        def score_all(state: State, outcomes: Sequence[int]) -> list[float] | None:
            rows = outcome_features(state, outcomes)
            return None if rows is None else [squash(row) for row in rows]

        return score_all

    def _squash(self) -> Callable[[list[float]], float]:
        """The logistic model on a position's features."""
        intercept, weights = self.weights[0], self.weights[1:]

        def squash(features: list[float]) -> float:
            z = intercept + sum(map(mul, weights, features))  # (as w * x summed in order)
            return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

        return squash

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "version": self.version, "features": list(self.features),
                "weights": list(self.weights), "beta": self.beta, "lookahead": self.lookahead,
                **({"inputs": self.inputs} if self.inputs != "value" else {}), "fit": self.fit}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ValueModel:
        return cls(str(data["family"]), int(data["version"]), tuple(data["features"]),
                   tuple(float(w) for w in data["weights"]), float(data.get("beta", 1.0)), dict(data.get("fit", {})),
                   int(data.get("lookahead", 0)), str(data.get("inputs", "value")))


def value_position(game: Game, state: State, lookahead: int = 0) -> State:
    """The position a value model reads after a chance outcome: its own consequence played (`settle`), then up to
    `lookahead` decisions of the family's scripted players, stopping at the next chance event or the end. Each
    decision is the scripted strategy's from the seat's observation, its tie-breaks drawn from a generator seeded
    the same way every time: the position reached is a function of `state` alone (so the luck's expectation is
    still zero at every event). A family with no scripted strategy reads the settled position."""
    knowledge = knowledge_for(game)
    if knowledge.settle is not None:
        state = knowledge.settle(state)
    policy = knowledge.scripted_action
    if not lookahead or policy is None or state.is_terminal() or state.current_player() == CHANCE:
        return state
    state = state.clone()
    rng = random.Random(0)
    for _ in range(lookahead):
        seat = state.current_player()
        if seat < 0:  # (chance, or the end)
            break
        legal = state.legal_actions()
        state.apply_action(legal[0] if len(legal) == 1 else policy(game, state.observation(seat), legal, rng))
    return state


def model_path(family: str) -> Path:
    """Where the family's model is kept."""
    return MODELS / f"{family}.json"


@lru_cache(maxsize=None)
def _load(family: str) -> ValueModel | None:
    path = model_path(family)
    if not path.is_file():
        return None
    return ValueModel.from_json(json.loads(path.read_text()))


def clear_model_cache() -> None:
    """Forget the models read so far: the next use reads each file afresh (after `python -m arena.luck.fit` wrote
    one)."""
    _load.cache_clear()


def model_for(game: Game) -> ValueModel | None:
    """The value model of `game`'s family, or None (a family with no model, or a game of more than two seats:
    its matches have no luck measured)."""
    if game.num_seats != 2:
        return None
    try:
        family = family_of(game.name).name
    except UnknownGameError:
        return None
    knowledge = knowledge_for(game)
    if knowledge.value_features is None:
        return None
    return _load(family)

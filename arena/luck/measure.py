"""A match's luck, event by event, from its record (see arena/luck/__init__.py for what luck is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.games.base import CHANCE, Game
from arena.games.registry import load_game
from arena.luck.model import ValueModel, model_for
from arena.referee.record import MatchRecord


@dataclass(frozen=True)
class MatchLuck:
    """What chance gave each seat in one match: per chance event (its step number, seat 0's luck), the sum per
    seat, the model that measured it and the coefficient the results are corrected with."""

    model: str
    beta: float
    events: tuple[tuple[int, float], ...]
    seats: tuple[float, ...]

    def adjusted(self, points: Sequence[float]) -> list[float]:
        """Each seat's points (1 a win, 1/2 a draw) less its luck, times beta: an unbiased estimate of them."""
        return [point - self.beta * luck for point, luck in zip(points, self.seats)]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "beta": self.beta, "seats": [round(luck, 6) for luck in self.seats],
                "events": [[n, round(luck, 6)] for n, luck in self.events]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchLuck:
        return cls(str(data["model"]), float(data["beta"]),
                   tuple((int(n), float(luck)) for n, luck in data.get("events", [])),
                   tuple(float(luck) for luck in data["seats"]))


def measure_luck(record: MatchRecord, game: Game | None = None, model: ValueModel | None = None,
                 probabilities: Any = None) -> MatchLuck | None:
    """The luck of every chance event of a record (replayed), or None where there is no model (see
    `model_for`) or the record stops before its end. `probabilities` (for tests) replaces each chance node's
    outcome probabilities: a function (state, outcomes) -> outcomes."""
    game = game or load_game(record.game, record.options)
    model = model or model_for(game)
    if model is None or record.result is None:
        return None
    state = game.new_initial_state()
    events: list[tuple[int, float]] = []
    total = 0.0
    for step in record.steps:
        if step.seat == CHANCE:
            outcomes = state.chance_outcomes()
            if probabilities is not None:
                outcomes = probabilities(state, outcomes)
            expected = 0.0
            after = 0.0
            for outcome, probability in outcomes:
                child = state.clone()
                child.apply_action(outcome)
                value = model.chance(game, child)
                expected += probability * value
                if outcome == step.action:
                    after = value
            luck = after - expected
            events.append((step.n, luck))
            total += luck
        state.apply_action(step.action)
    return MatchLuck(model.label, model.beta, tuple(events), (total, -total))


def attach_luck(record: MatchRecord, game: Game | None = None) -> MatchLuck | None:
    """The record's luck, measured once and kept in the record (`extra["luck"]`), or None where none is."""
    if "luck" in record.extra:
        return MatchLuck.from_json(record.extra["luck"])
    luck = measure_luck(record, game)
    if luck is not None:
        record.extra["luck"] = luck.to_json()
    return luck

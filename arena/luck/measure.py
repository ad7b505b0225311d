"""A match's luck, event by event: from its record, or as it is played (see arena/luck/__init__.py for what luck is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.games.base import CHANCE, Game, State
from arena.games.registry import load_game
from arena.luck.model import ValueModel, model_for
from arena.referee.record import MatchRecord, Step


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
    def from_json(cls, data: dict[str, Any], seats: int | None = None) -> MatchLuck:
        """Inverse of `to_json`; a ValueError saying so where `data` is not a match's luck, or (given `seats`) not
        one figure a seat (a record is a file anyone can edit)."""
        try:
            luck = cls(str(data["model"]), float(data["beta"]),
                       tuple((int(n), float(luck)) for n, luck in data.get("events", [])),
                       tuple(float(luck) for luck in data["seats"]))
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a match's luck ({type(error).__name__}: {error})") from None
        if seats is not None and len(luck.seats) != seats:
            raise ValueError(f"{len(luck.seats)} seats' luck for {seats} seats")
        return luck


class LuckMeter:
    """A match's luck measured as it is played, with no replay: `observe` is the match loop's `on_step` (arena.referee
    play_match). Before each chance event, from the position it happens in, every outcome's value and their
    expectation; when the event comes, its outcome's value less that expectation is seat 0's luck."""

    __slots__ = ("game", "model", "probabilities", "events", "total", "_values", "_expected", "_score", "_score_all")

    def __init__(self, game: Game, model: ValueModel | None, probabilities: Any = None) -> None:
        self.game, self.model, self.probabilities = game, model, probabilities
        self._score = model.scorer(game) if model is not None else None
        self._score_all = model.outcomes_scorer(game) if model is not None else None  # (a draw's, read at once)
        self.events: list[tuple[int, float]] = []
        self.total = 0.0
        self._values: dict[int, float] = {}
        self._expected = 0.0
        self._before(game.new_initial_state())  # (the match loop shows each position after a step: not the first)

    @classmethod
    def of(cls, game: Game) -> LuckMeter:
        """A meter for a match of `game` by its family's model (one that measures nothing where there is none)."""
        return cls(game, model_for(game))

    @classmethod
    def during_play(cls, game: Game) -> LuckMeter | None:
        """A meter for the match loop, or None where the family's model plays the scripted players' lookahead at
        every outcome (ValueModel.lookahead): that luck is measured from the record once the match is over
        (`attach_luck`), so the match loop does not wait on it between decisions."""
        model = model_for(game)
        return None if model is not None and model.lookahead else cls(game, model)

    def observe(self, state: State, step: Step) -> None:
        """After each step of the match, `state` the position it left: the luck of a chance step, and the values of
        the next one's outcomes if a chance event comes next."""
        if self.model is None:
            return
        if step.seat == CHANCE:
            luck = self._values.get(step.action, 0.0) - self._expected
            self.events.append((step.n, luck))
            self.total += luck
        self._before(state)

    def _before(self, state: State) -> None:
        if self.model is None or state.is_terminal() or state.current_player() != CHANCE:
            return
        outcomes = state.chance_outcomes()
        if self.probabilities is not None:
            outcomes = list(self.probabilities(state, outcomes))  # (read twice below: any iterable, as a list)
        values: dict[int, float] = {}
        expected = 0.0
        for (outcome, probability), value in zip(outcomes, self._scored(state, outcomes)):
            values[outcome] = value
            expected += probability * value
        self._values, self._expected = values, expected

    def _scored(self, state: State, outcomes: Sequence[tuple[int, float]]) -> list[float]:
        """Each outcome's value: read off at once where the family's knowledge can (a draw), else each played."""
        if self._score_all is not None:
            scored = self._score_all(state, [outcome for outcome, _ in outcomes])
            if scored is not None:
                return scored
        score = self._score
        assert score is not None
        values = []
        for outcome, _probability in outcomes:
            child = state.clone()
            child.apply_action(outcome)
            values.append(score(child))
        return values

    def luck(self) -> MatchLuck | None:
        """The luck measured so far (None without a model)."""
        if self.model is None:
            return None
        return MatchLuck(self.model.label, self.model.beta, tuple(self.events), (self.total, -self.total))


def measure_luck(record: MatchRecord, game: Game | None = None, model: ValueModel | None = None,
                 probabilities: Any = None) -> MatchLuck | None:
    """The luck of every chance event of a record (replayed), or None where there is no model (see
    `model_for`) or the record stops before its end. `probabilities` (for tests) replaces each chance node's
    outcome probabilities: a function (state, outcomes) -> outcomes."""
    game = game or load_game(record.game, record.options)
    model = model or model_for(game)
    if model is None or record.result is None:
        return None
    meter = LuckMeter(game, model, probabilities)
    state = game.new_initial_state()
    for step in record.steps:
        state.apply_action(step.action)
        meter.observe(state, step)
    return meter.luck()


def attach_luck(record: MatchRecord, game: Game | None = None) -> MatchLuck | None:
    """The record's luck, measured once and kept in the record (`extra["luck"]`), or None where none is."""
    kept = _kept_luck(record)
    return kept if kept is not None else keep_luck(record, measure_luck(record, game))


def _kept_luck(record: MatchRecord) -> MatchLuck | None:
    """The luck the record keeps, where it reads as this match's (one figure a seat); None where it keeps none, or
    keeps it damaged (a record is a file anyone can edit: that luck is dropped, to be measured again)."""
    if "luck" not in record.extra:
        return None
    try:
        return MatchLuck.from_json(record.extra["luck"], len(record.players))
    except ValueError:
        del record.extra["luck"]
        return None


def keep_luck(record: MatchRecord, luck: MatchLuck | None) -> MatchLuck | None:
    """`luck` (measured by `measure_luck`, or by a LuckMeter while the match was played) kept in the record
    (`extra["luck"]`) where there is any; returns it."""
    if luck is not None:
        record.extra["luck"] = luck.to_json()
    return luck

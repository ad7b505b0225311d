"""Match analysis: where a match was won and lost.

At every decision of a record the mover's position is searched from what the mover could see: an
information-set MCTS (arena/agents/mcts.py) whose worlds are sampled from the mover's observation
(`Game.determinize`), never from the record's hidden truth. The search values each move it looks at
(the move that was played always among them); the mover's chance to win before the move is the value
of the move the search would play, after it the value of the move that was played (a chance counts a
draw as half). The turning points are the largest drops, each with the better move and how much of
its chance it would have kept. The same record, seed and simulation budget give the same analysis.
"""

from __future__ import annotations

import gzip
import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from arena.agents.base import DecisionRequest
from arena.agents.mcts import MCTSAgent
from arena.games.base import Game, State, returns_from_ranking
from arena.referee.record import MatchRecord
from arena.referee.replay import game_of, replay

DEFAULT_BUDGET = "400"
TURNING_POINTS = 5  # at most this many turning points per match
TURNING_DROP = 0.08  # the least drop of the mover's chance that is a turning point

ProgressCallback = Callable[[int, int], None]  # (decisions analysed, decisions in all)


class AnalysisError(ValueError):
    """The match cannot be analysed (a bad budget, a game of more than two seats, an unfinished record)."""


@dataclass(frozen=True)
class Budget:
    """The search per decision: a number of simulations (deterministic) or of seconds (not)."""

    simulations: int | None = None
    seconds: float | None = None

    @classmethod
    def parse(cls, text: str) -> Budget:
        """'200' (simulations) or '0.5s' (seconds per decision)."""
        found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|sims?)?\s*", text.lower())
        if found is None:
            raise AnalysisError(f"budget {text!r}: give simulations per decision (200) or seconds (0.5s)")
        number, unit = found.groups()
        if unit == "s":
            if float(number) <= 0:
                raise AnalysisError("a budget in seconds must be more than 0")
            return cls(seconds=float(number))
        if "." in number or int(number) < 2:
            raise AnalysisError(f"budget {text!r}: a whole number of simulations, 2 or more")
        return cls(simulations=int(number))

    def __str__(self) -> str:
        return f"{self.seconds:g}s" if self.seconds is not None else str(self.simulations)


@dataclass(frozen=True)
class DecisionEntry:
    """One decision of the match as the analysis sees it (chances are the mover's, in [0, 1])."""

    decision: int  # its index among the match's decisions
    step: int  # its index among the record's steps (the viewer's position after it is step + 1)
    seat: int
    played: str  # the move made, as the record labels it
    best: str  # the move the search would have made
    before: float  # the mover's chance before the move (with the best move found)
    after: float  # the mover's chance after the move made
    moves: int  # legal moves it had
    simulations: int

    @property
    def drop(self) -> float:
        return self.before - self.after


@dataclass(frozen=True)
class TurningPoint:
    """A decision that cost its mover the most: what was played, what the search preferred, what it kept."""

    decision: int
    step: int
    seat: int
    played: str
    best: str
    drop: float  # the chance the move made lost
    kept: float  # the chance the better move would have kept (its value: `before`)


@dataclass
class Analysis:
    """The analysis of one match: an entry per decision, the chance curve of both seats, the turning points."""

    match: str  # the record's match id
    game: str
    options: dict[str, Any]
    budget: str
    seed: int
    seat_names: list[str]
    entries: list[DecisionEntry]
    result: list[float]  # each seat's final score: 1 win, 0.5 draw, 0 loss
    seconds: float = 0.0
    turning_points: list[TurningPoint] = field(default_factory=list)

    def curve(self) -> list[list[float]]:
        """Per seat: its chance before each decision, then its final score (the curve's last point)."""
        seat0 = [entry.before if entry.seat == 0 else 1.0 - entry.before for entry in self.entries]
        seat0.append(self.result[0])
        return [seat0, [1.0 - value for value in seat0]]

    def to_json(self) -> dict[str, Any]:
        return {"match": self.match, "game": self.game, "options": self.options, "budget": self.budget,
                "seed": self.seed, "seat_names": self.seat_names, "seconds": round(self.seconds, 3),
                "result": self.result, "curve": [[round(v, 4) for v in seat] for seat in self.curve()],
                "decisions": [{**asdict(entry), "before": round(entry.before, 4), "after": round(entry.after, 4),
                               "drop": round(entry.drop, 4)} for entry in self.entries],
                "turning_points": [{**asdict(point), "drop": round(point.drop, 4), "kept": round(point.kept, 4)}
                                   for point in self.turning_points]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        entries = [DecisionEntry(**{key: entry[key] for key in DecisionEntry.__dataclass_fields__})
                   for entry in data["decisions"]]
        points = [TurningPoint(**{key: point[key] for key in TurningPoint.__dataclass_fields__})
                  for point in data["turning_points"]]
        return cls(data["match"], data["game"], data["options"], data["budget"], data["seed"], data["seat_names"],
                   entries, data["result"], data.get("seconds", 0.0), points)

    def compressed(self) -> bytes:
        return gzip.compress(json.dumps(self.to_json(), separators=(",", ":")).encode(), mtime=0)

    @classmethod
    def from_compressed(cls, data: bytes) -> Analysis:
        return cls.from_json(json.loads(gzip.decompress(data)))


def analyse_record(record: MatchRecord, budget: Budget | str = DEFAULT_BUDGET, seed: int = 0,
                   on_progress: ProgressCallback | None = None) -> Analysis:
    """Analyse every decision of a finished record (checked by a replay first)."""
    budget = Budget.parse(budget) if isinstance(budget, str) else budget
    if record.result is None:
        raise AnalysisError("the record has no result: only a finished match can be analysed")
    game = game_of(record)
    if game.num_seats != 2:
        raise AnalysisError(f"{record.game} has {game.num_seats} seats: the analysis is for two-seat games")
    replay(record)  # the record is the engine's: every step legal, the result the one it reaches
    started = time.perf_counter()
    total = sum(1 for step in record.steps if not step.is_chance)
    entries: list[DecisionEntry] = []
    state = game.new_initial_state()
    for index, step in enumerate(record.steps):
        if not step.is_chance:
            entries.append(analyse_decision(game, state, step.action, budget, _decision_seed(seed, len(entries)),
                                            decision=len(entries), step=index))
            if on_progress is not None:
                on_progress(len(entries), total)
        state.apply_action(step.action)
    result = [_chance(value) for value in returns_from_ranking(record.result.ranking)]
    analysis = Analysis(record.match_id, record.game, dict(record.options), str(budget), seed,
                        list(game.info.seat_names), entries, result, time.perf_counter() - started)
    analysis.turning_points = turning_points(entries)
    return analysis


def analyse_decision(game: Game, state: State, played: int, budget: Budget, seed: int, *, decision: int = 0,
                     step: int = 0) -> DecisionEntry:
    """The mover's chances before and after `played` in `state`, searched from the mover's observation
    alone: nothing of `state` but what its mover sees (and the moves it may make) reaches the search."""
    seat = state.current_player()
    legal = state.legal_actions()
    request = DecisionRequest(seat, legal, state.observation(seat))
    searcher = MCTSAgent(iterations=budget.simulations, seconds=budget.seconds, keep_tree=False)
    searcher.reset(game, seat, seed)
    found = searcher.move_values(request, include=(played,))
    best = found.best
    before = _chance(found.values[best][0])
    after = before if played == best else _chance(found.values[played][0])
    return DecisionEntry(decision, step, seat, state.action_to_string(played), state.action_to_string(best),
                         before, after, len(legal), found.iterations)


def turning_points(entries: list[DecisionEntry], most: int = TURNING_POINTS,
                   least: float = TURNING_DROP) -> list[TurningPoint]:
    """The decisions whose move lost the most chance (at least `least`, at most `most`), in match order."""
    worst = sorted((entry for entry in entries if entry.drop >= least and entry.played != entry.best),
                   key=lambda entry: (-entry.drop, entry.decision))[:most]
    return [TurningPoint(entry.decision, entry.step, entry.seat, entry.played, entry.best, entry.drop, entry.before)
            for entry in sorted(worst, key=lambda entry: entry.decision)]


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int = 60) -> str:
    """A one-line chart of values in [0, 1] (averaged down to `width` characters)."""
    if not values:
        return ""
    buckets = max(1, min(width, len(values)))
    line = []
    for bucket in range(buckets):
        part = values[bucket * len(values) // buckets:(bucket + 1) * len(values) // buckets] or [values[-1]]
        mean = sum(part) / len(part)
        line.append(SPARKS[min(len(SPARKS) - 1, int(mean * len(SPARKS)))])
    return "".join(line)


def _chance(value: float) -> float:
    """A value in [-1, 1] (a search's, or a result's returns) as a chance (expected score) in [0, 1]."""
    return min(1.0, max(0.0, (value + 1.0) / 2.0))


def _decision_seed(seed: int, decision: int) -> int:
    return (seed * 1_000_003 + decision * 7919 + 0xA11A) % (2 ** 63)

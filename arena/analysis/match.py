"""Match analysis: where a match was won and lost.

At every decision of a record the mover's position is searched from what the mover could see: an
information-set MCTS (arena/agents/mcts.py) whose worlds are sampled from the mover's observation
(`Game.determinize`), never from the record's hidden truth. What a chance means: the mover's expected score
(a win 1, a draw 1/2) **if both sides played on like Arena's search** at this budget; beside it, the static
evaluation's chance (Arena's evaluation of the position, averaged over worlds the mover could be in), which
assumes nothing about how either side plays on and is the better guide against a weak opponent.

No chance is the best of several noisy estimates: the budget is split in two independent searches; the first
chooses the best move, the second values it and the move that was played (a double estimator: the value of
a move that was picked for looking good is not read from the estimate that picked it), each of the two on half
of its budget (`MCTSAgent.value_moves`): a search's value for a move depends on how far that move was searched,
and a move the search rates low, left with a few visits, was flattered (its refutation unfound), so both moves
rest on as many simulations whoever played them (a weak player's moves were flattered most). So "before" is
unbiased for the move the search would play, "after" for the move that was played, and each drop comes with
its standard error, from the second search's own simulations: the spread of the values each of the two moves'
simulations backed up (at least MIN_VARIANCE) over their visits (bench/analysis_quality.py's "noise" checks it
against the spread of drops over independent searches). A drop of CONFIRM_DROP or more is searched once more by
an independent search of the whole budget and the estimates pooled. A turning point is a drop of at least
TURNING_DROP that is also clear of that noise (at least CLEAR_SE standard errors), labelled "clear" (3 or more)
or "likely". A decision with one legal move is not searched: its chances are those of the position it leads to.
A search at this budget can rate a costly move about as well as the best one (its half-budget chooser picked it,
or the two are close in its few simulations), and then no drop shows. Asked for (`playouts`: `arena analyse
--playouts 32`, about three times the analysis' CPU in Major General, far more in General Orders, whose games
are longer), a second judge checks a match's candidate decisions: the move made against the greedy player's own
pick there (from the mover's view) and against the search's best, by paired playouts of
greedy players (arena/analysis/playouts.py), pair by pair from a world sampled from the mover's observation (never
the record's hidden truth). A move whose playouts cost it TURNING_DROP or more, clear of their noise by
PLAYOUT_CLEAR_SE standard errors, is a turning point "judged by playouts" where the search made it none. The
candidates: moves greedy would not have made, or that the search rates PLAYOUT_DROP under its best; at most
PLAYOUT_CHECKS a seat. The chances themselves (the curve, the sums) are the search's alone.
The search flatters whoever is to move (searched from its own view it also sees, in the worlds it samples, the
other side's cards); that optimism, measured per family and budget on matches of its own (arena/analysis/
measure_optimism.py; interpolated between the budgets measured, arena/analysis/calibration.py), is taken off
every chance, so the two sides' chances at one position add to 1 on average. A drop's standard error, from the
simulations' own spread, treats them as independent draws; a search's tree makes its later simulations follow its
earlier ones, and the real spread of a drop over independent searches differs from it (Major General 1.27 times at
400, Alpine 0.85 times at 100): measured per family and budget (arena/analysis/measure_noise.py), that scale
multiplies every standard error.
Whose turn it is the search takes into account where the family says how (its knowledge's `turn_values`: Major
General): its searches are turn-aware (arena/agents/mcts.py), their leaves valued with the turn to come credited
to the side that plays it, and the other side's reply (the first turn's start below the root) seeded with its
moves' values, so a short search ranks the likely replies, not the first it tried (the seed counts against the
simulation budget, about what it costs); the static chance is read the same way. Without
that, searched at the start of a turn, a shallow search credits the side on turn with the turn it plays better
than the reply the other side will make, and both sides' searches share that within the turn, so the sums above
miss it. `Analysis.turn_sums` measures it (from one turn's start to the next, bench/analysis_quality.py's
"turn_sum"); it is not taken off.
The same record, seed and simulation budget give the same analysis.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import re
import time
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable, Sequence

from arena.agents.base import DecisionRequest
from arena.agents.greedy import GreedyAgent
from arena.agents.knowledge import knowledge_for
from arena.agents.mcts import MCTSAgent, MoveValues
from arena.analysis.calibration import measured, noise_scale, optimism
from arena.analysis.players import PlayerForm, expected_chances, match_edge_sums, seat_edge
from arena.analysis.playouts import paired_cost
from arena.games.base import Game, State, points
from arena.games.registry import family_of
from arena.luck.measure import MatchLuck, measure_luck
from arena.referee.record import MatchRecord, decision_name
from arena.referee.replay import game_of, replay
from arena.referee.seeds import Search, derive_seed, search_seed

DEFAULT_BUDGET = "400"
TURNING_POINTS = 5  # at most this many turning points per match
TURNING_DROP = 0.08  # the least drop of the mover's chance that is a turning point
CLEAR_SE = 2.0  # ... and the least drop, in its standard errors, clear of the search's noise
CONFIRM_DROP = 0.05  # a drop this large is searched again by a whole-budget search, and the two pooled
STATIC_WORLDS = 8  # worlds the static evaluation's chance is averaged over
MIN_VARIANCE = 0.01  # the least variance of one simulation's value (in [-1, 1]) a standard error is built on
PLAYOUT_PAIRS = 32  # paired playouts per checked decision that `arena analyse --playouts` suggests (its help)
PLAYOUT_CHECKS = 6  # at most this many decisions of each seat checked by playouts per match
PLAYOUT_DROP = 0.03  # a decision whose played move the search rates this far under its best is a candidate
GREEDY_SAMPLES = 4  # worlds the greedy player's own pick at a candidate is averaged over
PLAYOUT_CLEAR_SE = CLEAR_SE  # the least cost, in its standard errors, a turning point judged by playouts has

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

    decision: int  # its index among the match's decisions (from 0: its decision number is decision + 1)
    step: int  # its index among the record's steps (from 0: its step number, the viewer's position after it, is
    # step + 1)
    seat: int
    played: str  # the move made, as the record labels it
    best: str  # the move the search would have made
    before: float  # the mover's chance before the move (the best move found, valued by an independent search)
    after: float  # the mover's chance after the move made
    moves: int  # legal moves it had
    simulations: int
    uncertainty: float = 0.0  # the standard error of the drop (before - after), in chance
    static: float | None = None  # the static evaluation's chance for the mover before the move
    forced: bool = False  # one legal move: not searched (its chances are the next position's)
    turn: bool = False  # it starts a turn (its position is at the family's lookahead boundary): its mover is on turn
    #: where checked by paired playouts (see the module's docstring): what the move cost its mover against
    #: `playout_best` (None: not checked), and that cost's standard error
    playout_cost: float | None = None
    playout_error: float = 0.0
    playout_best: str = ""

    @property
    def drop(self) -> float:
        return self.before - self.after

    @property
    def moment(self) -> str:
        """This decision named as the match's moments are everywhere: "decision 14 (step 28)"."""
        return decision_name(self.decision + 1, self.step + 1)


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
    uncertainty: float = 0.0  # the drop's standard error
    confidence: str = "likely"  # "clear" (3 standard errors or more) or "likely" (CLEAR_SE or more)
    judged_by: str = "search"  # what found it: the search's drop, or (where the search saw none) paired playouts

    @property
    def moment(self) -> str:
        """This decision named as the match's moments are everywhere: "decision 14 (step 28)"."""
        return decision_name(self.decision + 1, self.step + 1)


@dataclass(frozen=True)
class Slide:
    """How a seat lost ground with no turning point of its own: its chance from its first decision to the
    end, what its own moves cost in all (each too little to stand clear of the search's noise), and what
    the dice and draws gave it; the rest is the other side's play."""

    seat: int
    start: float  # its chance before its first decision
    end: float  # its final score
    own_moves: float  # its chance its own moves lost, summed (moves that gained count against it)
    costly_moves: int  # its moves that lost anything
    largest: float  # the most one of them lost
    luck: float | None  # what chance gave it (arena.luck), where measured

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "start": round(self.start, 4), "end": round(self.end, 4),
                "own_moves": round(self.own_moves, 4), "costly_moves": self.costly_moves,
                "largest": round(self.largest, 4), "luck": None if self.luck is None else round(self.luck, 4)}


SLIDE = 0.2  # a fall of a seat's chance this large, with no turning point of its own, is explained as a slide


@dataclass(frozen=True)
class Analysis:
    """The analysis of one match: an entry per decision, the chance curve of both seats, the turning points."""

    match: str  # the record's match id
    game: str
    options: dict[str, Any]
    budget: str
    seed: int
    seat_names: tuple[str, ...]
    entries: tuple[DecisionEntry, ...]
    result: tuple[float, ...]  # each seat's final points (arena.games.base.points: a win 1, a draw 1/2)
    turning_points: tuple[TurningPoint, ...] = ()
    #: what the dice and draws gave each seat over the match, and seat 0 at each chance event (arena.luck); an
    #: analysis read back from its JSON keeps those, not the model that measured them (read back: model "", beta 1)
    luck: MatchLuck | None = None
    seconds: float = 0.0
    #: each seat's form (arena.analysis.players: how its moves fared in its other analysed matches), where both
    #: are known: the chances as these players play (`expected`) are then given beside the search's
    players: tuple[PlayerForm, PlayerForm] | None = None
    playouts: int = 0  # paired playouts per decision checked by them (0: none checked)

    def expected(self) -> list[float] | None:
        """Per decision, the mover's expected score as these players play (None without both players' forms)."""
        if self.players is None:
            return None
        return expected_chances(self._decisions(), self.players)

    def seat_edge(self) -> float:
        """Seat 0's side's shift at the start from both players' edges in their seats (arena.analysis.players; 0
        where it is not clear, or the forms are not known)."""
        return 0.0 if self.players is None else seat_edge(self.players)

    def edge_sums(self, seat: int) -> tuple[float, float]:
        """This match as `seat`'s edge reads it (arena.analysis.players.EdgeSums): the seat's result against the
        chances as its players played by their drops alone; (0, 0), read as no match, where their forms were not
        known (the search's chances there miss the gap between their forms, which the edge would count again)."""
        if self.players is None:
            return 0.0, 0.0
        decisions = self._decisions()
        return match_edge_sums(decisions, expected_chances(decisions, self.players, edges=False), seat,
                               self.result[seat])

    def _decisions(self) -> list[tuple[int, float, bool]]:
        return [(entry.seat, entry.before, entry.forced) for entry in self.entries]

    def searched_drops(self, seat: int) -> list[float]:
        """What each of a seat's searched decisions lost (its forced ones, not searched, left out)."""
        return [entry.drop for entry in self.entries if entry.seat == seat and not entry.forced]

    def curve(self) -> list[list[float]]:
        """Per seat: its chance before each decision, then its final score (the curve's last point)."""
        seat0 = [entry.before if entry.seat == 0 else 1.0 - entry.before for entry in self.entries]
        seat0.append(self.result[0])
        return [seat0, [1.0 - value for value in seat0]]

    def slides(self) -> list[Slide]:
        """The seats whose chance fell by SLIDE or more with no turning point of theirs: how they lost."""
        found = []
        marked = {point.seat for point in self.turning_points}
        for seat, values in enumerate(self.curve()):
            drops = self.searched_drops(seat)
            if seat in marked or not drops or values[0] - values[-1] < SLIDE:
                continue
            luck = self.luck.seats[seat] if self.luck is not None and seat < len(self.luck.seats) else None
            found.append(Slide(seat, values[0], values[-1], sum(drops), sum(1 for drop in drops if drop > 0),
                               max(drops), luck))
        return found

    def closer_budget(self) -> str:
        """A budget five times this one's: its searches' noise about half, so smaller mistakes stand clear."""
        budget = Budget.parse(self.budget)
        return f"{5 * budget.seconds:g}s" if budget.seconds is not None else str(5 * (budget.simulations or 0))

    def position_sums(self) -> list[float]:
        """Where one seat's searched decision hands the position straight to the other's (no chance step, no
        forced move between), the first's "after" plus the second's "before": two estimates of one position
        from both sides, which add to 1 when neither side is flattered (arena/analysis/measure_optimism.py)."""
        return [first.after + second.before for first, second in zip(self.entries, self.entries[1:])
                if not first.forced and not second.forced and first.seat != second.seat
                and second.step == first.step + 1]

    def turn_sums(self) -> list[float]:
        """From one seat's searched turn start to the other seat's next one (the decisions between, by either,
        and chance steps may come between): the first's "after", less what the first seat's moves between lost
        and plus what the other's lost, plus the second's "before": both sides' estimates each on its own turn,
        which add to 1 (to 1 - 2 * optimism once calibrated) when the side on turn is not flattered."""
        starts = [index for index, entry in enumerate(self.entries) if entry.turn and not entry.forced]
        sums = []
        for first, second in zip(starts, starts[1:]):
            opening, closing = self.entries[first], self.entries[second]
            if opening.seat == closing.seat:
                continue
            between = [entry for entry in self.entries[first + 1:second] if not entry.forced]
            lost = sum(entry.drop if entry.seat == opening.seat else -entry.drop for entry in between)
            sums.append(opening.after - lost + closing.before)
        return sums

    def to_json(self, timings: bool = True) -> dict[str, Any]:
        """The analysis as JSON; without `timings`, nothing in it depends on the machine or the moment (the same
        record, seed and budget give the same document)."""
        expected: Sequence[float | None] = self.expected() or [None] * len(self.entries)
        document = {"match": self.match, "game": self.game, "options": self.options, "budget": self.budget,
                    "seed": self.seed, "seat_names": self.seat_names,
                    "meaning": "each chance is the mover's expected score if both sides played on like Arena's "
                               "search at this budget; 'static' is Arena's evaluation of the position instead; "
                               "'expected', where both players' forms are known, is the mover's expected score "
                               "as these players play (their moves' mean drop in their other analysed matches, "
                               "and 'seat_edge': what seat 0's side's results beat its chances by at a match's "
                               "start, each player's in the seat it holds, where that is clear)",
                    "result": self.result, "curve": _rounded_curve(self.curve()),
                    "players": None if self.players is None else [form.to_json() for form in self.players],
                    "seat_edge": None if self.players is None else round(self.seat_edge(), 4),
                    "decisions": [_decision_json(entry, chance) for entry, chance in zip(self.entries, expected)],
                    "turning_points": [_turning_point_json(point) for point in self.turning_points],
                    "slides": [slide.to_json() for slide in self.slides()], "closer_budget": self.closer_budget(),
                    "luck": _luck_json(self.luck), "playouts": self.playouts}
        if timings:
            document["seconds"] = round(self.seconds, 3)
        return document

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Analysis:
        """Inverse of `to_json` (an analysis stored before some fields existed reads them as their defaults)."""
        luck = data.get("luck")
        return cls(match=data["match"], game=data["game"], options=data["options"], budget=data["budget"],
                   seed=data["seed"], seat_names=tuple(data["seat_names"]),
                   entries=tuple(_known(DecisionEntry, entry) for entry in data["decisions"]),
                   result=tuple(data["result"]),
                   turning_points=tuple(_known(TurningPoint, point) for point in data["turning_points"]),
                   luck=None if not luck else MatchLuck("", 1.0, tuple((int(n), float(value))
                                                                       for n, value in luck.get("events", [])),
                                                        tuple(luck["seats"])),
                   seconds=data.get("seconds", 0.0), playouts=int(data.get("playouts", 0)),
                   players=None if not data.get("players") else (PlayerForm.from_json(data["players"][0]),
                                                                  PlayerForm.from_json(data["players"][1])))

    def compressed(self) -> bytes:
        return gzip.compress(json.dumps(self.to_json(), separators=(",", ":")).encode(), mtime=0)

    @classmethod
    def from_compressed(cls, data: bytes) -> Analysis:
        return cls.from_json(json.loads(gzip.decompress(data)))


def _decision_json(entry: DecisionEntry, expected: float | None) -> dict[str, Any]:
    """One decision of an analysis' JSON, its chances to 4 places; `expected`: as the players play, if known."""
    return {**asdict(entry), "before": round(entry.before, 4), "after": round(entry.after, 4),
            "drop": round(entry.drop, 4), "uncertainty": round(entry.uncertainty, 4),
            "static": _rounded(entry.static), "expected": _rounded(expected), "moment": entry.moment,
            "playout_cost": _rounded(entry.playout_cost), "playout_error": round(entry.playout_error, 4)}


def _rounded_curve(curve: list[list[float]]) -> list[list[float]]:
    """Each seat's curve (Analysis.curve) to 4 places."""
    return [[round(value, 4) for value in seat] for seat in curve]


def _turning_point_json(point: TurningPoint) -> dict[str, Any]:
    """One turning point of an analysis' JSON, its chances to 4 places."""
    return {**asdict(point), "drop": round(point.drop, 4), "kept": round(point.kept, 4),
            "uncertainty": round(point.uncertainty, 4), "moment": point.moment}


def _luck_json(luck: MatchLuck | None) -> dict[str, Any] | None:
    """What the dice and draws gave each seat and seat 0 at each chance event, to 4 places (None: not measured)."""
    if luck is None:
        return None
    return {"seats": [round(value, 4) for value in luck.seats],
            "events": [[n, round(value, 4)] for n, value in luck.events]}


def _rounded(chance: float | None) -> float | None:
    return None if chance is None else round(chance, 4)


def analyse_record(record: MatchRecord, budget: Budget | str = DEFAULT_BUDGET, seed: int = 0,
                   on_progress: ProgressCallback | None = None, calibrated: bool = True,
                   playouts: int = 0) -> Analysis:
    """Analyse every decision of a finished record (checked by a replay first); `calibrated`: the search's
    optimism in this family at this budget (arena/analysis/calibration.py) taken off every chance, and each drop's
    standard error scaled to the size of its real noise there; `playouts`:
    the candidate decisions also checked by this many paired playouts each (0: not checked; see the module's
    docstring)."""
    budget = Budget.parse(budget) if isinstance(budget, str) else budget
    if record.result is None:
        raise AnalysisError("the record has no result: only a finished match can be analysed")
    game = game_of(record)
    if game.num_seats != 2:
        raise AnalysisError(f"{record.game} has {game.num_seats} seats: the analysis is for two-seat games")
    replay(record)  # the record is the engine's: every step legal, the result the one it reaches
    started = time.perf_counter()
    shift, noise = calibration_at(family_of(game.name).name, budget, game.name) if calibrated else (0.0, (1.0, 1.0))
    searched, chance_after = _searched(game, record, budget, seed, on_progress, noise)
    if playouts:
        searched = _played_out(game, record, searched, playouts, seed)
    ranking = record.result.ranking
    result = tuple(points(ranking[seat] < ranking[1 - seat], ranking[seat] == ranking[1 - seat]) for seat in (0, 1))
    if shift:  # (a drop, a difference of one mover's chances, is unchanged)
        searched = [entry if entry.forced else replace(entry, before=_clamped(entry.before - shift),
                                                       after=_clamped(entry.after - shift)) for entry in searched]
    entries = _fill_forced(searched, chance_after, list(result))
    return Analysis(match=record.match_id, game=record.game, options=dict(record.options), budget=str(budget),
                    seed=seed, seat_names=tuple(game.info.seat_names), entries=tuple(entries), result=result,
                    turning_points=tuple(turning_points(entries)),
                    luck=measure_luck(record, game),  # luck beside skill: what the dice and draws gave each seat
                    seconds=time.perf_counter() - started, playouts=playouts)


def calibration_at(family: str, budget: Budget, mode: str) -> tuple[float, tuple[float, float]]:
    """The search's optimism at this budget, and what the standard errors of the analysis' judge and of a
    confirming judge (a whole budget's: as the judge of an analysis at twice the budget) are multiplied by, so
    each is the size of the real noise (arena/analysis/calibration.py)."""
    simulations = budget.simulations
    table = measured()  # (read once for the three figures)
    return optimism(family, simulations, mode, table), (
        noise_scale(family, simulations, mode, table),
        noise_scale(family, None if simulations is None else 2 * simulations, mode, table))


def _searched(game: Game, record: MatchRecord, budget: Budget, seed: int, on_progress: ProgressCallback | None,
              noise: tuple[float, float]) -> tuple[list[DecisionEntry], list[bool]]:
    """Each decision of the record searched (a candidate turning point confirmed; `noise`: the scales of the
    judge's and of the confirming judge's standard errors), and per decision whether a chance step came before
    the next one."""
    total = sum(1 for step in record.steps if not step.is_chance)
    entries: list[DecisionEntry] = []
    state = game.new_initial_state()
    chance_after: list[bool] = []
    for index, step in enumerate(record.steps):
        if not step.is_chance:
            entry = analyse_decision(game, state, step.action, budget, seed, decision=len(entries), step=index,
                                     noise=noise[0])
            if not entry.forced and entry.played != entry.best and entry.drop >= CONFIRM_DROP:
                entry = _confirmed(game, state, entry, step.action, budget, seed, noise[1])
            entries.append(entry)
            chance_after.append(False)
            if on_progress is not None:
                on_progress(len(entries), total)
        elif chance_after:
            chance_after[-1] = True
        state.apply_action(step.action)
    return entries, chance_after


def analyse_decision(game: Game, state: State, played: int, budget: Budget, seed: int, *, decision: int = 0,
                     step: int = 0, noise: float = 1.0) -> DecisionEntry:
    """The mover's chances before and after `played` in `state`, searched from the mover's observation
    alone: nothing of `state` but what its mover sees (and the moves it may make) reaches the search. Two
    independent searches of half the budget each: the first picks the best move, the second values it and
    the move played, a quarter of the budget each (see the module's docstring); each seeded from the analysis'
    `seed` and the decision's index (arena.referee.seeds.search_seed); the drop's standard error times `noise`.
    One legal move: no search (filled in by analyse_record)."""
    seat = state.current_player()
    legal = state.legal_actions()
    label = state.action_to_string(played)
    observation = state.observation(seat)
    static = _static_chance(game, observation, seat, search_seed(seed, decision, Search.STATIC))
    boundary = knowledge_for(game).is_lookahead_boundary
    turn = boundary is not None and boundary(state)  # (whose turn it is: seen by both sides)
    if len(legal) == 1:
        return DecisionEntry(decision, step, seat, label, label, math.nan, math.nan, 1, 0, 0.0, static, True, turn)
    half = _half(budget)
    chooser = MCTSAgent(iterations=half.simulations, seconds=half.seconds, keep_tree=False, turn_aware=True)
    chooser.reset(game, seat, search_seed(seed, decision, Search.CHOOSE))
    best = chooser.move_values(DecisionRequest(seat, legal, observation), include=(played,)).best
    before, after, uncertainty, judged = _judged(game, seat, legal, observation, played, best, half,
                                                 search_seed(seed, decision, Search.JUDGE))
    return DecisionEntry(decision, step, seat, label, state.action_to_string(best), before, after, len(legal),
                         chooser.last_iterations + judged, uncertainty * noise, static, turn=turn)


def _judged(game: Game, seat: int, legal: list[int], observation: Any, played: int, best: int, budget: Budget,
            seed: int) -> tuple[float, float, float, int]:
    """An independent search valuing `best` and `played` for `seat`: (before, after, the drop's standard error,
    iterations run), from its simulations alone: the greedy lookahead's prior that guides it is left out of the
    values, for the chooser's search had the same prior (where there is nothing hidden, the very same), and a
    move it picked for a high prior would keep that luck; the same move played as the best one drops nothing.
    Each of the two moves is valued by half of `budget` of its own, so the move played rests on as many
    simulations as the best one however bad it is (a search's value for a move depends on how far it was
    searched: one left with the few visits a search gives a move it rates low was flattered where its refutation
    went unfound, and more so the worse the move); the same move played as the best is valued by that half
    alone."""
    each = _half(budget)
    judge = MCTSAgent(iterations=each.simulations, seconds=each.seconds, keep_tree=False, turn_aware=True)
    judge.reset(game, seat, seed)
    valued = judge.value_moves(DecisionRequest(seat, legal, observation), (best, played), each.simulations,
                               each.seconds)
    value_best, visits_best = valued.simulated[best]
    if played == best:
        return _chance(value_best), _chance(value_best), 0.0, judge.last_iterations
    value_played, visits_played = valued.simulated[played]
    error = math.sqrt(_variance(valued, best) / visits_best + _variance(valued, played) / visits_played) / 2
    return _chance(value_best), _chance(value_played), error, judge.last_iterations


def _clamped(value: float) -> float:
    return min(1.0, max(0.0, value))


def _confirmed(game: Game, state: State, entry: DecisionEntry, played: int, budget: Budget, seed: int,
               noise: float) -> DecisionEntry:
    """A candidate turning point valued again by an independent search of the whole budget (the same two
    moves: the best found and the one played; its standard error times `noise`) and the two estimates pooled by
    their variances, so a drop that was the first search's noise shrinks and one that holds gets surer."""
    seat = entry.seat
    legal = state.legal_actions()
    best = action_labelled(state, entry.best)
    if best is None:
        return entry
    before, after, error, judged = _judged(game, seat, legal, state.observation(seat), played, best, budget,
                                           search_seed(seed, entry.decision, Search.CONFIRM))
    before, after, error = pooled((entry.before, entry.after, entry.uncertainty), (before, after, error * noise))
    return replace(entry, before=before, after=after, uncertainty=error, simulations=entry.simulations + judged)


def pooled(first: tuple[float, float, float], second: tuple[float, float, float]) -> tuple[float, float, float]:
    """Two independent estimates of (before, after, the drop's standard error) pooled by their variances."""
    one = 1.0 / max(first[2], 1e-6) ** 2
    two = 1.0 / max(second[2], 1e-6) ** 2
    return ((first[0] * one + second[0] * two) / (one + two), (first[1] * one + second[1] * two) / (one + two),
            1.0 / math.sqrt(one + two))


def _played_out(game: Game, record: MatchRecord, entries: list[DecisionEntry], pairs: int,
                seed: int) -> list[DecisionEntry]:
    """The entries with their candidate decisions (`_candidates`) checked by paired playouts: at most
    PLAYOUT_CHECKS of each seat, those greedy would not have played first, then by the search's drop."""
    found = _candidates(game, record, entries, seed)
    checked = list(entries)
    for seat in (0, 1):
        mine = [entry for entry in entries if entry.seat == seat and entry.decision in found]
        mine.sort(key=lambda entry: (found[entry.decision][1] == record.steps[entry.step].action, -entry.drop,
                                     entry.decision))
        for entry in mine[:PLAYOUT_CHECKS]:
            state, pick = found[entry.decision]
            checked[entry.decision] = _playout_check(game, state, entry, record.steps[entry.step].action, pick,
                                                     pairs, search_seed(seed, entry.decision, Search.PLAYOUTS))
    return checked


def _candidates(game: Game, record: MatchRecord, entries: list[DecisionEntry],
                seed: int) -> dict[int, tuple[State, int]]:
    """By decision: the position and the greedy player's pick there (from the mover's view), where the move made is
    not that pick, or the search rates it PLAYOUT_DROP or more under its best, and the search has not already
    made it a turning point."""
    by_step = {entry.step: entry for entry in entries if not entry.forced and not _by_search(entry, TURNING_DROP)}
    found: dict[int, tuple[State, int]] = {}
    state = game.new_initial_state()
    for index, step in enumerate(record.steps):
        entry = by_step.get(index)
        if entry is not None:
            picker = GreedyAgent(samples=GREEDY_SAMPLES)
            picker.reset(game, entry.seat, derive_seed(search_seed(seed, entry.decision, Search.PLAYOUTS), 0))
            pick = picker.act(DecisionRequest(entry.seat, state.legal_actions(), state.observation(entry.seat)))
            if pick != step.action or (entry.played != entry.best and entry.drop >= PLAYOUT_DROP):
                found[entry.decision] = (state.clone(), pick)
        state.apply_action(step.action)
    return found


def _playout_check(game: Game, state: State, entry: DecisionEntry, played: int, pick: int, pairs: int,
                   seed: int) -> DecisionEntry:
    """One decision checked: the move played against the greedy player's pick there and against the search's best,
    each by `pairs` paired playouts (fewer where the first ones show it cannot be a turning point), pair i from the
    i-th world sampled from the mover's observation (the same worlds and seeds for both); the one it most clearly
    lost to is kept."""
    observation = state.observation(entry.seat)
    rng = random.Random(derive_seed(seed, 1))
    worlds: list[State] = []

    def position(index: int) -> State:
        while len(worlds) <= index:
            worlds.append(game.determinize(observation, rng))
        return worlds[index]

    labelled = action_labelled(state, entry.best)
    best = played if labelled is None else labelled
    found: list[tuple[float, float, int]] = []
    for better in dict.fromkeys((pick, best)):
        if better != played:
            cost, error, _ = paired_cost(game, position, entry.seat, played, better, pairs, derive_seed(seed, 2),
                                         give_up=_cannot_turn)
            found.append((cost, error, better))
    if not found:
        return entry
    cost, error, better = max(found, key=lambda one: (one[0] - PLAYOUT_CLEAR_SE * one[1], -one[2]))
    return replace(entry, playout_cost=cost, playout_error=error, playout_best=state.action_to_string(better))


def _cannot_turn(cost: float, error: float) -> bool:
    """A check's pairs so far say: even its cost plus PLAYOUT_CLEAR_SE standard errors is under a turning point's
    drop."""
    return cost + PLAYOUT_CLEAR_SE * error < TURNING_DROP


def action_labelled(state: State, label: str) -> int | None:
    """The legal action of `state` that is labelled `label` (an entry's `played` or `best`), or None."""
    return next((action for action in state.legal_actions() if state.action_to_string(action) == label), None)


def _half(budget: Budget) -> Budget:
    if budget.seconds is not None:
        return Budget(seconds=budget.seconds / 2)
    assert budget.simulations is not None
    return Budget(simulations=max(1, budget.simulations // 2))


def _variance(valued: MoveValues, action: int) -> float:
    """The variance of one simulation's value (in [-1, 1]) of `action`: the spread of the values its own
    simulations backed up, at least MIN_VARIANCE (a move whose few simulations happened to agree still has
    some noise)."""
    return max(MIN_VARIANCE, valued.variances.get(action, 1.0))


def _static_chance(game: Game, observation: Any, seat: int, seed: int) -> float:
    """Arena's static evaluation of the position for `seat`, as a chance, averaged over worlds the seat could
    be in (never the record's hidden truth)."""
    rng = random.Random(seed)
    values = knowledge_for(game).turn_aware().values  # (the turn about to be played is the mover's)
    worlds = STATIC_WORLDS if game.info.has_hidden_information else 1
    total = 0.0
    for _ in range(worlds):
        world = game.determinize(observation, rng)
        total += world.returns()[seat] if world.is_terminal() else values(world)[seat]
    return _chance(total / worlds)


def _fill_forced(entries: list[DecisionEntry], chance_after: list[bool], result: list[float]) -> list[DecisionEntry]:
    """A forced decision's chances are those of the position it leads to: the next searched decision's
    `before` seen from this mover's side (or, with a chance step or the end between, the result or the last
    known value), so the curve has one value per position and a forced move never drops."""
    filled = list(entries)
    following: float | None = None  # seat 0's chance at the next searched position
    for index in range(len(filled) - 1, -1, -1):
        entry = filled[index]
        if not entry.forced:
            following = entry.before if entry.seat == 0 else 1.0 - entry.before
            continue
        seat0 = following if following is not None else result[0]
        value = seat0 if entry.seat == 0 else 1.0 - seat0
        filled[index] = replace(entry, before=value, after=value)
    return filled


def turning_points(entries: list[DecisionEntry], most: int = TURNING_POINTS,
                   least: float = TURNING_DROP) -> list[TurningPoint]:
    """The decisions whose move lost the most chance (at least `least`, clear of the noise by CLEAR_SE standard
    errors: by the search's drop, or where the search saw none by the playouts' cost; at most `most`), in match
    order, each labelled by how clear it is."""
    found = [point for point in (_turning_point(entry, least) for entry in entries) if point is not None]
    worst = sorted(found, key=lambda point: (-point.drop, point.decision))[:most]
    return sorted(worst, key=lambda point: point.decision)


def _by_search(entry: DecisionEntry, least: float) -> bool:
    """The search's drop makes it a turning point: `least` or more, clear of its noise."""
    return (not entry.forced and entry.played != entry.best and entry.drop >= least
            and entry.drop >= CLEAR_SE * entry.uncertainty)


def _turning_point(entry: DecisionEntry, least: float) -> TurningPoint | None:
    """The entry as a turning point, by the search's drop or else by the playouts' cost; None if neither."""
    if _by_search(entry, least):
        drop, best, kept, error, judged_by = entry.drop, entry.best, entry.before, entry.uncertainty, "search"
    elif entry.playout_cost is not None and entry.playout_cost >= least \
            and entry.playout_cost >= PLAYOUT_CLEAR_SE * entry.playout_error:
        drop, best, error, judged_by = entry.playout_cost, entry.playout_best, entry.playout_error, "playouts"
        kept = _clamped(entry.after + drop)
    else:
        return None
    return TurningPoint(entry.decision, entry.step, entry.seat, entry.played, best, drop, kept, error,
                        "clear" if drop >= 3 * error else "likely", judged_by)


def _chance(value: float) -> float:
    """A value in [-1, 1] (a search's, or a result's returns) as a chance (expected score) in [0, 1]."""
    return min(1.0, max(0.0, (value + 1.0) / 2.0))



def _known(kind: Any, data: dict[str, Any]) -> Any:
    """A DecisionEntry or TurningPoint from its JSON (fields it has no key for keep their defaults)."""
    return kind(**{key: data[key] for key in kind.__dataclass_fields__ if key in data})

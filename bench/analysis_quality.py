#!/usr/bin/env python3
"""How far the analysis can be trusted: calibration, bias, consistency, planted blunders and seed stability.

    python bench/analysis_quality.py [--matches 8] [--budget 400] [--game NAME ...] [--playouts 16]
        [--playout-noise 0.1] [--first-games 40] [--first-analysed 6] [--budgets 100,400] [--skip-settings]
        [--analysis-playouts 32] [--smoke] [--json]

On recorded matches between built-in players, equal (greedy against greedy) and unequal (greedy against
random), in each game (default: Major General and WWII Alpine), every match analysed at --budget, and one
more player, "blunderer": greedy, but at three known decisions of each match (with 3 or more legal moves)
the move greedy's lookahead likes least. Printed, in one run:
- brier: the mean squared error of "before" against the mover's result, beside the static evaluation's
  and the seat's base rate (the mean result of the mover's seat in the sample); goal on unequal matches: no
  worse than the static evaluation's;
- bias: the mean of "before" less the mover's result (goal: within +-0.01);
- players_model: the chances as the two players play (arena.analysis.players: "expected", each side going on
  losing what its moves lost on average, its form measured on the setting's other matches, never this one, and
  each seat's edge, what its player's results beat its chances by there, where it is clear), their Brier and
  bias against the results (goals: Brier no worse than the better of the search's and the static
  evaluation's, bias within +-0.015, in both settings), and each player's form and edge in each seat (null
  where it was not measured: fewer of the player's matches in that seat than an edge needs, as at the default
  --matches);
- per_budget (with --budgets 100,400): the same matches analysed at each budget, bias and sum with their 95%
  intervals and the turning points per match (goals: bias within +-0.015, sum within 1 +- 0.01 at each);
- sum: where one seat's decision is followed by the other's with no chance step between, "after" of the first
  plus "before" of the second (two estimates of one position from both sides; goal: within 1 +- 0.01);
- per_budget's turn_sum: from one seat's turn start to the other's next (Analysis.turn_sums: drops between
  accounted, chance steps allowed), "after" plus "before": its excess over 1 is twice what the search flatters the
  side on turn beyond the optimism (not taken off yet; in Major General it is what puts the first position out);
- planted: of the planted blunders whose drop (as analysed) is at least 0.10, the share found as turning
  points ("recall": circular, the analysis judging its own drops; goal 95%), and of the blunderer's turning
  points, the share that are planted ("precision"; goal 80%);
- planted, against an outside truth: each planted blunder and the move greedy liked most there, each played on
  by --playouts paired playouts (greedy against greedy from the true position, each playing a random move with
  probability --playout-noise; one seed per pair for the chance and the players: common random numbers); the
  blunder is costly when its mean cost is COSTLY or more and Z standard errors clear of zero. "recall_vs_playouts": the share of the costly ones found as turning points (Wilson 95% interval;
  with --analysis-playouts PAIRS the planted matches are analysed as `arena analyse --playouts PAIRS` does, and
  each mistake says what found it, `found_by`: the search or the analysis' own playouts, from the mover's view;
  goal 90%); "recall_vs_playouts_by_search": the share found by the search's own drops, what `arena analyse`
  finds without --playouts (the same as "recall_vs_playouts" without --analysis-playouts); "precision_vs_playouts":
  of the blunderer's turning points, the share whose move the same playouts (against the analysis' best move) find
  costly; "missed_drops": the analysed drops of the costly ones missed;
- noise: a drop's standard error against its real noise: the same two moves valued by NOISE_SEEDS independent
  searches at decisions of --noise-matches matches; "spread_over_error" 1 means the standard errors the analysis
  states (scaled by calibration.json's "noise_scale") are the noise's size (less: they overstate it; more: noise
  would pass for mistakes); "raw_spread_over_error", the same before the scale; "confirmed_spread_over_error",
  the same for a drop the analysis confirms (its judge and an independent search of the whole budget, each error
  scaled at its own budget, pooled: what a turning point's error is);
- first_position: the analysis' chance for the first mover at the first decision with 2+ moves (mean over
  --first-analysed games, calibrated as `arena analyse` is, each game's searches seeded apart) against the first
  movers' score over --first-games games of greedy against greedy (normal 95% intervals of both, and of their
  difference; goal: within 0.05); beside it the chance after the move greedy played there (`analysis_after`,
  `after_difference`): the chance before is the position's under the search's best move, and a first move that
  costs greedy a few hundredths shows as the gap between the two;
- continuity: where one seat decides twice running with no chance between, "after" of the first decision less
  "before" of the second (one position searched twice by one seat; goal 0), in the first EARLY decisions and
  later (early optimism at the first decisions shows here, where the sum, both sides sharing it, may not);
- jaccard: the same matches analysed with two seeds, the overlap of their turning points (matches where
  either has one; goal on close matches, 0.8);
- anchor: brier, bias and sum of the analysis as it was before (one search of the whole budget valuing the
  move it picked, no calibration), on the same records in the same run.

The optimism taken off every chance (arena/analysis/calibration.json) was measured by
`python -m arena.analysis.measure_optimism` on matches of its own: --seed here draws others.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from dataclasses import replace
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import GreedyAgent, make_agent  # noqa: E402
from arena.agents.base import DecisionRequest  # noqa: E402
from arena.analysis import Analysis, Budget, analyse_record  # noqa: E402
from arena.analysis.calibration import noise_scale, optimism  # noqa: E402
from arena.analysis.match import action_labelled, analyse_decision, calibration_at, pooled  # noqa: E402
from arena.analysis.measure_noise import (  # noqa: E402
    NOISE_SEEDS,
    drop_noise_by_judges,
    single_judge,
    spread_over_error,
)
from arena.analysis.players import PlayerForm, form_of  # noqa: E402
from arena.analysis.playouts import NOISE, paired_cost  # noqa: E402
from arena.games.base import points  # noqa: E402
from arena.games.registry import family_of, load_game  # noqa: E402
from arena.ratings.stats import mean_interval, wilson_interval  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402
from arena.referee.record import MatchRecord  # noqa: E402
from arena.referee.seeds import derive_seed  # noqa: E402

GAMES = ("major-general", "general-orders-wwii/alpine")
PLANTED = 3  # blunders per match
PLAYOUTS = 16  # paired playouts judging each planted blunder (and each of the blunderer's turning points)
COSTLY = 0.10  # a move is costly when the playouts find it costs its mover this much expected score or more ...
Z = 1.96  # ... and that cost is this many standard errors clear of zero
FIRST_GAMES = 40  # greedy against greedy games measuring the first movers' score, per game
FIRST_ANALYSED = 6  # of which the first decision is analysed
EARLY = 6  # the continuity figure's "early": the match's first this many decisions
NOISE_MATCHES = 2  # matches whose decisions check the standard errors against independent searches
SMOKE = ["--matches", "1", "--budget", "10", "--playouts", "2", "--first-games", "2", "--first-analysed", "2",
         "--budgets", "10,12", "--noise-matches", "1", "--analysis-playouts", "1"]


class Blunderer(GreedyAgent):
    """Greedy, but at its planted decisions (counted from 0 among those with 3+ moves) the worst move."""

    name = "blunderer"

    def __init__(self, planted: set[int]) -> None:
        super().__init__()
        self.planted = planted
        self.count = 0
        self.blunders: list[int] = []  # its decisions' indices among the match's decisions where it blundered
        self.better: dict[int, int] = {}  # per blunder (its index among its counted decisions): the move its
        # lookahead liked most there (what greedy would have played, ties to the least action), no draw of its rng
        self.decision_index = -1

    def act(self, request: DecisionRequest) -> int:
        legal = request.legal_actions
        if len(legal) < 3:
            return super().act(request)
        self.count += 1
        if self.count - 1 not in self.planted:
            return super().act(request)
        world = self.game.determinize(request.observation, self.rng)
        values = self.action_values(world, request.seat, legal)
        worst = min(values, key=lambda action: (values[action], action))
        self.blunders.append(self.count - 1)
        self.better[self.count - 1] = max(values, key=lambda action: (values[action], -action))
        return worst


def _decision_index_of_planted(record: MatchRecord, seat: int, planted: set[int]) -> dict[int, int]:
    """The match-wide decision indices of the seat's planted decisions (its decisions with 3+ legal moves), each
    by its index among the seat's counted decisions."""
    game = load_game(record.game, record.options)
    state = game.new_initial_state()
    found, decision, counted = {}, 0, 0
    for step in record.steps:
        if not step.is_chance:
            if state.current_player() == seat and len(state.legal_actions()) >= 3:
                if counted in planted:
                    found[counted] = decision
                counted += 1
            decision += 1
        state.apply_action(step.action)
    return found


def _entries_with_results(analysis: Analysis) -> list[tuple[Any, float]]:
    return [(entry, analysis.result[entry.seat]) for entry in analysis.entries if not entry.forced]


def single_search_decision(game: Any, state: Any, played: int, budget: Budget, seed: int, *, decision: int = 0,
                           step: int = 0, noise: float = 1.0) -> Any:
    """The anchor: the analysis as it was before (one search of the whole budget; "before" is the value of the
    move it would play, read from the same search that picked it; forced moves searched too; no standard error,
    so `noise` scales nothing)."""
    from arena.agents import MCTSAgent
    from arena.analysis.match import DecisionEntry, _chance
    from arena.referee.seeds import Search, search_seed

    seat = state.current_player()
    legal = state.legal_actions()
    searcher = MCTSAgent(iterations=budget.simulations, seconds=budget.seconds, keep_tree=False)
    searcher.reset(game, seat, search_seed(seed, decision, Search.CHOOSE))
    found = searcher.move_values(DecisionRequest(seat, legal, state.observation(seat)), include=(played,))
    before = _chance(found.values[found.best][0])
    after = before if played == found.best else _chance(found.values[played][0])
    return DecisionEntry(decision, step, seat, state.action_to_string(played), state.action_to_string(found.best),
                         before, after, len(legal), found.iterations)


def _anchor(record: MatchRecord, budget: Budget) -> Analysis:
    import arena.analysis.match as match

    current = match.analyse_decision
    match.analyse_decision = single_search_decision  # type: ignore[assignment]
    try:
        return analyse_record(record, budget, seed=0, calibrated=False)
    finally:
        match.analyse_decision = current  # type: ignore[assignment]


def _state_at(game: Any, record: MatchRecord, step: int) -> Any:
    """The true state before the record's `step` (an index among its steps)."""
    state = game.new_initial_state()
    for played in record.steps[:step]:
        state.apply_action(played.action)
    return state


class Playouts(NamedTuple):
    """How moves are judged by playouts: pairs per move, and the players' chance of a random move."""

    pairs: int = PLAYOUTS
    noise: float = NOISE


def judged_cost(game: Any, state: Any, seat: int, worse: int, better: int, pairs: int, seed: int,
                noise: float) -> tuple[float, float]:
    """What playing `worse` rather than `better` at the true `state` costs `seat` by `pairs` paired playouts
    (arena.analysis.playouts): (the mean difference, its standard error)."""
    cost, error, _ = paired_cost(game, lambda _: state, seat, worse, better, pairs, seed, noise)
    return cost, error


def is_costly(cost: float, error: float) -> bool:
    """Costly by the playouts: a mean cost of COSTLY or more, and clear of zero (Z standard errors)."""
    return cost >= COSTLY and cost - Z * error > 0


def _rate(hits: int, trials: int) -> dict[str, Any]:
    low, high = wilson_interval(hits, trials)
    return {"hits": hits, "of": trials, "rate": round(hits / trials, 3) if trials else None,
            "low": round(low, 3), "high": round(high, 3)}


def _planted(game: Any, rng: random.Random, matches: int, budget: Budget, playouts: Playouts,
             checked: int = 0) -> dict[str, Any]:
    """The planted blunders: recall and precision as the analysis' own drops judge them (the old, circular
    figures), and against paired playouts of the planted move and greedy's own (recall) and of each turning
    point's move and the analysis' best (precision)."""
    found = costly = flagged = planted_flags = 0
    mistakes: list[dict[str, Any]] = []
    points_judged: list[bool] = []
    for index in range(matches):
        planted = set(rng.sample(range(12), PLANTED))
        blunderer = Blunderer(planted)
        seat = index % 2
        agents = [blunderer, make_agent("greedy")] if seat == 0 else [make_agent("greedy"), blunderer]
        record = play_match(game, agents, seed=rng.randrange(2 ** 62))
        analysis = analyse_record(record, budget, seed=0, playouts=checked)
        at = _decision_index_of_planted(record, seat, set(blunderer.blunders))
        points = {p.decision: p.judged_by for p in analysis.turning_points if p.seat == seat}
        for counted, decision in sorted(at.items()):
            entry = analysis.entries[decision]
            if entry.drop >= 0.10:
                costly += 1
                found += decision in points
            mistakes.append(_judged_mistake(game, record, entry, blunderer.better[counted], points.get(decision),
                                            playouts))
        flagged += len(points)
        planted_flags += len(points.keys() & set(at.values()))
        points_judged += [_judged_point(game, record, point, playouts) for point in analysis.turning_points
                          if point.seat == seat]
    by_playouts = [mistake for mistake in mistakes if mistake["costly"]]
    return {"costly": costly, "recall": round(found / costly, 3) if costly else None,
            "turning_points": flagged, "precision": round(planted_flags / flagged, 3) if flagged else None,
            "playouts": playouts.pairs, "playout_noise": playouts.noise, "cost_threshold": COSTLY, "planted": len(mistakes),
            "analysis_playouts": checked,
            "costly_by_playouts": len(by_playouts),
            "recall_vs_playouts": _rate(sum(mistake["found"] for mistake in by_playouts), len(by_playouts)),
            "recall_vs_playouts_by_search": _rate(sum(mistake["found_by"] == "search" for mistake in by_playouts),
                                                  len(by_playouts)),
            "precision_vs_playouts": _rate(sum(points_judged), len(points_judged)),
            "missed_drops": sorted(mistake["drop"] for mistake in by_playouts if not mistake["found"]),
            "mistakes": mistakes}


def _judged_mistake(game: Any, record: MatchRecord, entry: Any, better: int, found_by: str | None,
                    playouts: Playouts) -> dict[str, Any]:
    """One planted blunder judged by paired playouts of it and of the move greedy liked most there."""
    state = _state_at(game, record, entry.step)
    worse = record.steps[entry.step].action
    cost, error = (0.0, 0.0) if worse == better else judged_cost(game, state, entry.seat, worse, better, playouts.pairs,
                                                                 derive_seed(record.seed, entry.decision),
                                                                 playouts.noise)
    return {"decision": entry.decision, "drop": round(entry.drop, 3), "cost": round(cost, 3),
            "error": round(error, 3), "costly": is_costly(cost, error), "found": found_by is not None,
            "found_by": found_by}


def _judged_point(game: Any, record: MatchRecord, point: Any, playouts: Playouts) -> bool:
    """Whether paired playouts of a turning point's move and of the analysis' best move find it costly."""
    state = _state_at(game, record, point.step)
    worse, better = record.steps[point.step].action, action_labelled(state, point.best)
    assert better is not None, f"{point.best!r} is no legal move at {point.moment}"
    return is_costly(*judged_cost(game, state, point.seat, worse, better, playouts.pairs,
                                  derive_seed(record.seed, point.decision), playouts.noise))


def _noise(game: Any, rng: random.Random, matches: int, budget: Budget) -> dict[str, Any]:
    """Whether a drop's standard error, as the analysis states it (scaled by calibration.json's noise scale), is
    the size of its real noise: at decisions of greedy against random, the spread of the drop between the same two
    moves over NOISE_SEEDS independent judges against the standard errors they gave
    (arena/analysis/measure_noise.py; 1: the standard error is the real noise; less: it overstates it, and a real
    drop is missed; more: noise is taken for a mistake), and the same before the scale (`raw_spread_over_error`,
    what measure_noise measures on matches of its own)."""
    _, scales = calibration_at(family_of(game.name).name, budget, game.name)
    # (the same decisions judged by the analysis' judge, and as a confirmed drop is)
    rows, confirming = drop_noise_by_judges(game, rng, matches, budget, (single_judge, _confirming_judge(scales)))
    raw = spread_over_error(rows)
    confirmed = spread_over_error(confirming)
    spread = math.sqrt(statistics.fmean(spread for spread, _ in rows)) if rows else None
    error = math.sqrt(statistics.fmean(error for _, error in rows)) * scales[0] if rows else None
    return {"decisions": len(rows), "seeds": NOISE_SEEDS, "noise_scale": round(scales[0], 3),
            "spread_over_error": None if raw is None else round(raw / scales[0], 3),
            "raw_spread_over_error": None if raw is None else round(raw, 3),
            "confirmed_spread_over_error": None if confirmed is None else round(confirmed, 3),
            "spread": None if spread is None else round(spread, 4), "error": None if error is None else round(error, 4)}


def _confirming_judge(scales: tuple[float, float]) -> Any:
    """A judge as the analysis judges a drop it confirms: its judge and an independent search of the whole
    budget (valuing each move as the judge at twice the budget does), each error scaled at its own budget, the
    two pooled (the drop's error that a turning point at 400 carries)."""
    def judge(game: Any, seat: int, legal: list[int], seen: Any, played: int, best: int, budget: Budget,
              seed: int) -> tuple[float, float, float]:
        twice = Budget(seconds=2 * budget.seconds) if budget.seconds is not None else \
            Budget(simulations=2 * (budget.simulations or 0))
        first = single_judge(game, seat, legal, seen, played, best, budget, seed)
        second = single_judge(game, seat, legal, seen, played, best, twice, derive_seed(seed, 1))
        return pooled(first[:2] + (first[2] * scales[0],), second[:2] + (second[2] * scales[1],))
    return judge


def _first_unforced(game: Any, record: MatchRecord) -> tuple[int, int, int]:
    """(its index among the decisions, its step, its seat) of the record's first decision with 2+ moves."""
    state, decision = game.new_initial_state(), 0
    for index, step in enumerate(record.steps):
        if not step.is_chance:
            if len(state.legal_actions()) > 1:
                return decision, index, state.current_player()
            decision += 1
        state.apply_action(step.action)
    raise ValueError("no decision with two or more moves")


def _first_position(game: Any, rng: random.Random, games: int, analysed: int, budget: Budget) -> dict[str, Any]:
    """The analysis' chance for the first mover at the first decision (of `analysed` of the games, calibrated
    as `arena analyse` calibrates) against the first movers' real score over `games` of greedy against greedy.
    Each analysed game's searches have a seed of their own (its index): with one seed for all, every game's
    first decision would be searched on the same random streams, their errors alike, and the mean's interval
    would not hold. The difference's interval adds the two means' variances (independent samples)."""
    scores, chances, afters = [], [], []
    shift = optimism(family_of(game.name).name, budget.simulations, game.name)
    for index in range(games):
        record = play_match(game, [make_agent("greedy"), make_agent("greedy")], seed=rng.randrange(2 ** 62))
        decision, step, seat = _first_unforced(game, record)
        ranking = record.result.ranking if record.result is not None else (0, 0)
        scores.append(points(ranking[seat] < ranking[1 - seat], ranking[seat] == ranking[1 - seat]))
        if index < analysed:
            state = _state_at(game, record, step)
            entry = analyse_decision(game, state, record.steps[step].action, budget, index, decision=decision,
                                     step=step)
            chances.append(min(1.0, max(0.0, entry.before - shift)))
            afters.append(min(1.0, max(0.0, entry.after - shift)))
    score, low, high = mean_interval(sum(scores), sum(x * x for x in scores), len(scores))
    figures: dict[str, Any] = {"games": games, "first_mover_score": round(score, 3), "low": round(max(0.0, low), 3),
                               "high": round(min(1.0, high), 3), "analysed": len(chances), "analysis_chance": None,
                               "analysis_low": None, "analysis_high": None, "chances": [round(c, 3) for c in chances],
                               "optimism_taken_off": shift, "difference": None, "difference_low": None,
                               "difference_high": None, "analysis_after": None, "after_difference": None}
    if chances:
        chance, chance_low, chance_high = mean_interval(sum(chances), sum(x * x for x in chances), len(chances))
        after = statistics.fmean(afters)
        figures.update({"analysis_chance": round(chance, 3), "difference": round(chance - score, 3),
                        "analysis_after": round(after, 3), "after_difference": round(after - score, 3)})
        if len(chances) > 1:  # (one game analysed has no spread to measure)
            half = math.hypot(high - score, chance_high - chance)
            figures.update({"analysis_low": round(chance_low, 3), "analysis_high": round(chance_high, 3),
                            "difference_low": round(chance - score - half, 3),
                            "difference_high": round(chance - score + half, 3)})
    return figures


def _continuity(analysis: Analysis, record: MatchRecord) -> tuple[list[float], list[float]]:
    """Where one seat decides twice running with no chance step between, "after" of the first less "before" of
    the second (two searches of one position by one seat: 0 on average if the chances are consistent), in the
    match's first EARLY decisions and after."""
    early: list[float] = []
    later: list[float] = []
    entries = analysis.entries
    for one, two in zip(entries, entries[1:]):
        if one.forced or two.forced or one.seat != two.seat:
            continue
        if not any(step.is_chance for step in record.steps[one.step + 1:two.step]):
            (early if one.decision < EARLY else later).append(one.after - two.before)
    return early, later


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def _players_model(analyses: list[Analysis], specs: list[tuple[str, str]]) -> dict[str, Any]:
    """The players' model (arena.analysis.players) judged against the results: each match's chances as its
    players play, their forms measured on the setting's other matches (never the match itself; each seat's edge
    on those where the player held that seat, each read against its own forms by their drops, measured on the
    matches but that one and the match judged); its Brier and bias, each player's form (mean drop a searched
    decision) and edge in each seat, and the mean shift the edges gave seat 0 at the start."""
    def forms_without(left_out: set[int], seats: tuple[str, str], edges: dict[int, Any] | None = None
                      ) -> tuple[PlayerForm | None, ...]:
        others = [at for at in range(len(analyses)) if at not in left_out]
        return tuple(form_of((analyses[at].searched_drops(seat) for at in others for seat in (0, 1)
                              if specs[at][seat] == player),
                             (edges[at][where] for at in others if specs[at][where] == player) if edges else ())
                     for where, player in enumerate(seats))

    rows, by_player, by_seat, shifts = [], {}, {}, []
    for index, (analysis, seats) in enumerate(zip(analyses, specs)):
        edges = {}  # each other match's edge sums per seat, against its own forms (neither it nor this match's)
        for at, other in enumerate(analyses):
            if at == index:  # (never read: forms_without leaves this match out)
                continue
            forms = forms_without({at, index}, specs[at])
            read = replace(other, players=forms) if None not in forms else other
            edges[at] = (read.edge_sums(0), read.edge_sums(1))
        first, second = forms_without({index}, seats, edges)
        if first is None or second is None:
            continue
        judged = replace(analysis, players=(first, second))
        chances = judged.expected() or []
        rows += [(chance, analysis.result[entry.seat]) for chance, entry in zip(chances, analysis.entries)
                 if not entry.forced]  # (the decisions the search's Brier and bias are over)
        by_player.update({seats[0]: round(first.drop, 4), seats[1]: round(second.drop, 4)})
        by_seat.update({f"{seats[0]}@0": _edge(first), f"{seats[1]}@1": _edge(second)})
        shifts.append(judged.seat_edge())
    return {"brier": round(statistics.fmean((p - r) ** 2 for p, r in rows), 4) if rows else None,
            "bias": round(statistics.fmean(p - r for p, r in rows), 4) if rows else None,
            "decisions": len(rows), "form": dict(sorted(by_player.items())), "edge": dict(sorted(by_seat.items())),
            "seat_edge": round(statistics.fmean(shifts), 4) if shifts else None}


def _edge(form: PlayerForm) -> float | None:
    """A form's edge in its seat, rounded; None where it was not measured (too few of its matches in the seat)."""
    return round(form.edge, 4) if form.edge_matches else None


def _calibration(analyses: list[Analysis]) -> dict[str, Any]:
    """Bias ("before" less the mover's result) and sum (both sides' chances at one position) with their 95%
    intervals, and the turning points per match, over these analyses (one budget)."""
    biases = [entry.before - result for analysis in analyses for entry, result in _entries_with_results(analysis)]
    sums = [value for analysis in analyses for value in analysis.position_sums()]
    turns = [value for analysis in analyses for value in analysis.turn_sums()]
    figures: dict[str, Any] = {"decisions": len(biases), "sums": len(sums), "turn_sums": len(turns),
                               "turning_points_per_match": round(statistics.fmean(
                                   len(analysis.turning_points) for analysis in analyses), 3) if analyses else None}
    for key, values in (("bias", biases), ("sum", sums), ("turn_sum", turns)):
        found = mean_interval(sum(values), sum(v * v for v in values), len(values)) if len(values) > 1 else None
        figures.update(dict(zip((key, f"{key}_low", f"{key}_high"),
                                (None, None, None) if found is None else (round(value, 4) for value in found))))
    return figures


def _setting(game: Any, rng: random.Random, matches: int, budget: Budget, specs: tuple[str, str],
             budgets: tuple[Budget, ...] = ()) -> dict[str, Any]:
    """Calibration, bias, consistency and seed stability on `matches` matches of `specs` (seats alternating);
    `budgets`: the same matches analysed at each of these budgets too (bias and sum per budget)."""
    rows, sums, jaccards, close_jaccards = [], [], [], []
    records, analyses = [], []
    seats: list[tuple[str, str]] = []
    anchor_rows, anchor_sums = [], []
    early: list[float] = []
    later: list[float] = []
    for index in range(matches):
        agents = [make_agent(spec) for spec in (specs if index % 2 == 0 else specs[::-1])]
        record = play_match(game, agents, seed=rng.randrange(2 ** 62))
        first = analyse_record(record, budget, seed=0)
        second = analyse_record(record, budget, seed=1)
        records.append(record)
        analyses.append(first)
        rows += _entries_with_results(first)
        seats.append(specs if index % 2 == 0 else specs[::-1])
        sums += first.position_sums()
        more_early, more_later = _continuity(first, record)
        early += more_early
        later += more_later
        anchor = _anchor(record, budget)
        anchor_rows += _entries_with_results(anchor)
        anchor_sums += anchor.position_sums()
        a = {p.decision for p in first.turning_points}
        b = {p.decision for p in second.turning_points}
        if a or b:
            jaccards.append(len(a & b) / len(a | b))
            if abs(first.curve()[0][len(first.curve()[0]) // 2] - 0.5) < 0.25:
                close_jaccards.append(len(a & b) / len(a | b))
    base = {seat: statistics.fmean(result for entry, result in rows if entry.seat == seat) for seat in (0, 1)}
    per_budget = {str(other): _calibration(analyses if other == budget else
                                           [analyse_record(record, other, seed=0) for record in records])
                  for other in budgets}
    return {
        "per_budget": per_budget,
        "decisions": len(rows),
        "brier": round(statistics.fmean((e.before - r) ** 2 for e, r in rows), 4),
        "brier_static": round(statistics.fmean((e.static - r) ** 2 for e, r in rows if e.static is not None), 4),
        "brier_base_rate": round(statistics.fmean((base[e.seat] - r) ** 2 for e, r in rows), 4),
        "players_model": _players_model(analyses, seats),
        "bias": round(statistics.fmean(e.before - r for e, r in rows), 4),
        "sum": round(statistics.fmean(sums), 4) if sums else None, "sums": len(sums),
        "jaccard": round(statistics.fmean(jaccards), 3) if jaccards else None,
        "jaccard_close": round(statistics.fmean(close_jaccards), 3) if close_jaccards else None,
        "continuity": {"early": _mean(early), "early_pairs": len(early), "later": _mean(later),
                       "later_pairs": len(later)},
        "anchor": {"brier": round(statistics.fmean((e.before - r) ** 2 for e, r in anchor_rows), 4),
                   "bias": round(statistics.fmean(e.before - r for e, r in anchor_rows), 4),
                   "sum": round(statistics.fmean(anchor_sums), 4) if anchor_sums else None},
    }


def run(games: list[str], matches: int, budget: Budget, seed: int, playouts: Playouts = Playouts(),
        first_games: int = FIRST_GAMES, first_analysed: int = FIRST_ANALYSED,
        settings: bool = True, budgets: tuple[Budget, ...] = (), noise_matches: int = NOISE_MATCHES,
        analysis_playouts: int = 0) -> dict[str, Any]:
    """Every figure of every game (`settings` False: the planted blunders and the first position alone;
    `budgets`: the equal and unequal matches analysed at these budgets too; `analysis_playouts`: the planted
    matches analysed with the playout check, `arena analyse --playouts`)."""
    rng = random.Random(seed)
    figures: dict[str, Any] = {}
    for name in games:
        game = load_game(name)
        per: dict[str, Any] = {}
        if settings:
            for setting, specs in (("equal", ("greedy", "greedy")), ("unequal", ("greedy", "random"))):
                per[setting] = _setting(game, rng, matches, budget, specs, budgets)
        per["planted"] = _planted(game, rng, matches, budget, playouts, analysis_playouts)
        if noise_matches:
            per["noise"] = _noise(game, rng, noise_matches, budget)
        per["first_position"] = _first_position(game, rng, first_games, first_analysed, budget)
        figures[name] = per
    return figures


def _goals(per: dict[str, Any]) -> dict[str, bool]:
    goals = {}
    if "equal" in per:
        settings = [per["equal"], per["unequal"]]
        goals.update({
            "bias within 0.01": all(abs(s["bias"]) <= 0.01 for s in settings),
            "sum within 1 +- 0.01": all(s["sum"] is not None and abs(s["sum"] - 1) <= 0.01 for s in settings),
            "brier no worse than static (unequal)": per["unequal"]["brier"] <= per["unequal"]["brier_static"],
            "as the players play: brier no worse than search or static": all(
                s["players_model"]["brier"] is not None
                and s["players_model"]["brier"] <= min(s["brier"], s["brier_static"]) for s in settings),
            "as the players play: bias within 0.015": all(
                s["players_model"]["bias"] is not None and abs(s["players_model"]["bias"]) <= 0.015 for s in settings)})
        for budget in per["equal"]["per_budget"]:
            at = [s["per_budget"][budget] for s in settings]
            goals[f"at {budget}: bias within 0.015"] = all(figures["bias"] is not None and abs(figures["bias"]) <= 0.015
                                                            for figures in at)
            goals[f"at {budget}: sum within 1 +- 0.01"] = all(figures["sum"] is not None and abs(figures["sum"] - 1) <= 0.01
                                                           for figures in at)
    first = per["first_position"]["difference"]
    goals.update({
        "recall >= 0.95": (per["planted"]["recall"] or 0) >= 0.95,
        "precision >= 0.80": (per["planted"]["precision"] or 0) >= 0.80,
        "recall vs playouts >= 0.90": (per["planted"]["recall_vs_playouts"]["rate"] or 0) >= 0.90,
        "first position within 0.05": first is not None and abs(first) <= 0.05})
    if "equal" in per:
        goals["jaccard (close) >= 0.8"] = (per["equal"]["jaccard_close"] or 0) >= 0.8
    return goals


def _print_game(name: str, per: dict[str, Any]) -> None:
    for setting in ("equal", "unequal"):
        if setting not in per:
            continue
        s = per[setting]
        print(f"{name} {setting:8}: brier {s['brier']} (static {s['brier_static']}, base rate "
              f"{s['brier_base_rate']}), bias {s['bias']:+}, sum {s['sum']} ({s['sums']}), "
              f"jaccard {s['jaccard']} (close {s['jaccard_close']}), {s['decisions']} decisions; the "
              f"anchor (one search, as before): brier {s['anchor']['brier']}, bias {s['anchor']['bias']:+}, "
              f"sum {s['anchor']['sum']}; continuity early {s['continuity']['early']} "
              f"({s['continuity']['early_pairs']}), later {s['continuity']['later']} ({s['continuity']['later_pairs']})")
        model = s["players_model"]
        print(f"{name} {setting:8}: as the players play: brier {model['brier']}, bias {model['bias']} "
              f"({model['decisions']} decisions; forms {model['form']})")
        for budget, at in s["per_budget"].items():
            print(f"{name} {setting:8} at {budget}: bias {at['bias']:+} [{at['bias_low']:+}, {at['bias_high']:+}] "
                  f"({at['decisions']}), sum {at['sum']} [{at['sum_low']}, {at['sum_high']}] ({at['sums']}), "
                  f"{at['turning_points_per_match']} turning points per match")
    planted = per["planted"]
    print(f"{name} planted : recall among its own drops >= 0.10 {planted['recall']} of {planted['costly']}, "
          f"precision {planted['precision']} of {planted['turning_points']} turning points")
    recall, precision = planted["recall_vs_playouts"], planted["precision_vs_playouts"]
    print(f"{name} playouts: {planted['costly_by_playouts']} of {planted['planted']} planted costly by "
          f"{planted['playouts']} paired playouts; recall {recall['rate']} [{recall['low']}, "
          f"{recall['high']}] (by the search alone {planted['recall_vs_playouts_by_search']['rate']}; missed drops "
          f"{planted['missed_drops']}); precision {precision['rate']} "
          f"[{precision['low']}, {precision['high']}] of {precision['of']}")
    if "noise" in per:
        noise = per["noise"]
        print(f"{name} noise   : a drop's spread over {noise['seeds']} independent searches {noise['spread']} against "
              f"its standard error {noise['error']} (ratio {noise['spread_over_error']}; before the scale "
              f"{noise['noise_scale']}: {noise['raw_spread_over_error']}; confirmed drops "
              f"{noise['confirmed_spread_over_error']}; {noise['decisions']} decisions)")
    first = per["first_position"]
    print(f"{name} first   : the analysis gives the first mover {first['analysis_chance']} "
          f"[{first['analysis_low']}, {first['analysis_high']}] (of {first['analysed']}), first movers scored "
          f"{first['first_mover_score']} [{first['low']}, {first['high']}] over {first['games']} games of greedy "
          f"against greedy: difference {first['difference']} [{first['difference_low']}, {first['difference_high']}]; "
          f"after greedy's move {first['analysis_after']} (difference {first['after_difference']})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=8, help="matches per setting and game")
    parser.add_argument("--budget", default="400")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--game", action="append", default=[])
    parser.add_argument("--playouts", type=int, default=PLAYOUTS, help="paired playouts per judged move")
    parser.add_argument("--playout-noise", type=float, default=NOISE,
                        help="the playout players' chance of a random move")
    parser.add_argument("--first-games", type=int, default=FIRST_GAMES, help="games measuring the first movers' score")
    parser.add_argument("--first-analysed", type=int, default=FIRST_ANALYSED,
                        help="of which the first decision is analysed")
    parser.add_argument("--budgets", default="",
                        help="comma-separated budgets the equal and unequal matches are analysed at too (bias and "
                             "sum per budget: 'per_budget')")
    parser.add_argument("--noise-matches", type=int, default=NOISE_MATCHES,
                        help="matches whose decisions check the standard errors against independent searches")
    parser.add_argument("--analysis-playouts", type=int, default=0, metavar="PAIRS",
                        help="the planted matches analysed with the playout check (arena analyse --playouts PAIRS)")
    parser.add_argument("--skip-settings", action="store_true",
                        help="no equal/unequal figures: the planted blunders and the first position alone")
    parser.add_argument("--smoke", action="store_true", help="the smallest run (the test suite's): " + " ".join(SMOKE))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args = parser.parse_args(SMOKE + sys.argv[1:])
    started = time.perf_counter()
    figures = run(args.game or list(GAMES), args.matches, Budget.parse(args.budget), args.seed,
                  Playouts(args.playouts, args.playout_noise),
                  args.first_games, args.first_analysed, not args.skip_settings,
                  tuple(Budget.parse(text) for text in args.budgets.split(",") if text.strip()), args.noise_matches,
                  args.analysis_playouts)
    figures["budget"] = args.budget
    figures["command"] = "python bench/analysis_quality.py " + " ".join(sys.argv[1:])
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["goals"] = {name: _goals(per) for name, per in figures.items() if isinstance(per, dict)}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, per in figures.items():
            if isinstance(per, dict) and name != "goals":
                _print_game(name, per)
        for name, met in figures["goals"].items():
            print(f"{name} goals: " + ", ".join(f"{goal} {'met' if ok else 'NOT met'}" for goal, ok in met.items()))
        print(f"{figures['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How far the analysis can be trusted: calibration, bias, consistency, planted blunders and seed stability.

    python bench/analysis_quality.py [--matches 8] [--budget 400] [--game NAME ...] [--json]

On recorded matches between built-in players, equal (greedy against greedy) and unequal (greedy against
random), in each game (default: Major General and WWII Alpine), every match analysed at --budget, and one
more player, "blunderer": greedy, but at three known decisions of each match (with 3 or more legal moves)
the move greedy's lookahead likes least. Printed, in one run:
- brier: the mean squared error of "before" against the mover's result, beside the static evaluation's
  and the seat's base rate (the mean result of the mover's seat in the sample); goal on unequal matches: no
  worse than the static evaluation's;
- bias: the mean of "before" less the mover's result (goal: within +-0.01);
- sum: where one seat's decision is followed by the other's with no chance step between, "after" of the first
  plus "before" of the second (two estimates of one position from both sides; goal: within 1 +- 0.01);
- planted: of the planted blunders whose drop (as analysed) is at least 0.10, the share found as turning
  points (recall; goal 95%), and of the blunderer's turning points, the share that are planted (precision;
  goal 80%);
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
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import GreedyAgent, make_agent  # noqa: E402
from arena.agents.base import DecisionRequest  # noqa: E402
from arena.analysis import Analysis, Budget, analyse_record  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402
from arena.referee.record import MatchRecord  # noqa: E402

GAMES = ("major-general", "general-orders-wwii/alpine")
PLANTED = 3  # blunders per match


class Blunderer(GreedyAgent):
    """Greedy, but at its planted decisions (counted from 0 among those with 3+ moves) the worst move."""

    name = "blunderer"

    def __init__(self, planted: set[int]) -> None:
        super().__init__()
        self.planted = planted
        self.count = 0
        self.blunders: list[int] = []  # its decisions' indices among the match's decisions where it blundered
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
        return worst


def _decision_index_of_planted(record: MatchRecord, seat: int, planted: set[int]) -> set[int]:
    """The match-wide decision indices of the seat's planted decisions (its decisions with 3+ legal moves)."""
    game = load_game(record.game, record.options)
    state = game.new_initial_state()
    found, decision, counted = set(), 0, 0
    for step in record.steps:
        if not step.is_chance:
            if state.current_player() == seat and len(state.legal_actions()) >= 3:
                if counted in planted:
                    found.add(decision)
                counted += 1
            decision += 1
        state.apply_action(step.action)
    return found


def _entries_with_results(analysis: Analysis) -> list[tuple[Any, float]]:
    return [(entry, analysis.result[entry.seat]) for entry in analysis.entries if not entry.forced]


def single_search_decision(game: Any, state: Any, played: int, budget: Budget, seed: int, *, decision: int = 0,
                           step: int = 0) -> Any:
    """The anchor: the analysis as it was before (one search of the whole budget; "before" is the value of the
    move it would play, read from the same search that picked it; forced moves searched too)."""
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


def run(games: list[str], matches: int, budget: Budget, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    figures: dict[str, Any] = {}
    for name in games:
        game = load_game(name)
        per: dict[str, Any] = {}
        for setting, specs in (("equal", ("greedy", "greedy")), ("unequal", ("greedy", "random"))):
            rows, sums, jaccards, close_jaccards = [], [], [], []
            anchor_rows, anchor_sums = [], []
            for index in range(matches):
                agents = [make_agent(spec) for spec in (specs if index % 2 == 0 else specs[::-1])]
                record = play_match(game, agents, seed=rng.randrange(2 ** 62))
                first = analyse_record(record, budget, seed=0)
                second = analyse_record(record, budget, seed=1)
                rows += _entries_with_results(first)
                sums += first.position_sums()
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
            per[setting] = {
                "decisions": len(rows),
                "brier": round(statistics.fmean((e.before - r) ** 2 for e, r in rows), 4),
                "brier_static": round(statistics.fmean((e.static - r) ** 2 for e, r in rows if e.static is not None), 4),
                "brier_base_rate": round(statistics.fmean((base[e.seat] - r) ** 2 for e, r in rows), 4),
                "bias": round(statistics.fmean(e.before - r for e, r in rows), 4),
                "sum": round(statistics.fmean(sums), 4) if sums else None, "sums": len(sums),
                "jaccard": round(statistics.fmean(jaccards), 3) if jaccards else None,
                "jaccard_close": round(statistics.fmean(close_jaccards), 3) if close_jaccards else None,
                "anchor": {"brier": round(statistics.fmean((e.before - r) ** 2 for e, r in anchor_rows), 4),
                           "bias": round(statistics.fmean(e.before - r for e, r in anchor_rows), 4),
                           "sum": round(statistics.fmean(anchor_sums), 4) if anchor_sums else None},
            }
        found = costly = flagged = planted_flags = 0
        for index in range(matches):
            planted = set(rng.sample(range(12), PLANTED))
            blunderer = Blunderer(planted)
            seat = index % 2
            agents = [blunderer, make_agent("greedy")] if seat == 0 else [make_agent("greedy"), blunderer]
            record = play_match(game, agents, seed=rng.randrange(2 ** 62))
            analysis = analyse_record(record, budget, seed=0)
            at = _decision_index_of_planted(record, seat, set(blunderer.blunders))
            points = {p.decision for p in analysis.turning_points if p.seat == seat}
            for decision in at:
                if analysis.entries[decision].drop >= 0.10:
                    costly += 1
                    found += decision in points
            flagged += len(points)
            planted_flags += len(points & at)
        per["planted"] = {"costly": costly, "recall": round(found / costly, 3) if costly else None,
                          "turning_points": flagged, "precision": round(planted_flags / flagged, 3) if flagged else None}
        figures[name] = per
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=8, help="matches per setting and game")
    parser.add_argument("--budget", default="400")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--game", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = run(args.game or list(GAMES), args.matches, Budget.parse(args.budget), args.seed)
    figures["budget"] = args.budget
    figures["seconds"] = round(time.perf_counter() - started, 1)
    goals = {}
    for name, per in figures.items():
        if not isinstance(per, dict):
            continue
        settings = [per["equal"], per["unequal"]]
        goals[name] = {
            "bias within 0.01": all(abs(s["bias"]) <= 0.01 for s in settings),
            "sum within 1 +- 0.01": all(s["sum"] is not None and abs(s["sum"] - 1) <= 0.01 for s in settings),
            "brier no worse than static (unequal)": per["unequal"]["brier"] <= per["unequal"]["brier_static"],
            "recall >= 0.95": (per["planted"]["recall"] or 0) >= 0.95,
            "precision >= 0.80": (per["planted"]["precision"] or 0) >= 0.80,
            "jaccard (close) >= 0.8": (per["equal"]["jaccard_close"] or 0) >= 0.8,
        }
    figures["goals"] = goals
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, per in figures.items():
            if isinstance(per, dict) and name != "goals":
                for setting in ("equal", "unequal"):
                    s = per[setting]
                    print(f"{name} {setting:8}: brier {s['brier']} (static {s['brier_static']}, base rate "
                          f"{s['brier_base_rate']}), bias {s['bias']:+}, sum {s['sum']} ({s['sums']}), "
                          f"jaccard {s['jaccard']} (close {s['jaccard_close']}), {s['decisions']} decisions; the "
                          f"anchor (one search, as before): brier {s['anchor']['brier']}, bias {s['anchor']['bias']:+}, "
                          f"sum {s['anchor']['sum']}")
                planted = per["planted"]
                print(f"{name} planted : recall {planted['recall']} of {planted['costly']} costly, precision "
                      f"{planted['precision']} of {planted['turning_points']} turning points")
        for name, met in goals.items():
            print(f"{name} goals: " + ", ".join(f"{goal} {'met' if ok else 'NOT met'}" for goal, ok in met.items()))
        print(f"{figures['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

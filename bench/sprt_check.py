#!/usr/bin/env python3
"""Whether `arena sprt` holds its error rates: many SPRT runs resampled from real seat-swapped pairs.

    python bench/sprt_check.py [--mode MODE] [--pairs N] [--runs R] [--slip P] [--elo1 E] [--max-pairs M]
                               [--seed S] [--duplicate] [-j N] [--smoke] [--json]

Plays N seat-swapped pairs (default 500) of MODE (default general-orders-wwii/alpine, whose value model has a
luck coefficient) twice, once: "equal", the scripted player against itself; "gap", the scripted player against
the same player making a uniformly random legal move a --slip share of its decisions (default 3%: about +60
Elo for the scripted one). Each pair keeps A's raw points and its points less luck (arena.luck). The equal
pairs are taken with their mirrors (A and B swapped: 2 - points), so that population's Elo is exactly 0. Each
game has a chance seed of its own; with --duplicate both games of a pair share one (`arena sprt --duplicate`:
the deal's luck cancels within the pair), and the populations' variances and the tests' mean pairs say what it
saves; in the equal population B then draws its tie-breaks from another seed (the player against itself on one
deal, each seat's seed the same in both games, would play the second game as the mirror of the first: every
pair would score 1).

Then R runs (default 300) of each test on each population, each run drawing pairs with replacement (the same
draws for every test) until the test decides or --max-pairs (default 5000, as `arena sprt`): elo0 0, elo1
--elo1 (default 10), alpha = beta = 0.05. The tests, like for like (all the GSPRT's normal approximation):
"corrected" (what `arena sprt` decides with: luck-corrected pair scores, at least `arena.ratings.sprt`'s
MIN_PAIRS pairs, the variance with PRIOR_PAIRS pseudo-pairs at the raw pairs' pentanomial variance), "raw"
(the same on raw pair scores), and both "unguarded" (as the test was before issue 47: from 2 pairs, no
pseudo-pairs).

Goals (issue 47): false H1 at Elo 0 at most 5%, false H0 at the gap at most 5%, no decision before 30 pairs.
With --json: {"mode", "seed", "pairs", "runs", "slip", "elo0", "elo1", "alpha", "beta", "min_pairs",
"max_pairs", "duplicate", "populations": {"equal"|"gap": {"pairs", "elo_raw", "elo_corrected", "variance_raw",
"variance_corrected"}}, "false_h1_at_elo0", "false_h0_at_gap", "min_pairs_at_decision" (the "corrected"
test's: {"count", "runs", "rate", "low", "high"}, the last {"pairs", "minimum", "count" (runs that decided
before the minimum), "runs", "rate", "low", "high"}), "tests": {TEST: the same three, "mean_pairs_elo0",
"mean_pairs_gap", "undecided_elo0", "undecided_gap" (runs that reached --max-pairs)}, "goal_met", "failures",
"command", "seconds"}. Intervals: Wilson, 95%.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import DecisionRequest, ScriptedAgent, make_agent  # noqa: E402
from arena.games.base import Game  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.luck import measure_luck  # noqa: E402
from arena.ratings.sprt import MIN_PAIRS, Sprt, pair_counts, pentanomial_variance  # noqa: E402
from arena.ratings.stats import Z95, score_to_elo, wilson_interval  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402
from arena.referee.seeds import game_seed  # noqa: E402

Pair = tuple[float, float]  # A's raw points in a seat-swapped pair (0 to 2), and the same less its luck
TESTS = {"corrected": (True, True), "raw": (False, True), "corrected_unguarded": (True, False),
         "raw_unguarded": (False, False)}  # name: (on corrected scores, guarded)
CASES = ("equal", "gap")


class SlippingScripted(ScriptedAgent):
    """The scripted player that makes a uniformly random legal move a `slip` share of its decisions (its own
    generator, so the scripted tie-breaks stay those of the player it is compared with)."""

    name = "scripted-slipping"

    def __init__(self, slip: float) -> None:
        super().__init__()
        self.slip = slip
        self.slips = random.Random(0)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.slips = random.Random(seed ^ 0x5117)

    def act(self, request: DecisionRequest) -> int:
        if len(request.legal_actions) > 1 and self.slips.random() < self.slip:
            return self.slips.choice(request.legal_actions)
        return super().act(request)


class ReseededScripted(ScriptedAgent):
    """The scripted player drawing its tie-breaks from another seed than its seat's: as strong, not the same moves
    (the equal population's B under --duplicate, where the same player on the same deal and seeds would play the
    second game of a pair as the mirror of the first)."""

    name = "scripted-reseeded"

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed ^ 0x7E5EED)


def play_pair(task: tuple[str, str, float, int, int, bool]) -> Pair:
    """Both games of one seat-swapped pair, A the scripted player: its points, raw and less luck (`duplicate`: both
    games on the first one's chance seed)."""
    mode, case, slip, seed, index, duplicate = task
    game = load_game(mode)
    raw = corrected = 0.0
    for rotation in (0, 1):
        a = make_agent("scripted")
        b = SlippingScripted(slip) if case == "gap" else ReseededScripted() if duplicate else make_agent("scripted")
        record = play_match(game, [a, b] if rotation == 0 else [b, a], game_seed(seed, CASES.index(case), index,
                                                                                  0 if duplicate else rotation))
        assert record.result is not None
        ranking, seat = record.result.ranking, rotation
        points = 1.0 if ranking[seat] < ranking[1 - seat] else 0.0 if ranking[seat] > ranking[1 - seat] else 0.5
        luck = measure_luck(record, game)
        raw += points
        corrected += points - (luck.beta * luck.seats[seat] if luck is not None else 0.0)
    return raw, corrected


def run_once(task: tuple[list[Pair], str, float, int, int, str]) -> tuple[str | None, int]:
    """One SPRT run of TEST, drawing pairs from the population with replacement: (its decision, pairs used)."""
    population, test_name, elo1, max_pairs, min_pairs, draws = task
    corrected, guarded = TESTS[test_name]
    test = Sprt(0.0, elo1, 0.05, 0.05, min_pairs if guarded else 2)
    rng = random.Random(draws)
    total = squares = 0.0
    counts = [0] * 5
    for n in range(1, max_pairs + 1):
        raw, adjusted = population[rng.randrange(len(population))]
        score = (adjusted if corrected else raw) / 2
        total += score
        squares += score * score
        counts[pair_counts([raw]).index(1)] += 1
        mean = total / n
        reference = pentanomial_variance(counts) if guarded else None
        decision = test.normal_moments(n, mean, max(squares / n - mean * mean, 0.0), reference).decision
        if decision is not None:
            return decision, n
    return None, max_pairs


def share(count: int, runs: int) -> dict[str, Any]:
    """A count of runs as a rate with its 95% Wilson interval."""
    low, high = wilson_interval(count, runs)
    return {"count": count, "runs": runs, "rate": round(count / runs, 4) if runs else None,
            "low": round(low, 4), "high": round(high, 4)}


def figures(outcomes: dict[str, list[tuple[str | None, int]]], minimum: int) -> dict[str, Any]:
    """One test's figures from its runs on each population."""
    decided = [pairs for case in CASES for decision, pairs in outcomes[case] if decision is not None]
    early = sum(1 for pairs in decided if pairs < minimum)
    return {"false_h1_at_elo0": share(sum(1 for decision, _ in outcomes["equal"] if decision == "H1"),
                                      len(outcomes["equal"])),
            "false_h0_at_gap": share(sum(1 for decision, _ in outcomes["gap"] if decision == "H0"),
                                     len(outcomes["gap"])),
            "min_pairs_at_decision": {"pairs": min(decided, default=None), "minimum": minimum,
                                      **share(early, len(decided))},
            "mean_pairs_elo0": round(statistics.fmean(pairs for _, pairs in outcomes["equal"]), 1),
            "mean_pairs_gap": round(statistics.fmean(pairs for _, pairs in outcomes["gap"]), 1),
            "undecided_elo0": sum(1 for decision, _ in outcomes["equal"] if decision is None),
            "undecided_gap": sum(1 for decision, _ in outcomes["gap"] if decision is None)}


def population_figures(pairs: list[Pair]) -> dict[str, Any]:
    """A population's size, Elo (raw and corrected, with 95% intervals) and pair-score variances."""
    out: dict[str, Any] = {"pairs": len(pairs)}
    for key, column in (("raw", 0), ("corrected", 1)):
        scores = [pair[column] / 2 for pair in pairs]
        mean, variance = statistics.fmean(scores), statistics.pvariance(scores)
        half = Z95 * math.sqrt(variance / len(scores))
        elo = [score_to_elo(min(1 - 1e-6, max(1e-6, value))) for value in (mean, mean - half, mean + half)]
        out[f"elo_{key}"] = {"elo": round(elo[0], 1), "low": round(elo[1], 1), "high": round(elo[2], 1)}
        out[f"variance_{key}"] = round(variance, 5)
    return out


def arguments_parsed() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", default="general-orders-wwii/alpine")
    parser.add_argument("--pairs", type=int, default=500, help="seat-swapped pairs played per population")
    parser.add_argument("--runs", type=int, default=300, help="SPRT runs per test and population")
    parser.add_argument("--slip", type=float, default=0.03, help="the weaker player's share of random moves")
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--max-pairs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--duplicate", action="store_true", help="both games of a pair on one chance seed")
    parser.add_argument("-j", "--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--smoke", action="store_true", help="the smallest size (its figures mean nothing)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    if arguments.smoke:
        arguments.pairs, arguments.runs, arguments.max_pairs, arguments.jobs = 3, 4, 40, 1
    return arguments


def main() -> int:
    arguments = arguments_parsed()
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(arguments.jobs) as pool:
        populations: dict[str, list[Pair]] = {}
        for case in CASES:
            tasks = [(arguments.mode, case, arguments.slip, arguments.seed, index, arguments.duplicate)
                     for index in range(arguments.pairs)]
            populations[case] = pool.map(play_pair, tasks, chunksize=4)
        populations["equal"] += [(2 - raw, 2 - corrected) for raw, corrected in populations["equal"]]
        tests: dict[str, Any] = {}
        for name in TESTS:
            outcomes = {case: pool.map(run_once, [(populations[case], name, arguments.elo1, arguments.max_pairs,
                                                   MIN_PAIRS, f"{arguments.seed}:{case}:{run}")
                                                  for run in range(arguments.runs)], chunksize=8)
                        for case in CASES}
            tests[name] = figures(outcomes, MIN_PAIRS)
    shipped = tests["corrected"]
    failures = [f"{key} {shipped[key]['rate']} (goal at most 0.05)" for key in ("false_h1_at_elo0", "false_h0_at_gap")
                if (shipped[key]["rate"] or 0) > 0.05]
    if shipped["min_pairs_at_decision"]["count"]:
        failures.append(f"decided before {MIN_PAIRS} pairs")
    command = (f"python bench/sprt_check.py --mode {arguments.mode} --pairs {arguments.pairs} --runs {arguments.runs} "
               f"--slip {arguments.slip:g} --elo1 {arguments.elo1:g} --max-pairs {arguments.max_pairs} "
               f"--seed {arguments.seed}" + (" --duplicate" if arguments.duplicate else ""))
    report = {"mode": arguments.mode, "seed": arguments.seed, "pairs": arguments.pairs, "runs": arguments.runs,
              "slip": arguments.slip, "elo0": 0.0, "elo1": arguments.elo1, "alpha": 0.05, "beta": 0.05,
              "min_pairs": MIN_PAIRS, "max_pairs": arguments.max_pairs, "duplicate": arguments.duplicate,
              "populations": {case: population_figures(pairs) for case, pairs in populations.items()},
              **{key: shipped[key] for key in ("false_h1_at_elo0", "false_h0_at_gap", "min_pairs_at_decision")},
              "tests": tests, "goal_met": not failures, "failures": failures, "command": command,
              "seconds": round(time.perf_counter() - started, 1)}
    if arguments.json:
        print(json.dumps(report, indent=2))
        return 0
    print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    """The figures as lines a person reads."""
    for case, data in report["populations"].items():
        print(f"{case}: {data['pairs']} pairs, Elo raw {data['elo_raw']['elo']:+.1f} "
              f"[{data['elo_raw']['low']:+.1f}, {data['elo_raw']['high']:+.1f}], corrected "
              f"{data['elo_corrected']['elo']:+.1f}; pair-score variance {data['variance_raw']} raw, "
              f"{data['variance_corrected']} corrected")
    print(f"{report['runs']} runs per test and population; elo0 0, elo1 {report['elo1']:g}, alpha = beta = 0.05")
    for name, data in report["tests"].items():
        h1, h0, first = data["false_h1_at_elo0"], data["false_h0_at_gap"], data["min_pairs_at_decision"]
        print(f"{name:20s} false H1 at Elo 0: {h1['count']}/{h1['runs']} [{h1['low']:.3f}, {h1['high']:.3f}]; "
              f"false H0 at the gap: {h0['count']}/{h0['runs']} [{h0['low']:.3f}, {h0['high']:.3f}]; "
              f"first decision at {first['pairs']} pairs ({first['count']} runs before {first['minimum']}); "
              f"mean pairs {data['mean_pairs_elo0']:.0f} at Elo 0 ({data['undecided_elo0']} runs undecided), "
              f"{data['mean_pairs_gap']:.0f} at the gap ({data['undecided_gap']} undecided)")
    print("goal met" if report["goal_met"] else "goal NOT met:\n  " + "\n  ".join(report["failures"]))
    print(f"{report['seconds']:.0f} s; command: {report['command']}")


if __name__ == "__main__":
    sys.exit(main())

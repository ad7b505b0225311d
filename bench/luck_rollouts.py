#!/usr/bin/env python3
"""What the players' own rollouts as the value function would take out of results: offline, too costly to ship.

    python bench/luck_rollouts.py [--mode NAME] [--games N] [--rollouts K] [-j N] [--json]

N games (default 100) between the family's scripted players, on seeds of their own (`game_seed(0x5EED, i)`).
At every chance event, each outcome's value is the mean result of K rollouts (default 16) from the position it
leads to, played to the end by the scripted players, rollout k's chance drawn from `random.Random(k)` and its
tie-breaks from `random.Random(1000 + k)` for every outcome alike (common random numbers: an event's outcomes
are compared on the same draws). The luck of an event is its outcome's value less the outcomes' expectation,
as arena.luck measures it (so its expectation is zero: `luck_per_event`), the rollouts' noise included; a
result corrected by beta times the summed luck. `ratio_beta1` is the variance ratio (raw over corrected) at
beta 1; `ratio_best` at the beta that minimises the corrected variance on these very games (an upper estimate:
beta is fitted in sample), with a 95% bootstrap interval over the games (`ratio_best_interval`, beta refitted
in each resample); `correlation` the summed luck's with the result (Fisher interval). More rollouts cut the
noise: the luck's variance falls towards what chance itself carries. Issue 47 measured its decomposition this
way; this bench says what the players' own rollouts take out, and at what cost (`cpu_s_per_game`).

With --json: {"mode", "games", "rollouts", "variance_raw", "variance_luck", "beta", "ratio_beta1", "ratio_best",
"ratio_best_interval", "correlation", "luck_per_event", "cpu_s_per_game", "command"}.
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

from arena.agents import make_agent  # noqa: E402
from arena.games.base import CHANCE, points  # noqa: E402
from arena.luck.fit import rollout  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402
from arena.referee.seeds import game_seed  # noqa: E402

SEED_KEY = 0x5EED


def one_game(task: tuple[str, int, int]) -> tuple[float, list[float], float]:
    """One game: seat 0's points, every chance event's luck for seat 0, the CPU seconds it all took."""
    mode, index, rollouts = task
    started = time.process_time()
    game = load_game(mode)
    record = play_match(game, [make_agent("scripted"), make_agent("scripted")], game_seed(SEED_KEY, index))
    assert record.result is not None
    ranking = record.result.ranking
    state, events = game.new_initial_state(), []
    for step in record.steps:
        if step.seat == CHANCE:
            outcomes = state.chance_outcomes()
            values = {}
            for outcome, _probability in outcomes:
                child = state.clone()
                child.apply_action(outcome)
                values[outcome] = statistics.fmean(rollout(child, k) for k in range(rollouts))
            events.append(values[step.action] - sum(p * values[outcome] for outcome, p in outcomes))
        state.apply_action(step.action)
    return points(ranking[0] < ranking[1], ranking[0] == ranking[1]), events, time.process_time() - started


def best_ratio(results: list[float], lucks: list[float]) -> tuple[float, float]:
    """(beta minimising the corrected variance, the variance ratio at it)."""
    variance = statistics.pvariance(lucks)
    if variance == 0:
        return 0.0, 1.0
    mean_result, mean_luck = statistics.fmean(results), statistics.fmean(lucks)
    beta = statistics.fmean((r - mean_result) * (l - mean_luck) for r, l in zip(results, lucks)) / variance
    corrected = statistics.pvariance([r - beta * l for r, l in zip(results, lucks)])
    return beta, statistics.pvariance(results) / corrected if corrected > 0 else math.inf


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", default="major-general", help="a two-seat mode with a scripted player")
    parser.add_argument("--games", type=int, default=100, help="games (default 100)")
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts per chance outcome (default 16)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples of the ratio's interval")
    parser.add_argument("-j", "--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    with multiprocessing.get_context("fork").Pool(arguments.jobs) as pool:
        rows = pool.map(one_game, [(arguments.mode, index, arguments.rollouts) for index in range(arguments.games)],
                        chunksize=1)
    results, lucks = [row[0] for row in rows], [sum(row[1]) for row in rows]
    events = [value for row in rows for value in row[1]]
    beta, ratio = best_ratio(results, lucks)
    rng = random.Random(SEED_KEY)
    resampled = sorted(best_ratio([results[i] for i in drawn], [lucks[i] for i in drawn])[1]
                       for drawn in ([rng.randrange(len(rows)) for _ in rows] for _ in range(arguments.bootstrap)))
    corrected_beta1 = statistics.pvariance([r - l for r, l in zip(results, lucks)])
    r = statistics.correlation(lucks, results) if len(rows) > 3 and statistics.pvariance(lucks) > 0 else 0.0
    z, spread = math.atanh(max(-0.999999, min(0.999999, r))), 1.96 / math.sqrt(max(1, len(rows) - 3))
    error = statistics.stdev(events) / math.sqrt(len(events)) if len(events) > 1 else 0.0
    command = (f"python bench/luck_rollouts.py --mode {arguments.mode} --games {arguments.games} "
               f"--rollouts {arguments.rollouts}")
    report: dict[str, Any] = {
        "mode": arguments.mode, "games": len(rows), "rollouts": arguments.rollouts,
        "variance_raw": round(statistics.pvariance(results), 5), "variance_luck": round(statistics.pvariance(lucks), 5),
        "beta": round(beta, 4), "ratio_beta1": round(statistics.pvariance(results) / corrected_beta1, 3)
        if corrected_beta1 > 0 else None,
        "ratio_best": round(ratio, 3),
        "ratio_best_interval": [round(resampled[int(0.025 * (len(resampled) - 1))], 3),
                                round(resampled[int(0.975 * (len(resampled) - 1))], 3)] if resampled else None,
        "correlation": {"r": round(r, 4), "low": round(math.tanh(z - spread), 4),
                        "high": round(math.tanh(z + spread), 4)},
        "luck_per_event": {"events": len(events), "mean": round(statistics.fmean(events), 5) if events else None,
                           "low": round(statistics.fmean(events) - 1.96 * error, 5) if events else None,
                           "high": round(statistics.fmean(events) + 1.96 * error, 5) if events else None},
        "cpu_s_per_game": round(statistics.fmean(row[2] for row in rows), 3), "command": command}
    if arguments.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{arguments.mode}, {len(rows)} games, {arguments.rollouts} rollouts per outcome: variance ratio "
              f"{report['ratio_best']} {report['ratio_best_interval']} at beta {report['beta']} (in sample), "
              f"{report['ratio_beta1']} at beta 1; r {report['correlation']}; luck per event "
              f"{report['luck_per_event']}; {report['cpu_s_per_game']} CPU s per game; command: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

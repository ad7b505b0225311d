#!/usr/bin/env python3
"""How much luck the luck correction takes out of results: per mode, between fixed pairs of built-in players,
the variance of raw and luck-corrected scores, and the games an SPRT needs with and without it.

    python bench/luck.py [--games N] [--modes NAME,...] [--pairs A:B,...] [--seed S] [-j N] [--json]

For each mode and pair: N games (default 1000) as seat-swapped pairs, each game on a chance seed of its own
(keyed by --seed, never the value models' corpus). Per game, A's points (1 a win, 1/2 a draw) and the same less
its luck (arena.luck: the chance events' luck by the family's value model, times its beta). Then the variance
of each, the ratio (raw over corrected: how many times fewer games the same precision needs), and an SPRT run
on both, like for like (elo0 0, elo1 --elo1, alpha = beta = 0.05; the same test, `arena sprt`'s normal GSPRT
with its minimum of pairs and its pseudo-pairs at the raw pairs' pentanomial variance, on the raw pair scores
and on the corrected ones; the raw pentanomial's beside, for reference) over --resamples random orders of the
pairs: the mean number of games until it decides (a run the pairs do not decide counts all of them). Both
from the same games, in one run. A family with no value model is reported as such. (Before issue 47 the
ratio set the pentanomial on raw pairs against the normal test on corrected ones, which decided from 2 pairs:
it reported gains where the correction changes nothing, beta = 0.)

Goal (issue 33): at least 2x fewer games on every General Orders mode. With --json: {"seed", "games",
"modes": {MODE: {"A:B": {"games", "mean_raw", "mean_corrected", "variance_raw", "variance_corrected",
"ratio", "sprt_games_raw", "sprt_games_corrected", "sprt_ratio", "sprt_games_pentanomial", "model"}}},
"goal_met", "command"}.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import make_agent  # noqa: E402
from arena.games.registry import family_of, game_modes, load_game  # noqa: E402
from arena.luck import measure_luck, model_for  # noqa: E402
from arena.ratings.sprt import Sprt, pentanomial_variance  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402
from arena.referee.seeds import game_seed  # noqa: E402

DEFAULT_PAIRS = "scripted:scripted,greedy:greedy,greedy:scripted"


def play_pair(task: tuple[str, str, str, int, int]) -> tuple[float, float, float, float]:
    """Both games of one seat-swapped pair: A's points and corrected points in each."""
    mode, a, b, seed, index = task
    game = load_game(mode)
    out: list[float] = []
    for rotation in (0, 1):
        names = (a, b) if rotation == 0 else (b, a)
        record = play_match(game, [make_agent(names[0]), make_agent(names[1])], game_seed(seed, index, rotation))
        assert record.result is not None
        ranking = record.result.ranking
        seat = rotation  # A's seat
        points = 1.0 if ranking[seat] < ranking[1 - seat] else 0.0 if ranking[seat] > ranking[1 - seat] else 0.5
        luck = measure_luck(record, game)
        corrected = points - (luck.beta * luck.seats[seat] if luck is not None else 0.0)
        out += [points, corrected]
    return out[0], out[1], out[2], out[3]


def sprt_games(pairs: list[tuple[float, float]], scores: str, elo1: float, resamples: int, seed: int) -> float:
    """The mean number of games an SPRT needs to decide, over random orders of `pairs` (raw pair points and
    corrected pair points): `scores` "raw" or "corrected" for the normal test on those, "pentanomial" for the
    pentanomial on the raw ones."""
    test = Sprt(0.0, elo1, 0.05, 0.05)
    rng = random.Random(seed)
    used = []
    for _ in range(resamples):
        order = pairs[:]
        rng.shuffle(order)
        used.append(2 * decided_at(test, order, scores))
    return statistics.fmean(used)


def decided_at(test: Sprt, order: list[tuple[float, float]], scores: str) -> int:
    """The pairs after which the test decides on these pairs in this order (all of them when it does not)."""
    counts = [0] * 5
    total = squares = 0.0
    for count, (raw, corrected) in enumerate(order, start=1):
        counts[min(4, max(0, round(raw * 2)))] += 1
        score = (corrected if scores == "corrected" else raw) / 2
        total, squares = total + score, squares + score * score
        if count < test.min_pairs:
            continue
        if scores == "pentanomial":
            result = test.pentanomial(counts)
        else:
            mean = total / count
            result = test.normal_moments(count, mean, max(squares / count - mean * mean, 0.0),
                                         pentanomial_variance(counts))
        if result.decision is not None:
            return count
    return len(order)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per mode and pair (default 1000)")
    parser.add_argument("--modes", help="modes, comma-separated (default: every registered two-seat mode)")
    parser.add_argument("--pairs", default=DEFAULT_PAIRS, help=f"A:B agent pairs (default {DEFAULT_PAIRS})")
    parser.add_argument("--elo1", type=float, default=20.0, help="the SPRT's H1 (default 20 Elo; H0 is 0)")
    parser.add_argument("--resamples", type=int, default=100, help="orders the SPRT is run over (default 100)")
    parser.add_argument("--seed", type=int, default=20261127, help="keys every game's seed")
    parser.add_argument("-j", "--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    modes = arguments.modes.split(",") if arguments.modes else [mode.name for mode in game_modes()
                                                                 if mode.load().num_seats == 2]
    pairs = [tuple(part.split(":")) for part in arguments.pairs.split(",")]
    started = time.perf_counter()
    report: dict[str, dict[str, Any]] = {}
    failures = []
    with multiprocessing.get_context("fork").Pool(arguments.jobs) as pool:
        for mode in modes:
            model = model_for(load_game(mode))
            report[mode] = {}
            for a, b in pairs:
                tasks = [(mode, a, b, arguments.seed, index) for index in range(arguments.games // 2)]
                played = pool.map(play_pair, tasks, chunksize=4)
                raw = [value for row in played for value in (row[0], row[2])]
                corrected = [value for row in played for value in (row[1], row[3])]
                pairs_both = [(row[0] + row[2], row[1] + row[3]) for row in played]
                variance_raw, variance_corrected = statistics.pvariance(raw), statistics.pvariance(corrected)
                games_raw, games_corrected, games_pentanomial = (
                    sprt_games(pairs_both, scores, arguments.elo1, arguments.resamples, arguments.seed)
                    for scores in ("raw", "corrected", "pentanomial"))
                row = report[mode][f"{a}:{b}"] = {
                    "games": len(raw), "mean_raw": round(statistics.fmean(raw), 4),
                    "mean_corrected": round(statistics.fmean(corrected), 4),
                    "variance_raw": round(variance_raw, 5), "variance_corrected": round(variance_corrected, 5),
                    "ratio": round(variance_raw / variance_corrected, 3) if variance_corrected > 0 else None,
                    "sprt_games_raw": round(games_raw, 1), "sprt_games_corrected": round(games_corrected, 1),
                    "sprt_ratio": round(games_raw / games_corrected, 3) if games_corrected else None,
                    "sprt_games_pentanomial": round(games_pentanomial, 1),
                    "model": model.label if model is not None else None}
                if family_of(mode).name.startswith("general-orders") and (row["sprt_ratio"] or 0) < 2.0:
                    failures.append(f"{mode} {a}:{b}: {row['sprt_ratio']}x fewer SPRT games (goal 2x)")
                if not arguments.json:
                    print(f"{mode:34s} {a + ':' + b:18s} var {variance_raw:.4f} -> {variance_corrected:.4f} "
                          f"(x{row['ratio']}); SPRT games {games_raw:.0f} -> {games_corrected:.0f} "
                          f"(x{row['sprt_ratio']}; pentanomial {games_pentanomial:.0f}); model {row['model']}",
                          flush=True)
    command = (f"python bench/luck.py --games {arguments.games} --pairs {arguments.pairs} --elo1 {arguments.elo1:g} "
               f"--seed {arguments.seed}" + (f" --modes {arguments.modes}" if arguments.modes else ""))
    if arguments.json:
        print(json.dumps({"seed": arguments.seed, "games": arguments.games, "modes": report,
                          "goal_met": not failures, "failures": failures, "command": command,
                          "seconds": round(time.perf_counter() - started, 1)}, indent=2))
        return 0
    print(("goal met" if not failures else "goal NOT met:\n  " + "\n  ".join(failures)))
    print(f"{time.perf_counter() - started:.0f} s; command: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

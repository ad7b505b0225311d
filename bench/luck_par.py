#!/usr/bin/env python3
"""The duplicate par: what the same deal gave the family's scripted players, as a control variate (offline).

    python bench/luck_par.py [--mode NAME] [--games N] [--replays K] [--pairs A:B,...] [--proxies NAME]
                             [--bootstrap B] [-j N] [--json]

For each pair A:B, N games (default 200) between A and B, A in seat 0 in the even games and in seat 1 in the odd
ones (seat-swapped pairs), each on a chance seed of its own (`game_seed(SEED_KEY, i)`). A game's par is seat 0's
mean points over K replays (default 8) of the same chance seed between two of the proxies (--proxies, one
built-in player; default the family's scripted one), each replay's players seeded apart from the game's and
from each other (the referee's seed salt): what the deal, its draws and dice as that seed gives them, was worth
to those players (duplicate bridge's par). A's luck is its seat's par less that seat's mean par; over a
seat-swapped pair the mean cancels (the proxies are one player in both seats: a seat-0 par's expectation is m,
the seat-1 par's 1 - m), so a pair's luck is the
difference of its two games' seat-0 pars and needs no fitted constant: unbiased whatever A and B are, as
`bias` (the corrected pairs' mean less the raw pairs', 95% interval) checks.

Printed per pair: `correlation`, Pearson's r of A's par with A's points (Fisher 95% interval); `ratio_beta1`,
the games' variance raw over corrected (beta 1, nothing fitted); `pair_ratio`, the same over the pairs' sums
(what an SPRT on pairs sees) with a 95% bootstrap interval over the pairs (`pair_ratio_interval`); the CPU per
game of the match and of its par (`match_cpu_ms`, `par_cpu_ms`). The par sees what chance decides only as far
as A and B use the deal as the proxies would: between the proxies themselves it is near that bound, between
other players it may see nothing (docs/fair-play.md says what was measured). Where the game's path changes how
the seed's draws fall (dice rolled by the number of units, say), replays of one seed share less of their chance.

With --json: {"mode", "games", "replays", "proxies", "pairs": {"A:B": {"games", "mean_raw", "mean_corrected",
"correlation", "ratio_beta1", "pair_ratio", "pair_ratio_interval", "bias", "match_cpu_ms", "par_cpu_ms"}},
"command"}.
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
from arena.ratings.stats import mean_interval  # noqa: E402
from arena.games.base import points  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import referee_match, run_in_process  # noqa: E402
from arena.referee.record import MatchRecord  # noqa: E402
from arena.referee.seats import AgentSeat  # noqa: E402
from arena.referee.seeds import game_seed  # noqa: E402
from bench.luck import correlation  # noqa: E402  (Pearson's r with its Fisher interval, as bench/luck.py gives it)

SEED_KEY = 0xD0B1E


def seat0_points(record: MatchRecord) -> float:
    """Seat 0's points in a finished match (1 a win, 1/2 a draw)."""
    assert record.result is not None
    ranking = record.result.ranking
    return points(ranking[0] < ranking[1], ranking[0] == ranking[1])


def played(mode: str, players: tuple[str, str], seed: int, salt: str) -> MatchRecord:
    """One match on chance seed `seed`, its players' seeds keyed by `salt`."""
    return run_in_process(referee_match(load_game(mode), [AgentSeat(make_agent(name)) for name in players], seed,
                                        seed_salt=salt))


def one_game(task: tuple[str, str, str, str, int, int]) -> tuple[float, float, float, float]:
    """(A's points, seat 0's par, the match's CPU seconds, the par's) of game `index` of the pair."""
    mode, first, second, proxies, index, replays = task
    seed = game_seed(SEED_KEY, index)
    a_seat = index % 2
    started = time.process_time()
    score = seat0_points(played(mode, (first, second) if a_seat == 0 else (second, first), seed, f"game-{index}"))
    match_s = time.process_time() - started
    par = statistics.fmean(seat0_points(played(mode, (proxies, proxies), seed, f"par-{index}-{k}"))
                           for k in range(replays))
    return (score if a_seat == 0 else 1.0 - score), par, match_s, time.process_time() - started - match_s


def interval(values: list[float]) -> dict[str, float]:
    """The mean and its normal 95% interval."""
    mean, low, high = mean_interval(sum(values), sum(value * value for value in values), len(values))
    return {"mean": round(mean, 5), "low": round(low, 5), "high": round(high, 5)}


def ratio(raw: list[float], corrected: list[float]) -> float | None:
    """The variance raw over corrected (None where the corrected scores do not vary)."""
    variance = statistics.pvariance(corrected)
    return round(statistics.pvariance(raw) / variance, 3) if variance > 0 else None


def ratio_interval(raw: list[float], corrected: list[float], bootstrap: int) -> list[float] | None:
    """A 95% bootstrap interval of ratio(raw, corrected), the two resampled together."""
    rng = random.Random(SEED_KEY)
    drawn = ([rng.randrange(len(raw)) for _ in raw] for _ in range(bootstrap))
    found = sorted(value for value in (ratio([raw[i] for i in d], [corrected[i] for i in d]) for d in drawn)
                   if value is not None)
    return [found[int(0.025 * (len(found) - 1))], found[int(0.975 * (len(found) - 1))]] if found else None


def figures(rows: list[tuple[float, float, float, float]], bootstrap: int) -> dict[str, Any]:
    """One pair's figures from its games' rows (game 2i and 2i + 1 a seat-swapped pair)."""
    scores = [row[0] for row in rows]
    mean_par = statistics.fmean(row[1] for row in rows)
    lucks = [(row[1] - mean_par) * (1 if index % 2 == 0 else -1) for index, row in enumerate(rows)]
    corrected = [score - luck for score, luck in zip(scores, lucks)]
    pairs = range(0, len(rows) - 1, 2)
    raw_pairs = [scores[i] + scores[i + 1] for i in pairs]
    pair_lucks = [rows[i][1] - rows[i + 1][1] for i in pairs]  # (the mean par cancels)
    corrected_pairs = [score - luck for score, luck in zip(raw_pairs, pair_lucks)]
    return {"games": len(rows), "mean_raw": round(statistics.fmean(scores), 4),
            "mean_corrected": round(statistics.fmean(corrected), 4), "correlation": correlation(lucks, scores),
            "ratio_beta1": ratio(scores, corrected), "pair_ratio": ratio(raw_pairs, corrected_pairs),
            "pair_ratio_interval": ratio_interval(raw_pairs, corrected_pairs, bootstrap),
            "bias": interval([-luck / 2 for luck in pair_lucks]),  # (a pair's mean a game, corrected less raw)
            "match_cpu_ms": round(1000 * statistics.fmean(row[2] for row in rows), 1),
            "par_cpu_ms": round(1000 * statistics.fmean(row[3] for row in rows), 1)}


def text(report: dict[str, Any]) -> str:
    """The report as lines to read: a pair a line, then the command."""
    lines = [f"{report['mode']} {name}, par of {report['replays']} {report['proxies']} replays: r "
             f"{row['correlation']}, variance ratio {row['ratio_beta1']} (games), {row['pair_ratio']} "
             f"{row['pair_ratio_interval']} (pairs), bias {row['bias']}, CPU {row['match_cpu_ms']} ms a match and "
             f"{row['par_cpu_ms']} ms its par" for name, row in report["pairs"].items()]
    return "\n".join([*lines, f"command: {report['command']}"])


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", default="major-general", help="a two-seat mode with a scripted player")
    parser.add_argument("--games", type=int, default=200, help="games per pair (default 200; even: seat-swapped pairs)")
    parser.add_argument("--replays", type=int, default=8, help="replays of each game's seed by the proxies (default 8)")
    parser.add_argument("--pairs", default="scripted:scripted,greedy:greedy", help="A:B pairs, comma-separated")
    parser.add_argument("--proxies", default="scripted", help="the built-in player whose replays give the par")
    parser.add_argument("--bootstrap", type=int, default=1000, help="resamples of the pair ratio's interval")
    parser.add_argument("-j", "--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    pairs = [tuple(spec.split(":", 1)) for spec in arguments.pairs.split(",") if spec.strip()]
    if arguments.games < 2 or arguments.replays < 1 or any(len(pair) != 2 for pair in pairs):
        parser.error("--games 2 or more, --replays 1 or more, pairs as A:B")
    report: dict[str, Any] = {"mode": arguments.mode, "games": arguments.games, "replays": arguments.replays,
                              "proxies": arguments.proxies, "pairs": {}}
    with multiprocessing.get_context("fork").Pool(arguments.jobs) as pool:
        for first, second in pairs:
            rows = pool.map(one_game, [(arguments.mode, first, second, arguments.proxies, index,
                                        arguments.replays)
                                       for index in range(arguments.games)], chunksize=1)
            report["pairs"][f"{first}:{second}"] = figures(rows, arguments.bootstrap)
    report["command"] = (f"python bench/luck_par.py --mode {arguments.mode} --games {arguments.games} "
                         f"--replays {arguments.replays} --pairs {arguments.pairs} --proxies {arguments.proxies}")
    print(json.dumps(report, indent=2) if arguments.json else text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

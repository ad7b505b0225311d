"""The search's optimism, measured once per game family and shipped (arena/analysis/calibration.json, read by
arena/analysis/calibration.py).

Information-set search flatters whoever is to move: searched from its own view, each side sees a little more
than it will get (strategy fusion: in the worlds it samples it also knows the other side's cards). Where one
side's move hands the position to the other with no chance step between, the two sides' estimates of that one
position should add to 1; measured on self-play, they add to 1 + 2 * optimism. The analysis takes that
optimism off every chance it reports (arena/analysis/match.py), so both sides' chances at one position add to
1 on average, and drops (a difference of two chances of one mover) are unchanged.

    python -m arena.analysis.measure_optimism [--matches 24] [--seed 2027] [--family NAME ...]

It plays its own matches (greedy against greedy, and greedy against random, seats alternating), never the
ones an analysis judges, at the default budget, and writes the file; `bench/analysis_quality.py` checks the
result on other matches.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys

from arena.agents import make_agent
from arena.analysis.calibration import CALIBRATION, measured
from arena.analysis.match import DEFAULT_BUDGET, Budget, analyse_record
from arena.games.registry import load_game
from arena.referee.authority import play_match

MODES = {"major-general": "major-general", "general-orders-wwii": "general-orders-wwii/alpine",
         "general-orders-sengoku": "general-orders-sengoku/rivers"}


def measure(mode: str, matches: int, seed: int) -> tuple[float, int]:
    """(optimism, pairs measured) on `matches` self-play matches of `mode`."""
    game = load_game(mode)
    rng = random.Random(seed)
    sums: list[float] = []
    for index in range(matches):
        specs = ("greedy", "greedy") if index % 2 == 0 else ("greedy", "random")
        agents = [make_agent(spec) for spec in (specs if index % 4 < 2 else specs[::-1])]
        record = play_match(game, agents, seed=rng.randrange(2 ** 62))
        sums += analyse_record(record, DEFAULT_BUDGET, seed=index, calibrated=False).position_sums()
    return (statistics.fmean(sums) - 1.0) / 2.0 if sums else 0.0, len(sums)


def main(argv: list[str] | None = None) -> int:
    """Measure the families asked for (all by default) and write calibration.json."""
    parser = argparse.ArgumentParser(prog="python -m arena.analysis.measure_optimism",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--family", action="append", default=[])
    args = parser.parse_args(argv)
    data = measured()
    for family in args.family or list(MODES):
        value, pairs = measure(MODES[family], args.matches, args.seed)
        data[family] = {"simulations": Budget.parse(DEFAULT_BUDGET).simulations, "optimism": round(value, 4),
                        "pairs": pairs, "matches": args.matches, "seed": args.seed, "mode": MODES[family]}
        print(f"{family}: optimism {value:+.4f} over {pairs} pairs ({args.matches} matches of {MODES[family]})")
    CALIBRATION.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

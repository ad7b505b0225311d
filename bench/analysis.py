#!/usr/bin/env python3
"""Match analysis cost: `arena analyse` time per decision at a budget, per game family, and a whole match.

    python bench/analysis.py [--budget 400] [--bots greedy,scripted] [--seed 7] [--game NAME ...] [--json]

For each game (default: one mode per family), one match of --bots is played and then analysed as
`arena analyse` does (every decision searched from the mover's information set at --budget); the
figures are the analysis's wall time for the whole match and per decision, and the decisions per
match. With --json: {"<game>": {"decisions", "seconds", "ms_per_decision", "turning_points"}, ...}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import make_agent  # noqa: E402
from arena.analysis import DEFAULT_BUDGET, Budget, analyse_record  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402

GAMES = ("major-general", "general-orders-wwii/alpine", "general-orders-wwii/island", "general-orders-sengoku/rivers",
         "general-orders-sengoku/fortress")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", default=DEFAULT_BUDGET)
    parser.add_argument("--bots", default="greedy,scripted")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--game", action="append", default=[])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    budget = Budget.parse(args.budget)
    figures = {}
    for name in args.game or GAMES:
        record = play_match(load_game(name), [make_agent(spec) for spec in args.bots.split(",")], seed=args.seed)
        started = time.perf_counter()
        analysis = analyse_record(record, budget)
        seconds = time.perf_counter() - started
        figures[name] = {"decisions": len(analysis.entries), "seconds": round(seconds, 2),
                         "ms_per_decision": round(1000 * seconds / max(1, len(analysis.entries)), 1),
                         "turning_points": len(analysis.turning_points)}
        if not args.json:
            figure = figures[name]
            print(f"{name}: {figure['decisions']} decisions analysed in {figure['seconds']:.1f}s, "
                  f"{figure['ms_per_decision']:.0f} ms per decision at budget {budget}", flush=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The match loop's own cost: random-agent matches per second through `play_match`, per game mode.

    python bench/match_loop.py [--seconds S] [--game NAME ...] [--json]

bench/engine.py plays random games on the rules engine alone; this plays the same kind of games
as matches (random agents as seats, chance from the seeded generator, every step recorded), so
the difference between the two is what the referee's loop costs. One core. With --json one
object: {"<game>": {"matches_per_s": .., "steps_per_s": .., "matches": ..}, ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import RandomAgent  # noqa: E402
from arena.games.registry import game_modes, load_game  # noqa: E402
from arena.referee import play_match  # noqa: E402


def measure(name: str, seconds: float) -> dict[str, float]:
    """Play random-agent matches of one mode for about `seconds`; return rates."""
    game = load_game(name)
    agents = [RandomAgent() for _ in range(game.num_seats)]
    matches = steps = 0
    seed = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        record = play_match(game, agents, seed)
        steps += len(record.steps)
        matches += 1
        seed += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - started
    return {"matches_per_s": round(matches / elapsed, 1), "steps_per_s": round(steps / elapsed, 1),
            "matches": matches}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game mode (default 2)")
    parser.add_argument("--game", action="append", help="only this game mode (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    names = arguments.game or [mode.name for mode in game_modes()]
    results = {}
    for name in names:
        measure(name, min(0.3, arguments.seconds))  # warm up
        results[name] = measure(name, arguments.seconds)
        if not arguments.json:
            r = results[name]
            print(f"{name:40s} {r['matches_per_s']:9.1f} matches/s {r['steps_per_s']:11.1f} steps/s "
                  f"({r['matches']} matches)", flush=True)
    if arguments.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Engine speed: full random games per second and decisions per second, per registered game, one core.

    python bench/engine.py [--seconds S] [--game NAME ...] [--json]

A random game: every decision uniform over `legal_actions()`, every chance node sampled with
`sample_chance`. Decisions count seats' choices (chance outcomes are counted apart). With --json
it prints one object: {"<game>": {"games_per_s": .., "decisions_per_s": .., ...}, ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games.base import CHANCE, Game  # noqa: E402
from arena.games.registry import game_modes, load_game  # noqa: E402


def measure(game: Game, seconds: float, seed: int = 0) -> dict[str, float]:
    """Play random games for about `seconds`; return rates."""
    rng = random.Random(seed)
    games = decisions = chance = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - started
    return {
        "games_per_s": round(games / elapsed, 1),
        "decisions_per_s": round(decisions / elapsed, 1),
        "chance_per_s": round(chance / elapsed, 1),
        "decisions_per_game": round(decisions / games, 1),
        "games": games,
        "seconds": round(elapsed, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game mode (default 3)")
    parser.add_argument("--game", action="append", help="only this game mode (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    names = args.game or [mode.name for mode in game_modes()]
    results: dict[str, dict[str, float]] = {}
    for name in names:
        game = load_game(name)
        measure(game, min(0.3, args.seconds))  # warm up
        results[name] = measure(game, args.seconds)
        if not args.json:
            r = results[name]
            print(f"{name:40s} {r['games_per_s']:9.1f} games/s {r['decisions_per_s']:11.1f} decisions/s "
                  f"({r['decisions_per_game']:.1f} decisions/game, {r['games']} games)", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"command: python bench/engine.py --seconds {args.seconds:g}"
              + "".join(f" --game {n}" for n in args.game or []))


if __name__ == "__main__":
    main()

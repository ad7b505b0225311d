#!/usr/bin/env python3
"""The balance of each game mode: equal strong built-in bots in both seats, the seats swapped.

    python bench/balance.py [--games N] [--modes NAME,...] [--bot SPEC] [-o NAME=VALUE ...] [--readings]
                            [--seed S] [-j N] [--json]

For every mode (or each of --modes), --games games of --bot against itself, each on its own seed: the
same bot sits in both seats (swapping them changes nothing), so a seat's edge is the game's, not a
bot's. Per mode: the first seat's (seat 0's) win rate with its 95% Wilson interval (a draw counts
half), the draw rate, the game length (decisions and steps), and how games end, by the rules' reason
(VP, HQ lost, ...). A mode is flagged when the interval excludes 50% (a seat is favoured) or when one
sudden ending (anything but playing to the end: score, VP, the tie-break) decides more than half of
the games (one mechanism decides them). With -o the modes are played with those options;
with --readings each mode is also measured under every choice of each of its options (`arena games`:
the disputed rulings and the alternative Alpine board), one option changed at a time.

With --json: {"<mode>[ options]": {"games", "first_seat_wins", "first_seat_win_rate", "interval": [lo, hi],
"draw_rate", "decisions_mean", "steps_mean", "endings": {reason: n}, "sudden_endings_by": {"hq_lost by
Barrage": n}, "flags": [...]}, ...}: a game that ends early is put down to the action of the last
commander deployed (General Orders).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import make_agent  # noqa: E402
from arena.cli.options import parse_options  # noqa: E402
from arena.cli.show import CliError  # noqa: E402
from arena.games.registry import game_modes, load_game, resolve  # noqa: E402
from arena.ratings.stats import wilson_interval  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402

DEFAULT_BOT = "mcts:iterations=100"
DEPLOYED = re.compile(r"deploy a commander to ([A-Z][a-z-]+)")
SUDDEN_SHARE = 0.5  # a sudden ending deciding more than this share of the games is flagged
FULL_LENGTH = {"score", "victory_points", "initiative_tie_break"}  # the endings of a game played to its end


def play_one(job: tuple[str, dict[str, Any], str, int]) -> tuple[list[int], str, int, int, str]:
    """One game: (ranking, ending reason, decisions, steps, the action that ended it early or "")."""
    name, options, bot, seed = job
    record = play_match(load_game(name, options), [make_agent(bot), make_agent(bot)], seed=seed)
    assert record.result is not None
    by = ""
    if record.result.reason not in FULL_LENGTH:  # General Orders: the action of the last commander deployed
        deployed = [found.group(1) for step in record.decisions if (found := DEPLOYED.search(step.label))]
        by = deployed[-1] if deployed else ""
    return list(record.result.ranking), record.result.reason, len(record.decisions), len(record.steps), by


def measure(name: str, options: dict[str, Any], bot: str, games: int, seed: int, pool: Any) -> dict[str, Any]:
    """The balance figures of one mode under `options` (see the module's docstring)."""
    jobs = [(name, options, bot, seed + index) for index in range(games)]
    results = pool.map(play_one, jobs, chunksize=1)
    first_wins = sum(1.0 if ranking[0] < ranking[1] else 0.5 if ranking[0] == ranking[1] else 0.0
                     for ranking, *_ in results)
    draws = sum(1 for ranking, *_ in results if ranking[0] == ranking[1])
    endings = Counter(reason for _ranking, reason, *_ in results)
    sudden_by = Counter(f"{reason} by {by}" for _ranking, reason, _decisions, _steps, by in results if by)
    low, high = wilson_interval(first_wins, games)
    flags = []
    if low > 0.5 or high < 0.5:
        flags.append(f"seat 0 {'favoured' if low > 0.5 else 'disfavoured'}: its interval excludes 50%")
    for reason, count in endings.most_common():
        if reason not in FULL_LENGTH and count > SUDDEN_SHARE * games:
            flags.append(f"{count} of {games} games end by {reason}")
    return {"games": games, "first_seat_wins": first_wins, "first_seat_win_rate": round(first_wins / games, 4),
            "interval": [round(low, 4), round(high, 4)], "draw_rate": round(draws / games, 4),
            "decisions_mean": round(statistics.fmean(r[2] for r in results), 1),
            "steps_mean": round(statistics.fmean(r[3] for r in results), 1),
            "endings": dict(endings.most_common()), "sudden_endings_by": dict(sudden_by.most_common()),
            "flags": flags}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per mode")
    parser.add_argument("--modes", default="all", help="comma-separated modes (default: every registered one)")
    parser.add_argument("--bot", default=DEFAULT_BOT, help=f"the built-in bot in both seats (default {DEFAULT_BOT})")
    parser.add_argument("-o", "--option", action="append", default=[], help="game option NAME=VALUE (repeatable)")
    parser.add_argument("--readings", action="store_true", help="also every other choice of each mode option")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be 2 or more")
    names = [mode.name for mode in game_modes()] if args.modes == "all" else \
        [resolve(name.strip()).name for name in args.modes.split(",") if name.strip()]
    try:
        options = parse_options(args.option)
    except CliError as error:
        parser.error(str(error))
    runs: list[tuple[str, dict[str, Any]]] = []
    for name in names:
        runs.append((name, options))
        if args.readings:
            for option in resolve(name).choices:
                runs += [(name, {**options, option.name: choice}) for choice in option.choices
                         if choice != options.get(option.name, option.default)]
    figures: dict[str, Any] = {}
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for name, chosen in runs:
            load_game(name, chosen)  # a bad option fails here, before any game
            label = name + "".join(f" {key}={value}" for key, value in sorted(chosen.items()))
            figures[label] = measure(name, chosen, args.bot, args.games, args.seed, pool)
            if not args.json:
                show(label, figures[label])
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{len(runs)} run(s) of {args.games} games, {args.bot} in both seats, {time.perf_counter() - started:.0f}s")
    return 0


def show(label: str, figure: dict[str, Any]) -> None:
    low, high = figure["interval"]
    endings = ", ".join(f"{reason} {count}" for reason, count in figure["endings"].items())
    if figure["sudden_endings_by"]:
        endings += " (" + ", ".join(f"{by} {count}" for by, count in figure["sudden_endings_by"].items()) + ")"
    print(f"{label}: seat 0 wins {figure['first_seat_win_rate']:.0%} [{low:.0%}, {high:.0%}], draws "
          f"{figure['draw_rate']:.0%}, {figure['decisions_mean']:.0f} decisions; endings: {endings}"
          + "".join(f"\n  FLAG: {flag}" for flag in figure["flags"]), flush=True)


if __name__ == "__main__":
    sys.exit(main())

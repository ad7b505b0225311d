#!/usr/bin/env python3
"""What one decision of each built-in player costs, in CPU seconds, in every game mode.

    python bench/agents.py [--players random,scripted,greedy] [--games N] [--modes NAME,...]
                           [--seed S] [-j N] [--json]
    python bench/agents.py --replay MODE:PLAYERS:SEED:DECISION      (time one decision again)

For each player and each mode: --games games (default 100) against random and --games against itself,
each on a seed of its own (drawn from --seed, itself drawn at random and printed unless given), the seats
alternating. Every decision of the measured player is timed in CPU seconds of its thread (so a busy
machine does not inflate the figures): the median, the 99th percentile and the maximum per mode, and the
worst decision's seed and number, with the --replay argument that times it again.

Goals (issue 32): no decision of greedy, scripted or random above 1 s of CPU; greedy's maximum within 50x
its median, in every mode. With --json: {"seed", "games", "players": {PLAYER: {MODE: {"decisions",
"median_s", "p99_s", "max_s", "max_over_median", "worst": {"seed", "players", "decision", "replay"}}}},
"goals": {"max_s", "greedy_max_over_median"}, "failures": [...], "ok"}.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import Agent, DecisionRequest, make_agent  # noqa: E402
from arena.games.registry import game_modes, load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402

DEFAULT_PLAYERS = "random,scripted,greedy"
GOAL_MAX_S = 1.0  # no decision above this, for greedy, scripted and random
GOAL_GREEDY_RATIO = 50.0  # greedy's max within this multiple of its median


class Timed(Agent):
    """Wraps an agent and keeps the CPU seconds of each of its decisions, numbered as the match counts them."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name, self.version = inner.name, inner.version
        self.times: list[tuple[float, int]] = []  # (CPU seconds, decision number in the match)
        self.counter: list[int] = [0]  # shared by both seats' wrappers: the match's decision number

    def reset(self, game: Any, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.inner.reset(game, seat, seed)

    def act(self, request: DecisionRequest) -> int:
        number = self.counter[0]
        self.counter[0] += 1
        started = time.thread_time()
        action = self.inner.act(request)
        self.times.append((time.thread_time() - started, number))
        return action

    def close(self) -> None:
        self.inner.close()


class Counted(Agent):
    """An unmeasured opponent that still counts the match's decisions."""

    def __init__(self, inner: Agent, counter: list[int]) -> None:
        self.inner, self.counter = inner, counter
        self.name, self.version = inner.name, inner.version

    def reset(self, game: Any, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.inner.reset(game, seat, seed)

    def act(self, request: DecisionRequest) -> int:
        self.counter[0] += 1
        return self.inner.act(request)


def play_one(task: tuple[str, str, str, int, int]) -> list[tuple[float, str, int, str, int]]:
    """One game: (mode, measured player, opponent, seed, which seat the measured one takes, or 2 for both);
    each measured decision as (cpu seconds, mode, seed, "a,b" players in seat order, decision number)."""
    mode, player, opponent, seed, seat = task
    game = load_game(mode)
    counter = [0]
    if seat == 2:
        first, second = Timed(make_agent(player)), Timed(make_agent(player))
        first.counter = second.counter = counter
        agents: list[Agent] = [first, second]
        timed = [first, second]
        names = f"{player},{player}"
    else:
        measured = Timed(make_agent(player))
        measured.counter = counter
        other = Counted(make_agent(opponent), counter)
        agents = [measured, other] if seat == 0 else [other, measured]
        timed = [measured]
        names = f"{player},{opponent}" if seat == 0 else f"{opponent},{player}"
    play_match(game, agents, seed)
    return [(seconds, mode, seed, names, number) for agent in timed for seconds, number in agent.times]


def replay_one(spec: str) -> None:
    """Time one decision again: MODE:PLAYERS:SEED:DECISION (as the bench prints it)."""
    mode, players, seed, decision = spec.rsplit(":", 3)
    counter = [0]
    seats = [Timed(make_agent(name)) for name in players.split(",")]
    for timed in seats:
        timed.counter = counter
    play_match(load_game(mode), seats, int(seed))
    for seat, timed in enumerate(seats):
        for seconds, number in timed.times:
            if number == int(decision):
                print(f"decision {number} of {mode} seed {seed} ({players}), seat {seat}: {seconds:.4f} s of CPU")
                return
    print(f"the match had no decision {decision}")


def summary(times: list[tuple[float, str, int, str, int]]) -> dict[str, Any]:
    seconds = sorted(entry[0] for entry in times)
    worst = max(times, key=lambda entry: entry[0])
    median = statistics.median(seconds)
    p99 = seconds[min(len(seconds) - 1, int(0.99 * len(seconds)))]
    _, mode, seed, players, number = worst
    return {"decisions": len(seconds), "median_s": round(median, 6), "p99_s": round(p99, 6),
            "max_s": round(worst[0], 6), "max_over_median": round(worst[0] / median, 1) if median > 0 else None,
            "worst": {"seed": seed, "players": players, "decision": number,
                      "replay": f"python bench/agents.py --replay {mode}:{players}:{seed}:{number}"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default=DEFAULT_PLAYERS, help=f"agent specs, comma-separated ({DEFAULT_PLAYERS})")
    parser.add_argument("--games", type=int, default=100, help="games per mode against random and against itself")
    parser.add_argument("--modes", help="only these modes, comma-separated (default: every registered mode)")
    parser.add_argument("--seed", type=int, help="draws every game's seed (default: drawn at random, printed)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    parser.add_argument("--replay", help="MODE:PLAYERS:SEED:DECISION: time that one decision again")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.replay:
        replay_one(args.replay)
        return
    root_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(root_seed)
    players = [name.strip() for name in args.players.split(",") if name.strip()]
    modes = args.modes.split(",") if args.modes else [mode.name for mode in game_modes()]
    tasks = []
    for player in players:
        for mode in modes:
            for index in range(args.games):
                tasks.append((mode, player, "random", rng.getrandbits(62), index % 2))
                tasks.append((mode, player, player, rng.getrandbits(62), 2))
    started = time.perf_counter()
    by_key: dict[tuple[str, str], list[tuple[float, str, int, str, int]]] = {}
    with multiprocessing.get_context("fork").Pool(max(1, args.jobs)) as pool:
        for task, times in zip(tasks, pool.imap(play_one, tasks, chunksize=4)):
            by_key.setdefault((task[1], task[0]), []).extend(times)
            if not args.json and len(by_key) and sum(map(len, by_key.values())) % 5000 < len(times):
                print(f"  ... {sum(map(len, by_key.values()))} decisions timed", file=sys.stderr, flush=True)
    results: dict[str, dict[str, Any]] = {}
    failures = []
    for player in players:
        results[player] = {}
        for mode in modes:
            times = by_key.get((player, mode), [])
            if not times:
                continue
            row = results[player][mode] = summary(times)
            name = player.split(":")[0]
            if name in ("random", "scripted", "greedy") and row["max_s"] > GOAL_MAX_S:
                failures.append(f"{player} {mode}: a decision took {row['max_s']:.3f} s of CPU (goal <= {GOAL_MAX_S} s)")
            ratio = row["max_over_median"]
            if name == "greedy" and ratio is not None and ratio > GOAL_GREEDY_RATIO:
                failures.append(f"{player} {mode}: max {ratio}x the median (goal <= {GOAL_GREEDY_RATIO:g}x)")
    command = (f"python bench/agents.py --players {args.players} --games {args.games} --seed {root_seed}"
               + (f" --modes {args.modes}" if args.modes else ""))
    if args.json:
        print(json.dumps({"seed": root_seed, "games": args.games, "players": results,
                          "goals": {"max_s": GOAL_MAX_S, "greedy_max_over_median": GOAL_GREEDY_RATIO},
                          "failures": failures, "ok": not failures, "seconds": round(time.perf_counter() - started, 1),
                          "command": command}, indent=2))
        return
    for player, rows in results.items():
        print(f"\n{player}: CPU seconds per decision ({args.games} games per mode against random, {args.games} "
              f"against itself)")
        print(f"  {'mode':34s} {'decisions':>9s} {'median':>9s} {'p99':>9s} {'max':>9s} {'max/med':>8s}  worst")
        for mode, row in rows.items():
            ratio = "-" if row["max_over_median"] is None else f"{row['max_over_median']:.0f}x"
            print(f"  {mode:34s} {row['decisions']:9d} {row['median_s']:9.5f} {row['p99_s']:9.5f} "
                  f"{row['max_s']:9.5f} {ratio:>8s}  {row['worst']['replay'].removeprefix('python bench/agents.py ')}")
    print("\n" + ("goals met" if not failures else "goals NOT met:\n  " + "\n  ".join(failures)))
    print(f"{time.perf_counter() - started:.0f} s; command: {command}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Playing strength: every pair of built-in bots over seat-swapped games, win rates with Wilson 95% intervals.

    python bench/strength.py [--games N] [--game NAME ...] [--bots SPEC,...] [--anchor SPEC] [--jobs J]
                             [--json] [--save-json FILE]

Bots (default, in this order; a pair is listed as "<earlier> vs <later>"): the built-in bots
    mcts               mcts:iterations=MCTS_ITERATIONS
    greedy             greedy
    scripted           scripted
    random             random
play every other one, and the anchor (--anchor; --anchor none drops it)
    openspiel-ismcts   openspiel-ismcts:seconds=EQUAL_SECONDS:evaluator=arena (OpenSpiel's ISMCTSBot
                       through the bridge, its leaves scored as Arena's MCTS scores them)
plays the first bot at equal time: mcts thinks as mcts:seconds=EQUAL_SECONDS:minor_share=1 there
(the same time on every decision, where it would otherwise spend half on steps inside a move).
Every pair plays --games games per game (default 200; made even): game 2k and 2k+1 share seed
SEED+k with the seats swapped. A bot's score is wins plus half its draws; win_rate_a is bot a's
score / games; low and high bound its Wilson 95% interval.

Games: every registered mode, except modes that fix an option the family's default mode leaves
"random" (e.g. major-general/hold-the-centre: the major-general mode already deals its scenario
card at random); --all-modes plays those too, --game picks modes by name.
With --json: {"<game>": {"<bot_a> vs <bot_b>": {"games": .., "win_rate_a": .., "low": .., "high": ..}}}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import make_agent  # noqa: E402
from arena.games.registry import families, load_game, resolve  # noqa: E402
from arena.ratings.stats import wilson_interval  # noqa: E402
from arena.referee import play_match  # noqa: E402

MCTS_ITERATIONS = 150
EQUAL_SECONDS = 0.01
DEFAULT_BOTS = (f"mcts:iterations={MCTS_ITERATIONS}", "greedy", "scripted", "random")
DEFAULT_ANCHOR = f"openspiel-ismcts:seconds={EQUAL_SECONDS}:evaluator=arena"
BLOCK = 10  # games per task handed to a worker


def short_name(spec: str) -> str:
    """'mcts:iterations=200' -> 'mcts'."""
    return spec.split(":", 1)[0]


def default_games(all_modes: bool) -> list[str]:
    """Registered modes to play, without the fixed-option variants of a mode that randomises them."""
    names = []
    for family, modes in families().items():
        default = resolve(family)
        randomised = {key for key, value in default.options.items() if value == "random"}
        for mode in modes:
            fixed = {key for key, value in mode.options.items()
                     if key != "name" and default.options.get(key) != value}
            if all_modes or mode is default or not fixed or not fixed <= randomised:
                names.append(mode.name)
    return names


def equal_time(spec: str, anchor: str) -> str:
    """`spec` thinking as long per decision as `anchor` does (MCTS takes a seconds budget)."""
    seconds = dict(part.split("=", 1) for part in anchor.split(":")[1:] if "=" in part).get("seconds")
    if seconds is None or short_name(spec) != "mcts":
        return spec
    params = [part for part in spec.split(":")[1:] if not part.startswith(("iterations=", "seconds=", "minor_share="))]
    return ":".join(["mcts", *params, f"seconds={seconds}", "minor_share=1"])


def play_block(game_name: str, spec_a: str, spec_b: str, first: int, count: int,
               seed: int) -> tuple[float, int, int, list[float]]:
    """Play games first..first+count-1 of a pair; returns (score of a, draws, games, [think ms of a, of b,
    decisions of a, of b])."""
    game = load_game(game_name)
    score = 0.0
    draws = 0
    think = [0.0, 0.0, 0.0, 0.0]
    for index in range(first, first + count):
        a_seat = index % 2
        agent_a, agent_b = make_agent(spec_a), make_agent(spec_b)
        agents = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
        record = play_match(game, agents, seed + index // 2)
        for agent in agents:
            agent.close()
        assert record.result is not None
        for step in record.decisions:
            side = 0 if step.seat == a_seat else 1
            think[side] += step.timing.get("think_ms", 0.0)
            think[2 + side] += 1
        ranking = record.result.ranking
        if ranking[a_seat] < ranking[1 - a_seat]:
            score += 1.0
        elif ranking[a_seat] == ranking[1 - a_seat]:
            score += 0.5
            draws += 1
    return score, draws, count, think


def report_game(game_name: str, totals: dict[tuple[str, str, str], list[float]],
                results: dict[str, dict[str, dict[str, float]]], quiet: bool) -> None:
    """Add a finished game's pairs to `results` and print them (unless `quiet`)."""
    if not quiet:
        print(file=sys.stderr)
    for (name, spec_a, spec_b), (score, draw_count, game_count, think_a, think_b, asked_a, asked_b) in totals.items():
        if name != game_name:
            continue
        count, draws = int(game_count), int(draw_count)
        low, high = wilson_interval(score, count)
        label = f"{short_name(spec_a)} vs {short_name(spec_b)}"
        results.setdefault(game_name, {})[label] = {
            "games": count, "win_rate_a": round(score / count, 3), "low": round(low, 3), "high": round(high, 3),
        }
        if not quiet:
            print(f"{game_name:31} {label:26} games {count:4}  win rate a {score / count:6.1%}  "
                  f"[{low:6.1%}, {high:6.1%}]  draws {draws:3}  ms/decision a {think_a / max(asked_a, 1):6.1f} "
                  f"b {think_b / max(asked_b, 1):6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair and game (default 200, made even)")
    parser.add_argument("--game", action="append", help="only this game mode (repeatable)")
    parser.add_argument("--all-modes", action="store_true", help="also every fixed-option variant mode")
    parser.add_argument("--bots", default=",".join(DEFAULT_BOTS), help="comma-separated agent specs")
    parser.add_argument("--anchor", default=DEFAULT_ANCHOR,
                        help="an agent that plays only the first bot, at equal time ('none': no anchor)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--save-json", type=Path, help="also write the JSON object to this file")
    args = parser.parse_args()

    specs = [spec.strip() for spec in args.bots.split(",") if spec.strip()]
    names = [short_name(spec) for spec in specs]
    if len(set(names)) != len(names) or len(specs) < 2:
        sys.exit("bench/strength.py: --bots needs at least two agents with distinct names")
    anchor = None if args.anchor.strip().lower() == "none" else args.anchor.strip()
    if anchor is not None and short_name(anchor) in names:
        sys.exit("bench/strength.py: the anchor must differ from the bots")
    for spec in specs + ([anchor] if anchor else []):
        make_agent(spec).close()  # a bad spec fails here, before any game
    games_per_pair = args.games + args.games % 2
    game_names = [resolve(name).name for name in args.game] if args.game else default_games(args.all_modes)
    pairs = [(specs[i], specs[j], specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    if anchor is not None:
        pairs.insert(len(specs) - 1, (specs[0], anchor, equal_time(specs[0], anchor), anchor))

    started = time.perf_counter()
    # score, draws, games, think ms of a, of b, decisions of a, of b
    totals: dict[tuple[str, str, str], list[float]] = {}
    blocks_left: dict[str, int] = {}
    results: dict[str, dict[str, dict[str, float]]] = {}
    tasks = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for game_name in game_names:
            blocks_left[game_name] = 0
            for spec_a, spec_b, played_a, played_b in pairs:
                totals[(game_name, spec_a, spec_b)] = [0.0, 0, 0, 0.0, 0.0, 0, 0]
                for first in range(0, games_per_pair, BLOCK):
                    count = min(BLOCK, games_per_pair - first)
                    future = pool.submit(play_block, game_name, played_a, played_b, first, count, args.seed)
                    tasks.append((future, (game_name, spec_a, spec_b)))
                    blocks_left[game_name] += 1
        keys = {future: key for future, key in tasks}
        done = 0
        for future in as_completed(keys):
            score, draws, count, think = future.result()
            key = keys[future]
            total = totals[key]
            total[0] += score
            total[1] += draws
            total[2] += count
            for index in range(4):
                total[3 + index] += think[index]
            done += 1
            blocks_left[key[0]] -= 1
            if not blocks_left[key[0]]:  # a game is complete: report it now, and save what is known so far
                report_game(key[0], totals, results, quiet=args.json)
                if args.save_json is not None:
                    args.save_json.write_text(json.dumps(results, indent=2) + "\n")
            elif not args.json:
                print(f"\r{done}/{len(tasks)} blocks, {time.perf_counter() - started:.0f} s", end="",
                      file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    results = {name: results[name] for name in game_names}  # in the order the games were asked for
    if args.save_json is not None:
        args.save_json.write_text(json.dumps(results, indent=2) + "\n")
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"bots: {', '.join(specs)}")
    if anchor is not None:
        print(f"anchor: {anchor} against {equal_time(specs[0], anchor)} (equal time per decision)")
    print(f"command: python bench/strength.py --games {args.games}"
          + "".join(f" --game {name}" for name in (args.game or []))
          + (" --all-modes" if args.all_modes else "")
          + (f" --bots {args.bots}" if args.bots != ",".join(DEFAULT_BOTS) else "")
          + (f" --anchor {args.anchor}" if args.anchor != DEFAULT_ANCHOR else "")
          + f"  ({elapsed:.0f} s with {args.jobs} worker{'s' if args.jobs != 1 else ''})")


if __name__ == "__main__":
    main()

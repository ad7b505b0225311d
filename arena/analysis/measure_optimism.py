"""The search's optimism, measured per game family and budget and shipped (arena/analysis/calibration.json, read
by arena/analysis/calibration.py).

Information-set search flatters whoever is to move: searched from its own view, each side sees a little more
than it will get (strategy fusion: in the worlds it samples it also knows the other side's cards). Where one
side's move hands the position to the other with no chance step between, the two sides' estimates of that one
position should add to 1; measured on self-play, they add to 1 + 2 * optimism. The optimism shrinks as the
budget grows (a deeper search sees more of what it cannot know), so it is measured at several budgets and
interpolated between them. The analysis takes it off every chance it reports (arena/analysis/match.py), so
both sides' chances at one position add to 1 on average, and drops (a difference of two chances of one mover)
are unchanged.

    python -m arena.analysis.measure_optimism [--matches 32] [--seed 2027] [--budget 100 --budget 400]
        [--family NAME ...] [--mode NAME ...]

A family is measured on one of its modes (MODES); --mode measures a mode of its own, which the analysis of that
mode then takes in place of its family's (a mode whose search flatters itself otherwise: Island's, where the
WWII family's is Alpine's). With --mode alone only the modes asked for are measured.

It plays its own matches (greedy against greedy, and greedy against random, seats alternating), never the
ones an analysis judges, at each budget (the same matches at every budget), and writes the file (the families
and budgets measured replace theirs; others are kept); each entry keeps the number of pairs, the 95% interval
and the command. `bench/analysis_quality.py` checks the result on other matches. It reads the file when it starts
and writes it whole when it ends: run one measuring command at a time (this one, or measure_noise).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

from arena.agents import make_agent
from arena.analysis.calibration import CALIBRATION, measured
from arena.analysis.match import Budget, analyse_record
from arena.games.registry import UnknownGameError, load_game
from arena.ratings.stats import mean_interval
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord

MODES = {"major-general": "major-general", "general-orders-wwii": "general-orders-wwii/alpine",
         "general-orders-sengoku": "general-orders-sengoku/rivers"}
BUDGETS = ("100", "400")


def matches_of(mode: str, matches: int, seed: int) -> list[MatchRecord]:
    """The self-play matches the optimism is measured on."""
    game = load_game(mode)
    rng = random.Random(seed)
    records = []
    for index in range(matches):
        specs = ("greedy", "greedy") if index % 2 == 0 else ("greedy", "random")
        agents = [make_agent(spec) for spec in (specs if index % 4 < 2 else specs[::-1])]
        records.append(play_match(game, agents, seed=rng.randrange(2 ** 62)))
    return records


def measure(records: list[MatchRecord], budget: str) -> dict[str, float | int]:
    """The optimism at `budget` on `records`: its value, its 95% interval and the pairs it was measured on."""
    sums: list[float] = []
    for index, record in enumerate(records):
        sums += analyse_record(record, budget, seed=index, calibrated=False).position_sums()
    if not sums:
        return {"optimism": 0.0, "low": 0.0, "high": 0.0, "pairs": 0}
    _, low, high = mean_interval(sum(sums), sum(value * value for value in sums), len(sums))
    return {"optimism": round((statistics.fmean(sums) - 1.0) / 2.0, 4), "low": round((low - 1.0) / 2.0, 4),
            "high": round((high - 1.0) / 2.0, 4), "pairs": len(sums)}


def measured_entry(key: str, mode: str, entry: Any, asked: list[str], matches: int, seed: int,
                   command: str) -> dict[str, Any]:
    """A family's (or a mode's own) entry with the budgets asked for measured on `matches` of `mode` (the
    budgets measured before and not asked for again kept)."""
    kept = {row["simulations"]: row for row in entry.get("budgets", [])} if isinstance(entry, dict) else {}
    records = matches_of(mode, matches, seed)
    for budget in asked:
        found = measure(records, budget)
        simulations = Budget.parse(budget).simulations
        kept[simulations] = {**kept.get(simulations, {}), "simulations": simulations, **found, "matches": matches,
                             "seed": seed, "command": command}  # (the noise's scale measured there is kept)
        print(f"{key} at {simulations}: optimism {found['optimism']:+.4f} [{found['low']:+.4f}, "
              f"{found['high']:+.4f}] over {found['pairs']} pairs ({matches} matches of {mode})")
    return {"mode": mode, "budgets": [kept[at] for at in sorted(kept)]}


def checked_arguments(parser: argparse.ArgumentParser, budgets: list[str], families: list[str],
                      modes: list[str]) -> list[tuple[str, str]]:
    """(key in calibration.json, mode measured) of each family and mode asked for (every family where neither
    is); before any match is played, a budget in seconds, a family not measured here or an unknown mode
    refused."""
    _check(parser, budgets, families, modes)
    measured_families = families or ([] if modes else list(MODES))
    return [(family, MODES[family]) for family in measured_families] + [(mode, mode) for mode in modes]


def _check(parser: argparse.ArgumentParser, budgets: list[str], families: list[str], modes: list[str]) -> None:
    for budget in budgets:
        if Budget.parse(budget).simulations is None:
            parser.error(f"--budget {budget}: the calibration is measured at a number of simulations")
    for family in families:
        if family not in MODES:
            parser.error(f"--family {family}: one of {', '.join(MODES)}")
    for mode in modes:
        try:
            load_game(mode)
        except UnknownGameError as error:
            parser.error(f"--mode {mode}: {error}")


def main(argv: list[str] | None = None) -> int:
    """Measure the families, modes and budgets asked for (all families, BUDGETS by default) and write
    calibration.json."""
    return measure_into(CALIBRATION, "arena.analysis.measure_optimism", __doc__, (32, 2027), measured_entry, argv)


EntryMeasure = Callable[[str, str, Any, list[str], int, int, str], dict[str, Any]]


def measure_into(path: Path, module: str, doc: str | None, defaults: tuple[int, int], measure_entry: EntryMeasure,
                 argv: list[str] | None, budgets: tuple[str, ...] = BUDGETS) -> int:
    """A measuring module's command line: its arguments read and checked, each family's (or mode's) entry
    measured by `measure_entry` (key, mode, the entry as it was, budgets, matches, seed, the command; `budgets`
    where none is asked for) and the file written at `path` (read at the start and written whole at the end: one
    measuring command at a time)."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=(doc or "").split("\n")[0])
    parser.add_argument("--matches", type=int, default=defaults[0])
    parser.add_argument("--seed", type=int, default=defaults[1])
    parser.add_argument("--budget", action="append", default=[], help="simulations per decision (repeatable)")
    parser.add_argument("--family", action="append", default=[])
    parser.add_argument("--mode", action="append", default=[], help="a mode measured on its own (repeatable)")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error(f"--matches {args.matches}: at least 1")
    asked = args.budget or list(budgets)
    measuring = checked_arguments(parser, asked, args.family, args.mode)
    command = " ".join([f"python -m {module}", *(sys.argv[1:] if argv is None else argv)])
    data = measured()
    for key, mode in measuring:
        data[key] = measure_entry(key, mode, data.get(key), asked, args.matches, args.seed, command)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

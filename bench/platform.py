#!/usr/bin/env python3
"""The platform's own cost: CPU time per match and per decision of the match loop, of a tournament's main process
(the serial part) and of a worker, beside the rules engine's own cost for the same games.

    python bench/platform.py [--modes NAME,...] [--games N] [--matches M] [--repeat R] [--against PATH] [--smoke]
                             [--json]

1. The match loop, per mode (default: every registered mode): --games games of random players played on the rules
   engine alone (each seat's choices and every chance outcome drawn as the match loop draws them: the same games,
   `same_games` says whether they came out the same) and the same games through `play_match` (arena.referee:
   seats, the watchdog, labels, the record). CPU time of the measuring process, per game and per decision of
   each; `loop_over_engine` is the loop's over the engine's (1 + what the loop adds, in engine time).
2. A tournament: a round robin of two random agents on Major General, --matches matches played by one worker
   process (as `arena tournament run -j 1`) and stored (SQLite) by the main process: the main process's CPU per
   stored match (the serial part that limits how far more workers scale) and the worker's, beside the engine's
   own cost of a Major General game (from 1.).

Every figure is CPU time on fixed work, measured in a fresh process of its own, the least of --repeat runs (load
only ever adds to it). With --against PATH a second checkout (its `arena` package) is measured the same way in
the same run, the two taking turns; `ratio_vs_against` is its CPU over this one's (above 1: this one is cheaper)
for the match loop per mode, the main process and the worker. With --smoke (the test suite's run: its figures mean
nothing) every size is tiny and the modes are Major General's alone unless given.

With --json: {"modes": {MODE: {"games", "decisions", "same_games", "engine_us_per_game", "engine_us_per_decision",
"loop_us_per_match", "loop_us_per_decision", "loop_over_engine"}}, "loop_over_engine": {MODE: ratio},
"tournament": {"game", "matches", "main_cpu_per_match_us", "worker_cpu_per_match_us", "engine_cpu_per_match_us"},
"main_cpu_per_match_us", "worker_cpu_per_match_us", "against": null or the same figures of PATH,
"ratio_vs_against": null or {"match_loop": {MODE: ratio}, "main": ratio, "worker": ratio}, "command"}.

Goals (issue 44): the match loop at least as fast as 4f3a736 in every mode (ratio_vs_against >= 1.0), its
bookkeeping at most the engine's own time (loop_over_engine <= 2.0), the main process at most 150 us of CPU per
stored match.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "platform":
    # A script in bench/ (its folder leads sys.path) imported the standard library's `platform`, as uuid and
    # SQLAlchemy do, and found this file: become that module for it (the import hands over what sys.modules holds
    # once this file has run), so every bench runs as if this file were not here. What follows only defines.
    import importlib.util
    import sysconfig

    _spec = importlib.util.spec_from_file_location("platform", Path(sysconfig.get_paths()["stdlib"]) / "platform.py")
    assert _spec is not None and _spec.loader is not None
    sys.modules["platform"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["platform"])
elif sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(Path(__file__).resolve().parents[1])  # run as a script: the repository first, not bench/

import argparse
import json
import os
import subprocess
import tempfile
import time
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOURNAMENT_GAME = "major-general"
BLOCK = 10  # games of the engine, then of the loop, in turn: both see the same load


# --- measured in a child process, on the `arena` of a given checkout ------------------------------------------

def _seat_seed(match_seed: int, seat: int) -> int:
    """The seed the match loop gives a seat's player in an unsalted match (arena.referee.authority.seat_seed)."""
    import random

    return random.Random(match_seed * 7919 + seat).getrandbits(63)


def _engine_game(game: Any, seed: int, chance_player: int) -> int:
    """One game of random players on the engine alone, drawn as `play_match` draws it; its steps."""
    import random

    chance = random.Random(seed)
    choosers = [random.Random(_seat_seed(seed, seat)) for seat in range(game.num_seats)]
    state = game.new_initial_state()
    limit = game.info.max_game_length
    steps = 0
    while not state.is_terminal() and steps < limit:
        player = state.current_player()
        if player == chance_player:
            state.apply_action(state.sample_chance(chance))
        else:
            state.apply_action(choosers[player].choice(state.legal_actions()))
        steps += 1
    return steps


def measure_loop(mode: str, games: int) -> dict[str, Any]:
    """CPU seconds of `games` games of `mode` on the engine alone and through the match loop, in blocks taking
    turns; their steps and decisions."""
    from arena.agents import RandomAgent
    from arena.games.base import CHANCE
    from arena.games.registry import load_game
    from arena.referee import play_match

    game = load_game(mode)
    agents = [RandomAgent() for _ in range(game.num_seats)]
    for seed in range(3):  # warm: first calls, caches
        _engine_game(game, seed, CHANCE)
        play_match(game, agents, seed)
    engine_s = loop_s = 0.0
    engine_steps = loop_steps = decisions = 0
    clock = time.process_time
    for first in range(0, games, BLOCK):
        seeds = range(1000 + first, 1000 + min(games, first + BLOCK))
        started = clock()
        for seed in seeds:
            engine_steps += _engine_game(game, seed, CHANCE)
        engine_s += clock() - started
        started = clock()
        for seed in seeds:
            record = play_match(game, agents, seed)
            loop_steps += len(record.steps)
            decisions += sum(1 for step in record.steps if step.seat != CHANCE)
        loop_s += clock() - started
    return {"engine_s": engine_s, "loop_s": loop_s, "games": games, "decisions": decisions,
            "same_games": engine_steps == loop_steps}


def measure_tournament(matches: int) -> dict[str, Any]:
    """CPU seconds of a tournament's main process and of its one worker over `matches` stored matches."""
    import resource

    from arena.games.registry import load_game
    from arena.store import Store
    from arena.tournament import LocalPoolExecutor, TournamentRunner, create_tournament, parse_bots

    with tempfile.TemporaryDirectory(prefix="arena-bench-platform-") as folder:
        store = Store.open(f"sqlite:///{Path(folder) / 'platform.db'}")
        tournament = create_tournament(store, game=load_game(TOURNAMENT_GAME), bots=parse_bots("a=random,b=random"),
                                       format="round-robin", rounds=max(1, matches // 2), seed=2024)
        main_before, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
        with LocalPoolExecutor(1) as executor:
            summary = TournamentRunner(store, tournament, executor).run()
        main_s = time.process_time() - main_before
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker, joined when the pool closed
        store.close()
    worker_s = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    return {"main_s": main_s, "worker_s": worker_s, "matches": summary.played}


def child(task: dict[str, Any]) -> None:
    """Measure one task on the arena of `task["source"]`; print its figures as JSON."""
    sys.path.insert(0, task["source"])
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [task["source"], os.environ.get("PYTHONPATH")]))
    if task["kind"] == "loop":
        print(json.dumps(measure_loop(task["mode"], task["games"])))
    else:
        print(json.dumps(measure_tournament(task["matches"])))


# --- the parent: runs the children, in turns, and reports ----------------------------------------------------

def run_child(task: dict[str, Any]) -> dict[str, Any] | None:
    """One measurement in a fresh process (None where that checkout cannot play the mode)."""
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(task)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"bench/platform.py: {task} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def least(runs: list[dict[str, Any] | None], key: str) -> float | None:
    """The least of the runs' figure `key` (None if a run failed)."""
    if not runs or any(run is None for run in runs):
        return None
    return min(float(run[key]) for run in runs if run is not None)


def loop_figures(runs: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """A mode's figures from its runs: per game and per decision, engine and loop (microseconds of CPU)."""
    engine_s, loop_s = least(runs, "engine_s"), least(runs, "loop_s")
    first = runs[0] if runs else None
    if engine_s is None or loop_s is None or first is None:
        return None
    games, decisions = int(first["games"]), max(1, int(first["decisions"]))
    return {"games": games, "decisions": decisions, "same_games": all(run and run["same_games"] for run in runs),
            "engine_us_per_game": round(1e6 * engine_s / games, 1),
            "engine_us_per_decision": round(1e6 * engine_s / decisions, 3),
            "loop_us_per_match": round(1e6 * loop_s / games, 1),
            "loop_us_per_decision": round(1e6 * loop_s / decisions, 3),
            "loop_over_engine": round(loop_s / engine_s, 3)}


def measure_all(sources: list[str], modes: list[str], games: int, matches: int, repeat: int) -> list[dict[str, Any]]:
    """Every figure of each source (checkout), the sources taking turns within each repeat."""
    loops: dict[tuple[str, str], list[dict[str, Any] | None]] = {}
    tournaments: dict[str, list[dict[str, Any] | None]] = {source: [] for source in sources}
    for turn in range(repeat):
        order = sources if turn % 2 == 0 else sources[::-1]
        for mode in modes:
            for source in order:
                loops.setdefault((source, mode), []).append(
                    run_child({"kind": "loop", "source": source, "mode": mode, "games": games}))
        for source in order:
            tournaments[source].append(run_child({"kind": "tournament", "source": source, "matches": matches}))
    results = []
    for source in sources:
        per_mode = {mode: loop_figures(loops[(source, mode)]) for mode in modes}
        played = tournaments[source][0]["matches"] if tournaments[source][0] else max(1, matches)
        main_s, worker_s = least(tournaments[source], "main_s"), least(tournaments[source], "worker_s")
        engine = per_mode.get(TOURNAMENT_GAME)
        results.append({
            "source": source, "modes": per_mode,
            "loop_over_engine": {mode: figures["loop_over_engine"] if figures else None
                                 for mode, figures in per_mode.items()},
            "tournament": {"game": TOURNAMENT_GAME, "matches": played,
                           "main_cpu_per_match_us": None if main_s is None else round(1e6 * main_s / played, 1),
                           "worker_cpu_per_match_us": None if worker_s is None else round(1e6 * worker_s / played, 1),
                           "engine_cpu_per_match_us": engine["engine_us_per_game"] if engine else None}})
    return results


def ratio(theirs: float | None, ours: float | None) -> float | None:
    return round(theirs / ours, 3) if theirs and ours else None


def ratios(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Their CPU over ours: the match loop per mode, the main process and the worker."""
    loop = {mode: ratio((theirs["modes"].get(mode) or {}).get("loop_us_per_match"),
                        (figures or {}).get("loop_us_per_match")) for mode, figures in ours["modes"].items()}
    return {"match_loop": loop,
            "main": ratio(theirs["tournament"]["main_cpu_per_match_us"], ours["tournament"]["main_cpu_per_match_us"]),
            "worker": ratio(theirs["tournament"]["worker_cpu_per_match_us"],
                            ours["tournament"]["worker_cpu_per_match_us"])}


def print_table(figures: dict[str, Any], against: dict[str, Any] | None, compared: dict[str, Any] | None) -> None:
    print(f"{'mode':34s} {'engine us/game':>14s} {'loop us/match':>14s} {'loop us/dec':>12s} {'loop/engine':>11s}"
          + (f" {'vs against':>10s}" if compared else ""))
    for mode, row in figures["modes"].items():
        if row is None:
            print(f"{mode:34s} (not measured)")
            continue
        versus = f" {compared['match_loop'].get(mode) or '-':>10}" if compared else ""
        print(f"{mode:34s} {row['engine_us_per_game']:>14.1f} {row['loop_us_per_match']:>14.1f} "
              f"{row['loop_us_per_decision']:>12.3f} {row['loop_over_engine']:>11.3f}{versus}"
              + ("" if row["same_games"] else "  (the engine's games differ from the loop's)"))
    tournament = figures["tournament"]
    print(f"tournament ({tournament['matches']} {tournament['game']} matches, 1 worker): main process "
          f"{tournament['main_cpu_per_match_us']} us a stored match, worker {tournament['worker_cpu_per_match_us']} us "
          f"a match (the engine's own: {tournament['engine_cpu_per_match_us']} us)")
    if against is not None and compared is not None:
        theirs = against["tournament"]
        print(f"against {against['source']}: main {theirs['main_cpu_per_match_us']} us ({compared['main']}x ours), "
              f"worker {theirs['worker_cpu_per_match_us']} us ({compared['worker']}x ours)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--modes", help="modes, comma-separated (default: every registered mode)")
    parser.add_argument("--games", type=int, help="games per mode, on the engine and through the loop (default 200)")
    parser.add_argument("--matches", type=int, help="matches of the tournament (default 1000)")
    parser.add_argument("--repeat", type=int, help="runs of each measurement; the least counts (default 3)")
    parser.add_argument("--against", type=Path, help="a second checkout, measured in the same run")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, Major General alone (the tests' run)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # (a measurement: its task as JSON)
    arguments = parser.parse_args(argv)
    if arguments.child:
        child(json.loads(arguments.child))
        return 0
    smoke = arguments.smoke
    games = arguments.games or (3 if smoke else 200)
    matches = arguments.matches or (4 if smoke else 1000)
    repeat = arguments.repeat or (1 if smoke else 3)
    if arguments.modes:
        modes = arguments.modes.split(",")
    elif smoke:
        modes = [TOURNAMENT_GAME]
    else:
        sys.path.insert(0, str(ROOT))
        from arena.games.registry import game_modes

        modes = [mode.name for mode in game_modes()]
    sources = [str(ROOT)] + ([str(arguments.against.resolve())] if arguments.against else [])
    measured = measure_all(sources, modes, games, matches, repeat)
    ours, against = measured[0], (measured[1] if len(measured) > 1 else None)
    compared = ratios(ours, against) if against is not None else None
    report = {"modes": ours["modes"], "loop_over_engine": ours["loop_over_engine"], "tournament": ours["tournament"],
              "main_cpu_per_match_us": ours["tournament"]["main_cpu_per_match_us"],
              "worker_cpu_per_match_us": ours["tournament"]["worker_cpu_per_match_us"],
              "against": against, "ratio_vs_against": compared,
              "command": " ".join(["python", "bench/platform.py", *(argv if argv is not None else sys.argv[1:])])}
    if arguments.json:
        print(json.dumps(report, indent=2))
        return 0
    print_table(ours, against, compared)
    print(f"command: {report['command']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

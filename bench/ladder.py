"""Ladder service round overhead per match, beside the match time itself, measured in one run.

    python bench/ladder.py [--json] [--rounds 5] [--matches 40] [--sandbox bwrap|none]

A ladder service (arena.ladder.LadderService) on Major General plays `--rounds` rounds of `--matches`
matches each, one match at a time (-j 1), so a round's wall time is its matches' own time plus what
the service adds: taking the field, planning the tables by expected information, storing the tables,
the results and their rating updates, and keeping its state. Two fields:

1. agents: six built-in players (random, greedy and scripted, two of each), played in a worker process;
2. programs: four bot programs (copies of arena/bots/random, registered as submitted versions), every match
   played through the referee, each program in the sandbox (`--sandbox`, default bwrap).

For each: the mean match time (ms, the matches' own wall times as stored), the round overhead per match
(ms: round wall time minus the matches' times, over the matches) and the ratio overhead / match.
The anchor is the match time itself, measured in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bots import BUILTIN_BOTS
from arena.games.registry import load_game
from arena.ladder import LadderService, LadderSettings, Schedule
from arena.referee.players import PlayerKind
from arena.sandbox.launch import SandboxSettings
from arena.store import BotIdentity, Store
from arena.tournament import parse_bots
from arena.tournament.service import PlaySettings

ROOT = Path(__file__).resolve().parents[1]
GAME = load_game("major-general")


def measure(folder: Path, field: str, rounds: int, matches: int, sandbox: str) -> dict[str, Any]:
    """Play the rounds; the per-round and overall figures."""
    store = Store.open(f"sqlite:///{folder / f'{field}.db'}")
    if field == "agents":
        builtins = parse_bots("r1=random,r2=random,g1=greedy,g2=greedy,s1=scripted,s2=scripted")
    else:
        builtins = []
        for name in ("prog-a", "prog-b", "prog-c", "prog-d"):
            copy = folder / name
            shutil.copytree(BUILTIN_BOTS / "random", copy)
            text = (copy / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"')
            (copy / "bot.toml").write_text(text)
            bot, _ = store.bots.add_version(BotIdentity(name, "1", name, PlayerKind.PROGRAM, str(copy)), games=["*"])
            store.bots.set_status(bot, "live", {"ok": True, "bench": True})
    settings = LadderSettings(games=(GAME,), schedule=Schedule.parse("1s"), matches_per_round=matches,
                              max_pending=matches, builtins={GAME.name: tuple(builtins)}, seed=11)
    service = LadderService(store, settings, PlaySettings(concurrency=1, sandbox=SandboxSettings(mode=sandbox)),
                            log=lambda _line: None)
    service.prepare()
    figures = []
    try:
        service.play_round()  # warm-up: workers, the referee and the bot processes start
        for _ in range(rounds):
            seen = {m.id for m in store.matches.of_tournament(service.ladders[GAME.name][1])}
            started = time.perf_counter()
            report = service.play_round()
            wall_s = time.perf_counter() - started
            fresh = [m for m in store.matches.of_tournament(service.ladders[GAME.name][1]) if m.id not in seen]
            match_s = sum(float(m.timings.get("wall_ms", 0.0)) for m in fresh) / 1000.0
            part = report.pools[0]
            assert part.stored == len(fresh) > 0
            figures.append({"matches": len(fresh), "round_s": wall_s, "match_ms": 1000 * match_s / len(fresh),
                            "overhead_ms_per_match": 1000 * (wall_s - match_s) / len(fresh)})
    finally:
        service.close()
        store.close()
    match_ms = statistics.median(f["match_ms"] for f in figures)
    overhead_ms = statistics.median(f["overhead_ms_per_match"] for f in figures)
    return {"field": field, "rounds": rounds, "matches_per_round": statistics.median(f["matches"] for f in figures),
            "match_ms": round(match_ms, 3), "overhead_ms_per_match": round(overhead_ms, 3),
            "overhead_per_match_time": round(overhead_ms / match_ms, 3),
            "round_s": round(statistics.median(f["round_s"] for f in figures), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        results = [measure(Path(temp), field, args.rounds, args.matches, args.sandbox)
                   for field in ("agents", "programs")]
    if args.json:
        print(json.dumps({"fields": results}, indent=2))
        return
    for row in results:
        print(f"{row['field']:>8}: {row['matches_per_round']:.0f} matches a round (median of {row['rounds']} rounds, "
              f"-j 1): match {row['match_ms']:.2f} ms, round overhead {row['overhead_ms_per_match']:.2f} ms per "
              f"match, ratio overhead/match {row['overhead_per_match_time']:.3f} (round {row['round_s']:.2f} s)")


if __name__ == "__main__":
    main()

"""Tournament throughput and rerating speed.

    python bench/tournament.py [--json] [--matches 1000] [--results 100000]

1. A round-robin of two random agents on Major General, `--matches` matches in all, run with
   concurrency 1 and then 2 (worker processes; the main process stores every match and its rating
   update in SQLite, overlapping with the play even at concurrency 1), and serially in one process
   for reference: matches/s for each (best of --repeat alternating runs, default 5) and the scaling ratio
   c2 / c1 (target: at least 1.7 on 2 cores; other load on the machine spoils it, so the load
   average before the run is printed too).
2. Rating `--results` stored two-seat results from scratch (`arena rerate`): seconds (target: <= 30 s
   for 100,000), reading them, recomputing TrueSkill and writing the history and ratings.
With --json: one JSON object with matches_per_s_c1, matches_per_s_c2, scaling, rerate_100k_s (the
rerating time scaled to 100,000 results) and the raw figures, including the CPU time per match of
the main process and of the workers and the scaling those allow on two idle cores
(2 x workers / (workers + main)), a figure other load on the machine does not spoil, and the anchor
measured in the same run: host_scaling, the same kind of matches played by 2 forked processes
storing nothing against 1 (what the host's two cores give right now), and scaling_vs_host.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import insert

from arena.games.registry import load_game
from arena.ratings.rerate import rerate
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.store.models import Bot, Entry, Match, MatchSeat, Record, Tournament
from arena.tournament import InlineExecutor, LocalPoolExecutor, TournamentRunner, create_tournament, parse_bots
from arena.tournament.formats import derive_seed
from arena.tournament.jobs import MatchJob, SeatBot, play_jobs

GAME = "major-general"


CPU_MS: dict[int, tuple[float, float]] = {}  # concurrency -> (main process, workers) CPU ms per match


def tournament_rate(folder: Path, matches: int, concurrency: int) -> float:
    """Matches per second of a fresh tournament of `matches` random-agent matches (concurrency 0: serial,
    every match played in this process between stores)."""
    folder.mkdir(parents=True, exist_ok=True)
    store = Store.open(f"sqlite:///{folder / f'c{concurrency}.db'}")
    game = load_game(GAME)
    tournament = create_tournament(store, game=game, bots=parse_bots("r1=random,r2=random"), format="round-robin",
                                   rounds=max(1, matches // 2), seed=2024)
    started = time.perf_counter()
    main_cpu, children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    with (LocalPoolExecutor(concurrency) if concurrency else InlineExecutor()) as executor:
        summary = TournamentRunner(store, tournament, executor).run()
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, joined when the pool closed
    workers = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    CPU_MS[concurrency] = (1000 * (time.process_time() - main_cpu) / summary.played, 1000 * workers / summary.played)
    assert summary.finished and summary.stored == 2 * max(1, matches // 2), summary
    store.close()
    return summary.played / elapsed


def play_only_rate(matches: int, processes: int) -> float:
    """Matches per second of the same kind of matches played by `processes` forked processes with
    nothing stored: what the host itself allows, the anchor for the tournament's scaling."""
    import multiprocessing

    seats = (SeatBot(1, "r1", "1", PlayerKind.AGENT, "random"), SeatBot(2, "r2", "1", PlayerKind.AGENT, "random"))
    jobs = [MatchJob(0, n, 0, 0, GAME, {}, derive_seed(2024, n), seats) for n in range(matches)]
    play_jobs(jobs[:2])  # load the game before forking, as the pool's workers find it
    context = multiprocessing.get_context("fork")
    started = time.perf_counter()
    workers = [context.Process(target=play_jobs, args=(jobs[share::processes],)) for share in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return matches / (time.perf_counter() - started)


def fill_results(store: Store, results: int, bots: int = 20, seed: int = 7) -> None:
    """Store `results` synthetic two-seat results between `bots` bots of unequal strength (fast bulk insert)."""
    rng = random.Random(seed)
    now = datetime(2025, 1, 1)
    with store.engine.begin() as conn:
        conn.execute(insert(Bot), [{"name": f"bot{i}", "version": "1", "artifact_hash": f"{i:016x}", "owner": "",
                                    "kind": PlayerKind.AGENT.value, "spec": "random", "created_at": now}
                                   for i in range(bots)])
        tournament = conn.execute(insert(Tournament).values(
            name=None, game=GAME, pool=GAME, options={}, format="round-robin", seed=seed, rounds=1, settings={},
            status="finished", created_at=now)).inserted_primary_key[0]  # type: ignore[index]
        conn.execute(insert(Entry), [{"tournament_id": tournament, "position": i, "bot_id": i + 1}
                                     for i in range(bots)])
        text = b'{"type":"header"}\n'
        record = conn.execute(insert(Record).values(encoding="jsonl+gzip", size=len(text),
                                                    data=gzip.compress(text))).inserted_primary_key[0]  # type: ignore[index]
        strength = [rng.gauss(0, 1) for _ in range(bots)]
        for start in range(0, results, 20_000):
            rows, seats = [], []
            for n in range(start, min(results, start + 20_000)):
                a, b = rng.sample(range(bots), 2)
                roll = rng.random()
                p_a = 1 / (1 + pow(10, strength[b] - strength[a]))
                ranking = [0, 0] if roll < 0.05 else ([0, 1] if roll < 0.05 + 0.95 * p_a else [1, 0])
                when = now + timedelta(seconds=n)
                rows.append({"id": n + 1, "tournament_id": tournament, "round": n, "pairing": 0, "rotation": 0,
                             "uid": f"{n:032x}", "game": GAME, "pool": GAME, "options": {}, "seed": n,
                             "num_seats": 2, "ranking": ranking, "scores": [], "reason": "score", "offender": None,
                             "detail": "", "steps": 0, "decisions": 0, "timings": {}, "record_id": record,
                             "rated": True, "started_at": when, "finished_at": when})
                seats.append({"match_id": n + 1, "seat": 0, "bot_id": a + 1, "rank": ranking[0], "score": None})
                seats.append({"match_id": n + 1, "seat": 1, "bot_id": b + 1, "rank": ranking[1], "score": None})
            conn.execute(insert(Match), rows)
            conn.execute(insert(MatchSeat), seats)


def rerate_seconds(folder: Path, results: int) -> float:
    """Seconds to rerate `results` stored results from scratch."""
    store = Store.open(f"sqlite:///{folder / 'rerate.db'}")
    fill_results(store, results)
    started = time.perf_counter()
    summary = rerate(store, GAME)
    elapsed = time.perf_counter() - started
    assert summary.matches == results, summary
    store.close()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--matches", type=int, default=1000, help="matches per concurrency level (default 1000)")
    parser.add_argument("--results", type=int, default=100_000, help="stored results to rerate (default 100000)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs per concurrency, alternating; the best counts (the host's noise spoils single runs)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as temporary:
        folder = Path(temporary)
        rates: dict[int, list[float]] = {0: [], 1: [], 2: []}
        play_only: dict[int, list[float]] = {1: [], 2: []}
        for attempt in range(max(1, args.repeat)):
            for concurrency in (1, 2, 0):
                rates[concurrency].append(tournament_rate(folder / f"{attempt}", args.matches, concurrency))
            for processes in (1, 2):
                play_only[processes].append(play_only_rate(args.matches, processes))
        c1, c2 = max(rates[1]), max(rates[2])
        host_scaling = max(play_only[2]) / max(play_only[1])
        rerate_s = rerate_seconds(folder, args.results)
    scaling = c2 / c1
    rerate_100k = rerate_s * 100_000 / args.results
    figures = {
        "matches": args.matches, "matches_per_s_c1": round(c1, 1), "matches_per_s_c2": round(c2, 1),
        "scaling": round(scaling, 3), "scaling_target": 1.7, "results": args.results,
        "rerate_s": round(rerate_s, 3), "rerate_100k_s": round(rerate_100k, 3), "rerate_target_s": 30.0,
        "cpu_ms_per_match_main": round(CPU_MS[2][0], 3), "cpu_ms_per_match_workers": round(CPU_MS[2][1], 3),
        "scaling_cpu_bound": round(2 * CPU_MS[2][1] / (CPU_MS[2][1] + CPU_MS[2][0]), 3),
        "matches_per_s_serial": round(max(rates[0]), 1), "scaling_vs_serial": round(c2 / max(rates[0]), 3),
        "runs_c1": [round(r, 1) for r in rates[1]], "runs_c2": [round(r, 1) for r in rates[2]],
        "play_only_per_s_p1": round(max(play_only[1]), 1), "play_only_per_s_p2": round(max(play_only[2]), 1),
        "host_scaling": round(host_scaling, 3), "scaling_vs_host": round(scaling / host_scaling, 3),
        "load_avg_1m_before": round(load_before, 2), "cores": os.cpu_count(), "command": "python " + " ".join(["bench/tournament.py", *sys.argv[1:]]),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"command: {figures['command']}  ({figures['cores']} cores, load average {load_before:.2f} before)")
    print(f"tournament, {args.matches} {GAME} matches, random agents, SQLite store:")
    print(f"  concurrency 1: {c1:8.1f} matches/s  (best of {figures['runs_c1']})")
    print(f"  concurrency 2: {c2:8.1f} matches/s  (best of {figures['runs_c2']})")
    print(f"  scaling c2/c1: {scaling:8.3f}  (target >= 1.7 on 2 cores)")
    print(f"  the host's own scaling, the same matches played by 1 and 2 processes storing nothing: "
          f"{host_scaling:.3f} ({figures['play_only_per_s_p1']:.1f} -> {figures['play_only_per_s_p2']:.1f} "
          f"matches/s); the tournament reaches {figures['scaling_vs_host']:.3f} of it")
    print(f"  serial, in-process: {figures['matches_per_s_serial']:.1f} matches/s; concurrency 2 is "
          f"{figures['scaling_vs_serial']:.3f} times that")
    print(f"  CPU per match: {figures['cpu_ms_per_match_main']:.3f} ms storing (main process), "
          f"{figures['cpu_ms_per_match_workers']:.3f} ms playing (workers): on 2 idle cores the scaling can reach "
          f"{figures['scaling_cpu_bound']:.3f}")
    print(f"rerating {args.results} stored results from scratch: {rerate_s:.2f} s "
          f"(= {rerate_100k:.2f} s per 100,000; target <= 30 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

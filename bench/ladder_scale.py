"""A ladder at internet scale: what each cost of a ladder is, and how it grows with the ladder's size.

    python bench/ladder_scale.py [--json] [--bots 10000] [--matches N] [--db URL] [--requests 20]

A store of `--bots` bots and `--matches` stored two-seat Major General results (default: 10,000,000 on
PostgreSQL at 127.0.0.1:5432, database test, in a schema of its own dropped afterwards; 1,000,000 on
SQLite with `--db sqlite`) is filled with bulk inserts (COPY on PostgreSQL), not by playing. The same is
done at 1/100 and 1/10 of the size first, in the same run, so that each figure is printed at three sizes
and its growth is visible. At each size:

- `arena rerate` of the whole pool (which also writes the rating history the pages show): seconds and
  the peak memory of its process;
- planning one ladder round: the pool's ratings read from the store and the tables drawn for N/2
  matches (`arena.ladder.pairing.plan_tables`, as the ladder service does);
- storing one round's results (N/2 matches, at most 5,000) with their rating updates (`store.matches.save`);
- the leaderboard (first page) and a bot page over HTTP from a real `arena web`, p50 and p95 of
  `--requests` requests on one keep-alive connection, beside the anchor (/favicon.ico) in the same run;
- what the ladder service reads of its tournament every round (the open pairings and those of the last
  rounds, with their stored keys: bounded by the rounds, not by the matches ever played);
- the database's size per stored match (tables and indexes; the records are counted apart: a real
  compressed record of a played match is measured and added, since the filler shares one record).

Goals (issue 28): a round planned in <= 1 s for 10,000 bots; leaderboard <= 100 ms and bot page <= 200 ms
p50 at 10,000 bots and 10,000,000 matches on PostgreSQL; a round of 5,000 results stored in <= 5 s.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text

from arena.ladder.pairing import Candidate, plan_tables
from arena.ladder.service import round_reads
from arena.ratings.policy import DEFAULT_POLICY
from arena.ratings.trueskill_env import DEFAULT_SYSTEM
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.store.models import Bot, Entry, Match, Record, Tournament

GAME = "major-general"
PG_HOST = os.environ.get("ARENA_BENCH_PG_HOST", "127.0.0.1")
ROUND_CAP = 5_000  # the most results one stored round holds here
START = datetime(2025, 1, 1)
CHUNK = 100_000

MATCH_COLUMNS = ("id", "tournament_id", "round", "pairing", "rotation", "uid", "game", "pool", "options", "seed",
                 "num_seats", "ranking", "scores", "reason", "offender", "detail", "steps", "decisions", "timings",
                 "record_id", "rated", "started_at", "finished_at")
SEAT_COLUMNS = ("match_id", "seat", "bot_id", "rank", "score")
PAIRING_COLUMNS = ("tournament_id", "round", '"index"', "seed", "bots", "label", "settled")


# the database ------------------------------------------------------------------------------------------


def _pg_user() -> str | None:
    try:
        import psycopg
    except ImportError:
        return None
    for user in ("postgres", "root"):
        try:
            with psycopg.connect(host=PG_HOST, port=5432, dbname="test", user=user, connect_timeout=3):
                return user
        except psycopg.Error:
            continue
    return None


@contextmanager
def database(kind: str, folder: Path, label: str) -> Iterator[str]:
    """A fresh, empty database URL: a schema of its own in PostgreSQL's `test` (dropped afterwards), or an
    SQLite file in `folder`."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / f'{label}.db'}"
        return
    import psycopg

    user = _pg_user()
    if user is None:
        raise SystemExit(f"PostgreSQL is not reachable at {PG_HOST}:5432 (database test); use --db sqlite")
    schema = f"arena_scale_{label}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(host=PG_HOST, port=5432, dbname="test", user=user, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"postgresql+psycopg://{user}@{PG_HOST}:5432/test?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(host=PG_HOST, port=5432, dbname="test", user=user, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def database_bytes(store: Store, url: str) -> int:
    """Tables and indexes of the store."""
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect() as conn:
            return int(conn.execute(text(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'")).scalar_one())
    path = Path(url.removeprefix("sqlite:///"))
    wal = path.with_name(path.name + "-wal")
    with store.engine.connect() as conn:  # the pages in use (the write-ahead log may hold some of them)
        pages = int(conn.execute(text("PRAGMA page_count")).scalar_one())
        free = int(conn.execute(text("PRAGMA freelist_count")).scalar_one())
        page_size = int(conn.execute(text("PRAGMA page_size")).scalar_one())
    return max((pages - free) * page_size, path.stat().st_size - (wal.stat().st_size if wal.exists() else 0), 0)


# filling ------------------------------------------------------------------------------------------------


def fill(store: Store, bots: int, matches: int, seed: int = 7) -> int:
    """`bots` bots of unequal strength and `matches` two-seat results between them (bulk inserts); the
    ladder's tournament id."""
    rng = random.Random(seed)
    with store.engine.begin() as conn:
        conn.execute(insert(Bot), [{"name": f"bot{i}", "version": "1", "artifact_hash": f"{i:016x}", "owner": "",
                                    "kind": PlayerKind.AGENT.value, "spec": "random", "created_at": START}
                                   for i in range(bots)])
        tournament = int(conn.execute(insert(Tournament).values(
            name="ladder", game=GAME, pool=GAME, options={}, format="ladder", seed=seed, rounds=0, settings={},
            status="running", created_at=START)).inserted_primary_key[0])  # type: ignore[index]
        conn.execute(insert(Entry), [{"tournament_id": tournament, "position": i, "bot_id": i + 1}
                                     for i in range(bots)])
        body = b'{"type":"header"}\n'
        record = int(conn.execute(insert(Record).values(encoding="jsonl+gzip", size=len(body),
                                                        data=gzip.compress(body))).inserted_primary_key[0])  # type: ignore[index]
    strength = [rng.gauss(0, 1) for _ in range(bots)]
    per_round = max(1, bots // 2)

    def rows(start: int, stop: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        match_rows, seat_rows, pairing_rows = [], [], []
        for n in range(start, stop):
            a, b = rng.sample(range(bots), 2)
            roll = rng.random()
            p_a = 1 / (1 + pow(10, strength[b] - strength[a]))
            ranking = (0, 0) if roll < 0.05 else ((0, 1) if roll < 0.05 + 0.95 * p_a else (1, 0))
            when = START + timedelta(seconds=n)
            match_rows.append((n + 1, tournament, n // per_round, n % per_round, 0, f"{n:032x}", GAME, GAME, "{}", n,
                               2, f"[{ranking[0]}, {ranking[1]}]", "[]", "score", None, "", 60, 40, "{}", record,
                               True, when, when))
            seat_rows.append((n + 1, 0, a + 1, ranking[0], None))
            seat_rows.append((n + 1, 1, b + 1, ranking[1], None))
            pairing_rows.append((tournament, n // per_round, n % per_round, n, f"[{a + 1}, {b + 1}]", "", True))
        return match_rows, seat_rows, pairing_rows

    raw = store.engine.raw_connection()
    try:
        cursor = raw.cursor()
        if store.engine.dialect.name == "postgresql":
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            superuser = cursor.fetchone()
            if superuser and superuser[0]:  # the filler's rows are right by construction: no foreign-key
                # trigger per row (their plans, made on empty tables, would scan: a fill growing as its square)
                cursor.execute("SET LOCAL session_replication_role = replica")
        for start in range(0, matches, CHUNK):
            match_rows, seat_rows, pairing_rows = rows(start, min(matches, start + CHUNK))
            _copy(cursor, store.engine.dialect.name, "matches", MATCH_COLUMNS, match_rows)
            _copy(cursor, store.engine.dialect.name, "match_seats", SEAT_COLUMNS, seat_rows)
            _copy(cursor, store.engine.dialect.name, "pairings", PAIRING_COLUMNS, pairing_rows)
        if store.engine.dialect.name == "postgresql":  # the ids were given: the sequence goes on after them
            cursor.execute("SELECT setval(pg_get_serial_sequence('matches', 'id'), (SELECT max(id) FROM matches))")
        raw.commit()
        if store.engine.dialect.name == "postgresql":
            raw.autocommit = True  # type: ignore[attr-defined]
            cursor.execute("ANALYZE")
    finally:
        raw.close()
    return tournament


def _copy(cursor: Any, dialect: str, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    if dialect == "postgresql":
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    else:
        cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                           rows)


# the measurements --------------------------------------------------------------------------------------


def rerate_run(url: str) -> dict[str, float]:
    """`arena rerate` of the pool in its own process: seconds and its peak memory."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "rerate", GAME,
                                    "--db", url, "--json"], stdout=subprocess.DEVNULL, stderr=errors)
        _pid, status, usage = os.wait4(process.pid, 0)  # this process's own peak memory
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"arena rerate failed: {errors.read()[-2000:].decode(errors='replace')}")
    return {"seconds": round(seconds, 2), "peak_mb": round(usage.ru_maxrss / 1024, 1)}


def plan_round(store: Store, tournament: int, seed: int) -> tuple[float, int]:
    """Seconds to plan one ladder round of N/2 matches from the store's ratings; the tables planned."""
    started = time.perf_counter()
    ratings = store.ratings.of_pool(GAME)
    rng = random.Random(seed)
    candidates = [Candidate(row.bot_id, (row.mu, row.sigma), row.games, rng.randrange(3), rng.randrange(3))
                  for row in ratings]
    tables = plan_tables(candidates, len(candidates) // 2, 2, random.Random(seed), DEFAULT_SYSTEM, max_pending=8)
    return time.perf_counter() - started, len(tables)


def ladder_reads(store: Store, tournament: int) -> float:
    """Seconds of what the ladder service reads of its tournament every round: the pairings still open and
    those of the rounds its idle counts look back on, with their stored keys (arena.ladder.service)."""
    started = time.perf_counter()
    round_reads(store, tournament)
    return time.perf_counter() - started


@dataclass
class Result:
    """A synthetic played match, as the store takes it (arena.store.rows.PlayedMatchLike)."""

    tournament_id: int
    round: int
    pairing: int
    rotation: int
    bot_ids: tuple[int, ...]
    uid: str
    ranking: tuple[int, ...]
    record_gz: bytes
    record_size: int
    started_at: datetime
    finished_at: datetime
    game: str = GAME
    pool: str = GAME
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    rated: bool = True
    scores: tuple[float, ...] = ()
    reason: str = "score"
    offender: int | None = None
    detail: str = ""
    luck: tuple[float, ...] | None = None
    steps: int = 60
    decisions: int = 40
    timings: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.round, self.pairing, self.rotation)


def store_round(store: Store, tournament: int, bots: int, record: bytes, size: int) -> tuple[float, int]:
    """Seconds to store one round's results (N/2, at most ROUND_CAP) with their ratings; how many."""
    rng = random.Random(bots)
    count = min(ROUND_CAP, max(1, bots // 2))
    now = datetime(2030, 1, 1)
    results = [Result(tournament, 10**6, index, 0, tuple(rng.sample(range(1, bots + 1), 2)), uuid.uuid4().hex,
                      rng.choice(((0, 1), (1, 0), (0, 0))), record, size, now, now) for index in range(count)]
    started = time.perf_counter()
    store.matches.save(results, DEFAULT_POLICY)
    return time.perf_counter() - started, count


def start_web(url: str) -> tuple[subprocess.Popen[bytes], int]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen([sys.executable, "-c", "from arena.cli.main import run; run()", "web", "--db", url,
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:  # until it answers (or is gone)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=1)
            return process, port
        except OSError:
            if process.poll() is not None:
                raise SystemExit("arena web did not start")
            time.sleep(0.1)


def timed(port: int, path: str, requests: int) -> dict[str, float]:
    """p50 and p95 (ms) of `requests` GETs of `path` on one keep-alive connection, after one warm-up."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    times = []
    for attempt in range(requests + 1):
        started = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status not in (200, 204):
            raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
        if attempt:
            times.append((time.perf_counter() - started) * 1000)
    connection.close()
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2)}


def real_record() -> tuple[bytes, int]:
    """A played Major General match's record, compressed as the store keeps it; its uncompressed size."""
    from arena.agents import make_agent
    from arena.games.registry import load_game
    from arena.referee.authority import play_match

    record = play_match(load_game(GAME), [make_agent("random"), make_agent("random")], seed=5)
    body = record.to_jsonl().encode()
    return gzip.compress(body), len(body)


def measure(kind: str, folder: Path, bots: int, matches: int, requests: int, record: bytes,
            record_size: int) -> dict[str, Any]:
    """Every figure at one size."""
    with database(kind, folder, f"{bots}_{matches}") as url:
        store = Store.open(url)
        started = time.perf_counter()
        tournament = fill(store, bots, matches)
        fill_s = time.perf_counter() - started
        rerated = rerate_run(url)
        if store.engine.dialect.name == "postgresql":  # the planner's statistics of the new history, as
            with store.engine.connect() as conn:  # autovacuum would gather them on a running ladder
                conn.execute(text("ANALYZE"))
                conn.commit()
        plan_s, tables = min(plan_round(store, tournament, seed) for seed in (1, 2, 3))
        reads_s = ladder_reads(store, tournament)
        size_before = database_bytes(store, url)
        store_s, stored = store_round(store, tournament, bots, record, record_size)
        with store.engine.connect() as conn:
            total = int(conn.execute(select(Match.id).order_by(Match.id.desc()).limit(1)).scalar_one())
        store.close()
        process, port = start_web(url)
        try:
            anchor = timed(port, "/favicon.ico", requests)
            board = timed(port, f"/api/leaderboards/{GAME}?per_page=50", requests)
            bot = timed(port, f"/api/bots/bot{bots // 2}", requests)
        finally:
            process.terminate()
            process.wait(30)
    return {"bots": bots, "matches": matches, "fill_s": round(fill_s, 1),
            "plan_round_s": round(plan_s, 3), "plan_round_tables": tables, "ladder_reads_s": round(reads_s, 2),
            "store_round_s": round(store_s, 3), "store_round_results": stored,
            "leaderboard_ms": board["p50_ms"], "leaderboard_p95_ms": board["p95_ms"],
            "bot_page_ms": bot["p50_ms"], "bot_page_p95_ms": bot["p95_ms"], "anchor_ms": anchor["p50_ms"],
            "rerate_s": rerated["seconds"], "rerate_peak_mb": rerated["peak_mb"],
            "db_bytes_per_match": round(size_before / max(1, matches)),
            "stored_matches_after": total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--bots", type=int, default=10_000, help="bots at the full size (default 10000)")
    parser.add_argument("--matches", type=int, default=None,
                        help="stored matches at the full size (default 10000000 on PostgreSQL, 1000000 on SQLite)")
    parser.add_argument("--db", default="postgresql", choices=("postgresql", "sqlite"),
                        help="where: PostgreSQL at 127.0.0.1:5432 (database test, a schema of its own) or SQLite")
    parser.add_argument("--requests", type=int, default=20, help="requests per page and size (default 20)")
    args = parser.parse_args(argv)
    matches = args.matches if args.matches is not None else (10_000_000 if args.db == "postgresql" else 1_000_000)
    record, record_size = real_record()
    sizes = [(max(4, args.bots // scale), max(1, matches // scale)) for scale in (100, 10, 1)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as temporary:
        for bots, count in sizes:
            rows.append(measure(args.db, Path(temporary), bots, count, args.requests, record, record_size))
            if not args.json:
                print(f"size {bots} bots, {count} matches: {json.dumps(rows[-1])}", file=sys.stderr, flush=True)
    full = rows[-1]
    figures: dict[str, Any] = {
        "db": args.db, "bots": args.bots, "matches": matches, "sizes": rows,
        "plan_round_s": full["plan_round_s"], "plan_round_target_s": 1.0,
        "store_round_s": full["store_round_s"], "store_round_results": full["store_round_results"],
        "store_round_target_s": 5.0,
        "leaderboard_ms": full["leaderboard_ms"], "leaderboard_target_ms": 100,
        "bot_page_ms": full["bot_page_ms"], "bot_page_target_ms": 200, "anchor_ms": full["anchor_ms"],
        "rerate_s": full["rerate_s"], "rerate_peak_mb": full["rerate_peak_mb"],
        "db_bytes_per_match": full["db_bytes_per_match"], "record_bytes_per_match": len(record),
        "ladder_reads_s": full["ladder_reads_s"],
        "command": "python " + " ".join(["bench/ladder_scale.py", *(argv if argv is not None else sys.argv[1:])]),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"command: {figures['command']}  ({os.cpu_count()} cores, {args.db})")
    header = f"{'bots':>7} {'matches':>10} | {'plan round':>10} {'store round':>14} {'leaderboard':>11} " \
             f"{'bot page':>9} {'anchor':>7} | {'rerate':>8} {'rerate mem':>10} | {'bytes/match':>11} | " \
             f"{'ladder reads':>12}"
    print(header)
    for row in rows:
        print(f"{row['bots']:>7} {row['matches']:>10} | {row['plan_round_s']:>9.3f}s "
              f"{row['store_round_s']:>7.3f}s/{row['store_round_results']:<5} {row['leaderboard_ms']:>9.1f}ms "
              f"{row['bot_page_ms']:>7.1f}ms {row['anchor_ms']:>5.2f}ms | {row['rerate_s']:>7.1f}s "
              f"{row['rerate_peak_mb']:>8.0f}MB | {row['db_bytes_per_match']:>11} | {row['ladder_reads_s']:>11.2f}s")
    print(f"a played {GAME} match's record: {len(record)} bytes compressed ({record_size} uncompressed), "
          "stored once per match beside the bytes above")
    print("targets at 10,000 bots and 10,000,000 matches: plan <= 1 s, store 5,000 results <= 5 s, "
          "leaderboard <= 100 ms, bot page <= 200 ms (p50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

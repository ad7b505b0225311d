"""The same tournament in SQLite and in the real PostgreSQL (127.0.0.1:5432, database test) gives
identical results. Each run uses its own schema, dropped afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.games.registry import load_game
from arena.ratings.rerate import rerate
from arena.store import Store
from arena.tournament import LocalPoolExecutor, TournamentRunner, create_tournament, parse_bots
from tests.pg import fresh_schema
from tests.tournament.conftest import rating_table, signature

psycopg = pytest.importorskip("psycopg", reason="psycopg (PostgreSQL driver) is not installed")

GAME = "major-general/breakthrough"


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with fresh_schema() as url:
        yield url


def _run(store: Store, format: str, seed: int) -> int:
    bots = parse_bots("a=random,b=random,c=random,d=random")
    tournament = create_tournament(store, game=load_game(GAME), bots=bots, format=format,
                                   rounds=2 if format == "swiss" else 1, seed=seed)
    with LocalPoolExecutor(2) as executor:
        TournamentRunner(store, tournament, executor).run()
    return tournament


def test_sqlite_and_postgres_store_identical_results(tmp_path: Path, postgres_url: str) -> None:
    outcomes = []
    for url in (f"sqlite:///{tmp_path / 'arena.db'}", postgres_url):
        store = Store.open(url)
        ids = [_run(store, "round-robin", 5), _run(store, "swiss", 6)]
        assert store.engine.dialect.name in ("sqlite", "postgresql")
        history = {name: [(round(h.mu, 9), round(h.sigma, 9)) for h in store.ratings.history(bot)]
                   for bot, name in store.bots.names(store.tournaments.entries(ids[0])).items()}
        record = store.matches.record(store.matches.of_tournament(ids[0])[0])
        outcomes.append(([signature(store, t) for t in ids], rating_table(store, GAME), history,
                         [list(p.bots) for p in store.tournaments.pairings(ids[1])], record is not None))
        def full_history() -> list[tuple[int, int, float, float, object]]:
            return [(h.bot_id, h.match_id, round(h.mu, 9), round(h.sigma, 9), h.played_at)
                    for bot in store.tournaments.entries(ids[0]) for h in store.ratings.history(bot)]

        incremental = full_history()
        rerate(store, GAME)  # (on PostgreSQL its history goes in by COPY)
        assert full_history() == incremental  # the same history, times to the microsecond
        outcomes[-1] += (rating_table(store, GAME),)
        store.close()
    sqlite, postgres = outcomes
    assert sqlite == postgres
    assert len(sqlite[0][0]) == 12 and len(sqlite[0][1]) == 8

"""A store filled by a real tournament (every game family, the built-in bots), shared by the web tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.games import load_game
from arena.analysis import Budget, analyse_record
from arena.referee.record import MatchRecord
from arena.store import Store
from arena.tournament.bots import parse_bots
from arena.tournament.service import PlaySettings, TournamentSpec, run
from arena.web.app import create_app

GAMES = ("major-general", "general-orders-wwii/island", "general-orders-sengoku/rivers")
BOTS = "random,greedy,scripted"


def fill(store: Store) -> None:
    """A round-robin of three built-in bots on a mode of each family, stored in `store`; the first match of
    each mode analysed (arena analyse, a small budget)."""
    spec = TournamentSpec(games=tuple(load_game(name) for name in GAMES), bots=tuple(parse_bots(BOTS)),
                          format="round-robin", rounds=1, seed=7, name="web")
    run(spec, store, PlaySettings(concurrency=1))
    for name in GAMES:
        _total, [first] = store.matches.page(pool=name, limit=1)
        analysis = analyse_record(MatchRecord.from_bytes(store.matches.record(first)), Budget(simulations=8))
        store.analyses.save(first.id, analysis.budget, 0, analysis.seconds, analysis.compressed())


@pytest.fixture(scope="session")
def web_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The URL of a SQLite store filled by a real tournament (read-only for the tests)."""
    path = Path(tmp_path_factory.mktemp("web")) / "arena.db"
    url = f"sqlite:///{path}"
    store = Store.open(url)
    fill(store)
    store.engine.dispose()
    return url


@pytest.fixture(scope="session")
def web_store(web_db: str) -> Store:
    return Store.open(web_db)


@pytest.fixture(scope="session")
def client(web_store: Store) -> Iterator[TestClient]:
    with TestClient(create_app(web_store), raise_server_exceptions=False) as test_client:
        yield test_client

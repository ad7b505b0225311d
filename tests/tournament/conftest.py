"""Shared helpers: a fresh SQLite store per test and a result signature to compare runs by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def signature(store: Store, tournament_id: int) -> list[tuple[Any, ...]]:
    """Everything that must not depend on how or where a tournament ran: keys, seeds, seats, results."""
    names = {bot.id: bot.name for bot in store.bots.find()}
    return [(m.round, m.pairing, m.rotation, m.seed, tuple(names[b] for b in m.bots),
             tuple(m.ranking), tuple(m.scores), m.reason, m.steps)
            for m in store.matches.of_tournament(tournament_id)]


def rating_table(store: Store, pool: str) -> dict[str, tuple[float, float, int, int, int, int]]:
    """name -> (mu, sigma, games, wins, draws, losses)."""
    return {r.name: (round(r.mu, 9), round(r.sigma, 9), r.games, r.wins, r.draws, r.losses)
            for r in store.ratings.of_pool(pool)}

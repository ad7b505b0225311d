"""The Arena database: bots, tournaments, matches with their records, ratings and their history."""

from arena.store.db import DB_ENV, StoreError, StoreFull, create_db_engine, default_url, migrate, resolve_url
from arena.store.repository import Store
from arena.store.rows import (
    BotIdentity,
    BotRow,
    PairCount,
    PairingRow,
    PlayedMatchLike,
    RatingChanges,
    RatingPoint,
    RatingPolicy,
    RatingRow,
    StoredMatch,
    StoredSeat,
    TallyDelta,
    TournamentRow,
)

__all__ = ["DB_ENV", "BotIdentity", "BotRow", "PairCount", "PairingRow", "PlayedMatchLike", "RatingChanges",
           "RatingPoint", "RatingPolicy", "RatingRow", "Store", "StoreError", "StoreFull", "StoredMatch", "StoredSeat",
           "TallyDelta", "TournamentRow", "create_db_engine", "default_url", "migrate", "resolve_url"]

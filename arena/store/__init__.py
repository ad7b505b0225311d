"""The Arena database: bots, tournaments, matches with their records, ratings and their history."""

from arena.store.db import DB_ENV, StoreError, create_db_engine, default_url, migrate, resolve_url
from arena.store.repository import BotIdentity, NewMatch, PairCount, RatingRow, Store, seat_outcome

__all__ = ["DB_ENV", "BotIdentity", "NewMatch", "PairCount", "RatingRow", "Store", "StoreError", "create_db_engine",
           "default_url", "migrate", "resolve_url", "seat_outcome"]

"""The Arena database: bots, tournaments, matches with their records, ratings and their history."""

from arena.store.db import DB_ENV, StoreError, create_db_engine, default_url, migrate, resolve_url
from arena.store.repository import BotIdentity, PairCount, PlayedMatchLike, RatingRow, Store, seat_outcome
from arena.store.rows import BotRow, MatchRow, PairingRow, TournamentRow

__all__ = ["DB_ENV", "BotIdentity", "BotRow", "MatchRow", "PairCount", "PairingRow", "PlayedMatchLike", "RatingRow",
           "Store", "StoreError", "TournamentRow", "create_db_engine", "default_url", "migrate", "resolve_url",
           "seat_outcome"]

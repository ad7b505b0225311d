"""The Arena database behind one engine: a thin door to its aggregates, each in a module of its own that
owns its tables (queries and writes). Hot paths use SQLAlchemy Core, not per-row ORM objects.

    store.bots          bots.py         the bots: identities, submitted versions, lineages
    store.owners        owners.py       owners and their tokens, operators
    store.tournaments   tournaments.py  tournaments, entrants, pairings, infrastructure faults
    store.matches       matches.py      stored matches (StoredMatch) and their records; storing results
    store.ratings       ratings.py      ratings, tallies, rating history
    store.analyses      analyses.py     matches' analyses

Every write of finished matches is one transaction (`store.matches.save`): the records, the match rows, their
seats, the new ratings and the rating history land together or not at all.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from arena.store.analyses import Analyses
from arena.store.bots import Bots
from arena.store.db import StoreError, check_pages, create_db_engine, describe, migrate, remember_found_good
from arena.store.matches import Matches
from arena.store.owners import Owners
from arena.store.ratings import Ratings
from arena.store.tournaments import Tournaments


class Store:
    """The Arena database behind one engine, by aggregate."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.bots = Bots(engine)
        self.owners = Owners(engine)
        self.tournaments = Tournaments(engine)
        self.matches = Matches(engine)
        self.ratings = Ratings(engine)
        self.analyses = Analyses(engine)

    @classmethod
    def open(cls, url: str, *, create: bool = True, **kwargs: Any) -> Store:
        """Connect and migrate to the newest schema. StoreError, with one line saying why, if it cannot be
        opened (with `create` False, also if there is no database there yet: nothing is made)."""
        engine = create_db_engine(url, create=create, **kwargs)
        try:
            found_good = check_pages(engine)  # (a damaged file is refused before anything is written to it)
            migrate(engine)
            remember_found_good(engine, found_good)  # (beside Arena's databases only)
        except DBAPIError as error:
            engine.dispose()
            raise StoreError(describe(error, url)) from None
        except StoreError:
            engine.dispose()
            raise
        return cls(engine)

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

"""The `migrate` service of docker/compose.yaml: run once before Arena's services, as the database's owner
(the role `arena`). It brings the schema to the newest revision (arena.store.db.migrate), then, on
PostgreSQL, takes from the services' roles what they must not do to the rows they do not write:

- no service role writes `alembic_version` (only this owner migrates);
- the web's role (the service the Internet reaches) writes none of the results: matches and their records
  and seats, ratings and their history, tournaments, their entries and pairings, infrastructure faults and
  analyses. It keeps writing what owners do through it: bots, owners, sessions, submissions, remote bots.

Every other right comes from docker/postgres-init.sh (rows of every table, through default privileges, so
a table a later migration adds is written as before until it is named here). Run at every start: the
revokes hold for tables a new migration made.
"""

from __future__ import annotations

import os

from sqlalchemy import text

from arena.store.repository import Store

SERVICE_ROLES = ("arena_referee", "arena_ladder", "arena_web", "arena_preflights", "arena_worker")
RESULTS = ("matches", "records", "match_seats", "ratings", "rating_history", "tournaments", "entries", "pairings",
           "infra_faults", "analyses")


def revokes() -> list[str]:
    """The statements that take the writes above from the services' roles."""
    return [f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON alembic_version FROM {', '.join(SERVICE_ROLES)}",
            f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON {', '.join(RESULTS)} FROM arena_web"]


def main() -> None:
    store = Store.open(os.environ["ARENA_DB"])
    try:
        if store.engine.url.get_backend_name() == "postgresql":
            with store.engine.begin() as connection:
                for statement in revokes():
                    connection.execute(text(statement))
    finally:
        store.close()


if __name__ == "__main__":
    main()

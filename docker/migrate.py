"""The `migrate` service of docker/compose.yaml: run once before Arena's services, as the database's owner
(the role `arena`). It brings the schema to the newest revision (arena.store.db.migrate), then, on
PostgreSQL, gives each service's role the rights on Arena's tables that service needs, table by table
(`GRANTS`), and nothing else:

- arena_referee, arena_worker: none. The referee keeps its records in files and the workers hand their
  results back over the broker; neither opens the database (a stolen password reads nothing).
- arena_ladder: reads the bots, remote bots and results; writes the results (tournaments and their entries,
  pairings, faults; matches, their records and seats; ratings and their history; analyses), registers the
  built-in bots and notes which remote bots are present; it deletes only analyses (one made again). No owner,
  session or submission.
- arena_preflights: reads owners (an upload's owner), writes the submissions it checks and the bots it makes
  live or retires. No result.
- arena_web (the service the Internet reaches): reads everything it shows; writes only what owners do through
  it: owners, sessions, submissions, bots (retiring), remote bots. No result.
- no service role writes `alembic_version` (only this owner migrates) or may TRUNCATE anything.

Run at every start: each role's rights on every table are taken back first, then granted as listed, so a table a
later migration adds is readable by no service until it is named here (tests/test_docker.py checks each table is).
"""

from __future__ import annotations

import os

from sqlalchemy import text

from arena.store.repository import Store

SERVICE_ROLES = ("arena_referee", "arena_ladder", "arena_web", "arena_preflights", "arena_worker")
RESULTS = ("matches", "records", "match_seats", "ratings", "rating_history", "tournaments", "entries", "pairings",
           "infra_faults", "analyses")
HOSTING = ("bots", "owners", "owner_sessions", "submissions", "remote_bots")  # what owners do through the web
READ, WRITE = "SELECT", "SELECT, INSERT, UPDATE, DELETE"
GRANTS: dict[str, dict[str, str]] = {  # role -> table -> rights
    "arena_referee": {},
    "arena_worker": {},
    "arena_ladder": {"alembic_version": READ, "remote_bots": "SELECT, UPDATE", "bots": "SELECT, INSERT, UPDATE",
                     **{table: "SELECT, INSERT, UPDATE" for table in RESULTS}, "analyses": WRITE},
    "arena_preflights": {"alembic_version": READ, "owners": READ, "submissions": "SELECT, UPDATE",
                         "bots": "SELECT, INSERT, UPDATE"},
    "arena_web": {"alembic_version": READ, **{table: READ for table in RESULTS},
                  **{table: WRITE for table in HOSTING}},
}


def grants() -> list[str]:
    """The statements that give each service's role its rights, after taking back whatever it had."""
    statements = [f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {', '.join(SERVICE_ROLES)}",
                  f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {', '.join(SERVICE_ROLES)}",
                  # (a database made before this list had its roles given every table by default: no longer)
                  f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {', '.join(SERVICE_ROLES)}",
                  f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM {', '.join(SERVICE_ROLES)}"]
    for role, tables in GRANTS.items():
        for table, rights in tables.items():
            statements.append(f"GRANT {rights} ON {table} TO {role}")
        if any("INSERT" in rights for rights in tables.values()):  # (the tables' ids come from their sequences)
            statements.append(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    return statements


def main() -> None:
    store = Store.open(os.environ["ARENA_DB"])
    try:
        if store.engine.url.get_backend_name() == "postgresql":
            with store.engine.begin() as connection:
                for statement in grants():
                    connection.execute(text(statement))
    finally:
        store.close()


if __name__ == "__main__":
    main()

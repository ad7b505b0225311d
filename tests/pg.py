"""The real PostgreSQL of the development and CI machines (127.0.0.1:5432, trust auth, database test): a schema
of a test's own, dropped afterwards; where there is none (a user's laptop), the tests that need it skip."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

HOST = os.environ.get("ARENA_TEST_PG_HOST", "127.0.0.1")


def server_user() -> str | None:
    """A role that can connect (postgres or root), or None where no server answers."""
    try:
        import psycopg
    except ImportError:
        return None
    for user in ("postgres", "root"):
        try:
            with psycopg.connect(host=HOST, port=5432, dbname="test", user=user, connect_timeout=3):
                return user
        except psycopg.Error:
            continue
    return None


@contextmanager
def fresh_schema(password: str = "") -> Iterator[str]:
    """A SQLAlchemy URL of a schema of its own (with `password` in it, which trust auth ignores)."""
    user = server_user()
    if user is None:
        pytest.skip(f"PostgreSQL is not reachable at {HOST}:5432 (database test, user postgres or root)")
    import psycopg

    schema = f"arena_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(host=HOST, port=5432, dbname="test", user=user, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    secret = f":{password}" if password else ""
    try:
        yield f"postgresql+psycopg://{user}{secret}@{HOST}:5432/test?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(host=HOST, port=5432, dbname="test", user=user, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

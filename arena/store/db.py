"""Opening the database: SQLite under results/ by default (WAL), PostgreSQL by URL; migrations to head.

The URL comes from `--db`, else the ARENA_DB variable, else sqlite:///<results>/arena.db.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

DB_ENV = "ARENA_DB"
MIGRATIONS = Path(__file__).parent / "migrations"


class StoreError(Exception):
    """The database cannot be opened or is not an Arena database."""


def default_url(results: str | Path) -> str:
    """sqlite:///<results>/arena.db"""
    return f"sqlite:///{Path(results) / 'arena.db'}"


def resolve_url(url: str | None, results: str | Path = "results") -> str:
    """The database URL to use: the explicit one, else $ARENA_DB, else SQLite under `results`."""
    return url or os.environ.get(DB_ENV) or default_url(results)


_ENCODER = json.JSONEncoder()
_TUPLES: dict[tuple[Any, ...], str] = {}


def encode_json(value: Any) -> str:
    """JSON text for a JSON column, exactly as json.dumps would write it. Short tuples of ints
    (rankings) repeat endlessly, so their text is remembered; only ints, because equal tuples of other
    values can be written differently ((1, 0) == (1.0, -0.0) == (True, False))."""
    if type(value) is tuple and len(value) <= 8 and all(type(item) is int for item in value):
        text = _TUPLES.get(value)
        if text is None:
            if len(_TUPLES) >= 4096:
                _TUPLES.clear()
            text = _TUPLES[value] = _ENCODER.encode(value)
        return text
    return _ENCODER.encode(value)


def create_db_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets WAL, foreign keys, a busy timeout and write-ahead transactions."""
    kwargs.setdefault("json_serializer", encode_json)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"not a database URL: {url!r} (e.g. sqlite:///results/arena.db or "
                         "postgresql+psycopg://user@host/db)") from None
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:":
            try:
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"cannot use the database {database}: its folder cannot be made "
                                 f"({error.strerror})") from None
        engine = create_engine(url, connect_args={"timeout": 60}, **kwargs)
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    try:
        return create_engine(url, pool_pre_ping=True, **kwargs)
    except NoSuchModuleError:
        raise StoreError(f"unknown database kind {parsed.drivername!r} in the URL; use sqlite:///PATH or "
                         "postgresql+psycopg://USER@HOST/DB") from None
    except ImportError as error:
        raise StoreError(f"no driver for {parsed.drivername}: {error} (pip install 'arena[postgres]')") from None


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # Take the write lock up front: a deferred transaction that reads, then writes, can fail
        # with "database is locked" when another process wrote in between.
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (alembic migrations shipped in the package)."""
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    if current == head:
        return
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")

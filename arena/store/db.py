"""Opening the database: SQLite under results/ by default (WAL), PostgreSQL by URL; migrations to head.

The URL comes from `--db`, else the ARENA_DB variable, else sqlite:///<results>/arena.db.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from arena.secret_files import DB_PASSWORD_FILE_ENV, SecretFileError, with_password

if TYPE_CHECKING:
    from alembic.config import Config

DB_ENV = "ARENA_DB"
MIGRATIONS = Path(__file__).parent / "migrations"
# The newest revision under migrations/versions/ (tests/store check it is): a database already there is opened
# without loading alembic and every migration script, a quarter of a second of every command's start.
SCHEMA_HEAD = "0010"
SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(Exception):
    """The database cannot be opened or is not an Arena database."""


class StoreFull(StoreError):
    """The database cannot be written: its disk is full (what was stored before is intact: each write is one
    transaction)."""


_FULL = ("database or disk is full", "no space left on device", "disk quota exceeded")
_DISK_FULL_SQLSTATE = "53100"  # PostgreSQL's disk_full


def default_url(results: str | Path) -> str:
    """sqlite:///<results>/arena.db"""
    return f"sqlite:///{Path(results) / 'arena.db'}"


def resolve_url(url: str | None, results: str | Path = "results") -> str:
    """The database URL to use: the explicit one, else $ARENA_DB, else SQLite under `results`. A plain
    path (`t.db`, `results/arena.db`, `/srv/arena.db`) is a SQLite file there."""
    chosen = url or os.environ.get(DB_ENV) or default_url(results)
    if "://" not in chosen:  # a file, as a newcomer types it
        return f"sqlite:///{Path(chosen).expanduser().resolve()}"
    return chosen


_ENCODER = json.JSONEncoder()
_TUPLES: dict[tuple[Any, ...], str] = {}  # of ints
_FLOAT_TUPLES: dict[tuple[Any, ...], str] = {}  # of floats (none zero)


def encode_json(value: Any) -> str:
    """JSON text for a JSON column, exactly as json.dumps would write it. Short tuples of ints (rankings) or
    of floats (scores) repeat endlessly, so their text is remembered, apart (1 == 1.0): only tuples all of ints
    or all of floats other than zero, because equal tuples of other values can be written differently
    ((1, 0) == (1.0, -0.0) == (True, False), and 0.0 == -0.0)."""
    if type(value) is tuple and len(value) <= 8:
        if all(type(item) is int for item in value):
            return _remembered(_TUPLES, value)
        if all(type(item) is float for item in value) and 0.0 not in value:
            return _remembered(_FLOAT_TUPLES, value)
    return _ENCODER.encode(value)


def _remembered(texts: dict[tuple[Any, ...], str], value: tuple[Any, ...]) -> str:
    """The JSON text of `value`, from `texts` (kept to 4096 tuples) or written now and kept there."""
    text = texts.get(value)
    if text is None:
        if len(texts) >= 4096:
            texts.clear()
        text = texts[value] = _ENCODER.encode(value)
    return text


def safe_url(url: str) -> str:
    """The URL with its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def database_name(url: str) -> str:
    """What a message calls the database: an SQLite file's path, else the URL without its password."""
    parsed = make_url(url)
    return str(parsed.database) if parsed.get_backend_name() == "sqlite" else safe_url(url)


def create_db_engine(url: str, *, create: bool = True, busy_timeout_s: float = 60.0, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets WAL, foreign keys, a busy timeout and write-ahead transactions.

    With `create` False an SQLite file must already exist and be an SQLite database (StoreError
    otherwise, and nothing is made): what commands that only read need.
    """
    kwargs.setdefault("json_serializer", encode_json)
    try:
        url = with_password(url, DB_PASSWORD_FILE_ENV)
    except SecretFileError as error:
        raise StoreError(str(error)) from None
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"not a database URL: {url!r} (e.g. sqlite:///results/arena.db or "
                         "postgresql+psycopg://user@host/db)") from None
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, parsed.database or "", create, busy_timeout_s, kwargs)
    return _server_engine(url, parsed, kwargs)


def _sqlite_engine(url: str, database: str, create: bool, busy_timeout_s: float, kwargs: dict[str, Any]) -> Engine:
    """An SQLite engine for `url`, once its file `database` (unless in memory) is checked (folder made: `create`)."""
    if database and database != ":memory:":
        if create:
            try:
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"cannot use the database {database}: its folder cannot be made "
                                 f"({error.strerror})") from None
        check_sqlite_file(Path(database), create)
    engine = create_engine(url, connect_args={"timeout": busy_timeout_s}, **kwargs)
    _configure_sqlite(engine, busy_timeout_s)
    _say_when_full(engine)
    return engine


def _server_engine(url: str, parsed: URL, kwargs: dict[str, Any]) -> Engine:
    """An engine for a database server's `url` (PostgreSQL via psycopg); StoreError: unknown kind or no driver."""
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    if parsed.get_backend_name() == "postgresql":
        kwargs.setdefault("connect_args", {"connect_timeout": 10})
    try:
        return _say_when_full(create_engine(url, pool_pre_ping=True, **kwargs))
    except NoSuchModuleError:
        raise StoreError(f"unknown database kind {parsed.drivername!r} in the URL; use sqlite:///PATH or "
                         "postgresql+psycopg://USER@HOST/DB") from None
    except ImportError as error:
        raise StoreError(f"no driver for {parsed.drivername}: {error} (pip install 'arena[postgres]')") from None


def check_sqlite_file(path: Path, create: bool) -> None:
    """StoreError if `path` is not an SQLite database file (or, unless `create`, does not exist). Reads only."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        if create:
            return
        raise StoreError(f"no database at {path}: nothing has been stored there yet (play with `arena tournament "
                         "run` or `make demo`, or pass --db to the right one)") from None
    except IsADirectoryError:
        raise StoreError(f"{path} is a folder, not a database file") from None
    except OSError as error:
        raise StoreError(f"cannot read the database {path}: {error.strerror}") from None
    if head != SQLITE_MAGIC and (head or not create):
        raise StoreError(f"{path} is not an SQLite database (corrupt, or another kind of file); it was left as "
                         "it is")


def describe(error: DBAPIError, url: str) -> str:
    """One line for a database error met while opening `url`."""
    text = str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)
    where = database_name(url)
    if "database is locked" in text:
        return f"{where} is locked by another program (a tournament or a copy in progress?); try again when it is done"
    if "readonly" in text or "read-only" in text or "unable to open database file" in text:
        return (f"cannot open {where} for writing: its folder or the file is read-only (SQLite writes its -wal and "
                "-shm files beside the database); copy it somewhere writable or fix the permissions")
    if "malformed" in text:
        return damaged(where, text)
    if "file is not a database" in text:
        return f"{where} is not an SQLite database (corrupt, or another kind of file); it was left as it is"
    return f"cannot open the database {where}: {text}"


def full_disk_line(error: BaseException, url: str) -> str | None:
    """One line when `error` (a driver's) says the database's disk is full; None for any other error."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if getattr(error, "sqlstate", None) != _DISK_FULL_SQLSTATE and not any(word in text.lower() for word in _FULL):
        return None
    return (f"the database {database_name(url)} is full: its disk has no room left ({text}); what was stored "
            "before is intact: free some space and run the command again (`arena tournament resume` continues "
            "a tournament)")


def _say_when_full(engine: Engine) -> Engine:
    """`engine`, raising StoreFull (one line) instead of the driver's error when the database's disk is full."""
    url = engine.url.render_as_string(hide_password=False)

    @event.listens_for(engine, "handle_error")
    def on_error(context: Any) -> None:
        line = full_disk_line(context.original_exception, url)
        if line is not None:
            raise StoreFull(line) from None

    return engine


def damaged(where: str, problem: str) -> str:
    """One line for an SQLite file whose pages are damaged: nothing written, and how to recover what is left."""
    return (f"{where} is damaged ({problem}); nothing was written to it. Recover what can be read into a new file "
            f"(sqlite3 {where} .recover | sqlite3 {where}.recovered) and pass --db {where}.recovered")


def check_pages(engine: Engine) -> list[int] | None:
    """StoreError if an SQLite file's pages are damaged (PRAGMA quick_check, which only reads), so that a damaged
    store is refused before anything is written to it. Other errors (locked, read-only) are DBAPIError. Returns
    the state of the file it found good, for `remember_found_good` once the file is known to be Arena's (None:
    nothing to write down).

    The check reads every page (0.3 s of CPU for 280 MB, seconds more from a cold disk), so a file found good is
    not checked again while it is unchanged: `<file>-checked` beside it keeps what the file and its write-ahead
    log were (inode, size, modified time) when last found good. Any write since, a copy or a replaced file,
    changes that, and the next open checks again; damage that changes none of it (the disk's own decay) is
    found by SQLite when it reads the page."""
    database = engine.url.database
    if engine.url.get_backend_name() != "sqlite" or database in (None, "", ":memory:"):
        return None
    path = Path(database)
    state = file_state(path)
    if state is not None and state == _last_found_good(path):
        return None
    problems = _quick_check_problems(engine)
    if problems != ["ok"]:
        raise StoreError(damaged(str(database), f"quick_check: {_first_problem(problems)[:160]}"))
    return state


def _quick_check_problems(engine: Engine) -> list[str]:
    """What PRAGMA quick_check says (["ok"] for a good file), or the driver's error when that names damage;
    DBAPIError for any other error."""
    try:
        return _quick_check(engine)
    except UnicodeDecodeError:  # SQLite's error quotes the schema's damaged bytes, which are not even text
        return ["the schema is malformed (SQLite's error about it is not text)"]
    except sqlite3.Error as error:  # (the raw connection's errors are the DB-API's own, not wrapped)
        if not _is_damage(str(error)):
            raise DBAPIError("PRAGMA quick_check", None, error) from None
        return [str(error)]


def _first_problem(problems: list[str]) -> str:
    """The first line of quick_check's answer that says something (not a `***` heading), or 'no answer'."""
    lines = [line.strip() for text in problems for line in text.splitlines()
             if line.strip() and not line.startswith("***")]
    return lines[0] if lines else "no answer"


def file_state(path: Path) -> list[int] | None:
    """What an SQLite file and its write-ahead log are now, as far as telling a change goes (None: unreadable):
    the file's device, inode, size and modified time (ns); its -wal's size and modified time (0, 0 without one,
    or an empty one: nothing in it to read)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    try:
        wal = Path(f"{path}-wal").stat()
        wal_state = [wal.st_size, wal.st_mtime_ns] if wal.st_size else [0, 0]
    except FileNotFoundError:
        wal_state = [0, 0]
    except OSError:
        return None
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, *wal_state]


def checked_marker(path: Path) -> Path:
    """Where check_pages writes down the state of `path` it last found good."""
    return Path(f"{path}-checked")


def _last_found_good(path: Path) -> list[int] | None:
    try:
        state = json.loads(checked_marker(path).read_text())["state"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return state if isinstance(state, list) else None


def remember_found_good(engine: Engine, state: list[int] | None) -> None:
    """Write down the state check_pages found good (whole, or not at all); where the folder cannot be written,
    the next open checks again."""
    if state is None or engine.url.database is None:
        return
    marker = checked_marker(Path(engine.url.database))
    partial = marker.with_name(f"{marker.name}.{os.getpid()}")
    try:
        partial.write_text(json.dumps({"state": state}))
        os.replace(partial, marker)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _quick_check(engine: Engine) -> list[str]:
    raw = engine.raw_connection()
    try:
        return [str(row[0]) for row in raw.cursor().execute("PRAGMA quick_check(1)").fetchall()]
    finally:
        raw.close()


def _is_damage(text: str) -> bool:
    return "malformed" in text or "file is not a database" in text or "corrupt" in text


def _configure_sqlite(engine: Engine, busy_timeout_s: float = 60.0) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_connection.cursor()  # (WAL is set once the file is known to be Arena's: see migrate)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # Take the write lock up front: a deferred transaction that reads, then writes, can fail
        # with "database is locked" when another process wrote in between.
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (alembic migrations shipped in the package)."""
    current = _stored_revision(engine)
    if current == SCHEMA_HEAD:
        _use_wal(engine)
        return
    from alembic import command
    from alembic.script import ScriptDirectory

    config = alembic_config()
    scripts = ScriptDirectory.from_config(config)
    head = scripts.get_current_head()
    if current == head:
        _use_wal(engine)
        return
    where = database_name(engine.url.render_as_string(hide_password=False))
    if current is None:
        with engine.connect() as connection:
            tables = sorted(inspect(connection).get_table_names())
        if tables:
            raise StoreError(f"{where} is a database but not Arena's (tables: {', '.join(tables[:5])}); "
                             "pass --db to an Arena database or to a new file")
    elif current not in {script.revision for script in scripts.walk_revisions()}:
        raise StoreError(f"{where} was written by a newer Arena (schema revision {current}; this one knows up to "
                         f"{head}): upgrade Arena, or use another --db; the database was left as it is")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    _use_wal(engine)


def alembic_config() -> Config:
    """Alembic's configuration for the migrations shipped in the package."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _stored_revision(engine: Engine) -> str | None:
    """The schema revision a database says it is at (None: none said, such as a new file)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if revision is None else str(revision)


def _use_wal(engine: Engine) -> None:
    """SQLite in write-ahead-log mode (kept in the file: set once, on a database known to be Arena's)."""
    if engine.url.get_backend_name() != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return
    raw = engine.raw_connection()  # (outside any transaction: SQLite changes the journal mode only there)
    try:
        cursor = raw.cursor()
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()
    finally:
        raw.close()

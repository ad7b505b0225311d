"""The store's fast inserts: a single row's new id, and many rows straight to the driver (the hot path of
storing results)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import insert

_PLACEHOLDERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}
_UNSET = object()


def inserted_id(result: Any) -> int:
    """The id a single-row INSERT made."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def bulk_insert_values(conn: Any, table: Any, names: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """executemany straight to the driver of rows given as tuples of values (in the order of the columns
    `names`), values converted by the columns' own SQLAlchemy types.

    Same rows as `conn.execute(insert(table), rows)`, without SQLAlchemy's per-row parameter
    handling (nor a dict per row), which costs more than the database on the hot path of storing results.
    """
    if not rows:
        return
    plan = _insert_plan(table, names, conn.dialect)
    if plan is None:  # a driver with another parameter style: the ordinary path
        conn.execute(insert(table), [dict(zip(names, row)) for row in rows])
        return
    sql, processors = plan
    if not processors:
        conn.exec_driver_sql(sql, rows)
        return
    columns: list[Any] = list(zip(*rows))  # (converted column by column: one loop per converted column, not per value)
    for index, process in processors:
        columns[index] = _converted(columns[index], process)
    conn.exec_driver_sql(sql, list(zip(*columns)))


def _converted(values: tuple[Any, ...], process: Callable[[Any], Any]) -> list[Any]:
    """A column's values converted; a value repeated from the previous row (the same object) is converted once."""
    out = []
    last: Any = _UNSET
    text: Any = None
    for value in values:
        if value is not last:
            last = value
            text = process(value)
        out.append(text)
    return out


@functools.lru_cache(maxsize=64)
def _insert_plan(table: Any, names: tuple[str, ...], dialect: Any) -> tuple[str, list[tuple[int, Callable[[Any], Any]]]] | None:
    """The INSERT statement for these columns and the values' converters (made once per table, columns and
    dialect: making them costs more than a batch of rows)."""
    placeholder = _PLACEHOLDERS.get(dialect.paramstyle)
    if placeholder is None:
        return None
    processors = [(index, _faster(process)) for index, name in enumerate(names)
                  if (process := table.c[name].type._cached_bind_processor(dialect)) is not None]
    quote = dialect.identifier_preparer
    sql = (f"INSERT INTO {quote.format_table(table)} ({', '.join(quote.quote(name) for name in names)}) "
           f"VALUES ({', '.join([placeholder] * len(names))})")
    return sql, processors


_SAMPLES = (datetime(2026, 11, 28, 23, 57, 10, 123456), datetime(987, 1, 2, 3, 4, 5), datetime(2026, 1, 1))


def _faster(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`process`, or where it writes naive datetimes as `datetime.isoformat(" ", "microseconds")` does (SQLite's
    DATETIME: its text is what the database sorts and compares), that C method for them: a few times faster,
    and every match stores several."""
    try:
        same = all(process(sample) == sample.isoformat(" ", "microseconds") for sample in _SAMPLES)
    except Exception:  # (a converter that takes no datetimes)
        same = False
    if not same:
        return process

    def process_datetime(value: Any) -> Any:
        if type(value) is datetime and value.tzinfo is None:
            return value.isoformat(" ", "microseconds")
        return process(value)

    return process_datetime

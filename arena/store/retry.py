"""A database connection cut mid-call (the server restarted, a backend terminated, the network dropped) is
not the end of a run: each store call is one unit of work (its own transaction), so it is run again, whole,
after a pause that doubles each time (0.25 s up to 8 s), for up to RETRY_FOR_S seconds; then the error is
raised. The first loss of an outage is logged once (logger "arena.store"), and so is the recovery.

Running a call again is safe because every write is idempotent or keyed: a match is stored once under its key
(a commit that landed although the client saw the connection drop makes the second try raise IntegrityError,
which the tournament runner reads as "already stored"), pairings under (round, index), settings and statuses
are overwritten, bots and entries are found before they are added. SQLite's own errors ("database is locked")
are not retried here: its busy timeout already waits.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

RETRY_FOR_S = 120.0  # how long one call keeps trying before the error is raised
FIRST_PAUSE_S = 0.25
LONGEST_PAUSE_S = 8.0

log = logging.getLogger("arena.store")
_outage = threading.local()  # per thread: whether an outage was reported and not yet its end
Kind = TypeVar("Kind", bound=type)


def connection_lost(error: BaseException, backend: str) -> bool:
    """Whether `error` is a lost (or refused) connection to a server database, worth trying again."""
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    return backend != "sqlite" and isinstance(error, OperationalError)


def run_again_on_lost_connection(call: Callable[..., Any], backend: Callable[[Any], str],
                                 retry_for_s: Callable[[], float] = lambda: RETRY_FOR_S) -> Callable[..., Any]:
    """`call(self, ...)`, run again (whole) while the connection is lost, with a pause that doubles."""

    @functools.wraps(call)
    def retried(self: Any, *args: Any, **kwargs: Any) -> Any:
        give_up = time.monotonic() + retry_for_s()
        pause = FIRST_PAUSE_S
        while True:
            try:
                result = call(self, *args, **kwargs)
            except DBAPIError as error:
                if not connection_lost(error, backend(self)) or time.monotonic() + pause > give_up:
                    raise
                _report_loss(error)
                time.sleep(pause)
                pause = min(2 * pause, LONGEST_PAUSE_S)
                continue
            _report_back()
            return result

    return retried


def retried_on_lost_connection(cls: Kind) -> Kind:
    """The class with each of its public methods (not generators) run again when the connection is lost; its
    instances hold the engine as `self.engine`."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(member) or inspect.isgeneratorfunction(member):
            continue
        setattr(cls, name, run_again_on_lost_connection(member, lambda self: self.engine.dialect.name))
    return cls


def first_line(error: DBAPIError) -> str:
    """What went wrong, in one line: the driver's error and the first line of its message."""
    cause = error.orig if error.orig is not None else error
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}"


def _report_loss(error: DBAPIError) -> None:
    if getattr(_outage, "since", None) is not None:
        return
    _outage.since = time.monotonic()
    log.warning("lost the database connection (%s); trying again until it is back", first_line(error))


def _report_back() -> None:
    since = getattr(_outage, "since", None)
    if since is None:
        return
    _outage.since = None
    log.warning("the database connection is back after %.1fs; carrying on", time.monotonic() - since)

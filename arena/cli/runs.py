"""What the tournament, ladder, leaderboard, bot and sprt commands share: the database, durations,
Ctrl-C handling and the progress display."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from types import FrameType
from typing import Optional

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text
from sqlalchemy.exc import DBAPIError

from arena.cli.common import console, err_console, fail, results_dir
from arena.cli.serve import SANDBOX_OPTION
from arena.store import Store, StoreError, resolve_url
from arena.store.db import describe
from arena.tournament.celery_executor import BROKER_ENV, DEFAULT_QUEUE
from arena.tournament.runner import RunProgress

__all__ = ["SANDBOX_OPTION"]  # shared by the commands that run bot programs

DB_OPTION = typer.Option(None, "--db", help="Database URL (default: $ARENA_DB or sqlite:///results/arena.db), "
                                            "e.g. postgresql+psycopg://postgres@127.0.0.1/arena.")
JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of tables.")
BROKER_OPTION = typer.Option(None, "--broker", envvar=BROKER_ENV,
                             help="Play on Celery workers (`arena worker`) through this Redis broker, e.g. "
                                  "redis://127.0.0.1:6379/0 (default: $ARENA_BROKER, else local processes); "
                                  "-j is then the number of worker processes serving.")
QUEUE_OPTION = typer.Option(DEFAULT_QUEUE, "--queue", help="The workers' queue on the broker (with --broker).")

def parse_duration(text: str) -> float:
    """'90', '90s', '10m', '1h', '1h30m' -> seconds, or a one-line error."""
    from arena.ladder.schedule import ScheduleError
    from arena.ladder.schedule import parse_duration as parse

    try:
        return parse(text)
    except ScheduleError as error:
        fail(str(error), code=2)


def open_store(db: Optional[str], *, create: bool = False, read_only: bool = False) -> Store:
    """Open (and migrate) the database or fail with one line naming it and the problem, the file left as it
    is. Only commands that store new things `create` a database; `read_only` ones wait at most 5 s for a
    lock another program holds."""
    url = resolve_url(db, results_dir())
    try:
        return Store.open(url, create=create, busy_timeout_s=5.0 if read_only else 60.0)
    except StoreError as error:
        fail(str(error), code=2)
    except DBAPIError as error:
        fail(describe(error, url))


def ago(moment: datetime | None) -> str:
    """'3m ago' style age of a naive-UTC time."""
    if moment is None:
        return "-"
    seconds = (datetime.now(timezone.utc).replace(tzinfo=None) - moment).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{max(int(seconds), 0)}s ago"


class StopRequest:
    """Ctrl-C (or SIGTERM, as `docker stop` sends) once: finish the matches in flight, store them, stop.
    Twice: stop at once."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        def handler(_number: int, _frame: FrameType | None) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True
            err_console.print("arena: stopping after the matches in flight (Ctrl-C again to abort)")

        previous = {}
        try:
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.getsignal(signum)
                signal.signal(signum, handler)
        except ValueError:  # not the main thread (tests): no handler
            yield self
            return
        try:
            yield self
        finally:
            for signum, action in previous.items():
                signal.signal(signum, action)


class RateColumn(ProgressColumn):
    """Matches per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "", style="dim")


class RunDisplay:
    """A rich progress bar with ETA for a tournament run; silent with --json or when not a terminal."""

    def __init__(self, title: str, *, quiet: bool = False, seconds: float | None = None) -> None:
        self.title = title
        self.seconds = seconds  # open-ended runs show time against this budget
        self.started = time.monotonic()
        self.progress = Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                                 MofNCompleteColumn() if seconds is None else TextColumn("{task.fields[count]}"),
                                 TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                 RateColumn(), console=console, disable=quiet, transient=False)
        self.task = self.progress.add_task(title, total=None, count="")

    def __enter__(self) -> RunDisplay:
        self.progress.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.progress.stop()

    def update(self, state: RunProgress) -> None:
        """Called by the runner after each match."""
        if self.seconds is not None:
            elapsed = min(time.monotonic() - self.started, self.seconds)
            self.progress.update(self.task, total=self.seconds, completed=elapsed,
                                 count=f"{state.played} matches, round {state.round + 1}")
        else:
            self.progress.update(self.task, total=state.expected, completed=state.stored)

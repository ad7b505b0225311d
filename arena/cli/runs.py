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

from arena.cli.common import command_line, console, err_console, fail, results_dir
from arena.cli.serve import SANDBOX_OPTION
from arena.referee.evidence import shown
from arena.referee.limits import DEFAULT_DECISION_S, DEFAULT_MATCH_S, AgentLimits
from arena.store import Store, StoreError, resolve_url
from arena.store.db import describe
from arena.tournament.celery_executor import BROKER_ENV, DEFAULT_QUEUE
from arena.tournament.jobs import UNRATED, PlayedMatch
from arena.tournament.runner import RunProgress
from arena.tournament.service import TournamentError

__all__ = ["SANDBOX_OPTION"]  # shared by the commands that run bot programs

DB_OPTION = typer.Option(None, "--db", help="The database: a file (results/arena.db; SQLite) or a URL "
                                            "(postgresql+psycopg://HOST/arena). Default: $ARENA_DB, else "
                                            "results/arena.db.")
JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of tables.")
BROKER_OPTION = typer.Option(None, "--broker", envvar=BROKER_ENV,
                             help="Play on Celery workers (`arena worker`) through this Redis broker, e.g. "
                                  "redis://127.0.0.1:6379/0 (default: $ARENA_BROKER, else local processes); "
                                  "-j is then the number of worker processes serving.")
QUEUE_OPTION = typer.Option(DEFAULT_QUEUE, "--queue", help="The workers' queue on the broker (with --broker).")

DECISION_LIMIT_OPTION = typer.Option(
    None, "--decision-limit", metavar="DURATION",
    help=f"How long a built-in agent may think on one decision before it loses on time (e.g. 30s; default "
         f"{DEFAULT_DECISION_S:g}s). Bot programs have their clock instead.")
MATCH_LIMIT_OPTION = typer.Option(
    None, "--match-limit", metavar="DURATION",
    help=f"How long a built-in agent may think over a whole match (e.g. 10m; default {DEFAULT_MATCH_S:g}s).")


def agent_limits(decision: str | None, match: str | None) -> AgentLimits:
    """--decision-limit and --match-limit as AgentLimits (the defaults where not given), or a one-line error."""
    return AgentLimits(parse_duration(decision) if decision else DEFAULT_DECISION_S,
                       parse_duration(match) if match else DEFAULT_MATCH_S)


def parse_duration(text: str) -> float:
    """'90s', '10m', '1h', '1h30m' -> seconds, or a one-line error."""
    from arena.ladder.schedule import ScheduleError
    from arena.ladder.schedule import parse_duration as parse

    try:
        return parse(text)
    except ScheduleError as error:
        fail(str(error), code=2)


def said(error: TournamentError, db: str | None) -> str:
    """A tournament error's message with its follow-up command complete (this command's --db)."""
    return error.render(lambda *words: command_line(*words, db=db))


def open_store(db: Optional[str], *, create: bool = False, read_only: bool = False) -> Store:
    """Open (and migrate) the database or fail with one line naming it and the problem, the file left as it
    is. Only commands that store new things `create` a database; `read_only` ones wait at most 5 s for a
    lock another program holds."""
    url = resolve_url(db, results_dir())
    if db is not None and _has_password(db):
        err_console.print("arena: warning: the database password is on the command line, where every user of this "
                          "machine can read it (ps); give the URL in ARENA_DB instead", markup=False, soft_wrap=True)
    try:
        return Store.open(url, create=create, busy_timeout_s=5.0 if read_only else 60.0)
    except StoreError as error:
        fail(str(error), code=2)
    except DBAPIError as error:
        fail(describe(error, url))


def _has_password(url: str) -> bool:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return bool(make_url(url).password)
    except ArgumentError:
        return False


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


PROGRESS_EVERY_S = 5.0  # written to a file or a pipe: a progress line at least this often
PROGRESS_MIN_GAP_S = 1.0  # ... and, for each tenth of the way, no more often than this


class RateColumn(ProgressColumn):
    """Matches per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "", style="dim")


class RunDisplay:
    """Progress a user can follow, for any long run: on a terminal a rich bar (done/total, elapsed, ETA,
    rate); written to a file or a pipe, one line at the start, every PROGRESS_EVERY_S seconds or tenth of
    the way (at most one a second), and one at the end ("12/48 matches (25%), 5s elapsed, ETA 15s; last:
    greedy beat random (score)"); nothing with --json."""

    def __init__(self, title: str, *, quiet: bool = False, seconds: float | None = None,
                 unit: str = "matches", series: bool = False) -> None:
        self.title = title
        self.seconds = seconds  # open-ended runs show time against this budget
        self.unit = unit
        self.quiet = quiet
        # one display across several runs (`arena tournament run all`): `begin` each; lines only by time, and
        # the bar leaves the screen at the end (the caller prints a summary)
        self.series = series
        self.started = time.monotonic()
        self.interactive = console.is_terminal and not quiet
        self._last_line = 0.0
        self._last_fraction = -1.0
        self._first_done: int | None = None  # what was done before this run (a resumed tournament's matches)
        self._last: tuple[int, int | None, str] = (0, None, "")
        self._printed: tuple[int, int | None, str] | None = None
        # (a title may name bots: it is shown text, never markup)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}", style="bold", markup=False),
                                 BarColumn(),
                                 MofNCompleteColumn() if seconds is None else TextColumn("{task.fields[count]}", markup=False),
                                 TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                 RateColumn(), console=console, disable=not self.interactive, transient=series)
        self.task = self.progress.add_task(shown(title), total=None, count="")

    def __enter__(self) -> RunDisplay:
        self.progress.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.progress.stop()
        if not self.interactive and not self.quiet and self._last[0] and not self.series:
            self._line(*self._last, final=True)

    def begin(self, title: str) -> None:
        """The next run of a series: its title; counts and ETA start again."""
        self.title = title
        self.started = time.monotonic()
        self._last_fraction = -1.0
        self._first_done = None
        self._last, self._printed = (0, None, ""), None
        self.progress.reset(self.task, description=shown(title), total=None, count="")

    def update(self, state: RunProgress) -> None:
        """Called by the runner after each match."""
        last = describe_played(state.last) if state.last is not None else ""
        if self.seconds is not None:
            elapsed = min(time.monotonic() - self.started, self.seconds)
            self.progress.update(self.task, total=self.seconds, completed=elapsed,
                                 count=f"{state.played} matches, round {state.round + 1}")
            self.advance(state.played, None, last)
        else:
            done = state.stored + state.pending
            self.progress.update(self.task, total=state.expected, completed=done)
            self.advance(done, state.expected, last)

    def advance(self, done: int, total: int | None, last: str = "") -> None:
        """`done` of `total` (None: open-ended) so far; `last`: the latest result, in words."""
        self._last = (done, total, last)
        if self._first_done is None:
            self._first_done = done
        if self.interactive:
            self.progress.update(self.task, total=total, completed=done)
            return
        if self.quiet:
            return
        now = time.monotonic()
        fraction = done / total if total else 0.0
        finished = bool(total) and done >= (total or 0)
        by_share = not self.series and bool(total) and fraction - self._last_fraction >= 0.1 \
            and now - self._last_line >= PROGRESS_MIN_GAP_S
        if now - self._last_line >= PROGRESS_EVERY_S or by_share or (finished and not self.series):
            self._line(done, total, last)

    def _line(self, done: int, total: int | None, last: str, final: bool = False) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if (done, total, last) == self._printed:
            return
        self._printed = (done, total, last)
        self._last_line = now
        if total:
            self._last_fraction = done / total
            this_run = done - (self._first_done or 0)
            eta = elapsed / this_run * (total - done) if this_run > 0 else None
            head = f"{done}/{total} {self.unit} ({100 * done / total:.0f}%)"
            timing = f"{duration(elapsed)} elapsed" + ("" if final or eta is None or done >= total
                                                       else f", ETA {duration(eta)}")
        else:
            head = f"{done} {self.unit}"
            budget = f" of {duration(self.seconds)}" if self.seconds else ""
            timing = f"{duration(elapsed)}{budget} elapsed"
        console.print(f"{self.title}: {head}, {timing}" + (f"; last: {last}" if last else ""), markup=False,
                      highlight=False, soft_wrap=True)


def describe_played(played: PlayedMatch) -> str:
    """'greedy beat random (score)' or 'a draw between ...' or 'random lost: crash' for a played match."""
    names = [seat.name for seat in played.job.seats]
    if played.voided or played.reason in UNRATED:
        return f"{' vs '.join(names)}: not scored ({played.reason})"
    ranking = list(played.ranking)
    best = min(ranking) if ranking else 0
    winners = [name for name, rank in zip(names, ranking) if rank == best]
    if played.offender is not None and 0 <= played.offender < len(names):
        return f"{names[played.offender]} lost by {played.reason}"
    if len(winners) == len(names):
        return f"{' and '.join(names)} drew ({played.reason})"
    losers = [name for name in names if name not in winners]
    return f"{' and '.join(winners)} beat {' and '.join(losers)} ({played.reason})"


def duration(seconds: float) -> str:
    """'42s', '3m 05s', '1h 02m'."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s" if seconds >= 10 else f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"



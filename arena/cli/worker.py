"""`arena worker`: serve matches to tournaments, ladders and SPRTs run with `--broker` elsewhere."""

from __future__ import annotations

from typing import Optional

import typer

from arena.cli.options import QUEUE_OPTION
from arena.cli.show import fail
from arena.tournament.celery_executor import BROKER_ENV, run_worker


def worker(
    broker: Optional[str] = typer.Option(None, "--broker", envvar=BROKER_ENV,
                                         help="The Redis broker to take matches from, e.g. redis://HOST:6379/0 "
                                              "(default: $ARENA_BROKER)."),
    queue: str = QUEUE_OPTION,
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Worker processes (default: the number of cores)."),
    loglevel: str = typer.Option("WARNING", "--loglevel", help="Celery's log level (INFO shows every chunk)."),
) -> None:
    """Play the built-in agents' matches that `--broker` runs send, until Ctrl-C (a Celery worker)."""
    if not broker:
        fail("which broker? pass --broker redis://HOST:6379/0 or set ARENA_BROKER", code=2)
    try:
        run_worker(broker, queue, concurrency, loglevel.upper())
    except ImportError:  # Celery is an extra (run_worker imports it)
        fail("arena worker needs Celery: pip install 'arena[distributed]'", code=2)

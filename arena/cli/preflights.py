"""`arena preflights`: run the pre-flights of bots uploaded over the web, in a service of their own."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Optional

import typer

from arena.cli.options import BOT_STORE_OPTION, DB_OPTION, SANDBOX_OPTION
from arena.cli.settings import checked_sandbox, open_store, results_dir
from arena.cli.show import console, fail
from arena.store.hosting import Hosting
from arena.submissions import bot_store as default_bot_store
from arena.submissions.queue import PreflightQueue


def preflights(
    db: Optional[str] = DB_OPTION,
    bot_store: Optional[Path] = BOT_STORE_OPTION,
    workers: int = typer.Option(2, "--workers", "-j", min=1, max=32, help="Pre-flights run at once (each in a "
                                "process of its own)."),
    live_bots: int = typer.Option(10, "--live-bots", min=1, help="Live bots one owner may have (as `arena web "
                                  "--live-bots`)."),
    sandbox: Optional[str] = SANDBOX_OPTION,
) -> None:
    """Take uploaded bots from the database's queue and pre-flight them, until stopped: with `arena web
    --preflight-workers 0`, so that the web server need not write the bots' store."""
    settings = checked_sandbox(sandbox)
    store = open_store(db)
    where = bot_store or default_bot_store(results_dir())
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        fail(f"cannot use the bots' store {where}: {error.strerror}", code=2)

    async def serve() -> None:
        queue = PreflightQueue(Hosting(store), store.engine.url.render_as_string(hide_password=False), where,
                               workers=workers, sandbox=settings.mode, live_bots=live_bots)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stopping.set)
        queue.start()
        console.print(f"pre-flights: {workers} at a time into {where}  (stop with Ctrl-C)", markup=False,
                      soft_wrap=True)
        await stopping.wait()
        await queue.stop()

    try:
        asyncio.run(serve())
    finally:
        store.close()


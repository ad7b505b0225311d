"""The pre-flights of uploaded submissions: a queue in the database, run by worker processes
(arena.submissions.worker), `workers` at a time, in `arena web` itself or in `arena preflights` (a service
of its own, so that the process facing the internet need not write the bots' store).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

from arena.store.hosting import Hosting

PREFLIGHT_TIMEOUT_S = 600.0  # the longest one pre-flight may take
LEASE_S = 60.0  # a running pre-flight's lease, renewed every third of it
DB_ENV = "ARENA_DB"  # how a worker learns the database URL (its environment: not on its command line)


class PreflightQueue:
    """Runs queued submissions in worker processes, `workers` at a time (an asyncio task of `arena web` or of
    `arena preflights`).

    Fair between owners: a free worker takes the oldest waiting upload of the owner with the fewest running, and
    the last free worker is kept for an owner with nothing running (with two workers or more), so one owner's
    many slow uploads never make another's wait (with one worker, by one pre-flight at most). Each pre-flight is stopped
    after `timeout_s` (and fails with that reason). Each is leased to this web server (`holder`) while it runs,
    the lease renewed, so a second web server on the same database never runs it too, and one whose server
    died is taken up again once its lease runs out. The worker gets the database URL through its environment
    (ARENA_DB), never on its command line, where any user of the machine could read it.
    """

    def __init__(self, hosting: Hosting, db_url: str, bot_store: Path, *, workers: int = 2, sandbox: str = "bwrap",
                 live_bots: int = 10, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> None:
        self.hosting = hosting
        self.db_url = db_url
        self.bot_store = bot_store
        self.workers = max(1, workers)
        self.sandbox = sandbox
        self.live_bots = live_bots
        self.timeout_s = timeout_s
        self.holder = f"web-{os.getpid()}-{secrets.token_hex(6)}"
        self.running: dict[int, tuple[str, asyncio.subprocess.Process]] = {}  # id -> (owner, worker)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for _owner, process in list(self.running.values()):
            if process.returncode is None:
                process.terminate()
        for _owner, process in list(self.running.values()):
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()

    def next_up(self, waiting: list[tuple[int, str]]) -> tuple[int, str] | None:
        """The submission a free worker takes: the oldest of the owner with the fewest running; none of an owner
        with one running already when it would take the last free worker (kept for another owner's upload)."""
        busy = Counter(owner for owner, _process in self.running.values())
        last_free = len(self.running) + 1 >= self.workers > 1
        candidates = [(busy[owner], index, (submission, owner)) for index, (submission, owner) in enumerate(waiting)
                      if submission not in self.running and not (last_free and busy[owner])]
        return min(candidates)[2] if candidates else None

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            waiting = await asyncio.to_thread(self.hosting.queued)
            while len(self.running) < self.workers:
                chosen = self.next_up(waiting)
                if chosen is None:
                    break
                waiting.remove(chosen)
                if await asyncio.to_thread(self.hosting.claim, chosen[0], self.holder, LEASE_S):
                    await self._spawn(*chosen)
            try:
                await asyncio.wait_for(self._wake.wait(), 1.0)
            except TimeoutError:
                pass

    async def _spawn(self, submission_id: int, owner: str) -> None:
        argv = [sys.executable, "-m", "arena.submissions.worker", "--bot-store", str(self.bot_store),
                "--sandbox", self.sandbox, "--live-bots", str(self.live_bots), str(submission_id)]
        nice = shutil.which("nice")
        if nice is not None:  # below the web's own priority: pages stay quick while bots are tried out
            argv = [nice, "-n", "10", *argv]
        process = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                       stdout=asyncio.subprocess.DEVNULL,
                                                       stderr=asyncio.subprocess.PIPE,
                                                       env={**os.environ, DB_ENV: self.db_url})
        self.running[submission_id] = (owner, process)
        asyncio.get_running_loop().create_task(self._reap(submission_id, process))

    async def _reap(self, submission_id: int, process: asyncio.subprocess.Process) -> None:
        waited = asyncio.ensure_future(process.communicate())
        ends = time.monotonic() + self.timeout_s
        over = False
        while not waited.done():
            done, _pending = await asyncio.wait({waited}, timeout=min(LEASE_S / 3, max(0.0, ends - time.monotonic())))
            if done:
                break
            if time.monotonic() >= ends:  # past the cap: the worker (and the bot it runs) is stopped
                over = True
                process.kill()
                break
            await asyncio.to_thread(self.hosting.renew, submission_id, self.holder, LEASE_S)
        _out, err = await waited
        self.running.pop(submission_id, None)
        row = await asyncio.to_thread(self.hosting.submission, submission_id)
        if row is not None and over:
            await asyncio.to_thread(self.hosting.finish, submission_id, "failed", {
                "status": "failed", "source": row.filename, "problems": [],
                "message": f"the pre-flight took more than {self.timeout_s:g} s, the most one may take here: the bot "
                           "answers too slowly for a ladder (arena bot test shows where)"})
        elif row is not None and not row.is_final:  # the worker died before it could say how it went
            said = (err or b"").decode("utf-8", errors="replace").strip().splitlines()[-1:] or ["no message"]
            await asyncio.to_thread(self.hosting.finish, submission_id, "error", {
                "status": "error", "source": row.filename, "problems": [],
                "message": f"the pre-flight could not run here (not the bot's fault; submit again): {said[0]}"})
        self.wake()

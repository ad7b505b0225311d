"""Local bot processes: launch a manifest's command, keep the tail of its output, stop it."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Optional

from arena.rpc.manifest import BotManifest

OUTPUT_KEPT_BYTES = 64 * 1024  # the tail of a process's output kept in memory
EVIDENCE_BYTES = 16 * 1024  # at most this much output goes into a match record


class OutputTail:
    """The last bytes a process wrote (stdout and stderr together) and a count of all it wrote."""

    def __init__(self, limit: int = OUTPUT_KEPT_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        """Append output, dropping the oldest bytes beyond the limit."""
        self._buffer += data
        self.total += len(data)
        excess = len(self._buffer) - self.limit
        if excess > 0:
            del self._buffer[:excess]

    def since(self, mark: int, cap: int = EVIDENCE_BYTES) -> str:
        """What was written after `mark` (a past `total`), at most its last `cap` bytes."""
        wanted = self.total - mark
        kept = min(wanted, len(self._buffer), cap)
        text = bytes(self._buffer[len(self._buffer) - kept:]).decode("utf-8", errors="replace") if kept else ""
        if kept < wanted:
            text = f"[... {wanted - kept} earlier bytes not kept]\n" + text
        return text


class BotProcess:
    """One running instance of a local bot program."""

    def __init__(self, manifest: BotManifest, token: str) -> None:
        self.manifest = manifest
        self.token = token
        self.output = OutputTail()
        self.process: Optional[asyncio.subprocess.Process] = None
        self._pump: Optional[asyncio.Task[None]] = None

    @property
    def pid(self) -> int | None:
        """The OS process id once launched."""
        return self.process.pid if self.process else None

    @property
    def has_exited(self) -> bool:
        """True once a launched process has ended."""
        return self.process is not None and self.process.returncode is not None

    @property
    def is_running(self) -> bool:
        """True between launch and exit."""
        return self.process is not None and self.process.returncode is None

    async def launch(self, server_address: str) -> None:
        """Start the program with the environment it needs to connect back."""
        env = dict(os.environ)
        env.update(self.manifest.env)
        env.update({"ARENA_SERVER": server_address, "ARENA_TOKEN": self.token, "ARENA_BOT_NAME": self.manifest.name,
                    "ARENA_CONCURRENCY": str(self.manifest.concurrency), "PYTHONUNBUFFERED": "1"})
        self.process = await asyncio.create_subprocess_exec(
            *self.manifest.argv(), cwd=self.manifest.directory, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        self._pump = asyncio.get_running_loop().create_task(self._read_output())

    async def _read_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while True:
            chunk = await self.process.stdout.read(65536)
            if not chunk:
                return
            self.output.feed(chunk)

    async def wait(self) -> None:
        """Wait, however long it takes, for the process to end."""
        if self.process is not None:
            await self.process.wait()

    async def wait_exit(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the process to end (and its output to be read); True if it did."""
        if self.process is None:
            return True
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            return False
        if self._pump is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._pump), 1.0)
            except TimeoutError:
                pass
        return True

    def exit_description(self) -> str:
        """'exited with status 3' or 'was killed by SIGKILL'."""
        code = self.process.returncode if self.process else None
        if code is None:
            return "is still running"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with status {code}"

    async def stop(self, grace_s: float = 2.0) -> None:
        """Ask the process to end (SIGTERM), then kill it after `grace_s`."""
        if self.process is None:
            return
        if self.process.returncode is None:
            try:
                self.process.terminate()
            except ProcessLookupError:
                pass
            if not await self.wait_exit(grace_s):
                try:
                    self.process.kill()
                except ProcessLookupError:
                    pass
                await self.wait_exit(grace_s)
        if self._pump is not None and not self._pump.done():
            self._pump.cancel()

"""Whether the referee can store its records now: a record that cannot be written (a full disk, a folder it may
not write) makes the server unhealthy (its gRPC health check answers NOT_SERVING) until one can be again: the
next record stored, or a probe file written when the health is asked (arena.rpc.server)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Optional

from arena.referee.record import RecordWriteError

log = logging.getLogger("arena.referee")

PROBE_BYTES = 64 * 1024  # what a probe writes: room for a record of a long match
PROBE_NAME = ".arena-storage-probe"


class RecordStorage:
    """The results folder as the referee sees it: `problem` is None while records can be stored, else the
    one line saying why the last one could not be; `on_change(healthy)` hears each change."""

    def __init__(self, results: Optional[Path], on_change: Callable[[bool], None] | None = None) -> None:
        self.results = results
        self.problem: Optional[str] = None
        self.on_change = on_change
        self._probing: Optional[asyncio.Lock] = None  # one probe at a time (made in the server's loop)

    @property
    def healthy(self) -> bool:
        return self.problem is None

    def failed(self, match_id: str, error: RecordWriteError) -> None:
        """A record could not be stored: say so in one line (the log) and become unhealthy."""
        log.error("match %s: its record was not stored: %s", match_id, error)
        self._set(str(error))

    def stored(self) -> None:
        """A record was stored: healthy again."""
        self._set(None)

    async def recheck(self) -> bool:
        """While unhealthy, try writing a probe file to the records' folder (healthy again if it can be);
        whether records can be stored."""
        if self._probing is None:
            self._probing = asyncio.Lock()
        async with self._probing:
            if self.problem is not None and self.results is not None \
                    and await asyncio.to_thread(_probe, self.results / "records"):
                log.warning("records can be stored again under %s", self.results)
                self._set(None)
        return self.healthy

    def _set(self, problem: Optional[str]) -> None:
        changed = (problem is None) != (self.problem is None)
        self.problem = problem
        if changed and self.on_change is not None:
            self.on_change(problem is None)


def _probe(folder: Path) -> bool:
    """Whether PROBE_BYTES can be written to `folder` now (the probe file removed again either way)."""
    probe = folder / PROBE_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(probe, "wb") as handle:
            handle.write(bytes(PROBE_BYTES))
            handle.flush()
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)

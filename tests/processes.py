"""Counting a bot's processes on this machine, sandboxed or not; a free loopback port for the servers
the tests start.

Every process the referee launches for bot NAME (the sandbox's own processes included) carries
ARENA_BOT_NAME=NAME in its environment, and so do the children it forks; so the host's /proc tells
how many there are, whatever PID namespace they live in. It also carries ARENA_REFEREE=<id> of the
referee that launched it: a test counts only its own referee's processes, never another referee's on
the same machine (another test worker's, or an `arena serve` a user runs beside the suite).
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A loopback TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def referee_id(referee: Any) -> str:
    """The id a BackgroundReferee's bot processes carry (ARENA_REFEREE)."""
    launcher = referee.server.pool.launcher
    assert launcher is not None, "the referee has not started"
    return str(launcher.referee_id)


def processes_of(name: str, referee: Any = None) -> set[int]:
    """Host pids of the running processes of bot `name` (zombies excluded); with `referee`, only those it
    launched."""
    markers = [f"ARENA_BOT_NAME={name}".encode()]
    if referee is not None:
        markers.append(f"ARENA_REFEREE={referee_id(referee)}".encode())
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
            if any(marker not in environment for marker in markers):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.add(int(entry.name))
    return found


def _parents() -> dict[int, int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return parents


def trees(roots: set[int]) -> set[int]:
    """The given processes and all their descendants."""
    parents = _parents()
    inside = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in inside and pid not in inside:
                inside.add(pid)
                grew = True
    return inside


def leftovers(referee: Any, name: str) -> set[int]:
    """Processes of bot `name` that `referee` launched and that belong to none of its live (warm) processes."""
    live = {lp.process.pid for lp in referee.server.pool._processes.get(name, []) if lp.process.is_running}
    return processes_of(name, referee) - trees(live)


def wait_for_no_leftovers(referee: Any, name: str, within_s: float = 20.0) -> None:
    """Wait until every process bot `name` left behind is gone; fail naming them if some stay."""
    deadline = time.monotonic() + within_s
    while True:
        left = leftovers(referee, name)
        if not left:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(left)} process(es) of bot {name!r} still run: {sorted(left)[:20]}")
        time.sleep(0.05)


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True

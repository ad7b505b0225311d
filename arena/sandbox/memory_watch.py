"""The memory of a bot's whole process tree where no memory cgroup can be made (in a container, for an
unprivileged referee without a delegated cgroup): the referee bounds it itself.

Each process already has an address-space limit (RLIMIT_AS) at the bot's memory limit, so one process
cannot run far past it; but six processes could each hold most of it at once. So one thread of the
referee, every WATCH_S, finds every process of each watched tree (by parent links under /proc: inside the
sandbox's PID namespace an orphan is adopted by the sandbox's own first process, so nothing leaves its
tree) and sums their resident memory (shared pages counted in each process: never less than the truth);
a tree over its limit is killed whole, and the kill recorded for the match's reason. The bound holds to
within what the tree can allocate in one WATCH_S, each process capped by its RLIMIT_AS.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

WATCH_S = 0.2
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(eq=False)
class Watched:
    """One watched tree: its root process, its limit, and what the watch saw."""

    pid: int
    limit_bytes: int
    peak_bytes: int = 0
    killed_at_bytes: Optional[int] = None  # the tree's memory when the watch killed it
    scans: int = 0  # scans completed since it was watched
    scanned: threading.Condition = field(default_factory=threading.Condition)

    @property
    def killed(self) -> bool:
        return self.killed_at_bytes is not None

    def wait_scans(self, count: int, timeout_s: float) -> bool:
        """Wait until `count` more scans of this tree have completed (or it is no longer watched)."""
        with self.scanned:
            target = self.scans + count
            return self.scanned.wait_for(lambda: self.scans >= target or self.killed or self not in WATCH.trees,
                                         timeout_s)


class TreeWatch:
    """The one thread that watches every tree of this referee (started with the first)."""

    def __init__(self) -> None:
        self.trees: set[Watched] = set()
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def watch(self, pid: int, limit_bytes: int) -> Watched:
        """Start watching the tree under `pid`; stop with `forget`."""
        watched = Watched(pid, limit_bytes)
        with self._lock:
            self.trees.add(watched)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="arena-memory-watch", daemon=True)
                self._thread.start()
        return watched

    def forget(self, watched: Watched) -> None:
        with self._lock:
            self.trees.discard(watched)
        with watched.scanned:
            watched.scanned.notify_all()

    def _run(self) -> None:
        stop = threading.Event()
        while True:
            with self._lock:
                trees = list(self.trees)
                if not trees:
                    self._thread = None
                    return
            children = _children()
            for watched in trees:
                pids = _tree(watched.pid, children)
                used = sum(_resident(pid) for pid in pids)
                watched.peak_bytes = max(watched.peak_bytes, used)
                if used > watched.limit_bytes and pids:
                    watched.killed_at_bytes = used
                    _kill(pids)
                with watched.scanned:
                    watched.scans += 1
                    watched.scanned.notify_all()
            stop.wait(WATCH_S)


WATCH = TreeWatch()


def _children() -> dict[int, list[int]]:
    """Every process's children, from one pass over /proc (parent pid: the field after the name's ')')."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def _tree(root: int, children: dict[int, list[int]]) -> list[int]:
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if os.path.exists(f"/proc/{pid}"):
            found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _resident(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every process under it."""
    _kill(_tree(pid, _children()))

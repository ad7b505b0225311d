"""What a referee killed without warning (`kill -9`, a crash) leaves behind, and its removal at the
next start of any referee on the machine: its runtime folder (the bots' sockets and private
folders), its cgroup folders (`arena-<pid>` beside this referee's own) and any process still in
them. Bot processes themselves die with their referee (bubblewrap's --die-with-parent).

A runtime folder says whose it is in its `owner` file: the process id and its start time (so a
reused process id is not taken for the referee that made the folder).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Optional

from arena.sandbox.cgroups import V1_CONTROLLERS, cgroup_mounts, kill_all, own_cgroups

RUNTIME_PREFIX = "arena-referee-"
OWNER_FILE = "owner"


def _start_time(pid: int) -> Optional[str]:
    """The process's start time (field 22 of /proc/PID/stat), or None if there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def owner_line(pid: int | None = None) -> str:
    """What a runtime folder's owner file holds for this process."""
    pid = os.getpid() if pid is None else pid
    return f"{pid} {_start_time(pid)}\n"


def is_alive(owner: str) -> bool:
    """True when the process an owner line names is still running (the same process, not a reused id)."""
    parts = owner.split()
    if len(parts) != 2 or not parts[0].isdigit():
        return False
    return _start_time(int(parts[0])) == parts[1]


def runtime_base() -> Path:
    """Where referees make their runtime folders (short enough for a Unix socket path)."""
    base = tempfile.gettempdir()
    return Path("/tmp") if len(base) > 60 else Path(base)


def new_runtime_folder() -> Path:
    """A fresh private folder for one referee, with its owner file (and leftovers of dead ones removed)."""
    remove_leftovers()
    folder = Path(tempfile.mkdtemp(prefix=RUNTIME_PREFIX, dir=runtime_base()))
    (folder / OWNER_FILE).write_text(owner_line())
    return folder


def remove_leftovers() -> list[str]:
    """Remove the runtime folders and cgroup folders of referees that are gone; what was removed."""
    removed = _remove_dead_cgroups()  # first: the processes that could still write in the folders
    for folder in runtime_base().glob(f"{RUNTIME_PREFIX}*"):
        try:
            owner = (folder / OWNER_FILE).read_text()
        except OSError:
            continue  # not ours to judge (a folder being made, or another user's)
        if not is_alive(owner) and _remove_folder(folder):
            removed.append(str(folder))
    return removed


def _remove_folder(folder: Path, patience_s: float = 5.0) -> bool:
    """Remove a dead referee's folder; a bot process dying a moment later may still hold or write in it, so
    this tries again for up to `patience_s`. True once it is gone."""
    deadline = time.monotonic() + patience_s
    while True:
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _remove_dead_cgroups() -> list[str]:
    """`arena-<pid>` cgroup folders beside this process's own whose referee is gone (processes killed first)."""
    removed = []
    for parent in _own_cgroup_parents():
        for base in _arena_groups_in(parent):
            pid = base.name.removeprefix("arena-")
            if pid.isdigit() and _start_time(int(pid)) is None and _remove_group_tree(base):
                removed.append(str(base))
    return removed


def _own_cgroup_parents() -> set[Path]:
    """The folders holding this process's own cgroups: in the cgroup2 tree and in each mounted v1 controller's."""
    mounts = cgroup_mounts()
    own = own_cgroups()
    parents = set()
    if "cgroup2" in mounts and "" in own:
        parents.add(mounts["cgroup2"] / own[""].lstrip("/"))
    for controller in V1_CONTROLLERS:
        if controller in mounts and controller in own:
            parents.add(mounts[controller] / own[controller].lstrip("/"))
    return parents


def _arena_groups_in(parent: Path) -> list[Path]:
    """The `arena-*` entries of the cgroup folder `parent` (none where it cannot be read)."""
    try:
        return [entry for entry in parent.iterdir() if entry.name.startswith("arena-")]
    except OSError:
        return []


def _remove_group_tree(base: Path, patience_s: float = 5.0) -> bool:
    """Kill every process in the groups under `base` and remove them, deepest first; True once `base` is gone
    (a killed process leaves its group a moment later, so this tries again for up to `patience_s`)."""
    deadline = time.monotonic() + patience_s
    while True:
        groups = sorted((path for path in base.rglob("*") if path.is_dir()), key=lambda path: -len(path.parts))
        for group in [*groups, base]:
            _kill_members(group)
            try:
                group.rmdir()
            except OSError:
                pass
        if not base.exists():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def _kill_members(group: Path) -> None:
    try:
        pids = [int(line) for line in (group / "cgroup.procs").read_text().split() if line.isdigit()]
    except OSError:
        return
    kill_all(pids)

"""Kernel control groups for bot process trees: limits that hold for a whole tree, its peak use,
whether the kernel stopped it at a limit, and a kill that reaches every process in it.

Works with cgroup v2 (the unified hierarchy, where the referee may create children with the memory
and pids controllers: a delegated subtree, or `cgroup_root` naming one) and with cgroup v1's
memory, pids and cpuacct hierarchies (one directory per controller). Where neither can be written
(an unprivileged user without a delegated cgroup), `CgroupFactory.available` is False and the
referee falls back to per-process rlimits (arena.sandbox.launch).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

V1_CONTROLLERS = ("memory", "pids", "cpuacct")


@dataclass(frozen=True)
class CgroupUsage:
    """What a bot's process tree used and what the kernel refused it, as far as the kernel tells."""

    memory_peak_bytes: Optional[int] = None
    processes_peak: Optional[int] = None
    cpu_seconds: Optional[float] = None
    oom_kills: int = 0  # processes the kernel killed for going over the memory limit
    memory_limit_hits: int = 0  # times an allocation met the limit (reclaim or OOM followed)
    processes_refused: int = 0  # forks refused for going over the process limit

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {}
        if self.memory_peak_bytes is not None:
            data["memory_peak_mb"] = round(self.memory_peak_bytes / 2**20, 1)
        if self.processes_peak is not None:
            data["processes_peak"] = self.processes_peak
        if self.cpu_seconds is not None:
            data["cpu_seconds"] = round(self.cpu_seconds, 3)
        for key in ("oom_kills", "processes_refused"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        return data


def kill_all(pids: list[int]) -> None:
    """SIGKILL each process (one already gone, or not ours to kill, is passed over)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _keyed(text: str) -> dict[str, int]:
    """'key value' lines (memory.events, pids.events, cpu.stat, memory.oom_control) as a dict."""
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    return values


def _number(path: Path) -> Optional[int]:
    text = _read(path).strip()
    return int(text) if text.isdigit() else None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


class BotCgroup:
    """The cgroup(s) of one bot process tree: one directory (v2) or one per v1 controller."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs  # controller -> directory ("unified" for v2)

    def procs_files(self) -> list[Path]:
        """The files a process writes its pid to, to join every one of the groups."""
        return sorted({directory / "cgroup.procs" for directory in self.dirs.values()})

    def limit(self, memory_bytes: int, processes: int) -> None:
        """Set the tree's memory (swap included where the kernel counts it) and process limits."""
        if self.version == 2:
            directory = self.dirs["unified"]
            _write(directory / "memory.max", str(memory_bytes))
            _write(directory / "memory.swap.max", "0")
            _write(directory / "pids.max", str(processes))
            return
        if "memory" in self.dirs:
            _write(self.dirs["memory"] / "memory.limit_in_bytes", str(memory_bytes))
            _write(self.dirs["memory"] / "memory.memsw.limit_in_bytes", str(memory_bytes))
        if "pids" in self.dirs:
            _write(self.dirs["pids"] / "pids.max", str(processes))

    @property
    def limits_processes(self) -> bool:
        return self.version == 2 or "pids" in self.dirs

    @property
    def limits_memory(self) -> bool:
        return self.version == 2 or "memory" in self.dirs

    def cpu_seconds(self) -> Optional[float]:
        """CPU time the tree used so far (one file read: what is checked after every match)."""
        if self.version == 2:
            cpu = _keyed(_read(self.dirs["unified"] / "cpu.stat")).get("usage_usec")
            return cpu / 1e6 if cpu is not None else None
        cpuacct = self.dirs.get("cpuacct")
        cpu_ns = _number(cpuacct / "cpuacct.usage") if cpuacct else None
        return cpu_ns / 1e9 if cpu_ns is not None else None

    def usage(self) -> CgroupUsage:
        """Peak memory and processes, CPU time, and the limits the kernel enforced so far."""
        return self._usage_v2() if self.version == 2 else self._usage_v1()

    def _usage_v2(self) -> CgroupUsage:
        """`usage` from the one cgroup v2 directory."""
        directory = self.dirs["unified"]
        memory_events = _keyed(_read(directory / "memory.events"))
        cpu_seconds = self.cpu_seconds()
        return CgroupUsage(
            memory_peak_bytes=_number(directory / "memory.peak"),
            processes_peak=_number(directory / "pids.peak"),
            cpu_seconds=cpu_seconds,
            oom_kills=memory_events.get("oom_kill", 0),
            memory_limit_hits=memory_events.get("max", 0),
            processes_refused=_keyed(_read(directory / "pids.events")).get("max", 0))

    def _usage_v1(self) -> CgroupUsage:
        """`usage` from the cgroup v1 controllers' directories there are (what one lacks is not known)."""
        memory, pids = self.dirs.get("memory"), self.dirs.get("pids")
        cpu_seconds = self.cpu_seconds()
        return CgroupUsage(
            memory_peak_bytes=_number(memory / "memory.max_usage_in_bytes") if memory else None,
            processes_peak=_number(pids / "pids.peak") if pids else None,
            cpu_seconds=cpu_seconds,
            oom_kills=_keyed(_read(memory / "memory.oom_control")).get("oom_kill", 0) if memory else 0,
            memory_limit_hits=(_number(memory / "memory.failcnt") or 0) if memory else 0,
            processes_refused=_keyed(_read(pids / "pids.events")).get("max", 0) if pids else 0)

    def pids(self) -> list[int]:
        """The processes in the tree now."""
        found: set[int] = set()
        for path in self.procs_files():
            found.update(int(line) for line in _read(path).split() if line.isdigit())
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process in the tree, again until none is left (a fork bomb keeps forking)."""
        if self.version == 2 and _write(self.dirs["unified"] / "cgroup.kill", "1"):
            return
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            kill_all(pids)
            time.sleep(0.002)

    def remove(self) -> bool:
        """Remove the (empty) groups; False if one is still busy."""
        removed = True
        for directory in self.dirs.values():
            try:
                directory.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                removed = False
        return removed


class CgroupFactory:
    """Where this referee makes its bots' cgroups: `<own cgroup>/arena-<pid>/<bot>`."""

    def __init__(self, root: Optional[Path] = None) -> None:
        self.version = 0
        self.bases: dict[str, Path] = {}
        self.problem = ""
        self._made: list[Path] = []
        try:
            self._find(root)
        except OSError as error:
            self.problem = f"cgroups unusable: {error}"
            self.bases = {}

    @property
    def available(self) -> bool:
        """True when bot trees get memory and process limits from the kernel."""
        return bool(self.bases)

    def describe(self) -> str:
        """'cgroup v2 at /sys/fs/cgroup/...' or why there are none."""
        if not self.bases:
            return self.problem or "no writable cgroup"
        if self.version == 2:
            return f"cgroup v2 at {self.bases['unified']}"
        return "cgroup v1 (" + ", ".join(sorted(self.bases)) + ")"

    def create(self, name: str) -> Optional[BotCgroup]:
        """A fresh group for one bot process tree, or None where cgroups are unavailable."""
        if not self.bases:
            return None
        dirs = {}
        for controller, base in self.bases.items():
            directory = base / name
            try:
                directory.mkdir()
            except FileExistsError:
                pass
            except OSError:
                continue
            dirs[controller] = directory
        return BotCgroup(self.version, dirs) if dirs else None

    def close(self) -> None:
        """Remove this referee's base groups (once its bots' groups are gone)."""
        for directory in reversed(self._made):
            try:
                directory.rmdir()
            except OSError:
                pass
        self._made.clear()

    # --- finding a writable place -----------------------------------------------------------------

    def _find(self, root: Optional[Path]) -> None:
        mounts = cgroup_mounts()
        own = own_cgroups()
        name = f"arena-{os.getpid()}"
        if root is not None:
            candidates = [root]
        elif "cgroup2" in mounts and "" in own:
            candidates = [mounts["cgroup2"] / own[""].lstrip("/")]
        else:
            candidates = []
        for parent in candidates:
            if self._try_v2(parent, name):
                return
        problems = self._try_v1(mounts, own, name)
        if self.bases:
            self.version = 1
        else:
            self.problem = ("no writable cgroup (" + "; ".join(problems) + ")") if problems else \
                "no cgroup the referee may write (run as root or in a delegated cgroup v2 subtree)"

    def _try_v1(self, mounts: dict[str, Path], own: dict[str, str], name: str) -> list[str]:
        """Make a base group `name` under this process's own group of each v1 controller mounted; why each one
        that could not be made was not."""
        problems = []
        for controller in V1_CONTROLLERS:
            mount = mounts.get(controller)
            path = own.get(controller)
            if mount is None or path is None:
                continue
            base = mount / path.lstrip("/") / name
            try:
                base.mkdir(exist_ok=True)
            except OSError as error:
                problems.append(f"{controller}: {error.strerror}")
                continue
            self._made.append(base)
            self.bases[controller] = base
        return problems

    def _try_v2(self, parent: Path, name: str) -> bool:
        controllers = _read(parent / "cgroup.controllers").split()
        if not {"memory", "pids"} <= set(controllers):
            return False
        enabled = _read(parent / "cgroup.subtree_control").split()
        if not {"memory", "pids"} <= set(enabled) and not _write(parent / "cgroup.subtree_control", "+memory +pids"):
            return False
        base = parent / name
        try:
            base.mkdir(exist_ok=True)
        except OSError:
            return False
        self._made.append(base)
        if not _write(base / "cgroup.subtree_control", "+memory +pids"):
            self.close()
            return False
        self.version = 2
        self.bases = {"unified": base}
        return True


def cgroup_mounts() -> dict[str, Path]:
    """Mount points: 'cgroup2' for the unified hierarchy, else per v1 controller."""
    mounts: dict[str, Path] = {}
    for line in _read(Path("/proc/self/mounts")).splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        kind, point, options = parts[2], Path(parts[1]), parts[3].split(",")
        if kind == "cgroup2":
            mounts.setdefault("cgroup2", point)
        elif kind == "cgroup":
            for option in options:
                if option in V1_CONTROLLERS:
                    mounts.setdefault(option, point)
    return mounts


def own_cgroups() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and '' for the unified hierarchy."""
    own: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(","):
            own[controller] = parts[2]
    return own

"""Resource limits of a bot program: what its bot.toml asks for, capped by what the referee allows.

    [limits]                # in bot.toml; every key optional
    memory_mb = 1024        # memory of the whole process tree (kernel cgroup), scratch files included
    processes = 64          # processes and threads of the tree at once (kernel cgroup)
    open_files = 256        # open files per process (RLIMIT_NOFILE)
    cpu_seconds = 600       # CPU time per process (RLIMIT_CPU); a warm process is recycled at half of it
    scratch_mb = 64         # size of the private writable /tmp (and of /dev/shm)

A bot that asks for more than the referee's cap gets the cap (`Limits.capped`); the operator sets
the caps (`arena serve --limit-cap memory_mb=4096`), never a bot.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping


@dataclass(frozen=True)
class Limits:
    """Per-bot-process resource limits."""

    memory_mb: int = 1024
    processes: int = 64
    open_files: int = 256
    cpu_seconds: int = 600
    scratch_mb: int = 64

    def capped(self, caps: Limits) -> Limits:
        """These limits, none above the matching cap."""
        return Limits(**{name: min(value, getattr(caps, name)) for name, value in asdict(self).items()})

    def exceeding(self, caps: Limits) -> list[str]:
        """'memory_mb 8192 > cap 4096' for each limit above its cap."""
        return [f"{name} {value} > cap {getattr(caps, name)}" for name, value in asdict(self).items()
                if value > getattr(caps, name)]

    def to_json(self) -> dict[str, int]:
        return asdict(self)


DEFAULT_LIMITS = Limits()
#: What a referee allows at most unless its operator says otherwise.
DEFAULT_CAPS = Limits(memory_mb=4096, processes=256, open_files=4096, cpu_seconds=3600, scratch_mb=1024)

LIMIT_NAMES = tuple(f.name for f in fields(Limits))
_MINIMUM = {"memory_mb": 16, "processes": 1, "open_files": 16, "cpu_seconds": 1, "scratch_mb": 1}
#: The most a bot.toml may ask for (the referee's caps then apply): beyond any machine, within every kernel's limits.
_MAXIMUM = {"memory_mb": 1 << 24, "processes": 1 << 22, "open_files": 1 << 20, "cpu_seconds": 1 << 31,
            "scratch_mb": 1 << 24}


def limits_from_table(table: Any, base: Limits = DEFAULT_LIMITS) -> tuple[Limits, list[str]]:
    """Limits from a `[limits]` table (missing keys keep `base`), and the problems found."""
    if table is None:
        return base, []
    if not isinstance(table, Mapping):
        return base, ["[limits] must be a table of " + ", ".join(LIMIT_NAMES)]
    problems = []
    values: dict[str, int] = {}
    for key, value in table.items():
        if key not in LIMIT_NAMES:
            problems.append(f"[limits] has an unknown key {key!r} (known: {', '.join(LIMIT_NAMES)})")
        elif isinstance(value, bool) or not isinstance(value, int) or not _MINIMUM[key] <= value <= _MAXIMUM[key]:
            problems.append(f"[limits] {key} must be a whole number from {_MINIMUM[key]} to {_MAXIMUM[key]:,}")
        else:
            values[key] = value
    return replace(base, **values), problems


def parse_limit_settings(entries: list[str], base: Limits) -> Limits:
    """Limits from 'name=value' texts over `base` (the command line's --limit-cap); ValueError if bad."""
    values: dict[str, int] = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        name = name.strip()
        if not sep or name not in LIMIT_NAMES:
            raise ValueError(f"bad limit {entry!r}: expected NAME=NUMBER with NAME one of {', '.join(LIMIT_NAMES)}")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"bad limit {entry!r}: {value!r} is not a whole number") from None
        if number < _MINIMUM[name]:
            raise ValueError(f"bad limit {entry!r}: {name} must be at least {_MINIMUM[name]}")
        values[name] = number
    return replace(base, **values)

"""Who plays a seat: the one word for a player's kind, and where a bot comes from, from the protocol to the page.

Each edge keeps its own spelling, byte for byte, and maps it here and nowhere else:

- the database's `bots.kind`, a match record's `players[].kind`, the celery job's seats, and the JSON of the
  web API and of `--json`: `PlayerKind.value` ("agent", "program", "remote"; a record also "bot");
- the admin protocol's `BotStatus.kind`: "local" or "remote" (`arena.rpc.convert.listed_kind`);
- where a bot comes from, on the pages and in the JSON: `Origin.value` ("built-in", "submitted", "remote").
"""

from __future__ import annotations

from enum import Enum

from arena.paths import BUILTIN_BOTS

#: The one version a remote bot is stored under: its code is its owner's, never versioned here.
REMOTE_VERSION = "remote"


class Origin(Enum):
    """Where a bot comes from."""

    BUILT_IN = "built-in"  # Arena's own: its agents and the bot programs it ships (arena/bots/)
    SUBMITTED = "submitted"  # a bot program someone brought: uploaded, submitted or run from a folder
    REMOTE = "remote"  # run on its owner's computer, connected by itself


class PlayerKind(Enum):
    """How a seat's player plays, and so (`origin`) where it comes from."""

    AGENT = "agent"  # in the referee's own process: Arena's agents
    PROGRAM = "program"  # a bot program the referee launches from its folder, in the sandbox
    REMOTE = "remote"  # a bot program its owner runs, connected to the referee by itself
    # a bot program a referee's server seated by name, launched there or connected: its records never said which
    BOT = "bot"

    @property
    def is_program(self) -> bool:
        """True for a bot program (launched or connected), False for an in-process agent."""
        return self is not PlayerKind.AGENT

    def origin(self, spec: str) -> Origin:
        """Where a bot of this kind comes from, given its spec (an agent's spec, a program's folder)."""
        if self is PlayerKind.AGENT:
            return Origin.BUILT_IN
        if self is PlayerKind.REMOTE:
            return Origin.REMOTE
        return Origin.BUILT_IN if spec.startswith(str(BUILTIN_BOTS) + "/") else Origin.SUBMITTED

"""What the store hands back: typed rows, one frozen dataclass per kind (no dicts across layers)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class BotRow:
    """A stored bot: one name, version and artifact (an agent spec or a program's files)."""

    id: int
    name: str
    version: str
    artifact_hash: str
    owner: str
    kind: str  # "agent" or "program"
    spec: str
    created_at: datetime
    status: str = "live"  # "live", or for a submitted version "pending", "failed" or "retired"
    retired_at: datetime | None = None
    parent_id: int | None = None  # the version this one follows (its rating starts from that one's mu)
    games: tuple[str, ...] | None = None  # what a program's bot.toml lists; None: any game

    @property
    def label(self) -> str:
        """'name@version'."""
        return f"{self.name}@{self.version}"

    def plays(self, game_name: str, family: str) -> bool:
        """True when the bot declares the game, its family or '*' (agents play anything)."""
        return self.games is None or "*" in self.games or game_name in self.games or family in self.games

    @property
    def origin(self) -> str:
        """Where the bot comes from (see `bot_origin`)."""
        return bot_origin(self.kind, self.spec)


def bot_origin(kind: str, spec: str) -> str:
    """'built-in' (Arena's agents and its own bot programs), 'remote' (run on its owner's computer) or
    'submitted' (a bot program someone brought: uploaded, submitted or run from a folder)."""
    if kind == "agent":
        return "built-in"
    if kind == "remote":
        return "remote"
    from arena.paths import BUILTIN_BOTS

    return "built-in" if spec.startswith(str(BUILTIN_BOTS) + "/") else "submitted"


@dataclass(frozen=True)
class TournamentRow:
    """A stored tournament (a ladder or an SPRT is one too)."""

    id: int
    name: str | None
    game: str
    pool: str
    options: dict[str, Any]
    format: str
    seed: int
    rounds: int
    settings: dict[str, Any]
    status: str  # "running" or "finished"
    created_at: datetime
    finished_at: datetime | None
    matches: int = 0  # how many are stored (filled by Store.tournaments)

    @property
    def label(self) -> str:
        """Its name, or '#id'."""
        return self.name or f"#{self.id}"


@dataclass(frozen=True)
class PairingRow:
    """A planned pairing: its round, index, seed and bots in the base seat order (one bot: a bye)."""

    round: int
    index: int
    seed: int
    bots: tuple[int, ...]
    label: str

    @property
    def is_bye(self) -> bool:
        return len(self.bots) < 2


@dataclass(frozen=True)
class InfraFaultRow:
    """A match that could not be played for a reason that was not a bot's."""

    id: int
    tournament_id: int
    round: int
    pairing: int
    rotation: int
    bots: tuple[int, ...]
    detail: str
    at: datetime

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.round, self.pairing, self.rotation)


@dataclass(frozen=True)
class FaultRow:
    """A stored match that a bot's fault ended (timeout, crash, illegal action...)."""

    match_id: int
    uid: str
    pool: str
    tournament_id: int
    bot_id: int  # the offender
    reason: str
    detail: str
    finished_at: datetime


@dataclass(frozen=True)
class MatchRow:
    """A stored match of a tournament, with its seats' bots."""

    id: int
    round: int
    pairing: int
    rotation: int
    seed: int
    ranking: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    offender: int | None
    steps: int
    timings: dict[str, Any]
    uid: str
    record_id: int
    finished_at: datetime
    bots: tuple[int, ...]  # per seat
    rated: bool = True


@dataclass(frozen=True)
class SubmissionRow:
    """An upload over the web and how far its pre-flight has gone."""

    id: int
    owner: str
    filename: str
    size: int
    upload_path: str
    status: str  # queued, running, live, failed, rejected, duplicate, error
    name: str | None
    version: str | None
    bot_id: int | None
    events: list[Any]
    result: dict[str, Any] | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def is_final(self) -> bool:
        """True once nothing more will happen to it."""
        return self.status not in ("queued", "running")


@dataclass(frozen=True)
class RemoteBotRow:
    """A registered remote bot and its presence as the ladder last saw it."""

    name: str
    owner: str
    token_hash: str
    bot_id: int
    created_at: datetime
    last_seen: datetime | None
    online: int  # streams open at the last look: how many matches it can take at once

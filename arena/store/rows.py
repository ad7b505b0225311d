"""What the store hands back: typed rows, one frozen dataclass per kind (no dicts across layers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from arena.games.base import points
from arena.referee.players import Origin, PlayerKind


@dataclass(frozen=True)
class BotRow:
    """A stored bot: one name, version and artifact (an agent spec or a program's files)."""

    id: int
    name: str
    version: str
    artifact_hash: str
    owner: str
    kind: PlayerKind  # AGENT, PROGRAM or REMOTE
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
    def origin(self) -> Origin:
        """Where the bot comes from."""
        return self.kind.origin(self.spec)


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
    matches: int = 0  # how many are stored (filled by Tournaments.find)

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
class StoredSeat:
    """Who sat in one seat of a stored match and where they finished."""

    seat: int
    bot_id: int
    bot: str  # its name
    version: str
    rank: int
    score: float | None
    luck: float | None  # what chance gave the seat, in points (arena.luck); None: not measured


@dataclass(frozen=True)
class StoredMatch:
    """A stored match: where it belongs, what was played, how it ended, and its seats. Its record is read on
    request (`Matches.record`): the one door to a stored match."""

    id: int
    uid: str  # the record's match_id
    tournament_id: int
    round: int
    pairing: int
    rotation: int
    game: str
    pool: str
    options: dict[str, Any]
    seed: int
    ranking: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    offender: int | None  # the seat whose fault ended it
    detail: str
    steps: int
    decisions: int
    timings: dict[str, Any]
    record_id: int
    rated: bool
    started_at: datetime
    finished_at: datetime
    seats: tuple[StoredSeat, ...]

    @property
    def key(self) -> tuple[int, int, int]:
        """(round, pairing, rotation): unique within its tournament."""
        return (self.round, self.pairing, self.rotation)

    @property
    def bots(self) -> tuple[int, ...]:
        """The bot id per seat."""
        return tuple(seat.bot_id for seat in self.seats)

    @property
    def luck(self) -> tuple[float, ...] | None:
        """The luck per seat, as results are corrected by it; None unless every seat has one."""
        lucks = [seat.luck for seat in self.seats]
        if not lucks or any(luck is None for luck in lucks):
            return None
        return tuple(float(luck) for luck in lucks if luck is not None)

    @property
    def offending_bot(self) -> int | None:
        """The bot whose fault ended the match, or None."""
        if self.offender is None or not 0 <= self.offender < len(self.seats):
            return None
        return self.seats[self.offender].bot_id


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
    leased_by: str | None = None
    lease_until: datetime | None = None

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


@dataclass(frozen=True)
class BotIdentity:
    """What makes a bot distinct in the store."""

    name: str
    version: str
    artifact_hash: str
    kind: PlayerKind = PlayerKind.AGENT
    spec: str = ""
    owner: str = ""


class PlayedMatchLike(Protocol):
    """What the store reads of a played match (arena.tournament.jobs.PlayedMatch is one)."""

    @property
    def tournament_id(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def pairing(self) -> int: ...
    @property
    def rotation(self) -> int: ...
    @property
    def key(self) -> tuple[int, int, int]: ...
    @property
    def game(self) -> str: ...
    @property
    def pool(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def seed(self) -> int: ...
    @property
    def bot_ids(self) -> tuple[int, ...]: ...
    @property
    def rated(self) -> bool: ...
    uid: str
    ranking: tuple[int, ...]
    scores: tuple[float, ...]
    reason: str
    offender: int | None
    detail: str
    luck: tuple[float, ...] | None
    steps: int
    decisions: int
    timings: dict[str, Any]
    record_gz: bytes
    record_size: int
    started_at: datetime
    finished_at: datetime


@dataclass
class RatingRow:
    """A bot's standing in a pool."""

    pool: str
    bot_id: int
    name: str
    version: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    last_played: datetime | None
    kind: PlayerKind = PlayerKind.AGENT
    owner: str = ""
    spec: str = ""

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return points(self.wins, self.draws)


@dataclass
class PairCount:
    """Results between two bots over stored matches: `a` against `b`."""

    a: int
    b: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    luck_games: int = 0  # of the games, those with their luck measured (arena.luck)
    corrected: float = 0.0  # over those, the sum of a's points less its luck
    corrected_squares: float = 0.0  # ... and of their squares

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """A's points against B: its wins plus half the draws."""
        return points(self.wins, self.draws)


@dataclass
class TallyDelta:
    """Changes to a bot's tallies from a batch of matches."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_match_id: int | None = None
    last_played: datetime | None = None


Pair = tuple[float, float]  # (mu, sigma)


@dataclass(frozen=True)
class RatingPoint:
    """A bot's rating in a pool after one of its rated matches."""

    pool: str
    bot_id: int
    match_id: int
    mu: float
    sigma: float
    played_at: datetime


@dataclass
class RatingChanges:
    """What a rating policy decides for one pool's batch of matches: the rating after each seat of each match
    (the history), every bot's rating after the batch, and each bot's tallies from it."""

    history: list[RatingPoint]
    ratings: dict[int, Pair]
    tallies: dict[int, TallyDelta]


class RatingPolicy(Protocol):
    """How stored matches move ratings (arena.ratings.policy.TrueSkillPolicy): the store only keeps what it
    decides."""

    def apply(self, matches: Sequence[tuple[PlayedMatchLike, int]], current: dict[int, Pair],
              lineage: dict[int, tuple[int, ...]]) -> RatingChanges:
        """The changes from `matches` (each with its new match id), in order, one pool's, from the `current`
        ratings of the bots that have one (and of the earlier versions of those that do not: `lineage`,
        bot -> its earlier versions, nearest first)."""
        ...

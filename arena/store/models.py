"""The stored tables: bots, tournaments and their pairings, matches with their seats and records, ratings.

Times are naive UTC. Ids are plain integers; a match is also known by its stable key
(tournament, round, pairing, rotation), unique, so a resumed tournament can never store it twice.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from arena.referee.players import PlayerKind


def utcnow() -> datetime:
    """The current time as naive UTC (what every DateTime column holds)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    """Declarative base of every Arena table."""


class Bot(Base):
    """A player: a built-in agent spec or a bot program, identified by name, version and artifact hash."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("name", "version", "artifact_hash", name="uq_bots_identity"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    version: Mapped[str] = mapped_column(String(64))
    artifact_hash: Mapped[str] = mapped_column(String(64))
    owner: Mapped[str] = mapped_column(String(200), default="")
    kind: Mapped[str] = mapped_column(String(16), default=PlayerKind.AGENT.value)  # a PlayerKind's value
    spec: Mapped[str] = mapped_column(Text)  # agent spec ("mcts:iterations=200") or program directory
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # "live" plays; a submitted version is "pending" while its pre-flight runs, "failed" if it did not
    # pass (it never plays), "retired" once retired or replaced by a newer version of the name
    status: Mapped[str] = mapped_column(String(16), default="live", server_default="live")
    report: Mapped[Optional[dict[str, Any]]] = mapped_column(JSON)  # a submission's pre-flight report
    retired_at: Mapped[Optional[datetime]] = mapped_column(DateTime)
    parent_id: Mapped[Optional[int]] = mapped_column(ForeignKey("bots.id"))  # the version this one follows
    games: Mapped[Optional[list[str]]] = mapped_column(JSON)  # what a program's bot.toml lists (None: any)


class Owner(Base):
    """Who may submit and retire bot names on a shared server: a name and the hash of its token."""

    __tablename__ = "owners"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # an operator (`arena owner add NAME --operator`) also sees every bot's fault evidence on the match pages
    operator: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Submission(Base):
    """An archive uploaded over the web (`arena web`): queued, then unpacked, checked and pre-flighted by a
    worker process of its own; its progress (`events`) and outcome (`result`) can be followed."""

    __tablename__ = "submissions"
    __table_args__ = (Index("ix_submissions_owner_created", "owner", "created_at"),
                      Index("ix_submissions_status", "status"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(300))
    size: Mapped[int] = mapped_column(Integer)
    upload_path: Mapped[str] = mapped_column(Text)  # where the uploaded archive waits for its worker
    # queued -> running -> live | failed | rejected | duplicate | error (the worker itself failed)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    name: Mapped[Optional[str]] = mapped_column(String(200))
    version: Mapped[Optional[str]] = mapped_column(String(64))
    bot_id: Mapped[Optional[int]] = mapped_column(ForeignKey("bots.id"))
    events: Mapped[list[Any]] = mapped_column(JSON, default=list)  # the pre-flight's progress, as it comes
    result: Mapped[Optional[dict[str, Any]]] = mapped_column(JSON)  # what `arena bot submit --json` prints
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[Optional[datetime]] = mapped_column(DateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(DateTime)
    # a running pre-flight is leased by one web server (its id) until a time that server keeps renewing
    leased_by: Mapped[Optional[str]] = mapped_column(String(64))
    lease_until: Mapped[Optional[datetime]] = mapped_column(DateTime)


class OwnerSession(Base):
    """An owner signed in to the web pages: the hash of the session cookie, its CSRF token, its end."""

    __tablename__ = "owner_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime)


class RemoteBot(Base):
    """A bot its owner runs on their own computer: it connects to the ladder's referee with its token
    (only its hash is kept); the ladder pairs it while it is connected."""

    __tablename__ = "remote_bots"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200), index=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_seen: Mapped[Optional[datetime]] = mapped_column(DateTime)
    online: Mapped[int] = mapped_column(Integer, default=0)  # its streams open now (matches it can take)


class InfraFault(Base):
    """A match that could not be played for a reason that is not a bot's (a worker lost, the referee
    restarted, a sandbox that could not start): never scored; the match is tried again."""

    __tablename__ = "infra_faults"
    __table_args__ = (Index("ix_infra_faults_key", "tournament_id", "round", "pairing", "rotation"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    pairing: Mapped[int] = mapped_column(Integer)
    rotation: Mapped[int] = mapped_column(Integer)
    bots: Mapped[list[int]] = mapped_column(JSON)  # per seat
    detail: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Tournament(Base):
    """One tournament (or a pool's ladder): its game, format, seed and entrants fix its whole schedule."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[Optional[str]] = mapped_column(String(200), unique=True)
    game: Mapped[str] = mapped_column(String(200))
    pool: Mapped[str] = mapped_column(String(300), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    format: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(BigInteger)
    rounds: Mapped[int] = mapped_column(Integer)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="running")  # running, finished
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[Optional[datetime]] = mapped_column(DateTime)


class Entry(Base):
    """A bot entered in a tournament, at its seeding position (0 = top seed)."""

    __tablename__ = "entries"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))


class Pairing(Base):
    """A table of bots meeting in a round; it is played once per seat rotation, each game on a chance seed of its
    own keyed by the tournament's seed (arena.tournament.formats.game_seed); `seed` is the pairing's, which
    every rotation shares only in the duplicate format."""

    __tablename__ = "pairings"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "index", name="uq_pairings_key"),
                      Index("ix_pairings_open", "tournament_id", "settled", "round"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    index: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    bots: Mapped[list[int]] = mapped_column(JSON)  # bot ids in the base seat order; one id alone is a bye
    label: Mapped[str] = mapped_column(String(64), default="")
    # every seat rotation stored (or a bye): a ladder's rounds read only the pairings still open
    settled: Mapped[bool] = mapped_column(default=False, server_default=false())


class Record(Base):
    """A whole match record, gzip-compressed JSON lines (`arena replay` reads it as a .jsonl.gz file)."""

    __tablename__ = "records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    encoding: Mapped[str] = mapped_column(String(32), default="jsonl+gzip")
    size: Mapped[int] = mapped_column(Integer)  # uncompressed bytes
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Match(Base):
    """One finished match: where it belongs, what was played, how it ended, and its record."""

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "round", "pairing", "rotation", name="uq_matches_key"),
        Index("ix_matches_pool_id", "pool", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    pairing: Mapped[int] = mapped_column(Integer)
    rotation: Mapped[int] = mapped_column(Integer)  # seat order: base order rotated by this many seats
    uid: Mapped[str] = mapped_column(String(32), unique=True)  # the record's match_id
    game: Mapped[str] = mapped_column(String(200))
    pool: Mapped[str] = mapped_column(String(300))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    num_seats: Mapped[int] = mapped_column(Integer)
    ranking: Mapped[list[int]] = mapped_column(JSON)
    scores: Mapped[list[float]] = mapped_column(JSON, default=list)
    reason: Mapped[str] = mapped_column(String(64))  # the rules' reason or a Termination value
    offender: Mapped[Optional[int]] = mapped_column(Integer)
    detail: Mapped[str] = mapped_column(Text, default="")
    steps: Mapped[int] = mapped_column(Integer)
    decisions: Mapped[int] = mapped_column(Integer)
    timings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    record_id: Mapped[int] = mapped_column(ForeignKey("records.id"))
    rated: Mapped[bool] = mapped_column(default=True)
    started_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime] = mapped_column(DateTime)


class MatchAnalysis(Base):
    """A stored match's analysis (arena.analysis): its chance curve and turning points, gzip-compressed JSON.
    One per match: analysing it again replaces it."""

    __tablename__ = "analyses"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    budget: Mapped[str] = mapped_column(String(32))  # simulations ("400") or seconds ("0.5s") per decision
    seed: Mapped[int] = mapped_column(BigInteger)
    seconds: Mapped[float] = mapped_column(Float)  # how long it took
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class MatchSeat(Base):
    """Who sat where in a match and where they finished."""

    __tablename__ = "match_seats"
    __table_args__ = (Index("ix_match_seats_bot", "bot_id", "match_id"),)

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    rank: Mapped[int] = mapped_column(Integer)
    score: Mapped[Optional[float]] = mapped_column(Float)
    # what chance gave this seat, in points, as its result is corrected by it (arena.luck: beta times the luck);
    # None where no luck was measured (a game with no value model, a match stored before)
    luck: Mapped[Optional[float]] = mapped_column(Float)


class Rating(Base):
    """A bot's current TrueSkill rating and tallies in one pool (a game mode)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_bot", "bot_id"),)

    pool: Mapped[str] = mapped_column(String(300), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    last_match_id: Mapped[Optional[int]] = mapped_column(Integer)
    last_played: Mapped[Optional[datetime]] = mapped_column(DateTime)


class RatingEvent(Base):
    """A bot's rating right after one rated match: the rating history."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_bot", "pool", "bot_id", "match_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pool: Mapped[str] = mapped_column(String(300))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    played_at: Mapped[datetime] = mapped_column(DateTime)

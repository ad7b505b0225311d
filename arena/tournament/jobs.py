"""A match to play (MatchJob) and the match played (PlayedMatch): the one value a match is, from
the match loop's record to the stored row. `play_job` plays a job of in-process agents here."""

from __future__ import annotations

import gzip
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from arena import __version__
from arena.agents import Agent, make_agent
from arena.games.base import Game
from arena.games.registry import load_game
from arena.luck import LuckMeter, MatchLuck, attach_luck, keep_luck
from arena.referee.authority import new_record, play_match
from arena.referee.faults import forfeit_ranking
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Reason, Termination


@dataclass(frozen=True)
class SeatBot:
    """The bot in one seat: its store id and how to make it."""

    bot_id: int
    name: str
    version: str
    kind: PlayerKind  # AGENT, PROGRAM (a folder, launched by the referee) or REMOTE (connects by itself)
    spec: str


@dataclass(frozen=True)
class MatchJob:
    """One match of a tournament: its stable key, the game, the seed and the bot in each seat."""

    tournament_id: int
    round: int
    pairing: int
    rotation: int
    game: str
    options: dict[str, Any]
    seed: int
    seats: tuple[SeatBot, ...]
    pool: str = ""  # the rating pool its result goes to
    bot_ids: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bot_ids", tuple(seat.bot_id for seat in self.seats))

    @property
    def key(self) -> tuple[int, int, int]:
        """(round, pairing, rotation): unique within the tournament."""
        return (self.round, self.pairing, self.rotation)

    @property
    def has_programs(self) -> bool:
        """True when a bot program (launched or remote) sits in one of the seats: it plays through the referee."""
        return any(seat.kind.is_program for seat in self.seats)


@dataclass(slots=True)
class PlayedMatch:
    """A played match: its job, the result, timing facts and the whole record, gzip-compressed.

    The store takes it as it is (`store.matches.save`). Between processes it travels as `wire()`, a
    plain tuple without the job (the sender of the job still has it): the main process of a
    tournament unpacks thousands a second.
    """

    job: MatchJob
    uid: str
    ranking: tuple[int, ...]
    scores: tuple[float, ...]
    reason: Reason
    offender: int | None
    detail: str
    steps: int
    decisions: int
    timings: dict[str, Any]
    record_gz: bytes
    record_size: int
    started_at: datetime
    finished_at: datetime
    voided: bool = False  # the fault policy voided the result: ratings ignore it
    luck: tuple[float, ...] | None = None  # per seat, what chance gave it (as results are corrected: arena.luck)

    # what the store reads of the job
    @property
    def tournament_id(self) -> int:
        return self.job.tournament_id

    @property
    def round(self) -> int:
        return self.job.round

    @property
    def pairing(self) -> int:
        return self.job.pairing

    @property
    def rotation(self) -> int:
        return self.job.rotation

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.job.round, self.job.pairing, self.job.rotation)

    @property
    def game(self) -> str:
        return self.job.game

    @property
    def pool(self) -> str:
        return self.job.pool

    @property
    def options(self) -> dict[str, Any]:
        return self.job.options

    @property
    def seed(self) -> int:
        return self.job.seed

    @property
    def bot_ids(self) -> tuple[int, ...]:
        return self.job.bot_ids

    @property
    def rated(self) -> bool:
        """False for a voided match and for one the infrastructure failed: ratings ignore them."""
        return not self.voided and self.reason not in UNRATED

    @property
    def is_infrastructure_fault(self) -> bool:
        """True when the match could not be played for a reason that was not a bot's: the infrastructure
        failed it, or the referee stopped it (reason "void": shut down, or an error of its own)."""
        return self.reason in UNRATED

    @property
    def wall_s(self) -> float:
        """How long the match took, in seconds."""
        return float(self.timings.get("wall_ms", 0.0)) / 1000.0

    def wire(self) -> tuple[Any, ...]:
        """Every field but the job, in order (see `from_wire`)."""
        return (self.uid, self.ranking, self.scores, self.reason, self.offender, self.detail, self.steps,
                self.decisions, self.timings, self.record_gz, self.record_size, self.started_at, self.finished_at,
                self.voided, self.luck)

    @classmethod
    def from_wire(cls, job: MatchJob, fields: tuple[Any, ...]) -> PlayedMatch:
        """The played match of `job` from its `wire()` form."""
        return cls(job, *fields)


UNRATED = frozenset({Termination.VOID, Termination.INFRASTRUCTURE})

_GAMES: dict[tuple[str, str], Game] = {}


def _game(name: str, options: dict[str, Any]) -> Game:
    key = (name, repr(sorted(options.items())))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_game(name, options)
    return game


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def play_job(job: MatchJob, limits: AgentLimits = DEFAULT_LIMITS) -> PlayedMatch:
    """Play a job of in-process agents here, each bounded by `limits` (a job with a bot program plays through
    the referee)."""
    programs = [seat.name for seat in job.seats if seat.kind.is_program]
    if programs:
        raise NotImplementedError(f"bot program(s) {', '.join(programs)} play through the referee executor")
    game = _game(job.game, job.options)
    started_at = utcnow()
    started = time.perf_counter()
    agents: list[Agent] = []
    meter = None
    try:
        for seat, bot in enumerate(job.seats):
            try:
                agents.append(make_agent(bot.spec))
            except Exception as error:  # the bot cannot even be made: it forfeits, the tournament goes on
                record = new_record(game, [], job.seed, uuid.uuid4().hex)
                record.result = MatchResult(forfeit_ranking(game.num_seats, seat), Termination.AGENT_ERROR,
                                            offender=seat, detail=f"could not start: {type(error).__name__}: {error}")
                break
        else:
            # the luck measured as the match is played (no replay of it afterwards), unless its model plays the
            # players' lookahead: then it is measured from the record once the match is over, off the match loop
            meter = LuckMeter.during_play(game)
            record = play_match(game, agents, job.seed, match_id=uuid.uuid4().hex, limits=limits,
                                on_step=meter.observe if meter is not None else None)
    finally:
        for agent in agents:
            agent.close()
    return played_from_record(job, record, started_at, (time.perf_counter() - started) * 1000.0, game, meter)


def played_from_record(job: MatchJob, record: MatchRecord, started_at: datetime, wall_ms: float,
                       game: Game | None = None, meter: LuckMeter | None = None) -> PlayedMatch:
    """A finished match's outcome: its result, per-seat timing sums and the compressed record. Its luck is kept in
    the record: as `meter` measured it while the match was played, else measured now (on `game`, if given)."""
    record.players = [PlayerInfo(seat, bot.name, bot.version, bot.kind) for seat, bot in enumerate(job.seats)]
    record.extra = {**record.extra, "tournament": job.tournament_id, "round": job.round, "pairing": job.pairing,
                    "rotation": job.rotation}
    result = record.result
    assert result is not None
    luck = None if result.reason in UNRATED else _kept_luck(record, game, meter)
    think, longest, decisions = _seat_timings(record, len(job.seats))
    text = record.to_jsonl().encode("utf-8")
    return PlayedMatch(
        job=job, uid=record.match_id, ranking=tuple(result.ranking), scores=tuple(result.scores),
        reason=result.reason, offender=result.offender, detail=result.detail, steps=len(record.steps),
        decisions=sum(decisions),
        timings={"wall_ms": round(wall_ms, 3), "think_ms": [round(t, 3) for t in think],
                 "max_think_ms": [round(t, 3) for t in longest], "decisions": decisions},
        record_gz=gzip.compress(text, compresslevel=6, mtime=0), record_size=len(text),
        started_at=started_at, finished_at=utcnow(), voided=result.voided or result.reason in UNRATED,
        # (a model whose luck does not help, beta 0, corrects nothing: no luck stored for the results)
        luck=_luck_shifts(luck),
    )


def _kept_luck(record: MatchRecord, game: Game | None, meter: LuckMeter | None) -> MatchLuck | None:
    """The match's luck, kept in its record: as `meter` measured it while it was played, else measured now."""
    return attach_luck(record, game) if meter is None else keep_luck(record, meter.luck())


def _luck_shifts(luck: MatchLuck | None) -> tuple[float, ...] | None:
    """What the luck corrects each seat's result by (None: no luck, or a model whose luck does not help)."""
    return tuple(round(luck.beta * seat, 6) for seat in luck.seats) if luck is not None and luck.beta else None


def _seat_timings(record: MatchRecord, seats: int) -> tuple[list[float], list[float], list[int]]:
    """Per seat: its thinking in all and its longest decision (ms), and its decisions."""
    think = [0.0] * seats
    longest = [0.0] * seats
    decisions = [0] * seats
    for step in record.steps:
        if step.seat >= 0:
            ms = step.timing.get("think_ms", 0.0)
            think[step.seat] += ms
            decisions[step.seat] += 1
            if ms > longest[step.seat]:
                longest[step.seat] = ms
    return think, longest, decisions


def infrastructure_fault(job: MatchJob, detail: str, started_at: datetime | None = None) -> PlayedMatch:
    """The outcome of a match the infrastructure failed (not the bots): nobody ranked, never scored.
    Its record holds the players and the reason, so even a match given up on can be looked up."""
    record = MatchRecord(game=job.game, options=job.options, seed=job.seed, players=[],
                         versions={"arena": __version__}, match_id=uuid.uuid4().hex)
    record.result = MatchResult(tuple([0] * len(job.seats)), Termination.INFRASTRUCTURE, detail=detail, voided=True)
    return played_from_record(job, record, started_at or utcnow(), 0.0)


def play_jobs(jobs: list[MatchJob], limits: AgentLimits = DEFAULT_LIMITS) -> list[tuple[Any, ...]]:
    """Play a chunk of jobs in order; their outcomes in `wire()` form (bench/tournament.py's anchor)."""
    return [play_job(job, limits).wire() for job in jobs]

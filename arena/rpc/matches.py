"""The matches a referee server plays: requests checked, seats taken, the match loop run, records saved.

A match is asked for by game and one seat per player (a bot's name, or an in-process agent); it
waits for a free slot (`max_matches`), takes its seats from the bot pool (a seat that cannot be
taken still makes a match: its bot forfeits, with the reason), runs in the match loop
(arena.referee.authority), and its record is saved under results/records/. LiveMatch is what
watchers (the admin service) follow while it runs and after.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from arena import __version__
from arena.agents.base import Agent
from arena.games.base import Game, State
from arena.games.registry import GameOptionError, UnknownGameError, family_of, load_game
from arena.referee.archive import mark_unstored, save_record
from arena.referee.authority import new_record, referee_match
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy, FaultPolicyError, SeatFault, void_result
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, RecordWriteError, Step, Termination
from arena.referee.seats import AgentSeat, Answer, Ask, MatchSetup, SeatPort
from arena.rpc.config import ServerConfig
from arena.rpc.observations import NoObservationCodec, codec_for_game
from arena.rpc.pool import BotPool, BotUnavailable
from arena.rpc.spectators import PublicFeed
from arena.rpc.storage import RecordStorage

Seat = Union[str, Agent, SeatPort]  # how a match request names who sits where


def _entry_name(entry: Seat) -> str:
    if isinstance(entry, SeatPort):
        return entry.player.name
    return entry.name if isinstance(entry, Agent) else entry


class MatchRequestError(ValueError):
    """A match that cannot be started as asked (unknown game or bot, wrong number of bots...)."""


def _parsed_fault_policy(fault_policy: FaultPolicy | str | None) -> FaultPolicy | None:
    """The fault policy a match request names (parsing one given as text), or None for the default."""
    if isinstance(fault_policy, str):
        try:
            return FaultPolicy.parse(fault_policy)
        except FaultPolicyError as error:
            raise MatchRequestError(str(error)) from None
    return fault_policy


class LiveMatch:
    """A match the server was asked to play: its settings, its steps so far, and its record."""

    def __init__(self, match_id: str, game: Game, family: str, bots: list[Seat], seed: int,
                 clock: ClockSettings, policy: FaultPolicy) -> None:
        self.match_id = match_id
        self.game = game
        self.family = family
        self.entries = bots  # a bot's name, an in-process agent, or a seat made by the caller, per seat
        self.bots = [_entry_name(entry) for entry in bots]
        self.seed = seed
        self.clock = clock
        self.policy = policy
        self.players = [PlayerInfo(seat, name, "", PlayerKind.AGENT if isinstance(entry, Agent) else PlayerKind.BOT)
                        for seat, (name, entry) in enumerate(zip(self.bots, bots))]
        self.steps: list[Step] = []
        self.step_times: list[float] = []  # time.monotonic() of each step, for the watch delay
        self.record: Optional[MatchRecord] = None
        self.path: Optional[Path] = None
        self.state: Optional[State] = None  # the position now (for the public view's board)
        self.task: Optional[asyncio.Task[MatchRecord]] = None
        self.watchers: set[asyncio.Event] = set()  # admins following the full view (few)
        self.feed = PublicFeed(self)  # everyone else: the public view, fanned out

    @property
    def is_finished(self) -> bool:
        """True once the record has its result."""
        return self.record is not None

    def on_step(self, state: State, step: Step) -> None:
        """The match loop's callback: keep the step, tell the public feed (it flushes later) and the admins."""
        self.state = state
        self.steps.append(step)
        self.step_times.append(time.monotonic())
        self.feed.note()
        for watcher in self.watchers:
            watcher.set()

    def finish(self, record: MatchRecord, path: Optional[Path]) -> None:
        """The match is over."""
        self.record = record
        self.path = path
        self.feed.note()
        for watcher in self.watchers:
            watcher.set()


class FailedSeat(SeatPort):
    """A seat whose bot could not be brought to the table: the match records that fault."""

    def __init__(self, name: str, version: str, problem: BotUnavailable) -> None:
        self._player = PlayerInfo(0, name, version, PlayerKind.BOT)
        self.problem = problem

    @property
    def player(self) -> PlayerInfo:
        return self._player

    async def start(self, setup: MatchSetup) -> None:
        raise SeatFault(setup.seat, self.problem.reason, self.problem.detail)

    async def decide(self, ask: Ask) -> Answer:  # pragma: no cover - start always fails
        raise SeatFault(ask.seat, self.problem.reason, self.problem.detail)

    async def finish(self, result: MatchResult) -> None:
        return None

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        return fault, dict(self.problem.evidence)


class Matches:
    """The matches of one server: started, running, and the last `finished_kept` finished."""

    def __init__(self, config: ServerConfig, pool: BotPool) -> None:
        self.config = config
        self.pool = pool
        self.live: dict[str, LiveMatch] = {}
        self.seed_salt: Optional[str] = None  # the server's; set when it starts
        self.accepting = False
        self._slots: Optional[asyncio.Semaphore] = None
        self._games: dict[tuple[str, str], tuple[Game, str]] = {}
        self._finished: deque[str] = deque()
        self.storage = RecordStorage(config.results_dir)  # whether records can be stored now

    def open(self, seed_salt: Optional[str]) -> None:
        """Accept matches from now on (in the server's event loop)."""
        self.seed_salt = seed_salt
        self._slots = asyncio.Semaphore(self.config.max_matches)
        self.accepting = True

    def start_match(self, game_name: str, bots: Sequence[Seat], *, seed: int | None = None,
                    options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                    fault_policy: FaultPolicy | str | None = None, match_id: str | None = None) -> LiveMatch:
        """Check a match request and start playing it; returns at once.

        A seat is a bot's name (a local program or a registered remote bot) or an in-process Agent,
        which then plays in this process, on a worker thread, under the same clock; or a SeatPort the
        caller made (arena.bottest.harness drives a bot's stream through its edge cases so).
        """
        if not self.accepting:
            raise MatchRequestError("the referee is not accepting matches (not started, or shutting down)")
        try:
            game, family = self._game(game_name, options)
        except (UnknownGameError, GameOptionError, NoObservationCodec, ValueError) as error:
            raise MatchRequestError(str(error)) from None
        bots = list(bots)
        self._check_seats(bots, game, family)
        fault_policy = _parsed_fault_policy(fault_policy)
        if seed is None:
            seed = secrets.randbits(63)
        match_id = match_id or uuid.uuid4().hex
        if match_id in self.live:
            raise MatchRequestError(f"match id {match_id} is taken")
        live = LiveMatch(match_id, game, family, bots, seed, clock or self.config.clock,
                         fault_policy or self.config.fault_policy)
        self.live[match_id] = live
        live.task = asyncio.get_running_loop().create_task(self._run(live), name=f"match-{match_id[:8]}")
        return live

    def _check_seats(self, bots: list[Seat], game: Game, family: str) -> None:
        """Raise MatchRequestError unless there is one seat per player and every bot named can play the game."""
        if len(bots) != game.num_seats:
            raise MatchRequestError(f"{game.name} has {game.num_seats} seats; {len(bots)} bot(s) named")
        for entry in bots:
            if not isinstance(entry, str):
                continue
            try:
                self.pool.check_plays(entry, game.name, family)
            except (LookupError, ValueError) as error:
                raise MatchRequestError(str(error.args[0])) from None

    def _game(self, name: str, options: dict[str, Any] | None) -> tuple[Game, str]:
        """The game (built once per name and options: games are immutable) and its family."""
        key = (name, json.dumps(options or {}, sort_keys=True, default=repr))
        cached = self._games.get(key)
        if cached is None:
            family = family_of(name).name
            codec_for_game(name)  # its declared codec must load (a family without one travels as JSON)
            cached = self._games[key] = (load_game(name, options), family)
        return cached

    async def run_match(self, game_name: str, bots: Sequence[Seat], seed: int | None = None,
                        **settings: Any) -> MatchRecord:
        """Play one match between bots (by name) and return its record."""
        live = self.start_match(game_name, bots, seed=seed, **settings)
        assert live.task is not None
        return await live.task

    async def _run(self, live: LiveMatch) -> MatchRecord:
        assert self._slots is not None
        try:
            async with self._slots:
                ports = await asyncio.gather(*(self._seat(entry, live.game.name, live.family)
                                               for entry in live.entries))
                live.players = [PlayerInfo(seat, port.player.name, port.player.version, port.player.kind)
                                for seat, port in enumerate(ports)]
                record = await referee_match(
                    live.game, ports, live.seed, clock=live.clock, policy=live.policy, match_id=live.match_id,
                    seed_salt=self.seed_salt, on_step=live.on_step, public_view=True,
                    named_opponents=self.config.named_opponents,
                    extra={"transport": "grpc", "server": f"arena {__version__}"})
        except asyncio.CancelledError:  # stopped before the match began: still leave a record
            record = new_record(live.game, live.players, live.seed, live.match_id)
            record.result = void_result(live.game.num_seats, "the referee shut down before the match began")
        live.finish(record, await self._save(record))
        self._finished.append(live.match_id)
        while len(self._finished) > self.config.finished_kept:  # a long-running server keeps no more
            self.live.pop(self._finished.popleft(), None)
        return record

    async def _save(self, record: MatchRecord) -> Optional[Path]:
        """Store the record under results/records/. One that cannot be (a full disk...) is never lost without a
        word: the match ends as an infrastructure fault saying why (what its watchers and GetMatch get), the
        server logs one line, and its health check says so (arena.rpc.storage)."""
        if self.config.results_dir is None:
            return None
        try:
            path = await asyncio.to_thread(save_record, self.config.results_dir, record)
        except RecordWriteError as error:
            mark_unstored(record, error)
            self.storage.failed(record.match_id, error)
            return None
        self.storage.stored()
        return path

    async def _seat(self, name: Seat, game_name: str, family: str) -> SeatPort:
        if isinstance(name, SeatPort):
            return name
        if isinstance(name, Agent):
            return AgentSeat(name, threaded=True, limits=self.config.agent_limits)
        try:
            return await self.pool.acquire(name, game_name, family)
        except BotUnavailable as problem:
            manifest = self.pool.manifests.get(name)
            return FailedSeat(name, manifest.version if manifest else "", problem)

    async def stop(self, drain_s: float) -> list[MatchRecord]:
        """Accept no more matches; let the running ones finish for `drain_s`, void the rest; the voided."""
        self.accepting = False
        running = [live.task for live in self.live.values() if live.task is not None and not live.task.done()]
        if running:
            await asyncio.wait(running, timeout=drain_s)
            for task in running:
                if not task.done():
                    task.cancel()  # the match loop voids the match and records why
            await asyncio.gather(*running, return_exceptions=True)
        return self._voided()

    def _voided(self) -> list[MatchRecord]:
        """The records of the matches in memory that ended void."""
        return [live.record for live in self.live.values()
                if live.record is not None and live.record.result is not None
                and live.record.result.termination is Termination.VOID]

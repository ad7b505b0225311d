"""A series of games between the same players: what `arena play` (built-in agents, in this process) and
`arena match` (bot programs, through a referee started here or a running one) run. The one place that
seats the players, seeds the games, plays them, keeps their records and tallies them; the commands
only parse their arguments and print.

Seats rotate from game to game (with two players, A-B then B-A), so that neither seat favours one.
Every game draws its chance (deal, draws, dice) from a seed of its own (`game_seed` keyed by the
series' first seed): a bot that remembers one game learns nothing of the next. `duplicate` plays each
rotation of the seats on one seed instead, which takes the luck of the deal out between in-process
agents that cannot remember (refused when a seat is a bot program: it can).

    runner = InProcess(game, [make_agent("greedy"), make_agent("random")], results_dir)
    series = run_series(runner, "major-general", ["greedy", "random"], games=4, first_seed=7)
    tallies = tally(series)
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.agents.base import Agent
from arena.games.base import Game
from arena.luck import attach_luck
from arena.referee.archive import save_record
from arena.referee.authority import play_match
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.record import MatchRecord, MatchResult, RecordWriteError
from arena.referee.seeds import game_seed
from arena.tournament.formats import DUPLICATE_REFUSED

if TYPE_CHECKING:  # (a referee is loaded only by the runners that need one)
    from arena.rpc.client import AdminClient
    from arena.rpc.server import RefereeServer
    from arena.sandbox.launch import SandboxSettings


class SeriesError(Exception):
    """A series that cannot be played (an unknown bot, an unreachable referee...); the message says why."""


@dataclass(frozen=True)
class SeriesGame:
    """One game of a series: its number (from 0), its seed, and which player (an index into the series'
    players) sits in each seat."""

    index: int
    seed: int
    order: tuple[int, ...]


def schedule(players: int, games: int, first_seed: int, rotate: bool = True,
             duplicate: bool = False) -> list[SeriesGame]:
    """The games of a series: the seats rotated (or in the given order), each game on a seed of its own keyed
    by `first_seed` (`duplicate`: each rotation of the seats on one seed)."""
    def order(index: int) -> tuple[int, ...]:
        return tuple((seat + index) % players for seat in range(players)) if rotate else tuple(range(players))

    if duplicate:
        return [SeriesGame(index, game_seed(first_seed, index // players), order(index)) for index in range(games)]
    return [SeriesGame(index, game_seed(first_seed, index), order(index)) for index in range(games)]


@dataclass(frozen=True)
class MatchSettings:
    """How each game of a series is played: the game's options, and (through a referee) the clock and the
    fault policy (None: the referee's own)."""

    options: dict[str, Any] = field(default_factory=dict)
    clock: ClockSettings | None = None
    fault_policy: FaultPolicy | None = None


class Runner:
    """Plays one game of a series and keeps its record; an async context around the series."""

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def play(self, game: str, seats: Sequence[str], seed: int, settings: MatchSettings
                   ) -> tuple[MatchRecord, Path | None]:
        """One game, the players named by seat; its record and where it was kept (None: not kept)."""
        raise NotImplementedError


class InProcess(Runner):
    """Built-in agents in this process (the referee's match loop, no clocks; each agent bounded by `limits`);
    a player is named by its index in `agents`; records written under `results` (None: not written)."""

    def __init__(self, game: Game, agents: Sequence[Agent], results: Path | None,
                 limits: AgentLimits = DEFAULT_LIMITS) -> None:
        self.game = game
        self.limits = limits
        self.agents = list(agents)
        self.by_label: dict[str, Agent] = {}
        self.results = results

    def seat(self, labels: Sequence[str]) -> None:
        """The label each agent goes by in this series (its place in `agents`)."""
        self.by_label = dict(zip(labels, self.agents))

    async def play(self, game: str, seats: Sequence[str], seed: int, settings: MatchSettings
                   ) -> tuple[MatchRecord, Path | None]:
        record = play_match(self.game, [self.by_label[label] for label in seats], seed, limits=self.limits)
        attach_luck(record, self.game)
        return record, keep_record(self.results, record) if self.results is not None else None


class EmbeddedReferee(Runner):
    """A referee started here with no network port (bots reach it on its socket), launching bot programs from
    their manifests in their sandboxes; records kept under `results`."""

    def __init__(self, bot_dirs: Sequence[Path], results: Path, sandbox: SandboxSettings,
                 seed_salt: str | None = None, warn: Callable[[str], None] | None = None) -> None:
        self.bot_dirs = list(bot_dirs)
        self.results = results
        self.sandbox = sandbox
        self.seed_salt = seed_salt  # keys the seats' seeds (seeds.seat_salt of a chosen seed; None: a new secret)
        self.warn = warn  # told of each bot left out (two of one name: neither), before the first game
        self.server: RefereeServer | None = None

    async def __aenter__(self) -> EmbeddedReferee:
        from arena.rpc.manifest import ManifestError
        from arena.rpc.server import RefereeServer, ServerConfig

        try:
            self.server = RefereeServer(ServerConfig(port=None, bot_dirs=tuple(self.bot_dirs),
                                                     results_dir=self.results, sandbox=self.sandbox,
                                                     seed_salt=self.seed_salt,
                                                     skip_bad_bots=True))  # (one half-written: left out, said)
        except (ManifestError, ValueError) as error:
            raise SeriesError(str(error)) from None
        if self.warn is not None:
            for problem in self.server.unavailable:
                self.warn(problem)
        await self.server.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.server is not None:
            await self.server.stop(drain_s=0.0)

    async def play(self, game: str, seats: Sequence[str], seed: int, settings: MatchSettings
                   ) -> tuple[MatchRecord, Path | None]:
        from arena.rpc.matches import MatchRequestError

        assert self.server is not None, "play inside `async with`"
        try:
            live = self.server.start_match(game, list(seats), seed=seed, options=settings.options,
                                           clock=settings.clock, fault_policy=settings.fault_policy)
        except MatchRequestError as error:
            raise SeriesError(str(error)) from None
        assert live.task is not None
        record = await live.task
        return record, live.path


class RemoteReferee(Runner):
    """A running `arena serve`, driven through its admin service; records also kept here."""

    def __init__(self, address: str, token: str | None, results: Path, tls_ca: str | None = None) -> None:
        self.address, self.token, self.tls_ca = address, token, tls_ca
        self.results = results
        self.client: AdminClient | None = None

    async def __aenter__(self) -> RemoteReferee:
        from arena.rpc.client import AdminClient

        self.client = AdminClient(self.address, self.token, self.tls_ca)
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.client is not None:
            await self.client.__aexit__(None, None, None)

    async def play(self, game: str, seats: Sequence[str], seed: int, settings: MatchSettings
                   ) -> tuple[MatchRecord, Path | None]:
        from arena.rpc.client import AdminError

        assert self.client is not None, "play inside `async with`"
        try:  # (the fault policy travels as its text: the protocol's form of it)
            match_id = await self.client.start_match(game, list(seats), seed=seed, options=settings.options,
                                                     clock=settings.clock,
                                                     fault_policy=str(settings.fault_policy or ""))
            async for _event in self.client.watch(match_id):
                pass
            record = await self.client.record(match_id)
        except AdminError as error:
            raise SeriesError(str(error)) from None
        return record, keep_record(self.results, record)


def keep_record(results: Path, record: MatchRecord) -> Path | None:
    """Save the record under `results`; its path, or None when it cannot be (the disk full...): then the
    record says why in extra["storage_error"] (PlayedGame.storage_error), unless the referee's copy already did."""
    try:
        return save_record(results, record)
    except RecordWriteError as error:
        record.extra.setdefault("storage_error", str(error))
        return None


@dataclass(frozen=True)
class PlayedGame:
    """A game of a series once played: its place in the series, its record, where the record is."""

    game: SeriesGame
    record: MatchRecord
    path: Path | None

    def seats(self, labels: Sequence[str]) -> list[str]:
        """Who sat where, by label."""
        return [labels[player] for player in self.game.order]

    @property
    def storage_error(self) -> str | None:
        """Why its record could not be stored (here, or by the referee that played it); None when it was."""
        error = self.record.extra.get("storage_error")
        return str(error) if error is not None else None


@dataclass(frozen=True)
class Series:
    """A series once played: its players (labels, in the order given), its games in order, how long it took."""

    labels: tuple[str, ...]
    games: list[PlayedGame]
    seconds: float
    planned: int = 0  # the games asked for (more than `games` when a record could not be stored: see storage_problem)


def labels_of(names: Sequence[str]) -> tuple[str, ...]:
    """One label per player: its name, told apart by its place when two players have one name
    ('random (1)', 'random (2)')."""
    repeated = {name for name in names if list(names).count(name) > 1}
    return tuple(f"{name} ({index + 1})" if name in repeated else name for index, name in enumerate(names))


def run_series(runner: Runner, game: str, names: Sequence[str], games: int, first_seed: int, *,
               rotate: bool = True, duplicate: bool = False, settings: MatchSettings = MatchSettings(),
               parallel: int = 1, on_game: Callable[[PlayedGame, tuple[str, ...]], None] | None = None) -> Series:
    """Play the series (`parallel` games at once); `on_game` hears of each game as it ends. Raises
    SeriesError (also for `duplicate` with a bot program in a seat)."""
    if duplicate and not isinstance(runner, InProcess):
        raise SeriesError(DUPLICATE_REFUSED)
    labels = labels_of(names)
    if isinstance(runner, InProcess):
        runner.seat(labels)
    seat_names = labels if isinstance(runner, InProcess) else tuple(names)  # a referee knows bots by name
    planned = schedule(len(names), games, first_seed, rotate, duplicate)
    started = time.perf_counter()
    unstored: list[PlayedGame] = []  # a record not stored stops the series: no game is started after it

    async def play_all() -> list[PlayedGame | None]:
        slots = asyncio.Semaphore(parallel)
        async with runner:
            async def one(planned_game: SeriesGame) -> PlayedGame | None:
                async with slots:
                    if unstored:
                        return None
                    seats = [seat_names[player] for player in planned_game.order]
                    record, path = await runner.play(game, seats, planned_game.seed, settings)
                played = PlayedGame(planned_game, record, path)
                if played.storage_error is not None:
                    unstored.append(played)
                if on_game is not None:
                    on_game(played, labels)
                return played

            return list(await asyncio.gather(*(one(planned_game) for planned_game in planned)))

    played = [game for game in asyncio.run(play_all()) if game is not None]
    return Series(labels, played, time.perf_counter() - started, planned=len(planned))


def storage_problem(series: Series) -> str | None:
    """One line when a record of the series could not be stored (the series then stopped): which, why, and
    what was stored; None when every record was (or none was to be)."""
    failed = [played for played in series.games if played.storage_error is not None]
    if not failed:
        return None
    stored = sum(1 for played in series.games if played.path is not None and played.storage_error is None)
    return (f"the record of game {failed[0].game.index + 1} was not stored ({failed[0].storage_error}); "
            f"stopped after {len(series.games)} of {series.planned} game(s): {stored} record(s) stored, "
            f"{len(failed)} not")


@dataclass
class PlayerTally:
    """How one player of a series did: results, seats, how its games ended (its own faults apart from the
    rest), and its mean thinking time per decision."""

    label: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    seats: Counter[int] = field(default_factory=Counter)  # games in each seat
    reasons: Counter[str] = field(default_factory=Counter)
    own_faults: Counter[str] = field(default_factory=Counter)  # endings by its own fault
    endings: Counter[str] = field(default_factory=Counter)  # the others (an opponent's fault said so)
    think_ms: list[float] = field(default_factory=list)

    @property
    def mean_think_ms(self) -> float | None:
        return round(statistics.fmean(self.think_ms), 3) if self.think_ms else None


def tally(series: Series) -> list[PlayerTally]:
    """Per player, in the order given."""
    tallies = [PlayerTally(label) for label in series.labels]
    for played in series.games:
        result = played.record.result
        assert result is not None
        for seat, player in enumerate(played.game.order):
            _count_seat(tallies[player], seat, result)
        for step in played.record.decisions:
            if "think_ms" in step.timing and 0 <= step.seat < len(played.game.order):
                tallies[played.game.order[step.seat]].think_ms.append(step.timing["think_ms"])
    return tallies


def _count_seat(row: PlayerTally, seat: int, result: MatchResult) -> None:
    """Add how a game ended for the player in `seat` to its tally."""
    row.games += 1
    row.seats[seat] += 1
    if result.is_draw:
        row.draws += 1
    elif seat in result.winners:
        row.wins += 1
    else:
        row.losses += 1
    row.reasons[result.reason] += 1
    if result.offender == seat:
        row.faults += 1
        row.own_faults[result.reason] += 1
    elif result.offender is not None:
        row.endings[f"opponent's {result.reason}"] += 1
    else:
        row.endings[result.reason] += 1


def describe(played: PlayedGame, labels: Sequence[str]) -> str:
    """'greedy beat random (score)', 'crashbot lost by crash', or 'a draw (score)'."""
    result = played.record.result
    if result is None:
        return ""
    names = played.seats(labels)
    if result.offender is not None:
        return f"{names[result.offender] if result.offender < len(names) else result.offender} lost by {result.reason}"
    if result.is_draw:
        return f"a draw ({result.reason})"
    winners = [names[seat] for seat in result.winners]
    losers = [name for seat, name in enumerate(names) if seat not in result.winners]
    return f"{' and '.join(winners)} beat {' and '.join(losers)} ({result.reason})"

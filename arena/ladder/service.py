"""`arena ladder serve`: a ladder that runs by itself, one round per schedule tick, for one or more modes.

Each game mode's ladder is a stored tournament ("ladder:<pool>", format "ladder"); the service keeps
its schedule and progress in that tournament's settings, so everything it knows is in the database.
A round, for each mode:

1. takes the field: the built-in players it was given, every submitted version that is live and
   declares the game (new versions join, retired ones leave, without a restart), and every remote
   bot that is connected now with a stream for the game (one offline is not paired and loses
   nothing; in a round it gets at most as many matches as it has streams open);
2. plans tables by expected information (arena.ladder.pairing), within each bot's cap of pending
   matches, and stores them before anything is played;
3. plays what is planned and not stored (the matches a previous round or a killed service left
   first), until done or the round's time is up: what is unfinished then waits for the next round;
   matches the infrastructure failed are played again, never scored (TournamentRunner);
4. logs one line, and POSTs each stored result to the webhook, if there is one.

Killed at any moment (SIGKILL included), it loses and duplicates nothing: tables are stored before
they are played and a match is stored once under its key, as in any tournament.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import DBAPIError, IntegrityError

from arena.games.base import Game
from arena.games.registry import family_of
from arena.ladder.notify import Notifier
from arena.ladder.pairing import IDLE_HORIZON, Candidate, charged_pending, idle_rounds, plan_tables
from arena.ladder.schedule import Schedule
from arena.ladder.state import LadderState, LastRound
from arena.ratings.pools import pool_name
from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.store.hosting import Hosting
from arena.store.models import utcnow
from arena.store.retry import connection_lost, first_line
from arena.store.rows import PairingRow, StoredMatch, TournamentRow
from arena.tournament.bots import BotSpec
from arena.referee.seeds import derive_seed, new_seed
from arena.tournament.jobs import MatchJob
from arena.tournament.runner import TournamentRunner
from arena.tournament.service import Executors, PlaySettings, grace

Log = Callable[[str], None]
StopCheck = Callable[[], bool]
HEARTBEAT_S = 30.0


def ladder_name(pool: str) -> str:
    """The stored tournament of a mode's ladder."""
    return f"ladder:{pool}"


@dataclass(frozen=True)
class LadderSettings:
    """What `arena ladder serve` is told."""

    games: tuple[Game, ...]
    schedule: Schedule
    matches_per_round: int = 20
    max_pending: int = 8  # matches a bot may have planned and not yet played
    retries: int = 2  # plays again of a match the infrastructure failed
    builtins: dict[str, tuple[BotSpec, ...]] = field(default_factory=dict)  # per game name
    round_timeout_s: float = 1800.0  # a round's matches not done by then wait for the next round
    seed: int | None = None  # of new ladders (default: random)
    notify_url: str | None = None
    same_owner: bool = False  # may two bots of one owner meet (by default never: one could feed the other)

    def to_json(self) -> dict[str, Any]:
        return {"schedule": self.schedule.describe(), "matches_per_round": self.matches_per_round,
                "max_pending": self.max_pending, "retries": self.retries, "round_timeout_s": self.round_timeout_s,
                "notify": bool(self.notify_url), "same_owner": self.same_owner}


@dataclass
class PoolRound:
    """One mode's part of a round."""

    pool: str
    tournament_id: int
    round: int | None  # the round number planned (None: too few bots to plan one)
    bots: int
    planned: int = 0  # new matches planned
    carried: int = 0  # matches left from earlier rounds, played first
    stored: int = 0
    infrastructure: int = 0  # infrastructure faults met (retried, never scored)
    left: int = 0  # matches still waiting when the round ended
    seconds: float = 0.0
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"pool": self.pool, "round": self.round, "bots": self.bots, "planned": self.planned,
                "carried": self.carried, "stored": self.stored, "infrastructure": self.infrastructure,
                "left": self.left, "seconds": round(self.seconds, 3), "note": self.note}

    def as_last_round(self, started_at: datetime) -> LastRound:
        """This part of the round as the ladder's state keeps it."""
        return LastRound.from_json({**self.to_json(), "started_at": _iso(started_at)})


@dataclass
class RoundReport:
    """A whole round of the service."""

    started_at: datetime
    seconds: float
    pools: list[PoolRound]
    next_at: datetime | None = None

    def line(self) -> str:
        """The service's one log line per round."""
        parts = []
        for part in self.pools:
            if part.round is None:
                parts.append(f"{part.pool}: {part.note}")
                continue
            text = f"{part.pool} round {part.round + 1}: {part.stored} stored"  # rounds are counted from 1 when shown
            extras = [f"{part.carried} carried over"] if part.carried else []
            extras += [f"{part.infrastructure} infrastructure fault(s) retried"] if part.infrastructure else []
            extras += [f"{part.left} left for the next round"] if part.left else []
            text += f" ({', '.join(extras)})" if extras else ""
            parts.append(f"{text}, {part.bots} bots")
        when = f"; next round at {self.next_at.isoformat(timespec='seconds')}Z" if self.next_at else ""
        return f"ladder: {'; '.join(parts)} in {self.seconds:.1f}s{when}"


def round_reads(store: Store, tournament_id: int) -> tuple[list[PairingRow], set[tuple[int, int, int]]]:
    """What a round reads of its ladder before planning: the open pairings and every pairing of the rounds
    the idle counts look back on (never all of them), with the keys of their stored matches."""
    last = store.tournaments.last_round(tournament_id)
    since = (last + 1 if last is not None else 0) - IDLE_HORIZON
    return (store.tournaments.open_pairings(tournament_id, since_round=since),
            store.tournaments.open_finished_keys(tournament_id, since))


def _unplayed(rows: list[PairingRow], finished: set[tuple[int, int, int]], active: set[int],
              seats: int) -> list[tuple[PairingRow, int]]:
    """(pairing, rotation) of each match of `rows` not stored yet (`finished`) whose bots are all `active`."""
    return [(row, rotation) for row in rows if not row.is_bye for rotation in range(seats)
            if (row.round, row.index, rotation) not in finished and set(row.bots) <= active]


class LadderService:
    """The rounds of one or more mode ladders, on a schedule (see the module's docstring)."""

    def __init__(self, store: Store, settings: LadderSettings, play: PlaySettings = PlaySettings(), *,
                 log: Log = print, system: RatingSystem = DEFAULT_SYSTEM) -> None:
        self.store = store
        self.settings = settings
        self.play = play
        self.log = log
        self.system = system
        # no match waits behind a stalling one; while no worker serves the broker's queue, the round waits
        self.executors = Executors(replace(play, pipeline=1, on_wait=self._on_workers))
        self.waiting: str | None = None  # what the round waits for (no worker serves), while it does
        self.notifier = Notifier(settings.notify_url, log) if settings.notify_url else None
        self.ladders: dict[str, tuple[Game, int]] = {}  # pool -> (game, tournament id)
        self._builtin_ids: dict[str, set[int]] = {}
        self._missing: set[int] = set()  # live versions whose files are not on this machine (logged once)
        self._last_beat = 0.0
        self.hosting = Hosting(store)
        self.remote_address = ""  # where remote bots connect (with play.network), once prepared
        self.schedule_change: tuple[str, str] | None = None  # (stored schedule, this one) when they differ

    # set-up --------------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Make (or find) each mode's ladder, register the built-in players, start the agents' workers."""
        for game in self.settings.games:
            self._prepare_ladder(game)
        self.executors.for_kinds({PlayerKind.AGENT}).start()  # fork the workers before any thread of ours exists
        if self.play.network is not None:  # remote bots connect at any time, not only during rounds
            programs = self.executors.referee()
            programs.remote_lookup = self._remote_token_hash
            self._register_remotes()
            self.remote_address = programs.listen()

    def _prepare_ladder(self, game: Game) -> None:
        """Make (or find) one mode's ladder, register its built-in players, and bring its stored state up to date."""
        pool = pool_name(game)
        name = ladder_name(pool)
        existing = self.store.tournaments.get(name)
        builtins = self.settings.builtins.get(game.name, ())
        ids = {self.store.bots.register(spec.identity()) for spec in builtins}
        if existing is None:
            tournament_id = self._create_ladder(game, pool, name, ids)
        else:
            if existing.format != "ladder":
                raise ValueError(f"{name!r} is a {existing.format} tournament, not a ladder")
            tournament_id = existing.id
        self.ladders[pool] = (game, tournament_id)
        self._builtin_ids[pool] = ids
        self._refresh_state(tournament_id)

    def _create_ladder(self, game: Game, pool: str, name: str, ids: set[int]) -> int:
        """Store a new ladder tournament of `game` with the bots `ids`; its id (or that of one made meanwhile)."""
        seed = self.settings.seed if self.settings.seed is not None else new_seed()
        try:
            return self.store.tournaments.create(
                name=name, game=game.name, pool=pool, options=game.options, format="ladder", seed=seed,
                rounds=1, settings={}, bot_ids=sorted(ids))
        except IntegrityError:  # another service made it meanwhile
            found = self.store.tournaments.get(name)
            assert found is not None
            return found.id

    def _refresh_state(self, tournament_id: int) -> None:
        """Clear an earlier run's wait, note a schedule changed since, and mark the matches stored so far as seen."""
        state = self._state(tournament_id)
        if state.waiting is not None:  # what an earlier run waited for is not this one's
            self._update_state(tournament_id, lambda state: replace(state, waiting=None))
        schedule = (state.settings or {}).get("schedule")
        if schedule and schedule != self.settings.schedule.describe():
            self.schedule_change = (schedule, self.settings.schedule.describe())
        if state.seen_match_id is None:  # what was stored before is not news
            seen = max((m.id for m in self.store.matches.of_tournament(tournament_id)), default=0)
            self._update_state(tournament_id, lambda state: replace(state, seen_match_id=seen))

    def close(self) -> None:
        """Stop the workers and the referee; send the webhook's last results; note the service stopped."""
        self.executors.close()
        if self.notifier is not None:
            self.notifier.close()
        stopped_at = _iso(utcnow())
        for _game, tournament_id in self.ladders.values():
            self._update_state(tournament_id, lambda state: replace(state, stopped_at=stopped_at))

    # the schedule --------------------------------------------------------------------------------

    def next_round_at(self) -> datetime:
        """When the next round is due: as stored, else now. A schedule given now wins over a stored one (from a
        run with another schedule): the next round is then due by the new schedule after the last round."""
        states = [self._state(tournament_id) for _game, tournament_id in self.ladders.values()]
        if self.schedule_change is not None:
            started = [datetime.fromisoformat(state.last_round.started_at) for state in states
                       if state.last_round is not None and state.last_round.started_at]
            return self.settings.schedule.next_after(max(started)) if started else utcnow()
        times = [datetime.fromisoformat(state.next_round_at) for state in states if state.next_round_at]
        return min(times) if times else utcnow()

    def run(self, should_stop: StopCheck = lambda: False, max_rounds: int | None = None,
            sleep: Callable[[float], None] = time.sleep,
            on_round: Callable[[RoundReport], None] | None = None,
            on_wait: Callable[[datetime], None] | None = None) -> int:
        """Play rounds when due until stopped (or `max_rounds` are played); returns the rounds played.
        Each round is logged in one line, or handed to `on_round`; `on_wait(next round's time)` is called
        while it waits (for a countdown)."""
        played = 0
        next_at = self.next_round_at()
        pause = 1.0
        while not should_stop() and (max_rounds is None or played < max_rounds):
            now = utcnow()
            if now < next_at:
                self._beat(None)
                if on_wait is not None:
                    on_wait(next_at)
                sleep(min(0.2, (next_at - now).total_seconds()))
                continue
            try:
                report = self.play_round(should_stop)
                played += 1
                next_at = max(self.settings.schedule.next_after(report.started_at), utcnow())  # (late: now)
                report.next_at = next_at
                self._save_schedule(next_at)
            except DBAPIError as error:  # the store tried again for minutes: wait on, the round is replayed
                if not connection_lost(error, self.store.engine.dialect.name):
                    raise
                self.log(f"ladder: lost the database ({first_line(error)}); trying again in {pause:.0f}s")
                _sleep_unless(should_stop, pause, sleep)
                pause = min(2 * pause, 60.0)
                continue
            pause = 1.0
            if on_round is not None:
                on_round(report)
            else:
                self.log(report.line())
        return played

    # a round -------------------------------------------------------------------------------------

    def play_round(self, should_stop: StopCheck = lambda: False) -> RoundReport:
        """One round of every mode's ladder (see the module's docstring)."""
        started_at, started = utcnow(), time.perf_counter()
        parts = []
        share = self.settings.round_timeout_s / max(1, len(self.ladders))
        for pool, (game, tournament_id) in self.ladders.items():
            if should_stop():
                break
            parts.append(self._pool_round(pool, game, tournament_id, share, should_stop))
        report = RoundReport(started_at, time.perf_counter() - started, parts)
        return report

    def _pool_round(self, pool: str, game: Game, tournament_id: int, seconds: float,
                    should_stop: StopCheck) -> PoolRound:
        begun = time.perf_counter()
        tournament = self.store.tournaments.get(tournament_id)
        assert tournament is not None
        self._register_remotes()
        active = self.field(pool, game)
        remote_room = self._remote_room(game, active)
        self.store.tournaments.add_entries(tournament_id, sorted(active))
        part = PoolRound(pool, tournament_id, None, len(active))
        planned, finished = round_reads(self.store, tournament_id)
        waiting = _unplayed(planned, finished, active, game.num_seats)
        part.carried = len(waiting)
        durations = self._state(tournament_id).match_seconds
        if len(active) < game.num_seats:
            part.note = f"waiting for bots ({len(active)} live, {game.num_seats} needed)"
        else:
            pending = self._pending(game, waiting, durations, remote_room)
            part.round, part.planned = self._plan(tournament, game, active, planned, pending)
        if part.round is None and not waiting:
            return self._end_part(part, active, begun)
        runner = self._runner(tournament_id, active, seconds, durations, should_stop)
        summary = runner.run()
        part.stored, part.infrastructure = summary.played, runner.infra_faults
        finished = self.store.tournaments.open_finished_keys(tournament_id)
        part.left = len(_unplayed(self.store.tournaments.open_pairings(tournament_id), finished, active,
                                  game.num_seats))
        return self._end_part(part, active, begun)

    def _pending(self, game: Game, waiting: list[tuple[PairingRow, int]], durations: Mapping[int, float],
                 remote_room: Mapping[int, int]) -> dict[int, int]:
        """Per bot, the matches charged against its cap of pending ones when the round plans its tables."""
        pending = dict(charged_pending([row.bots for row, _rotation in waiting], durations))
        for bot, streams in remote_room.items():  # a remote bot: a table per stream it has open, at most
            pending[bot] = max(pending.get(bot, 0), self.settings.max_pending - streams * game.num_seats)
        return pending

    def _runner(self, tournament_id: int, active: set[int], seconds: float, durations: Mapping[int, float],
                should_stop: StopCheck) -> TournamentRunner:
        """What plays a mode's matches waiting in a round, for at most `seconds` (and the grace after them)."""
        typical = sorted(durations.values())[len(durations) // 2] if durations else 0.0
        executor = self.executors.for_kinds(self._kinds(active))
        deadline = time.monotonic() + seconds

        def expected_seconds(job: MatchJob) -> tuple[float, int, int, int]:
            """Known-fast matches first, a new or slow bot's at the end; a table's rotations spread apart."""
            return (max(durations.get(bot, typical) for bot in job.bot_ids), job.rotation, job.round, job.pairing)

        return TournamentRunner(self.store, tournament_id, executor, system=self.system,
                                retries=self.settings.retries, plan_more=False,
                                playable=lambda job: set(job.bot_ids) <= active, should_stop=should_stop,
                                deadline=deadline, hard_deadline=deadline + grace(seconds),
                                job_order=expected_seconds, ordered=False, on_progress=self._beat)

    def _end_part(self, part: PoolRound, active: set[int], begun: float) -> PoolRound:
        """Time a mode's part of the round (begun at `begun`, by time.perf_counter) and save it (_after_round)."""
        part.seconds = time.perf_counter() - begun
        self._after_round(part.tournament_id, part, active, started_at=utcnow() - timedelta(seconds=part.seconds))
        return part

    def field(self, pool: str, game: Game) -> set[int]:
        """The bots of this round: the built-in players, the live submitted versions that play the game, and the
        remote bots connected now with a stream for it."""
        family = family_of(game.name).name
        live = set()
        online = self._open_streams(game)
        if online:
            live |= {bot.id for bot in self.store.bots.find(status="live")
                     if bot.kind is PlayerKind.REMOTE and online.get(bot.name)}
        for bot in self.store.bots.find(status="live", submitted=True):
            if bot.kind is not PlayerKind.PROGRAM or not bot.plays(game.name, family):
                continue
            if os.path.isdir(bot.spec):
                live.add(bot.id)
            elif bot.id not in self._missing:  # the bot store is not mounted here, or was moved
                self._missing.add(bot.id)
                self.log(f"ladder: {bot.label} is live but its files are not at {bot.spec}: left out")
        return set(self._builtin_ids.get(pool, set())) | live

    def _register_remotes(self) -> None:
        """The remote bots registered in the store, taken by the referee (and their presence noted)."""
        if self.play.network is None:
            return
        remotes = {row.name: row.token_hash for row in self.hosting.remote_bots()}
        programs = self.executors.referee()
        programs.register_remotes(remotes)
        self.hosting.note_presence(programs.open_streams(), remotes)

    def _remote_token_hash(self, name: str) -> str | None:
        """A remote bot registered since the last round (the referee asks, when it says Hello)."""
        row = self.hosting.remote_bot(name)
        bot = self.store.bots.get(row.bot_id) if row is not None else None
        return row.token_hash if row is not None and bot is not None and bot.status == "live" else None

    def _open_streams(self, game: Game) -> dict[str, int]:
        """Per remote bot, its streams open now for this game."""
        if self.play.network is None:
            return {}
        return self.executors.referee().open_streams(game.name, family_of(game.name).name)

    def _remote_room(self, game: Game, active: set[int]) -> dict[int, int]:
        """Per remote bot of the field (by id): how many matches it can take at once now."""
        online = self._open_streams(game)
        return {bot.id: online.get(bot.name, 0) for bot in self.store.bots.find()
                if bot.id in active and bot.kind is PlayerKind.REMOTE}

    def _kinds(self, bots: set[int]) -> set[PlayerKind]:
        return {bot.kind for bot in self.store.bots.find() if bot.id in bots}

    def _candidates(self, pool: str, active: set[int], planned: list[PairingRow], pending: Mapping[int, int],
                    number: int) -> list[Candidate]:
        """The active bots as round `number`'s pairing weighs them: rating, games, rounds idle, pending, owner."""
        ratings = {row.bot_id: row for row in self.store.ratings.of_pool(pool)}
        idle = idle_rounds([(row.round, row.bots) for row in planned], sorted(active), number)
        owners = {bot.id: bot.owner for bot in self.store.bots.find() if bot.id in active}
        return [Candidate(bot, (ratings[bot].mu, ratings[bot].sigma) if bot in ratings else self.system.initial,
                          ratings[bot].games if bot in ratings else 0, idle[bot], pending.get(bot, 0),
                          owners.get(bot, ""))
                for bot in sorted(active)]

    def _plan(self, tournament: TournamentRow, game: Game, active: set[int], planned: list[PairingRow],
              pending: Mapping[int, int]) -> tuple[int | None, int]:
        """Plan and store this round's tables; (its number, matches planned)."""
        number = max((row.round for row in planned), default=-1) + 1
        candidates = self._candidates(tournament.pool, active, planned, pending, number)
        rng = random.Random(derive_seed(tournament.seed, number, 0x1ADDE7))
        tables = plan_tables(candidates, self.settings.matches_per_round, game.num_seats, rng, self.system,
                             self.settings.max_pending, same_owner=self.settings.same_owner)
        if not tables:
            return None, 0
        rows = [PairingRow(number, index, derive_seed(tournament.seed, number, index), table, "")
                for index, table in enumerate(tables)]
        try:
            self.store.tournaments.add_pairings(tournament.id, rows)
        except IntegrityError:  # another service planned this round first: play theirs
            return number, 0
        return number, len(rows) * game.num_seats

    # state and results ---------------------------------------------------------------------------

    def _state(self, tournament_id: int) -> LadderState:
        tournament = self.store.tournaments.get(tournament_id)
        return LadderState.from_json((tournament.settings if tournament else {}).get("service", {}))

    def _update_state(self, tournament_id: int,
                      change: Callable[[LadderState], LadderState] = lambda state: state) -> None:
        """Write the ladder's state, changed by `change`, with this service's settings, heartbeat and pid (a
        stop noted earlier is cleared unless `change` notes it again)."""
        tournament = self.store.tournaments.get(tournament_id)
        if tournament is None:
            return
        state = change(replace(LadderState.from_json(tournament.settings.get("service", {})), stopped_at=None))
        state = replace(state, settings=self.settings.to_json(), heartbeat=_iso(utcnow()), pid=os.getpid())
        self.store.tournaments.set_settings(tournament_id, {**tournament.settings, "service": state.to_json()})

    def _beat(self, _progress: Any) -> None:
        """During a round: the heartbeat, every HEARTBEAT_S."""
        if time.monotonic() - self._last_beat > HEARTBEAT_S:
            self._heartbeat()

    def _on_workers(self, line: str | None) -> None:
        """The executor waits for a worker (`line` says why, every few seconds) or has one again (None): said
        once each way, in the log and in the ladders' state (`arena ladder status`); the heartbeat goes on."""
        if line != self.waiting:
            self.waiting = line
            self.log(f"ladder: {line}" if line else "ladder: a worker serves the queue again: carrying on")
            for _game, tournament_id in self.ladders.values():
                self._update_state(tournament_id, lambda state: replace(state, waiting=line))
        self._beat(None)

    def _heartbeat(self) -> None:
        self._last_beat = time.monotonic()
        self._register_remotes()
        for _game, tournament_id in self.ladders.values():
            self._update_state(tournament_id)

    def _save_schedule(self, next_at: datetime) -> None:
        for _game, tournament_id in self.ladders.values():
            self._update_state(tournament_id, lambda state: replace(state, next_round_at=_iso(next_at)))

    def _after_round(self, tournament_id: int, part: PoolRound, active: set[int], started_at: datetime) -> None:
        """Send the round's results to the webhook, learn how long each bot's matches take, save the state."""
        state = self._state(tournament_id)
        seen = state.seen_match_id
        fresh = sorted(self.store.matches.of_tournament(tournament_id, after_id=seen or 0), key=lambda m: m.id)
        durations = state.match_seconds
        for match in fresh:
            if self.notifier is not None:
                self.notifier.post(self.result_document(part.pool, tournament_id, match))
            seconds = float(match.timings.get("wall_ms", 0.0)) / 1000.0
            for bot in match.bots:
                before = durations.get(bot)
                durations[bot] = round(seconds if before is None else 0.8 * before + 0.2 * seconds, 4)
        if fresh:
            seen = fresh[-1].id
        last_round = part.as_last_round(started_at)
        self._update_state(tournament_id, lambda state: replace(state, seen_match_id=seen, field=tuple(sorted(active)),
                                                                durations=durations, last_round=last_round))

    def result_document(self, pool: str, tournament_id: int, match: StoredMatch) -> dict[str, Any]:
        """What the webhook POSTs for one stored result."""
        bots = {bot.id: bot for bot in self.store.bots.find() if bot.id in set(match.bots)}
        seats = [{"seat": seat, "bot": bots[bot].name, "version": bots[bot].version,
                  "artifact_hash": bots[bot].artifact_hash, "owner": bots[bot].owner, "rank": match.ranking[seat],
                  "score": match.scores[seat] if seat < len(match.scores) else None}
                 for seat, bot in enumerate(match.bots)]
        offender = seats[match.offender]["bot"] if match.offender is not None else None
        return {"event": "match", "match": {
            "id": match.id, "uid": match.uid, "pool": pool, "ladder": tournament_id, "round": match.round,
            "seats": seats, "reason": match.reason, "offender": offender, "steps": match.steps,
            "rated": match.rated,
            "finished_at": _iso(match.finished_at)}}


def _sleep_unless(should_stop: StopCheck, seconds: float, sleep: Callable[[float], None]) -> None:
    """Sleep `seconds`, in short naps, unless told to stop."""
    until = time.monotonic() + seconds
    while not should_stop() and time.monotonic() < until:
        sleep(min(0.2, until - time.monotonic()))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


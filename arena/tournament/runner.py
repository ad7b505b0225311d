"""Running a tournament: plan pairings, play what is not stored yet, store results with their ratings.

Resumable by construction: pairings are stored before they are played, a match is recognised by
its key (tournament, round, pairing, rotation) under a unique constraint, and results are stored in
job order in transactions that also carry their rating updates. A run killed at any moment loses
at most the matches that had not been stored; the next run plays exactly those.

A match the infrastructure failed (a worker lost, the referee stopped, a sandbox that could not
start: `PlayedMatch.is_infrastructure_fault`) is not stored: the fault is noted
(store.tournaments.add_infra_fault) and the match is played again, up to `retries` more times, across
runs; after that it is stored unrated with reason "infrastructure", so the tournament can end. It is
never scored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError

from arena.games.base import Game, points
from arena.ratings.policy import TrueSkillPolicy
from arena.ratings.pools import pool_name
from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem
from arena.referee.players import PlayerKind
from arena.store.repository import Store
from arena.store.rows import PairingRow, TournamentRow
from arena.tournament.bots import BotSpec
from arena.tournament.executor import Executor
from arena.referee.seeds import derive_seed, game_seed
from arena.tournament.formats import DUPLICATE_REFUSED, FormatError, PlanContext, Planned, get_format
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot


@dataclass
class RunProgress:
    """Where a run stands, for progress displays."""

    tournament_id: int
    stored: int  # matches of the tournament in the store
    expected: int | None  # matches the whole tournament plays (None: open-ended)
    played: int = 0  # matches played by this run
    pending: int = 0  # of those, not stored yet (they are, within a second or so)
    round: int = 0
    last: PlayedMatch | None = None


@dataclass
class RunSummary:
    """How a run ended."""

    tournament_id: int
    played: int
    stored: int
    expected: int | None
    finished: bool
    seconds: float
    stopped_by: str = ""  # "", "deadline", "limit" or "request"


def create_tournament(store: Store, *, game: Game, bots: list[BotSpec], format: str, rounds: int, seed: int,
                      name: str | None = None, settings: dict[str, Any] | None = None) -> int:
    """Register the bots and a new tournament of them (bots in seeding order); returns its id. Its seed fixes
    the schedule and, as the secret that keys them, every game's chance; `settings["duplicate"]` plays every
    rotation of a pairing on one seed (in-process agents only: FormatError otherwise)."""
    get_format(format).check(len(bots), game.num_seats, rounds)
    if (settings or {}).get("duplicate") and any(bot.kind.is_program for bot in bots):
        raise FormatError(DUPLICATE_REFUSED)
    bot_ids = [store.bots.register(bot.identity()) for bot in bots]
    return store.tournaments.create(name=name, game=game.name, pool=pool_name(game), options=game.options,
                                    format=format, seed=seed, rounds=rounds, settings=settings or {}, bot_ids=bot_ids)


def entrant_kinds(store: Store, tournament_id: int) -> set[PlayerKind]:
    """The kinds of bot entered: agents, bot programs (launched or remote), or both."""
    entries = set(store.tournaments.entries(tournament_id))
    return {bot.kind for bot in store.bots.find() if bot.id in entries}


def points_by_seat(ranking: list[int] | tuple[int, ...]) -> list[float]:
    """Game points per seat: the share of the other seats it beat, a tie counting half (win 1, draw 1/2)."""
    n = len(ranking)
    if n < 2:
        return [0.0] * n
    return [sum(points(mine < other, mine == other) for j, other in enumerate(ranking) if j != i) / (n - 1)
            for i, mine in enumerate(ranking)]


@dataclass
class TournamentRunner:
    """Plays one stored tournament to its end, or until told to stop."""

    store: Store
    tournament_id: int
    executor: Executor
    system: RatingSystem = DEFAULT_SYSTEM
    on_progress: Callable[[RunProgress], None] | None = None
    should_stop: Callable[[], bool] = lambda: False
    deadline: float | None = None  # time.monotonic() after which no new match starts
    hard_deadline: float | None = None  # time.monotonic() after which running matches are abandoned
    max_matches: int | None = None  # most matches this run plays
    min_matches: int = 0  # the deadlines hold only once this run has played this many (a share of a run's time
    # too short for a mode's slowest matches still shows a few of them)
    flush_seconds: float = 1.0
    flush_size: int = 200
    retries: int = 2  # plays again of a match the infrastructure failed, before it is given up
    playable: Callable[[MatchJob], bool] | None = None  # planned jobs to play now (default: all)
    plan_more: bool = True  # False: play what is planned, then return (a ladder service plans its rounds)
    job_order: Callable[[MatchJob], Any] | None = None  # the order to play in (default: the schedule's)
    ordered: bool = True  # store results in job order (False: as they finish, as a ladder service does)
    stopped_by: str = field(default="", init=False)
    infra_faults: int = field(default=0, init=False)  # met by this run

    def _stop(self) -> bool:
        if self.stopped_by:
            return True
        if self.should_stop():
            self.stopped_by = "request"
        elif self.progress.played < self.min_matches:
            return False
        elif (self.deadline is not None and time.monotonic() >= self.deadline) or self._abandon():
            self.stopped_by = "deadline"
        elif self.max_matches is not None and self.progress.played >= self.max_matches:
            self.stopped_by = "limit"
        return bool(self.stopped_by)

    def _abandon(self) -> bool:
        return (self.hard_deadline is not None and time.monotonic() >= self.hard_deadline
                and self.progress.played >= self.min_matches)

    def run(self) -> RunSummary:
        """Play until the tournament is complete or a stop condition holds."""
        started = time.perf_counter()
        tournament, entries, expected, finished_keys = self._open()
        finished = tournament.status == "finished"
        planned = self._planned()
        while not finished and not self._stop():
            jobs = self._jobs(planned, finished_keys)
            if jobs:
                self._play_round(jobs, finished_keys)
                if self.stopped_by:
                    break
                continue
            if not self.plan_more:
                break
            rows = self._next_round(tournament.seed, entries, planned)
            if not rows:
                self.store.tournaments.set_status(self.tournament_id, "finished")
                finished = True
                break
            if self._store_pairings(rows):
                planned = _with_rows(planned, rows)
            else:  # another run of this tournament planned the round first: use theirs
                planned = self._planned()
                finished_keys = self.store.tournaments.finished_keys(self.tournament_id)
        finished = self._finished_at_end(finished, expected, entries)
        self._report()
        return RunSummary(self.tournament_id, self.progress.played, self.progress.stored, expected, finished,
                          time.perf_counter() - started, "" if finished else self.stopped_by)

    def _finished_at_end(self, finished: bool, expected: int | None, entries: list[int]) -> bool:
        """Whether the tournament is finished once a run stops, marked so if it is complete (its last match was
        stored as time ran out)."""
        if not finished and self._is_complete(expected, entries):
            self.store.tournaments.set_status(self.tournament_id, "finished")
            return True
        return finished

    def _next_round(self, seed: int, entries: list[int], planned: list[tuple[Planned, int]]) -> list[PairingRow]:
        """The pairings of the next round the format plans, each with its seed (none: the tournament is over)."""
        new = self.format.plan(self._context(self.live_entries if self.format.name == "ladder" else entries,
                                             planned))
        return [PairingRow(p.round, p.index, derive_seed(seed, p.round, p.index), tuple(p.bots), p.label)
                for p in new]

    def _store_pairings(self, rows: list[PairingRow]) -> bool:
        """Store a round's pairings; False if another run of this tournament stored its own first."""
        try:
            self.store.tournaments.add_pairings(self.tournament_id, rows)
        except IntegrityError:
            return False
        return True

    def _open(self) -> tuple[TournamentRow, list[int], int | None, set[tuple[int, int, int]]]:
        """Read the tournament, its game and entries, and where it stands: (its row, the entries, the matches
        it plays in all, the keys of the matches already stored)."""
        tournament = self.store.tournaments.get(self.tournament_id)
        if tournament is None:
            raise KeyError(f"no tournament {self.tournament_id}")
        self.tournament = tournament
        self.format = get_format(tournament.format)
        from arena.games.registry import load_game

        self.game = load_game(tournament.game, tournament.options)
        self.duplicate = bool(tournament.settings.get("duplicate"))  # every rotation of a pairing on its seed
        self.options = self.game.options  # one object for every stored match: encoded once per flush
        entries = self.store.tournaments.entries(self.tournament_id)
        bots = {row.id: row for row in self.store.bots.find()}
        self.live_entries = [bot for bot in entries if bots[bot].status == "live"]  # what a ladder pairs
        self.seat_bots = {bot: SeatBot(bot, bots[bot].name, bots[bot].version, bots[bot].kind, bots[bot].spec)
                          for bot in entries}
        expected = self.format.expected_matches(len(entries), self.game.num_seats, tournament.rounds)
        # a run that plans no rounds (a ladder service's) reads only the pairings still open
        finished_keys = (self.store.tournaments.finished_keys(self.tournament_id) if self.plan_more
                         else self.store.tournaments.open_finished_keys(self.tournament_id))
        self.fault_counts = self.store.tournaments.infra_fault_counts(self.tournament_id)
        self.progress = RunProgress(self.tournament_id, len(finished_keys), expected)
        self._report()
        return tournament, entries, expected, finished_keys

    def _play_round(self, jobs: list[MatchJob], finished_keys: set[tuple[int, int, int]]) -> None:
        """Play the jobs planned and not stored yet; the keys stored join `finished_keys`."""
        if self.job_order is not None:
            jobs.sort(key=self.job_order)
        self.progress.round = jobs[0].round
        self.stored_keys: set[tuple[int, int, int]] = set()
        # a match the infrastructure failed before is played alone: if it fails again, it is the one
        # (a worker that dies loses every match it had, innocent ones too)
        self._play([job for job in jobs if job.key not in self.fault_counts])
        for job in jobs:
            if job.key in self.fault_counts and not self._stop():
                self._play([job])
        finished_keys.update(self.stored_keys)  # by this run or (on a clash) another

    def _is_complete(self, expected: int | None, entries: list[int]) -> bool:
        """Every match stored and no round left to plan (its last match was stored as time ran out)."""
        return (self.plan_more and expected is not None and self.progress.stored >= expected
                and not self.format.plan(self._context(entries, self._planned())))

    def _planned(self) -> list[tuple[Planned, int]]:
        rows = (self.store.tournaments.pairings(self.tournament_id) if self.plan_more
                else self.store.tournaments.open_pairings(self.tournament_id))
        return [(Planned(row.round, row.index, row.bots, row.label), row.seed) for row in rows]

    def _jobs(self, planned: list[tuple[Planned, int]], finished: set[tuple[int, int, int]]) -> list[MatchJob]:
        jobs = []
        seats = self.game.num_seats
        for pairing, seed in planned:
            if pairing.is_bye:
                continue
            for rotation in range(seats):
                if (pairing.round, pairing.index, rotation) in finished:
                    continue
                order = [pairing.bots[(seat + rotation) % seats] for seat in range(seats)]
                chance = seed if self.duplicate else game_seed(self.tournament.seed, pairing.round, pairing.index,
                                                               rotation)
                job = MatchJob(self.tournament_id, pairing.round, pairing.index, rotation, self.game.name,
                               self.options, chance, tuple(self.seat_bots[bot] for bot in order), self.tournament.pool)
                if self.playable is None or self.playable(job):
                    jobs.append(job)
        return jobs

    def _context(self, entries: list[int], planned: list[tuple[Planned, int]]) -> PlanContext:
        context = PlanContext(entries, self.game.num_seats, self.tournament.rounds, self.tournament.seed,
                              [p for p, _ in planned], system=self.system)
        if self.format.dynamic:
            for match in self.store.matches.of_tournament(self.tournament_id):
                key = (match.round, match.pairing)
                points = context.points.setdefault(key, {})
                scores = context.scores.setdefault(key, {})
                for seat, (bot, value) in enumerate(zip(match.bots, points_by_seat(match.ranking))):
                    points[bot] = points.get(bot, 0.0) + value
                    if seat < len(match.scores):
                        scores[bot] = scores.get(bot, 0.0) + float(match.scores[seat])
            if self.format.name == "ladder":
                context.ratings = {row.bot_id: (row.mu, row.sigma)
                                   for row in self.store.ratings.of_pool(self.tournament.pool)}
        return context

    def _play(self, jobs: list[MatchJob]) -> None:
        if not jobs:
            return
        pending: list[PlayedMatch] = []
        last_flush = time.monotonic()
        try:
            for outcome in self.executor.run(jobs, self._stop, self._abandon, self.ordered):
                if outcome.is_infrastructure_fault and not self._give_up(outcome):
                    continue  # played again by the loop of `run`
                pending.append(outcome)
                self.progress.played += 1
                self.progress.pending += 1
                self.progress.last = outcome
                now = time.monotonic()
                if len(pending) >= self.flush_size or now - last_flush >= self.flush_seconds:
                    self._flush(pending)
                    pending = []
                    last_flush = now
                self._report()
        finally:
            self._flush(pending)
            self._report()

    def _give_up(self, outcome: PlayedMatch) -> bool:
        """Note an infrastructure fault; True once the match has had all its tries (it is then stored,
        unrated), False while it is to be played again."""
        self.infra_faults += 1
        self.store.tournaments.add_infra_fault(self.tournament_id, outcome.key, outcome.bot_ids, outcome.detail)
        count = self.fault_counts[outcome.key] = self.fault_counts.get(outcome.key, 0) + 1
        if count <= self.retries:
            return False
        outcome.detail = f"given up after {count} tries, each failed by the infrastructure; last: {outcome.detail}"
        return True

    def _flush(self, played: list[PlayedMatch]) -> None:
        if not played:
            return
        try:
            self.store.matches.save(played, TrueSkillPolicy(self.system))
        except IntegrityError:  # some were stored by a concurrent run of this tournament: keep the rest
            stored = self.store.tournaments.finished_keys(self.tournament_id)
            self.stored_keys.update(match.key for match in played if match.key in stored)
            played = [match for match in played if match.key not in stored]
            self.store.matches.save(played, TrueSkillPolicy(self.system))
        self.stored_keys.update(match.key for match in played)
        self.progress.stored += len(played)
        self.progress.pending = 0

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)


def _with_rows(planned: list[tuple[Planned, int]], rows: list[PairingRow]) -> list[tuple[Planned, int]]:
    """`planned` and the pairings `rows` stored, in schedule order (round, then index)."""
    return sorted(planned + [(Planned(row.round, row.index, row.bots, row.label), row.seed) for row in rows],
                  key=lambda item: (item[0].round, item[0].index))

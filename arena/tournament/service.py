"""Tournaments as a library: what `arena tournament run`, `resume`, `arena ladder run` and `arena sprt`
do, callable from Python (the CLI only parses arguments and displays).

    from arena.tournament import TournamentSpec, run
    standings = run(TournamentSpec(games=(load_game("major-general"),), bots=tuple(parse_bots("random,greedy"))),
                    Store.open("sqlite:///results/arena.db"))

A field may mix built-in agents and bot programs: matches of agents alone play in local worker
processes (or on Celery workers with a broker), matches with a program in a seat through this
machine's referee (arena.tournament.referee_executor), and all are stored and rated in one pool,
in schedule order, resumable as any tournament.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ContextManager

from sqlalchemy.exc import DBAPIError

from arena.games.base import Game
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.players import PlayerKind
from arena.referee.seeds import new_seed, seat_salt
from arena.store import Store
from arena.store.retry import first_line
from arena.store.rows import TournamentRow
from arena.tournament.bots import BotSpec
from arena.tournament.celery_executor import DEFAULT_QUEUE, CeleryExecutor
from arena.tournament.executor import Executor, ExecutorError, LocalPoolExecutor, RoutingExecutor
from arena.tournament.formats import FormatError, default_rounds, get_format
from arena.tournament.referee_executor import NetworkSettings, RefereeExecutor
from arena.tournament.runner import RunProgress, RunSummary, TournamentRunner, create_tournament, entrant_kinds
from arena.tournament.standings import EntrantLine, tournament_table

if TYPE_CHECKING:
    from arena.referee.clock import ClockSettings
    from arena.sandbox.launch import SandboxSettings

ProgressCallback = Callable[[RunProgress], None]
#: Called per tournament once its executor is ready: a context manager giving the progress callback
#: (a progress bar's lifetime; the CLI's RunDisplay). Executors fork before it is entered.
DisplayFactory = Callable[[TournamentRow], ContextManager[ProgressCallback]]
StopCheck = Callable[[], bool]


class TournamentError(ValueError):
    """A tournament that cannot be created or played as asked; the message says why in one line.

    Where it names a command to run next, the message holds `{command}` and `command` its words, so that
    a caller can render it complete (the CLI adds its --db); str() renders it plainly."""

    def __init__(self, message: str, command: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.command = command

    def render(self, command_line: Callable[..., str] = lambda *words: " ".join(("arena", *words))) -> str:
        """The message with its follow-up command made by `command_line(*words)`."""
        return self.message.replace("{command}", command_line(*self.command)) if self.command else self.message

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class PlaySettings:
    """Where and how matches are played."""

    concurrency: int | None = None  # matches at once (default: one per core)
    broker: str | None = None  # Celery workers through this Redis broker play the agents' matches
    queue: str = DEFAULT_QUEUE
    sandbox: SandboxSettings | None = None  # how bot programs run (default: bubblewrap)
    clock: ClockSettings | None = None  # of matches with a bot program (default: the referee's)
    pipeline: int = 2  # chunks in flight per local worker (1: none waits behind a stalling match)
    network: NetworkSettings | None = None  # the referee also takes remote bots there (a hosted ladder)
    limits: AgentLimits = DEFAULT_LIMITS  # how long a built-in agent may think: per decision, per match
    # keys the seats' seeds in matches with programs where no tournament's seed does (a ladder service's rounds);
    # None: the referee's own secret, new at each start. A tournament's are keyed by its seed (play).
    seed_salt: str | None = None
    on_wait: Callable[[str | None], None] | None = None  # told while no worker serves the broker's queue (and
    # None when one does again): see CeleryExecutor


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament to create (one per game), or to continue when one of that name exists."""

    games: tuple[Game, ...]
    bots: tuple[BotSpec, ...]
    format: str = "round-robin"
    rounds: int | None = None  # default: the format's
    seed: int | None = 0  # None: a new secret one (a tournament continued keeps its own; one given must be it)
    name: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Standings:
    """A tournament after a run: its row, how the run went, and its table."""

    tournament: TournamentRow
    summary: RunSummary
    lines: list[EntrantLine]
    names: dict[int, str]

    def to_json(self, show_secret: bool = False) -> dict[str, Any]:
        """The `--json` form of `arena tournament run`; the tournament's seed, the secret every game's chance is
        keyed by, only with `show_secret` (for the operator: never in a pasted report)."""
        tournament, summary = self.tournament, self.summary
        return {
            "id": tournament.id, "name": tournament.name, "game": tournament.game, "pool": tournament.pool,
            "format": tournament.format, **({"seed": tournament.seed} if show_secret else {}),
            "rounds": tournament.rounds,
            "played": summary.played, "stored": summary.stored, "expected": summary.expected,
            "finished": summary.finished, "stopped_by": summary.stopped_by, "seconds": round(summary.seconds, 3),
            "standings": [line.to_json(self.names) for line in self.lines],
        }


def create(spec: TournamentSpec, store: Store,
           extended: Callable[[TournamentRow, int], None] | None = None) -> list[int]:
    """The ids of the spec's tournaments, one per game: new ones, or the same-named ones to continue.

    A same-named tournament that is finished gets the spec's rounds once more (another cycle of a
    round-robin or gauntlet, more Swiss rounds), so that running a named tournament again always plays;
    `extended(tournament, rounds_added)` hears of it.
    """
    ids = []
    names = [bot.name for bot in spec.bots]
    for game in spec.games:
        label = tournament_name(spec.name, spec.games, game)
        existing = store.tournaments.get(label) if label else None
        if existing is not None:
            _continue_existing(spec, store, existing, game, names, extended)
            ids.append(existing.id)
        else:
            ids.append(_create_new(spec, store, game, label, names))
    return ids


def tournament_name(name: str | None, games: Sequence[Game], game: Game) -> str | None:
    """The name of the tournament of `game`, one of `games` asked for under `name`: the name itself, or
    "<name>/<game>" when there are several games."""
    return name if name is None or len(games) == 1 else f"{name}/{game.name}"


def _continue_existing(spec: TournamentSpec, store: Store, existing: TournamentRow, game: Game, names: list[str],
                       extended: Callable[[TournamentRow, int], None] | None) -> None:
    """Check a same-named tournament has the spec's settings, and extend it by the spec's rounds if finished."""
    finished = existing.status == "finished"
    check_same(store, existing, game, names, spec.format, None if finished else spec.rounds,
               bool(spec.settings.get("duplicate")), spec.seed)
    if finished:
        _extend_finished(spec, store, existing, len(names), extended)


def _extend_finished(spec: TournamentSpec, store: Store, existing: TournamentRow, entrants: int,
                     extended: Callable[[TournamentRow, int], None] | None) -> None:
    """Give a finished tournament the spec's rounds once more (TournamentError if its format cannot grow)."""
    more = spec.rounds or default_rounds(spec.format, entrants)
    if not get_format(existing.format).extendable:
        raise TournamentError(f"tournament {existing.label!r} is finished and a {existing.format} "
                              "cannot be extended; pick another name")
    store.tournaments.extend(existing.id, existing.rounds + more)
    if extended is not None:
        extended(existing, more)


def _create_new(spec: TournamentSpec, store: Store, game: Game, label: str | None, names: list[str]) -> int:
    """Store a new tournament of the spec for `game` under `label`; its id (TournamentError on a format's error)."""
    try:
        return create_tournament(
            store, game=game, bots=list(spec.bots), format=spec.format,
            rounds=spec.rounds or default_rounds(spec.format, len(spec.bots)),
            seed=spec.seed if spec.seed is not None else new_seed(), name=label,
            settings={"bots": names, **spec.settings})
    except FormatError as error:
        raise TournamentError(f"{game.name}: {error}") from None


def check_same(store: Store, existing: TournamentRow, game: Game, names: Sequence[str], format: str,
               rounds: int | None, duplicate: bool = False, seed: int | None = None) -> None:
    """Refuse to continue a stored tournament under other settings (TournamentError); `seed`, where one is given,
    must be its own (the error does not say which it is: a tournament's seed is a secret)."""
    stored_names = [store.bots.names([bot])[bot] for bot in store.tournaments.entries(existing.id)]
    differences = [*_schedule_differences(existing, game, format, rounds),
                   *_field_differences(existing, stored_names, names, duplicate, seed)]
    if differences:
        raise TournamentError(f"tournament {existing.label!r} already exists with {'; '.join(differences)}; "
                              "pick another name")


def _schedule_differences(existing: TournamentRow, game: Game, format: str, rounds: int | None) -> list[str]:
    """How a stored tournament's game, format and rounds (where `rounds` is given) differ from these."""
    differences = []
    if existing.game != game.name or existing.options != game.options:
        differences.append(f"game {existing.game}")
    if existing.format != format:
        differences.append(f"format {existing.format}")
    if rounds is not None and existing.rounds != rounds:
        differences.append(f"rounds {existing.rounds}")
    return differences


def _field_differences(existing: TournamentRow, stored_names: list[str], names: Sequence[str], duplicate: bool,
                       seed: int | None) -> list[str]:
    """How a stored tournament's bots, deals and seed (where `seed` is given) differ from these."""
    differences = []
    if stored_names != list(names):
        differences.append(f"bots {','.join(stored_names)}")
    if bool(existing.settings.get("duplicate")) != duplicate:
        differences.append("duplicate deals" if existing.settings.get("duplicate") else "a deal per game")
    if seed is not None and seed != existing.seed:
        differences.append("another seed (leave --seed out to continue it)")
    return differences


def run(spec: TournamentSpec, store: Store, settings: PlaySettings = PlaySettings(), *,
        budget_s: float | None = None, display: DisplayFactory | None = None,
        should_stop: StopCheck | None = None) -> list[Standings]:
    """Create (or continue) the spec's tournaments, play them, and return their standings.

    `budget_s` is shared between the games: each gets an equal part of what is left when it starts.
    """
    ids = create(spec, store)
    summaries = play(store, ids, settings, budget_s=budget_s, display=display, should_stop=should_stop)
    return [standings(store, summary) for summary in summaries]


def resume(store: Store, tournaments: Sequence[int | str], settings: PlaySettings = PlaySettings(), *,
           budget_s: float | None = None, display: DisplayFactory | None = None,
           should_stop: StopCheck | None = None) -> list[Standings]:
    """Continue stored tournaments where they stopped (finished matches are never played again)."""
    summaries = play(store, found_ids(store, tournaments), settings, budget_s=budget_s, display=display,
                     should_stop=should_stop)
    return [standings(store, summary) for summary in summaries]


def found_ids(store: Store, tournaments: Sequence[int | str]) -> list[int]:
    """The ids of stored tournaments (not ladders) by id or name, or TournamentError naming what is not."""
    ids = []
    for tournament in tournaments:
        found = store.tournaments.get(tournament)
        if found is None:
            raise TournamentError(f"no tournament {tournament!r} (see `{{command}}`)", ("tournament", "list"))
        if found.format == "ladder":
            raise TournamentError(f"{tournament!r} is a ladder: continue it with `{{command}}`",
                                  ("ladder", "run", found.game))
        ids.append(found.id)
    return ids


def standings(store: Store, summary: RunSummary) -> Standings:
    """The standings of a tournament after a run."""
    tournament = store.tournaments.get(summary.tournament_id)
    assert tournament is not None
    return Standings(tournament, summary, tournament_table(store, summary.tournament_id),
                     store.bots.names(store.tournaments.entries(summary.tournament_id)))


def grace(seconds: float) -> float:
    """How long matches still running at a deadline may take to finish before they are abandoned."""
    return max(1.0, 0.1 * seconds)


def play(store: Store, ids: Sequence[int], settings: PlaySettings = PlaySettings(), *,
         budget_s: float | None = None, max_matches: int | None = None, display: DisplayFactory | None = None,
         should_stop: StopCheck | None = None) -> list[RunSummary]:
    """Play stored tournaments one after another, each on the executors its field needs.

    Stops early when `should_stop()` (checked between matches) or the budget says so (a budget shared by
    several tournaments still lets each play a match per worker, so none is left empty); KeyboardInterrupt
    abandons the matches in flight (stored ones are kept) and is raised again.
    """
    executors = Executors(settings)
    stop = should_stop or (lambda: False)
    summaries: list[RunSummary] = []
    started = time.monotonic()
    try:
        for position, tournament_id in enumerate(ids):
            tournament = store.tournaments.get(tournament_id)
            if tournament is None:
                raise TournamentError(f"no tournament {tournament_id}")
            deadline, hard_deadline = _budget_share(budget_s, started, len(ids) - position)
            # the seats' seeds keyed by the tournament's secret, as each game's chance is: a resume plays as one run
            executor = executors.for_kinds(entrant_kinds(store, tournament_id), seat_salt(tournament.seed))
            executor.start()  # a local pool forks its workers now, before a display starts a thread
            with (display(tournament) if display is not None else _no_display()) as on_progress:
                # a budget shared by several tournaments: each plays a few matches however short its share
                least = max(2, executor.concurrency) if budget_s is not None and len(ids) > 1 else 0
                runner = TournamentRunner(store, tournament_id, executor, on_progress=on_progress,
                                          should_stop=stop, deadline=deadline, hard_deadline=hard_deadline,
                                          max_matches=max_matches, min_matches=least)
                try:
                    summaries.append(runner.run())
                except (ExecutorError, DBAPIError) as error:
                    raise _cut_short(tournament_id, error) from None
            if stop():
                break
    except KeyboardInterrupt:
        executors.abandon()
        raise
    finally:
        executors.close()
    return summaries


def _budget_share(budget_s: float | None, started: float, left: int) -> tuple[float | None, float | None]:
    """A tournament's deadline and hard deadline: an equal share of what is left of the budget (started at
    `started`) for each of the `left` tournaments still to run; None and None without a budget."""
    if budget_s is None:
        return None, None
    share = max(budget_s - (time.monotonic() - started), 0.0) / left
    deadline = time.monotonic() + share
    return deadline, deadline + grace(share)


def _cut_short(tournament_id: int, error: ExecutorError | DBAPIError) -> TournamentError:
    """The error for a tournament whose executor or database failed mid-run (what was played is stored)."""
    why = f"lost the database ({first_line(error)})" if isinstance(error, DBAPIError) else str(error)
    return TournamentError(f"tournament {tournament_id}: {why}; what was played is stored, resume "
                           "with `{command}`", ("tournament", "resume", str(tournament_id)))


@contextlib.contextmanager
def _no_display() -> Iterator[ProgressCallback | None]:
    yield None


class Executors:
    """The executors a run needs, made once and shared between its tournaments (and a ladder service's
    rounds)."""

    def __init__(self, settings: PlaySettings) -> None:
        self.settings = settings
        self.agents: Executor | None = None
        self.programs: RefereeExecutor | None = None

    def for_kinds(self, kinds: set[PlayerKind], seed_salt: str | None = None) -> Executor:
        """Agents alone: the pool (or Celery); programs (launched or remote) alone: the referee (its seats' seeds
        keyed by `seed_salt`, see `referee`); both: routed between them."""
        if kinds <= {PlayerKind.AGENT}:
            return self._agents()
        if PlayerKind.AGENT not in kinds:
            return self.referee(seed_salt)
        return RoutingExecutor(self._agents(), self.referee(seed_salt))

    def _agents(self) -> Executor:
        if self.agents is None:
            settings = self.settings
            if settings.broker:
                try:
                    self.agents = CeleryExecutor(settings.broker, settings.concurrency, settings.queue,
                                                 limits=settings.limits, on_wait=settings.on_wait)
                except ImportError:
                    raise TournamentError("--broker needs Celery: pip install 'arena[distributed]'") from None
            else:
                self.agents = LocalPoolExecutor(settings.concurrency, pipeline=settings.pipeline,
                                                limits=settings.limits)
        return self.agents

    def referee(self, seed_salt: str | None = None) -> RefereeExecutor:
        """The executor of matches with bot programs or remote bots in them (made on first use), its seats' seeds
        keyed by `seed_salt` (None: the settings'); a referee keyed otherwise is closed and another made."""
        salt = seed_salt or self.settings.seed_salt
        if self.programs is not None and self.programs.seed_salt != salt:
            self.programs.close()  # (tournaments play one after another: the last one's matches are over)
            self.programs = None
        if self.programs is None:
            settings = self.settings
            self.programs = RefereeExecutor(settings.concurrency, clock=settings.clock, sandbox=settings.sandbox,
                                            network=settings.network, limits=settings.limits, seed_salt=salt)
        return self.programs

    def abandon(self) -> None:
        for executor in (self.agents, self.programs):
            if executor is not None:
                executor.abandon()

    def close(self) -> None:
        for executor in (self.agents, self.programs):
            if executor is not None:
                executor.close()

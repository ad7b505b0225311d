"""How the command line shows things, for every command: the consoles (every bot's and owner's string shown as
text), the one-line error, Arena's styled lines, and the displays commands share: run progress, leaderboards,
fault reports, a match's luck and analysis, submission and conformance reports."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, SpinnerColumn, Task, TextColumn,
    TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table
from rich.text import Text

from arena.luck import MatchLuck
from arena.ratings.bradley_terry import ConvergenceError
from arena.ratings.leaderboard import bradley_terry_fit
from arena.ratings.leaderboard import leaderboard as pool_leaderboard
from arena.ratings.reports import standings_json
from arena.referee.evidence import record_header, seat_evidence, shown
from arena.referee.players import REMOTE_VERSION
from arena.tournament.jobs import UNRATED, PlayedMatch

if TYPE_CHECKING:
    from arena.analysis import Analysis
    from arena.analysis.match import Slide, TurningPoint
    from arena.bottest.harness import Check, ConformanceReport
    from arena.referee.record import MatchRecord
    from arena.store import Store, StoredMatch, TournamentRow
    from arena.submissions import PreflightReport, Step, Submission
    from arena.submissions.archive import Problem
    from arena.tournament.runner import RunProgress
    from arena.tournament.service import DisplayFactory, TournamentError

PIPED_WIDTH = 120  # columns for tables written to a file or a pipe (rich would assume 80)


# --- consoles and Arena's own lines -----------------------------------------------------------------

def _width(stream: Any) -> int | None:
    """None (rich asks the terminal, or reads COLUMNS) unless output goes to a file or a pipe."""
    if os.environ.get("COLUMNS") or stream.isatty():
        return None
    return PIPED_WIDTH


class PlainConsole(Console):
    """A console on which every string is text: never markup (a bot's version `[/]x` neither crashes a command
    nor becomes a link), with its control characters, escape sequences and direction marks written out
    (arena.referee.evidence.shown). The one rule for what bots and owners write (names, versions, notes, output
    lines, labels), on every command. Arena's own styled lines are Text built by `styled`."""

    def render_str(self, text: str, **options: Any) -> Text:
        options["markup"] = False
        return super().render_str(shown(text), **options)


console = PlainConsole(highlight=False, markup=False, width=_width(sys.stdout))
err_console = PlainConsole(stderr=True, highlight=False, markup=False, width=_width(sys.stderr))


def versioned(name: str, version: str) -> str:
    """'greedy v3'; a remote bot (no versions of ours) 'alice-bot (remote)'; the name alone without a version."""
    if version == REMOTE_VERSION:
        return f"{name} (remote)"
    return f"{name} v{version}" if version else name


def styled(template: str, *values: object) -> Text:
    """One of Arena's own lines: `template` is Rich markup (Arena's, never a bot's) with a `{}` per value, and each
    value is put in as text (shown, its markup escaped): styled("[bold]{}[/bold] lost", name)."""
    if template.count("{}") != len(values):
        raise ValueError(f"{template!r} has {template.count('{}')} places for {len(values)} values")
    return Text.from_markup(template.replace("{", "{{").replace("}", "}}").replace("{{}}", "{}").format(
        *(escape(shown(str(value))) for value in values)))


def mark(text: str, style: str) -> Text:
    """A word of Arena's in a style (a table's pass/FAIL)."""
    return Text(text, style=style)


def print_json(data: Any) -> None:
    """Machine-readable output for --json: one JSON document on stdout."""
    print(json.dumps(data, indent=2, sort_keys=False))


class CliError(Exception):
    """A user-facing error: printed as one line, exit status `code`, never a traceback."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 1) -> NoReturn:
    """Stop the command with a one-line error."""
    raise CliError(message, code)


def command_line(*words: str, db: str | None = None) -> str:
    """A follow-up command to print, complete enough to paste: the words, quoted where needed, and the --db
    this command was given (the default database needs none)."""
    return " ".join(["arena", *(shlex.quote(word) for word in words if word)] +
                    (["--db", shlex.quote(db)] if db else []))


def said(error: TournamentError, db: str | None) -> str:
    """A tournament error's message with its follow-up command complete (this command's --db)."""
    return error.render(lambda *words: command_line(*words, db=db))


def ago(moment: datetime | None) -> str:
    """'3m ago' style age of a naive-UTC time."""
    if moment is None:
        return "-"
    seconds = (datetime.now(timezone.utc).replace(tzinfo=None) - moment).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{max(int(seconds), 0)}s ago"


def duration(seconds: float) -> str:
    """'42s', '3m 05s', '1h 02m'."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s" if seconds >= 10 else f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


# --- the progress of a run ----------------------------------------------------------------------------

PROGRESS_EVERY_S = 5.0  # written to a file or a pipe: a progress line at least this often
PROGRESS_MIN_GAP_S = 1.0  # ... and, for each tenth of the way, no more often than this


class RateColumn(ProgressColumn):
    """Matches per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "", style="dim")


class RunDisplay:
    """Progress a user can follow, for any long run: on a terminal a rich bar (done/total, elapsed, ETA,
    rate); written to a file or a pipe, one line at the start, every PROGRESS_EVERY_S seconds or tenth of
    the way (at most one a second), and one at the end ("12/48 matches (25%), 5s elapsed, ETA 15s; last:
    greedy beat random (score)"); nothing with --json."""

    def __init__(self, title: str, *, quiet: bool = False, seconds: float | None = None,
                 unit: str = "matches", series: bool = False) -> None:
        self.title = title
        self.seconds = seconds  # open-ended runs show time against this budget
        self.unit = unit
        self.quiet = quiet
        # one display across several runs (`arena tournament run all`): `begin` each; lines only by time, and
        # the bar leaves the screen at the end (the caller prints a summary)
        self.series = series
        self.started = time.monotonic()
        self.interactive = console.is_terminal and not quiet
        self._last_line = 0.0
        self._last_fraction = -1.0
        self._first_done: int | None = None  # what was done before this run (a resumed tournament's matches)
        self._last: tuple[int, int | None, str] = (0, None, "")
        self._printed: tuple[int, int | None, str] | None = None
        # (a title may name bots: it is shown text, never markup)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}", style="bold", markup=False),
                                 BarColumn(),
                                 MofNCompleteColumn() if seconds is None else TextColumn("{task.fields[count]}", markup=False),
                                 TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                 RateColumn(), console=console, disable=not self.interactive, transient=series)
        self.task = self.progress.add_task(shown(title), total=None, count="")

    def __enter__(self) -> RunDisplay:
        self.progress.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.progress.stop()
        if not self.interactive and not self.quiet and self._last[0] and not self.series:
            self._line(*self._last, final=True)

    def begin(self, title: str) -> None:
        """The next run of a series: its title; counts and ETA start again."""
        self.title = title
        self.started = time.monotonic()
        self._last_fraction = -1.0
        self._first_done = None
        self._last, self._printed = (0, None, ""), None
        self.progress.reset(self.task, description=shown(title), total=None, count="")

    def update(self, state: RunProgress) -> None:
        """Called by the runner after each match."""
        last = describe_played(state.last) if state.last is not None else ""
        if self.seconds is not None:
            elapsed = min(time.monotonic() - self.started, self.seconds)
            self.progress.update(self.task, total=self.seconds, completed=elapsed,
                                 count=f"{state.played} matches, round {state.round + 1}")
            self.advance(state.played, None, last)
        else:
            done = state.stored + state.pending
            self.progress.update(self.task, total=state.expected, completed=done)
            self.advance(done, state.expected, last)

    def advance(self, done: int, total: int | None, last: str = "") -> None:
        """`done` of `total` (None: open-ended) so far; `last`: the latest result, in words."""
        self._last = (done, total, last)
        if self._first_done is None:
            self._first_done = done
        if self.interactive:
            self.progress.update(self.task, total=total, completed=done)
            return
        if not self.quiet and self._line_due(done, total):
            self._line(done, total, last)

    def _line_due(self, done: int, total: int | None) -> bool:
        """Whether a progress line is due: PROGRESS_EVERY_S after the last, a tenth more of the way, or the end."""
        now = time.monotonic()
        finished = bool(total) and done >= (total or 0)
        return (now - self._last_line >= PROGRESS_EVERY_S or self._tenth_more(done, total, now)
                or (finished and not self.series))

    def _tenth_more(self, done: int, total: int | None, now: float) -> bool:
        """A tenth more of the way done since the last line, at least PROGRESS_MIN_GAP_S after it (not in a series)."""
        fraction = done / total if total else 0.0
        return not self.series and bool(total) and fraction - self._last_fraction >= 0.1 \
            and now - self._last_line >= PROGRESS_MIN_GAP_S

    def _line(self, done: int, total: int | None, last: str, final: bool = False) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if (done, total, last) == self._printed:
            return
        self._printed = (done, total, last)
        self._last_line = now
        if total:
            self._last_fraction = done / total
            this_run = done - (self._first_done or 0)
            eta = elapsed / this_run * (total - done) if this_run > 0 else None
            head = f"{done}/{total} {self.unit} ({100 * done / total:.0f}%)"
            timing = f"{duration(elapsed)} elapsed" + ("" if final or eta is None or done >= total
                                                       else f", ETA {duration(eta)}")
        else:
            head = f"{done} {self.unit}"
            budget = f" of {duration(self.seconds)}" if self.seconds else ""
            timing = f"{duration(elapsed)}{budget} elapsed"
        console.print(f"{self.title}: {head}, {timing}" + (f"; last: {last}" if last else ""), markup=False,
                      highlight=False, soft_wrap=True)


def describe_played(played: PlayedMatch) -> str:
    """'greedy beat random (score)' or 'a draw between ...' or 'random lost: crash' for a played match."""
    names = [seat.name for seat in played.job.seats]
    if played.voided or played.reason in UNRATED:
        return f"{' vs '.join(names)}: not scored ({played.reason})"
    winners = _ranked_first(names, list(played.ranking))
    if played.offender is not None and 0 <= played.offender < len(names):
        return f"{names[played.offender]} lost by {played.reason}"
    if len(winners) == len(names):
        return f"{' and '.join(names)} drew ({played.reason})"
    losers = [name for name in names if name not in winners]
    return f"{' and '.join(winners)} beat {' and '.join(losers)} ({played.reason})"


def _ranked_first(names: list[str], ranking: list[int]) -> list[str]:
    """The names that share the best rank (lowest), in seat order."""
    best = min(ranking) if ranking else 0
    return [name for name, rank in zip(names, ranking) if rank == best]


def display_for(quiet: bool, seconds: float | None = None, title: str = "") -> DisplayFactory:
    """A progress display per tournament (a bar on a terminal, lines elsewhere, silent with --json)."""
    @contextlib.contextmanager
    def display(tournament: TournamentRow) -> Iterator[Callable[[RunProgress], None]]:
        label = title or f"#{tournament.id} {tournament.format} {tournament.game}"
        with RunDisplay(label, quiet=quiet, seconds=seconds) as progress:
            yield progress.update

    return display


@contextlib.contextmanager
def series_display(quiet: bool, count: int) -> Iterator[DisplayFactory]:
    """One progress display across `count` tournaments played one after another (GAME 'all'): the bar
    names the one playing; lines come every few seconds; a summary follows."""
    progress = RunDisplay("", quiet=quiet, series=True)
    position = 0

    @contextlib.contextmanager
    def display(tournament: TournamentRow) -> Iterator[Callable[[RunProgress], None]]:
        nonlocal position
        position += 1
        if position == 1:
            progress.__enter__()  # (not before: executors fork their workers before the first display)
        progress.begin(f"[{position}/{count}] {tournament.game}")
        yield progress.update

    try:
        yield display
    finally:
        if position:
            progress.__exit__(None, None, None)


class CheckTicker:
    """Progress of a conformance run, also inside a long check: which check of how many, how long it has run and
    the decisions the bot made in it (on a terminal in place, once a second; written to a file or a pipe, a line
    every few seconds)."""

    def __init__(self, title: str, total: int, *, quiet: bool) -> None:
        self.display = RunDisplay(title, quiet=quiet, unit="checks")
        self.current: Check | None = None
        self.done = 0
        self.total = total
        self.began = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="arena-bot-test-progress", daemon=True)

    def __enter__(self) -> CheckTicker:
        self.display.__enter__()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self.display.__exit__(*exc_info)

    def on_check(self, check: Check) -> None:
        """Called by the harness as a check starts and as it ends."""
        if check.ok is None and not check.skipped:
            self.current, self.began = check, time.monotonic()
            return
        self.done += 1
        self.current = None
        verdict = "skipped" if check.skipped else "pass" if check.ok else "FAIL"
        self.display.advance(self.done, self.total, f"{check.name}{' ' + check.game if check.game else ''} {verdict}")

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            check = self.current
            if check is not None:
                self.display.advance(self.done, self.total, f"running {check.name}"
                                     f"{' ' + check.game if check.game else ''} for "
                                     f"{duration(time.monotonic() - self.began)}, {check.decisions} decision(s)")


# --- leaderboards -------------------------------------------------------------------------------------

DISPLAY_WIDTH = 26  # the longest bot name a table shows whole


def display_name(name: str, width: int = DISPLAY_WIDTH) -> str:
    """A bot's name cut to `width` with an ellipsis (the whole name is in --json and `arena bot show`)."""
    return name if len(name) <= width else name[:width - 1] + "…"


def pool_json(store: Store, pool: str, bradley_terry: bool = False, live_only: bool = True) -> dict[str, Any]:
    """A pool's leaderboard as JSON."""
    try:
        rows = standings_json(store, pool, live_only, bradley_terry)
    except ConvergenceError as error:
        fail(f"{pool}: {error}")
    return {"pool": pool, "matches": store.ratings.match_count(pool), "standings": rows}


def _fit(store: Store, pool: str) -> dict[int, Any]:
    try:
        return bradley_terry_fit(store, pool)
    except ConvergenceError as error:
        fail(f"{pool}: {error}")


def print_leaderboard(store: Store, pool: str, bradley_terry: bool = False, live_only: bool = True) -> None:
    """A pool's leaderboard as a table."""
    standings = pool_leaderboard(store, pool, live_only)
    table = Table(title=f"{pool}: {store.ratings.match_count(pool)} rated match(es)", title_justify="left")
    for column in ("#", "bot", "mu", "sigma", "score", "games", "win rate (95%)", "last played"):
        table.add_column(column, justify="left" if column in ("bot", "win rate (95%)", "last played") else "right",
                         no_wrap=True, overflow="ellipsis")
    estimates = _fit(store, pool) if bradley_terry else {}
    if bradley_terry:
        table.add_column("Bradley-Terry Elo (95%)")
    for s in standings:
        low, high = s.win_rate_interval
        name = display_name(s.bot)
        cells: list[str | Text] = [str(s.rank), name if s.version in ("", "1") else versioned(name, s.version), f"{s.mu:.2f}",
                 f"{s.sigma:.2f}", mark(f"{s.score:.2f}", "bold"), str(s.games),
                 f"{100 * s.win_rate:.1f}% [{100 * low:.1f}-{100 * high:.1f}]", ago(s.last_played)]
        if bradley_terry:
            estimate = estimates.get(s.bot_id)
            cells.append("-" if estimate is None else
                         f"{estimate.elo:+.0f} [{estimate.elo_interval[0]:+.0f}, {estimate.elo_interval[1]:+.0f}]")
        table.add_row(*cells)
    console.print(table)


# --- faults: who lost by what, and the bot's own last output lines --------------------------------------

FAULT_OUTPUT_LINES = 12  # of a bot's last output, shown under its fault


def print_fault(name: str, reason: str, detail: str, evidence: dict[str, Any] | None, where: str = "") -> None:
    """'NAME lost by REASON: DETAIL' and the bot's last output lines (or that it printed nothing), escaped as
    arena.referee.evidence says."""
    console.print(styled("[bold red]{}[/bold red] lost by {}{}: {}", name, reason, where, detail), soft_wrap=True)
    output = (evidence or {}).get("output", "")
    if evidence is None:
        console.print("  (no output was kept for it)", markup=False)
    elif output:
        lines = output.splitlines()
        console.print(f"  its last output ({len(lines)} line(s)):", markup=False)
        for line in lines:
            console.print(f"    {line}", markup=False, highlight=False)
    else:
        console.print("  it printed nothing", markup=False)


def print_tournament_faults(store: Store, tournament_id: int) -> None:
    """For each bot program of a tournament that lost matches by its own fault: how many, and the latest
    one with its last output lines, from the stored record."""
    programs = {bot.id: bot for bot in store.bots.find() if bot.kind.is_program}
    faults = [(bot, fault) for fault in store.matches.faults(tournament_id=tournament_id, limit=100_000)
              if (bot := fault.offending_bot) in programs]  # newest first
    counts = Counter(bot for bot, _fault in faults)
    for bot, count in counts.items():
        latest = next(fault for offender, fault in faults if offender == bot)
        _print_latest_fault(store, programs[bot].name, bot, latest, count)


def _print_latest_fault(store: Store, name: str, bot: int, latest: StoredMatch, count: int) -> None:
    """A bot program's fault count and its latest fault, with the last output lines its stored record holds."""
    seat = next((seat.seat for seat in latest.seats if seat.bot_id == bot), 0)
    header = record_header(store.matches.record(latest)) or {}
    where = f" in {count} match(es); the latest, match {latest.id}"
    print_fault(name, latest.reason, latest.detail, seat_evidence(header.get("extra"), seat, FAULT_OUTPUT_LINES),
                where)


# --- a match's luck and analysis ------------------------------------------------------------------------

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int = 60) -> str:
    """A one-line chart of values in [0, 1] (averaged down to `width` characters)."""
    if not values:
        return ""
    buckets = max(1, min(width, len(values)))
    line = []
    for bucket in range(buckets):
        part = values[bucket * len(values) // buckets:(bucket + 1) * len(values) // buckets] or [values[-1]]
        mean = sum(part) / len(part)
        line.append(SPARKS[min(len(SPARKS) - 1, int(mean * len(SPARKS)))])
    return "".join(line)


def trend_sparkline(values: list[float], width: int = 40) -> str:
    """A one-line chart of the last `width` values, from their lowest to their highest."""
    values = values[-width:]
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return "".join(SPARKS[min(len(SPARKS) - 1, int((v - low) / span * (len(SPARKS) - 1) + 0.5))] for v in values)


def _readable_luck(data: Any, seats: int) -> MatchLuck | None:
    """The luck a record keeps, or None after one line saying it cannot be read (a record is a file anyone can
    edit)."""
    try:
        return MatchLuck.from_json(data, seats)
    except ValueError as error:
        console.print(f"luck: the record's luck cannot be read ({error}); `arena analyse` measures it again",
                      markup=False, soft_wrap=True)
        return None


def show_luck(record: MatchRecord, seat_names: tuple[str, ...]) -> None:
    """Who chance favoured, by how much, and the events that gave the most (the record's luck, arena.luck)."""
    data = record.extra.get("luck")
    luck = _readable_luck(data, len(seat_names)) if data else None
    if luck is None:
        return
    counted = list(luck.seats)
    luckiest = max(range(len(counted)), key=counted.__getitem__)
    names = {player.seat: player.name for player in record.players}
    if abs(counted[luckiest]) < 0.005:
        console.print("luck: neither side was lucky (chance evened out)")
    else:
        console.print(f"luck: {seat_names[luckiest]} ({names.get(luckiest, '?')}) was lucky by "
                      f"{counted[luckiest]:.2f} of a game", soft_wrap=True)
    labels = {step.n: step.label for step in record.steps}
    biggest = sorted(luck.events, key=lambda event: -abs(event[1]))[:3]
    for n, value in biggest:
        if abs(value) >= 0.01:
            who = seat_names[0] if value > 0 else seat_names[1]
            console.print(f"  step {n + 1}: {labels.get(n, '')} (+{abs(value):.2f} for {who})", soft_wrap=True)
    console.print(f"  measured by {luck.model}; results are corrected by {luck.beta:g} times it"
                  + (" (this model's luck does not predict results: none)" if not luck.beta else ""), style="dim")


def show_analysis(analysis: Analysis, seat: int | None = None, bot: str = "", source: str = "MATCH",
                  db: str | None = None) -> None:
    """The chance curve of both seats as sparklines (with the static evaluation's beside), and the turning
    points; with `seat` (arena analyse --as BOT), told from that seat's side: its curve and its turning points
    first; `source`: how the match was named (for the command that would look closer)."""
    console.print(styled("[bold]{}[/bold]  {} decisions, budget {} per decision, {}s", analysis.game,
                         len(analysis.entries), analysis.budget, f"{analysis.seconds:.1f}"))
    console.print("a chance is the mover's expected score if both sides played on like Arena's search at this "
                  "budget; 'static' is Arena's evaluation of the position, which assumes nothing about how they "
                  "play on (the better guide against a weak opponent)", style="dim", markup=False, soft_wrap=True)
    seats = len(analysis.curve())
    order = [seat] + [other for other in range(seats) if other != seat] if seat is not None else list(range(seats))
    _show_curves(analysis, order, seat, bot)
    _show_seat_summaries(analysis, order, seat, bot)
    points = sorted(analysis.turning_points, key=lambda p: (p.seat != seat, p.decision)) if seat is not None \
        else analysis.turning_points
    if not points:
        console.print("no turning point: no move lost much of its mover's chance, clear of the search's noise")
    else:
        _show_turning_points(analysis, points, seat, bot)
    _show_slides(analysis, seat, bot, source, db)


def _show_slides(analysis: Analysis, seat: int | None, bot: str, source: str, db: str | None) -> None:
    """How a seat lost ground without a turning point: a little at every move, or chance, or the other side;
    and the budget that would look closer."""
    slides = analysis.slides()
    for slide in sorted(slides, key=lambda s: s.seat != seat):
        luck = "" if slide.luck is None else f", chance {slide.luck:+.0%}"
        console.print(f"{_seat_label(analysis, slide.seat, seat, bot)} slid from {slide.start:.0%} to {slide.end:.0%} "
                      f"with no single turning point: its own moves {_cost_or_gain(slide.own_moves, '.0%')} in all "
                      f"({_costly_moves(slide)}){luck}; the rest was the other side's play: out-played a little at "
                      "a time", markup=False, soft_wrap=True)
    if slides:
        console.print(f"a larger budget looks closer: "
                      f"{command_line('analyse', source, '--budget', analysis.closer_budget(), db=db)} (its searches' "
                      "noise about half, smaller mistakes stand clear)",
                      style="dim", markup=False, soft_wrap=True)


def _cost_or_gain(amount: float, form: str) -> str:
    """What moves did to their side's chance, said without a double negative: "cost 3%" or "gained 3%"."""
    return f"cost {amount:{form}}" if amount >= 0 else f"gained {-amount:{form}}"


def _costly_moves(slide: Slide) -> str:
    """How many of a sliding seat's moves lost anything, and the most one lost."""
    if not slide.costly_moves:
        return "none of them lost any"
    return f"{slide.costly_moves} of them lost some, at most {slide.largest:.0%} at once"


def _show_turning_points(analysis: Analysis, points: Sequence[TurningPoint], seat: int | None, bot: str) -> None:
    """The turning points as a table: where, whose, what was played, what it lost, the better move."""
    table = Table(title="turning points", title_justify="left")
    table.add_column("when")
    table.add_column("seat")
    table.add_column("played")
    table.add_column("lost", justify="right")
    table.add_column("better")
    table.add_column("kept", justify="right")
    table.add_column("how sure")
    for point in points:
        table.add_row(point.moment, _seat_label(analysis, point.seat, seat, bot), Text(point.played),
                      f"-{point.drop:.0%}", Text(point.best), f"{point.kept:.0%}",
                      f"{point.confidence} (±{point.uncertainty:.0%})")
    console.print(table)
    for point in points:
        if point.judged_by == "playouts":
            console.print(f"{point.moment}: judged by paired playouts of greedy players from the mover's view (the "
                          "search rated the move about as well as the better one)", style="dim", markup=False,
                          soft_wrap=True)


def _seat_label(analysis: Analysis, one: int, seat: int | None, bot: str) -> str:
    """A seat's name, with the bot's beside it for the seat the analysis is told from."""
    return f"{analysis.seat_names[one]} ({bot})" if one == seat else analysis.seat_names[one]


def _show_curves(analysis: Analysis, order: list[int], seat: int | None, bot: str) -> None:
    """Each seat's chance curve, and the static evaluation's where the analysis has it."""
    curve = analysis.curve()
    static = _static_curve(analysis)
    expected = _expected_start(analysis)
    for one in order:
        values = curve[one]
        line = f"  {_seat_label(analysis, one, seat, bot):<8} {sparkline(values)}  {values[0]:.0%} -> {values[-1]:.0%}"
        if static[one]:
            line += f"   static {static[one][0]:.0%} -> {static[one][-1]:.0%}"
        if expected is not None:
            line += f"   as they play {expected[one]:.0%} at the start"
        console.print(line, markup=False)
    if analysis.players is not None:
        forms = "; ".join(f"{analysis.seat_names[one]}'s moves {'lose' if form.drop >= 0 else 'gain'} "
                          f"{abs(form.drop):.1%} of a game each ({form.matches} match(es), {form.decisions} decisions)"
                          for one, form in enumerate(analysis.players))
        console.print(f"'as they play': the chance if each side goes on losing what its moves lost in its other "
                      f"analysed matches: {forms}", style="dim", markup=False, soft_wrap=True)
        _show_edges(analysis)


def _show_edges(analysis: Analysis) -> None:
    """Where the players' edges in their seats move the chances as they play: each edge, and the shift."""
    edge = analysis.seat_edge()
    if not edge or analysis.players is None:
        return
    edges = "; ".join(f"{analysis.seat_names[one]}'s {form.edge:+.1%} ({form.edge_matches} matches)"
                      for one, form in enumerate(analysis.players))
    console.print(f"and as each has fared in its seat (its results over its chances at a match's start, fading by "
                  f"the end): {edges}, so {analysis.seat_names[0]} {edge:+.1%} at the start", style="dim",
                  markup=False, soft_wrap=True)


def _expected_start(analysis: Analysis) -> list[float] | None:
    """Each seat's expected score at the first decision as the two players play (None without their forms)."""
    chances = analysis.expected()
    if not chances:
        return None
    first = chances[0] if analysis.entries[0].seat == 0 else 1.0 - chances[0]
    return [first, 1.0 - first]


def _show_seat_summaries(analysis: Analysis, order: list[int], seat: int | None, bot: str) -> None:
    """Luck beside skill, each seat's: its result, what chance gave it, and its largest turning point."""
    for one in order:
        worst = max((p for p in analysis.turning_points if p.seat == one), key=lambda p: p.drop, default=None)
        parts = []
        if analysis.luck is not None:
            luck = analysis.luck.seats[one]
            parts.append(f"{'gained' if luck >= 0 else 'lost'} {abs(luck):.2f} of a game to the dice and draws")
        if worst is not None:
            parts.append(f"lost {worst.drop:.2f} at {worst.moment} (its largest turning point)")
        result = {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(analysis.result[one], str(analysis.result[one]))
        console.print(f"{_seat_label(analysis, one, seat, bot)} {result}" + (": " + ", ".join(parts) if parts else ""),
                      markup=False)


def _static_curve(analysis: Analysis) -> list[list[float]]:
    """Per seat, the static evaluation's chance at each decision (empty for an analysis made without it)."""
    if any(entry.static is None for entry in analysis.entries) or not analysis.entries:
        return [[], []]
    seat0 = [entry.static if entry.seat == 0 else 1.0 - entry.static for entry in analysis.entries
             if entry.static is not None]
    return [seat0, [1.0 - value for value in seat0]]


# --- a submission's report ------------------------------------------------------------------------------

_STEP_MARK = {True: mark("✓", "green"), False: mark("✗", "red"), None: mark("-", "dim")}


class StepPrinter:
    """The pre-flight's steps as they finish, under a heading said first (the running step in the status line)."""

    def __init__(self, status: Any) -> None:
        self.status = status
        self.headed = False

    def show(self, step: Step) -> None:
        """A step as it starts (in the status line) or ends (a line of its own)."""
        if self.status is None:
            return
        if step.ok is None:
            self.status.update(f"pre-flight: {step.title}")
            return
        if not self.headed:
            self.headed = True
            console.print("pre-flight in the sandbox, step by step:")
        console.print(step_line(step))


def step_line(step: Step) -> Text:
    """A pre-flight step: its mark, title, detail and time."""
    if step.skipped:
        return Text("  ").append_text(_STEP_MARK[None]).append_text(styled(" {}: [dim]{}[/dim]", step.title,
                                                                           step.detail))
    return Text("  ").append_text(_STEP_MARK[bool(step.ok)]).append_text(
        styled(" {}: {} [dim]({} s)[/dim]", step.title, step.detail, f"{step.seconds:.2f}"))


def print_problems(problems: Sequence[Problem], source: object, out: Console | None = None) -> None:
    """A bot's problems (a submission's, or a folder's bot.toml), each on a line with where it is and its fix."""
    out = out or console
    out.print(styled("[bold red]{} problem(s)[/bold red] in {}:", len(problems), source))
    for problem in problems:
        out.print(styled("  [bold]{}[/bold]: {}{}", problem.where, problem.message,
                         f"\n      fix: {problem.fix}" if problem.fix else ""), highlight=False)


def print_submission(result: Submission) -> None:
    """A submission's report: its problems, what was left out, the pre-flight, and the verdict."""
    if result.problems:
        print_problems(result.problems, result.source)
    if result.skipped:
        left_out = ", ".join(result.skipped[:5]) + (f" and {len(result.skipped) - 5} more"
                                                    if len(result.skipped) > 5 else "")
        console.print(f"left out: {left_out}", style="dim")
    if result.preflight is not None:
        _print_preflight(result)
    for retired in result.retired:
        console.print(f"retired {retired} (its rating carries over)")
    style = "green" if result.ok else "red"
    console.print(result.message, style=style)


def _print_preflight(result: Submission) -> None:
    """The pre-flight's time, skipped steps, what the bot used, its last output and the fixes."""
    report = result.preflight
    assert report is not None
    console.print(f"pre-flight of {result.name} v{result.version} ({(result.artifact_hash or '')[:12]}): "
                  f"{report.seconds:.1f} s in all")
    for step in report.steps:
        if step.skipped:
            console.print(step_line(step))
    console.print("  " + ", ".join(_usage_facts(report)))
    if report.output_tail.strip():
        lines = report.output_tail.rstrip().splitlines()[-15:]
        console.print("  the bot's last output:")
        for line in lines:
            console.print(f"    {shown(line)}", markup=False, highlight=False)
    for fix in report.fix:
        console.print(styled("  [bold]fix:[/bold] {}", fix))


def _usage_facts(report: PreflightReport) -> list[str]:
    """What the bot used in its pre-flight: launches, peak memory and processes against the limits, CPU time."""
    usage = report.usage
    facts = [f"{usage.get('launches', 0)} launch(es)"]
    if usage.get("memory_peak_mb") is not None:
        facts.append(f"peak memory {usage['memory_peak_mb']} MB of {report.limits.get('memory_mb')} MB")
    if usage.get("processes_peak") is not None:
        facts.append(f"peak {usage['processes_peak']} processes of {report.limits.get('processes')}")
    if usage.get("cpu_seconds") is not None:
        facts.append(f"CPU {usage['cpu_seconds']} s")
    if usage.get("memory_peak_mb") is None:
        facts.append("memory and processes not measured here (no cgroup to count them in; the limits still "
                     "hold per process)")
    return facts


# --- `arena bot test`'s report --------------------------------------------------------------------------

_CHECK_MARK = {True: mark("pass", "green"), False: mark("FAIL", "red"), None: mark("skip", "dim")}
CONFORMANCE_OUTPUT_LINES = 15  # of the bot's output, under the table


def print_conformance(report: ConformanceReport) -> None:
    """A conformance run as a table of its checks, its warnings, the bot's last output, what to fix, and the
    verdict."""
    console.print(_checks_table(report))
    for warning in report.warnings():
        console.print(styled("[bold yellow]warning[/bold yellow]: {}", warning), soft_wrap=True)
    _print_conformance_output(report)
    for fix, names in _conformance_fixes(report).items():
        console.print(styled("[bold]fix[/bold] ({}): {}", ", ".join(dict.fromkeys(names)), fix))
    passed = sum(1 for check in report.checks if check.ok)
    failed = sum(1 for check in report.checks if check.ok is False)
    style = "green" if report.ok else "red"
    console.print(mark("passed" if report.ok else "failed", style) +
                  f": {passed} check(s) passed, {failed} failed, in {report.seconds:.1f} s (clock: "
                  f"{report.clock['move_time_s']:g} s per decision, {report.clock['bank_s']:g} s bank)")


def _print_conformance_output(report: ConformanceReport) -> None:
    """The bot's last CONFORMANCE_OUTPUT_LINES lines of output, if it wrote any."""
    if report.output_tail.strip():
        lines = report.output_tail.rstrip().splitlines()[-CONFORMANCE_OUTPUT_LINES:]
        console.print(f"the bot's output (stdout and stderr), last {len(lines)} line(s):")
        for line in lines:
            console.print(f"  {shown(line)}", markup=False, highlight=False)


def _conformance_fixes(report: ConformanceReport) -> dict[str, list[str]]:
    """The fixes of the failed checks, each with the names of the checks it fixes (in the checks' order)."""
    fixes: dict[str, list[str]] = {}
    for check in report.checks:
        if check.ok is False and check.fix:
            fixes.setdefault(check.fix, []).append(check.name)
    return fixes


def _checks_table(report: ConformanceReport) -> Table:
    hello = report.hello
    title = f"arena bot test {report.bot}" + (f" (version {hello['version']})" if hello else "")
    table = Table(title=title, title_justify="left")
    table.add_column("check", no_wrap=True)
    table.add_column("game", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("matches", justify="right")
    table.add_column("decisions", justify="right")
    table.add_column("ms per decision\nmean · max", justify="right", no_wrap=True)
    table.add_column("detail")
    for check in report.checks:
        timing = check.timing()
        table.add_row(check.name, check.game or "", _CHECK_MARK[None if check.skipped else bool(check.ok)],
                      str(check.matches) if check.matches else "", str(check.decisions) if check.matches else "",
                      f"{timing['mean_ms']:.1f} · {timing['max_ms']:.1f}" if timing else "",
                      check.detail)
    return table

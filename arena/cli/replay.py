"""`arena replay`: step through a match record and draw the board in the terminal."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


from arena.analysis import Analysis
from arena.cli.common import console, fail, results_dir, styled, versioned
from arena.cli.faults import FAULT_OUTPUT_LINES, print_fault
from arena.cli.runs import DB_OPTION, open_store
from arena.referee.evidence import seat_evidence, shown
from arena.store import resolve_url
from arena.store.db import database_name
from arena.games.base import State
from arena.luck import MatchLuck
from arena.referee.record import MatchRecord, RecordError, Step
from arena.referee.replay import ReplayDivergence, game_of, replay_steps


def replay(
    source: str = typer.Argument(..., metavar="RECORD", help="A match record file (.jsonl or .jsonl.gz), or a "
                                                             "stored match's id or uid (see --db)."),
    step: bool = typer.Option(False, "--step", help="Wait for Enter after each decision."),
    delay: float = typer.Option(0.0, "--delay", min=0.0, help="Seconds to pause after each decision."),
    final: bool = typer.Option(False, "--final", help="Draw only the final position."),
    html_out: Optional[Path] = typer.Option(None, "--html", metavar="OUT.html",
                                            help="Write one self-contained HTML page of the match (the board "
                                                 "viewer, offline) instead of drawing it here."),
    db: Optional[str] = DB_OPTION,
) -> None:
    """Replay a record through the rules engine, checking every step, and draw the board, with the notes
    the bots left with their decisions; a bot that lost by its own fault is shown with its last output lines."""
    file, data, match_id = record_bytes(source, db)
    analysis = stored_analysis(match_id, db)
    if html_out is not None:
        write_html(file, data, html_out, analysis)
        return
    try:
        record = MatchRecord.from_bytes(data, file)
    except RecordError as error:
        fail(str(error))
    try:
        game = game_of(record)
    except ReplayDivergence as error:
        fail(f"{file}: {error}")
    players = ", ".join(f"{game.info.seat_names[p.seat]}: {versioned(p.name, p.version)}" for p in record.players)
    console.print(Panel(f"{game.info.title} ({record.game})  seed {record.seed}\n{players}",
                        title=f"record {record.match_id[:12]}", expand=False))
    state: State | None = None
    turning = {point.step: point for point in analysis.turning_points} if analysis is not None else {}
    try:
        for index, (state, item) in enumerate(replay_steps(record)):
            if final:
                continue
            _show_step(item, state, game.info.seat_names)
            if index in turning:
                point = turning[index]
                console.print(styled("[bold red]turning point[/]: -{} for {}; better: {} (kept {})",
                                     f"{point.drop:.0%}", game.info.seat_names[point.seat], point.best,
                                     f"{point.kept:.0%}"))
            if not item.is_chance:
                if step:
                    typer.prompt("", default="", show_default=False, prompt_suffix="")
                elif delay:
                    time.sleep(delay)
    except ReplayDivergence as error:
        fail(f"{file}: replay diverges at {error}")
    if state is None:
        state = game.new_initial_state()
    if final:
        console.print(Panel(state.board_text(), title="final position", expand=False))
    result = record.result
    assert result is not None
    names = [next((p.name for p in record.players if p.seat == seat), "") for seat in range(len(result.ranking))]
    console.print(styled("[bold]{}[/bold]", result.verdict(game.info.seat_names, names))
                  + (f": {shown(result.detail)}" if result.detail else ""), soft_wrap=True)
    if result.offender is not None:
        name = next((p.name for p in record.players if p.seat == result.offender), f"seat {result.offender}")
        evidence = seat_evidence(record.extra, result.offender, FAULT_OUTPUT_LINES)
        print_fault(name, result.reason, result.detail, evidence)
    console.print("replay reproduces the record", style="green")
    show_luck(record, game.info.seat_names)
    if analysis is not None:
        show_analysis(analysis)
    else:
        console.print(f"where was it won and lost? arena analyse {source}", style="dim")


def show_luck(record: MatchRecord, seat_names: tuple[str, ...]) -> None:
    """Who chance favoured, by how much, and the events that gave the most (the record's luck, arena.luck)."""
    data = record.extra.get("luck")
    if not data:
        return
    luck = MatchLuck.from_json(data)
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
            console.print(f"  step {n}: {labels.get(n, '')} (+{abs(value):.2f} for {who})", soft_wrap=True)
    console.print(f"  measured by {luck.model}; results are corrected by {luck.beta:g} times it"
                  + (" (this model's luck does not predict results: none)" if not luck.beta else ""), style="dim")


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


def show_analysis(analysis: Analysis, seat: int | None = None, bot: str = "") -> None:
    """The chance curve of both seats as sparklines (with the static evaluation's beside), and the turning
    points; with `seat` (arena analyse --as BOT), told from that seat's side: its curve and its turning points
    first."""
    names = analysis.seat_names
    curve = analysis.curve()
    console.print(styled("[bold]{}[/bold]  {} decisions, budget {} per decision, {}s", analysis.game,
                         len(analysis.entries), analysis.budget, f"{analysis.seconds:.1f}"))
    console.print("a chance is the mover's expected score if both sides played on like Arena's search at this "
                  "budget; 'static' is Arena's evaluation of the position, which assumes nothing about how they "
                  "play on (the better guide against a weak opponent)", style="dim", markup=False, soft_wrap=True)
    static = _static_curve(analysis)
    order = [seat] + [other for other in range(len(curve)) if other != seat] if seat is not None else range(len(curve))
    for one in order:
        values = curve[one]
        who = f"{names[one]} ({bot})" if one == seat else names[one]
        line = f"  {who:<8} {sparkline(values)}  {values[0]:.0%} -> {values[-1]:.0%}"
        if static[one]:
            line += f"   static {static[one][0]:.0%} -> {static[one][-1]:.0%}"
        console.print(line, markup=False)
    points = sorted(analysis.turning_points, key=lambda p: (p.seat != seat, p.decision)) if seat is not None \
        else analysis.turning_points
    for one in order:  # luck beside skill, each seat's: what chance gave it, and its largest turning point
        own = [p for p in analysis.turning_points if p.seat == one]
        worst = max(own, key=lambda p: p.drop, default=None)
        parts = []
        if analysis.luck is not None:
            luck = analysis.luck.seats[one]
            parts.append(f"{'gained' if luck >= 0 else 'lost'} {abs(luck):.2f} of a game to the dice and draws")
        if worst is not None:
            parts.append(f"lost {worst.drop:.2f} at decision {worst.decision + 1} (its largest turning point)")
        result = {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(analysis.result[one], str(analysis.result[one]))
        who = f"{names[one]} ({bot})" if one == seat else names[one]
        console.print(f"{who} {result}" + (": " + ", ".join(parts) if parts else ""), markup=False)
    if not points:
        console.print("no turning point: no move lost much of its mover's chance, clear of the search's noise")
        return
    table = Table(title="turning points", title_justify="left")
    table.add_column("decision", justify="right")
    table.add_column("seat")
    table.add_column("played")
    table.add_column("lost", justify="right")
    table.add_column("better")
    table.add_column("kept", justify="right")
    table.add_column("how sure")
    for point in points:
        who = f"{names[point.seat]} ({bot})" if point.seat == seat else names[point.seat]
        table.add_row(str(point.decision + 1), who, Text(point.played), f"-{point.drop:.0%}", Text(point.best),
                      f"{point.kept:.0%}", f"{point.confidence} (±{point.uncertainty:.0%})")
    console.print(table)


def _static_curve(analysis: Analysis) -> list[list[float]]:
    """Per seat, the static evaluation's chance at each decision (empty for an analysis made without it)."""
    if any(entry.static is None for entry in analysis.entries) or not analysis.entries:
        return [[], []]
    seat0 = [entry.static if entry.seat == 0 else 1.0 - entry.static for entry in analysis.entries
             if entry.static is not None]
    return [seat0, [1.0 - value for value in seat0]]


def stored_analysis(match_id: int | None, db: str | None) -> Analysis | None:
    """The analysis stored with a match, None for a file (no id) or a match with none."""
    data = open_store(db, read_only=True).analyses.get(match_id) if match_id is not None else None
    return Analysis.from_compressed(data) if data is not None else None


def record_bytes(source: str, db: str | None) -> tuple[str, bytes, int | None]:
    """(what to call it, its bytes, the stored match's id or None for a file) of a record file, or else of a
    stored match by id or uid."""
    path = Path(source)
    try:
        return source, path.read_bytes(), None
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        fail(f"{source} is a folder: give a record file (.jsonl or .jsonl.gz) or a stored match's id")
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror}")
    url = resolve_url(db, results_dir())
    no_database = url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file()
    if not (source.isascii() and source.isalnum()) or no_database:  # not a match id or uid, or nowhere to look
        fail(f"no such record file: {source}")
    store = open_store(db, read_only=True)
    found = store.matches.get(source)
    if found is None:
        fail(f"no such record file, and no stored match {source!r} in {database_name(url)}")
    return f"match {found.id}", store.matches.record(found), found.id


def _show_step(item: Step, state: State, seat_names: tuple[str, ...]) -> None:
    if item.is_chance:
        console.print(Text(f"  chance: {item.label}", style="dim"))
        return
    think = f"  ({item.timing['think_ms']:.1f} ms)" if "think_ms" in item.timing else ""
    console.print(Panel(state.board_text(), title=f"{item.n}. {item.label}{think}", title_align="left",
                        expand=False))
    if item.note:  # the bot's own note for its owner (the public record and pages have none)
        console.print(Text(f"  {seat_names[item.seat]}'s note: {shown(item.note)}", style="italic"))
    if item.output:  # what the bot program printed with this decision (its owner's and the operators' only)
        console.print(Text(f"  {seat_names[item.seat]} printed: " + shown(item.output.rstrip()).replace("\n", "\n    "),
                           style="dim"))


def write_html(file: str, data: bytes, out: Path, analysis: Analysis | None = None) -> None:
    """`arena replay RECORD --html OUT`: the self-contained page (with the match's analysis, if it has one),
    or a one-line error."""
    from arena.web.replay import ReplayError, record_lines
    from arena.web.standalone import standalone_html

    try:
        page = standalone_html(record_lines(data), analysis.to_json() if analysis is not None else None)
    except (ReplayError, RecordError) as error:
        fail(f"{file}: {error}")
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror}")
    console.print(f"wrote {out} ({len(page) // 1024} KB): open it in any browser, no network needed")


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)

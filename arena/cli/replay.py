"""`arena replay`: step through a match record and draw the board in the terminal."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.panel import Panel
from rich.text import Text

from arena.analysis import Analysis, TurningPoint
from arena.cli.options import DB_OPTION
from arena.cli.settings import open_store, record_bytes
from arena.cli.show import (FAULT_OUTPUT_LINES, command_line, console, fail, print_fault, show_analysis, show_luck,
    styled, versioned)
from arena.games.base import Game, State
from arena.referee.evidence import seat_evidence, shown
from arena.referee.record import MatchRecord, RecordError, Step, step_name
from arena.referee.replay import ReplayDivergence, game_of, replay_steps
from arena.web.replay import ReplayError, record_lines
from arena.web.standalone import standalone_html


def replay(
    source: str = typer.Argument(..., metavar="RECORD", help="A match record file (.jsonl or .jsonl.gz), or a "
                                                             "stored match's id or uid (see --db)."),
    step: bool = typer.Option(False, "--step", help="Wait for Enter after each decision."),
    decision: Optional[int] = typer.Option(None, "--decision", metavar="N", help="Start at decision N (the match's "
                                                                                 "decisions numbered 1, 2, ... as "
                                                                                 "its page and analysis number "
                                                                                 "them): the position before it, "
                                                                                 "then the match on from there."),
    delay: float = typer.Option(0.0, "--delay", min=0.0, help="Seconds to pause after each decision."),
    final: bool = typer.Option(False, "--final", help="Draw only the final position."),
    html_out: Optional[Path] = typer.Option(None, "--html", metavar="OUT.html",
                                            help="Write one self-contained HTML page of the match (the board "
                                                 "viewer, offline) instead of drawing it here."),
    db: Optional[str] = DB_OPTION,
) -> None:
    """Replay a record through the rules engine, checking every step, and draw the board, with the notes
    the bots left with their decisions; a bot that lost by its own fault is shown with its last output lines.
    Its steps are numbered 1, 2, ... (every decision and chance event) and its decisions too, as the match's page,
    its analysis and the bots' requests number them: "28. ... (decision 14)"."""
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
    start = _start_of(record, decision, final)
    players = ", ".join(f"{game.info.seat_names[p.seat]}: {versioned(p.name, p.version)}" for p in record.players)
    console.print(Panel(f"{game.info.title} ({record.game})  seed {record.seed}\n{players}",
                        title=f"record {record.match_id[:12]}", expand=False))
    turning = {point.step: point for point in analysis.turning_points} if analysis is not None else {}
    try:
        state = _show_steps(record, game, turning, final=final, step=step, delay=delay, start=start)
    except ReplayDivergence as error:
        fail(f"{file}: replay diverges at {error}")
    if final:
        console.print(Panel(state.board_text(), title="final position", expand=False))
    _show_ending(record, game)
    if analysis is not None:  # (the follow-up commands keep this one's --db)
        show_analysis(analysis, source=source, db=db)
    else:
        console.print(f"where was it won and lost? {command_line('analyse', source, db=db)}", style="dim",
                      markup=False)


def _start_of(record: MatchRecord, decision: int | None, final: bool) -> int:
    """The index of the first step to draw: 0, or decision `decision`'s (a one-line error when the match has
    no such decision)."""
    if decision is None:
        return 0
    if final:
        fail("--decision N and --final: give one of the two", code=2)
    found = record.step_of_decision(decision)
    if found is None:
        count = len(record.decisions)
        fail(f"there is no decision {decision} in this match: its decisions are 1 to {count}" if count
             else f"there is no decision {decision}: this match has no decisions", code=2)
    return found - 1


def _show_steps(record: MatchRecord, game: Game, turning: dict[int, TurningPoint], *, final: bool, step: bool,
                delay: float, start: int = 0) -> State:
    """Every step replayed (drawn from step index `start` unless `final`, with the analysis's turning points),
    waiting for Enter or a delay after each decision; the last position."""
    state: State | None = None
    numbers = record.decision_numbers()
    for index, (state, item) in enumerate(replay_steps(record)):
        if final or index < start:
            if index == start - 1:  # the position the jump lands on
                console.print(Panel(state.board_text(), title=f"before {step_name(start + 1, numbers[start])}",
                                    title_align="left", expand=False))
            continue
        _show_step(item, state, game.info.seat_names, numbers[index])
        if index in turning:
            _show_turning_point(turning[index], game.info.seat_names)
        if not item.is_chance:
            _pause(step, delay)
    return state if state is not None else game.new_initial_state()


def _show_turning_point(point: TurningPoint, seat_names: tuple[str, ...]) -> None:
    """One of the analysis's turning points, under the step it came at."""
    console.print(styled("[bold red]turning point[/] at {}: -{} for {}; better: {} (kept {}){}", point.moment,
                         f"{point.drop:.0%}", seat_names[point.seat], point.best,
                         f"{point.kept:.0%}", "; judged by playouts" if point.judged_by == "playouts" else ""))


def _pause(step: bool, delay: float) -> None:
    """After a decision: wait for Enter (`step`), else `delay` seconds (if any)."""
    if step:
        typer.prompt("", default="", show_default=False, prompt_suffix="")
    elif delay:
        time.sleep(delay)


def _show_ending(record: MatchRecord, game: Game) -> None:
    """The verdict, the offender's fault with its last output lines, that the replay held, and the luck."""
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


def stored_analysis(match_id: int | None, db: str | None) -> Analysis | None:
    """The analysis stored with a match, None for a file (no id) or a match with none."""
    data = open_store(db, read_only=True).analyses.get(match_id) if match_id is not None else None
    return Analysis.from_compressed(data) if data is not None else None


def _show_step(item: Step, state: State, seat_names: tuple[str, ...], decision: int | None) -> None:
    """One step: numbered as the match's page numbers it ("28."), a decision with its decision number."""
    if item.is_chance:
        console.print(Text(f"  {item.n + 1}. chance: {item.label}", style="dim"))
        return
    think = f"  ({item.timing['think_ms']:.1f} ms)" if "think_ms" in item.timing else ""
    console.print(Panel(state.board_text(), title=f"{item.n + 1}. {item.label}  (decision {decision}){think}",
                        title_align="left", expand=False))
    if item.note:  # the bot's own note for its owner (the public record and pages have none)
        console.print(Text(f"  {seat_names[item.seat]}'s note: {shown(item.note)}", style="italic"))
    if item.output:  # what the bot program printed with this decision (its owner's and the operators' only)
        console.print(Text(f"  {seat_names[item.seat]} printed: " + shown(item.output.rstrip()).replace("\n", "\n    "),
                           style="dim"))


def write_html(file: str, data: bytes, out: Path, analysis: Analysis | None = None) -> None:
    """`arena replay RECORD --html OUT`: the self-contained page (with the match's analysis, if it has one),
    or a one-line error."""
    try:
        page = standalone_html(record_lines(data), analysis.to_json() if analysis is not None else None)
    except (ReplayError, RecordError) as error:
        fail(f"{file}: {error}")
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror}")
    console.print(f"wrote {out} ({len(page) // 1024} KB): open it in any browser, no network needed")

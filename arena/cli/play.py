"""`arena play`: local matches between in-process agents, records saved under results/."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path
from typing import Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.agents import UnknownAgentError, make_agent
from arena.cli.common import console, fail, open_game, parse_options, print_json, results_dir
from arena.games.base import Game
from arena.referee import play_match
from arena.referee.record import MatchRecord


def record_path(directory: Path, record: MatchRecord) -> Path:
    """results/records/<game>/<date>-seed<seed>-<id>.jsonl"""
    game_folder = record.game.replace("/", "__")
    stamp = record.started_at[:19].replace(":", "").replace("-", "")
    return directory / "records" / game_folder / f"{stamp}-seed{record.seed}-{record.match_id[:8]}.jsonl"


def play(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode, see `arena games`."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Seed of the first game (game i uses seed+i)."),
    games: int = typer.Option(1, "--games", min=1, max=100_000, help="How many games to play."),
    players: str = typer.Option("random,random", "--players", help="Comma-separated built-in agents, one per seat."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Results folder (default: $ARENA_RESULTS or ./results)."),
    save: bool = typer.Option(True, "--save/--no-save", help="Write a record file per game."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Play local games between built-in agents and print the results."""
    game = open_game(game_name, parse_options(option))
    names = [name.strip() for name in players.split(",") if name.strip()]
    if len(names) != game.num_seats:
        fail(f"{game.name} has {game.num_seats} seats; --players names {len(names)} agent(s)", code=2)
    try:
        agents = [make_agent(name) for name in names]
    except UnknownAgentError as error:
        fail(str(error), code=2)
    first_seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    directory = out or results_dir()

    records: list[tuple[MatchRecord, Path | None]] = []
    started = time.perf_counter()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True, disable=json_output) as progress:
        task = progress.add_task(f"{game.name}", total=games)
        for index in range(games):
            record = play_match(game, agents, first_seed + index)
            path = record.write(record_path(directory, record)) if save else None
            records.append((record, path))
            progress.advance(task)
    elapsed = time.perf_counter() - started

    if json_output:
        print_json({
            "game": game.name, "options": game.options, "players": names, "seconds": round(elapsed, 3),
            "games": [_game_json(record, path) for record, path in records],
        })
        return
    _print_tables(game, names, records, elapsed)


def _game_json(record: MatchRecord, path: Path | None) -> dict:
    result = record.result
    assert result is not None
    return {"seed": record.seed, "ranking": list(result.ranking), "scores": list(result.scores),
            "reason": result.reason, "decisions": len(record.decisions), "record": str(path) if path else None}


def _print_tables(game: Game, names: list[str], records: list[tuple[MatchRecord, Path | None]], elapsed: float) -> None:
    seat_names = game.info.seat_names
    table = Table(title=f"{game.name}: {len(records)} game(s) in {elapsed:.2f}s")
    for column in ("#", "seed", "winner", "scores", "reason", "decisions"):
        table.add_column(column, justify="right" if column in ("#", "seed", "decisions") else "left")
    for index, (record, path) in enumerate(records, start=1):
        result = record.result
        assert result is not None
        winner = "draw" if result.is_draw else ", ".join(
            f"{seat_names[s]} ({names[s]})" for s in result.winners)
        scores = " - ".join(f"{score:g}" for score in result.scores) or "-"
        table.add_row(str(index), str(record.seed), winner, scores, result.reason, str(len(record.decisions)))
    console.print(table)
    saved = [path for _, path in records if path is not None]
    if saved:
        console.print(f"records: {saved[0].parent}/ (replay one with: arena replay {saved[-1]})", soft_wrap=True)

    summary = Table(title="By seat")
    for column in ("seat", "player", "wins", "draws", "losses"):
        summary.add_column(column)
    tally: Counter[tuple[int, str]] = Counter()
    for record, _ in records:
        result = record.result
        assert result is not None
        for seat in range(game.num_seats):
            outcome = "draws" if result.is_draw else ("wins" if seat in result.winners else "losses")
            tally[seat, outcome] += 1
    for seat in range(game.num_seats):
        summary.add_row(seat_names[seat], names[seat], str(tally[seat, "wins"]), str(tally[seat, "draws"]),
                        str(tally[seat, "losses"]))
    console.print(summary)


def register(app: typer.Typer) -> None:
    app.command("play")(play)

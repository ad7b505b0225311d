"""`arena play`: local matches between in-process agents, records saved under results/."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.agents import UnknownAgentError, make_agent
from arena.cli.common import console, fail, open_game, parse_options, print_json, results_dir
from arena.cli.match import describe_record
from arena.cli.runs import RunDisplay
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
    swap: bool = typer.Option(True, "--swap/--no-swap",
                              help="Rotate the seats from game to game (the default, as tournaments do), so that "
                                   "each player has each seat as often; --no-swap keeps the order of --players."),
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

    records: list[tuple[MatchRecord, Path | None, list[int]]] = []
    started = time.perf_counter()
    labels = player_labels(names)
    with RunDisplay(f"{game.name}: {' vs '.join(labels)}", quiet=json_output, unit="games") as display:
        for index in range(games):
            order = seating(len(names), index, swap)
            record = play_match(game, [agents[player] for player in order], first_seed + index)
            path = record.write(record_path(directory, record)) if save else None
            records.append((record, path, order))
            display.advance(len(records), games,
                            describe_record(record, {seat: labels[player] for seat, player in enumerate(order)}))
    elapsed = time.perf_counter() - started

    if json_output:
        print_json({
            "game": game.name, "options": game.options, "players": names, "swap": swap,
            "seconds": round(elapsed, 3), "by_player": _by_player(game, names, records),
            "games": [_game_json(record, path, [names[p] for p in order]) for record, path, order in records],
        })
        return
    _print_tables(game, names, records, elapsed)


def player_labels(names: list[str]) -> list[str]:
    """One label per player: its name, told apart by its place in --players when two are the same agent
    ('random (1)', 'random (2)')."""
    repeated = {name for name in names if names.count(name) > 1}
    return [f"{name} ({index + 1})" if name in repeated else name for index, name in enumerate(names)]


def seating(players: int, index: int, swap: bool) -> list[int]:
    """Which player (index into --players) sits in each seat of game `index`: rotated by one seat each game
    when swapping."""
    return [(seat + index) % players if swap else seat for seat in range(players)]


def _game_json(record: MatchRecord, path: Path | None, seated: list[str]) -> dict:
    result = record.result
    assert result is not None
    return {"seed": record.seed, "seats": seated, "ranking": list(result.ranking), "scores": list(result.scores),
            "reason": result.reason, "decisions": len(record.decisions), "record": str(path) if path else None}


def _by_player(game: Game, names: list[str], records: list[tuple[MatchRecord, Path | None, list[int]]]
               ) -> list[dict]:
    """Per player (in --players order): games, wins, draws, losses, and games in each seat."""
    rows: list[dict[str, Any]] = [{"player": name, "games": 0, "wins": 0, "draws": 0, "losses": 0,
                                   "seats": {seat: 0 for seat in game.info.seat_names}}
                                  for name in player_labels(names)]
    for record, _path, order in records:
        result = record.result
        assert result is not None
        for seat, player in enumerate(order):
            row = rows[player]
            row["games"] += 1
            row["seats"][game.info.seat_names[seat]] += 1
            outcome = "draws" if result.is_draw else ("wins" if seat in result.winners else "losses")
            row[outcome] += 1
    return rows


def _print_tables(game: Game, names: list[str], records: list[tuple[MatchRecord, Path | None, list[int]]],
                  elapsed: float) -> None:
    seat_names = game.info.seat_names
    table = Table(title=f"{game.name}: {len(records)} game(s) in {elapsed:.2f}s")
    for column in ("#", "seed", "seats", "winner", "scores", "reason", "decisions"):
        table.add_column(column, justify="right" if column in ("#", "seed", "decisions") else "left")
    for index, (record, path, order) in enumerate(records, start=1):
        result = record.result
        assert result is not None
        labels = player_labels(names)
        seated = ", ".join(f"{seat_names[seat]}: {labels[player]}" for seat, player in enumerate(order))
        winner = "draw" if result.is_draw else ", ".join(
            f"{seat_names[s]} ({labels[order[s]]})" for s in result.winners)
        scores = " - ".join(f"{score:g}" for score in result.scores) or "-"
        table.add_row(str(index), str(record.seed), seated, winner, scores, result.reason,
                      str(len(record.decisions)))
    console.print(table)
    saved = [path for _, path, _ in records if path is not None]
    if saved:
        console.print(f"records: {saved[0].parent}/ (replay one with: arena replay {saved[-1]})", soft_wrap=True)

    rotated = len({tuple(order) for _, _, order in records}) > 1
    summary = Table(title="By player" + (" (seats rotated game to game)" if rotated else ""))
    for column in ("player", "games", "wins", "draws", "losses", *(f"as {name}" for name in seat_names)):
        summary.add_column(column, justify="left" if column == "player" else "right")
    for row in _by_player(game, names, records):
        summary.add_row(row["player"], str(row["games"]), str(row["wins"]), str(row["draws"]), str(row["losses"]),
                        *(str(row["seats"][name]) for name in seat_names))
    console.print(summary)


def register(app: typer.Typer) -> None:
    app.command("play")(play)

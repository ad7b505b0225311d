"""`arena play`: local matches between in-process agents, records saved under results/."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.agents import Agent, UnknownAgentError, make_agent
from arena.cli.options import DECISION_LIMIT_OPTION, MATCH_LIMIT_OPTION, MAX_SEED, agent_limits, parse_options
from arena.cli.settings import open_game, results_dir
from arena.cli.show import RunDisplay, console, fail, print_json
from arena.games.base import Game
from arena.tournament.series import (InProcess, PlayedGame, Series, describe, labels_of, run_series, storage_problem,
    tally)
from arena.referee.seeds import new_seed


def play(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode, see `arena games`."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Seed of the series: the same seed plays the same games again (each game "
                                            "draws its chance from a seed of its own, keyed by this one)."),
    games: int = typer.Option(1, "--games", min=1, max=100_000, help="How many games to play."),
    players: str = typer.Option("random,random", "--players", help="Comma-separated built-in agents, one per seat."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Results folder (default: $ARENA_RESULTS or ./results)."),
    save: bool = typer.Option(True, "--save/--no-save", help="Write a record file per game."),
    swap: bool = typer.Option(True, "--swap/--no-swap",
                              help="Rotate the seats from game to game (the default, as tournaments do); --no-swap "
                                   "keeps the order of --players."),
    duplicate: bool = typer.Option(False, "--duplicate",
                                   help="Play each rotation of the seats on one deal and the same dice (cuts the luck "
                                        "between agents that cannot remember; research only)."),
    decision_limit: Optional[str] = DECISION_LIMIT_OPTION,
    match_limit: Optional[str] = MATCH_LIMIT_OPTION,
    json_output: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Play local games between built-in agents and print the results."""
    limits = agent_limits(decision_limit, match_limit)
    game = open_game(game_name, parse_options(option))
    names, agents = _seated_agents(game, players)
    first_seed = seed if seed is not None else new_seed()
    runner = InProcess(game, agents, (out or results_dir()) if save else None, limits)
    with RunDisplay(f"{game.name}: {' vs '.join(labels_of(names))}", quiet=json_output, unit="games") as display:
        series = run_series(runner, game.name, names, games, first_seed, rotate=swap, duplicate=duplicate,
                            on_game=lambda played, labels: display.advance(played.game.index + 1, games,
                                                                             describe(played, labels)))
    if json_output:
        print_json({
            "game": game.name, "options": game.options, "players": names, "swap": swap, "duplicate": duplicate,
            "seconds": round(series.seconds, 3), "by_player": _by_player(game, series),
            "games": [_game_json(played, series.labels) for played in series.games],
        })
    else:
        _print_tables(game, series)
    problem = storage_problem(series)
    if problem is not None:
        fail(problem)


def _seated_agents(game: Game, players: str) -> tuple[list[str], list[Agent]]:
    """The agents --players names, one per seat, and their names; or a one-line error."""
    names = [name.strip() for name in players.split(",") if name.strip()]
    if len(names) != game.num_seats:
        fail(f"{game.name} has {game.num_seats} seats; --players names {len(names)} agent(s)", code=2)
    try:
        agents = [make_agent(name) for name in names]
    except UnknownAgentError as error:
        fail(str(error), code=2)
    return names, agents


def _game_json(played: PlayedGame, labels: tuple[str, ...]) -> dict[str, Any]:
    record, result = played.record, played.record.result
    assert result is not None
    return {"seed": record.seed, "seats": played.seats(labels), "ranking": list(result.ranking),
            "scores": list(result.scores), "reason": result.reason, "decisions": len(record.decisions),
            "record": str(played.path) if played.path else None}


def _by_player(game: Game, series: Series) -> list[dict[str, Any]]:
    """Per player (in --players order): games, wins, draws, losses, and games in each seat."""
    return [{"player": row.label, "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses,
             "seats": {name: row.seats[seat] for seat, name in enumerate(game.info.seat_names)}}
            for row in tally(series)]


def _print_tables(game: Game, series: Series) -> None:
    console.print(_games_table(game, series))
    saved = [played.path for played in series.games if played.path is not None]
    if saved:
        console.print(f"records: {saved[0].parent}/ (replay one with: arena replay {saved[-1]})", soft_wrap=True)
    console.print(_players_table(game, series))


def _games_table(game: Game, series: Series) -> Table:
    """One row per game played: its seed, seats, winner, scores, reason and number of decisions."""
    seat_names = game.info.seat_names
    table = Table(title=f"{game.name}: {len(series.games)} game(s) in {series.seconds:.2f}s")
    for column in ("#", "seed", "seats", "winner", "scores", "reason", "decisions"):
        table.add_column(column, justify="right" if column in ("#", "seed", "decisions") else "left")
    for played in series.games:
        record, result = played.record, played.record.result
        assert result is not None
        seated = played.seats(series.labels)
        winner = "draw" if result.is_draw else ", ".join(f"{seat_names[s]} ({seated[s]})" for s in result.winners)
        scores = " - ".join(f"{score:g}" for score in result.scores) or "-"
        table.add_row(str(played.game.index + 1), str(record.seed),
                      ", ".join(f"{seat_names[seat]}: {label}" for seat, label in enumerate(seated)), winner, scores,
                      result.reason, str(len(record.decisions)))
    return table


def _players_table(game: Game, series: Series) -> Table:
    """The "By player" table: each player's games, wins, draws and losses, and games in each seat."""
    seat_names = game.info.seat_names
    rotated = len({played.game.order for played in series.games}) > 1
    summary = Table(title="By player" + (" (seats rotated game to game)" if rotated else ""))
    for column in ("player", "games", "wins", "draws", "losses", *(f"as {name}" for name in seat_names)):
        summary.add_column(column, justify="left" if column == "player" else "right")
    for row in tally(series):
        summary.add_row(row.label, str(row.games), str(row.wins), str(row.draws), str(row.losses),
                        *(str(row.seats[seat]) for seat in range(len(seat_names))))
    return summary

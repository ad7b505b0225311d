"""`arena games`: the registered games and their modes."""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from arena.cli.show import console, print_json
from arena.games.registry import GameMode, families


def games(json_output: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the games and modes Arena can referee."""
    grouped = families()
    if json_output:
        print_json(_games_json(grouped))
        return
    for family, modes in grouped.items():
        console.print(_modes_table(family, modes))
        options = _options_table(modes)
        if options is not None:
            console.print(options)
    console.print("A family name alone picks its first mode. Play one with: arena play NAME --games 3; "
                  "-o NAME=VALUE plays an option (its own rating pool).")


def _games_json(grouped: dict[str, list[GameMode]]) -> list[dict[str, Any]]:
    """`arena games --json`: every mode of every family, with its seats, actions, options and choices."""
    data = []
    for family, modes in grouped.items():
        for mode in modes:
            info = mode.load().info
            data.append({
                "name": mode.name, "family": family, "title": mode.title, "description": mode.description,
                "seats": info.num_seats, "actions": info.num_actions, "options": info.options,
                "choices": [option.to_json() for option in mode.choices],
            })
    return data


def _modes_table(family: str, modes: list[GameMode]) -> Table:
    """A family's modes: name, seats, actions and description."""
    table = Table(title=f"{modes[0].title} ({family})", title_justify="left")
    table.add_column("name", style="bold cyan", no_wrap=True)
    table.add_column("seats", justify="right")
    table.add_column("actions", justify="right")
    table.add_column("mode")
    for mode in modes:
        info = mode.load().info
        table.add_row(mode.name, str(info.num_seats), str(info.num_actions), mode.description)
    return table


def _options_table(modes: list[GameMode]) -> Table | None:
    """The options a family's modes offer (-o NAME=VALUE), None when they offer none."""
    offered = [(mode, option) for mode in modes for option in mode.choices]
    if not offered:
        return None
    options = Table(title="options (-o NAME=VALUE; the first value is the default)", title_justify="left")
    options.add_column("mode", style="cyan", no_wrap=True)
    options.add_column("NAME=VALUE", no_wrap=True)
    options.add_column("ruling")
    options.add_column("meaning")
    for mode, option in offered:
        options.add_row(mode.name.rpartition("/")[2], f"{option.name}={'|'.join(option.choices)}",
                        option.decision, option.summary)
    return options

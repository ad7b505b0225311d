"""`arena games`: the registered games and their modes."""

from __future__ import annotations

import typer
from rich.table import Table

from arena.cli.show import console, print_json
from arena.games.registry import families


def games(json_output: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the games and modes Arena can referee."""
    grouped = families()
    if json_output:
        data = []
        for family, modes in grouped.items():
            for mode in modes:
                info = mode.load().info
                data.append({
                    "name": mode.name, "family": family, "title": mode.title, "description": mode.description,
                    "seats": info.num_seats, "actions": info.num_actions, "options": info.options,
                    "choices": [option.to_json() for option in mode.choices],
                })
        print_json(data)
        return
    for family, modes in grouped.items():
        table = Table(title=f"{modes[0].title} ({family})", title_justify="left")
        table.add_column("name", style="bold cyan", no_wrap=True)
        table.add_column("seats", justify="right")
        table.add_column("actions", justify="right")
        table.add_column("mode")
        for mode in modes:
            info = mode.load().info
            table.add_row(mode.name, str(info.num_seats), str(info.num_actions), mode.description)
        console.print(table)
        offered = [(mode, option) for mode in modes for option in mode.choices]
        if offered:
            options = Table(title="options (-o NAME=VALUE; the first value is the default)", title_justify="left")
            options.add_column("mode", style="cyan", no_wrap=True)
            options.add_column("NAME=VALUE", no_wrap=True)
            options.add_column("ruling")
            options.add_column("meaning")
            for mode, option in offered:
                options.add_row(mode.name.rpartition("/")[2], f"{option.name}={'|'.join(option.choices)}",
                                option.decision, option.summary)
            console.print(options)
    console.print("A family name alone picks its first mode. Play one with: arena play NAME --games 3; "
                  "-o NAME=VALUE plays an option (its own rating pool).")

"""What every command shares: consoles, the one-line error, the results folder, game loading."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console

from arena.games.base import Game
from arena.games.registry import GameOptionError, UnknownGameError, load_game

PIPED_WIDTH = 120  # columns for tables written to a file or a pipe (rich would assume 80)


def _width(stream: Any) -> int | None:
    """None (rich asks the terminal, or reads COLUMNS) unless output goes to a file or a pipe."""
    if os.environ.get("COLUMNS") or stream.isatty():
        return None
    return PIPED_WIDTH


console = Console(highlight=False, width=_width(sys.stdout))
err_console = Console(stderr=True, highlight=False, width=_width(sys.stderr))

RESULTS_ENV = "ARENA_RESULTS"


class CliError(Exception):
    """A user-facing error: printed as one line, exit status `code`, never a traceback."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 1) -> NoReturn:
    """Stop the command with a one-line error."""
    raise CliError(message, code)


def results_dir() -> Path:
    """Where records and the default database live: $ARENA_RESULTS or ./results."""
    return Path(os.environ.get(RESULTS_ENV, "results"))


def open_game(name: str, options: dict[str, Any] | None = None) -> Game:
    """Load a registered game or fail with a one-line error."""
    try:
        return load_game(name, options)
    except (UnknownGameError, GameOptionError, ValueError) as error:
        fail(str(error), code=2)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """`key=value` strings -> options; values that parse as JSON (numbers, true) become those."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            fail(f"bad option {pair!r}: expected key=value", code=2)
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def print_json(data: Any) -> None:
    """Machine-readable output for --json: one JSON document on stdout."""
    print(json.dumps(data, indent=2, sort_keys=False))

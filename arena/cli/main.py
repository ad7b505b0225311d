"""The `arena` command: one module per command group, each with a `register(app)`."""

from __future__ import annotations

import sys
from typing import Sequence

import typer

from arena.cli import (
    analyse,
    bot,
    bot_test,
    games,
    ladder,
    leaderboard,
    match,
    play,
    preflights,
    replay,
    sandbox,
    serve,
    sprt,
    submissions,
    tournament,
    web,
    worker,
)
from arena.cli.common import CliError, err_console

app = typer.Typer(  # plain help (no boxes): it wraps long defaults and URLs instead of cutting them
    rich_markup_mode=None,
    name="arena",
    help="Arena: a referee for bot tournaments on strategy board games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (games, play, replay, analyse, tournament, ladder, leaderboard, bot, submissions, sprt, serve, match, worker,
               web, preflights, bot_test, sandbox):
    module.register(app)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runs the app; user errors are one line on stderr and a non-zero status."""
    try:
        result = app(args=list(argv) if argv is not None else None, prog_name="arena", standalone_mode=False)
    except CliError as error:
        err_console.print(f"arena: error: {error}", markup=False, soft_wrap=True)
        return error.code
    except (typer.Exit, SystemExit) as error:
        code = getattr(error, "exit_code", getattr(error, "code", 0))
        return int(code or 0)
    except typer.Abort:
        err_console.print("arena: aborted", markup=False)
        return 130
    except Exception as error:  # click usage errors, in whichever click typer ships
        if hasattr(error, "format_message") and hasattr(error, "exit_code"):
            if not error.format_message():  # e.g. help shown for a bare `arena`
                return int(error.exit_code)
            err_console.print(f"arena: error: {error.format_message()}", markup=False, soft_wrap=True)
            return int(error.exit_code)
        raise
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())

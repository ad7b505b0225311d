"""The `arena` command: one module per command group, each with a `register(app)`."""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

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

def _show_version(value: bool) -> None:
    if value:
        from arena import __version__
        from arena.rpc.convert import PROTOCOL_VERSION

        typer.echo(f"arena {__version__} (protocol arena.v{PROTOCOL_VERSION}, Python {sys.version.split()[0]})")
        raise typer.Exit()


@app.callback()
def _arena(version: bool = typer.Option(False, "--version", is_eager=True, callback=_show_version,
                                        help="Print Arena's version and exit.")) -> None:
    """Arena: a referee for bot tournaments on strategy board games."""


for module in (games, play, replay, analyse, tournament, ladder, leaderboard, bot, submissions, sprt, serve, match, worker,
               web, preflights, bot_test, sandbox):
    module.register(app)


_WORDS = {"int": "N", "int range": "N", "float": "NUMBER", "float range": "NUMBER", "str": "TEXT", "path": "PATH",
          "file": "FILE", "directory": "FOLDER", "bool": "BOOLEAN"}


def _word(label: str) -> str:
    """'<int range>' -> 'N', '<list[Path]>' -> 'PATH', '<a|b>' -> 'a|b': a value's kind in words."""
    bare = label.strip("<>")
    if bare.startswith("list[") and bare.endswith("]"):
        bare = bare[5:-1]
    if "|" in bare:
        return bare
    return _WORDS.get(bare.lower(), bare.upper())


def plain_help(command: Any) -> Any:
    """`command` (and its subcommands) with every value's metavar in words instead of the Python types typer
    shows (`<int range>`, `<list[Path]>`); an argument shows its name alone."""
    context = command.context_class(command)  # (typer's helpers describe a parameter within a context)
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument":  # its name says it: no type beside it
            param.display_type_rich = lambda ctx: None
        elif param.metavar is None and not getattr(param, "is_flag", False) and not getattr(param, "count", False) \
                and hasattr(param, "display_type"):
            param.metavar = _word(param.display_type(context))
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)
    return command


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runs the app; user errors are one line on stderr and a non-zero status."""
    try:
        command = plain_help(typer.main.get_command(app))
        result = command.main(args=list(argv) if argv is not None else None, prog_name="arena",
                              standalone_mode=False)
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
            if type(error).__name__ == "NoArgsIsHelpError":  # a bare `arena` or `arena bot`: the help, no error
                print(error.format_message())
                return 0
            err_console.print(f"arena: error: {error.format_message()}", markup=False, soft_wrap=True)
            return int(error.exit_code)
        raise
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point (output piped into a reader that stopped, as `| head` does, ends quietly)."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no second error at exit)
        code = 0
    sys.exit(code)

"""The `arena` command: a table of its top-level commands, each one's module imported only when that command
runs or its help is shown, so that `arena --version` and `arena --help` load no command at all."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandInfo

from arena import PROTOCOL_VERSION, __version__


@dataclass(frozen=True)
class Entry:
    """A top-level command: the module of arena.cli that declares it, the name it has there (a group's typer
    app, or a command's function), and the first line of its help, as `arena --help` lists it."""

    module: str
    attribute: str
    summary: str


COMMANDS: dict[str, Entry] = {  # in the order `arena --help` lists them (tests/cli/test_main.py checks them)
    "games": Entry("games", "games", "List the games and modes Arena can referee."),
    "play": Entry("play", "play", "Play local games between built-in agents and print the results."),
    "replay": Entry("replay", "replay", "Replay a record through the rules engine, checking every step, and draw "
                                        "the board, with the notes the bots left with their decisions; a bot that "
                                        "lost by its own fault is shown with its last output lines."),
    "analyse": Entry("analyse", "analyse", "Replay a match and, at each decision, estimate the mover's chance to win "
                                           "before and after its move and the best move a search finds from what "
                                           "the mover could see; mark the turning points."),
    "leaderboard": Entry("leaderboard", "leaderboard", "Bots ranked by TrueSkill's conservative score mu - 3 sigma, "
                                                       "one table per game mode."),
    "rerate": Entry("leaderboard", "rerate", "Recompute TrueSkill ratings and their history from every stored "
                                             "result, in the order played."),
    "login": Entry("owner", "login_command", "Keep your owner token for a server (a file only you may read), for "
                                             "`arena bot submit --server`."),
    "sprt": Entry("sprt", "sprt", "Is A stronger than B? A GSPRT over seat-swapped pairs (pentanomial), as fishtest "
                                  "runs it."),
    "serve": Entry("serve", "serve", "Run the referee server: bots connect over gRPC, matches start through the "
                                     "admin service."),
    "watch": Entry("serve", "watch", "Follow a match on a running referee, decision by decision, until it ends (the "
                                     "public view by default)."),
    "match": Entry("match", "match", "Play bot programs against each other through the referee and summarise the "
                                     "results."),
    "worker": Entry("worker", "worker", "Play the built-in agents' matches that `--broker` runs send, until Ctrl-C (a "
                                        "Celery worker)."),
    "web": Entry("web", "web", "Serve Arena's pages and JSON API over the results database; owners sign in to upload "
                               "bots (each pre-flighted in a worker process), retire versions and register remote "
                               "bots."),
    "preflights": Entry("preflights", "preflights", "Take uploaded bots from the database's queue and pre-flight "
                                                    "them, until stopped: with `arena web --preflight-workers 0`, so "
                                                    "that the web server need not write the bots' store."),
    "tournament": Entry("tournament", "app", "Round-robin, gauntlet, Swiss and knockout tournaments."),
    "ladder": Entry("ladder", "app", "The ladder: bots of a game mode paired continuously by match quality."),
    "bot": Entry("bot", "app", "Bots in the database: who they are and how they do."),
    "owner": Entry("owner", "app", "Owners: who may submit and retire which bot names on a shared server."),
    "sandbox": Entry("sandbox", "app", "The bot sandbox on this machine."),
    "help": Entry("main", "help_command", "Show Arena's help, or a command's: `arena help bot submit` is `arena bot "
                                          "submit --help`."),
    "version": Entry("main", "version_command", "Print Arena's version."),
}


def load_command(name: str) -> Any:
    """The click command (or group) `name` is, its module imported now, with its help in words (plain_help)."""
    entry = COMMANDS[name]
    declared = getattr(importlib.import_module(f"arena.cli.{entry.module}"), entry.attribute)
    if isinstance(declared, typer.Typer):
        command: Any = typer.main.get_group(declared)
    else:
        command = typer.main.get_command_from_info(CommandInfo(name=name, callback=declared),
                                                   pretty_exceptions_short=True, rich_markup_mode=None)
    command.name = name
    return plain_help(command)


class Commands(MutableMapping[str, Any]):
    """The top-level commands by name, in COMMANDS' order; a command's module is imported when the command is
    first looked up, never when the names are listed."""

    def __init__(self) -> None:
        self.loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.loaded:
            if name not in COMMANDS:
                raise KeyError(name)
            self.loaded[name] = load_command(name)
        return self.loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self.loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self.loaded

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self.loaded]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*COMMANDS, *self.loaded]))


class ArenaGroup(TyperGroup):
    """`arena`: its commands from the table, each imported when it runs; its help lists them from the table."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = Commands()  # (the table's: no command is registered on the typer app itself)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # (names only: nothing imported)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands with their table's summaries, cut to the width as click cuts a command's own help."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, TyperCommand(name=name, help=entry.summary).get_short_help_str(limit))
                for name, entry in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(  # plain help (no boxes): it wraps long defaults and URLs instead of cutting them
    cls=ArenaGroup,
    rich_markup_mode=None,
    name="arena",
    help="Arena: a referee for bot tournaments on strategy board games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # (every command's context inherits them)
)


def version_line() -> str:
    """'arena 0.1.0 (protocol arena.v1, Python 3.11.7)'."""
    return f"arena {__version__} (protocol arena.v{PROTOCOL_VERSION}, Python {sys.version.split()[0]})"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _arena(version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_show_version,
                                        help="Print Arena's version and exit.")) -> None:
    """Arena: a referee for bot tournaments on strategy board games."""


def version_command() -> None:
    """Print Arena's version."""
    typer.echo(version_line())


def help_command(ctx: typer.Context, words: Optional[list[str]] = typer.Argument(
        None, metavar="COMMAND", help="A command as you would type it: bot submit.")) -> None:
    """Show Arena's help, or a command's: `arena help bot submit` is `arena bot submit --help`."""
    context = ctx.find_root()
    for word in words or []:
        command = context.command
        if not isinstance(command, TyperGroup):
            context.fail(f"No such command {word!r}: `{context.command_path}` has no commands.")
        _name, found, _rest = command.resolve_command(context, [word])
        assert found is not None  # (no such command is a usage error, with its did-you-mean)
        context = found.context_class(found, info_name=word, parent=context)
    typer.echo(context.get_help())


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
    if not isinstance(command, ArenaGroup):  # (arena's own commands are made plain as they are imported)
        for sub in getattr(command, "commands", {}).values():
            plain_help(sub)
    return command


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: runs the app; user errors are one line on stderr and a non-zero status."""
    try:
        command = plain_help(typer.main.get_command(app))
        result = command.main(args=list(argv) if argv is not None else None, prog_name="arena",
                              standalone_mode=False)
    except (typer.Exit, SystemExit) as error:
        code = getattr(error, "exit_code", getattr(error, "code", 0))
        return int(code or 0)
    except typer.Abort:
        return _said("arena: aborted", 130)
    except Exception as error:
        return _failed(error)
    finally:
        settings = sys.modules.get("arena.cli.settings")  # (loaded by any command that opened a store)
        if settings is not None:
            settings.close_stores()
    return result if isinstance(result, int) else 0


def _failed(error: Exception) -> int:
    """Click's usage error, or a command's one-line error (CliError), as one line; anything else is raised."""
    if hasattr(error, "format_message") and hasattr(error, "exit_code"):  # click's, in whichever click typer ships
        if not error.format_message():  # e.g. help shown for a bare `arena`
            return int(error.exit_code)
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare `arena` or `arena bot`: the help, no error
            print(error.format_message())
            return 0
        return _said(f"arena: error: {error.format_message()}", int(error.exit_code))
    from arena.cli.show import CliError  # (here: `arena`, `--version` and `--help` import no command's floor)

    if isinstance(error, CliError):
        return _said(f"arena: error: {error}", error.code)
    store = sys.modules.get("arena.store.db")  # (loaded by any command that opened one)
    if store is not None and isinstance(error, store.StoreError):  # a store failing mid-command (its disk full)
        return _said(f"arena: error: {error}", 1)
    raise error


def _said(line: str, code: int) -> int:
    """`line` on stderr (as every string, shown: arena.cli.show's console); `code`."""
    from arena.cli.show import err_console  # (here: see _failed)

    err_console.print(line, markup=False, soft_wrap=True)
    return code


def run() -> None:
    """Console-script entry point (output piped into a reader that stopped, as `| head` does, ends quietly)."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no second error at exit)
        code = 0
    sys.exit(code)

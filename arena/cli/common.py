"""What every command shares: consoles, the one-line error, the results folder, game loading."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Optional

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from arena.games.base import Game
from arena.games.registry import GameOptionError, UnknownGameError, load_game
from arena.referee.evidence import shown
from arena.referee.players import REMOTE_VERSION

PIPED_WIDTH = 120  # columns for tables written to a file or a pipe (rich would assume 80)

if TYPE_CHECKING:
    from arena.rpc.manifest import BotManifest


def _width(stream: Any) -> int | None:
    """None (rich asks the terminal, or reads COLUMNS) unless output goes to a file or a pipe."""
    if os.environ.get("COLUMNS") or stream.isatty():
        return None
    return PIPED_WIDTH


class PlainConsole(Console):
    """A console on which every string is text: never markup (a bot's version `[/]x` neither crashes a command
    nor becomes a link), with its control characters, escape sequences and direction marks written out
    (arena.referee.evidence.shown). The one rule for what bots and owners write (names, versions, notes, output
    lines, labels), on every command. Arena's own styled lines are Text built by `styled`."""

    def render_str(self, text: str, **options: Any) -> Text:
        options["markup"] = False
        return super().render_str(shown(text), **options)


def versioned(name: str, version: str) -> str:
    """'greedy v3'; a remote bot (no versions of ours) 'alice-bot (remote)'; the name alone without a version."""
    if version == REMOTE_VERSION:
        return f"{name} (remote)"
    return f"{name} v{version}" if version else name


def styled(template: str, *values: object) -> Text:
    """One of Arena's own lines: `template` is Rich markup (Arena's, never a bot's) with a `{}` per value, and each
    value is put in as text (shown, its markup escaped): styled("[bold]{}[/bold] lost", name)."""
    if template.count("{}") != len(values):
        raise ValueError(f"{template!r} has {template.count('{}')} places for {len(values)} values")
    return Text.from_markup(template.replace("{", "{{").replace("}", "}}").replace("{{}}", "{}").format(
        *(escape(shown(str(value))) for value in values)))


def mark(text: str, style: str) -> Text:
    """A word of Arena's in a style (a table's pass/FAIL)."""
    return Text(text, style=style)


console = PlainConsole(highlight=False, markup=False, width=_width(sys.stdout))
err_console = PlainConsole(stderr=True, highlight=False, markup=False, width=_width(sys.stderr))

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


def load_bot_folder(path: Path) -> BotManifest:
    """The BotManifest of a bot's folder (or its bot.toml), or one line saying what is wrong: no such folder,
    a folder without a bot.toml, a bot.toml with problems (see docs/writing-a-bot.md)."""
    from arena.rpc.manifest import MANIFEST_NAME, ManifestError, load_manifest

    if not path.exists():
        fail(f"no such folder {path} (give the folder holding your bot's bot.toml)", code=2)
    if path.is_dir() and not (path / MANIFEST_NAME).is_file():
        found = sorted(entry.name for entry in path.iterdir())[:8]
        fail(f"no bot.toml in {path}: a bot's folder needs one (docs/writing-a-bot.md has one to start from)"
             + (f"; it holds {', '.join(found)}" if found else "; it is empty"), code=2)
    try:
        return load_manifest(path)
    except ManifestError as error:
        fail(str(error), code=2)


def command_line(*words: str, db: str | None = None) -> str:
    """A follow-up command to print, complete enough to paste: the words, quoted where needed, and the --db
    this command was given (the default database needs none)."""
    import shlex

    return " ".join(["arena", *(shlex.quote(word) for word in words if word)] +
                    (["--db", shlex.quote(db)] if db else []))


def read_token_file(path: Optional[Path | str], option: str) -> Optional[str]:
    """The token a file holds (None without a file); a one-line error if it cannot be read or is empty."""
    if path is None:
        return None
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as error:
        fail(f"cannot read {option} {path}: {error.strerror}", code=2)
    if len(token) < 16:
        fail(f"{option} {path} holds no token (at least 16 characters)", code=2)
    return token

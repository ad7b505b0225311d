"""A submitted bot's folder, checked before anything runs: every problem at once, each with its line.

The bot.toml must parse and hold valid fields (arena.rpc.manifest), its name must be free to take
(not a built-in player's), the games it lists must exist here, and the command must be runnable:
`{python}`, a program shipped in the folder, or one installed on this referee, with the scripts it
names present.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable

from arena.agents import AGENTS
from arena.games.registry import UnknownGameError, did_you_mean, families, game_modes, resolve
from arena.rpc.manifest import (KNOWN_KEYS, MANIFEST_NAME, BotManifest, manifest_from_data, manifest_problems,
                                manifest_text)
from arena.sandbox.environment import ENV_FIX, SYSTEM_PATH
from arena.submissions.archive import Problem

RESERVED_NAMES = frozenset({"builtin", "all", "none", "any"})
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".jar", ".lua", ".php", ".exe", ".wasm")
_TOML_LINE = re.compile(r"at line (\d+)")
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+|\"[^\"]*\")\s*=")
_LIMITS_KEY = re.compile(r"\[limits\] (?:has an unknown key ')?([a-z_]+)")
_TABLE_LINE = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")

FIXES = {
    "name": 'e.g. name = "my-bot"',
    "version": 'e.g. version = "2"',
    "command": 'e.g. command = ["{python}", "bot.py"]',
    "games": 'e.g. games = ["major-general"] or games = ["*"] (see `arena games`)',
    "env": "give every [env] value as a string, and leave the ARENA_* variables to the referee",
    "limits": "see docs/security.md for the limits a bot may ask for",
    "concurrency": "e.g. concurrency = 4",
    "sandbox": "remove it: the operator chooses the sandbox",
}


def key_lines(text: str) -> dict[str, int]:
    """Where each key of a bot.toml is written: top-level keys and [tables], by line number (from 1)."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE_LINE.match(line)
        if header:
            table = header.group(1)
            lines.setdefault(table.split(".")[0], number)
            continue
        key = _KEY_LINE.match(line)
        if key and not table:
            lines.setdefault(key.group(1).strip('"'), number)
        elif key and table:
            lines.setdefault(f"{table}.{key.group(1).strip(chr(34))}", number)
    return lines


def check_folder(folder: Path, own: bool = False) -> tuple[BotManifest | None, list[Problem]]:
    """The bot's manifest if the folder passes every check, and every problem found (`own`: one of Arena's
    own bot programs, whose names are the built-in players' by right)."""
    parsed = _parsed(folder / MANIFEST_NAME, folder)
    if isinstance(parsed, Problem):
        return None, [parsed]
    text, data = parsed
    at = _locator(key_lines(text))
    problems = _field_problems(data, at)
    problems += [] if own else _name_problems(data, at)
    problems += _game_problems(data, at)
    problems += _command_problems(data, folder, at)
    if problems:
        return None, problems
    return manifest_from_data(data, folder), []


def _parsed(source: Path, folder: Path) -> tuple[str, dict[str, Any]] | Problem:
    """The bot.toml's text and data, or why there are none (missing, unreadable, not TOML)."""
    if not source.is_file() or source.is_symlink():
        found = sorted(path.name for path in folder.iterdir())[:10] if folder.is_dir() else []
        return Problem("bot.toml", "missing: a bot needs a bot.toml at the top of its folder" +
                       (f" (found: {', '.join(found)})" if found else ""),
                       "see docs/writing-a-bot.md for a bot.toml to start from")
    try:
        text = manifest_text(source.read_bytes())
    except (OSError, UnicodeDecodeError) as error:
        return Problem("bot.toml", f"cannot be read: {error}", "save it as UTF-8 text")
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = _TOML_LINE.search(str(error))
        where = f"bot.toml:{line.group(1)}" if line else "bot.toml"
        return Problem(where, f"not valid TOML: {error}", 'write key = "value" pairs, strings in quotes')


def _locator(lines: dict[str, int]) -> Callable[[str], str]:
    """Where a key is written ("bot.toml:LINE", its table's line for a key of a table, else "bot.toml")."""
    def at(key: str) -> str:
        line = lines.get(key) or lines.get(key.split(".")[0])
        return f"bot.toml:{line}" if line else "bot.toml"
    return at


def _field_problems(data: dict[str, Any], at: Callable[[str], str]) -> list[Problem]:
    """The manifest's problems (arena.rpc.manifest), each with its line and fix; a missing name or command
    said so."""
    problems = []
    for key, message in manifest_problems(data):
        table_key = _LIMITS_KEY.match(message)
        where = at(f"limits.{table_key.group(1)}") if key == "limits" and table_key else at(key)
        problems.append(Problem(where, message, _fix(key, message)))
    if "name" not in data:
        problems = [p for p in problems if not p.message.startswith("name must")]
        problems.insert(0, Problem("bot.toml", "name is missing", FIXES["name"]))
    if "command" not in data:
        problems = [p for p in problems if not p.message.startswith("command must")]
        problems.append(Problem("bot.toml", "command is missing: how to start the bot", FIXES["command"]))
    return problems


def _fix(key: str, message: str) -> str:
    """What to do about a manifest problem with `key`."""
    top = key.split(".")[0]
    if top not in KNOWN_KEYS:
        return "remove it, or correct its spelling"
    return ENV_FIX if key.startswith("env.") and "loaded or started" in message else FIXES.get(top, "")


def declared_games(games: tuple[str, ...] | list[str]) -> list[str]:
    """The game modes a pre-flight plays for a bot's `games`: each mode named, the default mode of each
    family named, and for '*' the default mode of every family."""
    modes: list[str] = []
    for entry in games:
        names = [family[0].name for family in families().values()] if entry == "*" else [resolve(entry).name]
        for name in names:
            if name not in modes:
                modes.append(name)
    return modes


def _name_problems(data: dict[str, Any], at: Callable[[str], str]) -> list[Problem]:
    name = data.get("name")
    if not isinstance(name, str):
        return []
    if name in AGENTS or name in RESERVED_NAMES:
        return [Problem(at("name"), f"{name!r} is the name of a built-in player" if name in AGENTS else
                        f"{name!r} is a reserved word", "pick a name of your own, e.g. " + f'name = "{name}-bot"')]
    return []


def _game_problems(data: dict[str, Any], at: Callable[[str], str]) -> list[Problem]:
    games = data.get("games", ["*"])
    if not isinstance(games, list):
        return []
    problems = []
    for game in games:
        if not isinstance(game, str) or game == "*" or not game:
            continue
        try:
            resolve(game)
        except UnknownGameError:
            known = ", ".join(sorted(families()))
            names = [*families(), *(mode.name for mode in game_modes())]
            problems.append(Problem(at("games"), f"no game {game!r} here{did_you_mean(game, names)}",
                                    f"list modes or families that `arena games` shows (families: {known}), or '*'"))
    return problems


def _command_problems(data: dict[str, Any], folder: Path, at: Callable[[str], str]) -> list[Problem]:
    """The command's problems: its program's, then the scripts' it names (none when it is neither a list of
    strings nor one command line: the manifest's checks say so)."""
    command = _command_parts(data.get("command"))
    if command is None:
        return []
    return _program_problems(command[0], folder, at) + _argument_problems(command[1:], folder, at)


def _command_parts(command: Any) -> list[str] | None:
    """The command as a non-empty list of strings (one command line split as a shell would), else None."""
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError:
            return None
    if not isinstance(command, list) or not command or not all(isinstance(part, str) for part in command):
        return None
    return command


def _program_problems(program: str, folder: Path, at: Callable[[str], str]) -> list[Problem]:
    """Why the command's program would not run, if it would not: it must be {python}, a program shipped (and
    executable) in the folder when it is a path, else one installed on this referee."""
    if program == "{python}":
        return []
    local = program.replace("{dir}/", "").replace("{dir}", "")
    if "/" in program or program.startswith("."):
        path = folder / local
        if not path.is_file():
            return [Problem(at("command"), f"the program {program!r} is not in the folder",
                            "ship it in the bot's folder, or fix the path (relative to the folder)")]
        if not os.access(path, os.X_OK):
            return [Problem(at("command"), f"the program {program!r} is not executable",
                            f"chmod +x {local} before packing")]
    elif shutil.which(program, path=f"{Path(sys.executable).parent}:{SYSTEM_PATH}") is None:
        return [Problem(at("command"), f"the program {program!r} is not installed on this referee",
                        "use {python} for Python bots, or ship a program in the folder")]
    return []


def _argument_problems(arguments: list[str], folder: Path, at: Callable[[str], str]) -> list[Problem]:
    """The scripts the command's arguments name (by suffix or path; not options or {placeholders}) that are not
    in the folder."""
    problems = []
    for argument in arguments:
        if argument.startswith("-") or "{" in argument:
            continue
        if argument.endswith(SCRIPT_SUFFIXES) or "/" in argument:
            if not (folder / argument).exists():
                problems.append(Problem(at("command"), f"the command names {argument!r}, which is not in the folder",
                                        "ship it, or fix the name (paths are relative to the bot's folder)"))
    return problems

"""Bot manifests: `bots/<name>/bot.toml` says how to run a local bot program.

The built-in bot programs ship inside the package (arena.bots.BUILTIN_BOTS) so a referee finds them
wherever Arena is installed; a folder of the same name in a --bots folder takes their place.

    name = "random"                     # registered name: lowercase letters, digits, - _ .
    version = "1"                       # recorded with every match
    command = ["{python}", "bot.py"]    # argv, run in the bot's folder; {python} = this Python
    games = ["*"]                       # game names or families it plays; "*" = any
    description = "uniformly random legal actions"   # optional
    concurrency = 1                     # optional: matches one process may play at once (1..64)
    [env]                               # optional extra environment variables
    MY_SETTING = "1"
    [limits]                            # optional; capped by the referee (arena.sandbox.limits)
    memory_mb = 1024

The referee runs the command in a sandbox (arena.sandbox.launch) with ARENA_SERVER (the referee's
socket, `unix:...`), ARENA_TOKEN_FILE (a file holding the one-time launch token), ARENA_BOT_NAME
and ARENA_CONCURRENCY in its environment; the program connects back and says Hello with that
token. With `concurrency = N` the referee seats up to N matches at a time on one process, one
stream each (the SDK opens N streams, one agent per stream). How the bot is sandboxed is the
operator's choice, never the manifest's.
"""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from arena.referee.evidence import shown
from arena.sandbox.environment import env_problems
from arena.sandbox.limits import DEFAULT_LIMITS, Limits, limits_from_table

MANIFEST_NAME = "bot.toml"
BOT_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
#: A version: letters, digits and . _ + - (no spaces, no brackets, no control characters), starting with a letter
#: or a digit, at most 32 characters: "1", "2.0.1", "v3-beta+build.7". The same rule for bot.toml and a Hello.
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,31}\Z")
VERSION_RULE = ("version must be letters, digits and . _ + - (no spaces or brackets), starting with a letter or a "
                "digit, at most 32 characters: e.g. \"2\", \"2.0.1\" or \"v3-beta\"")
MAX_CONCURRENCY = 64  # matches one bot process may play at once
KNOWN_KEYS = frozenset({"name", "version", "command", "games", "description", "env", "concurrency", "owner", "limits",
                        "sandbox"})


class ManifestError(ValueError):
    """A bot.toml that is missing, unreadable or incomplete."""


@dataclass(frozen=True)
class BotManifest:
    """How to run one local bot program."""

    name: str
    version: str
    command: tuple[str, ...]
    games: tuple[str, ...]
    directory: Path
    description: str = ""
    env: dict[str, str] = field(default_factory=dict)
    concurrency: int = 1  # matches one process plays at once, one stream each
    owner: str = ""  # who answers for the bot (shown by `arena bot show`)
    limits: Limits = DEFAULT_LIMITS  # as asked; the referee caps them

    def plays(self, game_name: str, family: str) -> bool:
        """True when the manifest lists the game, its family, or '*'."""
        return "*" in self.games or game_name in self.games or family in self.games

    def argv(self, directory: str | None = None) -> list[str]:
        """The command with {python} and {dir} (the bot's folder, or `directory`) filled in."""
        where = str(self.directory) if directory is None else directory
        return [part.replace("{python}", sys.executable).replace("{dir}", where) for part in self.command]


def read_manifest_text(path: str | Path) -> tuple[Path, str]:
    """(the bot.toml's path, its text) for a bot.toml or the folder holding one; ManifestError if unreadable."""
    source = Path(path)
    if source.is_dir():
        source = source / MANIFEST_NAME
    try:
        return source, manifest_text(source.read_bytes())
    except FileNotFoundError:
        raise ManifestError(f"no bot manifest at {source}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(f"cannot read {source}: {error}") from None


def manifest_text(raw: bytes) -> str:
    """A bot.toml's text: UTF-8, a byte-order mark (as some editors write) dropped; CRLF lines are TOML's own.
    UnicodeDecodeError if it is not UTF-8."""
    return raw.decode("utf-8").removeprefix("\ufeff")


def parse_manifest(source: Path, text: str) -> dict[str, Any]:
    """The parsed bot.toml; ManifestError if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{source}: not valid TOML ({error})") from None


def _has_controls(text: str) -> bool:
    return shown(text) != text


Problems = list[tuple[str, str]]  # (the key a problem is about, what is wrong)


def manifest_problems(data: dict[str, Any]) -> Problems:
    """Every problem of a parsed bot.toml, as (the key it is about, what is wrong)."""
    return [problem for check in _CHECKS for problem in check(data)]


def _unless(ok: bool, key: str, message: str) -> Problems:
    return [] if ok else [(key, message)]


def _is_short_text(value: object, limit: int) -> bool:
    return isinstance(value, str) and len(value) <= limit and not _has_controls(value)


def _name_problems(data: dict[str, Any]) -> Problems:
    name = data.get("name")
    return _unless(isinstance(name, str) and bool(BOT_NAME.match(name)), "name",
                   "name must be lowercase letters, digits, '-', '_' or '.', starting with a letter or digit "
                   "(at most 64)")


def _version_problems(data: dict[str, Any]) -> Problems:
    version = data.get("version", "1")
    return _unless(isinstance(version, (str, int, float)) and not isinstance(version, bool)
                   and bool(VERSION.match(str(version))), "version", VERSION_RULE)


def _description_problems(data: dict[str, Any]) -> Problems:
    return _unless(_is_short_text(data.get("description", ""), 500), "description",
                   "description must be text of at most 500 characters, with no control characters or direction "
                   "marks")


def _command_of(data: dict[str, Any]) -> Any:
    """bot.toml's command as a list when it is one command line; as written otherwise."""
    command = data.get("command")
    return shlex.split(command) if isinstance(command, str) else command


def _games_of(data: dict[str, Any]) -> Any:
    """bot.toml's games as written (every game when absent)."""
    return data.get("games", ["*"])


def _command_problems(data: dict[str, Any]) -> Problems:
    command = _command_of(data)
    return _unless(isinstance(command, list) and 0 < len(command) <= 256
                   and all(isinstance(p, str) and "\x00" not in p and len(p) <= 4096 for p in command),
                   "command", "command must be a non-empty list of strings (or one command line)")


def _games_problems(data: dict[str, Any]) -> Problems:
    games = _games_of(data)
    if isinstance(games, str):
        return [("games", f"games must be a list, in brackets: games = [{games[:64]!r}]".replace("'", '"'))]
    return _unless(isinstance(games, list) and 0 < len(games) <= 100
                   and all(_is_short_text(g, 100) and g for g in games),
                   "games", "games must list game names or families (at most 100), or '*'")


def _env_problems(data: dict[str, Any]) -> Problems:
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        return [("env", "[env] values must be strings")]
    return [(f"env.{variable}", f"[env] may not set {problem}") for variable, problem in env_problems(env)]


def _limits_problems(data: dict[str, Any]) -> Problems:
    _limits, limit_problems = limits_from_table(data.get("limits"))
    return [("limits", problem) for problem in limit_problems]


def _concurrency_problems(data: dict[str, Any]) -> Problems:
    concurrency = data.get("concurrency", 1)
    return _unless(not isinstance(concurrency, bool) and isinstance(concurrency, int)
                   and 1 <= concurrency <= MAX_CONCURRENCY, "concurrency",
                   f"concurrency must be a whole number from 1 to {MAX_CONCURRENCY}")


def _owner_problems(data: dict[str, Any]) -> Problems:
    return _unless(_is_short_text(data.get("owner", ""), 200), "owner",
                   "owner must be text of at most 200 characters, with no control characters or direction marks")


def _sandbox_problems(data: dict[str, Any]) -> Problems:
    return _unless("sandbox" not in data, "sandbox",
                   "sandbox is the referee operator's choice (arena serve --sandbox), not a bot's")


def _unknown_key_problems(data: dict[str, Any]) -> Problems:
    return [(key, f"unknown key {key!r} (known: {', '.join(sorted(KNOWN_KEYS - {'sandbox'}))})")
            for key in sorted(set(data) - KNOWN_KEYS)]


_CHECKS: tuple[Callable[[dict[str, Any]], Problems], ...] = (
    _name_problems, _version_problems, _description_problems, _command_problems, _games_problems, _env_problems,
    _limits_problems, _concurrency_problems, _owner_problems, _sandbox_problems, _unknown_key_problems)


def manifest_from_data(data: dict[str, Any], directory: Path) -> BotManifest:
    """The manifest of parsed bot.toml data that has no problems (see `manifest_problems`)."""
    limits, _problems = limits_from_table(data.get("limits"))
    return BotManifest(name=data["name"], version=str(data.get("version", "1")), command=tuple(_command_of(data)),
                       games=tuple(_games_of(data)), directory=directory.resolve(),
                       description=str(data.get("description", "")), env=dict(data.get("env", {})),
                       concurrency=int(data.get("concurrency", 1)), owner=str(data.get("owner", "")), limits=limits)


def load_manifest(path: str | Path) -> BotManifest:
    """Read and check one bot.toml (or the bot.toml inside a folder)."""
    source, text = read_manifest_text(path)
    data = parse_manifest(source, text)
    problems = manifest_problems(data)
    if problems:
        raise ManifestError(f"{source}: " + "; ".join(message for _key, message in problems))
    return manifest_from_data(data, source.parent)


def served_as(manifest: BotManifest, key: str) -> BotManifest:
    """The manifest under an alias `name@key`, so that versions of one bot can be served side by side
    (a launched bot may say Hello with either name)."""
    from dataclasses import replace

    return replace(manifest, name=f"{manifest.name}@{key}")


def discover_manifests(directories: Iterable[str | Path], unavailable: list[str] | None = None,
                       ambiguous: dict[str, list[Path]] | None = None) -> dict[str, BotManifest]:
    """Every <dir>/<bot>/bot.toml under the given folders, by bot name (a name may appear once). A folder that
    is itself a bot's (named on purpose) wins over a bot of the same name found in a folder of bots (say,
    `arena match GAME ./my-copy random` beside a ./bots/ holding the original); two named folders conflict.
    A bad bot.toml is a ManifestError, or, given `unavailable`, what is wrong with it is added there and the
    other bots are still found. Two bots of one name found by looking (a copied folder not yet renamed) are a
    ManifestError, or, given `ambiguous`, both are left out and their folders kept there under the name."""
    found: dict[str, BotManifest] = {}
    named: set[str] = set()  # names of bots whose own folder was given
    clashes: dict[str, list[Path]] = {}  # names two bots found by looking bear: their folders
    for directory in directories:
        root = Path(directory)
        single = (root / MANIFEST_NAME).is_file()
        paths = [root / MANIFEST_NAME] if single else sorted(root.glob(f"*/{MANIFEST_NAME}"))
        for path in paths:
            manifest = _loaded(path, unavailable)
            if manifest is None:
                continue
            if single:
                _add_named(found, named, manifest)
                clashes.pop(manifest.name, None)  # the bot named by its folder is the one meant
            elif manifest.name not in named:  # (else the bot named by its folder stays)
                _add_found(found, clashes, manifest)
    _settle_clashes(clashes, ambiguous)
    return found


def _loaded(path: Path, unavailable: list[str] | None) -> BotManifest | None:
    """The manifest at `path`; None when it is bad and `unavailable` is given (what is wrong is added there)."""
    try:
        return load_manifest(path)
    except ManifestError as error:
        if unavailable is None:
            raise
        unavailable.append(str(error))
        return None


def _settle_clashes(clashes: dict[str, list[Path]], ambiguous: dict[str, list[Path]] | None) -> None:
    """Bots of one name found by looking: a ManifestError for the first, or, given `ambiguous`, kept there."""
    if clashes and ambiguous is None:
        name, folders = next(iter(clashes.items()))
        raise ManifestError(name_clash(name, folders))
    if ambiguous is not None:
        ambiguous.update(clashes)


def name_clash(name: str, folders: Sequence[Path]) -> str:
    """What is wrong when bots in `folders` all bear `name`."""
    listed = ", ".join(str(folder) for folder in folders[:-1]) + f" and {folders[-1]}"
    return f"two bots are named {name!r}: {listed}"


def _add_named(found: dict[str, BotManifest], named: set[str], manifest: BotManifest) -> None:
    """A bot whose own folder was given: it replaces a bot of its name found by looking, not another named one."""
    earlier = found.get(manifest.name)
    if earlier is not None and earlier.directory != manifest.directory and manifest.name in named:
        raise ManifestError(name_clash(manifest.name, [earlier.directory, manifest.directory]))
    found[manifest.name] = manifest
    named.add(manifest.name)


def _add_found(found: dict[str, BotManifest], clashes: dict[str, list[Path]], manifest: BotManifest) -> None:
    """A bot found in a folder of bots: kept, unless another bears its name (then neither is, and both are
    written down in `clashes`)."""
    if manifest.name in clashes:
        if manifest.directory not in clashes[manifest.name]:  # (a folder of bots given twice)
            clashes[manifest.name].append(manifest.directory)
        return
    earlier = found.get(manifest.name)
    if earlier is not None and earlier.directory != manifest.directory:
        clashes[manifest.name] = [earlier.directory, manifest.directory]
        del found[manifest.name]
        return
    found[manifest.name] = manifest

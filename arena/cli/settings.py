"""What commands set up before they run, each with a one-line error where it cannot be: the results folder, the
database and games, bots (their folders and specs), the sandbox and the operator's config file, tokens, where
matches play, Ctrl-C, and the background analyser."""

from __future__ import annotations

import os
import signal
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Optional

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from arena.analysis import Budget
from arena.analysis.background import BackgroundAnalyser
from arena.cli.options import ADMIN_TOKEN_FILE
from arena.cli.show import err_console, fail, print_problems
from arena.games.base import Game
from arena.games.registry import GameOptionError, UnknownGameError, load_game, resolve
from arena.paths import BUILTIN_BOTS
from arena.ratings.pools import pool_for
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.players import PlayerKind
from arena.rpc.manifest import MANIFEST_NAME, BotManifest, ManifestError, load_manifest
from arena.sandbox import DEFAULT_CAPS, SandboxSettings, SandboxUnavailable, quick_check
from arena.sandbox.limits import parse_limit_settings
from arena.store import Store, StoreError, resolve_url
from arena.store.db import database_name, describe
from arena.tournament.bots import BotSpec, BotSpecError, builtin_bots, parse_bots
from arena.tournament.service import PlaySettings

RESULTS_ENV = "ARENA_RESULTS"


def results_dir() -> Path:
    """Where records and the default database live: $ARENA_RESULTS or ./results."""
    return Path(os.environ.get(RESULTS_ENV, "results"))


# --- the database and games -----------------------------------------------------------------------------

def open_store(db: Optional[str], *, create: bool = False, read_only: bool = False) -> Store:
    """Open (and migrate) the database or fail with one line naming it and the problem, the file left as it
    is. Only commands that store new things `create` a database; `read_only` ones wait at most 5 s for a
    lock another program holds."""
    url = resolve_url(db, results_dir())
    if db is not None and _has_password(db):
        err_console.print("arena: warning: the database password is on the command line, where every user of this "
                          "machine can read it (ps); give the URL in ARENA_DB instead", markup=False, soft_wrap=True)
    try:
        store = Store.open(url, create=create, busy_timeout_s=5.0 if read_only else 60.0)
    except StoreError as error:
        fail(str(error), code=2)
    except DBAPIError as error:
        fail(describe(error, url))
    _OPENED.append(store)
    return store


_OPENED: list[Store] = []  # the stores this process's commands opened (open_store), until close_stores()


def close_stores() -> None:
    """Release every store a command opened, as `arena`'s main() returns: its connections closed then (SQLite's
    -wal and -shm files gone with the last), not whenever the garbage collector comes to them."""
    while _OPENED:
        _OPENED.pop().close()


def _has_password(url: str) -> bool:
    try:
        return bool(make_url(url).password)
    except ArgumentError:
        return False


def record_bytes(source: str, db: str | None) -> tuple[str, bytes, int | None]:
    """(what to call it, its bytes, the stored match's id or None for a file) of a record file, or else of a
    stored match by id or uid."""
    path = Path(source)
    try:
        return source, path.read_bytes(), None
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        fail(f"{source} is a folder: give a record file (.jsonl or .jsonl.gz) or a stored match's id")
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror}")
    url = resolve_url(db, results_dir())
    no_database = url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file()
    if not (source.isascii() and source.isalnum()) or no_database:  # not a match id or uid, or nowhere to look
        fail(f"no such record file: {source}")
    store = open_store(db, read_only=True)
    try:
        found = store.matches.get(source)
        if found is None:
            fail(f"no such record file, and no stored match {source!r} in {database_name(url)}")
        return f"match {found.id}", store.matches.record(found), found.id
    finally:
        store.close()


def open_game(name: str, options: dict[str, Any] | None = None) -> Game:
    """Load a registered game or fail with a one-line error (an -o that would make it another mode too)."""
    try:
        game = load_game(name, options)  # (a value no mode has is named as such first)
        _refuse_another_mode(name, options or {})
        return game
    except (UnknownGameError, GameOptionError, ValueError) as error:
        fail(str(error), code=2)


def _refuse_another_mode(name: str, options: dict[str, Any]) -> None:
    """GameOptionError where an -o sets what the named mode fixes (its mode, its scenario) to something else: that
    is another mode, which is named, stored and rated as itself."""
    mode = resolve(name)
    for key, value in options.items():
        if key in mode.options and value != mode.options[key]:
            raise GameOptionError(f"{mode.name} is played with {key}={mode.options[key]}; for {key}={value} name "
                                  "that mode instead (see `arena games`)")


def pools_for(store: Store, game: str | None) -> list[str]:
    """The pools a GAME argument names (all stored pools when absent)."""
    if game is None:
        return store.ratings.pools()
    if game in store.ratings.pools():
        return [game]
    try:
        return [pool_for(game)]
    except UnknownGameError as error:
        fail(str(error), code=2)


# --- bots ----------------------------------------------------------------------------------------------

def load_bot_folder(path: Path) -> BotManifest:
    """The BotManifest of a bot's folder (or its bot.toml), or one line saying what is wrong: no such folder,
    a folder without a bot.toml, a bot.toml with problems (see docs/writing-a-bot.md)."""
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


def checked_bot_folder(path: Path) -> BotManifest:
    """The BotManifest of a bot's folder (or its bot.toml) checked as `arena bot submit` checks it (every
    problem printed on a line of its own, with its line in bot.toml and the fix), or a one-line error."""
    folder = path.parent if path.is_file() else path
    if not path.exists() or (path.is_dir() and not (path / MANIFEST_NAME).is_file()):
        load_bot_folder(path)  # (says what is missing, in one line)
    from arena.submissions.checks import check_folder  # (the submissions package is heavy: only where needed)

    manifest, problems = check_folder(folder, own=folder.resolve().is_relative_to(BUILTIN_BOTS.resolve()))
    if manifest is None:
        print_problems(problems, folder / MANIFEST_NAME, err_console)
        fail(f"{folder / MANIFEST_NAME}: {len(problems)} problem(s), each above with its fix "
             "(docs/writing-a-bot.md has a bot.toml to start from)", code=2)
    return manifest


def folder_problems(folder: Path) -> str:
    """What `arena bot submit`'s checks find wrong with a bot's folder, on one line ("" when nothing)."""
    from arena.submissions.checks import check_folder

    _manifest, problems = check_folder(folder, own=True)
    return "; ".join(f"{folder / problem.where}: {problem.message}" for problem in problems)


def check_bot_dirs(folders: Optional[list[Path]]) -> None:
    """Fail with one line if a --bots folder named on the command line does not exist."""
    for folder in folders or []:
        if not folder.is_dir():
            fail(f"no bot folder {folder} (--bots names a folder of <name>/bot.toml)", code=2)


def resolve_bots(text: str, game: Game | None = None) -> list[BotSpec]:
    """--bots: comma-separated specs; 'builtin' stands for every built-in agent that can play `game`,
    with demo budgets."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    specs: list[BotSpec] = []
    try:
        for part in parts:
            specs.extend(builtin_bots(game) if part == "builtin" else parse_bots(part))
    except BotSpecError as error:
        fail(str(error), code=2)
    _refuse_twice_entered(specs)
    return specs


def _refuse_twice_entered(specs: list[BotSpec]) -> None:
    """A one-line error where two specs enter one bot, with the NAME=SPEC way to name them apart."""
    names = [bot.name for bot in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        spec = next(bot.spec for bot in specs if bot.name == duplicates[0])
        fail(f"bot(s) entered twice: {', '.join(duplicates)}; name copies apart (NAME=SPEC), e.g. a={spec} and "
             f"b={spec}", code=2)


# --- the sandbox and the operator's config ------------------------------------------------------------

def sandbox_settings(mode: Optional[str], read_only: Optional[list[Path]] = None, bot_env: Optional[list[str]] = None,
                     caps: Optional[list[str]] = None, config: Optional[dict[str, Any]] = None) -> SandboxSettings:
    """SandboxSettings from the command line over the operator's config file, or a one-line error."""
    section = dict((config or {}).get("sandbox", {}))
    env = _sandbox_env(section, bot_env)
    cap_entries = [f"{k}={v}" for k, v in section.get("limit_caps", {}).items()] + list(caps or [])
    try:
        settings = SandboxSettings(
            mode=mode or section.get("mode", "bwrap"),
            read_only_paths=tuple(Path(p) for p in [*section.get("read_only_paths", []), *(read_only or [])]),
            caps=parse_limit_settings(cap_entries, DEFAULT_CAPS), env=env,
            cgroup_root=Path(section["cgroup_root"]) if section.get("cgroup_root") else None)
    except (ValueError, TypeError) as error:
        fail(str(error), code=2)
    _check_read_only_paths(settings.read_only_paths)
    if settings.mode == "none":
        err_console.print("warning: bot programs run WITHOUT a sandbox (--sandbox none): only for bots you trust",
                          soft_wrap=True)
    return settings


def _sandbox_env(section: dict[str, Any], bot_env: Optional[list[str]]) -> dict[str, str]:
    """The variables bot programs get: the config file's [sandbox] env, then --bot-env NAME=VALUE over it."""
    env = {str(k): str(v) for k, v in section.get("env", {}).items()}
    for entry in bot_env or []:
        key, sep, value = entry.partition("=")
        if not sep or not key:
            fail(f"bad --bot-env {entry!r}: expected NAME=VALUE", code=2)
        env[key] = value
    return env


def _check_read_only_paths(paths: Sequence[Path]) -> None:
    """Fail with one line if a path every sandbox may read (--sandbox-ro, or the config's) does not exist."""
    for path in paths:
        if not path.exists():
            fail(f"no such path {path} (--sandbox-ro names folders every sandbox may read)", code=2)


def check_sandbox_here(settings: SandboxSettings) -> None:
    """Fail with one line when bot programs cannot be launched in this sandbox here."""
    try:
        quick_check(settings)
    except SandboxUnavailable as error:
        fail(str(error), code=2)


def checked_sandbox(mode: Optional[str], bot_env: Optional[list[str]] = None) -> SandboxSettings:
    """The sandbox bot programs run in, checked here (one line if they cannot be launched in it)."""
    settings = sandbox_settings(mode, bot_env=bot_env)
    check_sandbox_here(settings)
    return settings


def read_operator_config(path: Optional[Path]) -> dict[str, Any]:
    """The referee operator's TOML file (`arena serve --config`), or a one-line error."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        fail(f"cannot read {path}: {error.strerror}", code=2)
    except tomllib.TOMLDecodeError as error:
        fail(f"{path}: not valid TOML ({error})", code=2)
    known = {"sandbox", "admin", "tls", "idle_timeout_s"}
    unknown = sorted(set(data) - known)
    if unknown:
        fail(f"{path}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})", code=2)
    return data


def play_settings(concurrency: int | None, broker: str | None, queue: str, sandbox: str | None,
                  kinds: set[PlayerKind], limits: AgentLimits = DEFAULT_LIMITS) -> PlaySettings:
    """Where the matches play; the sandbox is checked (one line if it cannot run) when bot programs enter."""
    settings = checked_sandbox(sandbox) if PlayerKind.PROGRAM in kinds else None
    return PlaySettings(concurrency=concurrency, broker=broker, queue=queue, sandbox=settings, limits=limits)


# --- tokens --------------------------------------------------------------------------------------------

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


def client_admin_token(token: Optional[str], token_file: Optional[Path]) -> Optional[str]:
    """The admin token for a client: given, else read from the file (default results/admin-token)."""
    if token:
        return token
    path = token_file or results_dir() / ADMIN_TOKEN_FILE
    try:
        return path.read_text().strip() or None
    except FileNotFoundError:
        if token_file is not None:
            fail(f"no admin token file {token_file}", code=2)
        return None
    except OSError as error:
        fail(f"cannot read the admin token file {path}: {error.strerror}", code=2)


# --- while a run runs ----------------------------------------------------------------------------------

class StopRequest:
    """Ctrl-C (or SIGTERM, as `docker stop` sends) once: finish the matches in flight, store them, stop.
    Twice: stop at once."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        """The handlers in place for the block (none off the main thread)."""
        def handler(_number: int, _frame: FrameType | None) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True
            err_console.print("arena: stopping after the matches in flight (Ctrl-C again to abort)")

        previous = {}
        try:
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.getsignal(signum)
                signal.signal(signum, handler)
        except ValueError:  # not the main thread (tests): no handler
            yield self
            return
        try:
            yield self
        finally:
            for signum, action in previous.items():
                signal.signal(signum, action)


@contextmanager
def background_analyser(budget: Budget | None, tournaments: Sequence[int], db: str | None,
                        quiet: bool = False, drain: bool = True) -> Iterator[None]:
    """With a budget: the analyser process (arena.analysis.background) runs beside the block; after it, it
    analyses what is left and exits (Ctrl-C stops it: the rest waits for `arena analyse`); without `drain` (a
    service that was asked to stop) it stops at once, and the next start analyses the rest."""
    if budget is None or not tournaments:
        yield
        return
    analyser = BackgroundAnalyser(resolve_url(db, results_dir()), tournaments, budget, quiet=quiet)
    analyser.start()
    try:
        yield
    except BaseException:
        analyser.stop()
        raise
    if not drain:
        analyser.stop()
        return
    if not analyser.finish(timeout=0.5):
        if not quiet:
            err_console.print("analysing the matches left (Ctrl-C leaves them to `arena analyse --tournament "
                              "NAME`)...")
        try:
            analyser.finish()
        except KeyboardInterrupt:
            analyser.stop()
            raise

"""Who plays: bot specs on the command line, their identity in the store, and the built-in field.

A spec is a built-in agent ("random", "mcts:iterations=200"), optionally named ("fast=mcts:iterations=50"),
or a bot program's directory ("bots/my-bot", played through the referee). Agents with different
parameters are different bots. A built-in agent's artifact hash covers its spec, its class and
version and the Arena version; a program's covers the files of its directory.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena import __version__
from arena.agents import AGENTS, UnknownAgentError, agent_name, make_agent, parse_agent_spec
from arena.games.base import Game
from arena.referee.players import PlayerKind
from arena.store.rows import BotIdentity

# Search budgets the demo turns down so a field of built-in bots plays a game in seconds: the first
# of these an agent's constructor accepts is set (an agent may instead define `demo_params`).
DEMO_BUDGETS: tuple[tuple[str, Any], ...] = (
    ("iterations", 20), ("seconds", 0.01), ("simulations", 5), ("playouts", 5), ("time_limit", 0.01),
)


class BotSpecError(ValueError):
    """A bot spec names no built-in agent and no bot program."""


@dataclass(frozen=True)
class BotSpec:
    """A bot as entered in a tournament: its name and how to make it."""

    name: str
    spec: str
    kind: PlayerKind = PlayerKind.AGENT  # AGENT (in-process, by spec) or PROGRAM (a directory, through the referee)

    def identity(self) -> BotIdentity:
        """Name, version and artifact hash for the store."""
        if self.kind is PlayerKind.PROGRAM:
            version, owner = _program_version_and_owner(Path(self.spec))
            return BotIdentity(self.name, version, _directory_hash(Path(self.spec)), PlayerKind.PROGRAM, self.spec,
                               owner)
        agent = make_agent(self.spec)
        cls = type(agent)
        agent.close()
        material = f"{self.spec}|{cls.__module__}.{cls.__qualname__}|{agent.version}|arena {__version__}"
        return BotIdentity(self.name, str(agent.version), hashlib.sha256(material.encode()).hexdigest()[:16],
                           PlayerKind.AGENT, self.spec)


def parse_bot(text: str) -> BotSpec:
    """'spec', 'name=spec' or a program directory -> BotSpec; raises BotSpecError."""
    text = text.strip()
    if not text:
        raise BotSpecError("empty bot spec")
    name, spec, named = _split_name(text)
    path = Path(spec)
    if "/" in spec or spec.startswith("."):  # a bot program's folder
        if not path.is_dir():
            raise BotSpecError(f"{spec}: no such folder" if not path.exists() else f"{spec}: not a folder")
        if not (path / "bot.toml").is_file():
            raise BotSpecError(f"{spec}: a bot program's folder needs a bot.toml")
        _check_manifest(path)
        return BotSpec(name if named else folder_name(path), str(path.resolve()), PlayerKind.PROGRAM)
    try:
        make_agent(spec).close()
    except UnknownAgentError as error:
        raise BotSpecError(f"{error}; or give a bot program's directory") from None
    return BotSpec(name if named else agent_name(spec), spec, PlayerKind.AGENT)


def folder_name(folder: Path) -> str:
    """The name a bot program plays under when none is given: its folder, one name however it is typed
    ("./bots/x/", "bots/x" or the absolute path: "bots/x" from the folder above bots/); the absolute path where the
    folder is not under the working directory."""
    resolved = folder.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _split_name(text: str) -> tuple[str, str, bool]:
    """A spec's name and spec ('name=spec'), else the text twice; and whether it names the bot."""
    name, sep, spec = text.partition("=")
    named = bool(sep) and ":" not in name and "/" not in name  # "mcts:c=1.4" has its '=' in a parameter
    if not named:
        name, spec = text, text
    return name.strip(), spec.strip(), named


def _check_manifest(folder: Path) -> None:
    """BotSpecError, with every problem on one line, if the folder fails the checks `arena bot submit` makes of a
    bot.toml (arena.submissions.checks; its name may be a built-in player's, as it plays under its folder's): a
    tournament that cannot read its bots is refused before it is created."""
    from arena.submissions.checks import check_folder

    manifest, problems = check_folder(folder, own=True)
    if manifest is None:
        raise BotSpecError("; ".join(f"{folder / problem.where}: {problem.message}"
                                     + (f" (fix: {problem.fix})" if problem.fix else "") for problem in problems))


def parse_bots(text: str) -> list[BotSpec]:
    """A comma-separated list of bot specs; names must be distinct."""
    bots = [parse_bot(part) for part in text.split(",") if part.strip()]
    seen: set[str] = set()
    for bot in bots:
        if bot.name in seen:
            raise BotSpecError(f"bot {bot.name!r} is entered twice; name copies apart, e.g. a={bot.spec},b={bot.spec}")
        seen.add(bot.name)
    return bots


def demo_spec(name: str, factory: Callable[..., Any]) -> str:
    """A built-in agent's spec with a demo-sized budget: the first of DEMO_BUDGETS it accepts."""
    demo_params = getattr(factory, "demo_params", None)
    if isinstance(demo_params, dict):
        return ":".join([name, *(f"{key}={value}" for key, value in demo_params.items())])
    for key, value in DEMO_BUDGETS:
        spec = f"{name}:{key}={value}"
        try:
            make_agent(spec).close()
        except Exception:  # noqa: BLE001 - this agent takes no such parameter
            continue
        return spec
    return name


def can_play(spec: str, game: Game | None) -> bool:
    """True when the agent can be made here and (given a game) sat down at it."""
    try:
        agent = make_agent(spec)
        try:
            if game is not None:
                agent.reset(game, 0, 0)
        finally:
            agent.close()
    except Exception:  # noqa: BLE001 - any failure means "cannot play here"
        return False
    return True


def builtin_bots(game: Game | None = None) -> list[BotSpec]:
    """Every registered built-in agent that can play `game` here, with demo budgets; at least two bots.

    An agent whose dependencies are missing (say, OpenSpiel's) or that knows no strategy for the game
    is left out rather than entered to forfeit every match. Bots are named by `agent_name` of their spec.
    """
    bots = []
    for name, factory in sorted(AGENTS.items()):
        spec = demo_spec(name, factory)
        if can_play(spec, game):
            bots.append(BotSpec(agent_name(spec), spec))
    if len(bots) == 1:  # a field needs two: let the lone agent meet a copy of itself
        bots.append(BotSpec(f"{bots[0].name}-2", bots[0].spec))
    return bots


def _program_version_and_owner(directory: Path) -> tuple[str, str]:
    try:
        from arena.rpc.manifest import load_manifest

        manifest = load_manifest(directory)
        return manifest.version, manifest.owner
    except Exception:  # noqa: BLE001 - an unreadable manifest fails later, when the referee loads it
        return "1", ""


def _directory_hash(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(directory)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def spec_parameters(spec: str) -> dict[str, Any]:
    """The parameters of an agent spec."""
    return parse_agent_spec(spec)[1]

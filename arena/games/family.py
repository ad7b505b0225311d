"""A game family, declared in one place: its modes, its observation codec and its agents' knowledge.

    FAMILY = GameFamily(
        name="major-general", title="Major General: Duel of Time",
        modes=(GameMode("major-general", ...), ...),          # the first is the family's default
        codec="arena.rpc.codecs.major_general",              # typed observation for bots (optional)
        knowledge="arena.games.major_general.knowledge",      # evaluation and script (optional)
        view="arena.games.major_general.view",                # how the web viewer draws it (optional)
    )

A family is registered through the Python entry point group `arena.games` (the built-in families
in Arena's own pyproject.toml, a game of its own in its package's):

    [project.entry-points."arena.games"]
    major-general = "arena.games.major_general.family:FAMILY"

Codec and knowledge are module names, imported only when needed, so that declaring a family costs
nothing and the rules never import the protocol. A codec module defines FIELD (its field of
arena.v1.Observation), fill(message, observation), to_message(observation) and to_dict(message);
a family without one reaches bots as a generic JSON observation. A knowledge module defines
evaluate(state, seat) or values(state), and optionally scripted_action(game, observation,
legal_actions, rng) and is_lookahead_boundary(state); a family without one still plays with
greedy and mcts (a neutral evaluation), but not with scripted. A view module defines board(game)
and position(state, reveal) (see arena.games.views); a family without one is shown as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from arena.games.base import Game

GameFactory = Callable[..., Game]


@dataclass(frozen=True)
class ModeOption:
    """An option a mode may be played with (`-o NAME=VALUE`): a disputed ruling read the other way or an
    alternative reconstruction of a board. The first choice is the default; a game played with another is
    recorded with it and rated in a pool of its own."""

    name: str
    choices: tuple[str, ...]
    decision: str  # the rules-decision id (docs/rules-decisions.md) whose reading the default follows
    summary: str  # what each choice means, in a line

    @property
    def default(self) -> str:
        return self.choices[0]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "choices": list(self.choices), "default": self.default,
                "decision": self.decision, "summary": self.summary}


@dataclass(frozen=True)
class GameMode:
    """One registered name: a family, a mode within it, and the options that make the mode."""

    name: str
    family: str
    title: str
    description: str
    factory: GameFactory
    options: dict[str, Any] = field(default_factory=dict)
    choices: tuple[ModeOption, ...] = ()  # options besides the defaults, listed by `arena games`

    def load(self, **overrides: Any) -> Game:
        """Build the game with this mode's options, overridden by `overrides`."""
        return self.factory(**{**self.options, **overrides})


@dataclass(frozen=True)
class GameFamily:
    """Everything Arena knows of one game family (see the module's docstring)."""

    name: str
    title: str
    modes: tuple[GameMode, ...]
    codec: str | None = None  # module of its typed observation codec; None: the generic JSON observation
    knowledge: str | None = None  # module of its evaluation and scripted strategy
    view: str | None = None  # module that draws its positions for the web viewer (arena.games.views)
    description: str = ""
    position: int = 100  # where it is listed (and played by `arena tournament run all`): low first, then by name

    def __post_init__(self) -> None:
        if not self.modes:
            raise ValueError(f"game family {self.name!r} declares no mode")
        strangers = [mode.name for mode in self.modes if mode.family != self.name]
        if strangers:
            raise ValueError(f"game family {self.name!r} declares modes of another family: {', '.join(strangers)}")

    @property
    def default_mode(self) -> GameMode:
        """The mode the bare family name loads."""
        return self.modes[0]

"""Names of games and their modes -> Game objects.

A name is a family ("major-general") or a family and mode ("major-general/hold-the-centre").
Each mode is a set of default options; `load_game` merges caller options over them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from arena.games.base import Game

GameFactory = Callable[..., Game]


class UnknownGameError(KeyError):
    """The name does not match any registered game or mode."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class GameOptionError(ValueError):
    """An option is unknown to the game or has a bad value."""


@dataclass(frozen=True)
class GameMode:
    """One registered name: a family, a mode within it, and the options that make the mode."""

    name: str
    family: str
    title: str
    description: str
    factory: GameFactory
    options: dict[str, Any] = field(default_factory=dict)

    def load(self, **overrides: Any) -> Game:
        """Build the game with this mode's options, overridden by `overrides`."""
        return self.factory(**{**self.options, **overrides})


_MODES: dict[str, GameMode] = {}
_DEFAULT_MODE: dict[str, str] = {}


def register(mode: GameMode, *, default: bool = False) -> None:
    """Add a mode; `default=True` also makes the bare family name load it."""
    _MODES[mode.name] = mode
    if default or mode.family not in _DEFAULT_MODE:
        _DEFAULT_MODE[mode.family] = mode.name


def _ensure_loaded() -> None:
    if _MODES:
        return
    from arena.games.major_general import modes as major_general_modes
    from arena.games.general_orders import modes as general_orders_modes

    for family_modes in (major_general_modes, general_orders_modes):
        for mode, is_default in family_modes.registered_modes():
            register(mode, default=is_default)


def game_modes() -> list[GameMode]:
    """Every registered mode, in registration order."""
    _ensure_loaded()
    return list(_MODES.values())


def families() -> dict[str, list[GameMode]]:
    """Registered modes grouped by family name."""
    grouped: dict[str, list[GameMode]] = {}
    for mode in game_modes():
        grouped.setdefault(mode.family, []).append(mode)
    return grouped


def resolve(name: str) -> GameMode:
    """The mode a name refers to (a bare family name picks the family's default mode)."""
    _ensure_loaded()
    key = name.strip().lower()
    key = _DEFAULT_MODE.get(key, key)
    try:
        return _MODES[key]
    except KeyError:
        known = ", ".join(sorted(set(_MODES) | set(_DEFAULT_MODE)))
        raise UnknownGameError(f"unknown game {name!r}; known games: {known}") from None


def load_game(name: str, options: dict[str, Any] | None = None) -> Game:
    """Build the game a name refers to, with optional option overrides."""
    mode = resolve(name)
    try:
        return mode.load(**(options or {}))
    except TypeError as error:
        raise GameOptionError(f"bad options for {mode.name}: {error}") from None

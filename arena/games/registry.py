"""Names of games and their modes -> Game objects, from the game families registered as Python entry
points (group `arena.games`, see arena.games.family).

A name is a family ("major-general") or a family and mode ("major-general/hold-the-centre").
Each mode is a set of default options; `load_game` merges caller options over them.
"""

from __future__ import annotations

import difflib
import threading
import typing
from importlib import metadata
from typing import Any, Iterable

from arena.games.base import Game
from arena.games.family import GameFamily, GameMode
from arena.games.parameters import ParameterError, check_parameters

ENTRY_POINT_GROUP = "arena.games"

__all__ = ["ENTRY_POINT_GROUP", "GameFamily", "GameMode", "GameOptionError", "UnknownGameError", "families",
           "family", "family_of", "game_families", "game_modes", "load_game", "register_family", "resolve"]


class UnknownGameError(KeyError):
    """The name does not match any registered game or mode."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class GameOptionError(ValueError):
    """An option is unknown to the game or has a bad value."""


class RegistryError(RuntimeError):
    """A registered game family cannot be loaded (the message names its entry point)."""


_FAMILIES: dict[str, GameFamily] = {}
_MODES: dict[str, GameMode] = {}
_LOADED = False
_LOADING = threading.RLock()  # (re-entrant: a family's module may ask for the registry while it loads)


def register_family(declared: GameFamily) -> None:
    """Add a family and its modes (entry points do this; a test or an embedding program may too)."""
    if declared.name in _FAMILIES and _FAMILIES[declared.name] is not declared:
        raise RegistryError(f"two game families are named {declared.name!r}")
    _FAMILIES[declared.name] = declared
    for mode in declared.modes:
        _MODES[mode.name] = mode


def _ensure_loaded() -> None:
    """Load the registered families once; callers on other threads meanwhile wait for them (a registry that
    said it was loaded before it was answered "unknown game" to a web server's first requests)."""
    global _LOADED
    if _LOADED:
        return
    with _LOADING:
        if not _LOADED:
            _load_entry_points()
            _LOADED = True


def _load_entry_points() -> None:
    found = []
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            declared = entry.load()
        except Exception as error:  # a broken plug-in must say so, not take the others down silently
            raise RegistryError(f"game family entry point {entry.name!r} ({entry.value}) cannot be loaded: "
                                f"{type(error).__name__}: {error}") from error
        if not isinstance(declared, GameFamily):
            raise RegistryError(f"entry point {entry.name!r} ({entry.value}) is not an arena.games.family.GameFamily")
        found.append(declared)
    for declared in sorted(found, key=lambda one: (one.position, one.name)):
        register_family(declared)
    if not _FAMILIES:
        raise RegistryError("no game family is registered: install Arena (`pip install -e .`, as `make` does) so "
                            "that its entry points (group arena.games) exist")


def game_families() -> list[GameFamily]:
    """Every registered family, by position (Arena's own first), then by name."""
    _ensure_loaded()
    return list(_FAMILIES.values())


def game_modes() -> list[GameMode]:
    """Every registered mode, in registration order."""
    _ensure_loaded()
    return list(_MODES.values())


def families() -> dict[str, list[GameMode]]:
    """Registered modes grouped by family name."""
    return {declared.name: list(declared.modes) for declared in game_families()}


def family(name: str) -> GameFamily:
    """A registered family by name (UnknownGameError if there is none)."""
    _ensure_loaded()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise UnknownGameError(f"unknown game family {name!r}; known: {', '.join(sorted(_FAMILIES))}") from None


def family_of(game_name: str) -> GameFamily:
    """The family a game or mode name belongs to."""
    return family(resolve(game_name).family)


def resolve(name: str) -> GameMode:
    """The mode a name refers to (a bare family name picks the family's default mode)."""
    _ensure_loaded()
    key = name.strip().lower()
    if key in _FAMILIES:
        return _FAMILIES[key].default_mode
    try:
        return _MODES[key]
    except KeyError:
        names = sorted(set(_MODES) | set(_FAMILIES))
        raise UnknownGameError(f"unknown game {name!r}{did_you_mean(key, names)}; known games: "
                               f"{', '.join(names)}") from None


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """" (did you mean 'major-general'?)" for a near miss among `choices`, else ""."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_game(name: str, options: dict[str, Any] | None = None) -> Game:
    """Build the game a name refers to, with optional option overrides."""
    mode = resolve(name)
    if options:
        _check_options(mode, options)
    try:
        return mode.load(**(options or {}))
    except (TypeError, ValueError) as error:
        if isinstance(error, GameOptionError):
            raise
        raise GameOptionError(f"bad options for {mode.name}: {error}") from None


def _check_options(mode: GameMode, options: dict[str, Any]) -> None:
    """A one-line GameOptionError for an option the mode's game does not take or a value it cannot: the
    game's own parameters (its class's, `name` aside), with their types, defaults and choices."""
    game_class = typing.get_type_hints(mode.factory).get("return", mode.factory)
    choices = {option.name: option.choices for option in mode.choices}
    try:  # (a documented option's value is the game's to check: its message names the ruling too)
        check_parameters(f"game {mode.name!r}", game_class, {k: v for k, v in options.items() if k not in choices},
                         choices=choices, hidden=("name",), noun="option")
        unknown = [name for name in options if name in choices and not isinstance(options[name], str)]
        if unknown:
            raise ParameterError(f"game {mode.name!r}: {unknown[0]} is one of {', '.join(choices[unknown[0]])} "
                                 f"(got {options[unknown[0]]!r})")
    except ParameterError as error:
        raise GameOptionError(str(error)) from None

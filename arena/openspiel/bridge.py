"""Every registered Arena game as an OpenSpiel (pyspiel) Python game.

`register_all()` (run on import of `arena.openspiel`) registers one pyspiel game per Arena mode,
named by `openspiel_name`: "major-general/hold-the-centre" -> "arena_major_general__hold_the_centre".
The mode's scalar options are the pyspiel game's parameters, so
`pyspiel.load_game("arena_major_general(scenario=breakthrough)")` works too.

Mapping: seats are players; Arena's CHANCE is pyspiel's CHANCE and TERMINAL is pyspiel's TERMINAL;
action ids and chance outcome ids are the same integers; returns are Arena's ranking returns
(zero-sum, in [-1, 1]). Anyone may be asked to decide, as in Arena: `current_player()` is the seat
that decides now. Observations are strings: the canonical JSON of `State.observation(player)`
(ALL_PLAYERS private info: the full `to_json()`). The information-state string is that same
observation: Arena observations carry what a seat knows (the board, cards played, its hand),
but not the order of earlier moves, so it is not perfect-recall. No tensors are provided.
`resample_from_infostate` samples hidden cards with `Game.determinize`, which is what OpenSpiel's
ISMCTSBot calls for every simulation.
"""

from __future__ import annotations

import json
import random
from typing import Any, Optional

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the OpenSpiel bridge needs open_spiel: pip install 'arena[openspiel]' (or: pip install open_spiel)"
    ) from error

from arena.games.base import CHANCE, TERMINAL, Game, State
from arena.games.registry import GameMode, game_modes, resolve

PREFIX = "arena_"
_REGISTERED: dict[str, type[ArenaSpielGame]] = {}  # Arena mode name -> its pyspiel game class


def openspiel_name(arena_name: str) -> str:
    """The pyspiel short name of an Arena mode: 'major-general/x-y' -> 'arena_major_general__x_y'."""
    family, _, mode = resolve(arena_name).name.partition("/")
    name = PREFIX + family.replace("-", "_")
    return name + "__" + mode.replace("-", "_") if mode else name


def _parameters(mode: GameMode) -> dict[str, Any]:
    """The mode's options that pyspiel can carry as game parameters (scalars, not the display name)."""
    return {key: value for key, value in mode.options.items()
            if key != "name" and isinstance(value, (bool, int, float, str))}


def _game_type(mode: GameMode, info_game: Game) -> pyspiel.GameType:
    info = info_game.info
    return pyspiel.GameType(
        short_name=openspiel_name(mode.name),
        long_name=f"{mode.title} ({mode.name}) via Arena",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if info.has_chance
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if info.has_hidden_information
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.num_seats,
        min_num_players=info.num_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=_parameters(mode),
    )


def _game_info(game: Game) -> pyspiel.GameInfo:
    info = game.info
    return pyspiel.GameInfo(
        num_distinct_actions=info.num_actions,
        max_chance_outcomes=info.num_chance_outcomes,
        num_players=info.num_seats,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=info.max_game_length,
    )


class _Holder:
    """Holds the Arena state inside a pyspiel state; pyspiel deep-copies it on clone, we clone."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Holder:
        return _Holder(self.state.clone())


class ArenaSpielGame(pyspiel.Game):
    """A pyspiel game backed by an Arena game; `register_all` makes one subclass per Arena mode."""

    mode: GameMode
    game_type: pyspiel.GameType

    def __init__(self, params: Optional[dict[str, Any]] = None, arena_game: Optional[Game] = None) -> None:
        params = dict(params or {})
        if arena_game is None:
            arena_game = self.mode.load(**params)
        self.arena_game = arena_game
        super().__init__(self.game_type, _game_info(arena_game), params)

    def new_initial_state(self) -> ArenaSpielState:
        """The Arena game's initial state, wrapped."""
        return ArenaSpielState(self, self.arena_game.new_initial_state())

    def wrap(self, state: State) -> ArenaSpielState:
        """A pyspiel state backed by (a clone of) an Arena state of this game."""
        return ArenaSpielState(self, state.clone())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ArenaObserver:
        """Observation strings from Arena observations."""
        return ArenaObserver(iig_obs_type, params)


class ArenaSpielState(pyspiel.State):
    """A pyspiel state backed by an Arena state (`.arena`)."""

    def __init__(self, game: ArenaSpielGame, state: State) -> None:
        super().__init__(game)
        self._holder = _Holder(state)

    @property
    def arena(self) -> State:
        """The Arena state behind this pyspiel state."""
        return self._holder.state

    def current_player(self) -> int:
        player = self._holder.state.current_player()
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return player

    def _legal_actions(self, player: int) -> list[int]:
        state = self._holder.state
        return state.legal_actions() if player == state.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._holder.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._holder.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        state = self._holder.state
        if player == state.current_player() or (player == pyspiel.PlayerId.CHANCE and state.is_chance_node()):
            return state.action_to_string(int(action))
        game = state.game
        return game.chance_label(int(action)) if player == pyspiel.PlayerId.CHANCE else game.action_label(int(action))

    def is_terminal(self) -> bool:
        return self._holder.state.current_player() == TERMINAL

    def returns(self) -> list[float]:
        return self._holder.state.returns()

    def resample_from_infostate(self, player: int, sampler: Any) -> ArenaSpielState:
        """A state `player` cannot tell from this one, hidden cards sampled (`sampler()` seeds it)."""
        rng = random.Random(int(sampler() * 2**53))
        state = self._holder.state
        game: ArenaSpielGame = self.get_game()  # type: ignore[assignment]
        return ArenaSpielState(game, state.game.determinize(state.observation(player), rng))

    def __str__(self) -> str:
        return self._holder.state.board_text()


class ArenaObserver:
    """pyspiel's PyObserver interface: strings only (no tensors)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        private = getattr(iig_obs_type, "private_info", pyspiel.PrivateInfoType.SINGLE_PLAYER)
        if private == pyspiel.PrivateInfoType.NONE:
            raise ValueError("Arena games have no public-only observation; use SINGLE_PLAYER or ALL_PLAYERS")
        self.full = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: ArenaSpielState, player: int) -> None:
        """No tensor to fill."""

    def string_from(self, state: ArenaSpielState, player: int) -> str:
        """The canonical JSON of what `player` sees."""
        arena = state.arena
        data = arena.to_json() if self.full else arena.observation(player)
        return json.dumps(data, sort_keys=True, separators=(",", ":"))


def register_all() -> dict[str, str]:
    """Register every Arena mode not yet known to pyspiel; returns Arena name -> pyspiel name."""
    for mode in game_modes():
        if mode.name in _REGISTERED:
            continue
        game_type = _game_type(mode, mode.load())
        # A class, not a closure, is what pyspiel keeps: a closure freed by pyspiel's registry after
        # the interpreter has shut down crashes the process at exit.
        game_class = type(f"ArenaSpielGame_{game_type.short_name}", (ArenaSpielGame,),
                          {"mode": mode, "game_type": game_type, "__doc__": f"{mode.name} as a pyspiel game."})
        pyspiel.register_game(game_type, game_class)
        _REGISTERED[mode.name] = game_class
    return {name: game_class.game_type.short_name for name, game_class in _REGISTERED.items()}


def load_openspiel_game(arena_name: str, options: Optional[dict[str, Any]] = None) -> ArenaSpielGame:
    """The pyspiel game for an Arena mode, with optional parameter overrides."""
    register_all()
    mode = resolve(arena_name)
    game = pyspiel.load_game(openspiel_name(mode.name), dict(options or {}))
    assert isinstance(game, ArenaSpielGame)
    return game


def openspiel_game_for(arena_game: Game) -> ArenaSpielGame:
    """A pyspiel game around this very Arena game object (its options as they are)."""
    register_all()
    game_class = _REGISTERED[resolve(arena_game.name).name]
    params = {key: value for key, value in arena_game.options.items() if key in _parameters(game_class.mode)}
    return game_class(params, arena_game=arena_game)

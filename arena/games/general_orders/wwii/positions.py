"""WWII set positions from a compact description, and action ids by name (for tests, puzzles and bots).

    state = build_position(game, troops={"N1": (3, 0), "N2": (0, 2)}, aircraft={"north": (0, 2)},
                           bonuses={"N2": "signal_unit"}, hands=({"ground_assault": 1}, {}))

Units not listed are empty; reserves are whatever the board totals leave; the deck is the mode's
deck less hands and discard. The position starts at the deploy step of `active`'s turn.
"""

from __future__ import annotations

from typing import Any

from arena.games.general_orders.builder import (begin_turn_of, check_count, counter, place_cards_and_bonuses,  # noqa: F401  (counter, play, reroll, target: re-exported)
    place_commanders, play, reroll, target)
from arena.games.general_orders.wwii.board import ACTIONS, BOMB, FLY, Space
from arena.games.general_orders.core import DEPLOY_BASE, MAX_N
from arena.games.general_orders.wwii.board import SIGNAL_UNIT
from arena.games.general_orders.wwii.rules import DICE_BASE, WWIIGame, WWIIState


def build_position(
    game: WWIIGame,
    *,
    troops: dict[str, tuple[int, int]] | None = None,
    aircraft: dict[str, tuple[int, int]] | None = None,
    bonuses: dict[str, str] | None = None,
    hands: tuple[dict[str, int], dict[str, int]] = ({}, {}),
    discard: dict[str, int] | None = None,
    commanders_reserve: tuple[int, int] = (5, 5),
    commanders_standby: tuple[int, int] = (4, 4),
    occupied: dict[int, int] | None = None,
    initiative: int = 0,
    active: int = 0,
    round: int = 1,
    passed: tuple[bool, bool] = (False, False),
    signal: tuple[int, int] | None = None,
) -> WWIIState:
    """A state at `active`'s deploy step with exactly the described board, hands and commanders.

    `occupied` maps a space index to the seat whose (non-Blitz) commander stands there; those
    commanders come on top of the reserve and standby counts. `signal` defaults to 2 (holding the
    Signal Unit with its commander gained) for a seat that controls and supplies its area.
    """
    state = WWIIState(game)
    _set_units(state, troops, aircraft)
    place_cards_and_bonuses(state, bonuses, hands, discard)
    state.cmd_reserve = list(commanders_reserve)
    state.cmd_standby = list(commanders_standby)
    extra = place_commanders(state, occupied)
    state.passed = list(passed)
    begin_turn_of(state, initiative, active, round)
    state.refresh_control()
    if signal is None:
        area = state.token_area[SIGNAL_UNIT]
        state.signal = [2 if area >= 0 and state.supplied(seat) >> area & 1 else 0 for seat in (0, 1)]
    else:
        state.signal = list(signal)
    _check(state, extra)
    state._auto()
    return state


def _set_units(state: WWIIState, troops: dict[str, tuple[int, int]] | None,
               aircraft: dict[str, tuple[int, int]] | None) -> None:
    """The troops and aircraft on the board, and the reserves that the board's totals leave."""
    game = state.game
    board = game.board
    state.troops = [[0] * game.NA, [0] * game.NA]
    for name, (blue, yellow) in (troops or {}).items():
        area = board.area_ids.index(name)
        state.troops[0][area], state.troops[1][area] = blue, yellow
    state.aircraft = [[0] * game.NZ, [0] * game.NZ]
    for name, (blue, yellow) in (aircraft or {}).items():
        zone = board.zone_ids.index(name)
        state.aircraft[0][zone], state.aircraft[1][zone] = blue, yellow
    state.res_troops = [board.troops - sum(state.troops[s]) for s in (0, 1)]
    state.res_air = [board.aircraft - sum(state.aircraft[s]) if game.NZ else 0 for s in (0, 1)]


def _check(state: WWIIState, extra: list[int]) -> None:
    """Validate the built position like a loaded one, allowing the commanders placed on spaces."""
    board = state.game.board
    total = board.commanders_reserve + board.commanders_standby
    for seat in (0, 1):
        if state.cmd_reserve[seat] + state.cmd_standby[seat] + extra[seat] != total:
            raise ValueError(f"seat {seat}: reserve + standby + deployed commanders must make {total}")
    state.validate()


def space_index(game: WWIIGame, action: str, where: str | None = None, value: int | None = None) -> int:
    """The index of the action space `action` linked to area/zone `where` (or with support `value`)."""
    kind = ACTIONS.index(action)
    for space in game.board.spaces:
        if space.action == kind and _space_fits(game, space, where, value):
            return space.index
    raise KeyError(f"no {action} space {where or value or ''} on the {game.mode} board")


def _space_fits(game: WWIIGame, space: Space, where: str | None, value: int | None) -> bool:
    """Whether `space` is linked to area/zone `where`, or (without `where`) has support `value`, if one is given."""
    board = game.board
    if where is not None:
        ids = board.zone_ids if space.action in (FLY, BOMB) else board.area_ids
        return space.link >= 0 and ids[space.link] == where
    return value is None or space.value[0] == value


def deploy(game: WWIIGame, action: str, where: str | None = None, value: int | None = None) -> int:
    """The id of 'deploy a commander to' that space."""
    return DEPLOY_BASE + space_index(game, action, where, value)


def troops_at(game: WWIIGame, area: str, n: int) -> int:
    """The id of 'n troops at area' (move from / place into / withdraw from)."""
    check_count(n)
    return game.AREA_BASE + MAX_N * game.board.area_ids.index(area) + n - 1


def aircraft_at(game: WWIIGame, zone: str, n: int) -> int:
    """The id of 'n aircraft at zone'."""
    check_count(n)
    return game.ZONE_BASE + MAX_N * game.board.zone_ids.index(zone) + n - 1


def payload(game: WWIIGame, n: int) -> int:
    """The id of a Bomb payload of n aircraft."""
    return game.PAYLOAD_BASE + n - 1


def return_from(game: WWIIGame, space: int) -> int:
    """The id of returning one's commander on `space` to standby."""
    return game.RETURN_BASE + space


def pips(total: int) -> int:
    """The chance outcome id of a roll totalling `total` pips."""
    return DICE_BASE + total


def describe(state: WWIIState) -> dict[str, Any]:
    """A compact picture of a position: non-empty areas and zones, reserves and commanders."""
    board = state.game.board
    return {
        "troops": {board.area_ids[a]: (state.troops[0][a], state.troops[1][a])
                   for a in range(state.game.NA) if state.troops[0][a] or state.troops[1][a]},
        "aircraft": {board.zone_ids[z]: (state.aircraft[0][z], state.aircraft[1][z])
                     for z in range(state.game.NZ) if state.aircraft[0][z] or state.aircraft[1][z]},
        "reserve_troops": tuple(state.res_troops),
        "reserve_aircraft": tuple(state.res_air),
        "commanders_reserve": tuple(state.cmd_reserve),
        "commanders_standby": tuple(state.cmd_standby),
    }

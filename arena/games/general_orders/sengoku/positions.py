"""Sengoku Jidai set positions from a compact description, and action ids by name.

    state = build_position(game, troops={"16": (0, 3), "20": (2, 0)}, ships={"14": (3, 0)},
                           siege={"6": (1, 0)}, bonuses={"20": "hidden_base"},
                           hands=({"ground_assault": 1}, {}))

Pairs are (Red, Black). Units not listed are empty; reserves are whatever the board totals leave;
the deck is the mode's deck less hands and discard. The position starts at the deploy step of
`active`'s turn (forced steps already taken, as in play).
"""

from __future__ import annotations

from typing import Any

from arena.games.general_orders.builder import (begin_turn_of, check_count, counter, place_cards_and_bonuses,  # noqa: F401  (counter, play, reroll, target: re-exported)
    place_commanders, play, reroll, target)
from arena.games.general_orders.core import DEPLOY_BASE, MAX_N
from arena.games.general_orders.sengoku.rules import DICE_BASE, SengokuGame, SengokuState
from arena.games.general_orders.sengoku.board import ACTIONS, SengokuBoard


def build_position(
    game: SengokuGame,
    *,
    troops: dict[str, tuple[int, int]] | None = None,
    ships: dict[str, tuple[int, int]] | None = None,
    siege: dict[str, tuple[int, int]] | None = None,
    bonuses: dict[str, str] | None = None,
    hands: tuple[dict[str, int], dict[str, int]] = ({}, {}),
    discard: dict[str, int] | None = None,
    commanders_reserve: tuple[int, int] | None = None,
    commanders_standby: tuple[int, int] = (0, 0),
    occupied: dict[int, int] | None = None,
    support_used: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
    initiative: int = 0,
    active: int = 0,
    round: int = 1,
) -> SengokuState:
    """A state at `active`'s deploy step with exactly the described board, hands and commanders.

    `occupied` maps a space index to the seat whose commander stands there; by default each seat's
    reserve holds the commanders that are neither there nor on standby.
    """
    board = game.board
    state = SengokuState(game)
    for table, rows in ((troops, state.troops), (ships, state.ships), (siege, state.siege)):
        for name, (red, black) in (table or {}).items():
            area = board.area_ids.index(name)
            rows[0][area], rows[1][area] = red, black
    state.res_troops = [board.troops - sum(state.troops[s]) for s in (0, 1)]
    state.res_ships = [board.ships - sum(state.ships[s]) for s in (0, 1)]
    state.res_siege = [board.siege_weapons - sum(state.siege[s]) for s in (0, 1)]
    place_cards_and_bonuses(state, bonuses, hands, discard)
    deployed = place_commanders(state, occupied)
    state.cmd_standby = list(commanders_standby)
    if commanders_reserve is None:
        commanders_reserve = (board.commanders - deployed[0] - commanders_standby[0],
                              board.commanders - deployed[1] - commanders_standby[1])
    state.cmd_reserve = list(commanders_reserve)
    state.support_used = [sum(1 << ACTIONS.index(kind) for kind in used) for used in support_used]
    begin_turn_of(state, initiative, active, round)
    state.refresh_control()
    state.validate()
    state._auto()
    return state


def space_index(game: SengokuGame, action: str, where: str | None = None, value: int | None = None,
                initiative: bool | None = None) -> int:
    """The index of the `action` space linked to area `where` (or a support space by value and
    initiative symbol)."""
    index = _first_space(game.board, ACTIONS.index(action), where, value, initiative)
    if index < 0:
        raise KeyError(f"no {action} space {where or value or ''} on the {game.mode} board")
    return index


def _first_space(board: SengokuBoard, kind: int, where: str | None, value: int | None,
                 initiative: bool | None) -> int:
    """The first space of action `kind` linked to area `where` (or, with no `where`, matching the value and
    initiative symbol given), or -1."""
    for space in board.spaces:
        if space.action != kind:
            continue
        if where is not None:
            if space.link >= 0 and board.area_ids[space.link] == where:
                return space.index
        elif (value is None or space.value == value) and (initiative is None or space.initiative == initiative):
            return space.index
    return -1


def deploy(game: SengokuGame, action: str, where: str | None = None, value: int | None = None,
           initiative: bool | None = None) -> int:
    """The id of 'deploy a commander to' that space."""
    return DEPLOY_BASE + space_index(game, action, where, value, initiative)


def units_at(game: SengokuGame, area: str, n: int) -> int:
    """The id of 'n troops (land) / ships (water) at area' (move from / place into / withdraw from)."""
    check_count(n)
    return game.UNIT_BASE + MAX_N * game.board.area_ids.index(area) + n - 1


def siege_at(game: SengokuGame, area: str, n: int) -> int:
    """The id of 'n siege weapons at land area'."""
    check_count(n)
    rank = game.land_rank[game.board.area_ids.index(area)]
    if rank < 0 or not game.board.has_siege:
        raise ValueError(f"no siege weapons at {area} in {game.mode}")
    return game.SIEGE_BASE + MAX_N * rank + n - 1


def lose_siege(game: SengokuGame, j: int) -> int:
    """The id of 'lose j siege weapons (the rest of the losses troops)'."""
    return game.LOSS_BASE + j


def pips(total: int) -> int:
    """The chance outcome id of a roll totalling `total` pips."""
    return DICE_BASE + total


def describe(state: SengokuState) -> dict[str, Any]:
    """A compact picture of a position: non-empty areas per unit kind, reserves and commanders."""
    board = state.game.board

    def table(rows: list[list[int]]) -> dict[str, tuple[int, int]]:
        return {board.area_ids[a]: (rows[0][a], rows[1][a]) for a in range(board.num_areas) if rows[0][a] or rows[1][a]}

    return {
        "troops": table(state.troops),
        "ships": table(state.ships),
        "siege": table(state.siege),
        "reserve": {"troops": tuple(state.res_troops), "ships": tuple(state.res_ships),
                    "siege": tuple(state.res_siege)},
        "commanders_reserve": tuple(state.cmd_reserve),
        "commanders_standby": tuple(state.cmd_standby),
    }

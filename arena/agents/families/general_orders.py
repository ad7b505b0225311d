"""General Orders knowledge (every mode of the engine family): evaluation and a hand-written strategy.

The evaluation reads a full state through the engine's public attributes (`troops`, `aircraft`,
`res_troops`, `res_air`, `hands`, `initiative`, `round`, `phase`) and accessors (`supplied`,
`air_supplied`, `victory_points`) and the board data. Per seat it counts the VP of the areas
controlled and supplied (what scores at the end), a part of the VP of areas held but cut off,
troops and aircraft on the board and in reserve, cards in hand, the initiative (it breaks ties),
and a penalty when the HQ could be overrun (losing it loses the game at once). The difference
is squashed into [-1, 1].

The scripted strategy sees only the observation and plays the rulebook's advice: keep the HQ
safe, attack where the odds are good (enough troops to beat the defence roll, VP and the enemy
HQ first), reinforce the front, take Plan for cards and the initiative, and pass when nothing
helps; inside an action it moves in with what the source areas can spare, places troops where
the front is thin, plays a card when it turns a fight and re-rolls a bad roll.
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games.base import JSON, Game, State
from arena.games.general_orders.data import (
    ADVANCE,
    AIRBORNE_ASSAULT,
    AMBUSH,
    ANTI_AIR,
    ARTILLERY_STRIKE,
    BARRAGE,
    BLITZ,
    BOMB,
    CARD_IDS,
    COUNTER_ATTACK,
    FLY,
    GROUND_ASSAULT,
    INTERCEPT,
    MOBILIZE,
    PARADROP,
    PLAN,
    REINFORCE,
    TAKE_OFF,
    TOKENS,
    WINGMAN,
    AIRSTRIKE,
)
from arena.games.general_orders.rules import (
    ACCEPT,
    DECLINE,
    DEPLOY_BASE,
    DONE,
    MAX_N,
    OVER,
    PASS,
    TURN,
)

SCALE = 8.0
CARD_VALUE = 0.35
INITIATIVE_VALUE = 0.6

# --- evaluation (full states) -----------------------------------------------------------------


def _bits(mask: int) -> list[int]:
    out = []
    index = 0
    while mask:
        if mask & 1:
            out.append(index)
        mask >>= 1
        index += 1
    return out


def _hq_danger(board: Any, troops: list[list[int]], seat: int) -> int:
    """Troops the opponent could move into `seat`'s HQ next action, beyond what defends it."""
    hq = board.hq[seat]
    enemy = troops[1 - seat]
    attackers = sum(enemy[a] - 1 for a in _bits(board.area_adj[hq]) if enemy[a] >= 2)
    return max(0, min(attackers, board.land_cap) - troops[seat][hq])


def seat_strength(state: State, seat: int) -> float:
    """What `seat` has going for it, in rough VP."""
    game = state.game
    board = game.board  # type: ignore[attr-defined]
    vp = board.area_vp
    supplied = state.supplied(seat)  # type: ignore[attr-defined]
    troops = state.troops  # type: ignore[attr-defined]
    mine = troops[seat]
    progress = min(1.0, state.round / board.rounds)  # type: ignore[attr-defined]
    score = 0.0
    for area in range(len(mine)):
        if mine[area]:
            score += vp[area] if supplied >> area & 1 else 0.3 * vp[area]
    score += (0.35 - 0.15 * progress) * sum(mine) + 0.1 * state.res_troops[seat]  # type: ignore[attr-defined]
    if game.NZ:  # type: ignore[attr-defined]
        score += 0.2 * sum(state.aircraft[seat]) + 0.05 * state.res_air[seat]  # type: ignore[attr-defined]
        score += 0.3 * bin(state.air_supplied(seat)).count("1")  # type: ignore[attr-defined]
    score += CARD_VALUE * sum(state.hands[seat])  # type: ignore[attr-defined]
    if state.initiative == seat:  # type: ignore[attr-defined]
        score += INITIATIVE_VALUE
    score -= 1.5 * _hq_danger(board, troops, seat)
    return score


def values(state: State) -> list[float]:
    """Both seats' values in [-1, 1]; the returns once the game is over."""
    if state.phase == OVER:  # type: ignore[attr-defined]
        return state.returns()
    value = math.tanh((seat_strength(state, 0) - seat_strength(state, 1)) / SCALE)
    return [value, -value]


def evaluate(state: State, seat: int) -> float:
    """The value of a full state for `seat`, in [-1, 1]."""
    return values(state)[seat]


def is_lookahead_boundary(state: State) -> bool:
    """Greedy looks ahead to the end of the action: the next commander deployment (or the end)."""
    return state.phase == TURN or state.phase == OVER  # type: ignore[attr-defined]

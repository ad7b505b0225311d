"""General Orders: Sengoku Jidai knowledge (Rivers and Fortress): evaluation and a hand-written strategy.

The Sengoku engine (arena.games.general_orders.sengoku.rules) shares the family's shape with the WWII one
(deploy a commander, resolve the action step by step, dice as chance, VP of what is supplied at the
end, an HQ that must not be emptied) but has its own state: land and water areas on one map,
troops, ships and siege weapons.

The evaluation reads a full state through its public attributes (`troops`, `ships`, `siege`,
`ctrl`, `res_troops`, `res_ships`, `res_siege`, `hands`, `initiative`, `round`, `phase`) and
`supplied`: per seat the VP of the areas (land and water) controlled and supplied, part of the VP
held but cut off, units on the board and in reserve, cards, the initiative, and a penalty when the
HQ could be emptied by the land units next to it. The difference is squashed into [-1, 1].

The scripted strategy reads only the observation and plays the WWII script's advice adapted to
the map: keep the HQ garrisoned, advance or sail where the numbers beat the defence roll, bombard,
shell and besiege where enemy units are thin, reinforce the front, take Plan for the initiative,
play a card when it turns a fight, re-roll a bad roll, and lose troops before siege weapons.

What this module shares with the WWII one (weights, the squashed evaluation, the view's common
part, the scores both give alike, the frame of the script) lives in general_orders/knowledge.py.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence, cast

from arena.games.base import JSON, Game, State
from arena.games.general_orders.knowledge import (CARD_VALUE, DIE_MEAN, HQ_DANGER_WEIGHT, INITIATIVE_VALUE, WIN_GAME,  # noqa: F401  (is_lookahead_boundary, settle: read by the loader)
    FamilyView, Scores, advance_value, defend_scores, done_first, is_lookahead_boundary, move_in_score, neighbours,
    place_score, plan_value, reinforce_value, reroll_scores, scripted_choice, settle, squashed_values,
    value_features as family_value_features, vp_of)
from arena.games.general_orders.core import DECLINE, DEPLOY_BASE, DONE, MAX_N, PASS
from arena.games.general_orders.sengoku.rules import SengokuGame, SengokuState
from arena.games.general_orders.sengoku.board import (SengokuBoard, ADVANCE, BOMBARD, EMBARK, PLAN, REINFORCE, SAIL,
    SHELL, SIEGE)

# --- evaluation (full states) -----------------------------------------------------------------


def _hq_danger(board: SengokuBoard, troops: list[list[int]], siege: list[list[int]], seat: int) -> int:
    """Land units the opponent could move into `seat`'s HQ next action, beyond what holds it."""
    hq = board.hq[seat]
    enemy_troops, enemy_siege = troops[1 - seat], siege[1 - seat]
    attackers = 0
    for area in neighbours(board, hq):
        units = enemy_troops[area] + enemy_siege[area]
        if units >= 2:
            attackers += units - 1
    return max(0, min(attackers, board.land_cap) - troops[seat][hq] - siege[seat][hq])


def seat_strength(generic: State, seat: int) -> float:
    """What `seat` has going for it, in rough VP."""
    state = cast(SengokuState, generic)  # (a family's knowledge is only given its own games' states)
    board = state.game.board
    supplied = state.supplied(seat)
    held = state.ctrl[seat]
    troops, siege, ships = state.troops, state.siege, state.ships
    progress = min(1.0, state.round / board.rounds)
    score = vp_of(board, supplied) + 0.3 * vp_of(board, held & ~supplied)
    score += (0.35 - 0.15 * progress) * (sum(troops[seat]) + sum(siege[seat])) + 0.25 * sum(ships[seat])
    score += 0.1 * (state.res_troops[seat] + state.res_siege[seat]) + 0.05 * state.res_ships[seat]
    score += CARD_VALUE * sum(state.hands[seat])
    if state.initiative == seat:
        score += INITIATIVE_VALUE
    return score - HQ_DANGER_WEIGHT * _hq_danger(board, troops, siege, seat)


def values(state: State) -> list[float]:
    """Both seats' values in [-1, 1]; the returns once the game is over."""
    return squashed_values(state, seat_strength)


def evaluate(state: State, seat: int) -> float:
    """The value of a full state for `seat`, in [-1, 1]."""
    return values(state)[seat]


def value_features(state: State) -> list[float]:
    """What the luck's value model reads of a position (the family's features, on this game's strengths)."""
    return family_value_features(state, seat_strength)


# --- scripted strategy (observations only) -------------------------------------------------------


def _per_seat_and_area(counts: JSON, ids: Sequence[str]) -> list[list[int]]:
    """An observation's units of one kind (area -> per seat, areas without any left out) per seat and area."""
    return [[int(counts[a][seat]) if a in counts else 0 for a in ids] for seat in (0, 1)]


def _held_areas(land: list[list[int]], ships: list[list[int]]) -> list[int]:
    """Per seat, the bitmask of the areas it holds: those with its land units or its ships in them."""
    return [sum(1 << a for a in range(len(land[seat])) if land[seat][a] or ships[seat][a]) for seat in (0, 1)]


class View(FamilyView[SengokuGame]):
    """What the script reads off an observation: units per seat and area, control, supply, threats."""

    board: SengokuBoard

    def __init__(self, game: Game, observation: JSON) -> None:
        super().__init__(game, observation)
        ids = self.board.area_ids
        self.index = {name: a for a, name in enumerate(ids)}
        troops = observation["troops"]
        ships = observation.get("ships", {})
        siege = observation.get("siege_weapons", {})
        self.troops = [[int(troops[a][seat]) for a in ids] for seat in (0, 1)]
        self.ships = _per_seat_and_area(ships, ids)
        self.siege = _per_seat_and_area(siege, ids)
        self.land = [[t + s for t, s in zip(self.troops[seat], self.siege[seat])] for seat in (0, 1)]
        self.ctrl = _held_areas(self.land, self.ships)
        self.supplied = [self.game.supply(seat, self.ctrl[seat]) for seat in (0, 1)]
        self.reserve_ships = [int(n) for n in observation["reserve_ships"]]
        self.bonus_areas = {self.index[area] for area in observation.get("bonuses", {})}

    def area(self, name: Any) -> int:
        """An area index from its id (-1 for None)."""
        return -1 if name is None else self.index[str(name)]

    def is_water(self, area: int) -> bool:
        """True for a water area."""
        return bool(self.board.is_water[area])

    def units(self, seat: int, area: int) -> int:
        """The units that hold `area` for `seat`: ships on water, troops and siege weapons on land."""
        return self.ships[seat][area] if self.is_water(area) else self.land[seat][area]

    def threat(self, area: int, attacker: int) -> int:
        """Units `attacker` could move into `area` from the areas around it (what they can spare)."""
        water = self.is_water(area)
        total = 0
        for a in self.adjacent(area):
            if self.is_water(a) == water:
                n = self.units(attacker, a)
                if n >= 2:
                    total += n - 1
        cap = self.board.water_cap if water else self.board.land_cap
        return min(cap, total)

    def defence_dice(self, area: int) -> float:
        """Expected pips of the defender's roll in `area` (a fortification adds a die)."""
        dice = 1.0
        if not self.is_water(area) and self.board.fortified >> area & 1:
            dice += 1.0
        return dice * DIE_MEAN

    def area_worth(self, area: int) -> float:
        """What holding `area` is worth to me: its VP, a bonus token, and the enemy HQ above all."""
        worth = float(self.board.area_vp[area]) + 0.3
        if area in self.bonus_areas:
            worth += 0.5
        if area == self.board.hq[self.enemy]:
            worth += WIN_GAME
        return worth

    def strike_value(self, area: int) -> float:
        """Value of a Bombard, Shell or Siege on `area` (about two enemy units removed)."""
        enemy = self.units(self.enemy, area)
        if not enemy:
            return -0.5
        value = 0.5 * min(2, enemy)
        if enemy <= 2:
            value += 0.3 * self.board.area_vp[area]
            if area == self.board.hq[self.enemy]:
                value += WIN_GAME  # an emptied HQ ends the game
        if area in self.adjacent(self.board.hq[self.me]):
            value += 1.0
        return value


def _advance_deploy_value(view: View, kind: int, link: int) -> float:
    """An Advance's (or a Sail's) value into `link` from the supplied land (or water) areas next to it."""
    me = view.me
    water = kind == SAIL
    return advance_value(view, link, [a for a in view.adjacent(link)
                                      if view.is_water(a) == water and view.supplied[me] >> a & 1])


def _strike_deploy_value(view: View, kind: int, link: int) -> float:
    """The best Bombard, Shell or Siege among the enemy-held areas next to `link` (-0.5 when there is none)."""
    board = view.board
    wanted_water = kind == SHELL
    targets = [a for a in view.adjacent(link) if view.is_water(a) == wanted_water and view.units(view.enemy, a)]
    if kind == BOMBARD:
        targets = [a for a in targets if not board.fortified >> a & 1]
    return max((view.strike_value(a) for a in targets), default=-0.5)


def _deploy_value(view: View, space: int) -> float:
    """How good it is to deploy a commander to `space` now."""
    game = view.game
    board = view.board
    me = view.me
    kind = game.space_action[space]
    link = game.space_link[space]
    spec = board.spaces[space]
    if kind in (ADVANCE, SAIL):
        return _advance_deploy_value(view, kind, link)
    if kind in (BOMBARD, SHELL, SIEGE):
        return _strike_deploy_value(view, kind, link)
    if kind == REINFORCE:
        return reinforce_value(view, spec.value)
    if kind == EMBARK:
        return 0.3 * min(spec.value, view.reserve_ships[me])
    if kind == PLAN:
        return plan_value(view, spec.value, spec.initiative)
    return 0.0


def _turn_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    scores: dict[int, float] = {}
    for action in legal:
        if action == PASS:
            scores[action] = 0.1
        elif DEPLOY_BASE <= action < game.COUNTER_BASE:
            scores[action] = _deploy_value(view, action - DEPLOY_BASE)
        elif game.COUNTER_BASE <= action < game.PLAY_BASE:
            scores[action] = _deploy_value(view, action - game.COUNTER_BASE) - 0.3
    return scores


def _move_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Move in with what the sources can spare until the attack has the odds, then stop."""
    game = view.game
    me = view.me
    link = view.area(view.action.get("link"))
    moved = int(view.action.get("moved", 0))
    defenders = view.units(view.enemy, link)
    needed = view.needed_to_take(link)
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = 1.0 if moved >= needed else -1.0
        elif game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 2.0 if defenders else 0.2  # Ground Assault, River Assault, Sappers in a fight
        elif game.UNIT_BASE <= action < game.SIEGE_BASE:
            where, index = divmod(action - game.UNIT_BASE, MAX_N)
            scores[action] = move_in_score(index + 1, view.spare(where, me), needed - moved)
        else:  # siege weapons move in only when nothing else can
            scores[action] = -1.5
    return scores


def _target_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    scores: dict[int, float] = {}
    for action in legal:
        if game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 5.0  # Shore Strike / Siege Train: two more dice
        else:
            scores[action] = view.strike_value(action - game.TARGET_BASE)
    return scores


def _place_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Troops to a threatened HQ, else to the thinnest front; siege weapons next to the enemy; ships forward."""
    game = view.game
    me = view.me
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = -0.5
        elif game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 3.0  # Mobilise, Siege Workshop, Commandeer: more units
        elif game.UNIT_BASE <= action < game.SIEGE_BASE:
            where, index = divmod(action - game.UNIT_BASE, MAX_N)
            front = sum(view.area_worth(a) for a in view.adjacent(where)
                        if not view.units(me, a) and view.is_water(a) == view.is_water(where))
            scores[action] = place_score(view, where, index + 1, front)
        else:
            rank, index = divmod(action - game.SIEGE_BASE, MAX_N)
            where = game.land_areas[rank]
            enemy_near = sum(view.units(view.enemy, a) for a in view.adjacent(where) if not view.is_water(a))
            scores[action] = 0.5 + 0.2 * enemy_near + 0.05 * (index + 1)
    return scores


def _defend_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Play the defence card (Ambush, Hold the Walls) when the fight is close or the area matters."""
    target = view.area(view.action.get("target") or view.action.get("link"))
    return defend_scores(view, legal, int(view.obs["active"]), target)


def _follow_up_choice(view: View, legal: list[int]) -> Scores:
    """Strike again (Ship Strike) whenever it is offered."""
    return {action: (0.0 if action == DECLINE else 1.0) for action in legal}


def _loss_choice(view: View, legal: list[int]) -> Scores:
    """Lose troops before siege weapons."""
    return {action: -float(action) for action in legal}


def _reroll_choice(view: View, legal: list[int]) -> Scores:
    """Re-roll a bad roll."""
    return reroll_scores(view, legal, int(view.action.get("dice", 0)), int(view.action.get("roll", 0)))


CHOOSERS: dict[str, Callable[[View, list[int]], Scores]] = {
    "turn": _turn_choice,
    "move-in": _move_choice,
    "target": _target_choice,
    "place": _place_choice,
    "withdraw": done_first,
    "defend": _defend_choice,
    "follow-up": _follow_up_choice,
    "loss": _loss_choice,
    "reroll": _reroll_choice,
}


def scripted_action(game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """The rulebook's advice, from the observation alone; ties broken with `rng`."""
    return scripted_choice(View, CHOOSERS, game, observation, legal_actions, rng)

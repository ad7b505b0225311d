"""General Orders: Sengoku Jidai knowledge (Rivers and Fortress): evaluation and a hand-written strategy.

The Sengoku engine (arena.games.general_orders.sengoku) shares the family's shape with the WWII one
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
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games.base import JSON, Game, State
from arena.games.general_orders.sengoku import ACCEPT, DECLINE, DEPLOY_BASE, DONE, MAX_N, OVER, PASS, TURN
from arena.games.general_orders.sengoku_data import (
    ADVANCE,
    BOMBARD,
    CARD_IDS,
    EMBARK,
    PLAN,
    REINFORCE,
    SAIL,
    SHELL,
    SIEGE,
)

GAME_MODULES = ("arena.games.general_orders.sengoku",)
SCALE = 8.0
CARD_VALUE = 0.35
INITIATIVE_VALUE = 0.6
HQ_DANGER_WEIGHT = 1.5
DIE_MEAN = 1.0  # faces 0,1,1,1,1,2
WIN_GAME = 100.0

# --- evaluation (full states) -----------------------------------------------------------------

_VP_CACHE: dict[tuple[int, int], int] = {}


def _vp_of(board: Any, mask: int) -> int:
    """Total VP of the areas in `mask` (memoised per board)."""
    key = (id(board), mask)
    total = _VP_CACHE.get(key)
    if total is None:
        vp = board.area_vp
        total = sum(vp[area] for area in range(len(vp)) if mask >> area & 1)
        if len(_VP_CACHE) > 100_000:
            _VP_CACHE.clear()
        _VP_CACHE[key] = total
    return total


_NEIGHBOURS: dict[tuple[int, int], tuple[int, ...]] = {}


def _neighbours(board: Any, area: int) -> tuple[int, ...]:
    """Areas next to `area` (memoised per board)."""
    key = (id(board), area)
    known = _NEIGHBOURS.get(key)
    if known is None:
        mask = board.area_adj[area]
        known = _NEIGHBOURS[key] = tuple(a for a in range(board.num_areas) if mask >> a & 1)
    return known


def _hq_danger(board: Any, troops: list[list[int]], siege: list[list[int]], seat: int) -> int:
    """Land units the opponent could move into `seat`'s HQ next action, beyond what holds it."""
    hq = board.hq[seat]
    enemy_troops, enemy_siege = troops[1 - seat], siege[1 - seat]
    attackers = 0
    for area in _neighbours(board, hq):
        units = enemy_troops[area] + enemy_siege[area]
        if units >= 2:
            attackers += units - 1
    return max(0, min(attackers, board.land_cap) - troops[seat][hq] - siege[seat][hq])


def seat_strength(state: State, seat: int) -> float:
    """What `seat` has going for it, in rough VP."""
    board = state.game.board  # type: ignore[attr-defined]
    supplied = state.supplied(seat)  # type: ignore[attr-defined]
    held = state.ctrl[seat]  # type: ignore[attr-defined]
    troops, siege, ships = state.troops, state.siege, state.ships  # type: ignore[attr-defined]
    progress = min(1.0, state.round / board.rounds)  # type: ignore[attr-defined]
    score = _vp_of(board, supplied) + 0.3 * _vp_of(board, held & ~supplied)
    score += (0.35 - 0.15 * progress) * (sum(troops[seat]) + sum(siege[seat])) + 0.25 * sum(ships[seat])
    score += 0.1 * (state.res_troops[seat] + state.res_siege[seat]) + 0.05 * state.res_ships[seat]  # type: ignore[attr-defined]
    score += CARD_VALUE * sum(state.hands[seat])  # type: ignore[attr-defined]
    if state.initiative == seat:  # type: ignore[attr-defined]
        score += INITIATIVE_VALUE
    return score - HQ_DANGER_WEIGHT * _hq_danger(board, troops, siege, seat)


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


# --- scripted strategy (observations only) -------------------------------------------------------


class View:
    """What the script reads off an observation: units per seat and area, control, supply, threats."""

    def __init__(self, game: Game, observation: JSON) -> None:
        board = game.board  # type: ignore[attr-defined]
        self.game = game
        self.board = board
        self.obs = observation
        self.me = int(observation["seat"])
        self.enemy = 1 - self.me
        ids = board.area_ids
        self.index = {name: a for a, name in enumerate(ids)}
        troops = observation["troops"]
        ships = observation.get("ships", {})
        siege = observation.get("siege_weapons", {})
        self.troops = [[int(troops[a][seat]) for a in ids] for seat in (0, 1)]
        self.ships = [[int(ships[a][seat]) if a in ships else 0 for a in ids] for seat in (0, 1)]
        self.siege = [[int(siege[a][seat]) if a in siege else 0 for a in ids] for seat in (0, 1)]
        self.land = [[t + s for t, s in zip(self.troops[seat], self.siege[seat])] for seat in (0, 1)]
        self.ctrl = [sum(1 << a for a in range(len(ids)) if self.land[seat][a] or self.ships[seat][a])
                     for seat in (0, 1)]
        self.supplied = [game.supply(seat, self.ctrl[seat]) for seat in (0, 1)]  # type: ignore[attr-defined]
        self.reserve = [int(n) for n in observation["reserve_troops"]]
        self.reserve_ships = [int(n) for n in observation["reserve_ships"]]
        self.hand = {CARD_IDS.index(kind): int(n) for kind, n in observation["hand"].items() if n}
        self.bonus_areas = {self.index[area] for area in observation.get("bonuses", {})}
        self.action = observation.get("action") or {}

    def area(self, name: Any) -> int:
        """An area index from its id (-1 for None)."""
        return -1 if name is None else self.index[str(name)]

    def adjacent(self, area: int) -> list[int]:
        """Areas next to `area`, land and water."""
        mask = self.board.area_adj[area]
        return [a for a in range(self.board.num_areas) if mask >> a & 1]

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

    def hq_danger(self, seat: int) -> int:
        """How far the attackers next to `seat`'s HQ outnumber its garrison."""
        hq = self.board.hq[seat]
        return max(0, self.threat(hq, 1 - seat) - self.land[seat][hq] + 1)

    def spare(self, area: int, seat: int) -> int:
        """Units `seat` can take out of `area` and still hold it (more at a threatened HQ)."""
        units = self.units(seat, area)
        keep = 1
        if area == self.board.hq[seat]:
            keep = max(1, self.threat(area, 1 - seat) + 1)
        elif self.threat(area, 1 - seat):
            keep = min(units, 2)
        return max(0, units - keep)

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

    def attack_value(self, area: int, attackers: float) -> float:
        """Expected gain of attacking `area` with `attackers` units (negative when the odds are poor)."""
        defenders = self.units(self.enemy, area)
        if attackers <= 0:
            return -1.0
        if not defenders:
            return self.area_worth(area)
        margin = attackers - self.defence_dice(area) - defenders
        if margin >= 1:
            return self.area_worth(area) + 0.4 * defenders
        if margin > 0:
            return 0.4 * self.area_worth(area) + 0.2 * defenders
        return -1.0 + 0.1 * margin

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


def _deploy_value(view: View, space: int) -> float:
    """How good it is to deploy a commander to `space` now."""
    game = view.game
    board = view.board
    me = view.me
    kind = game.space_action[space]  # type: ignore[attr-defined]
    link = game.space_link[space]  # type: ignore[attr-defined]
    spec = board.spaces[space]
    danger = view.hq_danger(me)
    if kind in (ADVANCE, SAIL):
        water = kind == SAIL
        sources = [a for a in view.adjacent(link) if view.is_water(a) == water and view.supplied[me] >> a & 1]
        value = view.attack_value(link, sum(view.spare(a, me) for a in sources))
        if danger and link in view.adjacent(board.hq[me]) and view.units(view.enemy, link):
            value += 1.5 * danger
        return value
    if kind in (BOMBARD, SHELL, SIEGE):
        wanted_water = kind == SHELL
        targets = [a for a in view.adjacent(link) if view.is_water(a) == wanted_water and view.units(view.enemy, a)]
        if kind == BOMBARD:
            targets = [a for a in targets if not board.fortified >> a & 1]
        return max((view.strike_value(a) for a in targets), default=-0.5)
    if kind == REINFORCE:
        placed = min(spec.value, view.reserve[me])
        return 0.45 * placed + 2.0 * min(danger, placed)
    if kind == EMBARK:
        return 0.3 * min(spec.value, view.reserve_ships[me])
    if kind == PLAN:
        value = 0.4 * spec.value
        if spec.initiative and int(view.obs["initiative"]) != me:
            value += 0.5 + 0.5 * int(view.obs["round"]) / board.rounds
        return value
    return 0.0


def _turn_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    scores: dict[int, float] = {}
    for action in legal:
        if action == PASS:
            scores[action] = 0.1
        elif DEPLOY_BASE <= action < game.COUNTER_BASE:  # type: ignore[attr-defined]
            scores[action] = _deploy_value(view, action - DEPLOY_BASE)
        elif game.COUNTER_BASE <= action < game.PLAY_BASE:  # type: ignore[attr-defined]
            scores[action] = _deploy_value(view, action - game.COUNTER_BASE) - 0.3  # type: ignore[attr-defined]
    return scores


def _move_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Move in with what the sources can spare until the attack has the odds, then stop."""
    game = view.game
    me = view.me
    link = view.area(view.action.get("link"))
    moved = int(view.action.get("moved", 0))
    defenders = view.units(view.enemy, link)
    needed = int(defenders + view.defence_dice(link) + 1) if defenders else 1
    needed = max(needed, 2 if view.area_worth(link) >= 2 else 1)
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = 1.0 if moved >= needed else -1.0
        elif game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 2.0 if defenders else 0.2  # Ground Assault, River Assault, Sappers in a fight
        elif game.UNIT_BASE <= action < game.SIEGE_BASE:  # type: ignore[attr-defined]
            where, index = divmod(action - game.UNIT_BASE, MAX_N)  # type: ignore[attr-defined]
            count = index + 1
            spare = view.spare(where, me)
            if count > spare:
                scores[action] = -2.0 - count
            else:
                useful = min(count, max(needed - moved, 0))
                scores[action] = useful - 0.1 * (count - useful) + 0.01 * spare
        else:  # siege weapons move in only when nothing else can
            scores[action] = -1.5
    return scores


def _target_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    scores: dict[int, float] = {}
    for action in legal:
        if game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 5.0  # Shore Strike / Siege Train: two more dice
        else:
            scores[action] = view.strike_value(action - game.TARGET_BASE)  # type: ignore[attr-defined]
    return scores


def _place_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Troops to a threatened HQ, else to the thinnest front; siege weapons next to the enemy; ships forward."""
    game = view.game
    board = view.board
    me = view.me
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = -0.5
        elif game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 3.0  # Mobilise, Siege Workshop, Commandeer: more units
        elif game.UNIT_BASE <= action < game.SIEGE_BASE:  # type: ignore[attr-defined]
            where, index = divmod(action - game.UNIT_BASE, MAX_N)  # type: ignore[attr-defined]
            count = index + 1
            need = view.threat(where, view.enemy) + 1 - view.units(me, where)
            if where == board.hq[me]:
                need = max(need, view.hq_danger(me))
            front = sum(view.area_worth(a) for a in view.adjacent(where)
                        if not view.units(me, a) and view.is_water(a) == view.is_water(where))
            useful = min(count, max(need, 0))
            scores[action] = 2.0 * useful + 0.1 * front + 0.05 * count - 0.3 * max(0, count - max(need, 1))
        else:
            rank, index = divmod(action - game.SIEGE_BASE, MAX_N)  # type: ignore[attr-defined]
            where = game.land_areas[rank]  # type: ignore[attr-defined]
            enemy_near = sum(view.units(view.enemy, a) for a in view.adjacent(where) if not view.is_water(a))
            scores[action] = 0.5 + 0.2 * enemy_near + 0.05 * (index + 1)
    return scores


def _defend_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Play the defence card (Ambush, Hold the Walls) when the fight is close or the area matters."""
    target = view.area(view.action.get("target") or view.action.get("link"))
    attacker = int(view.obs["active"])
    if target >= 0:
        attackers, defenders = view.units(attacker, target), view.units(view.me, target)
        worth = view.board.area_vp[target] + (WIN_GAME if target == view.board.hq[view.me] else 0.0)
    else:
        attackers, defenders, worth = 1, 0, 1.0
    play = attackers >= defenders or worth >= 2
    return {action: (1.0 if (action != DECLINE) == play else 0.0) for action in legal}


def _reroll_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Re-roll a roll below the average, spending the card held in most copies."""
    dice = int(view.action.get("dice", 0))
    roll = int(view.action.get("roll", 0))
    bad = roll < dice * DIE_MEAN - 0.5
    scores = {}
    for action in legal:
        if action == ACCEPT:
            scores[action] = 0.0 if bad else 1.0
        else:
            kind = action - view.game.REROLL_BASE  # type: ignore[attr-defined]
            scores[action] = (0.5 if bad else -1.0) + 0.01 * view.hand.get(kind, 0)
    return scores


def scripted_action(game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """The rulebook's advice, from the observation alone; ties broken with `rng`."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    view = View(game, observation)
    phase = observation["phase"]
    scores: dict[int, float]
    if phase == "turn":
        scores = _turn_choice(view, legal_actions)
    elif phase == "move-in":
        scores = _move_choice(view, legal_actions)
    elif phase == "target":
        scores = _target_choice(view, legal_actions)
    elif phase == "place":
        scores = _place_choice(view, legal_actions)
    elif phase == "withdraw":
        scores = {action: (1.0 if action == DONE else 0.0) for action in legal_actions}
    elif phase == "defend":
        scores = _defend_choice(view, legal_actions)
    elif phase == "follow-up":
        scores = {action: (0.0 if action == DECLINE else 1.0) for action in legal_actions}  # Ship Strike again
    elif phase == "loss":
        scores = {action: -float(action) for action in legal_actions}  # lose troops before siege weapons
    elif phase == "reroll":
        scores = _reroll_choice(view, legal_actions)
    else:
        scores = {action: 0.0 for action in legal_actions}
    best = max(scores.get(action, -1e9) for action in legal_actions)
    return rng.choice([action for action in legal_actions if scores.get(action, -1e9) >= best - 1e-9])

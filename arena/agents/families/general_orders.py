"""General Orders knowledge (every mode of the engine family): evaluation and a hand-written strategy.

The evaluation reads a full state through the engine's public attributes (`troops`, `ctrl`,
`aircraft`, `res_troops`, `res_air`, `hands`, `initiative`, `round`, `phase`) and accessors (`supplied`,
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
    BARRAGE,
    BLITZ,
    BOMB,
    CARD_IDS,
    FLY,
    PARADROP,
    PLAN,
    REINFORCE,
    TAKE_OFF,
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

GAME_MODULES = ("arena.games.general_orders.rules",)  # the WWII engine (Sengoku has its own module)
SCALE = 8.0
CARD_VALUE = 0.35
INITIATIVE_VALUE = 0.6
HQ_DANGER_WEIGHT = 1.5  # per troop the HQ could be short of: losing it loses the game

# --- evaluation (full states) -----------------------------------------------------------------


_VP_CACHE: dict[tuple[int, int], int] = {}


def _vp_of(board: Any, mask: int) -> int:
    """Total VP of the land areas in `mask` (memoised per board)."""
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
    """Land areas next to `area` (memoised per board)."""
    key = (id(board), area)
    known = _NEIGHBOURS.get(key)
    if known is None:
        mask = board.area_adj[area]
        known = _NEIGHBOURS[key] = tuple(a for a in range(board.num_areas) if mask >> a & 1)
    return known


def _hq_danger(board: Any, troops: list[list[int]], seat: int) -> int:
    """Troops the opponent could move into `seat`'s HQ next action, beyond what defends it."""
    hq = board.hq[seat]
    enemy = troops[1 - seat]
    attackers = 0
    for area in _neighbours(board, hq):
        if enemy[area] >= 2:
            attackers += enemy[area] - 1
    return max(0, min(attackers, board.land_cap) - troops[seat][hq])


def seat_strength(state: State, seat: int) -> float:
    """What `seat` has going for it, in rough VP."""
    game = state.game
    board = game.board  # type: ignore[attr-defined]
    supplied = state.supplied(seat)  # type: ignore[attr-defined]
    held = state.ctrl[seat]  # type: ignore[attr-defined]
    troops = state.troops  # type: ignore[attr-defined]
    progress = min(1.0, state.round / board.rounds)  # type: ignore[attr-defined]
    score = _vp_of(board, supplied) + 0.3 * _vp_of(board, held & ~supplied)
    score += (0.35 - 0.15 * progress) * sum(troops[seat]) + 0.1 * state.res_troops[seat]  # type: ignore[attr-defined]
    if game.NZ:  # type: ignore[attr-defined]
        score += 0.2 * sum(state.aircraft[seat]) + 0.05 * state.res_air[seat]  # type: ignore[attr-defined]
        score += 0.3 * bin(state.air_supplied(seat)).count("1")  # type: ignore[attr-defined]
    score += CARD_VALUE * sum(state.hands[seat])  # type: ignore[attr-defined]
    if state.initiative == seat:  # type: ignore[attr-defined]
        score += INITIATIVE_VALUE
    return score - HQ_DANGER_WEIGHT * _hq_danger(board, troops, seat)


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

DIE_MEAN = 1.0  # faces 0,1,1,1,1,2
WIN_GAME = 100.0


class View:
    """What the script reads off an observation: units per seat, control, supply, threats."""

    def __init__(self, game: Game, observation: JSON) -> None:
        board = game.board  # type: ignore[attr-defined]
        self.game = game
        self.board = board
        self.obs = observation
        self.me = int(observation["seat"])
        self.enemy = 1 - self.me
        troops = observation["troops"]
        self.troops = [[int(troops[a][seat]) for a in board.area_ids] for seat in (0, 1)]
        aircraft = observation["aircraft"]
        self.aircraft = [[int(aircraft[z][seat]) for z in board.zone_ids] for seat in (0, 1)]
        self.ctrl = [sum(1 << a for a, n in enumerate(self.troops[seat]) if n) for seat in (0, 1)]
        self.actrl = [sum(1 << z for z, n in enumerate(self.aircraft[seat]) if n) for seat in (0, 1)]
        self.supplied = [game.land_supply(seat, self.ctrl[seat]) for seat in (0, 1)]  # type: ignore[attr-defined]
        self.reserve = [int(n) for n in observation["reserve_troops"]]
        self.hand = {CARD_IDS.index(kind): int(n) for kind, n in observation["hand"].items() if n}
        self.bonus_areas = {board.area_ids.index(area) for area in observation.get("bonuses", {})}
        self.action = observation.get("action") or {}

    def adjacent(self, area: int) -> list[int]:
        """Land areas next to `area`."""
        mask = self.board.area_adj[area]
        return [a for a in range(self.board.num_areas) if mask >> a & 1]

    def threat(self, area: int, attacker: int) -> int:
        """Troops `attacker` could move into `area` with one Advance (all that adjacent areas can spare)."""
        units = self.troops[attacker]
        return min(self.board.land_cap, sum(units[a] - 1 for a in self.adjacent(area) if units[a] >= 2))

    def hq_danger(self, seat: int) -> int:
        """How far the attackers next to `seat`'s HQ outnumber its garrison."""
        hq = self.board.hq[seat]
        return max(0, self.threat(hq, 1 - seat) - self.troops[seat][hq] + 1)

    def spare(self, area: int, seat: int) -> int:
        """Troops `seat` can take out of `area` and still keep it (more at the HQ when it is threatened)."""
        units = self.troops[seat][area]
        keep = 1
        if area == self.board.hq[seat]:
            keep = max(1, self.threat(area, 1 - seat) + 1)
        elif self.threat(area, 1 - seat):
            keep = min(units, 2)
        return max(0, units - keep)

    def defence_dice(self, area: int) -> float:
        """Expected pips of the defender's roll in `area` (a Town Centre held and supplied adds a die)."""
        dice = 1.0
        defender = 1 - self.me if self.troops[1 - self.me][area] else self.me
        printed = self.board.printed_bonus[area]
        if printed >= 0 and self.supplied[defender] >> area & 1:
            dice += 1.0
        zone = self.board.area_zone[area]
        if zone >= 0 and self.aircraft[defender][zone]:
            dice += 1.0
        return dice * DIE_MEAN

    def area_worth(self, area: int) -> float:
        """What holding `area` is worth to me: its VP, a bonus token, and the enemy HQ above all."""
        worth = float(self.board.area_vp[area])
        if area in self.bonus_areas or self.board.printed_bonus[area] >= 0:
            worth += 0.5
        if area == self.board.hq[self.enemy]:
            worth += WIN_GAME
        return worth

    def attack_value(self, area: int, attackers: float) -> float:
        """Expected gain of attacking `area` with `attackers` troops (negative when the odds are poor)."""
        defenders = self.troops[self.enemy][area]
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


def _deploy_value(view: View, space: int) -> float:
    """How good it is to deploy a commander to `space` now."""
    game = view.game
    board = view.board
    me = view.me
    kind = game.space_action[space]  # type: ignore[attr-defined]
    link = game.space_link[space]  # type: ignore[attr-defined]
    value_on_board = board.spaces[space].value[me]
    danger = view.hq_danger(me)
    if kind == ADVANCE:
        sources = [a for a in view.adjacent(link) if view.supplied[me] >> a & 1]
        attackers = sum(view.spare(a, me) for a in sources)
        value = view.attack_value(link, attackers)
        if danger and link in view.adjacent(board.hq[me]) and view.troops[view.enemy][link]:
            value += 1.5 * danger  # hitting the area that threatens the HQ
        return value
    if kind == REINFORCE:
        placed = min(value_on_board, view.reserve[me])
        return 0.45 * placed + 2.0 * min(danger, placed)
    if kind == PLAN:
        value = 0.4 * value_on_board
        if board.spaces[space].initiative and int(view.obs["initiative"]) != me:
            value += 0.5 + 0.5 * int(view.obs["round"]) / board.rounds
        return value
    if kind == PARADROP:
        return max((_paradrop_value(view, area) for area in range(board.num_areas)), default=0.0)
    if kind == BARRAGE:
        within = board.within3[link]
        return max((_strike_value(view, area) for area in range(board.num_areas)
                    if within >> area & 1 and view.troops[view.enemy][area]), default=-0.5)
    if kind == TAKE_OFF:
        return 0.3 * min(value_on_board, int(view.obs["reserve_aircraft"][me]))
    if kind == FLY:
        sources = [z for z in range(board.num_zones) if board.zone_adj[link] >> z & 1]
        attackers = sum(max(0, view.aircraft[me][z] - 1) for z in sources)
        defenders = view.aircraft[view.enemy][link]
        margin = attackers - DIE_MEAN - defenders
        return (0.8 + 0.3 * defenders) if (defenders == 0 or margin >= 1) and attackers else -0.5
    if kind == BOMB:
        targets = [a for a in range(board.num_areas) if board.zone_areas[link] >> a & 1 and view.troops[view.enemy][a]]
        return max((_strike_value(view, area) for area in targets), default=-0.5)
    return 0.0


def _paradrop_value(view: View, area: int) -> float:
    board = view.board
    me = view.me
    if board.no_paradrop >> area & 1 or area == board.hq[view.enemy]:
        return -1.0
    connected = any(view.supplied[me] >> a & 1 for a in view.adjacent(area))
    if view.troops[me][area]:
        return 0.2
    worth = view.area_worth(area) * (1.0 if connected else 0.3)
    if not view.troops[view.enemy][area]:
        return worth
    return view.attack_value(area, 2) * (1.0 if connected else 0.3)


def _strike_value(view: View, area: int) -> float:
    """Value of a Barrage or Bomb on `area` (about two enemy troops removed)."""
    enemy_troops = view.troops[view.enemy][area]
    value = 0.5 * min(2, enemy_troops)
    if enemy_troops <= 2:
        value += 0.3 * view.board.area_vp[area]
    if area in view.adjacent(view.board.hq[view.me]):
        value += 1.0
    return value


def _turn_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    scores: dict[int, float] = {}
    best_deploy = -1.0
    for action in legal:
        if DEPLOY_BASE <= action < game.COUNTER_BASE:  # type: ignore[attr-defined]
            scores[action] = _deploy_value(view, action - DEPLOY_BASE)
        elif game.COUNTER_BASE <= action < game.PLAY_BASE:  # type: ignore[attr-defined]
            scores[action] = _deploy_value(view, action - game.COUNTER_BASE) - 0.3  # type: ignore[attr-defined]
        best_deploy = max(best_deploy, scores.get(action, -1.0))
    for action in legal:
        if action == PASS:
            scores[action] = 0.1
        elif action == game.PLAY_BASE + BLITZ:  # type: ignore[attr-defined]
            scores[action] = 0.5 if best_deploy > 1.0 else -0.5
    return scores


def _move_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Move in with what the sources can spare until the attack has the odds, then stop."""
    game = view.game
    me = view.me
    link = int(view.action["link"])
    moved = int(view.action["moved"])
    air = int(view.action["unit"]) == 1
    if air:
        defenders = view.aircraft[view.enemy][link]
        needed = defenders + 2 if defenders else 1
    else:
        defenders = view.troops[view.enemy][link]
        needed = int(defenders + view.defence_dice(link) + 1) if defenders else 1
        needed = max(needed, 2 if view.area_worth(link) >= 2 else 1)
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = 1.0 if moved >= needed else -1.0
        elif game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 2.0 if defenders else 0.2  # Ground Assault / Wingman when it comes to a fight
        else:
            base = game.ZONE_BASE if air else game.AREA_BASE  # type: ignore[attr-defined]
            where, index = divmod(action - base, MAX_N)
            count = index + 1
            if air:
                spare = view.aircraft[me][where] - 1
            else:
                spare = view.spare(where, me)
            if count > max(spare, 0):
                scores[action] = -2.0 - count  # would strip the source bare (or the HQ)
            else:
                useful = min(count, max(needed - moved, 0))
                scores[action] = useful - 0.1 * (count - useful) + 0.01 * spare
    return scores


def _target_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    kind = view.action.get("kind")
    scores: dict[int, float] = {}
    for action in legal:
        if game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 5.0  # Airborne Assault / Artillery Strike: more troops or dice
            continue
        area = action - game.TARGET_BASE  # type: ignore[attr-defined]
        scores[action] = _paradrop_value(view, area) if kind == "paradrop" else _strike_value(view, area)
    return scores


def _place_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Troops go to the HQ when it is in danger, else to the thinnest part of the front."""
    game = view.game
    board = view.board
    me = view.me
    air = int(view.action["unit"]) == 1
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = -0.5
        elif game.PLAY_BASE <= action < game.REROLL_BASE:  # type: ignore[attr-defined]
            scores[action] = 3.0  # Mobilize: two more troops
        elif air:
            zone, index = divmod(action - game.ZONE_BASE, MAX_N)  # type: ignore[attr-defined]
            enemy_air = sum(view.aircraft[view.enemy][z] for z in range(board.num_zones) if board.zone_adj[zone] >> z & 1)
            scores[action] = 0.1 * (index + 1) + 0.2 * enemy_air - 0.05 * view.aircraft[me][zone]
        else:
            area, index = divmod(action - game.AREA_BASE, MAX_N)  # type: ignore[attr-defined]
            count = index + 1
            need = view.threat(area, view.enemy) + 1 - view.troops[me][area]
            if area == board.hq[me]:
                need = max(need, view.hq_danger(me))
            front = sum(view.area_worth(a) for a in view.adjacent(area)
                        if not view.troops[me][a] and a != board.hq[me])
            useful = min(count, max(need, 0))
            scores[action] = 2.0 * useful + 0.1 * front + 0.05 * count - 0.3 * max(0, count - max(need, 1))
    return scores


def _defend_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Play the defence card when the fight is close or the area matters."""
    target = int(view.action["target"])
    attacker = int(view.obs["active"])
    air = int(view.action["unit"]) == 1
    if air:
        attackers, defenders, worth = view.aircraft[attacker][target], view.aircraft[view.me][target], 1.0
    elif target >= 0:
        attackers, defenders = view.troops[attacker][target], view.troops[view.me][target]
        worth = view.board.area_vp[target] + (WIN_GAME if target == view.board.hq[view.me] else 0.0)
    else:
        attackers, defenders, worth = 1, 0, 1.0
    play = attackers >= defenders or worth >= 2
    return {action: (1.0 if (action != DECLINE) == play else 0.0) for action in legal}


def _reroll_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Re-roll a roll below the average, spending the card held in most copies."""
    dice = int(view.action["dice"])
    roll = int(view.action["roll"])
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
    if phase in ("turn", "blitz-deploy"):
        scores = _turn_choice(view, legal_actions)
    elif phase == "move-in":
        scores = _move_choice(view, legal_actions)
    elif phase == "target":
        scores = _target_choice(view, legal_actions)
    elif phase == "payload":
        scores = {action: float(action) for action in legal_actions}  # the biggest payload, a card first
        scores.update({a: 1e6 for a in legal_actions if game.PLAY_BASE <= a < game.REROLL_BASE})  # type: ignore[attr-defined]
    elif phase == "place":
        scores = _place_choice(view, legal_actions)
    elif phase == "withdraw":
        scores = {action: (1.0 if action == DONE else 0.0) for action in legal_actions}
    elif phase == "defend":
        scores = _defend_choice(view, legal_actions)
    elif phase == "reroll":
        scores = _reroll_choice(view, legal_actions)
    else:
        scores = {action: 0.0 for action in legal_actions}
    best = max(scores.get(action, -1e9) for action in legal_actions)
    return rng.choice([action for action in legal_actions if scores.get(action, -1e9) >= best - 1e-9])

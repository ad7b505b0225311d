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

What this module shares with the Sengoku one (weights, the squashed evaluation, the view's common
part, the scores both give alike, the frame of the script) lives in general_orders/knowledge.py.
"""

from __future__ import annotations

import random
from typing import Callable, cast

from arena.games.base import JSON, Game, State
from arena.games.general_orders.wwii.board import (Board, ADVANCE, BARRAGE, BLITZ, BOMB, FLY, PARADROP, PLAN,
    REINFORCE, TAKE_OFF)
from arena.games.general_orders.knowledge import (CARD_VALUE, DIE_MEAN, HQ_DANGER_WEIGHT, INITIATIVE_VALUE, WIN_GAME,  # noqa: F401  (is_lookahead_boundary, settle: read by the loader)
    FamilyView, Scores, advance_value, card_if_close, defend_scores, done_first, is_lookahead_boundary, move_in_score,
    neighbours, place_score, plan_value, reinforce_value, reroll_scores, scripted_choice, settle, squashed_values,
    value_features as family_value_features, vp_of)
from arena.games.general_orders.core import DEPLOY_BASE, DONE, MAX_N, PASS
from arena.games.general_orders.wwii.rules import WWIIGame, WWIIState

# --- evaluation (full states) -----------------------------------------------------------------


def _hq_danger(board: Board, troops: list[list[int]], seat: int) -> int:
    """Troops the opponent could move into `seat`'s HQ next action, beyond what defends it."""
    hq = board.hq[seat]
    enemy = troops[1 - seat]
    attackers = 0
    for area in neighbours(board, hq):
        if enemy[area] >= 2:
            attackers += enemy[area] - 1
    return max(0, min(attackers, board.land_cap) - troops[seat][hq])


def seat_strength(generic: State, seat: int) -> float:
    """What `seat` has going for it, in rough VP."""
    state = cast(WWIIState, generic)  # (a family's knowledge is only given its own games' states)
    game = state.game
    board = game.board
    supplied = state.supplied(seat)
    held = state.ctrl[seat]
    troops = state.troops
    progress = min(1.0, state.round / board.rounds)
    score = vp_of(board, supplied) + 0.3 * vp_of(board, held & ~supplied)
    score += (0.35 - 0.15 * progress) * sum(troops[seat]) + 0.1 * state.res_troops[seat]
    if game.NZ:
        score += 0.2 * sum(state.aircraft[seat]) + 0.05 * state.res_air[seat]
        score += 0.3 * bin(state.air_supplied(seat)).count("1")
    score += CARD_VALUE * sum(state.hands[seat])
    if state.initiative == seat:
        score += INITIATIVE_VALUE
    return score - HQ_DANGER_WEIGHT * _hq_danger(board, troops, seat)


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


def _occupied(units: list[list[int]]) -> list[int]:
    """Per seat, the bitmask of the places (areas or zones) where it has any of these units."""
    return [sum(1 << place for place, n in enumerate(units[seat]) if n) for seat in (0, 1)]


class View(FamilyView[WWIIGame]):
    """What the script reads off an observation: troops and aircraft per seat, control, supply, threats."""

    board: Board

    def __init__(self, game: Game, observation: JSON) -> None:
        super().__init__(game, observation)
        board = self.board
        troops = observation["troops"]
        self.troops = [[int(troops[a][seat]) for a in board.area_ids] for seat in (0, 1)]
        aircraft = observation["aircraft"]
        self.aircraft = [[int(aircraft[z][seat]) for z in board.zone_ids] for seat in (0, 1)]
        self.ctrl = _occupied(self.troops)
        self.actrl = _occupied(self.aircraft)
        self.supplied = [self.game.land_supply(seat, self.ctrl[seat]) for seat in (0, 1)]
        self.bonus_areas = {board.area_ids.index(area) for area in observation.get("bonuses", {})}

    def units(self, seat: int, area: int) -> int:
        """The troops that hold `area` for `seat`."""
        return self.troops[seat][area]

    def threat(self, area: int, attacker: int) -> int:
        """Troops `attacker` could move into `area` with one Advance (all that adjacent areas can spare)."""
        units = self.troops[attacker]
        return min(self.board.land_cap, sum(units[a] - 1 for a in self.adjacent(area) if units[a] >= 2))

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


def _deploy_value(view: View, space: int) -> float:
    """How good it is to deploy a commander to `space` now."""
    kind = view.game.space_action[space]
    value_of = _DEPLOY_VALUES.get(kind)
    return value_of(view, space) if value_of is not None else 0.0


def _advance_deploy(view: View, space: int) -> float:
    link = view.game.space_link[space]
    return advance_value(view, link, [a for a in view.adjacent(link) if view.supplied[view.me] >> a & 1])


def _reinforce_deploy(view: View, space: int) -> float:
    return reinforce_value(view, view.board.spaces[space].value[view.me])


def _plan_deploy(view: View, space: int) -> float:
    spec = view.board.spaces[space]
    return plan_value(view, spec.value[view.me], spec.initiative)


def _paradrop_deploy(view: View, space: int) -> float:
    return max((_paradrop_value(view, area) for area in range(view.board.num_areas)), default=0.0)


def _barrage_deploy(view: View, space: int) -> float:
    board = view.board
    within = board.within3[view.game.space_link[space]]
    return max((_strike_value(view, area) for area in range(board.num_areas)
                if within >> area & 1 and view.troops[view.enemy][area]), default=-0.5)


def _take_off_deploy(view: View, space: int) -> float:
    me = view.me
    return 0.3 * min(view.board.spaces[space].value[me], int(view.obs["reserve_aircraft"][me]))


def _fly_deploy(view: View, space: int) -> float:
    board = view.board
    link = view.game.space_link[space]
    sources = [z for z in range(board.num_zones) if board.zone_adj[link] >> z & 1]
    attackers = sum(max(0, view.aircraft[view.me][z] - 1) for z in sources)
    defenders = view.aircraft[view.enemy][link]
    margin = attackers - DIE_MEAN - defenders
    return (0.8 + 0.3 * defenders) if (defenders == 0 or margin >= 1) and attackers else -0.5


def _bomb_deploy(view: View, space: int) -> float:
    board = view.board
    link = view.game.space_link[space]
    targets = [a for a in range(board.num_areas) if board.zone_areas[link] >> a & 1 and view.troops[view.enemy][a]]
    return max((_strike_value(view, area) for area in targets), default=-0.5)


_DEPLOY_VALUES: dict[int, Callable[[View, int], float]] = {
    ADVANCE: _advance_deploy, REINFORCE: _reinforce_deploy, PLAN: _plan_deploy, PARADROP: _paradrop_deploy,
    BARRAGE: _barrage_deploy, TAKE_OFF: _take_off_deploy, FLY: _fly_deploy, BOMB: _bomb_deploy,
}


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
        if DEPLOY_BASE <= action < game.COUNTER_BASE:
            scores[action] = _deploy_value(view, action - DEPLOY_BASE)
        elif game.COUNTER_BASE <= action < game.PLAY_BASE:
            scores[action] = _deploy_value(view, action - game.COUNTER_BASE) - 0.3
        best_deploy = max(best_deploy, scores.get(action, -1.0))
    for action in legal:
        if action == PASS:
            scores[action] = 0.1
        elif action == game.PLAY_BASE + BLITZ:
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
        needed = view.needed_to_take(link)
    scores: dict[int, float] = {}
    for action in legal:
        if action == DONE:
            scores[action] = 1.0 if moved >= needed else -1.0
        elif game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 2.0 if defenders else 0.2  # Ground Assault / Wingman when it comes to a fight
        else:
            base = game.ZONE_BASE if air else game.AREA_BASE
            where, index = divmod(action - base, MAX_N)
            spare = view.aircraft[me][where] - 1 if air else view.spare(where, me)
            scores[action] = move_in_score(index + 1, spare, needed - moved)
    return scores


def _target_choice(view: View, legal: list[int]) -> dict[int, float]:
    game = view.game
    kind = view.action.get("kind")
    scores: dict[int, float] = {}
    for action in legal:
        if game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 5.0  # Airborne Assault / Artillery Strike: more troops or dice
            continue
        area = action - game.TARGET_BASE
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
        elif game.PLAY_BASE <= action < game.REROLL_BASE:
            scores[action] = 3.0  # Mobilize: two more troops
        elif air:
            zone, index = divmod(action - game.ZONE_BASE, MAX_N)
            enemy_air = sum(view.aircraft[view.enemy][z] for z in range(board.num_zones) if board.zone_adj[zone] >> z & 1)
            scores[action] = 0.1 * (index + 1) + 0.2 * enemy_air - 0.05 * view.aircraft[me][zone]
        else:
            area, index = divmod(action - game.AREA_BASE, MAX_N)
            front = sum(view.area_worth(a) for a in view.adjacent(area)
                        if not view.troops[me][a] and a != board.hq[me])
            scores[action] = place_score(view, area, index + 1, front)
    return scores


def _defend_choice(view: View, legal: list[int]) -> dict[int, float]:
    """Play the defence card when the fight is close or the area matters."""
    target = int(view.action["target"])
    attacker = int(view.obs["active"])
    if int(view.action["unit"]) == 1:
        return card_if_close(legal, view.aircraft[attacker][target], view.aircraft[view.me][target], 1.0)
    return defend_scores(view, legal, attacker, target)


def _payload_choice(view: View, legal: list[int]) -> Scores:
    """The biggest payload, a card first."""
    game = view.game
    scores = {action: float(action) for action in legal}
    scores.update({a: 1e6 for a in legal if game.PLAY_BASE <= a < game.REROLL_BASE})
    return scores


def _reroll_choice(view: View, legal: list[int]) -> Scores:
    """Re-roll a bad roll (a WWII observation always names the dice and the roll)."""
    return reroll_scores(view, legal, int(view.action["dice"]), int(view.action["roll"]))


CHOOSERS: dict[str, Callable[[View, list[int]], Scores]] = {
    "turn": _turn_choice,
    "blitz-deploy": _turn_choice,
    "move-in": _move_choice,
    "target": _target_choice,
    "payload": _payload_choice,
    "place": _place_choice,
    "withdraw": done_first,
    "defend": _defend_choice,
    "reroll": _reroll_choice,
}


def scripted_action(game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """The rulebook's advice, from the observation alone; ties broken with `rng`."""
    return scripted_choice(View, CHOOSERS, game, observation, legal_actions, rng)

"""What the two General Orders knowledge modules (wwii/knowledge.py, sengoku/knowledge.py) share.

Both games play the same way (arena.games.general_orders.core and the family's library). Shared here: the weights,
memoised board look-ups, the squashed evaluation, the look-ahead boundary; the observation view's
common part (`FamilyView`), the scores both scripts give alike, and the frame that picks the
best-scored action. Each game's module keeps what differs: its units, the worth of an area, the
defence roll, and the choices of its own actions and phases.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Generic, Mapping, TypeVar, cast

from arena.games.base import JSON, Game, State
from arena.games.general_orders.core import ACCEPT, DECLINE, DONE, OVER, REROLL, TURN, Core, FamilyGame
from arena.games.general_orders.loader import FamilyBoard

SCALE = 8.0
CARD_VALUE = 0.35
INITIATIVE_VALUE = 0.6
HQ_DANGER_WEIGHT = 1.5  # per unit the HQ could be short of: losing it loses the game
DIE_MEAN = 1.0  # faces 0,1,1,1,1,2
WIN_GAME = 100.0

Scores = dict[int, float]

# --- evaluation (full states) -----------------------------------------------------------------

_VP_CACHE: dict[tuple[int, int], int] = {}


def vp_of(board: FamilyBoard, mask: int) -> int:
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


def neighbours(board: FamilyBoard, area: int) -> tuple[int, ...]:
    """Areas next to `area` (memoised per board)."""
    key = (id(board), area)
    known = _NEIGHBOURS.get(key)
    if known is None:
        mask = board.area_adj[area]
        known = _NEIGHBOURS[key] = tuple(a for a in range(board.num_areas) if mask >> a & 1)
    return known


def squashed_values(state: State, seat_strength: Callable[[State, int], float]) -> list[float]:
    """Both seats' values in [-1, 1] from their strengths; the returns once the game is over."""
    if family_state(state).phase == OVER:
        return state.returns()
    value = math.tanh((seat_strength(state, 0) - seat_strength(state, 1)) / SCALE)
    return [value, -value]


def value_features(state: State, seat_strength: Callable[[State, int], float]) -> list[float]:
    """What the luck's value model (arena.luck) reads of a position, each as seat 0's side less seat 1's: the
    evaluation's strength lead, its share of the game played, their product; VP supplied, troops on the board
    and in reserve; each kind of card in hand; the initiative; the round's progress."""
    family = family_state(state)
    board = family.game.board
    progress = min(1.0, family.round / board.rounds)
    lead = (seat_strength(state, 0) - seat_strength(state, 1)) / SCALE
    features = [lead, progress, lead * progress,
                (vp_of(board, family.supplied(0)) - vp_of(board, family.supplied(1))) / 5.0,
                (sum(family.troops[0]) - sum(family.troops[1])) / 5.0,
                (family.res_troops[0] - family.res_troops[1]) / 5.0,
                1.0 if family.initiative == 0 else -1.0 if family.initiative == 1 else 0.0]
    features.extend(float(mine - theirs) for mine, theirs in zip(family.hands[0], family.hands[1]))
    return features


def settle(state: State) -> State:
    """The position a chance outcome leads to once its own consequence is played: a roll kept (no card spent to
    roll again), so that what the roll decided is on the board. The luck's value model reads it there."""
    if family_state(state).phase == REROLL:
        settled = state.clone()
        settled.apply_action(ACCEPT)
        return settled
    return state


def is_lookahead_boundary(state: State) -> bool:
    """Greedy looks ahead to the end of the action: the next commander deployment (or the end)."""
    phase = family_state(state).phase
    return phase == TURN or phase == OVER


def family_state(state: State) -> Core:
    """A state of this family (the knowledge of a family is only given its own games' states)."""
    return cast(Core, state)


# --- scripted strategy (observations only) -------------------------------------------------------


GameT = TypeVar("GameT", bound=FamilyGame)


class FamilyView(Generic[GameT]):
    """What the script reads off an observation; a family's subclass adds its units, supply and dice."""

    def __init__(self, game: Game, observation: JSON) -> None:
        self.game: GameT = cast(GameT, game)  # (a family's script is only given its own games)
        self.board: FamilyBoard = self.game.board
        self.obs = observation
        self.me = int(observation["seat"])
        self.enemy = 1 - self.me
        self.reserve = [int(n) for n in observation["reserve_troops"]]
        card_ids = self.game.card_ids
        self.hand = {card_ids.index(kind): int(n) for kind, n in observation["hand"].items() if n}
        self.action = observation.get("action") or {}

    # --- the family's part ---

    def units(self, seat: int, area: int) -> int:
        """The units that hold `area` for `seat`."""
        raise NotImplementedError

    def threat(self, area: int, attacker: int) -> int:
        """Units `attacker` could move into `area` from the areas around it (what they can spare)."""
        raise NotImplementedError

    def defence_dice(self, area: int) -> float:
        """Expected pips of the defender's roll in `area`."""
        raise NotImplementedError

    def area_worth(self, area: int) -> float:
        """What holding `area` is worth to me."""
        raise NotImplementedError

    # --- shared ---

    def adjacent(self, area: int) -> tuple[int, ...]:
        """Areas next to `area` (the memoised `neighbours`)."""
        return neighbours(self.board, area)

    def hq_danger(self, seat: int) -> int:
        """How far the attackers next to `seat`'s HQ outnumber its garrison (an HQ is a land area)."""
        hq = self.board.hq[seat]
        return max(0, self.threat(hq, 1 - seat) - self.units(seat, hq) + 1)

    def spare(self, area: int, seat: int) -> int:
        """Units `seat` can take out of `area` and still hold it (more at the HQ when it is threatened)."""
        units = self.units(seat, area)
        keep = 1
        if area == self.board.hq[seat]:
            keep = max(1, self.threat(area, 1 - seat) + 1)
        elif self.threat(area, 1 - seat):
            keep = min(units, 2)
        return max(0, units - keep)

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

    def needed_to_take(self, area: int) -> int:
        """Units to move into `area` for the odds: enough to beat the defence roll, 2 where it matters."""
        defenders = self.units(self.enemy, area)
        needed = int(defenders + self.defence_dice(area) + 1) if defenders else 1
        return max(needed, 2 if self.area_worth(area) >= 2 else 1)


def advance_value(view: FamilyView[Any], link: int, sources: list[int]) -> float:
    """An attack on `link` with what `sources` can spare; more when `link` threatens my HQ."""
    me = view.me
    value = view.attack_value(link, sum(view.spare(a, me) for a in sources))
    danger = view.hq_danger(me)
    if danger and link in view.adjacent(view.board.hq[me]) and view.units(view.enemy, link):
        value += 1.5 * danger  # hitting the area that threatens the HQ
    return value


def reinforce_value(view: FamilyView[Any], troops: int) -> float:
    """A Reinforce of up to `troops` (what the reserve allows), worth most when the HQ is in danger."""
    placed = min(troops, view.reserve[view.me])
    return 0.45 * placed + 2.0 * min(view.hq_danger(view.me), placed)


def plan_value(view: FamilyView[Any], cards: int, initiative: Any) -> float:
    """A Plan drawing `cards`, more when it takes the initiative from the enemy (late rounds most)."""
    value = 0.4 * cards
    if initiative and int(view.obs["initiative"]) != view.me:
        value += 0.5 + 0.5 * int(view.obs["round"]) / view.board.rounds
    return value


def move_in_score(count: int, spare: int, still_needed: int) -> float:
    """Moving `count` units out of a source that can spare `spare`, `still_needed` short of the odds."""
    if count > max(spare, 0):
        return -2.0 - count  # would strip the source bare (or the HQ)
    useful = min(count, max(still_needed, 0))
    return useful - 0.1 * (count - useful) + 0.01 * spare


def place_score(view: FamilyView[Any], area: int, count: int, front: float) -> float:
    """Placing `count` troops in `area`: what its garrison lacks (an HQ in danger first), then the front."""
    me = view.me
    need = view.threat(area, view.enemy) + 1 - view.units(me, area)
    if area == view.board.hq[me]:
        need = max(need, view.hq_danger(me))
    useful = min(count, max(need, 0))
    return 2.0 * useful + 0.1 * front + 0.05 * count - 0.3 * max(0, count - max(need, 1))


def defend_scores(view: FamilyView[Any], legal: list[int], attacker: int, target: int) -> Scores:
    """Play the defence card when `attacker`'s fight for land area `target` is close or the area matters."""
    if target >= 0:
        attackers, defenders = view.units(attacker, target), view.units(view.me, target)
        worth = view.board.area_vp[target] + (WIN_GAME if target == view.board.hq[view.me] else 0.0)
    else:
        attackers, defenders, worth = 1, 0, 1.0
    return card_if_close(legal, attackers, defenders, worth)


def card_if_close(legal: list[int], attackers: int, defenders: int, worth: float) -> Scores:
    """Play the defence card (anything but Decline) when the attackers are as many or the area matters."""
    play = attackers >= defenders or worth >= 2
    return {action: (1.0 if (action != DECLINE) == play else 0.0) for action in legal}


def reroll_scores(view: FamilyView[Any], legal: list[int], dice: int, roll: int) -> Scores:
    """Re-roll a roll below the average, spending the card held in most copies."""
    bad = roll < dice * DIE_MEAN - 0.5
    scores = {}
    for action in legal:
        if action == ACCEPT:
            scores[action] = 0.0 if bad else 1.0
        else:
            kind = action - view.game.REROLL_BASE
            scores[action] = (0.5 if bad else -1.0) + 0.01 * view.hand.get(kind, 0)
    return scores


def done_first(view: FamilyView[Any], legal: list[int]) -> Scores:
    """Done as soon as it is allowed (withdraw nothing more)."""
    return {action: (1.0 if action == DONE else 0.0) for action in legal}


ViewT = TypeVar("ViewT", bound=FamilyView[Any])


def scripted_choice(view_class: type[ViewT], choosers: Mapping[str, Callable[[ViewT, list[int]], Scores]],
                    game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """The best action by the scores of the phase's chooser (unscored ones last); ties broken with `rng`."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    view = view_class(game, observation)
    chooser = choosers.get(observation["phase"])
    scores = chooser(view, legal_actions) if chooser is not None else {action: 0.0 for action in legal_actions}
    best = max(scores.get(action, -1e9) for action in legal_actions)
    return rng.choice([action for action in legal_actions if scores.get(action, -1e9) >= best - 1e-9])

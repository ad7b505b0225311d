"""Major General knowledge: a position evaluation (greedy, MCTS) and a hand-written strategy (scripted).

The evaluation reads a full state through the engine's public attributes (`units`, `supply`,
`cubes`, `cubes_left`, `played_count`, `scenario`, `phase`) and accessors (`controller`). It
scores, for Yellow, the points of the spaces each side holds (a one-unit lead counts for less
early on, when it is easy to lose), scenario cubes taken and likely to come, and units on the board;
the total is squashed into [-1, 1] and Red gets its negation.

The scripted strategy sees only the observation. For each card placement it plays the turn out in
its head: every command on the board fires in order from the active player's base, each player
resolving its own commands with the same rules of thumb (push and charge enemy units, sabotage
an enemy, move forward what is not needed to hold the space, rally from where units are spare,
deploy where it counts). It then weighs the board after its turn and after the commands left for
the opponent's turn, with the scenario card's objective in mind.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Callable, Sequence, cast

from arena.games.base import JSON, Game, State
from arena.games.major_general.data import (CARDS, CHARGE, COMMANDS, DEPLOY, MOVE, PUSH, RALLY, SABOTAGE, SCENARIOS,
    Scenario)
from arena.games.major_general.rules import (
    MajorGeneralState,
    CHOICE,
    DIRECTION,
    MOVE_BASE,
    NUM_CARDS,
    NUM_SPACES,
    DEAL,
    DRAW,
    OVER,
    PLAY,
    PLAY_ACTIONS,
    RALLY_BASE,
    RED,
    STOP_PUSHING,
    TARGET_YELLOW,
    UNITS_PER_SIDE,
    YELLOW,
    own_space,
    placement,
    space_value,
)

TOTAL_TURNS = 2 * NUM_CARDS
SCALE = 8.0  # an evaluation of 8 points is worth tanh(1) ~ 0.76
MATERIAL_WEIGHT = 0.35
# The worth of the turn to come, in points, to the seat that plays it (turn_values): the first mover's turns
# (where the second mover has just played) are worth little, the second mover's (where the first mover has just
# played: it answers every one, and nothing answers its last) much. Fitted (least squares of the chance against
# the result) at the turn starts of 6,000 matches, 2/3 greedy against greedy, 1/3 greedy against random:
# 0.33 and 3.03 over all of them, 0.34 and 3.54 between greedy players (`python bench/mg_tempo.py`: 6,000
# matches, seed 7); the second mover's taken between its two fits. Without them the first mover's chance is 0.12 too
# high at the second mover's turn starts (0.16 between greedy players); with them 0.00 (0.02).
TEMPO_FIRST = 0.33
TEMPO_SECOND = 3.25
# Each scenario card's own, turn by turn: its objective changes what a turn is worth, and a pair (the first
# mover's turns, the second's) fitted over whole matches left the first turns, where the analysis' searches leave
# their leaves, wrong on average (under hold the centre the first mover's chance was 0.14 too high at the second
# mover's first turn start between greedy players, `error_shipped_by_turn` of `python bench/mg_tempo.py --game
# major-general/hold-the-centre --games 1200 --seed 9`). So each card's tempo of each turn (by cards played
# before it: the first mover's turns even, the second's odd), fitted on that turn's starts alone by `python
# bench/mg_tempo.py --game major-general/ID --write` (tempos.json beside this module; the command that wrote
# each card's is kept there).
TEMPOS_FILE = Path(__file__).with_name("tempos.json")
SCENARIO_TEMPOS: dict[str, tuple[float, ...]] = {
    card: tuple(tempos) for card, tempos in json.loads(TEMPOS_FILE.read_text())["cards"].items()}
_NO_CARD = (TEMPO_FIRST, TEMPO_SECOND) * NUM_CARDS
_TEMPOS = tuple(SCENARIO_TEMPOS.get(scenario.id, _NO_CARD) for scenario in SCENARIOS)
# What the analysis' evaluation makes of a card's cubes still to come (yellow_advantage's flow: half of them, or
# all under a card that pays each side, to the side meeting the objective now), as a weight. Under hold the
# centre the side holding the centre is credited with half the cubes left, a hold the other side often breaks at
# once; a search seeks such holds, and its first decision flattered the first mover by 0.074 there with the
# whole flow (the tempos by turn fitted with it). Weighted 0.4 (a probe's least squares of the weight with the
# tempos at the turn starts: 0.3-0.5 for this card alone; the tempos fitted again with it), the first position
# is +0.046 (docs/writing-a-bot.md); the players keep the whole flow.
FLOW_WEIGHT = {"hold-the-centre": 0.4}
_FLOW_WEIGHTS = tuple(FLOW_WEIGHT.get(scenario.id, 1.0) for scenario in SCENARIOS)
SCENARIO_BY_ID = {scenario.id: scenario for scenario in SCENARIOS}

# --- evaluation (full states) -----------------------------------------------------------------


def _hold(margin: int, progress: float) -> float:
    """How surely a lead of `margin` units keeps a space until the end (1.0 at the last turn)."""
    return 1.0 - (1.0 - progress) * 0.35 / margin


def _meets(state: MajorGeneralState, seat: int, condition: str, space_from_base: int, on_board: Sequence[int]) -> bool:
    if condition == "controls_space":
        return state.controller(own_space(seat, space_from_base)) == seat
    if condition == "has_units_on_space":
        return state.units[2 * own_space(seat, space_from_base) + seat] > 0
    if condition == "more_units_on_board":
        return on_board[seat] > on_board[1 - seat]
    return False


def yellow_advantage(generic: State, flow_weight: float = 1.0) -> float:
    """Yellow's lead in estimated final points (negative when Red leads); the scenario cubes still to come to the
    side meeting its card's objective weighted by `flow_weight`."""
    state = cast(MajorGeneralState, generic)  # (a family's knowledge is only given its own games' states)
    units = state.units
    progress = state.played_count / TOTAL_TURNS
    advantage = 0.0
    for space in range(NUM_SPACES):
        margin = units[2 * space] - units[2 * space + 1]
        if margin > 0:
            advantage += (space + 1) * _hold(margin, progress)
        elif margin < 0:
            advantage -= (NUM_SPACES - space) * _hold(-margin, progress)
    cubes = state.cubes
    advantage += cubes[YELLOW] - cubes[RED]
    on_board = [UNITS_PER_SIDE - state.supply[YELLOW], UNITS_PER_SIDE - state.supply[RED]]
    advantage += MATERIAL_WEIGHT * (1.0 - progress) * (on_board[YELLOW] - on_board[RED])
    scenario_index = state.scenario
    cubes_left = state.cubes_left
    if scenario_index >= 0 and cubes_left:
        scenario = SCENARIOS[scenario_index]
        if scenario.trigger == "end_of_turn":
            turns_left = TOTAL_TURNS - state.played_count
            share = 1.0 if scenario.who == "each" else 0.5
            flow = 0.5 * share * min(cubes_left, turns_left) * flow_weight
            meets = [_meets(state, seat, scenario.condition, scenario.space_from_own_base, on_board)
                     for seat in (YELLOW, RED)]
            advantage += flow * (meets[YELLOW] - meets[RED])
    return advantage


def values(state: State) -> list[float]:
    """Both seats' values in [-1, 1]; the returns once the game is over."""
    if cast(MajorGeneralState, state).phase == OVER:
        return state.returns()
    value = math.tanh(yellow_advantage(state) / SCALE)
    return [value, -value]


def next_to_play(state: MajorGeneralState) -> int:
    """The seat that plays the next card (-1: no card is left to play, or who starts is not drawn yet)."""
    if state.active < 0 or state.played_count >= TOTAL_TURNS:
        return -1
    return state.active if state.phase in (PLAY, DEAL) else 1 - state.active


def tempos(scenario: int) -> tuple[float, ...]:
    """What each turn is worth (points) to the seat that plays it under a scenario card (-1: none), by cards played
    before it."""
    return _TEMPOS[scenario] if scenario >= 0 else _NO_CARD


def flow_weight(scenario: int) -> float:
    """The analysis' weight on a scenario card's cubes still to come (FLOW_WEIGHT; 1 for the rest, -1: no card)."""
    return _FLOW_WEIGHTS[scenario] if scenario >= 0 else 1.0


def turn_values(generic: State) -> list[float]:
    """Both seats' values with the coming turn credited to the seat that plays it: that turn's tempo (`tempos`:
    the scenario card's own, by turn) in points to its side (a turn places a card and fires every command on the
    board, from its player's base), the card's cubes to come weighted by `flow_weight`. For the analysis'
    searches (arena/analysis/match.py), whose leaves fall after either side's turn: `values` alone favours the
    first mover after its own turns (by 0.10-0.17 in chance between greedy players) and is about right after the
    second mover's."""
    state = cast(MajorGeneralState, generic)
    if state.phase == OVER:
        return state.returns()
    seat = next_to_play(state)
    worth = tempos(state.scenario)[state.played_count] if seat >= 0 else 0.0
    tempo = worth if seat == YELLOW else -worth
    value = math.tanh((yellow_advantage(state, flow_weight(state.scenario)) + tempo) / SCALE)
    return [value, -value]


def evaluate(state: State, seat: int) -> float:
    """The value of a full state for `seat`, in [-1, 1]."""
    return values(state)[seat]


def value_features(generic: State) -> list[float]:
    """What the luck's value model (arena.luck) reads of a position, each for Yellow less Red: the evaluation's
    lead (as it squashes it), its share of the game played, their product; the scenario cubes taken; each card
    of the game in hand (the cards a draw fills)."""
    state = cast(MajorGeneralState, generic)
    hands = state.hands or [0, 0]
    return _board_features(state) + _hand_features(hands)


def _board_features(state: MajorGeneralState) -> list[float]:
    """value_features' terms of all but the hands: the lead, the share played, their product, the cubes."""
    lead = yellow_advantage(state) / SCALE
    progress = state.played_count / TOTAL_TURNS
    return [math.tanh(lead), progress, lead * progress, (state.cubes[YELLOW] - state.cubes[RED]) / 3.0]


def _hand_features(hands: Sequence[int]) -> list[float]:
    """value_features' hand terms: each card of the game in Yellow's hand less in Red's."""
    return [yellow - red for yellow, red in zip(_CARD_BITS[hands[YELLOW]], _CARD_BITS[hands[RED]])]


def outcome_features(generic: State, outcomes: Sequence[int]) -> list[list[float]] | None:
    """value_features after each outcome of a draw (a card into the drawing seat's hand: the rest of the position is
    the same whichever card it is), the first outcome played and the others read off it by their hand alone, as
    value_features reads it; None for the other chance events (the scenario card, who starts), and where a card
    given is not in the drawing seat's deck (then playing it says why)."""
    state = cast(MajorGeneralState, generic)
    if state.phase not in (DEAL, DRAW) or not outcomes:
        return None
    first = cast(MajorGeneralState, state.clone())
    first.apply_action(outcomes[0])
    if first.phase == OVER:
        return None
    board = _board_features(first)
    hands = list(first.hands)
    seat = YELLOW if hands[YELLOW] != state.hands[YELLOW] else RED
    kept, deck = hands[seat] & ~(1 << outcomes[0]), state.decks[seat]
    rows = []
    for card in outcomes:
        if not 0 <= card < NUM_CARDS or not deck >> card & 1:
            return None
        hands[seat] = kept | 1 << card
        rows.append(board + _hand_features(hands))
    return rows


#: Each hand (a bit per card) as its cards' bits, 1.0 or 0.0 in card order: value_features' hand terms, looked up.
_CARD_BITS = [tuple(float(hand >> card & 1) for card in range(NUM_CARDS)) for hand in range(1 << NUM_CARDS)]


def is_lookahead_boundary(state: State) -> bool:
    """Greedy looks ahead to the end of the turn: commands resolved, before the next card or draw."""
    return cast(MajorGeneralState, state).phase != CHOICE


# --- scripted strategy (observations only) -------------------------------------------------------


class Board:
    """The mutable part of a position the script reasons about: units per space and seat, supply."""

    __slots__ = ("units", "supply", "scenario")

    def __init__(self, units: list[list[int]], supply: list[int], scenario: str | None) -> None:
        self.units = units
        self.supply = supply
        self.scenario = SCENARIO_BY_ID.get(scenario) if scenario else None

    @classmethod
    def from_observation(cls, observation: JSON) -> Board:
        """The board seen in an observation."""
        return cls([list(pair) for pair in observation["units"]], list(observation["supply"]),
                   observation.get("scenario"))

    def copy(self) -> Board:
        """An independent copy."""
        board = Board.__new__(Board)
        board.units = [pair[:] for pair in self.units]
        board.supply = self.supply[:]
        board.scenario = self.scenario
        return board

    def score(self, seat: int) -> float:
        """How good the board looks to `seat`: spaces held (more surely with more units), units, objective."""
        enemy = 1 - seat
        total = 0.0
        for space, pair in enumerate(self.units):
            margin = pair[seat] - pair[enemy]
            if margin > 0:
                total += space_value(seat, space) * (1.0 + 0.15 * min(margin - 1, 2))
            elif margin < 0:
                total -= space_value(enemy, space) * (1.0 + 0.15 * min(-margin - 1, 2))
        on_board = [UNITS_PER_SIDE - self.supply[s] for s in (0, 1)]
        material = 0.3
        scenario = self.scenario
        if scenario is not None:
            if scenario.condition == "more_units_on_board" or scenario.trigger == "on_destroy_enemy":
                material = 1.0
            elif scenario.condition in ("controls_space", "has_units_on_space"):
                total = self._with_objective(total, seat, scenario)
        return total + material * (on_board[seat] - on_board[enemy])

    def _with_objective(self, total: float, seat: int, scenario: Scenario) -> float:
        """`total`, +2 for `seat` meeting a space scenario's condition, -2 for its enemy meeting it (added in
        that order)."""
        for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
            target = self.units[own_space(side, scenario.space_from_own_base)]
            if scenario.condition == "controls_space":
                met = target[side] > target[1 - side]
            else:
                met = target[side] > 0
            total += sign * 2.0 * met
        return total

    # Commands, each resolved by its executor's rules of thumb.

    def execute(self, command: int, executor: int, space: int) -> None:
        """Carry out a whole command the way the script would choose."""
        if command == DEPLOY:
            if self.supply[executor]:
                self.deploy(executor, space)
            return
        if command == SABOTAGE:
            targets = self.targets(space)
            if targets:
                self.sabotage(executor, space, self.pick_target(executor, targets))
            return
        if command == RALLY:
            sources = self.rally_sources(executor, space)
            if sources:
                self.rally(executor, space, self.best_rally_source(executor, space, sources))
            return
        ahead = space + DIRECTION[executor]
        if not 0 <= ahead < NUM_SPACES or not self.units[space][executor]:
            return
        self._advance(command, executor, space, ahead)

    def _advance(self, command: int, executor: int, space: int, ahead: int) -> None:
        """Carry out a move, charge or push from `space` (which holds one of the executor's units) onto `ahead`."""
        if command == MOVE:
            self.move(executor, space, self.best_move_count(executor, space))
        elif command == CHARGE:
            targets = self.targets(ahead)
            if targets:
                self.charge(executor, space, self.pick_target(executor, targets))
        elif command == PUSH:
            self.keep_pushing(executor, space, steps=0)

    def keep_pushing(self, executor: int, space: int, steps: int) -> None:
        """Push from `space` until out of pushers or targets, or until stopping looks better."""
        ahead = space + DIRECTION[executor]
        while self.units[space][executor]:
            targets = self.targets(ahead)
            if not targets:
                return
            target = self.best_push(executor, space, targets, can_stop=steps > 0)
            if target is None:
                return
            self.push(executor, space, target)
            steps += 1

    def targets(self, space: int) -> list[int]:
        """Seats with a unit on `space`."""
        return [seat for seat in (YELLOW, RED) if self.units[space][seat]]

    @staticmethod
    def pick_target(executor: int, targets: list[int]) -> int:
        """Destroy an enemy unit when there is one."""
        return (1 - executor) if (1 - executor) in targets else targets[0]

    def rally_sources(self, executor: int, space: int) -> list[int]:
        """Spaces a rally onto `space` may take a unit from."""
        return [s for s in range(NUM_SPACES) if s != space and self.units[s][executor]]

    def best_rally_source(self, executor: int, space: int, sources: list[int]) -> int:
        """The source whose unit the board misses least."""
        return max(sources, key=lambda source: self._after(executor, lambda b: b.rally(executor, space, source)))

    def best_move_count(self, executor: int, space: int) -> int:
        """How many units to move ahead: the count that leaves the best board."""
        counts = range(1, self.units[space][executor] + 1)
        return max(counts, key=lambda count: (self._after(executor, lambda b: b.move(executor, space, count)), -count))

    def best_push(self, executor: int, space: int, targets: list[int], can_stop: bool) -> int | None:
        """The colour to push next, or None to stop."""
        options: list[tuple[float, int, int | None]] = []
        for target in targets:
            preference = 1 if target != executor else 0
            options.append((self._after(executor, lambda b: b.push(executor, space, target)), preference, target))
        if can_stop:
            options.append((self.score(executor), 2, None))
        return max(options, key=lambda option: (option[0], option[1]))[2]

    def _after(self, executor: int, change: Callable[[Board], object]) -> float:
        board = self.copy()
        change(board)
        return board.score(executor)

    def deploy(self, executor: int, space: int) -> None:
        self.units[space][executor] += 1
        self.supply[executor] -= 1

    def destroy(self, space: int, victim: int) -> None:
        self.units[space][victim] -= 1
        self.supply[victim] += 1

    def sabotage(self, executor: int, space: int, victim: int) -> None:
        self.destroy(space, victim)

    def rally(self, executor: int, space: int, source: int) -> None:
        self.units[source][executor] -= 1
        self.units[space][executor] += 1

    def move(self, executor: int, space: int, count: int) -> None:
        self.units[space][executor] -= count
        self.units[space + DIRECTION[executor]][executor] += count

    def charge(self, executor: int, space: int, victim: int) -> None:
        ahead = space + DIRECTION[executor]
        self.units[space][executor] -= 1
        self.units[ahead][executor] += 1
        self.destroy(ahead, victim)

    def push(self, executor: int, space: int, target: int) -> None:
        ahead = space + DIRECTION[executor]
        self.units[space][executor] -= 1
        self.units[ahead][executor] += 1
        beyond = ahead + DIRECTION[executor]
        if 0 <= beyond < NUM_SPACES:
            self.units[ahead][target] -= 1
            self.units[beyond][target] += 1


def _execution_order(active: int) -> range:
    return range(NUM_SPACES) if active == YELLOW else range(NUM_SPACES - 1, -1, -1)


def _run_turn(board: Board, top: list[tuple[int, int] | None], active: int) -> None:
    for space in _execution_order(active):
        command = top[space]
        if command is not None:
            board.execute(command[0], command[1], space)


def _top_commands(observation: JSON) -> list[tuple[int, int] | None]:
    return [None if item is None else (COMMANDS.index(item["command"]), int(item["owner"]))
            for item in observation["top"]]


def placement_score(observation: JSON, action: int) -> float:
    """How good playing `action` (a card placement) looks to the seat about to play it."""
    seat = int(observation["seat"])
    card, position, orientation = placement(action)
    near, far = (position, position + 1) if seat == YELLOW else (position + 1, position)
    top = _top_commands(observation)
    top[near] = (CARDS[card][orientation], seat)
    top[far] = (CARDS[card][1 - orientation], 1 - seat)
    board = Board.from_observation(observation)
    _run_turn(board, top, seat)
    after_mine = board.score(seat)
    _run_turn(board, top, 1 - seat)  # the opponent's turn fires the same commands again first
    return after_mine + 0.5 * board.score(seat)


def choice_score(observation: JSON, action: int) -> float:
    """How good one choice of the pending command looks to the seat making it."""
    pending = observation["pending"]
    command, executor, space = COMMANDS.index(pending["command"]), int(pending["executor"]), int(pending["space"])
    board = Board.from_observation(observation)
    if action == STOP_PUSHING:
        return board.score(executor)
    if action in (TARGET_YELLOW, TARGET_YELLOW + 1):
        target = action - TARGET_YELLOW
        preference = 0.05 if target != executor else 0.0
        if command == PUSH:
            board.push(executor, space, target)
            board.keep_pushing(executor, space, steps=int(pending["steps"]) + 1)
        elif command == CHARGE:
            board.charge(executor, space, target)
        elif command == SABOTAGE:
            board.sabotage(executor, space, target)
        elif command == DEPLOY:
            board.deploy(executor, space)
        return board.score(executor) + preference
    if MOVE_BASE <= action < RALLY_BASE:
        count = action - MOVE_BASE + 1
        board.move(executor, space, count)
        return board.score(executor) - 0.01 * count
    if RALLY_BASE <= action < STOP_PUSHING:
        board.rally(executor, space, action - RALLY_BASE)
        return board.score(executor)
    return board.score(executor)


def scripted_action(game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """A sensible human-style decision from the observation alone; ties broken with `rng`."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    if legal_actions[0] < PLAY_ACTIONS:
        scored = [(placement_score(observation, action), action) for action in legal_actions]
    else:
        scored = [(choice_score(observation, action), action) for action in legal_actions]
    best = max(score for score, _ in scored)
    return rng.choice([action for score, action in scored if score >= best - 1e-9])

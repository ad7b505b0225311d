"""Major General: Duel of Time (APE Games), the complete rules.

Variant: the printed rulebook (../shared/seeds/major-general-duel-of-time.en.txt). Departures and
readings of open points are in docs/rules-decisions.md, section "Major General":
- the 8 cards and the 5 scenario cards are reconstructions (data/*.json);
- a played card lies over two adjacent spaces; the half facing the player who plays it lies on the
  space nearer that player's base (MG-17a);
- forced choices (a single option) are resolved without asking; every real choice is a decision
  of the player who executes the command (MG-19);
- a tie is recorded as a draw (MG-21).

Board: spaces 0..4, Yellow's base is space 0, Red's base space 4. Seat 0 is Yellow, seat 1 Red.

Action space (82 ids):
  0..63   play card c at position p (spaces p and p+1) with orientation o: id = c*8 + p*2 + o;
          o = 0: the card's first command faces the player, o = 1: its second command does
  64, 65  choose a Yellow / a Red unit (push target, charge target, sabotage victim)
  66..75  move 1..10 units ahead
  76..80  rally a unit from space 1..5
  81      stop pushing
Chance outcomes (15 ids): 0..7 draw card 0..7; 8, 9 Yellow / Red starts; 10..14 scenario card.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Callable

from arena.games.base import (
    CHANCE,
    JSON,
    TERMINAL,
    Game,
    GameInfo,
    IllegalActionError,
    Outcome,
    State,
    StateFormatError,
    ranking_from_scores,
)
from arena.games.major_general.data import (
    CARDS,
    CHARGE,
    COMMANDS,
    CUBE_POOL,
    DEPLOY,
    MOVE,
    PUSH,
    RALLY,
    SABOTAGE,
    SCENARIO_IDS,
    SCENARIOS,
    Scenario,
)

YELLOW, RED = 0, 1
SEAT_NAMES = ("Yellow", "Red")
NUM_SPACES = 5
NUM_CARDS = len(CARDS)
ALL_CARDS = (1 << NUM_CARDS) - 1
HAND_SIZE = 3
UNITS_PER_SIDE = 10

# Decision action ids.
PLAY_ACTIONS = NUM_CARDS * 8
TARGET_YELLOW = PLAY_ACTIONS  # 64
TARGET_RED = TARGET_YELLOW + 1  # 65
MOVE_BASE = TARGET_RED + 1  # 66: move 1 unit .. 75: move 10 units
RALLY_BASE = MOVE_BASE + UNITS_PER_SIDE  # 76: rally from space 0 .. 80: from space 4
STOP_PUSHING = RALLY_BASE + NUM_SPACES  # 81
NUM_ACTIONS = STOP_PUSHING + 1

# Chance outcome ids.
FIRST_PLAYER_BASE = NUM_CARDS  # 8, 9
SCENARIO_BASE = FIRST_PLAYER_BASE + 2  # 10..14
NUM_CHANCE_OUTCOMES = SCENARIO_BASE + len(SCENARIOS)

# Phases.
SETUP_SCENARIO, SETUP_FIRST, DEAL, PLAY, CHOICE, DRAW, OVER = range(7)
PHASE_NAMES = ("setup-scenario", "setup-first-player", "deal", "play", "choice", "draw", "over")

DIRECTION = (1, -1)  # "ahead" for Yellow and Red
BASE_SPACE = (0, NUM_SPACES - 1)
START_UNITS = (3, 3, 2, 0, 0)  # per space counted from the owner's base (MG-20)
EMPTY = -1  # no command on a space


def space_value(seat: int, space: int) -> int:
    """Points for controlling `space`, counted 1..5 from `seat`'s base."""
    return space + 1 if seat == YELLOW else NUM_SPACES - space


def own_space(seat: int, count_from_base: int) -> int:
    """The board index of the space `count_from_base` (1..5) counted from `seat`'s base."""
    return count_from_base - 1 if seat == YELLOW else NUM_SPACES - count_from_base


def placement(action: int) -> tuple[int, int, int]:
    """(card, position, orientation) of a play action."""
    return action >> 3, (action >> 1) & 3, action & 1


def card_name(card: int) -> str:
    """A card's name: its two commands."""
    first, second = CARDS[card]
    return f"{COMMANDS[first].title()}/{COMMANDS[second].title()}"


# Labels are pure functions of an action (and of the seat or the space it is for): each is made once. A match labels
# every step it plays (the record's "label"), so this is on the match loop's path.

@lru_cache(maxsize=None)
def _action_label(action: int) -> str:
    """What a decision's action does, in words ("play Move/Charge on spaces 1-2: ...")."""
    if 0 <= action < PLAY_ACTIONS:
        card, position, orientation = placement(action)
        mine, theirs = CARDS[card][orientation], CARDS[card][1 - orientation]
        return (
            f"play {card_name(card)} on spaces {position + 1}-{position + 2}: "
            f"{COMMANDS[mine]} for you, {COMMANDS[theirs]} for your opponent"
        )
    if action in (TARGET_YELLOW, TARGET_RED):
        return f"choose a {SEAT_NAMES[action - TARGET_YELLOW]} unit"
    if MOVE_BASE <= action < RALLY_BASE:
        count = action - MOVE_BASE + 1
        return f"move {count} unit{'s' if count > 1 else ''} ahead"
    if RALLY_BASE <= action < STOP_PUSHING:
        return f"rally a unit from space {action - RALLY_BASE + 1}"
    if action == STOP_PUSHING:
        return "stop pushing"
    raise IllegalActionError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")


@lru_cache(maxsize=None)
def _chance_label(outcome: int) -> str:
    """What a chance outcome is, in words ("draw Move/Charge", "Red starts")."""
    if 0 <= outcome < NUM_CARDS:
        return f"draw {card_name(outcome)}"
    if FIRST_PLAYER_BASE <= outcome < SCENARIO_BASE:
        return f"{SEAT_NAMES[outcome - FIRST_PLAYER_BASE]} starts"
    if SCENARIO_BASE <= outcome < NUM_CHANCE_OUTCOMES:
        return f"scenario: {SCENARIOS[outcome - SCENARIO_BASE].name}"
    raise IllegalActionError(f"chance outcome {outcome} is outside 0..{NUM_CHANCE_OUTCOMES - 1}")


@lru_cache(maxsize=None)
def _draw_label(seat: int, card: int) -> str:
    """A card drawn by a seat, as the record says it (spectators read State.spectator_label instead)."""
    return f"{SEAT_NAMES[seat]} draws {card_name(card)}"


@lru_cache(maxsize=None)
def _play_label(player: int, action: int) -> str:
    """A seat's play of a card, as the record says it."""
    name = SEAT_NAMES[player]
    card, position, orientation = placement(action)
    near, far = (position, position + 1) if player == YELLOW else (position + 1, position)
    mine, theirs = CARDS[card][orientation], CARDS[card][1 - orientation]
    return (
        f"{name} plays {card_name(card)}: {COMMANDS[mine]} for {name} on space {near + 1}, "
        f"{COMMANDS[theirs]} for {SEAT_NAMES[1 - player]} on space {far + 1}"
    )


@lru_cache(maxsize=None)
def _choice_label(player: int, command: int, space: int, action: int) -> str:
    """A seat's choice in a command it executes on a space."""
    return f"{SEAT_NAMES[player]} {COMMANDS[command]} on space {space + 1}: {_action_label(action)}"


# the cards of every mask, for the hot path (observations): 2^NUM_CARDS small tuples
_CARDS_IN = tuple(tuple(card for card in range(NUM_CARDS) if mask >> card & 1) for mask in range(1 << NUM_CARDS))


def _cards_in(mask: int) -> list[int]:
    return list(_CARDS_IN[mask]) if mask < len(_CARDS_IN) else [card for card in range(NUM_CARDS) if mask >> card & 1]


def _mask_of(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        if not 0 <= card < NUM_CARDS or mask >> card & 1:
            raise StateFormatError(f"bad or repeated card {card!r}")
        mask |= 1 << card
    return mask


class MajorGeneralGame(Game):
    """Major General: Duel of Time, with a scenario option: 'random', 'none' or a scenario id."""

    rules_version = "1"

    def __init__(self, scenario: str = "random", name: str | None = None) -> None:
        if scenario not in ("random", "none") and scenario not in SCENARIO_IDS:
            choices = ", ".join(("random", "none") + SCENARIO_IDS)
            raise ValueError(f"unknown scenario {scenario!r}; choose one of {choices}")
        self.scenario_option = scenario
        if name is None:
            name = "major-general" if scenario == "random" else f"major-general/{scenario}"
        self._info = GameInfo(
            name=name,
            title="Major General: Duel of Time",
            num_seats=2,
            num_actions=NUM_ACTIONS,
            num_chance_outcomes=NUM_CHANCE_OUTCOMES,
            max_game_length=2 * NUM_CARDS * (1 + NUM_SPACES * (UNITS_PER_SIDE + 1)) + 20,
            has_hidden_information=True,
            has_chance=True,
            seat_names=SEAT_NAMES,
            options={"scenario": scenario},
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    def new_initial_state(self) -> MajorGeneralState:
        state = MajorGeneralState(self)
        state.units = [0] * (2 * NUM_SPACES)
        for seat in (YELLOW, RED):
            for count_from_base, units in enumerate(START_UNITS, start=1):
                state.units[2 * own_space(seat, count_from_base) + seat] = units
        state.supply = [UNITS_PER_SIDE - sum(START_UNITS)] * 2
        state.top = [EMPTY] * NUM_SPACES
        state.hands = [0, 0]
        state.decks = [ALL_CARDS, ALL_CARDS]
        state.first = -1
        state.active = -1
        state.played_count = 0
        state.cubes = [0, 0]
        state.cubes_left = CUBE_POOL
        state.cursor = 0
        state.pending = EMPTY
        state.steps = 0
        state.reason = ""
        if self.scenario_option == "random":
            state.scenario = -1
            state.phase = SETUP_SCENARIO
        else:
            state.scenario = -1 if self.scenario_option == "none" else SCENARIO_IDS.index(self.scenario_option)
            state.phase = SETUP_FIRST
        return state

    def action_label(self, action: int) -> str:
        return _action_label(action)

    def chance_label(self, outcome: int) -> str:
        return _chance_label(outcome)

    def state_from_json(self, data: JSON) -> MajorGeneralState:
        return MajorGeneralState.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> MajorGeneralState:
        """Sample the opponent's hand from their unplayed cards; decks hold the rest."""
        try:
            seat = int(observation["seat"])
            data = dict(observation)
            hands: list[list[int]] = [[], []]
            decks: list[list[int]] = [[], []]
            for owner in (YELLOW, RED):
                played = _mask_of(list(observation["played"][owner]))
                unseen = [card for card in range(NUM_CARDS) if not played >> card & 1]
                if owner == seat:
                    hands[owner] = sorted(observation["hand"])
                    decks[owner] = [card for card in unseen if card not in hands[owner]]
                else:
                    rng.shuffle(unseen)
                    size = int(observation["hand_sizes"][owner])
                    hands[owner] = sorted(unseen[:size])
                    decks[owner] = sorted(unseen[size:])
                if len(decks[owner]) != int(observation["deck_sizes"][owner]):
                    raise StateFormatError("observation's card counts do not add up")
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"not a Major General observation: {error}") from None
        for key in ("seat", "hand", "hand_sizes", "deck_sizes"):
            data.pop(key)
        data["hands"], data["decks"] = hands, decks
        return MajorGeneralState.from_json(self, data)


class MajorGeneralState(State):
    """A Major General position. Units are kept as units[2 * space + seat]."""

    __slots__ = (
        "_game", "units", "supply", "top", "hands", "decks", "phase", "first", "active",
        "played_count", "scenario", "cubes", "cubes_left", "cursor", "pending", "steps", "reason",
    )

    def __init__(self, game: MajorGeneralGame) -> None:
        self._game = game
        self.units: list[int] = []
        self.supply: list[int] = []
        self.top: list[int] = []  # per space: command * 2 + owner of the top visible half, or EMPTY
        self.hands: list[int] = []  # bitmask of cards per seat
        self.decks: list[int] = []  # bitmask of cards per seat (a deck has no order: draws are chance)
        self.phase = SETUP_FIRST
        self.first = -1
        self.active = -1
        self.played_count = 0
        self.scenario = -1
        self.cubes: list[int] = [0, 0]
        self.cubes_left = CUBE_POOL
        self.cursor = 0  # index into this turn's execution order (0..5)
        self.pending = EMPTY  # the command waiting for a choice, as command * 2 + executor
        self.steps = 0  # choices the pending command has carried out (pushes made, for Push)
        self.reason = ""

    # --- State interface ---------------------------------------------------------------------

    @property
    def game(self) -> MajorGeneralGame:
        return self._game

    def current_player(self) -> int:
        phase = self.phase
        if phase == PLAY:
            return self.active
        if phase == CHOICE:
            return self.pending & 1
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            actions: list[int] = []
            hand = self.hands[self.active]
            for card in range(NUM_CARDS):
                if hand >> card & 1:
                    actions.extend(range(card * 8, card * 8 + 8))
            return actions
        if phase == CHOICE:
            return self._choices()
        if phase == OVER:
            return []
        return [outcome for outcome, _ in self.chance_outcomes()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == DEAL or phase == DRAW:
            cards = _cards_in(self.decks[self._drawing_seat()])
            return [(card, 1.0 / len(cards)) for card in cards]
        if phase == SETUP_FIRST:
            return [(FIRST_PLAYER_BASE, 0.5), (FIRST_PLAYER_BASE + 1, 0.5)]
        if phase == SETUP_SCENARIO:
            share = 1.0 / len(SCENARIOS)
            return [(SCENARIO_BASE + index, share) for index in range(len(SCENARIOS))]
        return []

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == PLAY:
            if not (0 <= action < PLAY_ACTIONS and self.hands[self.active] >> (action >> 3) & 1):
                self._reject(action)
            self._play(action)
        elif phase == CHOICE:
            if action not in self._choices():
                self._reject(action)
            self._resolve(action)
            self._execute()
        elif phase == OVER:
            self._reject(action)
        else:
            self._apply_chance(action)

    def clone(self) -> MajorGeneralState:
        other = MajorGeneralState.__new__(MajorGeneralState)
        other._game = self._game
        other.units = self.units[:]
        other.supply = self.supply[:]
        other.top = self.top[:]
        other.hands = self.hands[:]
        other.decks = self.decks[:]
        other.phase = self.phase
        other.first = self.first
        other.active = self.active
        other.played_count = self.played_count
        other.scenario = self.scenario
        other.cubes = self.cubes[:]
        other.cubes_left = self.cubes_left
        other.cursor = self.cursor
        other.pending = self.pending
        other.steps = self.steps
        other.reason = self.reason
        return other

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        scores = self.scores()
        return Outcome(ranking_from_scores(scores), self.reason, tuple(float(s) for s in scores))

    def spectator_label(self, action: int) -> str | None:
        """A card drawn is hidden from spectators (who starts and the scenario are public)."""
        if self.phase in (DEAL, DRAW) and 0 <= action < NUM_CARDS:
            return f"{SEAT_NAMES[self._drawing_seat()]} draws a card"
        return None

    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        if player == CHANCE:
            if self.phase in (DEAL, DRAW) and 0 <= action < NUM_CARDS:
                return _draw_label(self._drawing_seat(), action)
            return _chance_label(action)
        if player == TERMINAL:
            return _action_label(action)
        if 0 <= action < PLAY_ACTIONS:
            return _play_label(player, action)
        if self.phase == CHOICE:
            return _choice_label(player, self.pending >> 1, self._execution_space(), action)
        return f"{SEAT_NAMES[player]}: {_action_label(action)}"

    # --- scoring -----------------------------------------------------------------------------

    def controller(self, space: int) -> int:
        """The seat controlling `space` (strictly more units), or -1."""
        yellow, red = self.units[2 * space], self.units[2 * space + 1]
        if yellow > red:
            return YELLOW
        if red > yellow:
            return RED
        return -1

    def territory_points(self, seat: int) -> int:
        """Points for the spaces `seat` controls."""
        return sum(space_value(seat, space) for space in range(NUM_SPACES) if self.controller(space) == seat)

    def scores(self) -> list[int]:
        """Territory points plus scenario cubes, per seat."""
        return [self.territory_points(seat) + self.cubes[seat] for seat in (YELLOW, RED)]

    # --- turn flow ---------------------------------------------------------------------------

    def _reject(self, action: int) -> None:
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalActionError(f"action {action} is illegal: the game is over")
        try:
            label = self.action_to_string(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"action {action} is illegal: {error}") from None
        if player == CHANCE:
            why = "it is not a possible chance outcome here"
        elif self.phase == PLAY and 0 <= action < PLAY_ACTIONS:
            why = f"{card_name(action >> 3)} is not in {SEAT_NAMES[player]}'s hand"
        elif self.phase == PLAY:
            why = f"{SEAT_NAMES[player]} must play a card now"
        else:
            options = ", ".join(self._game.action_label(a) for a in self._choices())
            why = f"the {COMMANDS[self.pending >> 1]} command allows only: {options}"
        raise IllegalActionError(f"action {action} ({label}) is illegal: {why}")

    def _drawing_seat(self) -> int:
        if self.phase == DRAW:
            return self.active
        # Dealing: the starting player draws 3, then the other player.
        held = bin(self.hands[self.first]).count("1")
        return self.first if held < HAND_SIZE else 1 - self.first

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if phase == SETUP_SCENARIO:
            if not SCENARIO_BASE <= outcome < NUM_CHANCE_OUTCOMES:
                self._reject(outcome)
            self.scenario = outcome - SCENARIO_BASE
            self.phase = SETUP_FIRST
        elif phase == SETUP_FIRST:
            if not FIRST_PLAYER_BASE <= outcome < SCENARIO_BASE:
                self._reject(outcome)
            self.first = outcome - FIRST_PLAYER_BASE
            self.active = self.first
            self.phase = DEAL
        else:
            seat = self._drawing_seat()
            if not (0 <= outcome < NUM_CARDS and self.decks[seat] >> outcome & 1):
                self._reject(outcome)
            self.decks[seat] &= ~(1 << outcome)
            self.hands[seat] |= 1 << outcome
            if phase == DRAW:
                self._next_turn()
            elif bin(self.hands[1 - self.first]).count("1") == HAND_SIZE:
                self.phase = PLAY

    def _play(self, action: int) -> None:
        seat = self.active
        card, position, orientation = action >> 3, (action >> 1) & 3, action & 1
        near, far = (position, position + 1) if seat == YELLOW else (position + 1, position)
        commands = CARDS[card]
        self.top[near] = commands[orientation] * 2 + seat
        self.top[far] = commands[1 - orientation] * 2 + (1 - seat)
        self.hands[seat] &= ~(1 << card)
        self.played_count += 1
        self.cursor = 0
        self._execute()

    def _execution_space(self) -> int:
        return self.cursor if self.active == YELLOW else NUM_SPACES - 1 - self.cursor

    def _execute(self) -> None:
        """Run the commands from the cursor on; stop at the first real choice, else end the turn."""
        while self.cursor < NUM_SPACES:
            if self.pending == EMPTY:
                top = self.top[self._execution_space()]
                if top == EMPTY:
                    self.cursor += 1
                    continue
                self.pending = top
                self.steps = 0
            choices = self._choices()
            while len(choices) == 1:  # a forced choice is made for the player (MG-19)
                self._resolve(choices[0])
                choices = self._choices()
            if choices:
                self.phase = CHOICE
                return
            self.pending = EMPTY
            self.cursor += 1
        self._end_turn()

    def _end_turn(self) -> None:
        self.pending = EMPTY
        if self.scenario >= 0 and SCENARIOS[self.scenario].trigger == "end_of_turn":
            self._score_end_of_turn(SCENARIOS[self.scenario])
        if self.decks[self.active]:
            self.phase = DRAW
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        if self.played_count == 2 * NUM_CARDS:
            self.phase = OVER
            self.reason = "score"
            return
        self.active = 1 - self.active
        self.phase = PLAY

    # --- commands ----------------------------------------------------------------------------

    def _choices(self) -> list[int]:
        """The options of the pending command, [] when it can do nothing (more)."""
        pending = self.pending
        if pending == EMPTY:
            return []
        return _OPTIONS_OF[pending >> 1](self, pending & 1, self._execution_space())

    # Each command's options for `seat` executing it on `space` (the first three act on that space, the others
    # on the one ahead, so they have none when the seat has no unit there or nothing is ahead).

    def _deploy_options(self, seat: int, space: int) -> list[int]:
        return [TARGET_YELLOW + seat] if self.supply[seat] and not self.steps else []

    def _sabotage_options(self, seat: int, space: int) -> list[int]:
        if self.steps:
            return []
        units = self.units
        return [TARGET_YELLOW + s for s in (YELLOW, RED) if units[2 * space + s]]

    def _rally_options(self, seat: int, space: int) -> list[int]:
        if self.steps:
            return []
        units = self.units
        return [RALLY_BASE + s for s in range(NUM_SPACES) if s != space and units[2 * s + seat]]

    def _move_options(self, seat: int, space: int) -> list[int]:
        mine = self.units[2 * space + seat]
        if self.steps or not mine or not 0 <= space + DIRECTION[seat] < NUM_SPACES:
            return []
        return list(range(MOVE_BASE, MOVE_BASE + mine))

    def _charge_options(self, seat: int, space: int) -> list[int]:
        units = self.units
        ahead = space + DIRECTION[seat]
        if self.steps or not units[2 * space + seat] or not 0 <= ahead < NUM_SPACES:
            return []
        return [TARGET_YELLOW + s for s in (YELLOW, RED) if units[2 * ahead + s]]

    def _push_options(self, seat: int, space: int) -> list[int]:
        """Each pusher may push a unit of either colour already in the space ahead."""
        units = self.units
        ahead = space + DIRECTION[seat]
        if not units[2 * space + seat] or not 0 <= ahead < NUM_SPACES:
            return []
        targets = [TARGET_YELLOW + s for s in (YELLOW, RED) if units[2 * ahead + s]]
        if self.steps and targets:
            targets.append(STOP_PUSHING)
        return targets

    def _resolve(self, choice: int) -> None:
        """Carry out one choice of the pending command (already known to be legal)."""
        command, seat = self.pending >> 1, self.pending & 1
        space = self._execution_space()
        units = self.units
        if command == DEPLOY:
            units[2 * space + seat] += 1
            self.supply[seat] -= 1
            self.steps = 1  # done
            return
        if command == SABOTAGE:
            self._destroy(space, choice - TARGET_YELLOW, seat)
            self.steps = 1
            return
        if command == RALLY:
            source = choice - RALLY_BASE
            units[2 * source + seat] -= 1
            units[2 * space + seat] += 1
            self.steps = 1
            return
        ahead = space + DIRECTION[seat]
        if command == MOVE:
            count = choice - MOVE_BASE + 1
            units[2 * space + seat] -= count
            units[2 * ahead + seat] += count
            self.steps = 1
            return
        if command == CHARGE:
            units[2 * space + seat] -= 1
            units[2 * ahead + seat] += 1
            self._destroy(ahead, choice - TARGET_YELLOW, seat)
            self.steps = 1
            return
        # PUSH
        if choice == STOP_PUSHING:  # never a forced choice: it always comes with a push option
            self.pending = EMPTY
            self.cursor += 1
            return
        target = choice - TARGET_YELLOW
        units[2 * space + seat] -= 1
        units[2 * ahead + seat] += 1
        beyond = ahead + DIRECTION[seat]
        if 0 <= beyond < NUM_SPACES:  # a unit pushed off the last space stays (MG-18b)
            units[2 * ahead + target] -= 1
            units[2 * beyond + target] += 1
        self.steps += 1

    def _destroy(self, space: int, victim: int, destroyer: int) -> None:
        self.units[2 * space + victim] -= 1
        self.supply[victim] += 1
        if victim != destroyer and self.scenario >= 0:
            scenario = SCENARIOS[self.scenario]
            if scenario.trigger == "on_destroy_enemy":
                self._award(destroyer)

    # --- scenarios ---------------------------------------------------------------------------

    def _award(self, seat: int) -> None:
        if self.cubes_left:
            self.cubes_left -= 1
            self.cubes[seat] += 1

    def _meets(self, scenario: Scenario, seat: int) -> bool:
        if scenario.condition == "controls_space":
            return self.controller(own_space(seat, scenario.space_from_own_base)) == seat
        if scenario.condition == "has_units_on_space":
            return self.units[2 * own_space(seat, scenario.space_from_own_base) + seat] > 0
        if scenario.condition == "more_units_on_board":
            totals = [UNITS_PER_SIDE - self.supply[s] for s in (YELLOW, RED)]
            return totals[seat] > totals[1 - seat]
        return True

    def _score_end_of_turn(self, scenario: Scenario) -> None:
        if scenario.who == "active":
            seats: tuple[int, ...] = (self.active,)
        elif scenario.who == "inactive":
            seats = (1 - self.active,)
        else:
            seats = (self.active, 1 - self.active)
        for seat in seats:
            if self._meets(scenario, seat):
                self._award(seat)

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        top = []
        for code in self.top:
            top.append(None if code == EMPTY else {"command": COMMANDS[code >> 1], "owner": code & 1})
        played = [_cards_in(ALL_CARDS & ~self.hands[s] & ~self.decks[s]) for s in (YELLOW, RED)]
        pending = None
        if self.phase == CHOICE:
            pending = {
                "command": COMMANDS[self.pending >> 1],
                "executor": self.pending & 1,
                "space": self._execution_space(),
                "steps": self.steps,
            }
        return {
            "game": self._game.name,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "first": self.first,
            "active": self.active,
            "turn": self.played_count,
            "units": [[self.units[2 * s], self.units[2 * s + 1]] for s in range(NUM_SPACES)],
            "supply": list(self.supply),
            "top": top,
            "played": played,
            "scenario": None if self.scenario < 0 else SCENARIOS[self.scenario].id,
            "scenario_points": list(self.cubes),
            "cubes_left": self.cubes_left,
            "cursor": self.cursor,
            "pending": pending,
            "reason": self.reason,
        }

    def to_json(self) -> JSON:
        data = self._public_json()
        data["hands"] = [_cards_in(hand) for hand in self.hands]
        data["decks"] = [_cards_in(deck) for deck in self.decks]
        return data

    def observation(self, seat: int) -> JSON:
        if seat not in (YELLOW, RED):
            raise ValueError(f"seat {seat} is not a seat of Major General (0 or 1)")
        data = self._public_json()
        data["seat"] = seat
        data["hand"] = _cards_in(self.hands[seat])
        data["hand_sizes"] = [bin(hand).count("1") for hand in self.hands]
        data["deck_sizes"] = [bin(deck).count("1") for deck in self.decks]
        return data

    @classmethod
    def from_json(cls, game: MajorGeneralGame, data: JSON) -> MajorGeneralState:
        """Rebuild a state from `to_json()` output, checking that it is self-consistent."""
        try:
            state = cls(game)
            state._read_board(data)
            state.hands = [_mask_of(list(cards)) for cards in data["hands"]]
            state.decks = [_mask_of(list(cards)) for cards in data["decks"]]
            state.phase = PHASE_NAMES.index(data["phase"])
            state.first = int(data["first"])
            state.active = int(data["active"])
            state.played_count = int(data["turn"])
            scenario = data["scenario"]
            state.scenario = -1 if scenario is None else SCENARIO_IDS.index(scenario)
            state.cubes = [int(n) for n in data["scenario_points"]]
            state.cubes_left = int(data["cubes_left"])
            state.cursor = int(data["cursor"])
            pending = data["pending"]
            if pending is not None:
                state.pending = COMMANDS.index(pending["command"]) * 2 + int(pending["executor"])
                state.steps = int(pending["steps"])
            state.reason = str(data.get("reason", ""))
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"not a Major General state: {error!r}") from None
        state._validate(data)
        return state

    def _read_board(self, data: JSON) -> None:
        """The units on the board and in supply, and the command on top of each space, from `to_json()` output."""
        self.units = [int(n) for pair in data["units"] for n in pair]
        self.supply = [int(n) for n in data["supply"]]
        self.top = [
            EMPTY if item is None else COMMANDS.index(item["command"]) * 2 + int(item["owner"])
            for item in data["top"]
        ]

    def _validate(self, data: JSON) -> None:
        problems = self._unit_problems()
        if len(self.hands) != 2 or len(self.decks) != 2 or len(self.cubes) != 2:
            problems.append("not one hand, one deck and one scenario score a side")
        elif any(h & d for h, d in zip(self.hands, self.decks)):
            problems.append("a card is both in hand and in the deck")
        if sum(self.cubes) + self.cubes_left != CUBE_POOL:
            problems.append("scenario cubes do not add up")
        if self.phase == CHOICE and data.get("pending") is None:
            problems.append("a choice phase needs a pending command")
        if problems:
            raise StateFormatError("inconsistent Major General state: " + "; ".join(problems))

    def _unit_problems(self) -> list[str]:
        """What is wrong with the board's size or its unit counts (a side's units on the board and in supply)."""
        if len(self.units) != 2 * NUM_SPACES or len(self.top) != NUM_SPACES or len(self.supply) != 2:
            return ["wrong board size"]
        if any(n < 0 for n in self.units + self.supply):
            return ["negative unit count"]
        return [f"{SEAT_NAMES[seat]} does not have {UNITS_PER_SIDE} units" for seat in (YELLOW, RED)
                if sum(self.units[seat::2]) + self.supply[seat] != UNITS_PER_SIDE]

    # --- display -----------------------------------------------------------------------------

    def board_text(self) -> str:
        """The board as a few lines of text: commands, units, and points per space."""
        width = 11
        lines = []
        header = ["", "Yellow base", "2", "3 (middle)", "4", "Red base"]
        commands = ["command"]
        for code in self.top:
            commands.append("-" if code == EMPTY else f"{COMMANDS[code >> 1]}>{SEAT_NAMES[code & 1][0]}")
        yellow = ["Yellow"] + [str(self.units[2 * s]) for s in range(NUM_SPACES)]
        red = ["Red"] + [str(self.units[2 * s + 1]) for s in range(NUM_SPACES)]
        control = ["control"] + [
            "-" if self.controller(s) < 0 else SEAT_NAMES[self.controller(s)][0] for s in range(NUM_SPACES)
        ]
        for row in (header, commands, yellow, red, control):
            lines.append(row[0].ljust(8) + "".join(cell.center(width) for cell in row[1:]))
        scenario = "none" if self.scenario < 0 else SCENARIOS[self.scenario].name
        scores = self.scores()
        lines.append(f"supply Y{self.supply[0]} R{self.supply[1]} | cards played {self.played_count}/16 | "
                     f"score Y{scores[0]} R{scores[1]}")
        lines.append(f"scenario: {scenario} (cubes Y{self.cubes[0]} R{self.cubes[1]}, {self.cubes_left} left)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<MajorGeneralState {PHASE_NAMES[self.phase]} turn {self.played_count} units {self.units}>"


def scenario_by_id(scenario_id: str) -> Scenario:
    """The scenario card with this id."""
    return SCENARIOS[SCENARIO_IDS.index(scenario_id)]


# Each command's options (MajorGeneralState._choices), indexed by command: a global, the cheapest look-up.
_OPTIONS: dict[int, Callable[[MajorGeneralState, int, int], list[int]]] = {
    DEPLOY: MajorGeneralState._deploy_options, SABOTAGE: MajorGeneralState._sabotage_options,
    RALLY: MajorGeneralState._rally_options, MOVE: MajorGeneralState._move_options,
    CHARGE: MajorGeneralState._charge_options, PUSH: MajorGeneralState._push_options}
_OPTIONS_OF = tuple(options for _command, options in sorted(_OPTIONS.items()))


def new_game(**options: Any) -> MajorGeneralGame:
    """Factory used by the registry."""
    return MajorGeneralGame(**options)

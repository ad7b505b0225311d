"""General Orders: Sengoku Jidai (Osprey Games, 2025), Rivers and Fortress modes: the rules engine.

Variant: the printed rulebook (../shared/seeds/general-orders-sengoku-jidai.en.txt, English; no other
edition exists in the seeds, so labels are English only). The Rivers board and cards follow the
public reconstruction in ../shared/reference/sengoku-rivers.md; the Fortress board and its four
mode-only cards are reconstructions (boards/fortress.json, sengoku_cards.json). Every reading of an
open point is a line of docs/rules-decisions.md, section "General Orders: Sengoku Jidai", numbered
SJ-n; the code cites those numbers.

Sengoku is the second engine of the General Orders family. It shares the family machinery
(common.py: bit masks, the 0,1,1,1,1,2 dice as one chance node per roll, supply searches, the card
multiset, determinize), the conventions of the WWII engine (rules.py: fixed action space, compound
moves as atomic steps ending in "done", card windows, re-rolls, "not enough units" withdrawals) and
its data-driven boards (sengoku_data.py, boards/rivers.json and boards/fortress.json). What differs
is in the data (one map of land and water areas, ports, fortifications, three unit kinds, the
support board) and in the small rules here: ships and siege weapons, losses chosen by their owner,
a pass that sends a commander to standby, and an HQ lost when it holds no units.

Seats: 0 is Red, 1 is Black (the rulebook's Mali and Bo). A round: commanders are deployed one per
turn, alternately from the initiative holder; a pass puts one commander in the standby area and
play goes on (SJ-14); when both reserves are empty every commander is recalled and the round marker
advances without changing the initiative. The game ends at once when a player has no units left in
their HQ (SJ-5), otherwise after round 4 on the VP of the areas (land and water) each supplies, ties
to the initiative holder (SJ-13).

Hidden information: the hands. The deck is a multiset of counts and every draw a chance node.

Action space (ids depend on the board's sizes: NS spaces, NA areas, NL land areas; the siege ranges
exist only in a mode with siege weapons):
  0                     pass: send a commander from the reserve to the standby area
  1                     done (stop moving in / placing / withdrawing)
  2                     decline: play no card now (a card window)
  3                     keep the roll (no re-roll)
  D = 4 .. +NS          deploy a commander to space s
  C = D+NS .. +NS       play Counterattack and deploy to Advance space s (held by the opponent)
  P = C+NS .. +12       play operation card k for its special effect (order of sengoku_cards.json)
  R = P+12 .. +12       spend operation card k to re-roll your dice
  T = R+12 .. +NA       choose target area a (Bombard, Shell, Siege)
  U = T+NA .. +5*NA     n units (1..5) at area a: troops on land, ships on water; id = U + 5*a + n-1
                        (move from / place into / withdraw from, by the step)
  G = U+5*NA .. +5*NL   n siege weapons (1..5) at the l-th land area: id = G + 5*l + n-1
  L = G+5*NL .. +6      lose j siege weapons (j = 0..5) and the rest of the losses in troops
Chance outcomes (45 ids, both modes): 0,1 Red/Black takes the initiative; 2..7 area-bonus token
(barracks, war room, pirate haven, shipyard, hidden base, armoury) for the next slot; 8..19 draw
operation card k; 20..44 a roll totalling 0..24 pips.

Forced choices (a single legal option) are made without asking, unless a card could be played at
that step judging by public facts only (the player holds cards, a copy is not in the discard pile,
its effect is unused this turn): then the step is asked even when the player holds no such card,
so the sequence of decisions never reveals the hand (SJ-D4).
"""

from __future__ import annotations

import random
from typing import Any

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
)
from arena.games.general_orders.common import (
    BIT,
    MAX_DICE,
    bits,
    counts_of,
    dice_table,
    named_counts,
    reach,
    sample_hidden_cards,
)
from arena.games.general_orders.sengoku_data import (
    ACTIONS,
    ADVANCE,
    AMBUSH,
    ARMOURY,
    BARRACKS,
    BOMBARD,
    CARD_IDS,
    COMMANDEER,
    COUNTERATTACK,
    EMBARK,
    FACTIONS,
    GROUND_ASSAULT,
    HIDDEN_BASE,
    HOLD_THE_WALLS,
    LANGS,
    MOBILISE,
    NUM_CARD_KINDS,
    PIRATE_HAVEN,
    PLAN,
    REINFORCE,
    RIVER_ASSAULT,
    SAIL,
    SAPPERS,
    SENGOKU_BOARDS,
    SENGOKU_CARDS,
    SENGOKU_TERMS,
    SHELL,
    SHIP_STRIKE,
    SHIPYARD,
    SHORE_STRIKE,
    SIEGE,
    SIEGE_TRAIN,
    SIEGE_WORKSHOP,
    TOKENS,
    WAR_ROOM,
    SengokuBoard,
)

RED, BLACK = 0, 1
NUM_SEATS = 2

# Fixed decision ids.
PASS, DONE, DECLINE, ACCEPT = 0, 1, 2, 3
DEPLOY_BASE = 4
MAX_N = 5  # counts 1..5 in the unit ids
MAX_LOSS = 5  # siege weapons among one loss: 0..5 (a side has 5)

# Chance outcome ids (the same for both modes).
INITIATIVE_BASE = 0
TOKEN_BASE = 2
CARD_BASE = TOKEN_BASE + len(TOKENS)  # 8
DICE_BASE = CARD_BASE + NUM_CARD_KINDS  # 20
NUM_CHANCE_OUTCOMES = DICE_BASE + 2 * MAX_DICE + 1  # 45
DICE = dice_table(DICE_BASE)

# Phases.
PHASE_NAMES = ("setup-bonus", "setup-initiative", "turn", "move-in", "target", "place", "withdraw", "defend",
               "follow-up", "loss", "roll", "reroll", "draw", "over")
(SETUP_BONUS, SETUP_INITIATIVE, TURN, MOVE, TARGET, PLACE, WITHDRAW, DEFEND, FOLLOW_UP, LOSS, ROLL, REROLL, DRAW,
 OVER) = range(len(PHASE_NAMES))
CHANCE_PHASES = frozenset((SETUP_BONUS, SETUP_INITIATIVE, ROLL, DRAW))
# Phases where a single legal option is taken without asking, unless a card might be offered (SJ-D4).
AUTO_PHASES = frozenset((TURN, MOVE, TARGET, PLACE, WITHDRAW, LOSS))

# What a roll is for.
PURPOSES = ("none", "defence", "bombard", "shell", "siege")
NO_ROLL, ROLL_DEFENCE, ROLL_BOMBARD, ROLL_SHELL, ROLL_SIEGE = range(len(PURPOSES))
# Card windows on the opponent's turn: Ambush before a defence roll, Hold the Walls before a Siege roll.
WINDOWS = ("none", "ambush", "walls")
NO_WINDOW, WINDOW_AMBUSH, WINDOW_WALLS = range(len(WINDOWS))
WINDOW_CARD = (-1, AMBUSH, HOLD_THE_WALLS)
# What follows a loss of land units chosen by their owner.
AFTER_LOSS = ("none", "defence", "attrition", "strike", "cap")
NEXT_NONE, NEXT_DEFENCE, NEXT_ATTRITION, NEXT_STRIKE, NEXT_CAP = range(len(AFTER_LOSS))

REASON_HQ = "hq_lost"
REASON_VP = "victory_points"
REASON_TIE = "initiative_tie_break"


class SengokuGame(Game):
    """General Orders: Sengoku Jidai in one mode ('rivers' or 'fortress'); labels in English."""

    rules_version = "1"

    def __init__(self, mode: str = "rivers", lang: str = "en", name: str | None = None) -> None:
        if mode not in SENGOKU_BOARDS:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(SENGOKU_BOARDS)}")
        if lang not in LANGS:
            raise ValueError(f"unknown lang {lang!r}: Sengoku Jidai exists in {', '.join(LANGS)} only")
        board = SENGOKU_BOARDS[mode]
        self.board: SengokuBoard = board
        self.mode = mode
        self.lang = lang
        ns, na = len(board.spaces), board.num_areas
        land_areas = tuple(a for a in range(na) if not board.is_water[a])
        nl = len(land_areas) if board.has_siege else 0
        self.NS, self.NA, self.NL = ns, na, nl
        self.land_areas = land_areas
        self.land_rank = tuple(land_areas.index(a) if a in land_areas else -1 for a in range(na))
        self.COUNTER_BASE = DEPLOY_BASE + ns
        self.PLAY_BASE = self.COUNTER_BASE + ns
        self.REROLL_BASE = self.PLAY_BASE + NUM_CARD_KINDS
        self.TARGET_BASE = self.REROLL_BASE + NUM_CARD_KINDS
        self.UNIT_BASE = self.TARGET_BASE + na
        self.SIEGE_BASE = self.UNIT_BASE + MAX_N * na
        self.LOSS_BASE = self.SIEGE_BASE + MAX_N * nl
        num_actions = self.LOSS_BASE + (MAX_LOSS + 1 if board.has_siege else 0)
        # Hot-path tables.
        self.LAND, self.WATER = board.land_mask, board.water_mask
        self.space_action = tuple(s.action for s in board.spaces)
        self.space_link = tuple(s.link for s in board.spaces)
        self.space_table = tuple((s.index, s.action, s.link) for s in board.spaces)
        self.port_mask = sum(BIT[a] for a in range(na) if board.port_into[a])
        self.deck_total = board.deck
        # Supply cache: control bitmask -> supplied bitmask, per seat (SJ-D3).
        self.supply_cache: tuple[dict[int, int], dict[int, int]] = ({}, {})
        if name is None:
            name = f"general-orders-sengoku/{mode}"
        self._info = GameInfo(
            name=name,
            title=board.title[lang],
            num_seats=NUM_SEATS,
            num_actions=num_actions,
            num_chance_outcomes=NUM_CHANCE_OUTCOMES,
            max_game_length=6000,
            has_hidden_information=True,
            has_chance=True,
            seat_names=tuple(self.term(f) for f in FACTIONS),
            options={"mode": mode},
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    # --- words -------------------------------------------------------------------------------

    def term(self, key: str) -> str:
        """A rulebook term in this game's language."""
        return SENGOKU_TERMS[key][self.lang]

    def card_name(self, kind: int) -> str:
        """An operation card's name."""
        return SENGOKU_CARDS[kind].name[self.lang]

    def bonus_name(self, token: int) -> str:
        """An area bonus's name."""
        return self.term(TOKENS[token])

    def area_name(self, area: int) -> str:
        """An area's id (ids are language-neutral)."""
        return self.board.area_ids[area]

    def unit_word(self, area: int) -> str:
        """What the unit ids count at `area`: troops on land, ships on water."""
        return self.term("ships") if self.board.is_water[area] else self.term("troops")

    def space_name(self, space: int) -> str:
        """An action space: its action and linked area, or its value (and siege limit, initiative)."""
        s = self.board.spaces[space]
        action = self.term(ACTIONS[s.action])
        if s.link >= 0:
            return f"{action} {self.area_name(s.link)}"
        text = f"{action} {s.value}"
        if s.siege_limit:
            text += f" ({s.siege_limit} {self.term('siege_weapons')})"
        if s.initiative:
            text += f" ({self.term('initiative')})"
        return text

    # --- Game interface ----------------------------------------------------------------------

    def new_initial_state(self) -> SengokuState:
        state = SengokuState(self)
        board = self.board
        state.troops = [list(board.start_troops[0]), list(board.start_troops[1])]
        state.ships = [list(board.start_ships[0]), list(board.start_ships[1])]
        state.siege = [list(board.start_siege[0]), list(board.start_siege[1])]
        state.res_troops = [board.troops - sum(state.troops[s]) for s in (0, 1)]
        state.res_ships = [board.ships - sum(state.ships[s]) for s in (0, 1)]
        state.res_siege = [board.siege_weapons - sum(state.siege[s]) for s in (0, 1)]
        state.cmd_reserve = [board.commanders] * 2
        state.cmd_standby = [0, 0]
        state.deck = list(board.deck)
        state.phase = SETUP_BONUS if board.bonus_slots else SETUP_INITIATIVE
        state.refresh_control()
        return state

    def action_label(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action {action} is outside the action space 0..{self.num_actions - 1}")
        t = self.term
        if action == PASS:
            return t("pass")
        if action == DONE:
            return t("done")
        if action == DECLINE:
            return t("decline")
        if action == ACCEPT:
            return t("accept")
        if action < self.COUNTER_BASE:
            return f"{t('deploy')} {self.space_name(action - DEPLOY_BASE)}"
        if action < self.PLAY_BASE:
            return f"{t('counter')} {self.space_name(action - self.COUNTER_BASE)}"
        if action < self.REROLL_BASE:
            return f"{t('play')} {self.card_name(action - self.PLAY_BASE)}"
        if action < self.TARGET_BASE:
            return f"{t('reroll')}: {self.card_name(action - self.REROLL_BASE)}"
        if action < self.UNIT_BASE:
            return f"{t('target')} {self.area_name(action - self.TARGET_BASE)}"
        if action < self.SIEGE_BASE:
            area, n = divmod(action - self.UNIT_BASE, MAX_N)
            return f"{n + 1} {self.unit_word(area)} {t('at')} {self.area_name(area)}"
        if action < self.LOSS_BASE:
            rank, n = divmod(action - self.SIEGE_BASE, MAX_N)
            return f"{n + 1} {t('siege_weapons')} {t('at')} {self.area_name(self.land_areas[rank])}"
        return f"{t('lose')} {action - self.LOSS_BASE} {t('siege_weapons')} ({t('rest_troops')})"

    def chance_label(self, outcome: int) -> str:
        if not 0 <= outcome < NUM_CHANCE_OUTCOMES:
            raise IllegalActionError(f"chance outcome {outcome} is outside 0..{NUM_CHANCE_OUTCOMES - 1}")
        if outcome < TOKEN_BASE:
            return f"{self.term(FACTIONS[outcome])} {self.term('has_initiative')}"
        if outcome < CARD_BASE:
            return f"{self.term('bonus_token')}: {self.bonus_name(outcome - TOKEN_BASE)}"
        if outcome < DICE_BASE:
            return f"{self.term('draws')} {self.card_name(outcome - CARD_BASE)}"
        return f"{outcome - DICE_BASE} {self.term('pips')}"

    def state_from_json(self, data: JSON) -> SengokuState:
        return SengokuState.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> SengokuState:
        """Sample the opponent's hand and the deck from the cards the seat has not seen."""
        try:
            seat = int(observation["seat"])
            if seat not in (0, 1):
                raise ValueError("seat must be 0 or 1")
            own = counts_of(observation["hand"], CARD_IDS)
            discard = counts_of(observation["discard"], CARD_IDS)
            sizes = [int(n) for n in observation["hand_sizes"]]
            if sum(own) != sizes[seat]:
                raise ValueError("the hand does not match its size")
            other, deck = sample_hidden_cards(self.deck_total, own, discard, sizes[1 - seat],
                                              int(observation["deck_size"]), rng, CARD_IDS)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"not a Sengoku Jidai observation: {error}") from None
        data = {key: value for key, value in observation.items()
                if key not in ("seat", "hand", "hand_sizes", "deck_size")}
        hands = [own, other] if seat == 0 else [other, own]
        data["hands"] = [named_counts(h, CARD_IDS) for h in hands]
        data["deck"] = named_counts(deck, CARD_IDS)
        return SengokuState.from_json(self, data)

    # --- supply ------------------------------------------------------------------------------

    def supply(self, seat: int, control: int) -> int:
        """Areas (land and water) supplied by `seat` when it controls `control` (memoised)."""
        cache = self.supply_cache[seat]
        supplied = cache.get(control)
        if supplied is None:
            supplied = reach(self.board.area_adj, self.board.hq[seat], control)
            if len(cache) > 200_000:
                cache.clear()
            cache[control] = supplied
        return supplied

    def land_supply(self, seat: int, control: int) -> int:
        """The same as `supply` (the name the WWII engine and the family's tools use)."""
        return self.supply(seat, control)


def _ids_of(board: SengokuBoard, mask: int) -> list[str]:
    return [board.area_ids[a] for a in bits(mask)]


def _mask_of(board: SengokuBoard, names: Any) -> int:
    return sum(BIT[board.area_ids.index(name)] for name in names)


class SengokuState(State):
    """A Sengoku Jidai position. Mutable; `apply_action` changes it in place."""

    __slots__ = (
        "_game", "phase", "round", "initiative", "active", "troops", "ships", "siege", "res_troops", "res_ships",
        "res_siege", "ctrl", "cmd_reserve", "cmd_standby", "occ", "occ2", "support_used", "hands", "deck",
        "discard", "bonus_at", "token_area", "used",
        # the action under way
        "act", "space", "link", "target", "src", "moved", "left", "optional", "siege_left", "siege_slots",
        "withdraw_closed", "fx", "snap", "window", "dice", "roller", "roll", "purpose", "draws", "queue",
        "loss_seat", "loss_area", "loss_count", "loss_next",
        "winner", "reason", "_legal",
    )

    def __init__(self, game: SengokuGame) -> None:
        self._game = game
        ns, na = game.NS, game.NA
        self.phase = SETUP_INITIATIVE
        self.round = 1
        self.initiative = -1
        self.active = -1
        self.troops: list[list[int]] = [[0] * na, [0] * na]
        self.ships: list[list[int]] = [[0] * na, [0] * na]
        self.siege: list[list[int]] = [[0] * na, [0] * na]
        self.res_troops = [0, 0]
        self.res_ships = [0, 0]
        self.res_siege = [0, 0]
        self.ctrl = [0, 0]  # bitmask of areas holding the seat's units (derived)
        self.cmd_reserve = [0, 0]
        self.cmd_standby = [0, 0]
        self.occ = [0] * ns  # 0 empty, else 1 + seat
        self.occ2 = [0] * ns  # a second commander placed with Counterattack
        self.support_used = [0, 0]  # bitmask of support action kinds used this round
        self.hands: list[list[int]] = [[0] * NUM_CARD_KINDS, [0] * NUM_CARD_KINDS]
        self.deck: list[int] = [0] * NUM_CARD_KINDS
        self.discard: list[int] = [0] * NUM_CARD_KINDS
        self.bonus_at = [-1] * na  # area-bonus token per area (-1: none)
        self.token_area = [-1] * len(TOKENS)  # area holding each token (derived)
        self.used = [0, 0]  # card effects resolved this turn, per seat (bitmask of card kinds)
        self._clear_action()
        self.winner = -1
        self.reason = ""
        self._legal: list[int] | None = None

    def _clear_action(self) -> None:
        self.act = -1
        self.space = -1
        self.link = -1
        self.target = -1
        self.src = 0
        self.moved = 0
        self.left = 0
        self.optional = 0
        self.siege_left = 0
        self.siege_slots = 0
        self.withdraw_closed = False
        self.fx = 0
        self.snap = [0, 0]
        self.window = NO_WINDOW
        self.dice = 0
        self.roller = -1
        self.roll = -1
        self.purpose = NO_ROLL
        self.draws = 0
        self.queue = 0
        self.loss_seat = -1
        self.loss_area = -1
        self.loss_count = 0
        self.loss_next = NEXT_NONE

    # --- State interface ---------------------------------------------------------------------

    @property
    def game(self) -> SengokuGame:
        return self._game

    def current_player(self) -> int:
        phase = self.phase
        if phase == TURN or phase == MOVE or phase == TARGET or phase == PLACE or phase == WITHDRAW \
                or phase == FOLLOW_UP:
            return self.active
        if phase == DEFEND:
            return 1 - self.active
        if phase == LOSS:
            return self.loss_seat
        if phase == REROLL:
            return self.roller
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            if self.phase in CHANCE_PHASES:
                return [outcome for outcome, _ in self.chance_outcomes()]
            legal = self._legal = self._legal_decisions()
        return list(legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == ROLL:
            return list(DICE[self.dice])
        if phase == DRAW:
            deck = self.deck
            total = sum(deck)
            return [(CARD_BASE + k, n / total) for k, n in enumerate(deck) if n]
        if phase == SETUP_BONUS:
            left = [t for t in self._game.board.bonus_pool if self.token_area[t] < 0]
            return [(TOKEN_BASE + t, 1.0 / len(left)) for t in sorted(left)]
        if phase == SETUP_INITIATIVE:
            return [(INITIATIVE_BASE, 0.5), (INITIATIVE_BASE + 1, 0.5)]
        return []

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalActionError(f"action {action} is illegal: the game is over")
        if phase in CHANCE_PHASES:
            if not any(outcome == action for outcome, _ in self.chance_outcomes()):
                self._reject(action)
            self._legal = None
            self._apply_chance(action)
        else:
            legal = self._legal
            if legal is None:
                legal = self._legal_decisions()
            if action not in legal:
                self._reject(action)
            self._legal = None
            self._decide(action)
        self._auto()

    def clone(self) -> SengokuState:
        o = SengokuState.__new__(SengokuState)
        o._game = self._game
        o.phase = self.phase
        o.round = self.round
        o.initiative = self.initiative
        o.active = self.active
        o.troops = [self.troops[0][:], self.troops[1][:]]
        o.ships = [self.ships[0][:], self.ships[1][:]]
        o.siege = [self.siege[0][:], self.siege[1][:]]
        o.res_troops = self.res_troops[:]
        o.res_ships = self.res_ships[:]
        o.res_siege = self.res_siege[:]
        o.ctrl = self.ctrl[:]
        o.cmd_reserve = self.cmd_reserve[:]
        o.cmd_standby = self.cmd_standby[:]
        o.occ = self.occ[:]
        o.occ2 = self.occ2[:]
        o.support_used = self.support_used[:]
        o.hands = [self.hands[0][:], self.hands[1][:]]
        o.deck = self.deck[:]
        o.discard = self.discard[:]
        o.bonus_at = self.bonus_at  # fixed after setup; replaced (never mutated) while setting up
        o.token_area = self.token_area
        o.used = self.used[:]
        o.act = self.act
        o.space = self.space
        o.link = self.link
        o.target = self.target
        o.src = self.src
        o.moved = self.moved
        o.left = self.left
        o.optional = self.optional
        o.siege_left = self.siege_left
        o.siege_slots = self.siege_slots
        o.withdraw_closed = self.withdraw_closed
        o.fx = self.fx
        o.snap = self.snap  # replaced, never mutated
        o.window = self.window
        o.dice = self.dice
        o.roller = self.roller
        o.roll = self.roll
        o.purpose = self.purpose
        o.draws = self.draws
        o.queue = self.queue
        o.loss_seat = self.loss_seat
        o.loss_area = self.loss_area
        o.loss_count = self.loss_count
        o.loss_next = self.loss_next
        o.winner = self.winner
        o.reason = self.reason
        o._legal = self._legal
        return o

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        ranking = (0, 1) if self.winner == RED else (1, 0)
        return Outcome(ranking, self.reason, tuple(float(v) for v in self.victory_points()))

    def action_to_string(self, action: int) -> str:
        game = self._game
        player = self.current_player()
        if player == TERMINAL:
            return game.action_label(action)
        if player == CHANCE:
            label = game.chance_label(action)
            phase = self.phase
            if phase == ROLL and action >= DICE_BASE:
                return (f"{game.term(FACTIONS[self.roller])} {game.term('rolls')} {action - DICE_BASE} "
                        f"{game.term('pips')} ({self.dice} {game.term('dice')})")
            if phase == DRAW and CARD_BASE <= action < DICE_BASE:
                return f"{game.term(FACTIONS[self.active])} {label}"
            if phase == SETUP_BONUS and TOKEN_BASE <= action < CARD_BASE:
                slot = game.board.bonus_slots[self._slots_filled()]
                return f"{label} -> {game.area_name(slot)}"
            return label
        return f"{game.term(FACTIONS[player])}: {self._contextual_label(action)}"

    def _contextual_label(self, action: int) -> str:
        game = self._game
        t = game.term
        phase = self.phase
        if game.UNIT_BASE <= action < game.LOSS_BASE:
            if action < game.SIEGE_BASE:
                where, n = divmod(action - game.UNIT_BASE, MAX_N)
                units = game.unit_word(where)
            else:
                rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
                where, units = game.land_areas[rank], t("siege_weapons")
            name = game.area_name(where)
            if phase == MOVE:
                return f"{t('move')} {n + 1} {units} {t('from')} {name} -> {game.area_name(self.link)}"
            if phase == PLACE:
                return f"{t('place')} {n + 1} {units} {t('into')} {name}"
            if phase == WITHDRAW:
                return f"{t('withdraw')}: {n + 1} {units} {t('from')} {name}"
        if phase == LOSS and action >= game.LOSS_BASE:
            j = action - game.LOSS_BASE
            return (f"{t('lose')} {j} {t('siege_weapons')} + {self.loss_count - j} {t('troops')} {t('at')} "
                    f"{game.area_name(self.loss_area)}")
        return game.action_label(action)

    # --- derived facts -----------------------------------------------------------------------

    def refresh_control(self) -> None:
        """Recompute the control bitmasks and token positions from the unit counts (after edits)."""
        for seat in (0, 1):
            troops, ships, siege = self.troops[seat], self.ships[seat], self.siege[seat]
            self.ctrl[seat] = sum(BIT[a] for a in range(self._game.NA) if troops[a] or ships[a] or siege[a])
        token_area = [-1] * len(TOKENS)
        for area, token in enumerate(self.bonus_at):
            if token >= 0:
                token_area[token] = area
        self.token_area = token_area
        self._legal = None

    def supplied(self, seat: int) -> int:
        """Bitmask of the areas (land and water) `seat` controls and supplies."""
        return self._game.supply(seat, self.ctrl[seat])

    def land_units(self, seat: int, area: int) -> int:
        """Troops and siege weapons of `seat` in `area`."""
        return self.troops[seat][area] + self.siege[seat][area]

    def units(self, seat: int, area: int) -> int:
        """Every unit of `seat` in `area` (troops, ships, siege weapons)."""
        return self.troops[seat][area] + self.ships[seat][area] + self.siege[seat][area]

    def victory_points(self) -> list[int]:
        """VP on the areas (land and water) each seat controls and supplies."""
        vp = self._game.board.area_vp
        return [sum(vp[a] for a in bits(self.supplied(seat))) for seat in (0, 1)]

    def has_bonus(self, token: int, supplied: int) -> bool:
        """True when the area holding `token` is in `supplied` (a supply mask)."""
        area = self.token_area[token]
        return area >= 0 and bool(supplied >> area & 1)

    def commanders_deployed(self, seat: int) -> int:
        """Commanders of `seat` on action spaces."""
        code = 1 + seat
        return self.occ.count(code) + self.occ2.count(code)

    def _slots_filled(self) -> int:
        return sum(1 for area in self._game.board.bonus_slots if self.bonus_at[area] >= 0)

    def _can_play(self, seat: int, kind: int) -> bool:
        return bool(self.hands[seat][kind]) and not self.used[seat] >> kind & 1

    def _public(self, seat: int, kind: int) -> bool:
        """Could `seat` hold and play `kind` now, judging by public facts only (SJ-D4)?"""
        return (not self.used[seat] >> kind & 1 and self._game.deck_total[kind] > self.discard[kind]
                and any(self.hands[seat]))

    # --- legal decisions ---------------------------------------------------------------------

    def _legal_decisions(self) -> list[int]:
        phase = self.phase
        if phase == TURN:
            return self._turn_options()[0]
        if phase == MOVE:
            return self._move_options()
        if phase == PLACE:
            return self._place_options()
        if phase == TARGET:
            return self._target_options()
        if phase == REROLL:
            game = self._game
            hand = self.hands[self.roller]
            return [ACCEPT] + [game.REROLL_BASE + k for k in range(NUM_CARD_KINDS) if hand[k]]
        if phase == LOSS:
            lo, hi = self._loss_range()
            base = self._game.LOSS_BASE
            return list(range(base + lo, base + hi + 1))
        if phase == DEFEND:
            card = WINDOW_CARD[self.window]
            defender = 1 - self.active
            return [DECLINE] + ([self._game.PLAY_BASE + card] if self._can_play(defender, card) else [])
        if phase == FOLLOW_UP:
            playable = self._can_play(self.active, SHIP_STRIKE)
            return [DECLINE] + ([self._game.PLAY_BASE + SHIP_STRIKE] if playable else [])
        if phase == WITHDRAW:
            return self._withdraw_options()
        return []

    def _card_may_be_offered(self) -> bool:
        """Whether this step could offer a card, judging by public facts only (SJ-D4)."""
        phase = self.phase
        seat = self.active
        if phase == TURN:
            return bool(self._turn_options()[1]) and self._public(seat, COUNTERATTACK)
        if phase == MOVE:
            if self.act == SAIL:
                return self.res_ships[seat] > 0 and self._public(seat, RIVER_ASSAULT)
            return ((self.res_troops[seat] > 0 and self._public(seat, GROUND_ASSAULT))
                    or (self._sappers_apply() and self._public(seat, SAPPERS)))
        if phase == TARGET:
            card = self._target_card()
            return card >= 0 and self._public(seat, card)
        if phase == PLACE or phase == WITHDRAW:
            return any(self._public(seat, card) for card in self._placement_cards())
        return False

    def _turn_options(self) -> tuple[list[int], list[int]]:
        """(legal ids, Advance spaces a Counterattack could take now) at the deploy step."""
        game = self._game
        seat = self.active
        deploys, counters = self._deploy_options(seat)
        actions = [PASS] + deploys
        if counters and self._can_play(seat, COUNTERATTACK):
            actions.extend(game.COUNTER_BASE + s for s in counters)
        return actions, counters

    def _deploy_options(self, seat: int) -> tuple[list[int], list[int]]:
        """Deploy ids whose deployment criteria `seat` meets, and Advance spaces open to Counterattack."""
        game = self._game
        board = game.board
        adj = board.area_adj
        troops, siege, ships = self.troops[seat], self.siege[seat], self.ships[seat]
        ctrl = self.ctrl[seat]
        sup = game.supply(seat, ctrl)
        land_sup = sup & game.LAND
        water_sup = sup & game.WATER
        # Advance: a land area not controlled, next to a supplied area holding two or more land units,
        # or next to a supplied water area next to one (SJ-B1).
        near = 0
        for a in bits(land_sup):
            if troops[a] + siege[a] >= 2:
                near |= adj[a]
        via = 0
        for w in bits(near & water_sup):
            via |= adj[w]
        advance_ok = (near | via) & game.LAND & ~ctrl
        # Sail: a water area not controlled, next to a chain of supplied water areas holding a source
        # of two or more ships.
        sail_ok = 0
        if water_sup:
            seen = 0
            for w in bits(water_sup):
                if ships[w] >= 2 and not seen >> w & 1:
                    chain = reach(adj, w, water_sup)
                    seen |= chain
                    for x in bits(chain):
                        sail_ok |= adj[x]
            sail_ok &= game.WATER & ~ctrl
        siege_ok = 0
        if board.has_siege:
            for a in bits(land_sup):
                if siege[a]:
                    siege_ok |= BIT[a]
        # Linked spaces by action kind: advance, sail, bombard, shell, siege.
        link_ok = (advance_ok, sail_ok, water_sup, land_sup, siege_ok)
        occ = self.occ
        occ2 = self.occ2
        own = 1 + seat
        used_support = self.support_used[seat]
        deploys = []
        counters = []
        for s, kind, link in game.space_table:
            code = occ[s]
            if code:
                if kind == ADVANCE and code != own and not occ2[s] and advance_ok >> link & 1:
                    counters.append(s)
                continue
            if link >= 0:
                if not link_ok[kind] >> link & 1:
                    continue
            elif used_support >> kind & 1:
                continue
            deploys.append(DEPLOY_BASE + s)
        return deploys, counters

    def _sappers_apply(self) -> bool:
        area = self.link
        return bool(self._game.board.fortified >> area & 1) and self.land_units(1 - self.active, area) > 0

    def _move_options(self) -> list[int]:
        game = self._game
        seat = self.active
        actions = [DONE] if self.moved else []
        unit_ids: list[int] = []
        if self.act == SAIL:
            if self.res_ships[seat] and self._can_play(seat, RIVER_ASSAULT):
                actions.append(game.PLAY_BASE + RIVER_ASSAULT)
            ships = self.ships[seat]
            for w in bits(self.src):
                n = ships[w]
                if n >= 2:
                    first = game.UNIT_BASE + MAX_N * w
                    unit_ids.extend(range(first, first + min(n - 1, MAX_N)))
            return actions + unit_ids
        if self.res_troops[seat] and self._can_play(seat, GROUND_ASSAULT):
            actions.append(game.PLAY_BASE + GROUND_ASSAULT)
        if self._can_play(seat, SAPPERS) and self._sappers_apply():
            actions.append(game.PLAY_BASE + SAPPERS)
        troops, siege = self.troops[seat], self.siege[seat]
        siege_ids: list[int] = []
        for a in bits(self.src):
            land = troops[a] + siege[a]
            if land >= 2:
                n = min(troops[a], land - 1, MAX_N)
                if n:
                    first = game.UNIT_BASE + MAX_N * a
                    unit_ids.extend(range(first, first + n))
                n = min(siege[a], land - 1, MAX_N)
                if n:
                    first = game.SIEGE_BASE + MAX_N * game.land_rank[a]
                    siege_ids.extend(range(first, first + n))
        return actions + unit_ids + siege_ids

    def _target_card(self) -> int:
        act = self.act
        if act == BOMBARD:
            return SHORE_STRIKE
        if act == SIEGE:
            return SIEGE_TRAIN
        return -1

    def _target_options(self) -> list[int]:
        game = self._game
        actions = []
        card = self._target_card()
        if card >= 0 and self._can_play(self.active, card):
            actions.append(game.PLAY_BASE + card)
        base = game.TARGET_BASE
        actions.extend(base + a for a in bits(self._targets()))
        return actions

    def _targets(self) -> int:
        """Areas the Bombard / Shell / Siege under way may target (holding opponent's units, SJ-B3)."""
        game = self._game
        board = game.board
        enemy = self.ctrl[1 - self.active]
        near = board.area_adj[self.link] & enemy
        act = self.act
        if act == BOMBARD:
            return near & game.LAND & ~board.fortified
        if act == SHELL:
            return near & game.WATER
        return near & game.LAND  # SIEGE

    def _placement_cards(self) -> list[int]:
        """Cards that may join the Reinforce / Embark under way (their own conditions, not the hand)."""
        seat = self.active
        if self.act == REINFORCE:
            cards = []
            if self.res_troops[seat]:
                cards.append(MOBILISE)
            if self.res_siege[seat]:
                cards.append(SIEGE_WORKSHOP)
            return cards
        return [COMMANDEER]

    def _place_targets(self) -> int:
        """Areas that may receive units now: supplied (or port) areas of the right kind with room."""
        game = self._game
        board = game.board
        seat = self.active
        snap = self.snap[seat]
        room = 0
        if self.act == REINFORCE:
            troops, siege, cap = self.troops[seat], self.siege[seat], board.land_cap
            for a in bits(snap & game.LAND):
                if troops[a] + siege[a] < cap:
                    room |= BIT[a]
            return room
        waters = snap & game.WATER
        ports = 0
        for p in bits(snap & game.port_mask):
            ports |= board.port_into[p]
        if not self.fx >> COMMANDEER & 1:
            ports &= ~self.ctrl[1 - seat]  # SJ-B6: not into water the opponent holds
        ships, cap = self.ships[seat], board.water_cap
        for w in bits(waters | ports):
            if ships[w] < cap:
                room |= BIT[w]
        return room

    def _place_options(self) -> list[int]:
        game = self._game
        seat = self.active
        board = game.board
        actions = [DONE] if self.left <= self.optional else []
        for card in self._placement_cards():
            if self._can_play(seat, card):
                actions.append(game.PLAY_BASE + card)
        unit_ids: list[int] = []
        siege_ids: list[int] = []
        if self.act == REINFORCE:
            troops, siege, cap = self.troops[seat], self.siege[seat], board.land_cap
            most_troops = min(self.left - self.siege_slots, self.res_troops[seat], MAX_N)
            most_siege = min(self.left, self.siege_left, self.res_siege[seat], MAX_N)
            for a in bits(self._place_targets()):
                room = cap - troops[a] - siege[a]
                n = min(most_troops, room)
                if n > 0:
                    first = game.UNIT_BASE + MAX_N * a
                    unit_ids.extend(range(first, first + n))
                n = min(most_siege, room)
                if n > 0:
                    first = game.SIEGE_BASE + MAX_N * game.land_rank[a]
                    siege_ids.extend(range(first, first + n))
        else:
            ships, cap = self.ships[seat], board.water_cap
            most = min(self.left, self.res_ships[seat], MAX_N)
            for w in bits(self._place_targets()):
                n = min(most, cap - ships[w])
                if n > 0:
                    first = game.UNIT_BASE + MAX_N * w
                    unit_ids.extend(range(first, first + n))
        return actions + unit_ids + siege_ids

    def _placeable(self) -> bool:
        """True when some unit can still be placed (reserve, allowance and room)."""
        seat = self.active
        if self.left <= 0 or not self._place_targets():
            return False
        if self.act == REINFORCE:
            return (min(self.left - self.siege_slots, self.res_troops[seat]) > 0
                    or min(self.siege_left, self.res_siege[seat]) > 0)
        return self.res_ships[seat] > 0

    def _shortfall(self) -> int:
        """Units the placement under way needs beyond what the reserve holds (SJ-12)."""
        seat = self.active
        if self.act == REINFORCE:
            return self.left - self.res_troops[seat] - min(self.res_siege[seat], self.siege_left)
        return self.left - self.res_ships[seat]

    def _withdraw_options(self) -> list[int]:
        game = self._game
        seat = self.active
        actions = [DONE]
        for card in self._placement_cards():
            if self._can_play(seat, card):
                actions.append(game.PLAY_BASE + card)
        shortfall = self._shortfall()
        unit_ids: list[int] = []
        siege_ids: list[int] = []
        if self.act == REINFORCE:
            troops, siege = self.troops[seat], self.siege[seat]
            siege_need = min(shortfall, self.siege_left - self.res_siege[seat])
            for a in bits(self.ctrl[seat] & game.LAND):
                land = troops[a] + siege[a]
                n = min(troops[a], land - 1, shortfall, MAX_N)
                if n > 0:
                    first = game.UNIT_BASE + MAX_N * a
                    unit_ids.extend(range(first, first + n))
                n = min(siege[a], land - 1, siege_need, MAX_N)
                if n > 0:
                    first = game.SIEGE_BASE + MAX_N * game.land_rank[a]
                    siege_ids.extend(range(first, first + n))
        else:
            ships = self.ships[seat]
            for w in bits(self.ctrl[seat] & game.WATER):
                n = min(ships[w] - 1, shortfall, MAX_N)
                if n > 0:
                    first = game.UNIT_BASE + MAX_N * w
                    unit_ids.extend(range(first, first + n))
        return actions + unit_ids + siege_ids

    def _loss_range(self) -> tuple[int, int]:
        """The fewest and most siege weapons among the loss under way."""
        seat, area, k = self.loss_seat, self.loss_area, self.loss_count
        return max(0, k - self.troops[seat][area]), min(k, self.siege[seat][area])

    # --- applying decisions ------------------------------------------------------------------

    def _auto(self) -> None:
        """Make forced choices without asking, unless a card might be offered (SJ-D4)."""
        while True:
            if self.phase not in AUTO_PHASES:
                return
            legal = self._legal_decisions()
            if len(legal) != 1 or self._card_may_be_offered():
                self._legal = legal
                return
            self._decide(legal[0])

    def _decide(self, action: int) -> None:
        game = self._game
        phase = self.phase
        seat = self.active
        if phase == TURN:
            if action == PASS:
                self.cmd_reserve[seat] -= 1
                self.cmd_standby[seat] += 1
                self._end_turn()
            elif action < game.COUNTER_BASE:
                self._deploy(action - DEPLOY_BASE, False)
            else:
                self._deploy(action - game.COUNTER_BASE, True)
        elif phase == MOVE:
            if action == DONE:
                self._after_move_in()
            elif action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            elif action < game.SIEGE_BASE:
                where, n = divmod(action - game.UNIT_BASE, MAX_N)
                units = self.ships if self.act == SAIL else self.troops
                self._add(units, seat, where, -(n + 1))
                self._add(units, seat, self.link, n + 1)
                self.moved += n + 1
            else:
                rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
                self._add(self.siege, seat, game.land_areas[rank], -(n + 1))
                self._add(self.siege, seat, self.link, n + 1)
                self.moved += n + 1
        elif phase == PLACE:
            if action == DONE:
                self._finish_placement()
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
            else:
                if action < game.SIEGE_BASE:
                    where, n = divmod(action - game.UNIT_BASE, MAX_N)
                    n += 1
                    if self.act == EMBARK:
                        self.res_ships[seat] -= n
                        self._add(self.ships, seat, where, n)
                    else:
                        self.res_troops[seat] -= n
                        self._add(self.troops, seat, where, n)
                else:
                    rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
                    n += 1
                    self.res_siege[seat] -= n
                    self._add(self.siege, seat, game.land_areas[rank], n)
                    slots = min(n, self.siege_slots)  # a Siege Workshop slot is optional and siege-only
                    self.siege_slots -= slots
                    self.optional -= slots
                    self.siege_left -= n
                self.left -= n
                if self.optional > self.left:
                    self.optional = self.left
                self._continue_placement()
        elif phase == WITHDRAW:
            if action == DONE:
                self.withdraw_closed = True
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
                return
            elif action < game.SIEGE_BASE:
                where, n = divmod(action - game.UNIT_BASE, MAX_N)
                if self.act == EMBARK:
                    self._add(self.ships, seat, where, -(n + 1))
                    self.res_ships[seat] += n + 1
                else:
                    self._add(self.troops, seat, where, -(n + 1))
                    self.res_troops[seat] += n + 1
            else:
                rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
                self._add(self.siege, seat, game.land_areas[rank], -(n + 1))
                self.res_siege[seat] += n + 1
            self._continue_placement()
        elif phase == TARGET:
            if action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            else:
                self._choose_target(action - game.TARGET_BASE)
        elif phase == DEFEND:
            if action != DECLINE:
                self._spend(1 - seat, action - game.PLAY_BASE, effect=True)
            self._close_window()
        elif phase == FOLLOW_UP:
            if action == DECLINE:
                self._end_action()
            else:  # Ship Strike: a second Shell from the same space (SJ-C7)
                self._spend(seat, SHIP_STRIKE, effect=True)
                self.phase = TARGET
        elif phase == LOSS:
            j = action - game.LOSS_BASE
            self._take_losses(self.loss_seat, self.loss_area, self.loss_count - j, j)
            after = self.loss_next
            self.loss_seat, self.loss_area, self.loss_count, self.loss_next = -1, -1, 0, NEXT_NONE
            self._after_loss(after)
        elif phase == REROLL:
            if action == ACCEPT:
                self._resolve_roll()
            else:
                self._spend(self.roller, action - game.REROLL_BASE, effect=False)
                self.phase = ROLL
        else:  # pragma: no cover - guarded by apply_action
            raise IllegalActionError(f"no decision is due in phase {PHASE_NAMES[phase]}")

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if phase == ROLL:
            self.roll = outcome - DICE_BASE
            if any(self.hands[self.roller]):
                self.phase = REROLL
            else:
                self._resolve_roll()
        elif phase == DRAW:
            kind = outcome - CARD_BASE
            self.deck[kind] -= 1
            self.hands[self.active][kind] += 1
            self.draws -= 1
            self._continue_draws()
        elif phase == SETUP_BONUS:
            slots = self._game.board.bonus_slots
            bonus_at = self.bonus_at[:]
            bonus_at[slots[self._slots_filled()]] = outcome - TOKEN_BASE
            self.bonus_at = bonus_at
            self.refresh_control()
            if self._slots_filled() == len(slots):
                self.phase = SETUP_INITIATIVE
        else:  # SETUP_INITIATIVE
            self.initiative = outcome - INITIATIVE_BASE
            self.round = 1
            self._begin_turn(self.initiative)

    def _reject(self, action: int) -> None:
        player = self.current_player()
        try:
            label = self.action_to_string(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"action {action} is illegal: {error}") from None
        if player == CHANCE:
            why = f"it is not a possible chance outcome in phase {PHASE_NAMES[self.phase]}"
        else:
            options = [self._contextual_label(a) for a in self._legal_decisions()]
            shown = "; ".join(options[:12]) + ("; ..." if len(options) > 12 else "")
            why = (f"in phase {PHASE_NAMES[self.phase]} {self._game.term(FACTIONS[player])} may only choose: "
                   f"{shown}")
        raise IllegalActionError(f"action {action} ({label}) is illegal: {why}")

    # --- units -------------------------------------------------------------------------------

    def _add(self, units: list[list[int]], seat: int, area: int, n: int) -> None:
        """Add n (or remove -n) units of one kind; keeps the control bitmask current."""
        row = units[seat]
        row[area] += n
        if self.troops[seat][area] or self.ships[seat][area] or self.siege[seat][area]:
            self.ctrl[seat] |= BIT[area]
        else:
            self.ctrl[seat] &= ~BIT[area]

    def _take_losses(self, seat: int, area: int, troops: int, siege: int) -> None:
        """Return `troops` troops and `siege` siege weapons of `seat` at `area` to the reserve."""
        if troops:
            self._add(self.troops, seat, area, -troops)
            self.res_troops[seat] += troops
        if siege:
            self._add(self.siege, seat, area, -siege)
            self.res_siege[seat] += siege

    def _from_reserve(self, units: list[list[int]], reserve: list[int], seat: int, area: int, n: int) -> None:
        """Place up to n units of one kind from `seat`'s reserve at `area`."""
        n = min(n, reserve[seat])
        if n > 0:
            reserve[seat] -= n
            self._add(units, seat, area, n)

    def _lose(self, seat: int, area: int, k: int, after: int) -> None:
        """`seat` loses k units at `area` (as many as are there), choosing the kinds when it can
        (SJ-3); then the step `after` follows."""
        if self._game.board.is_water[area]:
            n = min(k, self.ships[seat][area])
            if n > 0:
                self._add(self.ships, seat, area, -n)
                self.res_ships[seat] += n
            self._after_loss(after)
            return
        troops, siege = self.troops[seat][area], self.siege[seat][area]
        k = min(k, troops + siege)
        lo, hi = max(0, k - troops), min(k, siege)
        if lo == hi:
            self._take_losses(seat, area, k - lo, lo)
            self._after_loss(after)
            return
        self.loss_seat, self.loss_area, self.loss_count, self.loss_next = seat, area, k, after
        self.phase = LOSS

    def _remove_all(self, seat: int, area: int) -> None:
        """Every unit of `seat` at `area` goes back to the reserve (no choice to make)."""
        self._take_losses(seat, area, self.troops[seat][area], self.siege[seat][area])
        ships = self.ships[seat][area]
        if ships:
            self._add(self.ships, seat, area, -ships)
            self.res_ships[seat] += ships

    def _after_loss(self, after: int) -> None:
        if after == NEXT_DEFENCE:
            self._attrition()
        elif after == NEXT_ATTRITION:
            self._conflict_over()
        else:  # NEXT_STRIKE, NEXT_CAP: the action ends (the caps are checked again)
            self._end_action()

    def _spend(self, seat: int, kind: int, effect: bool) -> None:
        """Move a card from `seat`'s hand to the discard pile; mark its effect as resolved."""
        self.hands[seat][kind] -= 1
        self.discard[kind] += 1
        if effect:
            self.used[seat] |= BIT[kind]
            self.fx |= BIT[kind]

    # --- the round ---------------------------------------------------------------------------

    def _begin_turn(self, seat: int) -> None:
        self.active = seat
        self.used = [0, 0]
        self.phase = TURN

    def _end_turn(self) -> None:
        reserve = self.cmd_reserve
        if not reserve[0] and not reserve[1]:
            self._end_round()
            return
        other = 1 - self.active
        self._begin_turn(other if reserve[other] else self.active)

    def _end_round(self) -> None:
        """Recall every commander (deployed and on standby), advance the round marker, maybe end."""
        for occ in (self.occ, self.occ2):
            for s, code in enumerate(occ):
                if code:
                    self.cmd_reserve[code - 1] += 1
                    occ[s] = 0
        for seat in (0, 1):
            self.cmd_reserve[seat] += self.cmd_standby[seat]
            self.cmd_standby[seat] = 0
        self.round += 1
        if self.round > self._game.board.rounds:
            self.round = self._game.board.rounds
            vp = self.victory_points()
            if vp[0] != vp[1]:
                self._finish(0 if vp[0] > vp[1] else 1, REASON_VP)
            else:
                self._finish(self.initiative, REASON_TIE)
            return
        self.support_used = [0, 0]
        self._begin_turn(self.initiative)

    def _finish(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.reason = reason
        self.phase = OVER
        self._clear_action()

    def _deploy(self, space: int, counter: bool) -> None:
        game = self._game
        seat = self.active
        self.cmd_reserve[seat] -= 1
        if counter:
            self.occ2[space] = 1 + seat
            self._spend(seat, COUNTERATTACK, effect=True)
        else:
            self.occ[space] = 1 + seat
        self._start_action(space, game.space_action[space], game.space_link[space])

    def _start_action(self, space: int, kind: int, link: int) -> None:
        game = self._game
        board = game.board
        seat = self.active
        self.act, self.space, self.link = kind, space, link
        self.fx = 0
        # SJ-4: control and supply are read at the start of the action.
        snap = self.snap = [self.supplied(0), self.supplied(1)]
        adj = board.area_adj
        if kind == ADVANCE:
            water_sup = snap[seat] & game.WATER
            via = 0
            for w in bits(adj[link] & water_sup):
                via |= adj[w]
            self.src = (adj[link] | via) & snap[seat] & game.LAND
            self.target, self.moved, self.phase = link, 0, MOVE
        elif kind == SAIL:
            water_sup = snap[seat] & game.WATER
            src = 0
            for w in bits(adj[link] & water_sup):
                if not src >> w & 1:
                    src |= reach(adj, w, water_sup)
            self.src = src
            self.target, self.moved, self.phase = link, 0, MOVE
        elif kind == BOMBARD or kind == SHELL or kind == SIEGE:
            if self._targets():
                self.phase = TARGET
            else:  # SJ-B3: nothing to hit; the action resolves with no effect
                self._end_action()
        elif kind == REINFORCE:
            spec = board.spaces[space]
            self.left = spec.value + (2 if self.has_bonus(BARRACKS, snap[seat]) else 0)
            self.optional = 0
            self.siege_left = spec.siege_limit
            self.siege_slots = 0
            self.withdraw_closed = False
            self.support_used[seat] |= BIT[kind]
            self._continue_placement()
        elif kind == EMBARK:
            self.left = board.spaces[space].value
            self.optional = 0
            self.withdraw_closed = False
            self.support_used[seat] |= BIT[kind]
            self._continue_placement()
        else:  # PLAN
            spec = board.spaces[space]
            self.support_used[seat] |= BIT[kind]
            if spec.initiative:
                self.initiative = seat
            self.draws = spec.value + (1 if self.has_bonus(WAR_ROOM, snap[seat]) else 0)
            self._continue_draws()

    def _continue_draws(self) -> None:
        deck_size = sum(self.deck)
        if self.draws > 0 and deck_size == 0:
            # SJ-10: an empty deck is refilled from the discard pile (a multiset: no order).
            self.deck = [a + b for a, b in zip(self.deck, self.discard)]
            self.discard = [0] * NUM_CARD_KINDS
            deck_size = sum(self.deck)
        if self.draws > 0 and deck_size > 0:
            self.phase = DRAW
        else:
            self.draws = 0
            self._end_action()

    # --- Advance / Sail ----------------------------------------------------------------------

    def _after_move_in(self) -> None:
        seat = self.active
        link = self.link
        snap = self.snap[seat]
        if self.act == SAIL:
            if self.has_bonus(SHIPYARD, snap):
                self._from_reserve(self.ships, self.res_ships, seat, link, 1)
            if self.fx >> RIVER_ASSAULT & 1:
                self._from_reserve(self.ships, self.res_ships, seat, link, 2)
        else:
            if self.has_bonus(HIDDEN_BASE, snap):  # SJ-16: not on the Advance that takes it
                self._from_reserve(self.troops, self.res_troops, seat, link, 1)
            if self.fx >> GROUND_ASSAULT & 1:
                self._from_reserve(self.troops, self.res_troops, seat, link, 2)
        if self.ctrl[1 - seat] >> link & 1:
            self._start_conflict(link)
        else:
            self._end_action()

    # --- Bombard / Shell / Siege -------------------------------------------------------------

    def _choose_target(self, area: int) -> None:
        seat = self.active
        snap = self.snap[seat]
        self.target = area
        act = self.act
        if act == BOMBARD:
            dice = self.ships[seat][self.link] + (1 if self.has_bonus(PIRATE_HAVEN, snap) else 0)
            if self.fx >> SHORE_STRIKE & 1:
                dice += 2
            self._start_roll(dice, seat, ROLL_BOMBARD)
        elif act == SHELL:
            self._start_roll(2, seat, ROLL_SHELL)
        else:  # SIEGE
            dice = self.siege[seat][self.link] + (1 if self.has_bonus(ARMOURY, snap) else 0)
            if self.fx >> SIEGE_TRAIN & 1:
                dice += 2
            self.dice = dice
            self._open_window(WINDOW_WALLS)

    def _after_shell(self) -> None:
        """Ship Strike may follow the first Shell; its window opens on public facts (SJ-C7, SJ-D4)."""
        seat = self.active
        if not self.fx >> SHIP_STRIKE & 1 and self._public(seat, SHIP_STRIKE) and self._targets():
            self.phase = FOLLOW_UP
        else:
            self._end_action()

    # --- Reinforce / Embark ------------------------------------------------------------------

    def _play_placement_card(self, seat: int, card: int) -> None:
        self._spend(seat, card, effect=True)
        if card == MOBILISE:  # up to two more troops (SJ-C4)
            self.left += 2
            self.optional += 2
        elif card == SIEGE_WORKSHOP:  # up to one more siege weapon, beyond the space's limit (SJ-C12)
            self.left += 1
            self.optional += 1
            self.siege_left += 1
            self.siege_slots += 1
        else:  # COMMANDEER: up to one more ship, and into water the opponent holds (SJ-C5)
            self.left += 1
            self.optional += 1
        self.withdraw_closed = False
        self._continue_placement()

    def _continue_placement(self) -> None:
        if self._shortfall() > 0 and not self.withdraw_closed and self._has_withdrawal():
            self.phase = WITHDRAW  # "Insufficient units" (SJ-12)
            return
        if not self._placeable():
            self._finish_placement()
            return
        self.phase = PLACE

    def _has_withdrawal(self) -> bool:
        seat = self.active
        if self.act == EMBARK:
            ships = self.ships[seat]
            return any(ships[w] >= 2 for w in bits(self.ctrl[seat] & self._game.WATER))
        troops, siege = self.troops[seat], self.siege[seat]
        siege_useful = self.siege_left > self.res_siege[seat]
        for a in bits(self.ctrl[seat] & self._game.LAND):
            if troops[a] + siege[a] >= 2 and (troops[a] or siege_useful):
                return True
        return False

    def _finish_placement(self) -> None:
        self.left = self.optional = self.siege_left = self.siege_slots = 0
        if self.act == EMBARK:
            seat = self.active
            self.queue = self.ctrl[seat] & self.ctrl[1 - seat] & self._game.WATER  # SJ-C5
            if self.queue:
                self._next_conflict()
                return
        self._end_action()

    # --- conflicts and rolls -----------------------------------------------------------------

    def _next_conflict(self) -> None:
        area = bits(self.queue)[0]
        self.queue &= ~BIT[area]
        self._start_conflict(area)

    def _start_conflict(self, area: int) -> None:
        self.target = area
        if self.act == ADVANCE and not self._game.board.is_water[area]:
            self._open_window(WINDOW_AMBUSH)
        else:
            self._defence_roll()

    def _open_window(self, window: int) -> None:
        """The defender's card window; it opens on public facts only (SJ-D4)."""
        self.window = window
        if self._public(1 - self.active, WINDOW_CARD[window]):
            self.phase = DEFEND
        else:
            self._close_window()

    def _close_window(self) -> None:
        window = self.window
        self.window = NO_WINDOW
        if window == WINDOW_WALLS:
            dice = self.dice - (2 if self.fx >> HOLD_THE_WALLS & 1 else 0)
            if dice <= 0:
                self._end_action()
            else:
                self._start_roll(dice, self.active, ROLL_SIEGE)
            return
        self._defence_roll()

    def _defence_roll(self) -> None:
        """One die; two in a fortified land area (unless Sappers); +2 with Ambush (SJ-11)."""
        area = self.target
        dice = 1
        if self._game.board.fortified >> area & 1 and not self.fx >> SAPPERS & 1:
            dice += 1
        if self.fx >> AMBUSH & 1:
            dice += 2
        self._start_roll(dice, 1 - self.active, ROLL_DEFENCE)

    def _start_roll(self, dice: int, roller: int, purpose: int) -> None:
        self.dice = min(dice, MAX_DICE)
        self.roller = roller
        self.purpose = purpose
        self.roll = -1
        self.phase = ROLL

    def _resolve_roll(self) -> None:
        purpose = self.purpose
        total = self.roll
        seat = self.active
        self.purpose = NO_ROLL
        self.roller = -1
        if purpose == ROLL_DEFENCE:  # the attacker removes hits from its own units (SJ-3)
            self._lose(seat, self.target, total, NEXT_DEFENCE)
        elif purpose == ROLL_SHELL:
            other = 1 - seat
            n = min(total, self.ships[other][self.target])
            if n > 0:
                self._add(self.ships, other, self.target, -n)
                self.res_ships[other] += n
            self._after_shell()
        else:  # ROLL_BOMBARD, ROLL_SIEGE: the owner chooses which land units go
            self._lose(1 - seat, self.target, total, NEXT_STRIKE)

    def _attrition(self) -> None:
        """One and one at a time until a side has none; the side left chooses its losses (SJ-2, SJ-3)."""
        seat = self.active
        other = 1 - seat
        area = self.target
        attackers, defenders = self.units(seat, area), self.units(other, area)
        if not attackers or not defenders:
            self._conflict_over()
            return
        if attackers == defenders:
            self._remove_all(seat, area)
            self._remove_all(other, area)
            self._conflict_over()
        elif attackers > defenders:
            self._remove_all(other, area)
            self._lose(seat, area, defenders, NEXT_ATTRITION)
        else:
            self._remove_all(seat, area)
            self._lose(other, area, attackers, NEXT_ATTRITION)

    def _conflict_over(self) -> None:
        if self.queue:
            self._next_conflict()
        else:
            self._end_action()

    # --- end of an action --------------------------------------------------------------------

    def _end_action(self) -> None:
        """SJ-1: every land area is cut to 5 units and every water area to 3 (owners choose which
        land units go); then the HQ check and the next turn."""
        game = self._game
        board = game.board
        for seat in (self.active, 1 - self.active):
            troops, siege, ships = self.troops[seat], self.siege[seat], self.ships[seat]
            for a in bits(self.ctrl[seat]):
                if troops[a] + siege[a] > board.land_cap:
                    self._lose(seat, a, troops[a] + siege[a] - board.land_cap, NEXT_CAP)
                    return
                if ships[a] > board.water_cap:
                    excess = ships[a] - board.water_cap
                    self._add(self.ships, seat, a, -excess)
                    self.res_ships[seat] += excess
        self._clear_action()
        for seat in (self.active, 1 - self.active):
            hq = board.hq[seat]
            if not self.troops[seat][hq] and not self.siege[seat][hq]:
                self._finish(1 - seat, REASON_HQ)  # SJ-5
                return
        self._end_turn()

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        game = self._game
        board = game.board
        ids = board.area_ids
        outcome = self.outcome()
        loss = None
        if self.loss_seat >= 0:
            loss = {"seat": self.loss_seat, "area": ids[self.loss_area], "count": self.loss_count,
                    "then": AFTER_LOSS[self.loss_next]}
        return {
            "game": game.name,
            "mode": game.mode,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "round": self.round,
            "initiative": self.initiative,
            "active": self.active,
            "troops": {ids[a]: [self.troops[0][a], self.troops[1][a]] for a in range(game.NA)},
            "ships": {ids[a]: [self.ships[0][a], self.ships[1][a]] for a in range(game.NA) if board.is_water[a]},
            "siege_weapons": {ids[a]: [self.siege[0][a], self.siege[1][a]] for a in game.land_areas},
            "reserve_troops": list(self.res_troops),
            "reserve_ships": list(self.res_ships),
            "reserve_siege_weapons": list(self.res_siege),
            "commanders_reserve": list(self.cmd_reserve),
            "commanders_standby": list(self.cmd_standby),
            "spaces": [[self.occ[s], self.occ2[s]] for s in range(game.NS)],
            "support_used": [[ACTIONS[k] for k in range(len(ACTIONS)) if used >> k & 1] for used in self.support_used],
            "bonuses": {ids[a]: TOKENS[t] for a, t in enumerate(self.bonus_at) if t >= 0},
            "discard": named_counts(self.discard, CARD_IDS),
            "used_effects": [[CARD_IDS[k] for k in range(NUM_CARD_KINDS) if used >> k & 1] for used in self.used],
            "action": {
                "kind": ACTIONS[self.act] if self.act >= 0 else None,
                "space": self.space,
                "link": ids[self.link] if self.link >= 0 else None,
                "target": ids[self.target] if self.target >= 0 else None,
                "sources": _ids_of(board, self.src),
                "moved": self.moved, "left": self.left, "optional": self.optional,
                "siege_left": self.siege_left, "siege_slots": self.siege_slots,
                "withdraw_closed": self.withdraw_closed,
                "effects": [CARD_IDS[k] for k in range(NUM_CARD_KINDS) if self.fx >> k & 1],
                "supplied_at_start": [_ids_of(board, mask) for mask in self.snap],
                "window": WINDOWS[self.window], "dice": self.dice, "roller": self.roller, "roll": self.roll,
                "roll_for": PURPOSES[self.purpose], "draws": self.draws,
                "conflicts_queued": _ids_of(board, self.queue),
                "loss": loss,
            },
            "victory_points": self.victory_points(),
            "winner": self.winner,
            "reason": self.reason,
            "outcome": outcome.to_json() if outcome else None,
        }

    def to_json(self) -> JSON:
        data = self._public_json()
        data["hands"] = [named_counts(hand, CARD_IDS) for hand in self.hands]
        data["deck"] = named_counts(self.deck, CARD_IDS)
        return data

    def observation(self, seat: int) -> JSON:
        if seat not in (0, 1):
            raise ValueError(f"seat {seat} is not a seat of Sengoku Jidai (0 or 1)")
        data = self._public_json()
        data["seat"] = seat
        data["hand"] = named_counts(self.hands[seat], CARD_IDS)
        data["hand_sizes"] = [sum(hand) for hand in self.hands]
        data["deck_size"] = sum(self.deck)
        return data

    @classmethod
    def from_json(cls, game: SengokuGame, data: JSON) -> SengokuState:
        """Rebuild a state from `to_json()` output, checking that it is self-consistent."""
        board = game.board
        ids = board.area_ids

        def area_or_none(name: Any) -> int:
            return -1 if name is None else ids.index(name)

        def per_area(table: Any, areas: Any) -> list[list[int]]:
            if set(table) != {ids[a] for a in areas}:
                raise ValueError("unit tables must list exactly their areas")
            rows = [[0] * game.NA, [0] * game.NA]
            for a in areas:
                rows[0][a], rows[1][a] = int(table[ids[a]][0]), int(table[ids[a]][1])
            return rows

        try:
            if data.get("mode", game.mode) != game.mode:
                raise ValueError(f"mode {data.get('mode')!r} is not {game.mode!r}")
            state = cls(game)
            state.phase = PHASE_NAMES.index(data["phase"])
            state.round = int(data["round"])
            state.initiative = int(data["initiative"])
            state.active = int(data["active"])
            state.troops = per_area(data["troops"], range(game.NA))
            state.ships = per_area(data["ships"], [a for a in range(game.NA) if board.is_water[a]])
            state.siege = per_area(data["siege_weapons"], game.land_areas)
            state.res_troops = [int(n) for n in data["reserve_troops"]]
            state.res_ships = [int(n) for n in data["reserve_ships"]]
            state.res_siege = [int(n) for n in data["reserve_siege_weapons"]]
            state.cmd_reserve = [int(n) for n in data["commanders_reserve"]]
            state.cmd_standby = [int(n) for n in data["commanders_standby"]]
            spaces = data["spaces"]
            if len(spaces) != game.NS:
                raise ValueError(f"{game.NS} action spaces expected")
            state.occ = [int(pair[0]) for pair in spaces]
            state.occ2 = [int(pair[1]) for pair in spaces]
            state.support_used = [sum(BIT[ACTIONS.index(k)] for k in used) for used in data["support_used"]]
            bonus_at = [-1] * game.NA
            for area, token in data["bonuses"].items():
                bonus_at[ids.index(area)] = TOKENS.index(token)
            state.bonus_at = bonus_at
            state.discard = counts_of(data["discard"], CARD_IDS)
            state.hands = [counts_of(hand, CARD_IDS) for hand in data["hands"]]
            state.deck = counts_of(data["deck"], CARD_IDS)
            state.used = [sum(BIT[CARD_IDS.index(k)] for k in used) for used in data["used_effects"]]
            action = data["action"]
            state.act = ACTIONS.index(action["kind"]) if action["kind"] is not None else -1
            state.space = int(action["space"])
            state.link = area_or_none(action["link"])
            state.target = area_or_none(action["target"])
            state.src = _mask_of(board, action["sources"])
            state.moved = int(action["moved"])
            state.left = int(action["left"])
            state.optional = int(action["optional"])
            state.siege_left = int(action["siege_left"])
            state.siege_slots = int(action["siege_slots"])
            state.withdraw_closed = bool(action["withdraw_closed"])
            state.fx = sum(BIT[CARD_IDS.index(k)] for k in action["effects"])
            state.snap = [_mask_of(board, names) for names in action["supplied_at_start"]]
            state.window = WINDOWS.index(action["window"])
            state.dice = int(action["dice"])
            state.roller = int(action["roller"])
            state.roll = int(action["roll"])
            state.purpose = PURPOSES.index(action["roll_for"])
            state.draws = int(action["draws"])
            state.queue = _mask_of(board, action["conflicts_queued"])
            loss = action["loss"]
            if loss is not None:
                state.loss_seat = int(loss["seat"])
                state.loss_area = ids.index(loss["area"])
                state.loss_count = int(loss["count"])
                state.loss_next = AFTER_LOSS.index(loss["then"])
            state.winner = int(data["winner"])
            state.reason = str(data["reason"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise StateFormatError(f"not a Sengoku Jidai state: {error!r}") from None
        state.refresh_control()
        state.validate()
        return state

    def validate(self) -> None:
        """Raise StateFormatError unless units, commanders and cards all add up."""
        game = self._game
        board = game.board
        problems = []
        totals = ((self.troops, self.res_troops, board.troops, "troops"),
                  (self.ships, self.res_ships, board.ships, "ships"),
                  (self.siege, self.res_siege, board.siege_weapons, "siege weapons"))
        for seat in (0, 1):
            name = FACTIONS[seat]
            for units, reserve, total, word in totals:
                if len(units[seat]) != game.NA:
                    problems.append("wrong board size")
                elif min(units[seat]) < 0 or reserve[seat] < 0:
                    problems.append(f"{name} has a negative number of {word}")
                elif sum(units[seat]) + reserve[seat] != total:
                    problems.append(f"{name} does not have {total} {word}")
            for a in range(game.NA):
                if board.is_water[a] and (self.troops[seat][a] or self.siege[seat][a]):
                    problems.append(f"{name} has land units in water area {board.area_ids[a]}")
                if not board.is_water[a] and self.ships[seat][a]:
                    problems.append(f"{name} has ships in land area {board.area_ids[a]}")
            commanders = self.cmd_reserve[seat] + self.cmd_standby[seat] + self.commanders_deployed(seat)
            if commanders != board.commanders or min(self.cmd_reserve[seat], self.cmd_standby[seat]) < 0:
                problems.append(f"{name} does not have {board.commanders} commanders")
        if len(self.occ) != game.NS or any(c not in (0, 1, 2) for c in self.occ + self.occ2):
            problems.append("bad commander codes on the action spaces")
        for kind in range(NUM_CARD_KINDS):
            held = self.deck[kind] + self.discard[kind] + self.hands[0][kind] + self.hands[1][kind]
            if held != board.deck[kind] or min(self.deck[kind], self.discard[kind], self.hands[0][kind],
                                               self.hands[1][kind]) < 0:
                problems.append(f"the {CARD_IDS[kind]} cards do not add up to {board.deck[kind]}")
        placed = [t for t in self.bonus_at if t >= 0]
        if len(set(placed)) != len(placed) or any(t not in board.bonus_pool for t in placed):
            problems.append("bad area-bonus tokens")
        if self.phase not in (SETUP_BONUS, SETUP_INITIATIVE) and self.initiative not in (0, 1):
            problems.append("nobody has the initiative")
        if self.phase in (TURN, MOVE, TARGET, PLACE, WITHDRAW, DEFEND, FOLLOW_UP) and self.active not in (0, 1):
            problems.append("no active player")
        elif self.phase == TURN and self.cmd_reserve[self.active] <= 0:
            problems.append("the player to deploy has no commander in reserve")
        if self.phase in (ROLL, REROLL) and (self.roller not in (0, 1) or not 0 <= self.dice <= MAX_DICE):
            problems.append("a roll needs a roller and a number of dice")
        if self.phase == REROLL and self.roll < 0:
            problems.append("a re-roll decision needs a roll")
        if self.phase == LOSS and (self.loss_seat not in (0, 1) or self.loss_area < 0
                                   or self._loss_range()[0] >= self._loss_range()[1]):
            problems.append("a loss choice needs a seat, an area and a real choice")
        if self.phase == DRAW and (self.draws <= 0 or not sum(self.deck)):
            problems.append("a draw needs cards to draw")
        if self.phase == OVER and self.winner not in (0, 1):
            problems.append("a finished game needs a winner")
        if self.phase == TURN:
            for a in range(game.NA):
                cap = board.water_cap if board.is_water[a] else board.land_cap
                if self.units(0, a) and self.units(1, a):
                    problems.append(f"both sides hold {board.area_ids[a]} between actions")
                if max(self.units(0, a), self.units(1, a)) > cap:
                    problems.append(f"more units in {board.area_ids[a]} than the cap allows")
        if problems:
            raise StateFormatError("inconsistent Sengoku Jidai state: " + "; ".join(problems))

    # --- display -----------------------------------------------------------------------------

    def board_text(self) -> str:
        """The position as text: areas with units and spaces, the support board, reserves and hands."""
        game = self._game
        board = game.board
        t = game.term
        initials = (t("red")[:1], t("black")[:1])
        sup = (self.supplied(0), self.supplied(1))
        lines = [f"{board.title[game.lang]} - {t('round')} {self.round}/{board.rounds} - "
                 f"{t('initiative')}: {t(FACTIONS[self.initiative]) if self.initiative >= 0 else '-'}"]
        spaces_at: dict[int, list[str]] = {}
        support = []
        for s, space in enumerate(board.spaces):
            who = ",".join(initials[code - 1] for code in (self.occ[s], self.occ2[s]) if code)
            if space.link < 0:
                support.append(f"{game.space_name(s)}[{who or ' '}]")
            else:
                spaces_at.setdefault(space.link, []).append(f"{t(ACTIONS[space.action])}[{who or ' '}]")
        for a, name in enumerate(board.area_ids):
            owner = "-"
            for seat in (0, 1):
                if self.units(seat, a):
                    parts = []
                    if self.troops[seat][a]:
                        parts.append(f"{self.troops[seat][a]}t")
                    if self.siege[seat][a]:
                        parts.append(f"{self.siege[seat][a]}s")
                    if self.ships[seat][a]:
                        parts.append(f"{self.ships[seat][a]}sh")
                    owner = f"{initials[seat]}{'+'.join(parts)}{'*' if sup[seat] >> a & 1 else ''}"
            extras = []
            for seat in (0, 1):
                if board.hq[seat] == a:
                    extras.append(f"{t('hq')} {t(FACTIONS[seat])}")
            if board.fortified >> a & 1:
                extras.append(t("fortified"))
            if board.port_into[a]:
                extras.append(f"{t('port')} -> {','.join(_ids_of(board, board.port_into[a]))}")
            if self.bonus_at[a] >= 0:
                extras.append(game.bonus_name(self.bonus_at[a]))
            kind = "~" if board.is_water[a] else " "
            lines.append(f" {kind}{name:<4} {board.area_vp[a]}{t('vp')} {owner:<10} "
                         f"{' '.join(spaces_at.get(a, []))} {'; '.join(extras)}".rstrip())
        lines.append(f"  {t('support_board')}: {' '.join(support)}")
        vp = self.victory_points()
        for seat in (0, 1):
            line = f"  {t(FACTIONS[seat])}: {t('reserve')} {self.res_troops[seat]} {t('troops')}, " \
                   f"{self.res_ships[seat]} {t('ships')}"
            if board.has_siege:
                line += f", {self.res_siege[seat]} {t('siege_weapons')}"
            line += (f"; {t('commander')} {self.cmd_reserve[seat]} + {self.cmd_standby[seat]} {t('standby')}"
                     f"; {t('hand')} {sum(self.hands[seat])}; {t('vp')} {vp[seat]}")
            lines.append(line)
        discard = ", ".join(f"{game.card_name(k)} x{n}" for k, n in enumerate(self.discard) if n)
        lines.append(f"  {t('deck')} {sum(self.deck)}; {t('discard')}: {discard or '-'}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<SengokuState {self._game.mode} {PHASE_NAMES[self.phase]} round {self.round} "
                f"active {self.active}>")


def new_game(**options: Any) -> SengokuGame:
    """Factory used by the registry."""
    return SengokuGame(**options)

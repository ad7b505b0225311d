"""General Orders: WWII (Osprey Games, 2023), Alpine and Island modes: the complete rules engine.

Variant: the printed rulebooks (../shared/seeds/general-orders-wwii.en.txt and .pt-BR.txt; where
they differ the Portuguese clarifications are followed). The boards, the support values, the mode
split of the operation deck and most card effects are reconstructions or working assumptions
(boards/*.json, cards.json, ../shared/reference/general-orders-wwii.md). Every reading of an open
point is a line of docs/rules-decisions.md, section "General Orders (WWII)", numbered GO-n; the
code cites those numbers.

The engine is one family: everything that differs between modes is board data (data.py). A mode
without air zones (Alpine) simply has no aircraft, Fly, Bomb or Take-off.

Seats: 0 is Blue, 1 is Yellow (the rulebook's example colours). A round: commanders are deployed
one per turn, alternately from the initiative holder; a pass is final (GO-14); when both have
passed the commanders are recalled (Blitz ones to the standby area) and the round marker
advances. The game ends at once when a player no longer controls their HQ (GO-2, GO-5),
otherwise after round 4 on VP of areas controlled and supplied, ties to the initiative holder.

Hidden information: the hands. The operation deck is a multiset of counts and every draw is a
chance node, so no deck order exists to leak. Dice: one chance node per roll over the total of
k dice with faces 0,1,1,1,1,2 (exact multinomial probabilities).

Action space (ids depend on the board's sizes: NS spaces, NA land areas, NZ air zones):
  0                     pass (final for the round)
  1                     done (stop moving in / placing / withdrawing)
  2                     decline: play no card now (defender's card window)
  3                     keep the roll (no re-roll)
  D = 4 .. +NS          deploy a commander to space s
  C = D+NS .. +NS       play Counter Attack and deploy to Advance space s (held by the opponent)
  P = C+NS .. +11       play operation card k for its special effect (order of cards.json)
  R = P+11 .. +11       spend operation card k to re-roll your dice
  T = R+11 .. +NA       choose target land area a (Paradrop, Barrage, Bomb)
  A = T+NA .. +5*NA     n troops (1..5) at land area a: id = A + 5*a + n-1 (move from / place into /
                        withdraw from, by the step)
  Z = A+5*NA .. +5*NZ   n aircraft (1..5) at air zone z: id = Z + 5*z + n-1
  L = Z+5*NZ .. +5      Bomb payload of n aircraft: id = L + n-1
  S = L+5 .. +NS        return my commander on space s to the standby area (Signal Unit lost, GO-7)
Chance outcomes (44 ids, all modes): 0,1 Blue/Yellow takes the initiative; 2..7 area-bonus token
(depot, forward base, observer post, recon post, signal unit, air control post) for the next slot;
8..18 draw operation card k; 19..43 a roll totalling 0..24 pips.

Forced choices (a single legal option) are made without asking, unless an own-turn card could be
played at that step judging by public facts only (the player holds some card, a copy is not in the
discard pile, its effect is unused this turn, its public condition holds): then the step is asked
even when the player holds no such card (GO-D7). The defender's card window opens on the same kind
of public facts (GO-C10). So the sequence of decisions never reveals the hand.
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
from arena.games.general_orders.common import (  # noqa: F401  (supplied_from_scratch: re-exported)
    BIT,
    MAX_DICE,
    bits,
    dice_table,
    reach,
    supplied_from_scratch,
)
from arena.games.general_orders.data import (
    ACTIONS,
    ADVANCE,
    AIR_CONTROL_POST,
    AIRBORNE_ASSAULT,
    AIRSTRIKE,
    AMBUSH,
    ANTI_AIR,
    ARTILLERY_STRIKE,
    BARRAGE,
    BLITZ,
    BOARDS,
    BOMB,
    BONUSES,
    CARD_IDS,
    CARDS,
    COUNTER_ATTACK,
    DEPOT,
    FACTIONS,
    FLY,
    FORWARD_BASE,
    GROUND_ASSAULT,
    INTERCEPT,
    LANGS,
    MOBILIZE,
    NUM_CARD_KINDS,
    OBSERVER_POST,
    PARADROP,
    PLAN,
    RECON_POST,
    REINFORCE,
    SIGNAL_UNIT,
    TAKE_OFF,
    TERMS,
    TOKENS,
    TOWN_CENTRE,
    WINGMAN,
    Board,
)

BLUE, YELLOW = 0, 1
NUM_SEATS = 2

# Fixed decision ids.
PASS, DONE, DECLINE, ACCEPT = 0, 1, 2, 3
DEPLOY_BASE = 4
MAX_N = 5  # counts 1..5 in the area/zone/payload ids

# Chance outcome ids (the same for every mode).
INITIATIVE_BASE = 0
TOKEN_BASE = 2
CARD_BASE = TOKEN_BASE + len(TOKENS)  # 8
DICE_BASE = CARD_BASE + NUM_CARD_KINDS  # 19
NUM_CHANCE_OUTCOMES = DICE_BASE + 2 * MAX_DICE + 1  # 44

# Phases.
PHASE_NAMES = ("setup-bonus", "setup-initiative", "turn", "blitz-deploy", "move-in", "target", "payload",
               "withdraw", "place", "defend", "roll", "reroll", "draw", "signal-return", "over")
(SETUP_BONUS, SETUP_INITIATIVE, TURN, BLITZ_DEPLOY, MOVE, TARGET, PAYLOAD, WITHDRAW, PLACE, DEFEND, ROLL,
 REROLL, DRAW, SIGNAL_RETURN, OVER) = range(len(PHASE_NAMES))
CHANCE_PHASES = frozenset((SETUP_BONUS, SETUP_INITIATIVE, ROLL, DRAW))
# Phases where a single legal option is taken without asking, unless a card might be offered on
# public facts (GO-D7). Not DEFEND (GO-C10); REROLL always has two or more options.
AUTO_PHASES = frozenset((TURN, BLITZ_DEPLOY, MOVE, TARGET, PAYLOAD, WITHDRAW, PLACE, REROLL, SIGNAL_RETURN))

# What a roll is for.
PURPOSES = ("none", "defence", "anti-air-drop", "anti-air-bomb", "barrage", "bomb")
NO_ROLL, ROLL_DEFENCE, ROLL_ANTI_AIR_DROP, ROLL_ANTI_AIR_BOMB, ROLL_BARRAGE, ROLL_BOMB = range(len(PURPOSES))
# Defender's card windows.
WINDOWS = ("none", "land", "air", "bomb")
NO_WINDOW, WINDOW_LAND, WINDOW_AIR, WINDOW_BOMB = range(len(WINDOWS))
LAND, AIR = 0, 1

REASON_HQ = "hq_lost"
REASON_VP = "victory_points"
REASON_TIE = "initiative_tie_break"


DICE = dice_table(DICE_BASE)
_bits = bits
_reach = reach


class GeneralOrdersGame(Game):
    """General Orders: WWII in one mode ('alpine' or 'island'), labels in 'en' or 'pt-BR'."""

    rules_version = "2"  # 2: forced own-turn steps are asked when a card could be played (GO-D7)

    def __init__(self, mode: str = "alpine", lang: str = "en", name: str | None = None) -> None:
        if mode not in BOARDS:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(BOARDS)}")
        if lang not in LANGS:
            raise ValueError(f"unknown lang {lang!r}; choose one of {', '.join(LANGS)}")
        board = BOARDS[mode]
        self.board: Board = board
        self.mode = mode
        self.lang = lang
        ns, na, nz = len(board.spaces), board.num_areas, board.num_zones
        self.NS, self.NA, self.NZ = ns, na, nz
        self.COUNTER_BASE = DEPLOY_BASE + ns
        self.PLAY_BASE = self.COUNTER_BASE + ns
        self.REROLL_BASE = self.PLAY_BASE + NUM_CARD_KINDS
        self.TARGET_BASE = self.REROLL_BASE + NUM_CARD_KINDS
        self.AREA_BASE = self.TARGET_BASE + na
        self.ZONE_BASE = self.AREA_BASE + MAX_N * na
        self.PAYLOAD_BASE = self.ZONE_BASE + MAX_N * nz
        self.RETURN_BASE = self.PAYLOAD_BASE + MAX_N
        num_actions = self.RETURN_BASE + ns
        # Hot-path tables.
        self.space_action = tuple(s.action for s in board.spaces)
        self.space_link = tuple(s.link for s in board.spaces)
        self.space_faction = tuple(s.faction for s in board.spaces)
        self.advance_spaces = tuple(s.index for s in board.spaces if s.action == ADVANCE)
        self.space_table = tuple((s.index, s.action, s.link, s.faction) for s in board.spaces)
        self.deck_total = board.deck
        self.playable_cards = tuple(k for k in range(NUM_CARD_KINDS) if board.deck[k])
        self.town_mask = sum(BIT[a] for a in range(na) if board.printed_bonus[a] == TOWN_CENTRE)
        # Supply caches: control bitmask -> supplied bitmask, per seat (GO-D3). Pure functions of
        # the mask, so states share them safely.
        self.land_supply_cache: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self.air_supply_cache: tuple[dict[int, int], dict[int, int]] = ({}, {})
        if name is None:
            name = f"general-orders-wwii/{mode}"
        options: dict[str, Any] = {"mode": mode}
        if lang != "en":
            options["lang"] = lang
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
            options=options,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    # --- words -------------------------------------------------------------------------------

    def term(self, key: str) -> str:
        """A rulebook term in this game's language."""
        return TERMS[key][self.lang]

    def card_name(self, kind: int) -> str:
        """An operation card's name in this game's language."""
        return CARDS[kind].name[self.lang]

    def bonus_name(self, bonus: int) -> str:
        """An area bonus's name in this game's language."""
        return self.term(BONUSES[bonus])

    def area_name(self, area: int) -> str:
        """A land area's id (ids are language-neutral)."""
        return self.board.area_ids[area]

    def zone_name(self, zone: int) -> str:
        """An air zone's name in this game's language."""
        return self.board.zone_names[zone][self.lang]

    def space_name(self, space: int) -> str:
        """An action space: its action, and its linked area/zone, value or icon."""
        s = self.board.spaces[space]
        action = self.term(ACTIONS[s.action])
        if s.link < 0:
            text = f"{action} {s.value[0]}" if s.value[0] == s.value[1] else f"{action} {s.value[0]}/{s.value[1]}"
            if s.initiative:
                text += f" ({self.term('initiative')})"
            return text
        where = self.zone_name(s.link) if s.action in (FLY, BOMB) else self.area_name(s.link)
        text = f"{action} {where}"
        if s.faction >= 0:
            text += f" ({self.term(FACTIONS[s.faction])})"
        return text

    # --- Game interface ----------------------------------------------------------------------

    def new_initial_state(self) -> GeneralOrdersState:
        state = GeneralOrdersState(self)
        board = self.board
        state.troops = [list(board.start_troops[0]), list(board.start_troops[1])]
        state.aircraft = [list(board.start_aircraft[0]), list(board.start_aircraft[1])]
        state.res_troops = [board.troops - sum(state.troops[s]) for s in (0, 1)]
        state.res_air = [board.aircraft - sum(state.aircraft[s]) if board.has_air else 0 for s in (0, 1)]
        state.cmd_reserve = [board.commanders_reserve] * 2
        state.cmd_standby = [board.commanders_standby] * 2
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
        if action < self.AREA_BASE:
            return f"{t('target')} {self.area_name(action - self.TARGET_BASE)}"
        if action < self.ZONE_BASE:
            area, n = divmod(action - self.AREA_BASE, MAX_N)
            return f"{n + 1} {t('troops')} {t('at')} {self.area_name(area)}"
        if action < self.PAYLOAD_BASE:
            zone, n = divmod(action - self.ZONE_BASE, MAX_N)
            return f"{n + 1} {t('aircraft')} {t('at')} {self.zone_name(zone)}"
        if action < self.RETURN_BASE:
            return f"{t('payload')} {action - self.PAYLOAD_BASE + 1} {t('aircraft')}"
        return f"{t('return')} {self.space_name(action - self.RETURN_BASE)}"

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

    def state_from_json(self, data: JSON) -> GeneralOrdersState:
        return GeneralOrdersState.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> GeneralOrdersState:
        """Sample the opponent's hand from the cards not seen (deck total - discard - own hand)."""
        try:
            seat = int(observation["seat"])
            if seat not in (0, 1):
                raise ValueError("seat must be 0 or 1")
            own = _counts_of(observation["hand"])
            discard = _counts_of(observation["discard"])
            sizes = [int(n) for n in observation["hand_sizes"]]
            unseen: list[int] = []
            for kind in range(NUM_CARD_KINDS):
                left = self.deck_total[kind] - discard[kind] - own[kind]
                if left < 0:
                    raise ValueError(f"more {CARD_IDS[kind]} seen than the deck holds")
                unseen.extend([kind] * left)
            if sum(own) != sizes[seat] or len(unseen) != sizes[1 - seat] + int(observation["deck_size"]):
                raise ValueError("the observation's card counts do not add up")
            rng.shuffle(unseen)
            other = [0] * NUM_CARD_KINDS
            for kind in unseen[:sizes[1 - seat]]:
                other[kind] += 1
            deck = [0] * NUM_CARD_KINDS
            for kind in unseen[sizes[1 - seat]:]:
                deck[kind] += 1
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"not a General Orders observation: {error}") from None
        data = {key: value for key, value in observation.items()
                if key not in ("seat", "hand", "hand_sizes", "deck_size")}
        hands = [own, other] if seat == 0 else [other, own]
        data["hands"] = [_named_counts(h) for h in hands]
        data["deck"] = _named_counts(deck)
        return GeneralOrdersState.from_json(self, data)

    # --- supply ------------------------------------------------------------------------------

    def land_supply(self, seat: int, control: int) -> int:
        """Areas supplied by `seat` when it controls the areas in `control` (memoised)."""
        cache = self.land_supply_cache[seat]
        supplied = cache.get(control)
        if supplied is None:
            supplied = _reach(self.board.area_adj, self.board.hq[seat], control)
            if len(cache) > 200_000:
                cache.clear()
            cache[control] = supplied
        return supplied

    def air_supply(self, seat: int, control: int) -> int:
        """Air zones supplied by `seat` when it controls the zones in `control` (memoised)."""
        cache = self.air_supply_cache[seat]
        supplied = cache.get(control)
        if supplied is None:
            supplied = _reach(self.board.zone_adj, self.board.hq_zone[seat], control)
            if len(cache) > 200_000:
                cache.clear()
            cache[control] = supplied
        return supplied


def _counts_of(named: Any) -> list[int]:
    if not isinstance(named, dict):
        raise ValueError("card counts must be an object of card id -> count")
    counts = [0] * NUM_CARD_KINDS
    for key, value in named.items():
        counts[CARD_IDS.index(key)] = int(value)
        if counts[CARD_IDS.index(key)] < 0:
            raise ValueError("negative card count")
    return counts


def _named_counts(counts: list[int]) -> dict[str, int]:
    return {CARD_IDS[k]: n for k, n in enumerate(counts) if n}


class GeneralOrdersState(State):
    """A General Orders position. Mutable; `apply_action` changes it in place."""

    __slots__ = (
        "_game", "phase", "round", "initiative", "active", "passed", "troops", "aircraft", "res_troops",
        "res_air", "ctrl", "actrl", "cmd_reserve", "cmd_standby", "occ", "occ2", "support_used", "hands",
        "deck", "discard", "bonus_at", "token_area", "used", "signal", "blitz_extra",
        # the action under way
        "act", "space", "link", "unit", "target", "moved", "left", "optional", "withdraw_closed", "fx",
        "snap", "asnap", "payload", "window", "dice", "roller", "roll", "purpose", "draws", "chooser",
        "winner", "reason", "_legal",
    )

    def __init__(self, game: GeneralOrdersGame) -> None:
        self._game = game
        ns, na = game.NS, game.NA
        self.phase = SETUP_INITIATIVE
        self.round = 1
        self.initiative = -1
        self.active = -1
        self.passed = [False, False]
        self.troops: list[list[int]] = [[0] * na, [0] * na]
        self.aircraft: list[list[int]] = [[0] * game.NZ, [0] * game.NZ]
        self.res_troops = [0, 0]
        self.res_air = [0, 0]
        self.ctrl = [0, 0]  # bitmask of land areas with the seat's troops (derived)
        self.actrl = [0, 0]  # bitmask of air zones with the seat's aircraft (derived)
        self.cmd_reserve = [0, 0]
        self.cmd_standby = [0, 0]
        self.occ = [0] * ns  # 0 empty, else 1 + seat + 2 * (from a Blitz)
        self.occ2 = [0] * ns  # a second commander placed with Counter Attack
        self.support_used = [0, 0]  # bitmask of support action kinds used this round
        self.hands: list[list[int]] = [[0] * NUM_CARD_KINDS, [0] * NUM_CARD_KINDS]
        self.deck: list[int] = [0] * NUM_CARD_KINDS
        self.discard: list[int] = [0] * NUM_CARD_KINDS
        self.bonus_at = [-1] * na  # area-bonus token per area (-1: none)
        self.token_area = [-1] * len(TOKENS)  # area holding each token (derived)
        self.used = [0, 0]  # card effects resolved this turn, per seat (bitmask of card kinds)
        self.signal = [0, 0]  # Signal Unit: 0 not held, 1 held (no commander gained), 2 held + gained
        self.blitz_extra = False  # the action under way is a Blitz extra deployment
        self._clear_action()
        self.chooser = -1
        self.winner = -1
        self.reason = ""
        self._legal: list[int] | None = None

    def _clear_action(self) -> None:
        self.act = -1
        self.space = -1
        self.link = -1
        self.unit = LAND
        self.target = -1
        self.moved = 0
        self.left = 0
        self.optional = 0
        self.withdraw_closed = False
        self.fx = 0
        self.snap = [0, 0]
        self.asnap = [0, 0]
        self.payload = 0
        self.window = NO_WINDOW
        self.dice = 0
        self.roller = -1
        self.roll = -1
        self.purpose = NO_ROLL
        self.draws = 0

    # --- State interface ---------------------------------------------------------------------

    @property
    def game(self) -> GeneralOrdersGame:
        return self._game

    def current_player(self) -> int:
        phase = self.phase
        if phase == TURN or phase == BLITZ_DEPLOY or phase == MOVE or phase == TARGET or phase == PAYLOAD \
                or phase == WITHDRAW or phase == PLACE:
            return self.active
        if phase == DEFEND:
            return 1 - self.active
        if phase == REROLL:
            return self.roller
        if phase == SIGNAL_RETURN:
            return self.chooser
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

    def clone(self) -> GeneralOrdersState:
        o = GeneralOrdersState.__new__(GeneralOrdersState)
        o._game = self._game
        o.phase = self.phase
        o.round = self.round
        o.initiative = self.initiative
        o.active = self.active
        o.passed = self.passed[:]
        o.troops = [self.troops[0][:], self.troops[1][:]]
        o.aircraft = [self.aircraft[0][:], self.aircraft[1][:]]
        o.res_troops = self.res_troops[:]
        o.res_air = self.res_air[:]
        o.ctrl = self.ctrl[:]
        o.actrl = self.actrl[:]
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
        o.signal = self.signal[:]
        o.blitz_extra = self.blitz_extra
        o.act = self.act
        o.space = self.space
        o.link = self.link
        o.unit = self.unit
        o.target = self.target
        o.moved = self.moved
        o.left = self.left
        o.optional = self.optional
        o.withdraw_closed = self.withdraw_closed
        o.fx = self.fx
        o.snap = self.snap  # replaced, never mutated
        o.asnap = self.asnap
        o.payload = self.payload
        o.window = self.window
        o.dice = self.dice
        o.roller = self.roller
        o.roll = self.roll
        o.purpose = self.purpose
        o.draws = self.draws
        o.chooser = self.chooser
        o.winner = self.winner
        o.reason = self.reason
        o._legal = self._legal
        return o

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        ranking = (0, 1) if self.winner == BLUE else (1, 0)
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
        if game.AREA_BASE <= action < game.PAYLOAD_BASE:
            air = action >= game.ZONE_BASE
            base = game.ZONE_BASE if air else game.AREA_BASE
            where, n = divmod(action - base, MAX_N)
            name = game.zone_name(where) if air else game.area_name(where)
            units = t("aircraft") if air else t("troops")
            if phase == MOVE:
                dest = game.zone_name(self.link) if air else game.area_name(self.link)
                return f"{t('move')} {n + 1} {units} {t('from')} {name} -> {dest}"
            if phase == PLACE:
                return f"{t('place')} {n + 1} {units} {t('into')} {name}"
            if phase == WITHDRAW:
                return f"{t('withdraw')}: {n + 1} {units} {t('from')} {name}"
        return game.action_label(action)

    # --- derived facts -----------------------------------------------------------------------

    def refresh_control(self) -> None:
        """Recompute the control bitmasks and token positions from the unit counts (after edits)."""
        for seat in (0, 1):
            self.ctrl[seat] = sum(BIT[a] for a, n in enumerate(self.troops[seat]) if n > 0)
            self.actrl[seat] = sum(BIT[z] for z, n in enumerate(self.aircraft[seat]) if n > 0)
        token_area = [-1] * len(TOKENS)
        for area, token in enumerate(self.bonus_at):
            if token >= 0:
                token_area[token] = area
        self.token_area = token_area
        self._legal = None

    def supplied(self, seat: int) -> int:
        """Bitmask of the land areas `seat` controls and supplies."""
        return self._game.land_supply(seat, self.ctrl[seat])

    def air_supplied(self, seat: int) -> int:
        """Bitmask of the air zones `seat` controls and supplies."""
        if not self._game.NZ:
            return 0
        return self._game.air_supply(seat, self.actrl[seat])

    def victory_points(self) -> list[int]:
        """VP on the land areas each seat controls and supplies."""
        vp = self._game.board.area_vp
        return [sum(vp[a] for a in _bits(self.supplied(seat))) for seat in (0, 1)]

    def has_bonus(self, seat: int, token: int, supplied: int) -> bool:
        """True when the area holding `token` is in `supplied` (a supply mask of `seat`)."""
        area = self.token_area[token]
        return area >= 0 and bool(supplied >> area & 1)

    def commanders_deployed(self, seat: int) -> int:
        """Commanders of `seat` on action spaces."""
        return sum(1 for code in self.occ if code and (code - 1) & 1 == seat) + \
            sum(1 for code in self.occ2 if code and (code - 1) & 1 == seat)

    def _slots_filled(self) -> int:
        return sum(1 for area in self._game.board.bonus_slots if self.bonus_at[area] >= 0)

    def _unseen(self, kind: int) -> int:
        """Copies of a card kind not in the discard pile (public knowledge)."""
        return self._game.deck_total[kind] - self.discard[kind]

    # --- legal decisions ---------------------------------------------------------------------

    def _legal_decisions(self) -> list[int]:
        phase = self.phase
        if phase == TURN:
            return self._turn_options(False)
        if phase == BLITZ_DEPLOY:
            return self._turn_options(True)
        if phase == MOVE:
            return self._move_options()
        if phase == PLACE:
            return self._place_options()
        if phase == REROLL:
            game = self._game
            hand = self.hands[self.roller]
            return [ACCEPT] + [game.REROLL_BASE + k for k in range(NUM_CARD_KINDS) if hand[k]]
        if phase == TARGET:
            return self._target_options()
        if phase == DEFEND:
            game = self._game
            hand = self.hands[1 - self.active]
            return [DECLINE] + [game.PLAY_BASE + k for k in self._window_cards() if hand[k]]
        if phase == PAYLOAD:
            return self._payload_options()
        if phase == WITHDRAW:
            return self._withdraw_options()
        if phase == SIGNAL_RETURN:
            game = self._game
            seat = self.chooser
            return [game.RETURN_BASE + s for s in range(game.NS) if self._holds_space(seat, s)]
        return []

    def _holds_space(self, seat: int, space: int) -> bool:
        code, code2 = self.occ[space], self.occ2[space]
        return bool(code and (code - 1) & 1 == seat) or bool(code2 and (code2 - 1) & 1 == seat)

    def _can_play(self, seat: int, kind: int) -> bool:
        return bool(self.hands[seat][kind]) and not self.used[seat] >> kind & 1

    def _public(self, seat: int, kind: int) -> bool:
        """Could `seat` hold and play `kind` now, judging by public facts only (GO-D7)?
        True whenever `_can_play` is, so asking on it hides whether the card is held."""
        return (not (self.used[seat] | self.fx) >> kind & 1 and self._game.deck_total[kind] > self.discard[kind]
                and any(self.hands[seat]))

    def _card_may_be_offered(self) -> bool:
        """Whether this own-turn step could offer a card, judging by public facts only (GO-D7)."""
        phase = self.phase
        seat = self.active
        if phase == TURN or phase == BLITZ_DEPLOY:
            may_counter = self._public(seat, COUNTER_ATTACK)
            if phase == TURN and self.cmd_reserve[seat] <= 0:
                return (self.cmd_standby[seat] > 0 and self._public(seat, BLITZ)
                        and bool(self._deploy_options(seat, True, may_counter)))
            # One option means no plain deployment is open, so Blitz too would need a Counter Attack.
            counter_base = self._game.COUNTER_BASE
            return may_counter and any(a >= counter_base for a in self._deploy_options(seat, False, True))
        if phase == MOVE:
            if self.unit == LAND:
                return self.res_troops[seat] > 0 and self._public(seat, GROUND_ASSAULT)
            return self.res_air[seat] > 0 and self._public(seat, WINGMAN)
        if phase == TARGET:
            act = self.act
            card = AIRBORNE_ASSAULT if act == PARADROP else ARTILLERY_STRIKE if act == BARRAGE else -1
            return card >= 0 and self._public(seat, card)
        if phase == PAYLOAD:
            return self._public(seat, AIRSTRIKE)
        if phase == PLACE or phase == WITHDRAW:
            card = self._placement_card()
            return card >= 0 and self._public(seat, card)
        return False  # SIGNAL_RETURN offers no card; REROLL always has two or more options

    def _turn_options(self, from_standby: bool) -> list[int]:
        game = self._game
        seat = self.active
        actions = [] if from_standby else [PASS]
        if not from_standby and self.cmd_reserve[seat] <= 0:
            if self._can_play(seat, BLITZ) and self.cmd_standby[seat] > 0 and self._deploy_options(seat, True):
                actions.append(game.PLAY_BASE + BLITZ)
            return actions
        deploys = self._deploy_options(seat, False)
        actions.extend(deploys)
        if not from_standby and self._can_play(seat, BLITZ) and self.cmd_standby[seat] > 0 and deploys:
            actions.append(game.PLAY_BASE + BLITZ)
        return actions

    def _deploy_options(self, seat: int, stop_at_first: bool, may_counter: bool | None = None) -> list[int]:
        """Deploy and Counter Attack ids whose deployment criteria `seat` meets (ascending);
        Counter Attack ids when `may_counter` (default: when `seat` can play the card)."""
        game = self._game
        board = game.board
        troops = self.troops[seat]
        ctrl = self.ctrl[seat]
        sup = game.land_supply(seat, ctrl)
        # Advance: a linked area not controlled, next to a supplied area holding two or more troops.
        area_adj = board.area_adj
        near_ge2 = 0
        for a in _bits(sup):
            if troops[a] >= 2:
                near_ge2 |= area_adj[a]
        advance_ok = near_ge2 & ~ctrl
        fly_ok = bomb_ok = 0
        if game.NZ:
            air = self.aircraft[seat]
            actrl = self.actrl[seat]
            zone_adj = board.zone_adj
            near_age2 = 0
            for z in _bits(game.air_supply(seat, actrl)):
                if air[z] >= 2:
                    bomb_ok |= BIT[z]  # GO-B2: a payload of one needs two aircraft
                    near_age2 |= zone_adj[z]
            fly_ok = near_age2 & ~actrl
        # Linked spaces by action kind: advance, fly, paradrop, barrage, bomb.
        link_ok = (advance_ok, fly_ok, sup, sup, bomb_ok)
        occ = self.occ
        used_support = self.support_used[seat]
        actions = []
        counters = []
        if may_counter is None:
            may_counter = self._can_play(seat, COUNTER_ATTACK)
        for s, kind, link, faction in game.space_table:
            code = occ[s]
            if code:
                if (may_counter and kind == ADVANCE and (code - 1) & 1 != seat and not self.occ2[s]
                        and advance_ok >> link & 1):
                    counters.append(game.COUNTER_BASE + s)
                continue
            if link >= 0:
                if not link_ok[kind] >> link & 1 or (faction >= 0 and faction != seat):
                    continue
            elif used_support >> kind & 1:
                continue
            actions.append(DEPLOY_BASE + s)
            if stop_at_first:
                return actions
        actions.extend(counters)
        return actions

    def _move_options(self) -> list[int]:
        game = self._game
        seat = self.active
        link = self.link
        actions = [DONE] if self.moved else []
        if self.unit == LAND:
            card, reserve = GROUND_ASSAULT, self.res_troops[seat]
            sources = game.board.area_adj[link] & self.snap[seat]
            units = self.troops[seat]
            base = game.AREA_BASE
        else:
            card, reserve = WINGMAN, self.res_air[seat]
            sources = game.board.zone_adj[link] & self.asnap[seat]
            units = self.aircraft[seat]
            base = game.ZONE_BASE
        if reserve and self._can_play(seat, card) and not self.fx >> card & 1:
            actions.append(game.PLAY_BASE + card)
        for where in _bits(sources):
            n = units[where]
            if n >= 2:
                first = base + MAX_N * where
                actions.extend(range(first, first + n - 1))
        return actions

    def _target_options(self) -> list[int]:
        game = self._game
        seat = self.active
        act = self.act
        actions = []
        card = AIRBORNE_ASSAULT if act == PARADROP else ARTILLERY_STRIKE if act == BARRAGE else -1
        if card >= 0 and self._can_play(seat, card) and not self.fx >> card & 1:
            actions.append(game.PLAY_BASE + card)
        base = game.TARGET_BASE
        actions.extend(base + a for a in _bits(self._targets()))
        return actions

    def _targets(self) -> int:
        board = self._game.board
        seat = self.active
        act = self.act
        if act == PARADROP:
            return (BIT[board.num_areas] - 1) & ~board.no_paradrop & ~BIT[board.hq[1 - seat]]
        if act == BARRAGE:  # GO-B1: only areas holding opponent's troops (others change nothing)
            return board.within3[self.link] & self.ctrl[1 - seat]
        return board.zone_areas[self.link] & self.ctrl[1 - seat]  # BOMB

    def _payload_options(self) -> list[int]:
        game = self._game
        seat = self.active
        actions = []
        if self._can_play(seat, AIRSTRIKE) and not self.fx >> AIRSTRIKE & 1:
            actions.append(game.PLAY_BASE + AIRSTRIKE)
        most = min(self.aircraft[seat][self.link] - 1, MAX_N)
        actions.extend(range(game.PAYLOAD_BASE, game.PAYLOAD_BASE + most))
        return actions

    def _withdraw_options(self) -> list[int]:
        game = self._game
        seat = self.active
        actions = [DONE]
        card = self._placement_card()
        if card >= 0 and self._can_play(seat, card) and not self.fx >> card & 1:
            actions.append(game.PLAY_BASE + card)
        deficit = self.left - (self.res_troops[seat] if self.unit == LAND else self.res_air[seat])
        if self.unit == LAND:
            units, base, mask = self.troops[seat], game.AREA_BASE, self.ctrl[seat]
        else:
            units, base, mask = self.aircraft[seat], game.ZONE_BASE, self.actrl[seat]
        for where in _bits(mask):
            n = min(units[where] - 1, deficit, MAX_N)
            if n > 0:
                first = base + MAX_N * where
                actions.extend(range(first, first + n))
        return actions

    def _has_withdrawal(self) -> bool:
        seat = self.active
        units = self.troops[seat] if self.unit == LAND else self.aircraft[seat]
        return any(n >= 2 for n in units)

    def _placement_card(self) -> int:
        if self.act == REINFORCE:
            return MOBILIZE
        if self.act == PARADROP:
            return AIRBORNE_ASSAULT
        return -1

    def _place_targets(self) -> int:
        """Areas (or zones) that may receive units now, below the cap."""
        game = self._game
        seat = self.active
        board = game.board
        if self.unit == LAND:
            units, cap, mask = self.troops[seat], board.land_cap, self.supplied(seat)
        else:  # Take-off: supplied zones, and always the HQ's zone
            units, cap = self.aircraft[seat], board.air_cap
            mask = self.air_supplied(seat) | BIT[board.hq_zone[seat]]
        room = 0
        for where in _bits(mask):
            if units[where] < cap:
                room |= BIT[where]
        return room

    def _place_options(self) -> list[int]:
        game = self._game
        seat = self.active
        board = game.board
        actions = [DONE] if self.left <= self.optional else []
        card = self._placement_card()
        if card >= 0 and self._can_play(seat, card) and not self.fx >> card & 1:
            actions.append(game.PLAY_BASE + card)
        if self.unit == LAND:
            units, cap, base, reserve = self.troops[seat], board.land_cap, game.AREA_BASE, self.res_troops[seat]
        else:
            units, cap, base, reserve = self.aircraft[seat], board.air_cap, game.ZONE_BASE, self.res_air[seat]
        most = min(self.left, reserve, MAX_N)
        for where in _bits(self._place_targets()):
            n = min(most, cap - units[where])
            first = base + MAX_N * where
            actions.extend(range(first, first + n))
        return actions

    def _window_cards(self) -> list[int]:
        """Cards the defender could play in the open window (public facts only, GO-C10)."""
        defender = 1 - self.active
        window = self.window
        if window == WINDOW_LAND:
            kinds = [AMBUSH, ANTI_AIR] if self.act == PARADROP else [AMBUSH]
        elif window == WINDOW_AIR:
            kinds = [INTERCEPT]
        else:
            kinds = [ANTI_AIR]
        used = self.used[defender] | self.fx
        return sorted(k for k in kinds if not used >> k & 1 and self._unseen(k) > 0)

    # --- applying decisions ------------------------------------------------------------------

    def _auto(self) -> None:
        """Make forced choices (a single legal option) without asking, unless a card might be
        offered judging by public facts (GO-D7)."""
        while True:
            phase = self.phase
            if phase not in AUTO_PHASES:
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
        if phase == TURN or phase == BLITZ_DEPLOY:
            if action == PASS:
                self.passed[seat] = True
                self._end_turn()
            elif action == game.PLAY_BASE + BLITZ:
                self._spend(seat, BLITZ, effect=True)
                self.phase = BLITZ_DEPLOY
            elif action < game.COUNTER_BASE:
                self._deploy(action - DEPLOY_BASE, False)
            else:
                self._deploy(action - game.COUNTER_BASE, True)
        elif phase == MOVE:
            if action == DONE:
                self._after_move_in()
            elif action < game.REROLL_BASE:
                card = action - game.PLAY_BASE
                self._spend(seat, card, effect=True)
            elif self.unit == LAND:
                where, n = divmod(action - game.AREA_BASE, MAX_N)
                self._add_troops(seat, where, -(n + 1))
                self._add_troops(seat, self.link, n + 1)
                self.moved += n + 1
            else:
                where, n = divmod(action - game.ZONE_BASE, MAX_N)
                self._add_aircraft(seat, where, -(n + 1))
                self._add_aircraft(seat, self.link, n + 1)
                self.moved += n + 1
        elif phase == PLACE:
            if action == DONE:
                self._finish_placement()
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
            else:
                if self.unit == LAND:
                    where, n = divmod(action - game.AREA_BASE, MAX_N)
                    self.res_troops[seat] -= n + 1
                    self._add_troops(seat, where, n + 1)
                else:
                    where, n = divmod(action - game.ZONE_BASE, MAX_N)
                    self.res_air[seat] -= n + 1
                    self._add_aircraft(seat, where, n + 1)
                self.left -= n + 1
                if self.optional > self.left:
                    self.optional = self.left
                self._continue_placement()
        elif phase == WITHDRAW:
            if action == DONE:
                self.withdraw_closed = True
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
                return
            elif self.unit == LAND:
                where, n = divmod(action - game.AREA_BASE, MAX_N)
                self._add_troops(seat, where, -(n + 1))
                self.res_troops[seat] += n + 1
            else:
                where, n = divmod(action - game.ZONE_BASE, MAX_N)
                self._add_aircraft(seat, where, -(n + 1))
                self.res_air[seat] += n + 1
            self._continue_placement()
        elif phase == TARGET:
            if action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            else:
                self._choose_target(action - game.TARGET_BASE)
        elif phase == PAYLOAD:
            if action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            else:
                n = action - game.PAYLOAD_BASE + 1
                self._add_aircraft(seat, self.link, -n)
                self.res_air[seat] += n
                self.payload = n
                self._open_window(WINDOW_BOMB)
        elif phase == DEFEND:
            defender = 1 - seat
            if action == DECLINE:
                self._close_window()
            else:
                card = action - game.PLAY_BASE
                self._spend(defender, card, effect=True)
                if card == ANTI_AIR:
                    self._start_roll(2, defender, ROLL_ANTI_AIR_DROP if self.window == WINDOW_LAND
                                     else ROLL_ANTI_AIR_BOMB)
                else:  # Ambush or Intercept: +2 defence dice (GO-C4, GO-C9)
                    self._open_window(self.window)
        elif phase == REROLL:
            if action == ACCEPT:
                self._resolve_roll()
            else:
                self._spend(self.roller, action - game.REROLL_BASE, effect=False)
                self.phase = ROLL
        elif phase == SIGNAL_RETURN:
            self._return_commander(self.chooser, action - game.RETURN_BASE)
            self._signal_check()
        else:  # pragma: no cover - guarded by apply_action
            raise IllegalActionError(f"no decision is due in phase {PHASE_NAMES[phase]}")

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if phase == ROLL:
            self.roll = outcome - DICE_BASE
            if sum(self.hands[self.roller]):
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
            self._signal_check_quiet()
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

    def _add_troops(self, seat: int, area: int, n: int) -> None:
        troops = self.troops[seat]
        before = troops[area]
        after = before + n
        troops[area] = after
        if not before and after:
            self.ctrl[seat] |= BIT[area]
        elif before and not after:
            self.ctrl[seat] &= ~BIT[area]

    def _add_aircraft(self, seat: int, zone: int, n: int) -> None:
        air = self.aircraft[seat]
        before = air[zone]
        after = before + n
        air[zone] = after
        if not before and after:
            self.actrl[seat] |= BIT[zone]
        elif before and not after:
            self.actrl[seat] &= ~BIT[zone]

    def _remove_to_reserve(self, seat: int, unit: int, where: int, n: int) -> int:
        """Remove up to n units of `seat` at `where` to its reserve; returns how many."""
        if unit == LAND:
            n = min(n, self.troops[seat][where])
            if n > 0:
                self._add_troops(seat, where, -n)
                self.res_troops[seat] += n
        else:
            n = min(n, self.aircraft[seat][where])
            if n > 0:
                self._add_aircraft(seat, where, -n)
                self.res_air[seat] += n
        return max(n, 0)

    def _from_reserve(self, seat: int, unit: int, where: int, n: int) -> int:
        """Place up to n units from `seat`'s reserve at `where`; returns how many."""
        if unit == LAND:
            n = min(n, self.res_troops[seat])
            if n > 0:
                self.res_troops[seat] -= n
                self._add_troops(seat, where, n)
        else:
            n = min(n, self.res_air[seat])
            if n > 0:
                self.res_air[seat] -= n
                self._add_aircraft(seat, where, n)
        return max(n, 0)

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
        seat = self.active
        if self.passed[0] and self.passed[1]:
            self._end_round()
            return
        other = 1 - seat
        self._begin_turn(other if not self.passed[other] else seat)

    def _end_round(self) -> None:
        """Recall (Blitz commanders to standby), advance the round marker, maybe end the game."""
        for occ in (self.occ, self.occ2):
            for s, code in enumerate(occ):
                if code:
                    seat, blitz = (code - 1) & 1, (code - 1) >> 1
                    if blitz:
                        self.cmd_standby[seat] += 1
                    else:
                        self.cmd_reserve[seat] += 1
                    occ[s] = 0
        self.round += 1
        if self.round > self._game.board.rounds:
            self.round = self._game.board.rounds
            vp = self.victory_points()
            if vp[0] != vp[1]:
                self._finish(0 if vp[0] > vp[1] else 1, REASON_VP)
            else:
                self._finish(self.initiative, REASON_TIE)
            return
        self.passed = [False, False]
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
        from_standby = self.phase == BLITZ_DEPLOY
        if from_standby:
            self.cmd_standby[seat] -= 1
            self.blitz_extra = True
        else:
            self.cmd_reserve[seat] -= 1
        code = 1 + seat + 2 * from_standby
        if counter:
            self.occ2[space] = code
            self._spend(seat, COUNTER_ATTACK, effect=True)
        else:
            self.occ[space] = code
        self._start_action(space, game.space_action[space], game.space_link[space])

    def _start_action(self, space: int, kind: int, link: int) -> None:
        game = self._game
        seat = self.active
        self.act, self.space, self.link = kind, space, link
        self.fx = 0
        # GO-D4: supply (and so every area bonus) is read at the start of the action.
        self.snap = [self.supplied(0), self.supplied(1)]
        self.asnap = [self.air_supplied(0), self.air_supplied(1)] if game.NZ else [0, 0]
        value = game.board.spaces[space].value[seat]
        if kind == ADVANCE:
            self.unit, self.moved, self.phase = LAND, 0, MOVE
        elif kind == FLY:
            self.unit, self.moved, self.phase = AIR, 0, MOVE
        elif kind == PARADROP:
            self.unit, self.phase = LAND, TARGET
        elif kind == BARRAGE or kind == BOMB:
            self.unit = LAND
            if self._targets():
                self.phase = TARGET
            else:  # GO-B1: nothing to hit; the action resolves with no effect
                self._end_action()
        elif kind == REINFORCE:
            self.unit = LAND
            self.left = value + (2 if self.has_bonus(seat, DEPOT, self.snap[seat]) else 0)
            self.optional = 0
            self.withdraw_closed = False
            self.support_used[seat] |= BIT[kind]
            self._continue_placement()
        elif kind == TAKE_OFF:
            self.unit = AIR
            self.left = value
            self.optional = 0
            self.withdraw_closed = False
            self.support_used[seat] |= BIT[kind]
            self._continue_placement()
        else:  # PLAN
            self.support_used[seat] |= BIT[kind]
            if game.board.spaces[space].initiative and self.initiative != seat:
                self.initiative = seat
            self.draws = value + (1 if self.has_bonus(seat, RECON_POST, self.snap[seat]) else 0)
            self._continue_draws()

    def _continue_draws(self) -> None:
        deck_size: int = sum(self.deck)
        if self.draws > 0 and deck_size == 0:
            # GO-10: an empty deck is refilled from the discard pile (a multiset: no order).
            self.deck = [a + b for a, b in zip(self.deck, self.discard)]
            self.discard = [0] * NUM_CARD_KINDS
            deck_size = sum(self.deck)
        if self.draws > 0 and deck_size > 0:
            self.phase = DRAW
        else:
            self.draws = 0
            self._end_action()

    # --- Advance / Fly -----------------------------------------------------------------------

    def _after_move_in(self) -> None:
        seat = self.active
        link = self.link
        if self.unit == LAND:
            if self.has_bonus(seat, FORWARD_BASE, self.snap[seat]):
                self._from_reserve(seat, LAND, link, 1)
            if self.fx >> GROUND_ASSAULT & 1:
                self._from_reserve(seat, LAND, link, 2)
            if self.troops[1 - seat][link]:
                self._start_conflict(LAND, link)
                return
        else:
            if self.fx >> WINGMAN & 1:
                self._from_reserve(seat, AIR, link, 2)
            if self.aircraft[1 - seat][link]:
                self._start_conflict(AIR, link)
                return
        self._end_action()

    # --- Paradrop / Barrage / Bomb -----------------------------------------------------------

    def _choose_target(self, area: int) -> None:
        seat = self.active
        self.target = area
        act = self.act
        if act == PARADROP:
            self.left = 2 + (1 if self.has_bonus(seat, AIR_CONTROL_POST, self.snap[seat]) else 0)
            if self.fx >> AIRBORNE_ASSAULT & 1:
                self.left += 2
            self.optional = 0
            self.withdraw_closed = False
            self._continue_placement()
        elif act == BARRAGE:
            dice = 2 + (1 if self.has_bonus(seat, OBSERVER_POST, self.snap[seat]) else 0)
            if self.fx >> ARTILLERY_STRIKE & 1:
                dice += 2
            self._start_roll(dice, seat, ROLL_BARRAGE)
        else:  # BOMB
            self.phase = PAYLOAD

    def _drop(self) -> None:
        seat = self.active
        target = self.target
        dropped = self._from_reserve(seat, LAND, target, self.left)
        self.left = 0
        if dropped and self.troops[1 - seat][target]:
            self._start_conflict(LAND, target)
        else:
            self._end_action()

    # --- Reinforce / Take-off (and the Paradrop drop) ----------------------------------------

    def _play_placement_card(self, seat: int, card: int) -> None:
        self._spend(seat, card, effect=True)
        self.left += 2
        if card == MOBILIZE:
            self.optional += 2  # "up to two" (GO-C5)
        self.withdraw_closed = False
        self._continue_placement()

    def _continue_placement(self) -> None:
        seat = self.active
        reserve = self.res_troops[seat] if self.unit == LAND else self.res_air[seat]
        if self.left > reserve and not self.withdraw_closed and self._has_withdrawal():
            self.phase = WITHDRAW  # "Not enough troops/aircraft?" (GO-12)
            return
        if self.act == PARADROP:
            self._drop()
            return
        if self.left <= 0 or reserve <= 0 or not self._place_targets():
            self._finish_placement()
            return
        self.phase = PLACE

    def _finish_placement(self) -> None:
        seat = self.active
        self.left = self.optional = 0
        if self.act == TAKE_OFF:
            zone = self._game.board.hq_zone[seat]
            if self.aircraft[seat][zone] and self.aircraft[1 - seat][zone]:
                self._start_conflict(AIR, zone)  # placed into the HQ zone held by the opponent
                return
        self._end_action()

    # --- conflicts and rolls -----------------------------------------------------------------

    def _start_conflict(self, unit: int, where: int) -> None:
        self.unit = unit
        self.target = where
        self._open_window(WINDOW_LAND if unit == LAND else WINDOW_AIR)

    def _open_window(self, window: int) -> None:
        """The defender's card window; it opens on public facts only (GO-C10)."""
        self.window = window
        defender = 1 - self.active
        if sum(self.hands[defender]) and self._window_cards():
            self.phase = DEFEND
        else:
            self._close_window()

    def _close_window(self) -> None:
        window = self.window
        self.window = NO_WINDOW
        if window == WINDOW_BOMB:
            dice = self.payload + (2 if self.fx >> AIRSTRIKE & 1 else 0)
            if dice <= 0:
                self._end_action()
            else:
                self._start_roll(dice, self.active, ROLL_BOMB)
            return
        self._start_roll(self._defence_dice(), 1 - self.active, ROLL_DEFENCE)

    def _defence_dice(self) -> int:
        """One die; +1 in an air zone the defender controls and supplies; +1 Town Centre; +2 cards."""
        defender = 1 - self.active
        where = self.target
        dice = 1
        if self.unit == LAND:
            board = self._game.board
            zone = board.area_zone[where]
            if zone >= 0 and self.air_supplied(defender) >> zone & 1:
                dice += 1
            if self._game.town_mask >> where & 1 and self.snap[defender] >> where & 1:
                dice += 1  # GO-B5: the printed bonus needs control and supply (Portuguese text)
            if self.fx >> AMBUSH & 1:
                dice += 2
        elif self.fx >> INTERCEPT & 1:
            dice += 2
        return min(dice, MAX_DICE)

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
        other = 1 - seat
        self.purpose = NO_ROLL
        self.roller = -1
        if purpose == ROLL_DEFENCE:
            unit, where = self.unit, self.target
            self._remove_to_reserve(seat, unit, where, total)
            units = self.troops if unit == LAND else self.aircraft
            attackers, defenders = units[seat][where], units[other][where]
            if attackers:  # attrition, one and one at a time (GO-2)
                both = min(attackers, defenders)
                self._remove_to_reserve(seat, unit, where, both)
                self._remove_to_reserve(other, unit, where, both)
            self._end_action()
        elif purpose == ROLL_ANTI_AIR_DROP:
            self._remove_to_reserve(seat, LAND, self.target, total)
            if self.troops[seat][self.target]:
                self._open_window(WINDOW_LAND)
            else:
                self._end_action()
        elif purpose == ROLL_ANTI_AIR_BOMB:
            self.payload = max(0, self.payload - total)
            self._open_window(WINDOW_BOMB)
        else:  # ROLL_BARRAGE, ROLL_BOMB
            self._remove_to_reserve(other, LAND, self.target, total)
            self._end_action()

    # --- end of an action --------------------------------------------------------------------

    def _end_action(self) -> None:
        board = self._game.board
        # GO-1: the caps hold at the end of every action; excess units go back to the reserve.
        for seat in (0, 1):
            troops = self.troops[seat]
            if max(troops) > board.land_cap:
                for a in _bits(self.ctrl[seat]):
                    if troops[a] > board.land_cap:
                        self._remove_to_reserve(seat, LAND, a, troops[a] - board.land_cap)
            air = self.aircraft[seat]
            if air and max(air) > board.air_cap:
                for z in _bits(self.actrl[seat]):
                    if air[z] > board.air_cap:
                        self._remove_to_reserve(seat, AIR, z, air[z] - board.air_cap)
        self._clear_action()
        for seat in (self.active, 1 - self.active):
            if not self.troops[seat][board.hq[seat]]:
                self._finish(1 - seat, REASON_HQ)  # GO-2, GO-5
                return
        self._signal_check()

    def _signal_check_quiet(self) -> None:
        """Signal Unit gains at setup (no action to continue afterwards)."""
        area = self.token_area[SIGNAL_UNIT]
        if area < 0:
            return
        for seat in (0, 1):
            if self.supplied(seat) >> area & 1 and not self.signal[seat]:
                self._gain_signal(seat)

    def _gain_signal(self, seat: int) -> None:
        if self.cmd_standby[seat] > 0:
            self.cmd_standby[seat] -= 1
            self.cmd_reserve[seat] += 1
            self.signal[seat] = 2
        else:
            self.signal[seat] = 1

    def _signal_check(self) -> None:
        """Signal Unit: gain or give back a commander as control and supply of its area change
        (GO-7); then carry on with the turn."""
        area = self.token_area[SIGNAL_UNIT]
        if area >= 0:
            for seat in (0, 1):
                holds = bool(self.supplied(seat) >> area & 1)
                if holds and not self.signal[seat]:
                    self._gain_signal(seat)
            for seat in (0, 1):
                holds = bool(self.supplied(seat) >> area & 1)
                if not holds and self.signal[seat]:
                    gained = self.signal[seat] == 2
                    self.signal[seat] = 0
                    if gained:
                        if self.cmd_reserve[seat] > 0:
                            self.cmd_reserve[seat] -= 1
                            self.cmd_standby[seat] += 1
                        elif self.commanders_deployed(seat):
                            self.chooser = seat
                            self.phase = SIGNAL_RETURN
                            return
        self.chooser = -1
        if self.blitz_extra:  # the Blitz deployment was extra: the same turn goes on (GO-8)
            self.blitz_extra = False
            self.phase = TURN
            return
        self._end_turn()

    def _return_commander(self, seat: int, space: int) -> None:
        """Send `seat`'s commander on `space` to the standby area; the space is free again (GO-7)."""
        code2 = self.occ2[space]
        if code2 and (code2 - 1) & 1 == seat:
            self.occ2[space] = 0
        else:
            self.occ[space] = code2
            self.occ2[space] = 0
        self.cmd_standby[seat] += 1

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        game = self._game
        board = game.board
        outcome = self.outcome()
        return {
            "game": game.name,
            "mode": game.mode,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "round": self.round,
            "initiative": self.initiative,
            "active": self.active,
            "passed": list(self.passed),
            "troops": {board.area_ids[a]: [self.troops[0][a], self.troops[1][a]] for a in range(game.NA)},
            "aircraft": {board.zone_ids[z]: [self.aircraft[0][z], self.aircraft[1][z]] for z in range(game.NZ)},
            "reserve_troops": list(self.res_troops),
            "reserve_aircraft": list(self.res_air),
            "commanders_reserve": list(self.cmd_reserve),
            "commanders_standby": list(self.cmd_standby),
            "spaces": [[self.occ[s], self.occ2[s]] for s in range(game.NS)],
            "support_used": [[ACTIONS[k] for k in range(len(ACTIONS)) if used >> k & 1] for used in self.support_used],
            "bonuses": {board.area_ids[a]: TOKENS[t] for a, t in enumerate(self.bonus_at) if t >= 0},
            "discard": _named_counts(self.discard),
            "used_effects": [[CARD_IDS[k] for k in range(NUM_CARD_KINDS) if used >> k & 1] for used in self.used],
            "signal": list(self.signal),
            "blitz_extra": self.blitz_extra,
            "action": {
                "kind": ACTIONS[self.act] if self.act >= 0 else None,
                "space": self.space, "link": self.link, "unit": self.unit, "target": self.target,
                "moved": self.moved, "left": self.left, "optional": self.optional,
                "withdraw_closed": self.withdraw_closed,
                "effects": [CARD_IDS[k] for k in range(NUM_CARD_KINDS) if self.fx >> k & 1],
                "supplied_at_start": list(self.snap), "air_supplied_at_start": list(self.asnap),
                "payload": self.payload, "window": WINDOWS[self.window], "dice": self.dice,
                "roller": self.roller, "roll": self.roll, "roll_for": PURPOSES[self.purpose],
                "draws": self.draws,
            },
            "chooser": self.chooser,
            "victory_points": self.victory_points(),
            "winner": self.winner,
            "reason": self.reason,
            "outcome": outcome.to_json() if outcome else None,
        }

    def to_json(self) -> JSON:
        data = self._public_json()
        data["hands"] = [_named_counts(hand) for hand in self.hands]
        data["deck"] = _named_counts(self.deck)
        return data

    def observation(self, seat: int) -> JSON:
        if seat not in (0, 1):
            raise ValueError(f"seat {seat} is not a seat of General Orders (0 or 1)")
        data = self._public_json()
        data["seat"] = seat
        data["hand"] = _named_counts(self.hands[seat])
        data["hand_sizes"] = [sum(hand) for hand in self.hands]
        data["deck_size"] = sum(self.deck)
        return data

    @classmethod
    def from_json(cls, game: GeneralOrdersGame, data: JSON) -> GeneralOrdersState:
        """Rebuild a state from `to_json()` output, checking that it is self-consistent."""
        board = game.board
        try:
            if data.get("mode", game.mode) != game.mode:
                raise ValueError(f"mode {data.get('mode')!r} is not {game.mode!r}")
            state = cls(game)
            state.phase = PHASE_NAMES.index(data["phase"])
            state.round = int(data["round"])
            state.initiative = int(data["initiative"])
            state.active = int(data["active"])
            state.passed = [bool(p) for p in data["passed"]]
            troops = data["troops"]
            if set(troops) != set(board.area_ids):
                raise ValueError("troops must list every land area")
            state.troops = [[int(troops[a][seat]) for a in board.area_ids] for seat in (0, 1)]
            aircraft = data["aircraft"]
            if set(aircraft) != set(board.zone_ids):
                raise ValueError("aircraft must list every air zone")
            state.aircraft = [[int(aircraft[z][seat]) for z in board.zone_ids] for seat in (0, 1)]
            state.res_troops = [int(n) for n in data["reserve_troops"]]
            state.res_air = [int(n) for n in data["reserve_aircraft"]]
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
                bonus_at[board.area_ids.index(area)] = TOKENS.index(token)
            state.bonus_at = bonus_at
            state.discard = _counts_of(data["discard"])
            state.hands = [_counts_of(hand) for hand in data["hands"]]
            state.deck = _counts_of(data["deck"])
            state.used = [sum(BIT[CARD_IDS.index(k)] for k in used) for used in data["used_effects"]]
            state.signal = [int(n) for n in data["signal"]]
            state.blitz_extra = bool(data["blitz_extra"])
            action = data["action"]
            state.act = ACTIONS.index(action["kind"]) if action["kind"] is not None else -1
            state.space = int(action["space"])
            state.link = int(action["link"])
            state.unit = int(action["unit"])
            state.target = int(action["target"])
            state.moved = int(action["moved"])
            state.left = int(action["left"])
            state.optional = int(action["optional"])
            state.withdraw_closed = bool(action["withdraw_closed"])
            state.fx = sum(BIT[CARD_IDS.index(k)] for k in action["effects"])
            state.snap = [int(n) for n in action["supplied_at_start"]]
            state.asnap = [int(n) for n in action["air_supplied_at_start"]]
            state.payload = int(action["payload"])
            state.window = WINDOWS.index(action["window"])
            state.dice = int(action["dice"])
            state.roller = int(action["roller"])
            state.roll = int(action["roll"])
            state.purpose = PURPOSES.index(action["roll_for"])
            state.draws = int(action["draws"])
            state.chooser = int(data["chooser"])
            state.winner = int(data["winner"])
            state.reason = str(data["reason"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise StateFormatError(f"not a General Orders state: {error!r}") from None
        state.refresh_control()
        state.validate()
        return state

    def validate(self) -> None:
        """Raise StateFormatError unless units, commanders and cards all add up."""
        game = self._game
        board = game.board
        problems = []
        for seat in (0, 1):
            name = FACTIONS[seat]
            if len(self.troops[seat]) != game.NA or len(self.aircraft[seat]) != game.NZ:
                problems.append("wrong board size")
                break
            if min(self.troops[seat] + self.aircraft[seat] + [self.res_troops[seat], self.res_air[seat]]) < 0:
                problems.append(f"{name} has a negative unit count")
            if sum(self.troops[seat]) + self.res_troops[seat] != board.troops:
                problems.append(f"{name} does not have {board.troops} troops")
            if sum(self.aircraft[seat]) + self.res_air[seat] != (board.aircraft if game.NZ else 0):
                problems.append(f"{name} does not have {board.aircraft} aircraft")
            commanders = self.cmd_reserve[seat] + self.cmd_standby[seat] + self.commanders_deployed(seat)
            if commanders != board.commanders_reserve + board.commanders_standby or \
                    min(self.cmd_reserve[seat], self.cmd_standby[seat]) < 0:
                problems.append(f"{name} does not have {board.commanders_reserve + board.commanders_standby} commanders")
            if self.signal[seat] not in (0, 1, 2):
                problems.append("bad Signal Unit state")
        if len(self.occ) != game.NS or any(c not in (0, 1, 2, 3, 4) for c in self.occ + self.occ2):
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
        if self.phase in (TURN, BLITZ_DEPLOY, MOVE, TARGET, PAYLOAD, WITHDRAW, PLACE, DEFEND) and self.active not in (0, 1):
            problems.append("no active player")
        if self.phase in (ROLL, REROLL) and (self.roller not in (0, 1) or not 0 <= self.dice <= MAX_DICE):
            problems.append("a roll needs a roller and a number of dice")
        if self.phase == REROLL and self.roll < 0:
            problems.append("a re-roll decision needs a roll")
        if self.phase == SIGNAL_RETURN and self.chooser not in (0, 1):
            problems.append("a Signal Unit return needs a chooser")
        if self.phase == DRAW and (self.draws <= 0 or not sum(self.deck)):
            problems.append("a draw needs cards to draw")
        if self.phase == OVER and self.winner not in (0, 1):
            problems.append("a finished game needs a winner")
        if self.phase == TURN:
            caps = (board.land_cap, board.air_cap)
            for seat in (0, 1):
                if max(self.troops[seat]) > caps[0] or max(self.aircraft[seat], default=0) > caps[1]:
                    problems.append("more units in an area or zone than the cap allows")
                    break
        if problems:
            raise StateFormatError("inconsistent General Orders state: " + "; ".join(problems))

    # --- display -----------------------------------------------------------------------------

    def board_text(self) -> str:
        """The position as text: areas, zones, action spaces, reserves and hands' sizes."""
        game = self._game
        board = game.board
        t = game.term
        initials = (t("blue")[:2], t("yellow")[:2])
        sup = (self.supplied(0), self.supplied(1))
        lines = [f"{board.title[game.lang]} - {t('round')} {self.round}/{board.rounds} - "
                 f"{t('initiative')}: {t(FACTIONS[self.initiative]) if self.initiative >= 0 else '-'}"]
        spaces_at: dict[tuple[int, int], list[str]] = {}
        support = []
        for s, space in enumerate(board.spaces):
            who = []
            for code in (self.occ[s], self.occ2[s]):
                if code:
                    who.append(initials[(code - 1) & 1] + ("*" if (code - 1) >> 1 else ""))
            text = f"{t(ACTIONS[space.action])}"
            if space.faction >= 0:
                text += f"({initials[space.faction]})"
            text += f"[{','.join(who) or ' '}]"
            if space.link < 0:
                support.append(f"{game.space_name(s)}[{','.join(who) or ' '}]")
            else:
                in_air = space.action in (FLY, BOMB)
                spaces_at.setdefault((int(in_air), space.link), []).append(text)
        for a, name in enumerate(board.area_ids):
            b, y = self.troops[0][a], self.troops[1][a]
            owner = "-"
            if b or y:
                seat = 0 if b else 1
                owner = f"{initials[seat]}{max(b, y)}{'s' if sup[seat] >> a & 1 else ''}"
            extras = []
            for seat in (0, 1):
                if board.hq[seat] == a:
                    extras.append(f"{t('hq')} {t(FACTIONS[seat])}")
            if self.bonus_at[a] >= 0:
                extras.append(game.bonus_name(self.bonus_at[a]))
            if board.printed_bonus[a] >= 0:
                extras.append(game.bonus_name(board.printed_bonus[a]))
            zone = f" <{game.zone_name(board.area_zone[a])}>" if board.area_zone[a] >= 0 else ""
            lines.append(f"  {name:<6}{zone} {board.area_vp[a]}{t('vp')} {owner:<5} "
                         f"{' '.join(spaces_at.get((0, a), []))} {'; '.join(extras)}".rstrip())
        for z, zid in enumerate(board.zone_ids):
            b, y = self.aircraft[0][z], self.aircraft[1][z]
            owner = f"{initials[0 if b else 1]}{max(b, y)}" if b or y else "-"
            lines.append(f"  ~{game.zone_name(z):<8} {owner:<4} {' '.join(spaces_at.get((1, z), []))}")
        lines.append(f"  {t('support_board')}: {' '.join(support)}")
        for seat in (0, 1):
            lines.append(
                f"  {t(FACTIONS[seat])}: {t('reserve')} {self.res_troops[seat]} {t('troops')}"
                + (f", {self.res_air[seat]} {t('aircraft')}" if game.NZ else "")
                + f"; {t('commander')} {self.cmd_reserve[seat]}+{self.cmd_standby[seat]} ({t('standby')})"
                + f"; {t('hand')} {sum(self.hands[seat])}"
                + (f"; {t('passed')}" if self.passed[seat] else "")
                + f"; {t('vp')} {self.victory_points()[seat]}")
        discard = ", ".join(f"{game.card_name(k)} x{n}" for k, n in enumerate(self.discard) if n)
        lines.append(f"  {t('deck')} {sum(self.deck)}; {t('discard')}: {discard or '-'}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<GeneralOrdersState {self._game.mode} {PHASE_NAMES[self.phase]} round {self.round} "
                f"active {self.active}>")


def new_game(**options: Any) -> GeneralOrdersGame:
    """Factory used by the registry."""
    return GeneralOrdersGame(**options)

"""General Orders: WWII (Osprey Games, 2023), Alpine and Island modes: the rules engine.

Variant: the printed rulebooks (../shared/seeds/general-orders-wwii.en.txt and .pt-BR.txt; where
they differ the Portuguese clarifications are followed). The boards, the support values, the mode
split of the operation deck and most card effects are reconstructions or working assumptions
(boards/*.json, cards.json, ../shared/reference/general-orders-wwii.md). Every reading of an open
point is a line of docs/rules-decisions.md, section "General Orders (WWII)", numbered GO-n; the
code cites those numbers.

This module owns WWII's turn, read top-down in the rulebook's order: setup, deploying commanders
(and Blitz), the linked actions (Advance and Fly, Paradrop, Barrage, Bomb), the support actions
(Reinforce, Plan, Take-off), conflicts and their rolls, the end of an action (caps, the HQ, the
Signal Unit). What both General Orders games share it calls from the family's library (core.py,
commanders.py, cards.py, dice.py, setup.py, chance.py, state_json.py), which never calls back.
Everything that differs between modes is board data (board.py): a mode without air zones (Alpine)
simply has no aircraft, Fly, Bomb or Take-off.

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
from typing import Any, Callable, Self

from arena.games.base import CHANCE, JSON, TERMINAL, IllegalActionError
from arena.games.family import ModeOption
from arena.games.general_orders.cards import (can_play, could_play, defend_options, draw, open_window, plan, spend,
    target_options)
from arena.games.general_orders.chance import chance_outcomes, chance_step_label, spectator_label
from arena.games.general_orders.commanders import begin_turn, deploy, end_turn, hq_lost, pass_turn
from arena.games.general_orders.core import (ACCEPT, CHANCE_PHASES, DECLINE, DEFEND, DEPLOY_BASE, DONE, DRAW,
    FAMILY_PHASES, FIRST_GAME_PHASE, MAX_N, MOVE, OVER, PASS, PLACE, REROLL, ROLL, SETUP_BONUS, SETUP_INITIATIVE,
    TARGET, TOKEN_BASE, TURN, WITHDRAW, Core, FamilyGame, clear_action, place_tokens, rejection)
from arena.games.general_orders.dice import MAX_DICE, dice_table, finish_roll, reroll, reroll_options, roll, start_roll
from arena.games.general_orders.masks import BIT, bits
from arena.games.general_orders.setup import first_phase, place_bonus, take_initiative
from arena.games.general_orders.state_json import (READ_ERRORS, bad_state, determinized_json, full_json, inconsistent,
    observation_json, one_a_side, public_json, read_effects, read_head, read_roll, read_shared, read_tail,
    refuse_dead_end, roll_json, shared_problems)
from arena.games.general_orders.supply import remember_reach
from arena.games.general_orders.wwii.board import (ACTIONS, ADVANCE, AIR_CONTROL_POST, AIRBORNE_ASSAULT, AIRSTRIKE,
    AMBUSH, ANTI_AIR, ARTILLERY_STRIKE, BARRAGE, BLITZ, BOARDS, BOMB, BONUSES, CARD_IDS, CARDS, COUNTER_ATTACK, DEPOT,
    FACTIONS, FLY, FORWARD_BASE, GROUND_ASSAULT, INTERCEPT, LANGS, MOBILIZE, NUM_CARD_KINDS, OBSERVER_POST, PARADROP,
    RECON_POST, REINFORCE, SIGNAL_UNIT, TAKE_OFF, TERMS, TOKENS, TOWN_CENTRE, WINGMAN, Board, load_board_variant)

BLUE, YELLOW = 0, 1

# Chance outcome ids (the same for every mode).
CARD_BASE = TOKEN_BASE + len(TOKENS)  # 8
DICE_BASE = CARD_BASE + NUM_CARD_KINDS  # 19
NUM_CHANCE_OUTCOMES = DICE_BASE + 2 * MAX_DICE + 1  # 44
DICE = dice_table(DICE_BASE)

# Phases: the family's, then WWII's own.
PHASE_NAMES = FAMILY_PHASES + ("blitz-deploy", "payload", "signal-return")
BLITZ_DEPLOY, PAYLOAD, SIGNAL_RETURN = range(FIRST_GAME_PHASE, len(PHASE_NAMES))
# Phases where a single legal option is taken without asking, unless a card might be offered on
# public facts (GO-D7). Not DEFEND (GO-C10); REROLL always has two or more options.
AUTO_PHASES = frozenset((TURN, BLITZ_DEPLOY, MOVE, TARGET, PAYLOAD, WITHDRAW, PLACE, REROLL, SIGNAL_RETURN))
# Who decides in each phase: the active seat, the defender, the roller, the Signal Unit's chooser.
ACTIVE_PHASES = frozenset((TURN, BLITZ_DEPLOY, MOVE, TARGET, PAYLOAD, WITHDRAW, PLACE))

# What a roll is for.
PURPOSES = ("none", "defence", "anti-air-drop", "anti-air-bomb", "barrage", "bomb")
NO_ROLL, ROLL_DEFENCE, ROLL_ANTI_AIR_DROP, ROLL_ANTI_AIR_BOMB, ROLL_BARRAGE, ROLL_BOMB = range(len(PURPOSES))
# Defender's card windows.
WINDOWS = ("none", "land", "air", "bomb")
NO_WINDOW, WINDOW_LAND, WINDOW_AIR, WINDOW_BOMB = range(len(WINDOWS))
LAND, AIR = 0, 1


# The disputed rulings (docs/rules-decisions.md), each playable the other way, and the alternative
# reconstruction of the Alpine board; the first choice is the default. Per mode: what it has.
BOMB_OPTION = ModeOption("bomb", ("two-aircraft", "one-aircraft"), "GO-B2",
                         "two-aircraft: Bomb needs two aircraft in the zone (the last may not be spent); "
                         "one-aircraft: with one it may be deployed only to block (no effect, GO-B1)")
BLITZ_OPTION = ModeOption("blitz", ("empty-reserve", "must-pass"), "GO-8",
                          "empty-reserve: Blitz may be played with no commander in reserve; must-pass: with "
                          "none in reserve you must pass")
TOWN_CENTRE_OPTION = ModeOption("town_centre", ("control-and-supply", "control"), "GO-B5",
                                "control-and-supply: the defence die needs the area supplied too (Portuguese "
                                "text); control: holding it is enough (English text)")
SIGNAL_UNIT_OPTION = ModeOption("signal_unit", ("gained-only", "always"), "GO-7",
                                "gained-only: losing it gives back only a commander it brought; always: "
                                "losing it always gives one back")
BOARD_OPTION = ModeOption("board", ("reconstructed", "no-middle-barrage"), "GO-B9",
                          "reconstructed: the board as reconstructed (a Barrage in the middle row reaches both "
                          "HQs); no-middle-barrage: an alternative without it (docs/balance.md)")
ALL_OPTIONS = {option.name: option for option in (BOMB_OPTION, BLITZ_OPTION, TOWN_CENTRE_OPTION, SIGNAL_UNIT_OPTION,
                                                  BOARD_OPTION)}
MODE_OPTIONS = {
    "alpine": (BLITZ_OPTION, TOWN_CENTRE_OPTION, SIGNAL_UNIT_OPTION, BOARD_OPTION),
    "island": (BOMB_OPTION, BLITZ_OPTION, TOWN_CENTRE_OPTION, SIGNAL_UNIT_OPTION),
}


class WWIIGame(FamilyGame):
    """General Orders: WWII in one mode ('alpine' or 'island'), labels in 'en' or 'pt-BR'."""

    rules_version = "2"  # 2: forced own-turn steps are asked when a card could be played (GO-D7)

    board: Board
    short_title = "General Orders"
    family = "general-orders-wwii"
    boards = BOARDS
    langs = LANGS
    factions = FACTIONS
    terms = TERMS
    cards = CARDS
    card_ids = CARD_IDS
    action_names = ACTIONS
    token_names = TOKENS
    bonus_names = BONUSES
    counter_card = COUNTER_ATTACK
    CARD_BASE = CARD_BASE
    DICE_BASE = DICE_BASE
    NUM_CHANCE_OUTCOMES = NUM_CHANCE_OUTCOMES
    dice = DICE

    def __init__(self, mode: str = "alpine", lang: str = "en", name: str | None = None,
                 bomb: str = BOMB_OPTION.default, blitz: str = BLITZ_OPTION.default,
                 town_centre: str = TOWN_CENTRE_OPTION.default, signal_unit: str = SIGNAL_UNIT_OPTION.default,
                 board: str = BOARD_OPTION.default) -> None:
        chosen = {"bomb": bomb, "blitz": blitz, "town_centre": town_centre, "signal_unit": signal_unit,
                  "board": board}
        variants = _variants(mode, chosen)
        super().__init__(mode, lang, load_board_variant(mode, variants["board"]) if "board" in variants else None)
        self.bomb_with_one = bomb == "one-aircraft"  # GO-B2 read the other way
        self.blitz_needs_reserve = blitz == "must-pass"  # GO-8 read the other way
        self.town_centre_needs_supply = town_centre == "control-and-supply"  # GO-B5
        self.signal_always_returns = signal_unit == "always"  # GO-7 read the other way
        layout = self.board  # (`board` is the option's name)
        na, nz = self.NA, layout.num_zones
        self.NZ = nz
        self.AREA_BASE = self.TARGET_BASE + na
        self.ZONE_BASE = self.AREA_BASE + MAX_N * na
        self.PAYLOAD_BASE = self.ZONE_BASE + MAX_N * nz
        self.RETURN_BASE = self.PAYLOAD_BASE + MAX_N
        self._make_tables(layout)
        self.space_names = tuple(self._name_space(s) for s in range(self.NS))
        self._info = self._make_info(name, self.RETURN_BASE + self.NS, variants)

    def _make_tables(self, layout: Board) -> None:
        """The hot-path tables of the board `layout`: spaces, playable cards, Town Centres, air supply memo."""
        self.space_faction = tuple(s.faction for s in layout.spaces)
        self.advance_spaces = tuple(s.index for s in layout.spaces if s.action == ADVANCE)
        self.space_table = tuple((s.index, s.action, s.link, s.faction) for s in layout.spaces)
        self.playable_cards = tuple(k for k in range(NUM_CARD_KINDS) if layout.deck[k])
        self.town_mask = sum(BIT[a] for a in range(self.NA) if layout.printed_bonus[a] == TOWN_CENTRE)
        self.air_supply_cache: tuple[dict[int, int], dict[int, int]] = ({}, {})

    def new_initial_state(self) -> WWIIState:
        state = WWIIState(self)
        state.deck = list(self.board.deck)
        state.place_starting_units()
        state.phase = first_phase(state)
        state.refresh_control()
        return state

    def state_from_json(self, data: JSON) -> WWIIState:
        return WWIIState.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> WWIIState:
        """Sample the opponent's hand and the deck from the cards the seat has not seen."""
        return WWIIState.from_json(self, determinized_json(self, observation, rng))

    # --- words -------------------------------------------------------------------------------

    def zone_name(self, zone: int) -> str:
        """An air zone's name in this game's language."""
        return self.board.zone_names[zone][self.lang]

    def _name_space(self, space: int) -> str:
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

    def action_label(self, action: int) -> str:
        label = self.family_label(action)
        if label is not None:
            return label
        t = self.term
        if action < self.ZONE_BASE:
            area, n = divmod(action - self.AREA_BASE, MAX_N)
            return f"{n + 1} {t('troops')} {t('at')} {self.area_name(area)}"
        if action < self.PAYLOAD_BASE:
            zone, n = divmod(action - self.ZONE_BASE, MAX_N)
            return f"{n + 1} {t('aircraft')} {t('at')} {self.zone_name(zone)}"
        if action < self.RETURN_BASE:
            return f"{t('payload')} {action - self.PAYLOAD_BASE + 1} {t('aircraft')}"
        return f"{t('return')} {self.space_names[action - self.RETURN_BASE]}"

    # --- supply ------------------------------------------------------------------------------

    def air_supply(self, seat: int, control: int) -> int:
        """Air zones supplied by `seat` when it controls the zones in `control` (memoised)."""
        supplied = self.air_supply_cache[seat].get(control)
        if supplied is None:
            supplied = remember_reach(self.air_supply_cache[seat], self.board.zone_adj, self.board.hq_zone[seat],
                                      control)
        return supplied


class WWIIState(Core):
    """A General Orders: WWII position. Mutable; `apply_action` changes it in place."""

    __slots__ = ("aircraft", "res_air", "actrl", "signal", "blitz_extra", "chooser",
                 # the action under way
                 "unit", "asnap", "payload")

    PHASE_NAMES = PHASE_NAMES
    COMMANDER_CODES = frozenset((0, 1, 2, 3, 4))  # 3, 4: deployed from standby with Blitz
    WINDOWS = WINDOWS
    PURPOSES = PURPOSES

    _game: WWIIGame

    def __init__(self, game: WWIIGame) -> None:
        self.aircraft: list[list[int]] = [[0] * game.NZ, [0] * game.NZ]
        self.res_air = [0, 0]
        self.actrl = [0, 0]  # bitmask of air zones with the seat's aircraft (derived)
        self.signal = [0, 0]  # Signal Unit: 0 not held, 1 held (no commander gained), 2 held + gained
        self.blitz_extra = False  # the action under way is a Blitz extra deployment
        self.chooser = -1
        super().__init__(game)
        self._clear_own_action()

    @property
    def game(self) -> WWIIGame:
        return self._game

    # --- the State interface -----------------------------------------------------------------

    def current_player(self) -> int:
        phase = self.phase
        if phase in ACTIVE_PHASES:
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
                return [outcome for outcome, _ in chance_outcomes(self)]
            legal = self._legal = self._legal_decisions()
        return list(legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return chance_outcomes(self)

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalActionError(f"action {action} is illegal: the game is over")
        if phase in CHANCE_PHASES:
            if not any(outcome == action for outcome, _ in chance_outcomes(self)):
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
            DECIDE[phase](self, action)
        self._auto()

    def _legal_decisions(self) -> list[int]:
        options = OPTIONS.get(self.phase)
        return options(self) if options is not None else []

    def _auto(self) -> None:
        """Make forced choices (a single legal option) without asking, unless a card might be
        offered judging by public facts (GO-D7)."""
        while self.phase in AUTO_PHASES:
            legal = self._legal_decisions()
            if len(legal) != 1 or self._card_may_be_offered():
                self._legal = legal
                return
            DECIDE[self.phase](self, legal[0])

    def _apply_chance(self, outcome: int) -> None:
        """A chance outcome: a setup token, the initiative, a card drawn or the dice."""
        phase = self.phase
        if phase == ROLL:
            if not roll(self, outcome):
                self._resolve_roll()
        elif phase == DRAW:
            if not draw(self, outcome):
                self._end_action()
        elif phase == SETUP_BONUS:
            place_bonus(self, outcome)
        else:  # SETUP_INITIATIVE
            take_initiative(self, outcome)
            self._gain_signal_at_setup()
            begin_turn(self, self.initiative)

    def _reject(self, action: int) -> None:
        player = self.current_player()
        try:
            label = self.action_to_string(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"action {action} is illegal: {error}") from None
        options = [] if player == CHANCE else [self._contextual_label(a) for a in self._legal_decisions()]
        raise rejection(self, action, label, player, options)

    def clone(self) -> Self:
        cls = type(self)
        o = cls.__new__(cls)
        self.copy_core_into(o)
        o.aircraft = [self.aircraft[0][:], self.aircraft[1][:]]
        o.res_air = self.res_air[:]
        o.actrl = self.actrl[:]
        o.signal = self.signal[:]
        o.blitz_extra = self.blitz_extra
        o.chooser = self.chooser
        o.unit = self.unit
        o.asnap = self.asnap  # replaced, never mutated
        o.payload = self.payload
        return o

    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        if player == TERMINAL:
            return self._game.action_label(action)
        if player == CHANCE:
            return chance_step_label(self, action)
        key = (player, self.phase, self.link, self.unit, action)  # what a decision's label depends on
        known = self._game.labels.get(key)
        if known is not None:
            return known
        return self._game.remember_label(key, f"{self._game.seat_name(player)}: {self._contextual_label(action)}")

    def spectator_label(self, action: int) -> str | None:
        return spectator_label(self, action)

    def _contextual_label(self, action: int) -> str:
        """A decision's label at this step: a units id says what it does here (move, place, withdraw)."""
        game = self._game
        if game.AREA_BASE <= action < game.PAYLOAD_BASE:
            air = action >= game.ZONE_BASE
            where, n = divmod(action - (game.ZONE_BASE if air else game.AREA_BASE), MAX_N)
            name = game.zone_name(where) if air else game.area_name(where)
            destination = ""
            if self.phase == MOVE:  # where the move under way goes (not the id's kind: it may be illegal)
                destination = game.zone_name(self.link) if self.unit == AIR else game.area_name(self.link)
            label = game.unit_step_label(self.phase, n + 1, game.term("aircraft" if air else "troops"), name,
                                         destination)
            if label is not None:
                return label
        return game.action_label(action)

    # --- setup -------------------------------------------------------------------------------

    def place_starting_units(self) -> None:
        """The board's starting troops and aircraft, the rest in reserve; the commanders."""
        board = self._game.board
        self.troops = [list(board.start_troops[0]), list(board.start_troops[1])]
        self.aircraft = [list(board.start_aircraft[0]), list(board.start_aircraft[1])]
        self.res_troops = [board.troops - sum(self.troops[s]) for s in (0, 1)]
        self.res_air = [board.aircraft - sum(self.aircraft[s]) if board.has_air else 0 for s in (0, 1)]
        self.cmd_reserve = [board.commanders_reserve] * 2
        self.cmd_standby = [board.commanders_standby] * 2

    def refresh_control(self) -> None:
        """Recompute the control bitmasks and token positions from the unit counts (after edits)."""
        for seat in (0, 1):
            self.ctrl[seat] = sum(BIT[a] for a, n in enumerate(self.troops[seat]) if n > 0)
            self.actrl[seat] = sum(BIT[z] for z, n in enumerate(self.aircraft[seat]) if n > 0)
        place_tokens(self)

    def _gain_signal_at_setup(self) -> None:
        """Signal Unit gains at setup (no action to continue afterwards)."""
        area = self.token_area[SIGNAL_UNIT]
        if area < 0:
            return
        for seat in (0, 1):
            if self.supplied(seat) >> area & 1 and not self.signal[seat]:
                self._gain_signal(seat)

    # --- deploy a commander, or pass ---------------------------------------------------------

    def _turn_options(self) -> list[int]:
        """Pass, deploy (or Counter Attack) where the criteria are met, or Blitz (GO-8)."""
        game = self._game
        seat = self.active
        actions = [PASS]
        if self.cmd_reserve[seat] <= 0:
            if (can_play(self, seat, BLITZ) and self.cmd_standby[seat] > 0 and not game.blitz_needs_reserve
                    and self._deploy_options(seat, True, can_play(self, seat, COUNTER_ATTACK))):
                actions.append(game.PLAY_BASE + BLITZ)
            return actions
        deploys = self._deploy_options(seat, False, can_play(self, seat, COUNTER_ATTACK))
        actions.extend(deploys)
        if can_play(self, seat, BLITZ) and self.cmd_standby[seat] > 0 and deploys:
            actions.append(game.PLAY_BASE + BLITZ)
        return actions

    def _decide_turn(self, action: int) -> None:
        seat = self.active
        if action == PASS:
            pass_turn(self)
        elif action < self._game.PLAY_BASE:  # a commander from the reserve, with Counter Attack or not
            self.cmd_reserve[seat] -= 1
            self._deploy(action, 1 + seat)
        else:  # Blitz: a commander from the standby area deploys now, an extra action (GO-8)
            spend(self, seat, BLITZ, effect=True)
            self.phase = BLITZ_DEPLOY

    def _blitz_options(self) -> list[int]:
        """Where the Blitz commander may deploy."""
        seat = self.active
        return self._deploy_options(seat, False, can_play(self, seat, COUNTER_ATTACK))

    def _decide_blitz(self, action: int) -> None:
        self.cmd_standby[self.active] -= 1
        self.blitz_extra = True
        self._deploy(action, 3 + self.active)

    def _deploy_options(self, seat: int, stop_at_first: bool, may_counter: bool) -> list[int]:
        """Deploy and Counter Attack ids whose deployment criteria `seat` meets (ascending);
        Counter Attack ids only when `may_counter`."""
        game = self._game
        sup, advance_ok, fly_ok, bomb_ok = self._linked_criteria(seat)
        # Linked spaces by action kind: advance, fly, paradrop, barrage, bomb.
        link_ok = (advance_ok, fly_ok, sup, sup, bomb_ok)
        rival = 1 - seat  # a faction icon is -1 (either side), 0 or 1
        occ = self.occ
        used_support = self.support_used[seat]
        actions = []
        counters = []
        for s, kind, link, faction in game.space_table:
            code = occ[s]
            if code:
                if (may_counter and kind == ADVANCE and (code - 1) & 1 != seat and not self.occ2[s]
                        and advance_ok >> link & 1):
                    counters.append(game.COUNTER_BASE + s)
                continue
            if link >= 0:
                if not link_ok[kind] >> link & 1 or faction == rival:
                    continue
            elif used_support >> kind & 1:
                continue
            actions.append(DEPLOY_BASE + s)
            if stop_at_first:
                return actions
        actions.extend(counters)
        return actions

    def _linked_criteria(self, seat: int) -> tuple[int, int, int, int]:
        """The areas `seat` supplies, and the areas and zones whose Advance, Fly and Bomb spaces it
        may deploy to."""
        game = self._game
        troops = self.troops[seat]
        ctrl = self.ctrl[seat]
        # Advance: a linked area not controlled, next to a supplied area holding two or more troops.
        area_adj = game.board.area_adj
        sup = game.land_supply(seat, ctrl)
        near_ge2 = 0
        for a in bits(sup):
            if troops[a] >= 2:
                near_ge2 |= area_adj[a]
        fly_ok = bomb_ok = 0
        if game.NZ:
            air = self.aircraft[seat]
            actrl = self.actrl[seat]
            zone_adj = game.board.zone_adj
            near_age2 = 0
            for z in bits(game.air_supply(seat, actrl)):
                if air[z] >= 2:
                    bomb_ok |= BIT[z]  # GO-B2: a payload of one needs two aircraft
                    near_age2 |= zone_adj[z]
                elif air[z] and game.bomb_with_one:
                    bomb_ok |= BIT[z]  # GO-B2 read the other way: one aircraft may deploy, only to block
            fly_ok = near_age2 & ~actrl
        return sup, near_ge2 & ~ctrl, fly_ok, bomb_ok

    def _deploy(self, action: int, code: int) -> None:
        """Put the commander on its space and start the space's action."""
        deploy(self, action, code)
        seat = self.active
        game = self._game
        self.asnap = [self.air_supplied(0), self.air_supplied(1)] if game.NZ else [0, 0]
        value = game.board.spaces[self.space].value[seat]
        kind = self.act
        if kind == ADVANCE:
            self.unit, self.moved, self.phase = LAND, 0, MOVE
        elif kind == FLY:
            self.unit, self.moved, self.phase = AIR, 0, MOVE
        elif kind == PARADROP:
            self.unit, self.phase = LAND, TARGET
        elif kind == BARRAGE or kind == BOMB:
            self._start_strike(kind)
        elif kind == REINFORCE:
            self._start_placement(LAND, value + (2 if self.has_bonus(DEPOT, self.snap[seat]) else 0))
        elif kind == TAKE_OFF:
            self._start_placement(AIR, value)
        else:  # PLAN
            self._start_plan(value)

    def _start_plan(self, value: int) -> None:
        """Plan: take the initiative (on the space with its symbol) and draw cards, one more with the Recon
        Post; the action ends at once when no card is left to draw."""
        initiative = self._game.board.spaces[self.space].initiative
        if not plan(self, initiative, value + (1 if self.has_bonus(RECON_POST, self.snap[self.active]) else 0)):
            self._end_action()

    def _start_strike(self, kind: int) -> None:
        """Barrage or Bomb: choose a target, or end the action at once with no payload to spend
        or nothing to hit."""
        self.unit = LAND
        if kind == BOMB and self.aircraft[self.active][self.link] < 2:  # (bomb=one-aircraft) no payload to spend
            self._end_action()
        elif self._targets():
            self.phase = TARGET
        else:  # GO-B1: nothing to hit; the action resolves with no effect
            self._end_action()

    def _card_may_be_offered(self) -> bool:
        """Whether this own-turn step could offer a card, judging by public facts only (GO-D7)."""
        phase = self.phase
        seat = self.active
        if phase == TURN or phase == BLITZ_DEPLOY:
            return self._deploy_card_may_be_offered(seat)
        if phase == MOVE:
            return self._move_card_may_be_offered(seat)
        if phase == TARGET:
            return self._target_card_may_be_offered(seat)
        if phase == PAYLOAD:
            return could_play(self, seat, AIRSTRIKE)
        if phase == PLACE or phase == WITHDRAW:
            return self._placement_card_may_be_offered(seat)
        return False  # SIGNAL_RETURN offers no card; REROLL always has two or more options

    def _move_card_may_be_offered(self, seat: int) -> bool:
        """Whether moving units in could offer its card (Ground Assault, Wingman), on public facts."""
        if self.unit == LAND:
            return self.res_troops[seat] > 0 and could_play(self, seat, GROUND_ASSAULT)
        return self.res_air[seat] > 0 and could_play(self, seat, WINGMAN)

    def _target_card_may_be_offered(self, seat: int) -> bool:
        """Whether choosing a target could offer its card (Airborne Assault, Artillery Strike), on public facts."""
        card = self._target_card()
        return card >= 0 and could_play(self, seat, card)

    def _placement_card_may_be_offered(self, seat: int) -> bool:
        """Whether placing or withdrawing units could offer its card (Mobilize, Airborne Assault), on public facts."""
        card = self._placement_card()
        return card >= 0 and could_play(self, seat, card)

    def _deploy_card_may_be_offered(self, seat: int) -> bool:
        """Whether the deploy step could offer Blitz or Counter Attack, on public facts (GO-D7)."""
        may_counter = could_play(self, seat, COUNTER_ATTACK)
        if self.phase == TURN and self.cmd_reserve[seat] <= 0:
            return (self.cmd_standby[seat] > 0 and could_play(self, seat, BLITZ) and not self._game.blitz_needs_reserve
                    and bool(self._deploy_options(seat, True, may_counter)))
        # One option means no plain deployment is open, so Blitz too would need a Counter Attack.
        counter_base = self._game.COUNTER_BASE
        return may_counter and any(a >= counter_base for a in self._deploy_options(seat, False, True))

    # --- linked actions: Advance and Fly (moving in) -----------------------------------------

    def _move_options(self) -> list[int]:
        """Done (once something moved), Ground Assault or Wingman, or units from a supplied
        neighbour that keeps one behind."""
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
        if reserve and can_play(self, seat, card):
            actions.append(game.PLAY_BASE + card)
        for where in bits(sources):
            n = units[where]
            if n >= 2:
                first = base + MAX_N * where
                actions.extend(range(first, first + n - 1))
        return actions

    def _decide_move(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action == DONE:
            self._after_move_in()
        elif action < game.REROLL_BASE:
            spend(self, seat, action - game.PLAY_BASE, effect=True)
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

    def _after_move_in(self) -> None:
        """Forward Base, Ground Assault or Wingman add units; a conflict when the opponent is there."""
        seat = self.active
        link = self.link
        if self.unit == LAND:
            if self.has_bonus(FORWARD_BASE, self.snap[seat]):
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

    # --- linked actions: Paradrop, Barrage and Bomb (a target) -------------------------------

    def _target_card(self) -> int:
        act = self.act
        return AIRBORNE_ASSAULT if act == PARADROP else ARTILLERY_STRIKE if act == BARRAGE else -1

    def _targets(self) -> int:
        board = self._game.board
        seat = self.active
        act = self.act
        if act == PARADROP:
            return (BIT[board.num_areas] - 1) & ~board.no_paradrop & ~BIT[board.hq[1 - seat]]
        if act == BARRAGE:  # GO-B1: only areas holding opponent's troops (others change nothing)
            return board.within3[self.link] & self.ctrl[1 - seat]
        return board.zone_areas[self.link] & self.ctrl[1 - seat]  # BOMB

    def _target_options(self) -> list[int]:
        """Airborne Assault or Artillery Strike, or a target area."""
        return target_options(self, self._target_card(), self._targets())

    def _decide_target(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action < game.REROLL_BASE:
            spend(self, seat, action - game.PLAY_BASE, effect=True)
            return
        self.target = area = action - game.TARGET_BASE
        act = self.act
        if act == PARADROP:
            drop = 2 + (1 if self.has_bonus(AIR_CONTROL_POST, self.snap[seat]) else 0)
            self._start_placement(LAND, drop + (2 if self.fx >> AIRBORNE_ASSAULT & 1 else 0))
        elif act == BARRAGE:
            dice = 2 + (1 if self.has_bonus(OBSERVER_POST, self.snap[seat]) else 0)
            if self.fx >> ARTILLERY_STRIKE & 1:
                dice += 2
            start_roll(self, dice, seat, ROLL_BARRAGE)
        else:  # BOMB
            self.phase = PAYLOAD

    def _drop(self) -> None:
        """Paradrop: the troops land in the target; a conflict when the opponent is there."""
        seat = self.active
        target = self.target
        dropped = self._from_reserve(seat, LAND, target, self.left)
        self.left = 0
        if dropped and self.troops[1 - seat][target]:
            self._start_conflict(LAND, target)
        else:
            self._end_action()

    def _payload_options(self) -> list[int]:
        """Airstrike, or a payload of aircraft (the last one stays in the zone)."""
        game = self._game
        seat = self.active
        actions = []
        if can_play(self, seat, AIRSTRIKE):
            actions.append(game.PLAY_BASE + AIRSTRIKE)
        most = min(self.aircraft[seat][self.link] - 1, MAX_N)
        actions.extend(range(game.PAYLOAD_BASE, game.PAYLOAD_BASE + most))
        return actions

    def _decide_payload(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action < game.REROLL_BASE:
            spend(self, seat, action - game.PLAY_BASE, effect=True)
            return
        n = action - game.PAYLOAD_BASE + 1
        self._add_aircraft(seat, self.link, -n)
        self.res_air[seat] += n
        self.payload = n
        self._open_window(WINDOW_BOMB)

    # --- support actions: Reinforce and Take-off (and the Paradrop drop) ---------------------

    def _start_placement(self, unit: int, units: int) -> None:
        """`units` troops or aircraft to place (Reinforce, Take-off) or drop (Paradrop)."""
        self.unit = unit
        self.left = units
        self.optional = 0
        self.withdraw_closed = False
        self._continue_placement()

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
        for where in bits(mask):
            if units[where] < cap:
                room |= BIT[where]
        return room

    def _place_options(self) -> list[int]:
        """Done (when the rest is optional), Mobilize or Airborne Assault, or units into room."""
        game = self._game
        seat = self.active
        board = game.board
        actions = [DONE] if self.left <= self.optional else []
        card = self._placement_card()
        if card >= 0 and can_play(self, seat, card):
            actions.append(game.PLAY_BASE + card)
        if self.unit == LAND:
            units, cap, base, reserve = self.troops[seat], board.land_cap, game.AREA_BASE, self.res_troops[seat]
        else:
            units, cap, base, reserve = self.aircraft[seat], board.air_cap, game.ZONE_BASE, self.res_air[seat]
        most = min(self.left, reserve, MAX_N)
        for where in bits(self._place_targets()):
            n = min(most, cap - units[where])
            first = base + MAX_N * where
            actions.extend(range(first, first + n))
        return actions

    def _decide_place(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action == DONE:
            self._finish_placement()
            return
        if action < game.REROLL_BASE:
            self._play_placement_card(seat, action - game.PLAY_BASE)
            return
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

    def _withdraw_options(self) -> list[int]:
        """Not enough units (GO-12): done, the placement card, or units back to the reserve."""
        game = self._game
        seat = self.active
        actions = [DONE]
        card = self._placement_card()
        if card >= 0 and can_play(self, seat, card):
            actions.append(game.PLAY_BASE + card)
        deficit = self.left - (self.res_troops[seat] if self.unit == LAND else self.res_air[seat])
        if self.unit == LAND:
            units, base, mask = self.troops[seat], game.AREA_BASE, self.ctrl[seat]
        else:
            units, base, mask = self.aircraft[seat], game.ZONE_BASE, self.actrl[seat]
        for where in bits(mask):
            n = min(units[where] - 1, deficit, MAX_N)
            if n > 0:
                first = base + MAX_N * where
                actions.extend(range(first, first + n))
        return actions

    def _decide_withdraw(self, action: int) -> None:
        game = self._game
        seat = self.active
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

    def _has_withdrawal(self) -> bool:
        seat = self.active
        units = self.troops[seat] if self.unit == LAND else self.aircraft[seat]
        return any(n >= 2 for n in units)

    def _play_placement_card(self, seat: int, card: int) -> None:
        """Mobilize or Airborne Assault: two more units ("up to two" with Mobilize, GO-C5)."""
        spend(self, seat, card, effect=True)
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

    # --- conflicts: card windows, defence dice, rolls ----------------------------------------

    def _start_conflict(self, unit: int, where: int) -> None:
        self.unit = unit
        self.target = where
        self._open_window(WINDOW_LAND if unit == LAND else WINDOW_AIR)

    def _window_cards(self, window: int) -> list[int]:
        """Cards the defender may play in the open window (GO-C10)."""
        if window == WINDOW_LAND:
            return [AMBUSH, ANTI_AIR] if self.act == PARADROP else [AMBUSH]
        if window == WINDOW_AIR:
            return [INTERCEPT]
        return [ANTI_AIR]

    def _open_window(self, window: int) -> None:
        """The defender's card window; it opens on public facts only (GO-C10)."""
        if not open_window(self, window, self._window_cards(window)):
            self._close_window()

    def _defend_options(self) -> list[int]:
        return defend_options(self, self._window_cards(self.window))

    def _decide_defend(self, action: int) -> None:
        if action == DECLINE:
            self._close_window()
            return
        card = action - self._game.PLAY_BASE
        spend(self, 1 - self.active, card, effect=True)
        if card == ANTI_AIR:
            start_roll(self, 2, 1 - self.active, ROLL_ANTI_AIR_DROP if self.window == WINDOW_LAND
                       else ROLL_ANTI_AIR_BOMB)
        else:  # Ambush or Intercept: +2 defence dice (GO-C4, GO-C9)
            self._open_window(self.window)

    def _close_window(self) -> None:
        window = self.window
        self.window = NO_WINDOW
        if window == WINDOW_BOMB:
            dice = self.payload + (2 if self.fx >> AIRSTRIKE & 1 else 0)
            if dice <= 0:
                self._end_action()
            else:
                start_roll(self, dice, self.active, ROLL_BOMB)
            return
        start_roll(self, self._defence_dice(), 1 - self.active, ROLL_DEFENCE)

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
            if self._game.town_mask >> where & 1 and (self.snap[defender] >> where & 1
                                                      or not self._game.town_centre_needs_supply):
                dice += 1  # GO-B5: the printed bonus needs control and supply (Portuguese text)
            if self.fx >> AMBUSH & 1:
                dice += 2
        elif self.fx >> INTERCEPT & 1:
            dice += 2
        return min(dice, MAX_DICE)

    def _decide_reroll(self, action: int) -> None:
        if action == ACCEPT:
            self._resolve_roll()
        else:
            reroll(self, action)

    def _resolve_roll(self) -> None:
        """The kept roll takes effect: hits on the attacker and attrition (GO-2), anti-air hits,
        Barrage and Bomb hits on the defender."""
        purpose, total = finish_roll(self)
        seat = self.active
        other = 1 - seat
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

    # --- the end of an action: caps, the HQ, the Signal Unit ---------------------------------

    def _end_action(self) -> None:
        """GO-1: the caps hold at the end of every action (excess units go back to the reserve);
        then the HQ check, the Signal Unit and the next turn."""
        board = self._game.board
        for seat in (0, 1):
            troops = self.troops[seat]
            if max(troops) > board.land_cap:
                for a in bits(self.ctrl[seat]):
                    if troops[a] > board.land_cap:
                        self._remove_to_reserve(seat, LAND, a, troops[a] - board.land_cap)
            air = self.aircraft[seat]
            if air and max(air) > board.air_cap:
                for z in bits(self.actrl[seat]):
                    if air[z] > board.air_cap:
                        self._remove_to_reserve(seat, AIR, z, air[z] - board.air_cap)
        self._clear_action()
        if not hq_lost(self):
            self._signal_check()

    def _clear_action(self) -> None:
        clear_action(self)
        self._clear_own_action()

    def _clear_own_action(self) -> None:
        self.unit = LAND
        self.asnap = [0, 0]
        self.payload = 0

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
                if not holds and self.signal[seat] and self._give_back_signal(seat):
                    return
        self.chooser = -1
        if self.blitz_extra:  # the Blitz deployment was extra: the same turn goes on (GO-8)
            self.blitz_extra = False
            self.phase = TURN
            return
        end_turn(self)

    def _give_back_signal(self, seat: int) -> bool:
        """`seat` lost the Signal Unit: the commander it brought goes to standby, from the reserve or
        (True: the owner chooses which) from a space."""
        gained = self.signal[seat] == 2 or self._game.signal_always_returns
        self.signal[seat] = 0
        if gained:
            if self.cmd_reserve[seat] > 0:
                self.cmd_reserve[seat] -= 1
                self.cmd_standby[seat] += 1
            elif self.commanders_deployed(seat):
                self.chooser = seat
                self.phase = SIGNAL_RETURN
                return True
        return False

    def _signal_return_options(self) -> list[int]:
        game = self._game
        seat = self.chooser
        return [game.RETURN_BASE + s for s in range(game.NS) if self.holds_space(seat, s)]

    def _decide_signal_return(self, action: int) -> None:
        """Send the chooser's commander on that space to the standby area; the space is free (GO-7)."""
        seat = self.chooser
        space = action - self._game.RETURN_BASE
        code2 = self.occ2[space]
        if code2 and (code2 - 1) & 1 == seat:
            self.occ2[space] = 0
        else:
            self.occ[space] = code2
            self.occ2[space] = 0
        self.cmd_standby[seat] += 1
        self._signal_check()

    # --- units -------------------------------------------------------------------------------

    def air_supplied(self, seat: int) -> int:
        """Bitmask of the air zones `seat` controls and supplies."""
        if not self._game.NZ:
            return 0
        return self._game.air_supply(seat, self.actrl[seat])

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

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        game = self._game
        board = game.board
        units = {
            "passed": list(self.passed),
            "troops": {board.area_ids[a]: [self.troops[0][a], self.troops[1][a]] for a in range(game.NA)},
            "aircraft": {board.zone_ids[z]: [self.aircraft[0][z], self.aircraft[1][z]] for z in range(game.NZ)},
            "reserve_troops": list(self.res_troops),
            "reserve_aircraft": list(self.res_air),
        }
        action = {
            "signal": list(self.signal),
            "blitz_extra": self.blitz_extra,
            "action": {
                "kind": ACTIONS[self.act] if self.act >= 0 else None,
                "space": self.space, "link": self.link, "unit": self.unit, "target": self.target,
                "moved": self.moved, "left": self.left, "optional": self.optional,
                "withdraw_closed": self.withdraw_closed,
                "effects": self.effects_json(),
                "supplied_at_start": list(self.snap), "air_supplied_at_start": list(self.asnap),
                "payload": self.payload, **roll_json(self),
            },
            "chooser": self.chooser,
        }
        return public_json(self, self.current_player(), units, action)

    def to_json(self) -> JSON:
        return full_json(self, self._public_json())

    def observation(self, seat: int) -> JSON:
        return observation_json(self, seat, self._public_json())

    @classmethod
    def from_json(cls, game: WWIIGame, data: JSON) -> Self:
        """Rebuild a state from `to_json()` output, checking that it is self-consistent."""
        try:
            state = cls(game)
            read_head(state, data)
            state._read_units(data)
            read_shared(state, data)
            state._read_action(data)
            read_tail(state, data)
        except READ_ERRORS as error:
            raise bad_state(game, error) from None
        state.refresh_control()
        state.validate()
        refuse_dead_end(state)
        return state

    def _read_units(self, data: JSON) -> None:
        board = self._game.board
        self.passed = one_a_side(data, "passed", bool)
        troops = data["troops"]
        if set(troops) != set(board.area_ids):
            raise ValueError("troops must list every land area")
        self.troops = [[int(troops[a][seat]) for a in board.area_ids] for seat in (0, 1)]
        aircraft = data["aircraft"]
        if set(aircraft) != set(board.zone_ids):
            raise ValueError("aircraft must list every air zone")
        self.aircraft = [[int(aircraft[z][seat]) for z in board.zone_ids] for seat in (0, 1)]
        self.res_troops = one_a_side(data, "reserve_troops", int)
        self.res_air = one_a_side(data, "reserve_aircraft", int)

    def _read_action(self, data: JSON) -> None:
        self.signal = one_a_side(data, "signal", int)
        self.blitz_extra = bool(data["blitz_extra"])
        action = data["action"]
        self.act = ACTIONS.index(action["kind"]) if action["kind"] is not None else -1
        self.space = int(action["space"])
        self.link = int(action["link"])
        self.unit = int(action["unit"])
        if self.unit not in (LAND, AIR) or (self.unit == AIR and not self._game.NZ):
            raise ValueError(f"unit {self.unit} is not troops (0), or aircraft (1) on a board with air zones")
        self.target = int(action["target"])
        self.moved = int(action["moved"])
        self.left = int(action["left"])
        self.optional = int(action["optional"])
        self.withdraw_closed = bool(action["withdraw_closed"])
        self.fx = read_effects(self, action["effects"])
        self.snap = one_a_side(action, "supplied_at_start", int)
        self.asnap = one_a_side(action, "air_supplied_at_start", int)
        self.payload = int(action["payload"])
        read_roll(self, action)
        self.chooser = int(data["chooser"])

    def validate(self) -> None:
        """Raise StateFormatError unless units, commanders and cards all add up."""
        problems = self._unit_problems() + shared_problems(self) + self._phase_problems()
        if problems:
            raise inconsistent(self._game, problems)

    def _unit_problems(self) -> list[str]:
        game = self._game
        problems = []
        for seat in (0, 1):
            if len(self.troops[seat]) != game.NA or len(self.aircraft[seat]) != game.NZ:
                problems.append("wrong board size")
                break
            problems += self._seat_unit_problems(seat)
        return problems

    def _seat_unit_problems(self, seat: int) -> list[str]:
        """What does not add up in one seat's units, commanders and Signal Unit state (its rows of the right size)."""
        game = self._game
        board = game.board
        name = FACTIONS[seat]
        problems = []
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
        return problems

    def _phase_problems(self) -> list[str]:
        board = self._game.board
        problems = []
        if self.phase == SIGNAL_RETURN and self.chooser not in (0, 1):
            problems.append("a Signal Unit return needs a chooser")
        if self.phase == TURN:
            caps = (board.land_cap, board.air_cap)
            for seat in (0, 1):
                if max(self.troops[seat]) > caps[0] or max(self.aircraft[seat], default=0) > caps[1]:
                    problems.append("more units in an area or zone than the cap allows")
                    break
        return problems

    # --- display -----------------------------------------------------------------------------

    def board_text(self) -> str:
        """The position as text: areas, zones, action spaces, reserves and hands' sizes."""
        game = self._game
        t = game.term
        spaces_at, support = self._spaces_text()
        lines = [self.title_line()]
        lines += self._areas_text(spaces_at)
        for z in range(game.NZ):
            b, y = self.aircraft[0][z], self.aircraft[1][z]
            owner = f"{self._initial(0 if b else 1)}{max(b, y)}" if b or y else "-"
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
        lines.append(self.cards_line())
        return "\n".join(lines)

    def _initial(self, seat: int) -> str:
        return self._game.term(FACTIONS[seat])[:2]

    def _spaces_text(self) -> tuple[dict[tuple[int, int], list[str]], list[str]]:
        """The linked spaces by (in the air, area or zone) and the support spaces, with who is on them."""
        game = self._game
        t = game.term
        spaces_at: dict[tuple[int, int], list[str]] = {}
        support = []
        for s, space in enumerate(game.board.spaces):
            who = [self._initial((code - 1) & 1) + ("*" if (code - 1) >> 1 else "")
                   for code in (self.occ[s], self.occ2[s]) if code]
            if space.link < 0:
                support.append(f"{game.space_name(s)}[{','.join(who) or ' '}]")
                continue
            icon = f"({self._initial(space.faction)})" if space.faction >= 0 else ""
            in_air = space.action in (FLY, BOMB)
            spaces_at.setdefault((int(in_air), space.link), []).append(
                f"{t(ACTIONS[space.action])}{icon}[{','.join(who) or ' '}]")
        return spaces_at, support

    def _areas_text(self, spaces_at: dict[tuple[int, int], list[str]]) -> list[str]:
        """One line per land area: its VP, who holds it (s: supplied), its spaces and bonuses."""
        game = self._game
        board = game.board
        t = game.term
        sup = (self.supplied(0), self.supplied(1))
        lines = []
        for a, name in enumerate(board.area_ids):
            owner = self._area_owner(a, sup)
            extras = self._area_extras(a)
            zone = f" <{game.zone_name(board.area_zone[a])}>" if board.area_zone[a] >= 0 else ""
            lines.append(f"  {name:<6}{zone} {board.area_vp[a]}{t('vp')} {owner:<5} "
                         f"{' '.join(spaces_at.get((0, a), []))} {'; '.join(extras)}".rstrip())
        return lines

    def _area_owner(self, a: int, sup: tuple[int, int]) -> str:
        """Who holds land area `a` and with how many troops ('s': supplied, by the masks `sup`), or '-'."""
        b, y = self.troops[0][a], self.troops[1][a]
        if not (b or y):
            return "-"
        seat = 0 if b else 1
        return f"{self._initial(seat)}{max(b, y)}{'s' if sup[seat] >> a & 1 else ''}"

    def _area_extras(self, a: int) -> list[str]:
        """What else stands in land area `a`: an HQ, its bonus token, its printed bonus."""
        game = self._game
        board = game.board
        t = game.term
        extras = [f"{t('hq')} {t(FACTIONS[seat])}" for seat in (0, 1) if board.hq[seat] == a]
        if self.bonus_at[a] >= 0:
            extras.append(game.bonus_name(self.bonus_at[a]))
        if board.printed_bonus[a] >= 0:
            extras.append(game.bonus_name(board.printed_bonus[a]))
        return extras


# Each decision phase: its legal options and its step, in the rulebook's order.
OPTIONS: dict[int, Callable[[WWIIState], list[int]]] = {
    TURN: WWIIState._turn_options,
    BLITZ_DEPLOY: WWIIState._blitz_options,
    MOVE: WWIIState._move_options,
    TARGET: WWIIState._target_options,
    PAYLOAD: WWIIState._payload_options,
    PLACE: WWIIState._place_options,
    WITHDRAW: WWIIState._withdraw_options,
    DEFEND: WWIIState._defend_options,
    REROLL: reroll_options,
    SIGNAL_RETURN: WWIIState._signal_return_options,
}
DECIDE: dict[int, Callable[[WWIIState, int], None]] = {
    TURN: WWIIState._decide_turn,
    BLITZ_DEPLOY: WWIIState._decide_blitz,
    MOVE: WWIIState._decide_move,
    TARGET: WWIIState._decide_target,
    PAYLOAD: WWIIState._decide_payload,
    PLACE: WWIIState._decide_place,
    WITHDRAW: WWIIState._decide_withdraw,
    DEFEND: WWIIState._decide_defend,
    REROLL: WWIIState._decide_reroll,
    SIGNAL_RETURN: WWIIState._decide_signal_return,
}


def _variants(mode: str, chosen: dict[str, str]) -> dict[str, str]:
    """The options chosen other than their default (ValueError for one the mode lacks or a bad choice)."""
    offered = {option.name: option for option in MODE_OPTIONS.get(mode, ())}
    variants = {}
    for name, value in chosen.items():
        option = offered.get(name)
        if option is None:
            if value != ALL_OPTIONS[name].default:
                raise ValueError(f"option {name} does not apply to the {mode} mode")
            continue
        if value not in option.choices:
            raise ValueError(f"option {name} is one of {', '.join(option.choices)} ({option.decision}), not {value!r}")
        if value != option.default:
            variants[name] = value
    return variants


def new_game(**options: Any) -> WWIIGame:
    """Factory used by the registry."""
    return WWIIGame(**options)

"""General Orders: Sengoku Jidai (Osprey Games, 2025), Rivers and Fortress modes: the rules engine.

Variant: the printed rulebook (../shared/seeds/general-orders-sengoku-jidai.en.txt, English; no other
edition exists in the seeds, so labels are English only). The Rivers board and cards follow the
public reconstruction in ../shared/reference/sengoku-rivers.md; the Fortress board and its four
mode-only cards are reconstructions (boards/fortress.json, cards.json). Every reading of an
open point is a line of docs/rules-decisions.md, section "General Orders: Sengoku Jidai", numbered
SJ-n; the code cites those numbers.

Sengoku is the second game of the General Orders family. This module owns its turn, read top-down
in the rulebook's order: setup, deploying commanders, the linked actions (Advance, Sail, Bombard,
Shell, Siege), the support actions (Reinforce, Embark, Plan), conflicts and the losses their owner
chooses, the end of an action (caps, the HQ). What both games share it calls from the family's
library (core.py, commanders.py, cards.py, dice.py, setup.py, chance.py, state_json.py), which
never calls back; its data is in board.py, boards/rivers.json and boards/fortress.json: one map of
land and water areas, ports and fortifications, three unit kinds (troops, ships, siege weapons)
and the 12 cards.

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
  P = C+NS .. +12       play operation card k for its special effect (order of cards.json)
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
from typing import Any, Callable, Self

from arena.games.base import CHANCE, JSON, TERMINAL, IllegalActionError
from arena.games.general_orders.cards import (can_play, could_play, defend_options, draw, open_window, plan, spend,
    target_options)
from arena.games.general_orders.chance import chance_outcomes, chance_step_label, spectator_label
from arena.games.general_orders.commanders import begin_turn, deploy, end_turn, hq_lost, pass_turn
from arena.games.general_orders.core import (ACCEPT, CHANCE_PHASES, DECLINE, DEFEND, DEPLOY_BASE, DONE, DRAW,
    FAMILY_PHASES, FIRST_GAME_PHASE, MAX_N, MOVE, OVER, PASS, PLACE, REROLL, ROLL, SETUP_BONUS, TARGET, TOKEN_BASE,
    TURN, WITHDRAW, Core, FamilyGame, clear_action, place_tokens, rejection)
from arena.games.general_orders.dice import MAX_DICE, dice_table, finish_roll, reroll, reroll_options, roll, start_roll
from arena.games.general_orders.masks import BIT, bits, names_in
from arena.games.general_orders.sengoku.board import (ACTIONS, ADVANCE, AMBUSH, ARMOURY, BARRACKS, BOMBARD, CARD_IDS,
    COMMANDEER, COUNTERATTACK, EMBARK, FACTIONS, GROUND_ASSAULT, HIDDEN_BASE, HOLD_THE_WALLS, LANGS, MOBILISE,
    NUM_CARD_KINDS, PIRATE_HAVEN, REINFORCE, RIVER_ASSAULT, SAIL, SAPPERS, SENGOKU_BOARDS, SENGOKU_CARDS,
    SENGOKU_TERMS, SHELL, SHIP_STRIKE, SHIPYARD, SHORE_STRIKE, SIEGE, SIEGE_TRAIN, SIEGE_WORKSHOP, TOKENS, WAR_ROOM,
    SengokuBoard)
from arena.games.general_orders.setup import first_phase, place_bonus, take_initiative
from arena.games.general_orders.state_json import (READ_ERRORS, bad_state, determinized_json, full_json, inconsistent,
    mask_of, observation_json, one_a_side, public_json, read_effects, read_head, read_roll, read_shared,
    read_tail, refuse_dead_end, roll_json, shared_problems)
from arena.games.general_orders.supply import reach

RED, BLACK = 0, 1
MAX_LOSS = 5  # siege weapons among one loss: 0..5 (a side has 5)

# Chance outcome ids (the same for both modes).
CARD_BASE = TOKEN_BASE + len(TOKENS)  # 8
DICE_BASE = CARD_BASE + NUM_CARD_KINDS  # 20
NUM_CHANCE_OUTCOMES = DICE_BASE + 2 * MAX_DICE + 1  # 45
DICE = dice_table(DICE_BASE)

# Phases: the family's, then Sengoku's own.
PHASE_NAMES = FAMILY_PHASES + ("follow-up", "loss")
FOLLOW_UP, LOSS = range(FIRST_GAME_PHASE, len(PHASE_NAMES))
# Phases where a single legal option is taken without asking, unless a card might be offered (SJ-D4).
AUTO_PHASES = frozenset((TURN, MOVE, TARGET, PLACE, WITHDRAW, LOSS))
# Phases where the active seat decides (the defender decides in DEFEND, the loser in LOSS).
ACTIVE_PHASES = frozenset((TURN, MOVE, TARGET, PLACE, WITHDRAW, FOLLOW_UP))

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


class SengokuGame(FamilyGame):
    """General Orders: Sengoku Jidai in one mode ('rivers' or 'fortress'); labels in English."""

    rules_version = "1"

    board: SengokuBoard
    short_title = "Sengoku Jidai"
    family = "general-orders-sengoku"
    boards = SENGOKU_BOARDS
    langs = LANGS
    lang_error = "unknown lang {lang!r}: Sengoku Jidai exists in {langs} only"
    factions = FACTIONS
    terms = SENGOKU_TERMS
    cards = SENGOKU_CARDS
    card_ids = CARD_IDS
    action_names = ACTIONS
    token_names = TOKENS
    bonus_names = TOKENS
    counter_card = COUNTERATTACK
    CARD_BASE = CARD_BASE
    DICE_BASE = DICE_BASE
    NUM_CHANCE_OUTCOMES = NUM_CHANCE_OUTCOMES
    dice = DICE

    def __init__(self, mode: str = "rivers", lang: str = "en", name: str | None = None) -> None:
        super().__init__(mode, lang)
        board = self.board
        na = self.NA
        land_areas, nl, land_rank = self._land_layout()
        self.NL = nl
        self.land_areas = land_areas
        self.land_rank = land_rank
        self.UNIT_BASE = self.TARGET_BASE + na
        self.SIEGE_BASE = self.UNIT_BASE + MAX_N * na
        self.LOSS_BASE = self.SIEGE_BASE + MAX_N * nl
        # Hot-path tables.
        self.LAND, self.WATER = board.land_mask, board.water_mask
        self.space_table = tuple((s.index, s.action, s.link) for s in board.spaces)
        self.port_mask = sum(BIT[a] for a in range(na) if board.port_into[a])
        self.space_names = tuple(self._name_space(s) for s in range(self.NS))
        self._info = self._make_info(name, self.LOSS_BASE + (MAX_LOSS + 1 if board.has_siege else 0))

    def _land_layout(self) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
        """The land areas, how many of them have siege-weapon ids (NL: none in a mode without siege
        weapons), and each area's rank among the land areas (-1 for water)."""
        board = self.board
        na = self.NA
        land_areas = tuple(a for a in range(na) if not board.is_water[a])
        nl = len(land_areas) if board.has_siege else 0
        return land_areas, nl, tuple(land_areas.index(a) if a in land_areas else -1 for a in range(na))

    def new_initial_state(self) -> SengokuState:
        state = SengokuState(self)
        state.deck = list(self.board.deck)
        state.place_starting_units()
        state.phase = first_phase(state)
        state.refresh_control()
        return state

    def state_from_json(self, data: JSON) -> SengokuState:
        return SengokuState.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> SengokuState:
        """Sample the opponent's hand and the deck from the cards the seat has not seen."""
        return SengokuState.from_json(self, determinized_json(self, observation, rng))

    # --- words -------------------------------------------------------------------------------

    def unit_word(self, area: int) -> str:
        """What the unit ids count at `area`: troops on land, ships on water."""
        return self.term("ships") if self.board.is_water[area] else self.term("troops")

    def _name_space(self, space: int) -> str:
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

    def action_label(self, action: int) -> str:
        label = self.family_label(action)
        if label is not None:
            return label
        t = self.term
        if action < self.SIEGE_BASE:
            area, n = divmod(action - self.UNIT_BASE, MAX_N)
            return f"{n + 1} {self.unit_word(area)} {t('at')} {self.area_name(area)}"
        if action < self.LOSS_BASE:
            rank, n = divmod(action - self.SIEGE_BASE, MAX_N)
            return f"{n + 1} {t('siege_weapons')} {t('at')} {self.area_name(self.land_areas[rank])}"
        return f"{t('lose')} {action - self.LOSS_BASE} {t('siege_weapons')} ({t('rest_troops')})"


class SengokuState(Core):
    """A Sengoku Jidai position. Mutable; `apply_action` changes it in place."""

    __slots__ = (
        "ships", "siege", "res_ships", "res_siege",
        # the action under way
        "src", "siege_left", "siege_slots", "queue", "loss_seat", "loss_area", "loss_count", "loss_next",
    )

    PHASE_NAMES = PHASE_NAMES
    COMMANDER_CODES = frozenset((0, 1, 2))
    WINDOWS = WINDOWS
    PURPOSES = PURPOSES

    _game: SengokuGame

    def __init__(self, game: SengokuGame) -> None:
        na = game.NA
        self.ships: list[list[int]] = [[0] * na, [0] * na]
        self.siege: list[list[int]] = [[0] * na, [0] * na]
        self.res_ships = [0, 0]
        self.res_siege = [0, 0]
        super().__init__(game)
        self._clear_own_action()

    @property
    def game(self) -> SengokuGame:
        return self._game

    # --- the State interface -----------------------------------------------------------------

    def current_player(self) -> int:
        phase = self.phase
        if phase in ACTIVE_PHASES:
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
        offered judging by public facts (SJ-D4)."""
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
        o.ships = [self.ships[0][:], self.ships[1][:]]
        o.siege = [self.siege[0][:], self.siege[1][:]]
        o.res_ships = self.res_ships[:]
        o.res_siege = self.res_siege[:]
        o.src = self.src
        o.siege_left = self.siege_left
        o.siege_slots = self.siege_slots
        o.queue = self.queue
        o.loss_seat = self.loss_seat
        o.loss_area = self.loss_area
        o.loss_count = self.loss_count
        o.loss_next = self.loss_next
        return o

    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        if player == TERMINAL:
            return self._game.action_label(action)
        if player == CHANCE:
            return chance_step_label(self, action)
        key = (player, self.phase, self.link, self.loss_area, self.loss_count, action)  # what its label depends on
        known = self._game.labels.get(key)
        if known is not None:
            return known
        return self._game.remember_label(key, f"{self._game.seat_name(player)}: {self._contextual_label(action)}")

    def spectator_label(self, action: int) -> str | None:
        return spectator_label(self, action)

    def _contextual_label(self, action: int) -> str:
        """A decision's label at this step: a units id says what it does here (move, place,
        withdraw), a loss id how many of each kind are lost where."""
        game = self._game
        t = game.term
        if self.phase == LOSS and action >= game.LOSS_BASE:
            j = action - game.LOSS_BASE
            return (f"{t('lose')} {j} {t('siege_weapons')} + {self.loss_count - j} {t('troops')} {t('at')} "
                    f"{game.area_name(self.loss_area)}")
        if game.UNIT_BASE <= action < game.LOSS_BASE:
            if action < game.SIEGE_BASE:
                where, n = divmod(action - game.UNIT_BASE, MAX_N)
                units = game.unit_word(where)
            else:
                rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
                where, units = game.land_areas[rank], t("siege_weapons")
            destination = game.area_name(self.link) if self.phase == MOVE else ""
            label = game.unit_step_label(self.phase, n + 1, units, game.area_name(where), destination)
            if label is not None:
                return label
        return game.action_label(action)

    # --- setup -------------------------------------------------------------------------------

    def place_starting_units(self) -> None:
        """The board's starting troops, ships and siege weapons, the rest in reserve; the commanders."""
        board = self._game.board
        self.troops = [list(board.start_troops[0]), list(board.start_troops[1])]
        self.ships = [list(board.start_ships[0]), list(board.start_ships[1])]
        self.siege = [list(board.start_siege[0]), list(board.start_siege[1])]
        self.res_troops = [board.troops - sum(self.troops[s]) for s in (0, 1)]
        self.res_ships = [board.ships - sum(self.ships[s]) for s in (0, 1)]
        self.res_siege = [board.siege_weapons - sum(self.siege[s]) for s in (0, 1)]
        self.cmd_reserve = [board.commanders] * 2
        self.cmd_standby = [0, 0]

    def refresh_control(self) -> None:
        """Recompute the control bitmasks and token positions from the unit counts (after edits)."""
        for seat in (0, 1):
            troops, ships, siege = self.troops[seat], self.ships[seat], self.siege[seat]
            self.ctrl[seat] = sum(BIT[a] for a in range(self._game.NA) if troops[a] or ships[a] or siege[a])
        place_tokens(self)

    # --- deploy a commander, or pass ---------------------------------------------------------

    def _turn_options(self) -> list[int]:
        """Pass (a commander to standby), deploy where the criteria are met, or Counterattack."""
        game = self._game
        seat = self.active
        deploys, counters = self._deploy_options(seat)
        actions = [PASS] + deploys
        if counters and can_play(self, seat, COUNTERATTACK):
            actions.extend(game.COUNTER_BASE + s for s in counters)
        return actions

    def _decide_turn(self, action: int) -> None:
        if action == PASS:
            pass_turn(self)
        else:  # a commander from the reserve, with Counterattack or not
            self.cmd_reserve[self.active] -= 1
            deploy(self, action, 1 + self.active)
            self._start_action()

    def _deploy_options(self, seat: int) -> tuple[list[int], list[int]]:
        """Deploy ids whose deployment criteria `seat` meets, and Advance spaces open to Counterattack."""
        game = self._game
        advance_ok, link_ok = self._linked_criteria(seat)
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

    def _linked_criteria(self, seat: int) -> tuple[int, tuple[int, int, int, int, int]]:
        """The areas whose Advance spaces `seat` may deploy to, and per linked action kind (advance,
        sail, bombard, shell, siege) the areas whose spaces it may deploy to."""
        game = self._game
        adj = game.board.area_adj
        troops, siege = self.troops[seat], self.siege[seat]
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
        siege_ok = 0
        if game.board.has_siege:
            for a in bits(land_sup):
                if siege[a]:
                    siege_ok |= BIT[a]
        return advance_ok, (advance_ok, self._sail_criteria(seat, water_sup), water_sup, land_sup, siege_ok)

    def _sail_criteria(self, seat: int, water_sup: int) -> int:
        """Sail: a water area not controlled, next to a chain of supplied water areas holding a source
        of two or more ships."""
        if not water_sup:
            return 0
        game = self._game
        adj = game.board.area_adj
        ships = self.ships[seat]
        sail_ok = seen = 0
        for w in bits(water_sup):
            if ships[w] >= 2 and not seen >> w & 1:
                chain = reach(adj, w, water_sup)
                seen |= chain
                for x in bits(chain):
                    sail_ok |= adj[x]
        return sail_ok & game.WATER & ~self.ctrl[seat]

    def _start_action(self) -> None:
        """The action of the space just deployed to begins."""
        seat = self.active
        kind = self.act
        if kind == ADVANCE:
            self._start_move(self._advance_sources(seat))
        elif kind == SAIL:
            self._start_move(self._sail_sources(seat))
        elif kind == BOMBARD or kind == SHELL or kind == SIEGE:
            self._start_strike()
        else:
            self._start_own_side_action(kind, seat)

    def _start_own_side_action(self, kind: int, seat: int) -> None:
        """Reinforce or Embark (units placed), or Plan (initiative and cards): the actions with no target."""
        board = self._game.board
        snap = self.snap
        if kind == REINFORCE:
            spec = board.spaces[self.space]
            self._start_placement(spec.value + (2 if self.has_bonus(BARRACKS, snap[seat]) else 0), spec.siege_limit)
        elif kind == EMBARK:
            self._start_placement(board.spaces[self.space].value, 0)
        else:  # PLAN
            spec = board.spaces[self.space]
            if not plan(self, spec.initiative, spec.value + (1 if self.has_bonus(WAR_ROOM, snap[seat]) else 0)):
                self._end_action()

    def _start_strike(self) -> None:
        """Bombard, Shell or Siege: choose a target, or end the action at once with nothing to hit."""
        if self._targets():
            self.phase = TARGET
        else:  # SJ-B3: nothing to hit; the action resolves with no effect
            self._end_action()

    def _advance_sources(self, seat: int) -> int:
        """Advance: the supplied (at the action's start) land areas next to the linked area, or next to a
        supplied water area next to it."""
        game = self._game
        adj = game.board.area_adj
        link = self.link
        snap = self.snap[seat]
        via = 0
        for w in bits(adj[link] & snap & game.WATER):
            via |= adj[w]
        return (adj[link] | via) & snap & game.LAND

    def _sail_sources(self, seat: int) -> int:
        """Sail: the chains of supplied (at the action's start) water areas that touch the linked area."""
        game = self._game
        adj = game.board.area_adj
        water_sup = self.snap[seat] & game.WATER
        src = 0
        for w in bits(adj[self.link] & water_sup):
            if not src >> w & 1:
                src |= reach(adj, w, water_sup)
        return src

    def _card_may_be_offered(self) -> bool:
        """Whether this step could offer a card, judging by public facts only (SJ-D4)."""
        phase = self.phase
        seat = self.active
        if phase == TURN:
            return bool(self._deploy_options(seat)[1]) and could_play(self, seat, COUNTERATTACK)
        if phase == MOVE:
            return self._move_card_may_be_offered(seat)
        if phase == TARGET:
            return self._target_card_may_be_offered(seat)
        if phase == PLACE or phase == WITHDRAW:
            return self._placement_card_may_be_offered(seat)
        return False

    def _move_card_may_be_offered(self, seat: int) -> bool:
        """Whether moving in could offer its card (River Assault, Ground Assault, Sappers), on public facts."""
        if self.act == SAIL:
            return self.res_ships[seat] > 0 and could_play(self, seat, RIVER_ASSAULT)
        return ((self.res_troops[seat] > 0 and could_play(self, seat, GROUND_ASSAULT))
                or (self._sappers_apply() and could_play(self, seat, SAPPERS)))

    def _target_card_may_be_offered(self, seat: int) -> bool:
        """Whether choosing a target could offer its card (Bombard's, Shell's...), on public facts."""
        card = self._target_card()
        return card >= 0 and could_play(self, seat, card)

    def _placement_card_may_be_offered(self, seat: int) -> bool:
        """Whether placing or withdrawing units could offer one of the cards that apply, on public facts."""
        return any(could_play(self, seat, card) for card in self._placement_cards())

    # --- linked actions: Advance and Sail (moving in) ----------------------------------------

    def _start_move(self, sources: int) -> None:
        """Units move into the linked area from `sources`."""
        self.src = sources
        self.target, self.moved, self.phase = self.link, 0, MOVE

    def _sappers_apply(self) -> bool:
        area = self.link
        return bool(self._game.board.fortified >> area & 1) and self.land_units(1 - self.active, area) > 0

    def _move_options(self) -> list[int]:
        """Done (once something moved), a card that joins the move, or units from a source that keeps
        one behind: ships when sailing; troops and siege weapons when advancing."""
        game = self._game
        seat = self.active
        actions = [DONE] if self.moved else []
        if self.act == SAIL:
            return self._sail_move_options(seat, actions)
        if self.res_troops[seat] and can_play(self, seat, GROUND_ASSAULT):
            actions.append(game.PLAY_BASE + GROUND_ASSAULT)
        if can_play(self, seat, SAPPERS) and self._sappers_apply():
            actions.append(game.PLAY_BASE + SAPPERS)
        return actions + self._land_move_ids(seat)

    def _sail_move_options(self, seat: int, actions: list[int]) -> list[int]:
        """Sail: `actions`, then River Assault if it may be played, then the ships that may move in from each
        source area while one stays behind."""
        game = self._game
        if self.res_ships[seat] and can_play(self, seat, RIVER_ASSAULT):
            actions.append(game.PLAY_BASE + RIVER_ASSAULT)
        ships = self.ships[seat]
        for w in bits(self.src):
            n = ships[w]
            if n >= 2:
                first = game.UNIT_BASE + MAX_N * w
                actions.extend(range(first, first + min(n - 1, MAX_N)))
        return actions

    def _land_move_ids(self, seat: int) -> list[int]:
        """Advance: troop ids, then siege-weapon ids, that may move in from each source area while one
        land unit stays behind."""
        game = self._game
        unit_ids: list[int] = []
        siege_ids: list[int] = []
        troops, siege = self.troops[seat], self.siege[seat]
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
        return unit_ids + siege_ids

    def _decide_move(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action == DONE:
            self._after_move_in()
            return
        if action < game.REROLL_BASE:
            spend(self, seat, action - game.PLAY_BASE, effect=True)
            return
        if action < game.SIEGE_BASE:
            where, n = divmod(action - game.UNIT_BASE, MAX_N)
            units = self.ships if self.act == SAIL else self.troops
        else:
            rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
            where, units = game.land_areas[rank], self.siege
        self._add(units, seat, where, -(n + 1))
        self._add(units, seat, self.link, n + 1)
        self.moved += n + 1

    def _after_move_in(self) -> None:
        """Shipyard, River Assault, Hidden Base or Ground Assault add units; a conflict when the
        opponent is there."""
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

    # --- linked actions: Bombard, Shell and Siege (a target) ---------------------------------

    def _target_card(self) -> int:
        act = self.act
        if act == BOMBARD:
            return SHORE_STRIKE
        if act == SIEGE:
            return SIEGE_TRAIN
        return -1

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

    def _target_options(self) -> list[int]:
        """Shore Strike or Siege Train, or a target area."""
        return target_options(self, self._target_card(), self._targets())

    def _decide_target(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action < game.REROLL_BASE:
            spend(self, seat, action - game.PLAY_BASE, effect=True)
            return
        snap = self.snap[seat]
        self.target = action - game.TARGET_BASE
        act = self.act
        if act == BOMBARD:
            dice = self.ships[seat][self.link] + (1 if self.has_bonus(PIRATE_HAVEN, snap) else 0)
            if self.fx >> SHORE_STRIKE & 1:
                dice += 2
            start_roll(self, dice, seat, ROLL_BOMBARD)
        elif act == SHELL:
            start_roll(self, 2, seat, ROLL_SHELL)
        else:  # SIEGE
            dice = self.siege[seat][self.link] + (1 if self.has_bonus(ARMOURY, snap) else 0)
            if self.fx >> SIEGE_TRAIN & 1:
                dice += 2
            self.dice = dice
            self._open_window(WINDOW_WALLS)

    def _after_shell(self) -> None:
        """Ship Strike may follow the first Shell; its window opens on public facts (SJ-C7, SJ-D4)."""
        if could_play(self, self.active, SHIP_STRIKE) and self._targets():
            self.phase = FOLLOW_UP
        else:
            self._end_action()

    def _follow_up_options(self) -> list[int]:
        """Decline, or Ship Strike: a second Shell from the same space (SJ-C7)."""
        playable = can_play(self, self.active, SHIP_STRIKE)
        return [DECLINE] + ([self._game.PLAY_BASE + SHIP_STRIKE] if playable else [])

    def _decide_follow_up(self, action: int) -> None:
        if action == DECLINE:
            self._end_action()
        else:
            spend(self, self.active, SHIP_STRIKE, effect=True)
            self.phase = TARGET

    # --- support actions: Reinforce and Embark -----------------------------------------------

    def _start_placement(self, units: int, siege_limit: int) -> None:
        """`units` to place (at most `siege_limit` of them siege weapons, Reinforce), or ships to embark."""
        self.left = units
        self.optional = 0
        if self.act == REINFORCE:
            self.siege_left = siege_limit
            self.siege_slots = 0
        self.withdraw_closed = False
        self._continue_placement()

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
        """Done (when the rest is optional), a placement card, or units into room: troops and siege
        weapons (Reinforce) or ships (Embark)."""
        game = self._game
        seat = self.active
        board = game.board
        actions = [DONE] if self.left <= self.optional else []
        for card in self._placement_cards():
            if can_play(self, seat, card):
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

    def _decide_place(self, action: int) -> None:
        game = self._game
        seat = self.active
        if action == DONE:
            self._finish_placement()
            return
        if action < game.REROLL_BASE:
            self._play_placement_card(seat, action - game.PLAY_BASE)
            return
        self.left -= self._place_units(seat, action)
        if self.optional > self.left:
            self.optional = self.left
        self._continue_placement()

    def _place_units(self, seat: int, action: int) -> int:
        """Place the units of a units id from the reserve; how many."""
        game = self._game
        if action < game.SIEGE_BASE:
            where, n = divmod(action - game.UNIT_BASE, MAX_N)
            n += 1
            if self.act == EMBARK:
                self.res_ships[seat] -= n
                self._add(self.ships, seat, where, n)
            else:
                self.res_troops[seat] -= n
                self._add(self.troops, seat, where, n)
            return n
        rank, n = divmod(action - game.SIEGE_BASE, MAX_N)
        n += 1
        self.res_siege[seat] -= n
        self._add(self.siege, seat, game.land_areas[rank], n)
        slots = min(n, self.siege_slots)  # a Siege Workshop slot is optional and siege-only
        self.siege_slots -= slots
        self.optional -= slots
        self.siege_left -= n
        return n

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
        """Insufficient units (SJ-12): done, a placement card, or units back to the reserve."""
        game = self._game
        seat = self.active
        actions = [DONE]
        for card in self._placement_cards():
            if can_play(self, seat, card):
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

    def _decide_withdraw(self, action: int) -> None:
        game = self._game
        seat = self.active
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

    def _play_placement_card(self, seat: int, card: int) -> None:
        """Mobilise, Siege Workshop or Commandeer: up to two troops, one siege weapon or one ship more."""
        spend(self, seat, card, effect=True)
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

    def _finish_placement(self) -> None:
        self.left = self.optional = self.siege_left = self.siege_slots = 0
        if self.act == EMBARK:
            seat = self.active
            self.queue = self.ctrl[seat] & self.ctrl[1 - seat] & self._game.WATER  # SJ-C5
            if self.queue:
                self._next_conflict()
                return
        self._end_action()

    # --- conflicts: card windows, rolls and the losses their owner chooses -------------------

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
        """The card window on the opponent's turn; it opens on public facts only (SJ-D4)."""
        if not open_window(self, window, (WINDOW_CARD[window],)):
            self._close_window()

    def _defend_options(self) -> list[int]:
        return defend_options(self, (WINDOW_CARD[self.window],))

    def _decide_defend(self, action: int) -> None:
        if action != DECLINE:  # Ambush: +2 defence dice; Hold the Walls: -2 siege dice
            spend(self, 1 - self.active, action - self._game.PLAY_BASE, effect=True)
        self._close_window()

    def _close_window(self) -> None:
        window = self.window
        self.window = NO_WINDOW
        if window == WINDOW_WALLS:
            dice = self.dice - (2 if self.fx >> HOLD_THE_WALLS & 1 else 0)
            if dice <= 0:
                self._end_action()
            else:
                start_roll(self, dice, self.active, ROLL_SIEGE)
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
        start_roll(self, dice, 1 - self.active, ROLL_DEFENCE)

    def _decide_reroll(self, action: int) -> None:
        if action == ACCEPT:
            self._resolve_roll()
        else:
            reroll(self, action)

    def _resolve_roll(self) -> None:
        """The kept roll takes effect: the attacker's losses, ships shelled, land units struck."""
        purpose, total = finish_roll(self)
        seat = self.active
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

    def _loss_range(self) -> tuple[int, int]:
        """The fewest and most siege weapons among the loss under way."""
        seat, area, k = self.loss_seat, self.loss_area, self.loss_count
        return max(0, k - self.troops[seat][area]), min(k, self.siege[seat][area])

    def _loss_options(self) -> list[int]:
        """How many siege weapons among the loss (the rest troops)."""
        lo, hi = self._loss_range()
        base = self._game.LOSS_BASE
        return list(range(base + lo, base + hi + 1))

    def _decide_loss(self, action: int) -> None:
        j = action - self._game.LOSS_BASE
        self._take_losses(self.loss_seat, self.loss_area, self.loss_count - j, j)
        after = self.loss_next
        self.loss_seat, self.loss_area, self.loss_count, self.loss_next = -1, -1, 0, NEXT_NONE
        self._after_loss(after)

    def _after_loss(self, after: int) -> None:
        if after == NEXT_DEFENCE:
            self._attrition()
        elif after == NEXT_ATTRITION:
            self._conflict_over()
        else:  # NEXT_STRIKE, NEXT_CAP: the action ends (the caps are checked again)
            self._end_action()

    # --- the end of an action: caps, the HQ --------------------------------------------------

    def _end_action(self) -> None:
        """SJ-1: every land area is cut to 5 units and every water area to 3 (owners choose which
        land units go); then the HQ check and the next turn."""
        board = self._game.board
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
        clear_action(self)
        self._clear_own_action()
        if not hq_lost(self):
            end_turn(self)

    def _clear_own_action(self) -> None:
        self.src = 0
        self.siege_left = 0
        self.siege_slots = 0
        self.queue = 0
        self.loss_seat = -1
        self.loss_area = -1
        self.loss_count = 0
        self.loss_next = NEXT_NONE

    # --- units -------------------------------------------------------------------------------

    def land_units(self, seat: int, area: int) -> int:
        """Troops and siege weapons of `seat` in `area`."""
        return self.troops[seat][area] + self.siege[seat][area]

    def units(self, seat: int, area: int) -> int:
        """Every unit of `seat` in `area` (troops, ships, siege weapons)."""
        return self.troops[seat][area] + self.ships[seat][area] + self.siege[seat][area]

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

    def _remove_all(self, seat: int, area: int) -> None:
        """Every unit of `seat` at `area` goes back to the reserve (no choice to make)."""
        self._take_losses(seat, area, self.troops[seat][area], self.siege[seat][area])
        ships = self.ships[seat][area]
        if ships:
            self._add(self.ships, seat, area, -ships)
            self.res_ships[seat] += ships

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        game = self._game
        board = game.board
        ids = board.area_ids
        units = {
            "troops": {ids[a]: [self.troops[0][a], self.troops[1][a]] for a in range(game.NA)},
            "ships": {ids[a]: [self.ships[0][a], self.ships[1][a]] for a in range(game.NA) if board.is_water[a]},
            "siege_weapons": {ids[a]: [self.siege[0][a], self.siege[1][a]] for a in game.land_areas},
            "reserve_troops": list(self.res_troops),
            "reserve_ships": list(self.res_ships),
            "reserve_siege_weapons": list(self.res_siege),
        }
        loss = None
        if self.loss_seat >= 0:
            loss = {"seat": self.loss_seat, "area": ids[self.loss_area], "count": self.loss_count,
                    "then": AFTER_LOSS[self.loss_next]}
        action = {
            "action": {
                "kind": ACTIONS[self.act] if self.act >= 0 else None,
                "space": self.space,
                "link": ids[self.link] if self.link >= 0 else None,
                "target": ids[self.target] if self.target >= 0 else None,
                "sources": names_in(ids, self.src),
                "moved": self.moved, "left": self.left, "optional": self.optional,
                "siege_left": self.siege_left, "siege_slots": self.siege_slots,
                "withdraw_closed": self.withdraw_closed,
                "effects": self.effects_json(),
                "supplied_at_start": [names_in(ids, mask) for mask in self.snap],
                **roll_json(self),
                "conflicts_queued": names_in(ids, self.queue),
                "loss": loss,
            },
        }
        return public_json(self, self.current_player(), units, action)

    def to_json(self) -> JSON:
        return full_json(self, self._public_json())

    def observation(self, seat: int) -> JSON:
        return observation_json(self, seat, self._public_json())

    @classmethod
    def from_json(cls, game: SengokuGame, data: JSON) -> Self:
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
        game = self._game
        board = game.board
        ids = board.area_ids

        def per_area(table: Any, areas: Any) -> list[list[int]]:
            if set(table) != {ids[a] for a in areas}:
                raise ValueError("unit tables must list exactly their areas")
            rows = [[0] * game.NA, [0] * game.NA]
            for a in areas:
                rows[0][a], rows[1][a] = int(table[ids[a]][0]), int(table[ids[a]][1])
            return rows

        self.troops = per_area(data["troops"], range(game.NA))
        self.ships = per_area(data["ships"], [a for a in range(game.NA) if board.is_water[a]])
        self.siege = per_area(data["siege_weapons"], game.land_areas)
        self.res_troops = one_a_side(data, "reserve_troops", int)
        self.res_ships = one_a_side(data, "reserve_ships", int)
        self.res_siege = one_a_side(data, "reserve_siege_weapons", int)

    def _read_action(self, data: JSON) -> None:
        ids = self._game.board.area_ids

        def area_or_none(name: Any) -> int:
            return -1 if name is None else ids.index(name)

        action = data["action"]
        self.act = ACTIONS.index(action["kind"]) if action["kind"] is not None else -1
        self.space = int(action["space"])
        self.link = area_or_none(action["link"])
        self.target = area_or_none(action["target"])
        self.src = mask_of(action["sources"], ids)
        self.moved = int(action["moved"])
        self.left = int(action["left"])
        self.optional = int(action["optional"])
        self.siege_left = int(action["siege_left"])
        self.siege_slots = int(action["siege_slots"])
        self.withdraw_closed = bool(action["withdraw_closed"])
        self.fx = read_effects(self, action["effects"])
        self.snap = one_a_side(action, "supplied_at_start", lambda names: mask_of(names, ids))
        read_roll(self, action)
        self.queue = mask_of(action["conflicts_queued"], ids)
        loss = action["loss"]
        if loss is not None:
            self.loss_seat = int(loss["seat"])
            self.loss_area = ids.index(loss["area"])
            self.loss_count = int(loss["count"])
            self.loss_next = AFTER_LOSS.index(loss["then"])

    def validate(self) -> None:
        """Raise StateFormatError unless units, commanders and cards all add up."""
        problems = self._unit_problems() + shared_problems(self) + self._phase_problems()
        if problems:
            raise inconsistent(self._game, problems)

    def _unit_problems(self) -> list[str]:
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
            problems += self._misplaced_units(seat)
            commanders = self.cmd_reserve[seat] + self.cmd_standby[seat] + self.commanders_deployed(seat)
            if commanders != board.commanders or min(self.cmd_reserve[seat], self.cmd_standby[seat]) < 0:
                problems.append(f"{name} does not have {board.commanders} commanders")
        return problems

    def _misplaced_units(self, seat: int) -> list[str]:
        """Land units in water, ships on land."""
        board = self._game.board
        name = FACTIONS[seat]
        problems = []
        for a in range(self._game.NA):
            if board.is_water[a] and (self.troops[seat][a] or self.siege[seat][a]):
                problems.append(f"{name} has land units in water area {board.area_ids[a]}")
            if not board.is_water[a] and self.ships[seat][a]:
                problems.append(f"{name} has ships in land area {board.area_ids[a]}")
        return problems

    def _phase_problems(self) -> list[str]:
        """What the phase needs (its active player is a shared check): a commander in reserve to deploy, the
        sources of a move, a real loss choice, areas settled between actions."""
        problems = []
        if self.phase == TURN and self.active in (0, 1) and self.cmd_reserve[self.active] <= 0:
            problems.append("the player to deploy has no commander in reserve")
        if self.phase == MOVE and not self.src:
            problems.append("a move under way needs its source areas")
        if self.phase == LOSS and self._not_a_loss_choice():
            problems.append("a loss choice needs a seat, an area and a real choice")
        if self.phase == TURN:
            problems += self._area_problems_between_actions()
        return problems

    def _not_a_loss_choice(self) -> bool:
        """Whether the loss to choose has no seat, no area or a single option."""
        return self.loss_seat not in (0, 1) or self.loss_area < 0 or self._loss_range()[0] >= self._loss_range()[1]

    def _area_problems_between_actions(self) -> list[str]:
        """Areas held by both sides, or holding more units than the cap, where no action is under way."""
        game = self._game
        board = game.board
        problems = []
        for a in range(game.NA):
            cap = board.water_cap if board.is_water[a] else board.land_cap
            if self.units(0, a) and self.units(1, a):
                problems.append(f"both sides hold {board.area_ids[a]} between actions")
            if max(self.units(0, a), self.units(1, a)) > cap:
                problems.append(f"more units in {board.area_ids[a]} than the cap allows")
        return problems

    # --- display -----------------------------------------------------------------------------

    def board_text(self) -> str:
        """The position as text: areas with units and spaces, the support board, reserves and hands."""
        game = self._game
        board = game.board
        t = game.term
        spaces_at: dict[int, list[str]] = {}
        support = []
        for s, space in enumerate(board.spaces):
            who = ",".join(self._initial(code - 1) for code in (self.occ[s], self.occ2[s]) if code)
            if space.link < 0:
                support.append(f"{game.space_name(s)}[{who or ' '}]")
            else:
                spaces_at.setdefault(space.link, []).append(f"{t(ACTIONS[space.action])}[{who or ' '}]")
        lines = [self.title_line()]
        lines += [self._area_text(a, spaces_at.get(a, [])) for a in range(game.NA)]
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
        lines.append(self.cards_line())
        return "\n".join(lines)

    def _initial(self, seat: int) -> str:
        return self._game.term(FACTIONS[seat])[:1]

    def _owner_text(self, a: int) -> str:
        """Whose units are in area a and how many of each kind (*: supplied), or "-"."""
        owner = "-"
        for seat in (0, 1):
            if self.units(seat, a):
                parts = [f"{n}{suffix}" for n, suffix in ((self.troops[seat][a], "t"), (self.siege[seat][a], "s"),
                                                          (self.ships[seat][a], "sh")) if n]
                supplied = "*" if self.supplied(seat) >> a & 1 else ""
                owner = f"{self._initial(seat)}{'+'.join(parts)}{supplied}"
        return owner

    def _area_text(self, a: int, spaces: list[str]) -> str:
        """One area: its VP, whose units are there (*: supplied), its spaces, HQ, fort, port, bonus."""
        game = self._game
        board = game.board
        t = game.term
        owner = self._owner_text(a)
        extras = [f"{t('hq')} {t(FACTIONS[seat])}" for seat in (0, 1) if board.hq[seat] == a]
        if board.fortified >> a & 1:
            extras.append(t("fortified"))
        if board.port_into[a]:
            extras.append(f"{t('port')} -> {','.join(names_in(board.area_ids, board.port_into[a]))}")
        if self.bonus_at[a] >= 0:
            extras.append(game.bonus_name(self.bonus_at[a]))
        kind = "~" if board.is_water[a] else " "
        return (f" {kind}{board.area_ids[a]:<4} {board.area_vp[a]}{t('vp')} {owner:<10} "
                f"{' '.join(spaces)} {'; '.join(extras)}".rstrip())


# Each decision phase: its legal options and its step, in the rulebook's order.
OPTIONS: dict[int, Callable[[SengokuState], list[int]]] = {
    TURN: SengokuState._turn_options,
    MOVE: SengokuState._move_options,
    TARGET: SengokuState._target_options,
    FOLLOW_UP: SengokuState._follow_up_options,
    PLACE: SengokuState._place_options,
    WITHDRAW: SengokuState._withdraw_options,
    DEFEND: SengokuState._defend_options,
    REROLL: reroll_options,
    LOSS: SengokuState._loss_options,
}
DECIDE: dict[int, Callable[[SengokuState, int], None]] = {
    TURN: SengokuState._decide_turn,
    MOVE: SengokuState._decide_move,
    TARGET: SengokuState._decide_target,
    FOLLOW_UP: SengokuState._decide_follow_up,
    PLACE: SengokuState._decide_place,
    WITHDRAW: SengokuState._decide_withdraw,
    DEFEND: SengokuState._decide_defend,
    REROLL: SengokuState._decide_reroll,
    LOSS: SengokuState._decide_loss,
}


def new_game(**options: Any) -> SengokuGame:
    """Factory used by the registry."""
    return SengokuGame(**options)

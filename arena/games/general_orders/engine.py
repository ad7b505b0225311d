"""The General Orders engine: the game flow that WWII (rules.py) and Sengoku Jidai (sengoku.py) share.

Both games play the same way. A round: commanders are deployed one per turn, alternately from the
initiative holder; a deployment starts the action of its space, a compound move of atomic steps
ending in "done"; when nobody may deploy any more, the commanders are recalled and the round marker
advances. The game ends at once when a side's HQ holds no land units, otherwise after the last
round on the VP of the areas each side controls and supplies, ties to the initiative holder.

What lives here, once for the family:
- the decision ids every game has (pass, done, decline, keep the roll, deploy, Counter Attack,
  play a card, re-roll with a card, target an area) and the chance ids (initiative, area-bonus
  tokens, card draws, dice totals), with their labels;
- the phases every game has (a game numbers its own phases from FIRST_GAME_PHASE on);
- commanders: reserve, standby, two places per space (the second one taken with Counter Attack);
- the two pass rules, chosen by the board's rule flag: a final pass (WWII: the round ends when
  both have passed) or a pass that sends a commander to standby (Sengoku: the round ends when both
  reserves are empty, and standby commanders come back with the rest);
- the hand, deck and discard pile as card-count multisets, each card's effect at most once per
  turn, Plan's draws (an empty deck is refilled from the discard pile);
- card windows judged on public facts only, so that no decision ever reveals the hand (GO-D7,
  GO-C10, SJ-D4): a step with a single legal option is taken without asking unless a card could be
  played there, and the defender's window opens whenever a copy could still be held;
- dice: one chance node per roll over the total pips, then a re-roll decision while the roller
  holds cards;
- memoised supply, the HQ check at the end of an action, the JSON round trip, observations and
  determinize, the text picture's frame.

What a game adds in its subclasses: its unit kinds, its own action ids, phases and cards, and the
small rules: who decides in each phase, the legal steps, the effect of each step, its actions,
conflicts and caps (see FamilyState's "the game's part" section).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any, ClassVar, Generic, Mapping, Self, Sequence, TypeVar

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
    named_counts,
    remember_reach,
    sample_hidden_cards,
)
from arena.games.general_orders.loader import FamilyBoard

NUM_SEATS = 2

# Fixed decision ids.
PASS, DONE, DECLINE, ACCEPT = 0, 1, 2, 3
DEPLOY_BASE = 4
MAX_N = 5  # counts 1..5 in the unit ids

# Chance outcome ids: the initiative, then the area-bonus tokens, the card draws, the dice totals.
INITIATIVE_BASE = 0
TOKEN_BASE = 2

# The phases every game of the family has; a game's own phases are numbered from FIRST_GAME_PHASE.
FAMILY_PHASES = ("setup-bonus", "setup-initiative", "turn", "move-in", "target", "place", "withdraw",
                 "defend", "roll", "reroll", "draw", "over")
(SETUP_BONUS, SETUP_INITIATIVE, TURN, MOVE, TARGET, PLACE, WITHDRAW, DEFEND, ROLL, REROLL, DRAW,
 OVER) = range(len(FAMILY_PHASES))
FIRST_GAME_PHASE = len(FAMILY_PHASES)
CHANCE_PHASES = frozenset((SETUP_BONUS, SETUP_INITIATIVE, ROLL, DRAW))

# A game's card windows and roll purposes are its own; 0 is "none" in both.
NO_WINDOW = 0
NO_ROLL = 0

REASON_HQ = "hq_lost"
REASON_VP = "victory_points"
REASON_TIE = "initiative_tie_break"


class FamilyGame(Game):
    """One mode of a General Orders game: the board, the shared action ids, words and labels,
    determinize and memoised supply. A subclass names its data and lays out its own ids."""

    # The game's data (class attributes of the subclass).
    short_title: ClassVar[str]  # "General Orders", "Sengoku Jidai": used in error messages
    family: ClassVar[str]  # the registry family: the default name is "<family>/<mode>"
    boards: ClassVar[Mapping[str, FamilyBoard]]
    langs: ClassVar[tuple[str, ...]]
    lang_error: ClassVar[str] = "unknown lang {lang!r}; choose one of {langs}"
    factions: ClassVar[tuple[str, ...]]
    terms: ClassVar[Mapping[str, Mapping[str, str]]]
    cards: ClassVar[Sequence[Any]]
    card_ids: ClassVar[tuple[str, ...]]
    action_names: ClassVar[tuple[str, ...]]
    token_names: ClassVar[tuple[str, ...]]
    bonus_names: ClassVar[tuple[str, ...]]  # term keys of the area bonuses (tokens first)
    counter_card: ClassVar[int]  # the card that deploys a second commander onto an Advance space
    CARD_BASE: ClassVar[int]  # chance ids: draw card k
    DICE_BASE: ClassVar[int]  # chance ids: a roll totalling n pips
    NUM_CHANCE_OUTCOMES: ClassVar[int]
    dice: ClassVar[tuple[tuple[tuple[int, float], ...], ...]]  # per number of dice: (outcome, p) pairs
    state_class: ClassVar[type[FamilyState[Any]]]
    _info: GameInfo

    def __init__(self, mode: str, lang: str, board: FamilyBoard | None = None) -> None:
        """`board`: an alternative reconstruction of the mode's board (default: the mode's own)."""
        if mode not in self.boards:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(self.boards)}")
        if lang not in self.langs:
            raise ValueError(self.lang_error.format(lang=lang, langs=", ".join(self.langs)))
        board = board if board is not None else self.boards[mode]
        self.board: FamilyBoard = board
        self.mode = mode
        self.lang = lang
        ns, na = len(board.spaces), board.num_areas
        self.NS, self.NA = ns, na
        self.COUNTER_BASE = DEPLOY_BASE + ns
        self.PLAY_BASE = self.COUNTER_BASE + ns
        self.REROLL_BASE = self.PLAY_BASE + len(self.card_ids)
        self.TARGET_BASE = self.REROLL_BASE + len(self.card_ids)
        # Hot-path tables.
        self.space_action = tuple(s.action for s in board.spaces)
        self.space_link = tuple(s.link for s in board.spaces)
        self.deck_total: tuple[int, ...] = board.deck
        # Supply cache: control bitmask -> supplied bitmask, per seat (GO-D3, SJ-D3). Pure
        # functions of the mask, so states share them safely.
        self.supply_cache: tuple[dict[int, int], dict[int, int]] = ({}, {})

    def _make_info(self, name: str | None, num_actions: int, variants: Mapping[str, str] | None = None) -> GameInfo:
        """The GameInfo of this mode, once the subclass has laid out its action ids (`variants`: the
        options played other than their default, kept in every record)."""
        options: dict[str, Any] = {"mode": self.mode}
        if self.lang != "en":
            options["lang"] = self.lang
        options.update(variants or {})
        return GameInfo(
            name=name if name is not None else f"{self.family}/{self.mode}",
            title=self.board.title[self.lang],
            num_seats=NUM_SEATS,
            num_actions=num_actions,
            num_chance_outcomes=self.NUM_CHANCE_OUTCOMES,
            max_game_length=6000,
            has_hidden_information=True,
            has_chance=True,
            seat_names=tuple(self.term(f) for f in self.factions),
            options=options,
        )

    @property
    def info(self) -> GameInfo:
        return self._info

    # --- words -------------------------------------------------------------------------------

    def term(self, key: str) -> str:
        """A rulebook term in this game's language."""
        return self.terms[key][self.lang]

    def card_name(self, kind: int) -> str:
        """An operation card's name in this game's language."""
        return self.cards[kind].name[self.lang]

    def bonus_name(self, bonus: int) -> str:
        """An area bonus's name in this game's language."""
        return self.term(self.bonus_names[bonus])

    def area_name(self, area: int) -> str:
        """An area's id (ids are language-neutral)."""
        return self.board.area_ids[area]

    @abstractmethod
    def space_name(self, space: int) -> str:
        """An action space: its action and linked area, or its support value."""

    # --- Game interface ----------------------------------------------------------------------

    def new_initial_state(self) -> FamilyState[Any]:
        state = self.state_class(self)
        state.deck = list(self.board.deck)
        state.place_starting_units()
        state.phase = SETUP_BONUS if self.board.bonus_slots else SETUP_INITIATIVE
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
        if action < self.TARGET_BASE + self.NA:
            return f"{t('target')} {self.area_name(action - self.TARGET_BASE)}"
        return self.unit_action_label(action)

    @abstractmethod
    def unit_action_label(self, action: int) -> str:
        """The label of one of the game's own ids (from TARGET_BASE + NA on)."""

    def chance_label(self, outcome: int) -> str:
        if not 0 <= outcome < self.NUM_CHANCE_OUTCOMES:
            raise IllegalActionError(f"chance outcome {outcome} is outside 0..{self.NUM_CHANCE_OUTCOMES - 1}")
        if outcome < TOKEN_BASE:
            return f"{self.term(self.factions[outcome])} {self.term('has_initiative')}"
        if outcome < self.CARD_BASE:
            return f"{self.term('bonus_token')}: {self.bonus_name(outcome - TOKEN_BASE)}"
        if outcome < self.DICE_BASE:
            return f"{self.term('draws')} {self.card_name(outcome - self.CARD_BASE)}"
        return f"{outcome - self.DICE_BASE} {self.term('pips')}"

    def state_from_json(self, data: JSON) -> FamilyState[Any]:
        return self.state_class.from_json(self, data)

    def determinize(self, observation: JSON, rng: random.Random) -> FamilyState[Any]:
        """Sample the opponent's hand and the deck from the cards the seat has not seen (deck
        total - discard - own hand)."""
        ids = self.card_ids
        try:
            seat = int(observation["seat"])
            if seat not in (0, 1):
                raise ValueError("seat must be 0 or 1")
            own = counts_of(observation["hand"], ids)
            discard = counts_of(observation["discard"], ids)
            sizes = [int(n) for n in observation["hand_sizes"]]
            if sum(own) != sizes[seat]:
                raise ValueError("the hand does not match its size")
            other, deck = sample_hidden_cards(self.deck_total, own, discard, sizes[1 - seat],
                                              int(observation["deck_size"]), rng, ids)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"not a {self.short_title} observation: {error}") from None
        data = {key: value for key, value in observation.items()
                if key not in ("seat", "hand", "hand_sizes", "deck_size")}
        hands = [own, other] if seat == 0 else [other, own]
        data["hands"] = [named_counts(h, ids) for h in hands]
        data["deck"] = named_counts(deck, ids)
        return self.state_class.from_json(self, data)

    # --- supply ------------------------------------------------------------------------------

    def supply(self, seat: int, control: int) -> int:
        """Areas supplied by `seat` when it controls the areas in `control` (memoised): those
        connected to its HQ through `control`."""
        supplied = self.supply_cache[seat].get(control)
        if supplied is None:
            supplied = remember_reach(self.supply_cache[seat], self.board.area_adj, self.board.hq[seat], control)
        return supplied

    land_supply = supply  # the name the WWII engine and the family's tools use


GameT = TypeVar("GameT", bound=FamilyGame)


class FamilyState(State, Generic[GameT]):
    """A position of a General Orders game. Mutable; `apply_action` changes it in place."""

    __slots__ = (
        "_game", "phase", "round", "initiative", "active", "passed", "troops", "res_troops", "ctrl",
        "cmd_reserve", "cmd_standby", "occ", "occ2", "support_used", "hands", "deck", "discard", "bonus_at",
        "token_area", "used",
        # the action under way
        "act", "space", "link", "target", "moved", "left", "optional", "withdraw_closed", "fx", "snap",
        "window", "dice", "roller", "roll", "purpose", "draws",
        "winner", "reason", "_legal",
    )

    # The game's tables (class attributes of the subclass).
    PHASE_NAMES: ClassVar[tuple[str, ...]]
    # Phases where a single legal option is taken without asking, unless a card might be offered.
    AUTO_PHASES: ClassVar[frozenset[int]]
    COMMANDER_CODES: ClassVar[frozenset[int]]  # valid values of `occ` / `occ2`
    WINDOWS: ClassVar[tuple[str, ...]]  # names of the card windows
    PURPOSES: ClassVar[tuple[str, ...]]  # names of what a roll is for

    _game: GameT

    def __init__(self, game: GameT) -> None:
        self._game = game
        ns, na, kinds = game.NS, game.NA, len(game.card_ids)
        self.phase = SETUP_INITIATIVE
        self.round = 1
        self.initiative = -1
        self.active = -1
        self.passed = [False, False]  # under the final-pass rule: who has passed this round
        self.troops: list[list[int]] = [[0] * na, [0] * na]
        self.res_troops = [0, 0]
        self.ctrl = [0, 0]  # bitmask of areas holding the seat's units (derived)
        self.cmd_reserve = [0, 0]
        self.cmd_standby = [0, 0]
        self.occ = [0] * ns  # 0 empty, else 1 + seat (+ 2 when deployed from standby)
        self.occ2 = [0] * ns  # a second commander placed with Counter Attack
        self.support_used = [0, 0]  # bitmask of support action kinds used this round
        self.hands: list[list[int]] = [[0] * kinds, [0] * kinds]
        self.deck: list[int] = [0] * kinds
        self.discard: list[int] = [0] * kinds
        self.bonus_at = [-1] * na  # area-bonus token per area (-1: none)
        self.token_area = [-1] * len(game.token_names)  # area holding each token (derived)
        self.used = [0, 0]  # card effects resolved this turn, per seat (bitmask of card kinds)
        self._clear_action()
        self.winner = -1
        self.reason = ""
        self._legal: list[int] | None = None

    def _clear_action(self) -> None:
        """Forget the action under way (the game clears its own fields too)."""
        self.act = -1
        self.space = -1
        self.link = -1
        self.target = -1
        self.moved = 0
        self.left = 0
        self.optional = 0
        self.withdraw_closed = False
        self.fx = 0  # card effects resolved in this action (bitmask of card kinds)
        self.snap = [0, 0]  # supply at the start of the action, per seat
        self.window = NO_WINDOW
        self.dice = 0
        self.roller = -1
        self.roll = -1
        self.purpose = NO_ROLL
        self.draws = 0

    # --- State interface ---------------------------------------------------------------------

    @property
    def game(self) -> GameT:
        return self._game

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
            return list(self._game.dice[self.dice])
        if phase == DRAW:
            deck = self.deck
            total = sum(deck)
            card_base = self._game.CARD_BASE
            return [(card_base + k, n / total) for k, n in enumerate(deck) if n]
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

    def clone(self) -> Self:
        cls = type(self)
        o = cls.__new__(cls)
        o._game = self._game
        o.phase = self.phase
        o.round = self.round
        o.initiative = self.initiative
        o.active = self.active
        o.passed = self.passed[:]
        o.troops = [self.troops[0][:], self.troops[1][:]]
        o.res_troops = self.res_troops[:]
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
        o.moved = self.moved
        o.left = self.left
        o.optional = self.optional
        o.withdraw_closed = self.withdraw_closed
        o.fx = self.fx
        o.snap = self.snap  # replaced, never mutated
        o.window = self.window
        o.dice = self.dice
        o.roller = self.roller
        o.roll = self.roll
        o.purpose = self.purpose
        o.draws = self.draws
        o.winner = self.winner
        o.reason = self.reason
        o._legal = self._legal
        self._clone_into(o)
        return o

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        ranking = (0, 1) if self.winner == 0 else (1, 0)
        return Outcome(ranking, self.reason, tuple(float(v) for v in self.victory_points()))

    def action_to_string(self, action: int) -> str:
        game = self._game
        player = self.current_player()
        if player == TERMINAL:
            return game.action_label(action)
        if player == CHANCE:
            label = game.chance_label(action)
            phase = self.phase
            if phase == ROLL and action >= game.DICE_BASE:
                return (f"{game.term(game.factions[self.roller])} {game.term('rolls')} {action - game.DICE_BASE} "
                        f"{game.term('pips')} ({self.dice} {game.term('dice')})")
            if phase == DRAW and game.CARD_BASE <= action < game.DICE_BASE:
                return f"{game.term(game.factions[self.active])} {label}"
            if phase == SETUP_BONUS and TOKEN_BASE <= action < game.CARD_BASE:
                slot = game.board.bonus_slots[self._slots_filled()]
                return f"{label} -> {game.area_name(slot)}"
            return label
        return f"{game.term(game.factions[player])}: {self._contextual_label(action)}"

    def spectator_label(self, action: int) -> str | None:
        """A card drawn is hidden from spectators; the initiative, bonus tokens and dice are public."""
        game = self._game
        if self.phase == DRAW and game.CARD_BASE <= action < game.DICE_BASE:
            return f"{game.term(game.factions[self.active])} {game.term('draws_a_card')}"
        return None

    def _contextual_label(self, action: int) -> str:
        """A decision's label at this step: a units id says what it does here (move, place, withdraw)."""
        game = self._game
        t = game.term
        phase = self.phase
        option = self._unit_option(action)
        if option is not None:
            n, units, name, destination = option
            if phase == MOVE:
                return f"{t('move')} {n} {units} {t('from')} {name} -> {destination}"
            if phase == PLACE:
                return f"{t('place')} {n} {units} {t('into')} {name}"
            if phase == WITHDRAW:
                return f"{t('withdraw')}: {n} {units} {t('from')} {name}"
        return game.action_label(action)

    def _reject(self, action: int) -> None:
        player = self.current_player()
        try:
            label = self.action_to_string(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"action {action} is illegal: {error}") from None
        if player == CHANCE:
            why = f"it is not a possible chance outcome in phase {self.PHASE_NAMES[self.phase]}"
        else:
            options = [self._contextual_label(a) for a in self._legal_decisions()]
            shown = "; ".join(options[:12]) + ("; ..." if len(options) > 12 else "")
            why = (f"in phase {self.PHASE_NAMES[self.phase]} {self._game.term(self._game.factions[player])} "
                   f"may only choose: {shown}")
        raise IllegalActionError(f"action {action} ({label}) is illegal: {why}")

    # --- derived facts -----------------------------------------------------------------------

    def refresh_control(self) -> None:
        """Recompute the control bitmasks and token positions from the unit counts (after edits)."""
        self._recount_control()
        token_area = [-1] * len(self._game.token_names)
        for area, token in enumerate(self.bonus_at):
            if token >= 0:
                token_area[token] = area
        self.token_area = token_area
        self._legal = None

    def supplied(self, seat: int) -> int:
        """Bitmask of the areas `seat` controls and supplies."""
        return self._game.supply(seat, self.ctrl[seat])

    def victory_points(self) -> list[int]:
        """VP on the areas each seat controls and supplies."""
        vp = self._game.board.area_vp
        return [sum(vp[a] for a in bits(self.supplied(seat))) for seat in (0, 1)]

    def has_bonus(self, token: int, supplied: int) -> bool:
        """True when the area holding `token` is in `supplied` (a supply mask)."""
        area = self.token_area[token]
        return area >= 0 and bool(supplied >> area & 1)

    def commanders_deployed(self, seat: int) -> int:
        """Commanders of `seat` on action spaces."""
        return sum(1 for code in self.occ if code and (code - 1) & 1 == seat) + \
            sum(1 for code in self.occ2 if code and (code - 1) & 1 == seat)

    def _slots_filled(self) -> int:
        return sum(1 for area in self._game.board.bonus_slots if self.bonus_at[area] >= 0)

    # --- cards -------------------------------------------------------------------------------

    def _can_play(self, seat: int, kind: int) -> bool:
        """`seat` holds `kind` and its effect is unused this turn (and in this action)."""
        return bool(self.hands[seat][kind]) and not (self.used[seat] | self.fx) >> kind & 1

    def _public(self, seat: int, kind: int) -> bool:
        """Could `seat` hold and play `kind` now, judging by public facts only (GO-D7, SJ-D4)? True
        whenever `_can_play` is, so asking on it hides whether the card is held."""
        return (not (self.used[seat] | self.fx) >> kind & 1 and self._game.deck_total[kind] > self.discard[kind]
                and any(self.hands[seat]))

    def _spend(self, seat: int, kind: int, effect: bool) -> None:
        """Move a card from `seat`'s hand to the discard pile; mark its effect as resolved."""
        self.hands[seat][kind] -= 1
        self.discard[kind] += 1
        if effect:
            self.used[seat] |= BIT[kind]
            self.fx |= BIT[kind]

    def _continue_draws(self) -> None:
        deck_size = sum(self.deck)
        if self.draws > 0 and deck_size == 0:
            # GO-10, SJ-10: an empty deck is refilled from the discard pile (a multiset: no order).
            self.deck = [a + b for a, b in zip(self.deck, self.discard)]
            self.discard = [0] * len(self.discard)
            deck_size = sum(self.deck)
        if self.draws > 0 and deck_size > 0:
            self.phase = DRAW
        else:
            self.draws = 0
            self._end_action()

    # --- decisions -----------------------------------------------------------------------------

    def _auto(self) -> None:
        """Make forced choices (a single legal option) without asking, unless a card might be
        offered judging by public facts (GO-D7, SJ-D4)."""
        auto = self.AUTO_PHASES
        while True:
            if self.phase not in auto:
                return
            legal = self._legal_decisions()
            if len(legal) != 1 or self._card_may_be_offered():
                self._legal = legal
                return
            self._decide(legal[0])

    def _apply_chance(self, outcome: int) -> None:
        phase = self.phase
        if phase == ROLL:
            self.roll = outcome - self._game.DICE_BASE
            if any(self.hands[self.roller]):
                self.phase = REROLL
            else:
                self._resolve_roll()
        elif phase == DRAW:
            kind = outcome - self._game.CARD_BASE
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
            self._before_first_turn()
            self._begin_turn(self.initiative)

    def _legal_decisions(self) -> list[int]:
        phase = self.phase
        if phase == TURN:
            return self._turn_options()
        if phase == MOVE:
            return self._move_options()
        if phase == PLACE:
            return self._place_options()
        if phase == TARGET:
            return self._target_options()
        if phase == REROLL:
            return self._reroll_options()
        if phase == DEFEND:
            return self._defend_options()
        if phase == WITHDRAW:
            return self._withdraw_options()
        return self._own_phase_options()

    def _decide(self, action: int) -> None:
        """Apply a legal decision: the steps every game shares here, its units' part in hooks."""
        game = self._game
        phase = self.phase
        seat = self.active
        if phase == TURN:
            if action == PASS:
                self._pass(seat)
            elif action < game.PLAY_BASE:  # a commander from the reserve, with Counter Attack or not
                self.cmd_reserve[seat] -= 1
                self._deploy(action, 1 + seat)
            else:
                self._play_at_deploy_step(seat, action - game.PLAY_BASE)
        elif phase == MOVE:
            if action == DONE:
                self._after_move_in()
            elif action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            else:
                self.moved += self._move_units(seat, action)
        elif phase == PLACE:
            if action == DONE:
                self._finish_placement()
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
            else:
                self.left -= self._place_units(seat, action)
                if self.optional > self.left:
                    self.optional = self.left
                self._continue_placement()
        elif phase == WITHDRAW:
            if action == DONE:
                self.withdraw_closed = True
            elif action < game.REROLL_BASE:
                self._play_placement_card(seat, action - game.PLAY_BASE)
                return
            else:
                self._withdraw_units(seat, action)
            self._continue_placement()
        elif phase == TARGET:
            if action < game.REROLL_BASE:
                self._spend(seat, action - game.PLAY_BASE, effect=True)
            else:
                self._choose_target(action - game.TARGET_BASE)
        elif phase == DEFEND:
            if action == DECLINE:
                self._close_window()
            else:
                card = action - game.PLAY_BASE
                self._spend(1 - seat, card, effect=True)
                self._window_card_played(card)
        elif phase == REROLL:
            if action == ACCEPT:
                self._resolve_roll()
            else:
                self._spend(self.roller, action - game.REROLL_BASE, effect=False)
                self.phase = ROLL
        else:
            self._decide_own_phase(action)

    def _target_options(self) -> list[int]:
        """A card that strengthens the action under way, or a target area."""
        game = self._game
        actions = []
        card = self._target_card()
        if card >= 0 and self._can_play(self.active, card):
            actions.append(game.PLAY_BASE + card)
        base = game.TARGET_BASE
        actions.extend(base + a for a in bits(self._targets()))
        return actions

    def _reroll_options(self) -> list[int]:
        """Keep the roll, or spend any card held to roll again."""
        reroll_base = self._game.REROLL_BASE
        hand = self.hands[self.roller]
        return [ACCEPT] + [reroll_base + k for k in range(len(hand)) if hand[k]]

    def _defend_options(self) -> list[int]:
        """Decline, or play a card that answers the open window."""
        play_base = self._game.PLAY_BASE
        defender = 1 - self.active
        return [DECLINE] + [play_base + k for k in self._window_cards() if self._can_play(defender, k)]

    # --- the round ---------------------------------------------------------------------------

    def _begin_turn(self, seat: int) -> None:
        self.active = seat
        self.used = [0, 0]
        self.phase = TURN

    def _pass(self, seat: int) -> None:
        """A pass: final for the round (WWII, GO-14), or one commander to standby (Sengoku, SJ-14)."""
        if self._game.board.final_pass:
            self.passed[seat] = True
        else:
            self.cmd_reserve[seat] -= 1
            self.cmd_standby[seat] += 1
        self._end_turn()

    def _end_turn(self) -> None:
        """The next turn: the opponent's unless it is out of the round; or the end of the round."""
        seat = self.active
        other = 1 - seat
        if self._game.board.final_pass:
            passed = self.passed
            if passed[0] and passed[1]:
                self._end_round()
                return
            self._begin_turn(other if not passed[other] else seat)
        else:
            reserve = self.cmd_reserve
            if not reserve[0] and not reserve[1]:
                self._end_round()
                return
            self._begin_turn(other if reserve[other] else seat)

    def _end_round(self) -> None:
        """Recall the commanders (to standby those deployed from it; with the standby pass rule,
        standby commanders back to the reserve too), advance the round marker, maybe end the game."""
        final_pass = self._game.board.final_pass
        for occ in (self.occ, self.occ2):
            for s, code in enumerate(occ):
                if code:
                    seat, from_standby = (code - 1) & 1, (code - 1) >> 1
                    if from_standby:
                        self.cmd_standby[seat] += 1
                    else:
                        self.cmd_reserve[seat] += 1
                    occ[s] = 0
        if not final_pass:
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
        if final_pass:
            self.passed = [False, False]
        self.support_used = [0, 0]
        self._begin_turn(self.initiative)

    def _finish(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.reason = reason
        self.phase = OVER
        self._clear_action()

    def _deploy(self, action: int, code: int) -> None:
        """Put the active seat's commander (`code`) on the space of a deploy or Counter Attack id
        (as the second commander there) and start the space's action."""
        game = self._game
        seat = self.active
        if action >= game.COUNTER_BASE:
            space = action - game.COUNTER_BASE
            self.occ2[space] = code
            self._spend(seat, game.counter_card, effect=True)
        else:
            space = action - DEPLOY_BASE
            self.occ[space] = code
        kind, link = game.space_action[space], game.space_link[space]
        self.act, self.space, self.link = kind, space, link
        self.fx = 0
        # GO-D4, SJ-4: supply (and so every area bonus) is read at the start of the action.
        self.snap = [self.supplied(0), self.supplied(1)]
        if link < 0:
            self.support_used[seat] |= BIT[kind]
        self._start_action(seat, kind, link)

    def _plan(self, initiative: bool, draws: int) -> None:
        """Plan: take the initiative (on the space with its symbol) and draw cards."""
        if initiative:
            self.initiative = self.active
        self.draws = draws
        self._continue_draws()

    def _start_roll(self, dice: int, roller: int, purpose: int) -> None:
        self.dice = min(dice, MAX_DICE)
        self.roller = roller
        self.purpose = purpose
        self.roll = -1
        self.phase = ROLL

    def _open_window(self, window: int) -> None:
        """The defender's card window; it opens on public facts only (GO-C10, SJ-D4)."""
        self.window = window
        defender = 1 - self.active
        for kind in self._window_cards():
            if self._public(defender, kind):
                self.phase = DEFEND
                return
        self._close_window()

    def _action_over(self) -> bool:
        """After an action (its caps settled): forget it and check the HQs (GO-2, GO-5, SJ-5). False
        when a side has no land units left in its HQ and has lost."""
        self._clear_action()
        hq = self._game.board.hq
        ctrl = self.ctrl  # an HQ (a land area) is in `ctrl` exactly while it holds land units
        for seat in (self.active, 1 - self.active):
            if not ctrl[seat] >> hq[seat] & 1:
                self._finish(1 - seat, REASON_HQ)
                return False
        return True

    def _before_first_turn(self) -> None:
        """Anything the game settles once the setup is done (nothing by default)."""

    # --- the game's part: what each game implements ------------------------------------------

    # Its units: the starting position, control masks, copying, labels of the units ids.
    @abstractmethod
    def place_starting_units(self) -> None: ...
    @abstractmethod
    def _recount_control(self) -> None: ...
    @abstractmethod
    def _clone_into(self, other: Self) -> None: ...
    @abstractmethod
    def _unit_option(self, action: int) -> tuple[int, str, str, str] | None:
        """(n, unit word, where, destination) of a units id (the destination named in the move-in
        step only), None for any other id."""

    # The legal steps: of the shared phases (target and window cards, targets), of its own phases.
    @abstractmethod
    def _card_may_be_offered(self) -> bool: ...
    @abstractmethod
    def _turn_options(self) -> list[int]: ...
    @abstractmethod
    def _move_options(self) -> list[int]: ...
    @abstractmethod
    def _place_options(self) -> list[int]: ...
    @abstractmethod
    def _withdraw_options(self) -> list[int]: ...
    @abstractmethod
    def _target_card(self) -> int: ...
    @abstractmethod
    def _targets(self) -> int: ...
    @abstractmethod
    def _window_cards(self) -> Sequence[int]: ...
    @abstractmethod
    def _own_phase_options(self) -> list[int]: ...

    # The effects: a card played instead of deploying (Blitz), the units of a units id (moved,
    # placed, withdrawn; how many), its actions, windows, rolls and own phases.
    @abstractmethod
    def _play_at_deploy_step(self, seat: int, card: int) -> None: ...
    @abstractmethod
    def _move_units(self, seat: int, action: int) -> int: ...
    @abstractmethod
    def _place_units(self, seat: int, action: int) -> int: ...
    @abstractmethod
    def _withdraw_units(self, seat: int, action: int) -> None: ...
    @abstractmethod
    def _decide_own_phase(self, action: int) -> None: ...
    @abstractmethod
    def _start_action(self, seat: int, kind: int, link: int) -> None: ...
    @abstractmethod
    def _after_move_in(self) -> None: ...
    @abstractmethod
    def _play_placement_card(self, seat: int, card: int) -> None: ...
    @abstractmethod
    def _continue_placement(self) -> None: ...
    @abstractmethod
    def _finish_placement(self) -> None: ...
    @abstractmethod
    def _choose_target(self, area: int) -> None: ...
    @abstractmethod
    def _window_card_played(self, card: int) -> None: ...
    @abstractmethod
    def _close_window(self) -> None: ...
    @abstractmethod
    def _resolve_roll(self) -> None: ...
    @abstractmethod
    def _end_action(self) -> None:
        """Settle the caps, then `_action_over`, then the turn goes on."""

    # The JSON of its units (and per-seat round state) and of the action under way (and its turn
    # state), and what cannot add up in them.
    @abstractmethod
    def _units_json(self) -> JSON: ...
    @abstractmethod
    def _units_from_json(self, data: JSON) -> None: ...
    @abstractmethod
    def _turn_json(self) -> JSON: ...
    @abstractmethod
    def _turn_from_json(self, data: JSON) -> None: ...
    @abstractmethod
    def _unit_problems(self) -> list[str]: ...
    @abstractmethod
    def _phase_problems(self) -> list[str]: ...

    # --- JSON --------------------------------------------------------------------------------

    def _public_json(self) -> JSON:
        game = self._game
        board = game.board
        card_ids = game.card_ids
        outcome = self.outcome()
        data: JSON = {
            "game": game.name,
            "mode": game.mode,
            "phase": self.PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "round": self.round,
            "initiative": self.initiative,
            "active": self.active,
        }
        data.update(self._units_json())
        actions = game.action_names
        data.update({
            "commanders_reserve": list(self.cmd_reserve),
            "commanders_standby": list(self.cmd_standby),
            "spaces": [[self.occ[s], self.occ2[s]] for s in range(game.NS)],
            "support_used": [[actions[k] for k in range(len(actions)) if used >> k & 1] for used in self.support_used],
            "bonuses": {board.area_ids[a]: game.token_names[t] for a, t in enumerate(self.bonus_at) if t >= 0},
            "discard": named_counts(self.discard, card_ids),
            "used_effects": [[card_ids[k] for k in range(len(card_ids)) if used >> k & 1] for used in self.used],
        })
        data.update(self._turn_json())
        data.update({
            "victory_points": self.victory_points(),
            "winner": self.winner,
            "reason": self.reason,
            "outcome": outcome.to_json() if outcome else None,
        })
        return data

    def effects_json(self) -> list[str]:
        """The card effects resolved in the action under way, by card id."""
        card_ids = self._game.card_ids
        return [card_ids[k] for k in range(len(card_ids)) if self.fx >> k & 1]

    def to_json(self) -> JSON:
        card_ids = self._game.card_ids
        data = self._public_json()
        data["hands"] = [named_counts(hand, card_ids) for hand in self.hands]
        data["deck"] = named_counts(self.deck, card_ids)
        return data

    def observation(self, seat: int) -> JSON:
        if seat not in (0, 1):
            raise ValueError(f"seat {seat} is not a seat of {self._game.short_title} (0 or 1)")
        data = self._public_json()
        data["seat"] = seat
        data["hand"] = named_counts(self.hands[seat], self._game.card_ids)
        data["hand_sizes"] = [sum(hand) for hand in self.hands]
        data["deck_size"] = sum(self.deck)
        return data

    @classmethod
    def from_json(cls, game: GameT, data: JSON) -> Self:
        """Rebuild a state from `to_json()` output, checking that it is self-consistent."""
        board = game.board
        card_ids = game.card_ids
        try:
            if data.get("mode", game.mode) != game.mode:
                raise ValueError(f"mode {data.get('mode')!r} is not {game.mode!r}")
            state = cls(game)
            state.phase = cls.PHASE_NAMES.index(data["phase"])
            state.round = int(data["round"])
            state.initiative = int(data["initiative"])
            state.active = int(data["active"])
            state._units_from_json(data)
            state.cmd_reserve = [int(n) for n in data["commanders_reserve"]]
            state.cmd_standby = [int(n) for n in data["commanders_standby"]]
            spaces = data["spaces"]
            if len(spaces) != game.NS:
                raise ValueError(f"{game.NS} action spaces expected")
            state.occ = [int(pair[0]) for pair in spaces]
            state.occ2 = [int(pair[1]) for pair in spaces]
            state.support_used = [sum(BIT[game.action_names.index(k)] for k in used) for used in data["support_used"]]
            bonus_at = [-1] * game.NA
            for area, token in data["bonuses"].items():
                bonus_at[board.area_ids.index(area)] = game.token_names.index(token)
            state.bonus_at = bonus_at
            state.discard = counts_of(data["discard"], card_ids)
            state.hands = [counts_of(hand, card_ids) for hand in data["hands"]]
            state.deck = counts_of(data["deck"], card_ids)
            state.used = [sum(BIT[card_ids.index(k)] for k in used) for used in data["used_effects"]]
            state._turn_from_json(data)
            state.winner = int(data["winner"])
            state.reason = str(data["reason"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise StateFormatError(f"not a {game.short_title} state: {error!r}") from None
        state.refresh_control()
        state.validate()
        return state

    def _roll_json(self) -> JSON:
        """The open window, the roll under way and the draws left, for the action's JSON."""
        return {"window": self.WINDOWS[self.window], "dice": self.dice, "roller": self.roller, "roll": self.roll,
                "roll_for": self.PURPOSES[self.purpose], "draws": self.draws}

    def _roll_from_json(self, action: JSON) -> None:
        self.window = self.WINDOWS.index(action["window"])
        self.dice = int(action["dice"])
        self.roller = int(action["roller"])
        self.roll = int(action["roll"])
        self.purpose = self.PURPOSES.index(action["roll_for"])
        self.draws = int(action["draws"])

    def effects_from_json(self, names: Any) -> int:
        """The bitmask of card effects named in a JSON list."""
        return sum(BIT[self._game.card_ids.index(k)] for k in names)

    def validate(self) -> None:
        """Raise StateFormatError unless units, commanders and cards all add up."""
        game = self._game
        board = game.board
        problems = self._unit_problems()
        if len(self.occ) != game.NS or any(c not in self.COMMANDER_CODES for c in self.occ + self.occ2):
            problems.append("bad commander codes on the action spaces")
        for kind in range(len(game.card_ids)):
            held = self.deck[kind] + self.discard[kind] + self.hands[0][kind] + self.hands[1][kind]
            if held != board.deck[kind] or min(self.deck[kind], self.discard[kind], self.hands[0][kind],
                                               self.hands[1][kind]) < 0:
                problems.append(f"the {game.card_ids[kind]} cards do not add up to {board.deck[kind]}")
        placed = [t for t in self.bonus_at if t >= 0]
        if len(set(placed)) != len(placed) or any(t not in board.bonus_pool for t in placed):
            problems.append("bad area-bonus tokens")
        if self.phase not in (SETUP_BONUS, SETUP_INITIATIVE) and self.initiative not in (0, 1):
            problems.append("nobody has the initiative")
        # The checks below are each for one phase, so their order in the message is immaterial.
        if self.phase in (ROLL, REROLL) and (self.roller not in (0, 1) or not 0 <= self.dice <= MAX_DICE):
            problems.append("a roll needs a roller and a number of dice")
        if self.phase == REROLL and self.roll < 0:
            problems.append("a re-roll decision needs a roll")
        if self.phase == DRAW and (self.draws <= 0 or not sum(self.deck)):
            problems.append("a draw needs cards to draw")
        if self.phase == OVER and self.winner not in (0, 1):
            problems.append("a finished game needs a winner")
        problems += self._phase_problems()
        if problems:
            raise StateFormatError(f"inconsistent {game.short_title} state: " + "; ".join(problems))

    # --- display -----------------------------------------------------------------------------

    def _text_title(self) -> str:
        """The first line of `board_text`: board, round and initiative."""
        game = self._game
        board = game.board
        t = game.term
        holder = t(game.factions[self.initiative]) if self.initiative >= 0 else "-"
        return f"{board.title[game.lang]} - {t('round')} {self.round}/{board.rounds} - {t('initiative')}: {holder}"

    def _text_cards(self) -> str:
        """The last line of `board_text`: the deck's size and the discard pile."""
        game = self._game
        t = game.term
        discard = ", ".join(f"{game.card_name(k)} x{n}" for k, n in enumerate(self.discard) if n)
        return f"  {t('deck')} {sum(self.deck)}; {t('discard')}: {discard or '-'}"

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self._game.mode} {self.PHASE_NAMES[self.phase]} round {self.round} "
                f"active {self.active}>")

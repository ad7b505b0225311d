"""The core of every General Orders game: the ids and phases both games share, a mode's data
(`FamilyGame`) and the fields of a position that both games have (`Core`).

Each game's rules.py owns its turn: its Game and State subclass these two, and its State's
`apply_action`, legal decisions and chance read top-down, phase by phase, in its rulebook's order.
What the two games share is a library of plain functions over `Core` that the games call and that
never call back into a game: commanders.py (deploying, passing, the turn and the round, the HQ
check), cards.py (the hand, the deck, Plan's draws, card windows judged on public facts), dice.py
(a roll as one chance node, re-rolls), setup.py (the bonus tokens and the initiative),
state_json.py (the JSON frame, observations, determinize, what must add up) and supply.py (the
searches behind supply). Nothing here calls a method a game defines.

A round: commanders are deployed one per turn, alternately from the initiative holder; a deployment
starts the action of its space, a compound move of atomic steps ending in "done"; when nobody may
deploy any more, the commanders are recalled and the round marker advances. The game ends at once
when a side's HQ holds no land units, otherwise after the last round on the VP of the areas each
side controls and supplies, ties to the initiative holder.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

from arena.games.base import CHANCE, Game, GameInfo, IllegalActionError, Outcome, State
from arena.games.general_orders.masks import BIT, bits, names_in
from arena.games.general_orders.loader import FamilyBoard
from arena.games.general_orders.supply import remember_reach

NUM_SEATS = 2

# Fixed decision ids.
PASS, DONE, DECLINE, ACCEPT = 0, 1, 2, 3
DEPLOY_BASE = 4
_FIXED_TERMS = ("pass", "done", "decline", "accept")  # the term of each fixed decision id, by id
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
    """One mode of a General Orders game: the board, the shared action ids, words and labels, and
    memoised supply. A game's subclass names its data, lays out its own ids and makes its states."""

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
    space_names: tuple[str, ...]  # each action space's name in this game's language (set by the game)
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
        # A step's label, by what it depends on (`remember_label`): a match labels every step it plays.
        self.labels: dict[tuple[int, ...], str] = {}

    def remember_label(self, key: tuple[int, ...], label: str) -> str:
        """Keep `label` under `key` (what it depends on, as a game's action_to_string keys it) and return it;
        the memo is emptied when it grows past 100,000 labels."""
        if len(self.labels) > 100_000:
            self.labels.clear()
        self.labels[key] = label
        return label

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

    def space_name(self, space: int) -> str:
        """An action space: its action and linked area (or zone), or its support value."""
        return self.space_names[space]

    def seat_name(self, seat: int) -> str:
        """A seat's faction in this game's language."""
        return self.term(self.factions[seat])

    # --- labels ------------------------------------------------------------------------------

    def family_label(self, action: int) -> str | None:
        """The label of a decision id every game has (pass ... target an area); None for one of the
        game's own ids. IllegalActionError outside the action space."""
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action {action} is outside the action space 0..{self.num_actions - 1}")
        t = self.term
        if action < DEPLOY_BASE:
            return t(_FIXED_TERMS[action])
        if action < self.COUNTER_BASE:
            return f"{t('deploy')} {self.space_names[action - DEPLOY_BASE]}"
        if action < self.PLAY_BASE:
            return f"{t('counter')} {self.space_names[action - self.COUNTER_BASE]}"
        if action < self.REROLL_BASE:
            return f"{t('play')} {self.card_name(action - self.PLAY_BASE)}"
        if action < self.TARGET_BASE:
            return f"{t('reroll')}: {self.card_name(action - self.REROLL_BASE)}"
        if action < self.TARGET_BASE + self.NA:
            return f"{t('target')} {self.area_name(action - self.TARGET_BASE)}"
        return None

    def chance_label(self, outcome: int) -> str:
        if not 0 <= outcome < self.NUM_CHANCE_OUTCOMES:
            raise IllegalActionError(f"chance outcome {outcome} is outside 0..{self.NUM_CHANCE_OUTCOMES - 1}")
        if outcome < TOKEN_BASE:
            return f"{self.seat_name(outcome)} {self.term('has_initiative')}"
        if outcome < self.CARD_BASE:
            return f"{self.term('bonus_token')}: {self.bonus_name(outcome - TOKEN_BASE)}"
        if outcome < self.DICE_BASE:
            return f"{self.term('draws')} {self.card_name(outcome - self.CARD_BASE)}"
        return f"{outcome - self.DICE_BASE} {self.term('pips')}"

    def unit_step_label(self, phase: int, n: int, units: str, where: str, destination: str) -> str | None:
        """What a units id does at this step (move in, place, withdraw), or None in another phase."""
        t = self.term
        if phase == MOVE:
            return f"{t('move')} {n} {units} {t('from')} {where} -> {destination}"
        if phase == PLACE:
            return f"{t('place')} {n} {units} {t('into')} {where}"
        if phase == WITHDRAW:
            return f"{t('withdraw')}: {n} {units} {t('from')} {where}"
        return None

    # --- supply ------------------------------------------------------------------------------

    def supply(self, seat: int, control: int) -> int:
        """Areas supplied by `seat` when it controls the areas in `control` (memoised): those
        connected to its HQ through `control`."""
        supplied = self.supply_cache[seat].get(control)
        if supplied is None:
            supplied = remember_reach(self.supply_cache[seat], self.board.area_adj, self.board.hq[seat], control)
        return supplied

    land_supply = supply  # the name the WWII game and the family's tools use


class Core(State):
    """The fields of a General Orders position that both games have, and the facts derived from
    them. A game's State adds its units and its own steps; the family's functions read and write
    these fields only."""

    __slots__ = (
        "_game", "phase", "round", "initiative", "active", "passed", "troops", "res_troops", "ctrl",
        "cmd_reserve", "cmd_standby", "occ", "occ2", "support_used", "hands", "deck", "discard", "bonus_at",
        "token_area", "used",
        # the action under way
        "act", "space", "link", "target", "moved", "left", "optional", "withdraw_closed", "fx", "snap",
        "window", "dice", "roller", "roll", "purpose", "draws",
        "winner", "reason", "_legal",
    )

    # The game's tables (class attributes of a game's State).
    PHASE_NAMES: ClassVar[tuple[str, ...]]
    COMMANDER_CODES: ClassVar[frozenset[int]]  # valid values of `occ` / `occ2`
    WINDOWS: ClassVar[tuple[str, ...]]  # names of the card windows
    PURPOSES: ClassVar[tuple[str, ...]]  # names of what a roll is for

    _game: FamilyGame
    # The action under way (set by `clear_action` and the steps of an action).
    act: int  # its action kind, -1 between actions
    space: int  # the space deployed to
    link: int  # the space's linked area (or zone), -1 for a support action
    target: int
    moved: int  # units moved in so far
    left: int  # units still to place
    optional: int  # of which may be left unplaced
    withdraw_closed: bool
    fx: int  # card effects resolved in this action (bitmask of card kinds)
    snap: list[int]  # supply at the start of the action, per seat
    window: int  # the card window open
    dice: int
    roller: int
    roll: int
    purpose: int  # what the roll under way is for
    draws: int  # cards still to draw

    def __init__(self, game: FamilyGame) -> None:
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
        clear_action(self)
        self.winner = -1
        self.reason = ""
        self._legal: list[int] | None = None

    def copy_core_into(self, o: Core) -> None:
        """Copy the shared fields into `o` (a new state of the same class): the first half of a clone."""
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

    @property
    def game(self) -> FamilyGame:
        return self._game

    # --- derived facts -----------------------------------------------------------------------

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

    def holds_space(self, seat: int, space: int) -> bool:
        """True when one of `seat`'s commanders stands on `space`."""
        code, code2 = self.occ[space], self.occ2[space]
        return bool(code and (code - 1) & 1 == seat) or bool(code2 and (code2 - 1) & 1 == seat)

    def outcome(self) -> Outcome | None:
        if self.phase != OVER:
            return None
        ranking = (0, 1) if self.winner == 0 else (1, 0)
        return Outcome(ranking, self.reason, tuple(float(v) for v in self.victory_points()))

    def effects_json(self) -> list[str]:
        """The card effects resolved in the action under way, by card id."""
        card_ids = self._game.card_ids
        return names_in(card_ids, self.fx)

    def title_line(self) -> str:
        """The first line of a game's `board_text`: board, round and initiative."""
        game = self._game
        board = game.board
        t = game.term
        holder = game.seat_name(self.initiative) if self.initiative >= 0 else "-"
        return f"{board.title[game.lang]} - {t('round')} {self.round}/{board.rounds} - {t('initiative')}: {holder}"

    def cards_line(self) -> str:
        """The last line of a game's `board_text`: the deck's size and the discard pile."""
        game = self._game
        t = game.term
        discard = ", ".join(f"{game.card_name(k)} x{n}" for k, n in enumerate(self.discard) if n)
        return f"  {t('deck')} {sum(self.deck)}; {t('discard')}: {discard or '-'}"

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self._game.mode} {self.PHASE_NAMES[self.phase]} round {self.round} "
                f"active {self.active}>")


def clear_action(core: Core) -> None:
    """Forget the shared fields of the action under way (a game clears its own beside them)."""
    core.act = -1
    core.space = -1
    core.link = -1
    core.target = -1
    core.moved = 0
    core.left = 0
    core.optional = 0
    core.withdraw_closed = False
    core.fx = 0
    core.snap = [0, 0]
    core.window = NO_WINDOW
    core.dice = 0
    core.roller = -1
    core.roll = -1
    core.purpose = NO_ROLL
    core.draws = 0


def rejection(core: Core, action: int, label: str, player: int, options: Sequence[str]) -> IllegalActionError:
    """The error for an illegal `action` (labelled `label`): at a chance node, that it is not a
    possible outcome; at a decision, what `player` may choose instead (`options`, labelled)."""
    phase = core.PHASE_NAMES[core.phase]
    if player == CHANCE:
        why = f"it is not a possible chance outcome in phase {phase}"
    else:
        shown = "; ".join(options[:12]) + ("; ..." if len(options) > 12 else "")
        why = f"in phase {phase} {core._game.seat_name(player)} may only choose: {shown}"
    return IllegalActionError(f"action {action} ({label}) is illegal: {why}")


def place_tokens(core: Core) -> None:
    """Recompute where each area-bonus token lies (after the bonuses change or a position is built)."""
    token_area = [-1] * len(core._game.token_names)
    for area, token in enumerate(core.bonus_at):
        if token >= 0:
            token_area[token] = area
    core.token_area = token_area
    core._legal = None


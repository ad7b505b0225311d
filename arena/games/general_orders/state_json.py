"""The JSON of a General Orders position, for both games: the frame around a game's own units and
action (`public_json`, `read_head` ... `read_tail`), the full state and a seat's observation,
determinize's deal of the unseen cards, and the shared checks of what must add up.

Plain functions over a position's `Core`; none calls back into a game: a game computes its own
parts and hands them over, or reads its own fields between the frame's steps. The one exception is
`refuse_dead_end`, which asks a read position for its moves through the State interface."""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence, TypeVar

from arena.games.base import CHANCE, JSON, StateFormatError
from arena.games.general_orders.cards import counts_of, named_counts, sample_hidden_cards
from arena.games.general_orders.core import (DEFEND, DRAW, MOVE, OVER, REROLL, ROLL, SETUP_BONUS, SETUP_INITIATIVE,
    Core, FamilyGame)
from arena.games.general_orders.dice import MAX_DICE
from arena.games.general_orders.masks import BIT, names_in

T = TypeVar("T")

# --- writing ------------------------------------------------------------------------------------


def public_json(core: Core, current_player: int, units: JSON, action: JSON) -> JSON:
    """What anyone may see: the frame every game has around its `units` and its `action` under way."""
    game = core._game
    board = game.board
    card_ids = game.card_ids
    outcome = core.outcome()
    data: JSON = {
        "game": game.name,
        "mode": game.mode,
        "phase": core.PHASE_NAMES[core.phase],
        "current_player": current_player,
        "round": core.round,
        "initiative": core.initiative,
        "active": core.active,
    }
    data.update(units)
    actions = game.action_names
    data.update({
        "commanders_reserve": list(core.cmd_reserve),
        "commanders_standby": list(core.cmd_standby),
        "spaces": [[core.occ[s], core.occ2[s]] for s in range(game.NS)],
        "support_used": [names_in(actions, used) for used in core.support_used],
        "bonuses": {board.area_ids[a]: game.token_names[t] for a, t in enumerate(core.bonus_at) if t >= 0},
        "discard": named_counts(core.discard, card_ids),
        "used_effects": [names_in(card_ids, used) for used in core.used],
    })
    data.update(action)
    data.update({
        "victory_points": core.victory_points(),
        "winner": core.winner,
        "reason": core.reason,
        "outcome": outcome.to_json() if outcome else None,
    })
    return data


def full_json(core: Core, public: JSON) -> JSON:
    """The whole state: the public part, both hands and the deck."""
    card_ids = core._game.card_ids
    public["hands"] = [named_counts(hand, card_ids) for hand in core.hands]
    public["deck"] = named_counts(core.deck, card_ids)
    return public


def observation_json(core: Core, seat: int, public: JSON) -> JSON:
    """All `seat` may know: the public part, its own hand, the sizes of both hands and the deck."""
    if seat not in (0, 1):
        raise ValueError(f"seat {seat} is not a seat of {core._game.short_title} (0 or 1)")
    public["seat"] = seat
    public["hand"] = named_counts(core.hands[seat], core._game.card_ids)
    public["hand_sizes"] = [sum(hand) for hand in core.hands]
    public["deck_size"] = sum(core.deck)
    return public


def roll_json(core: Core) -> JSON:
    """The open window, the roll under way and the draws left, for the action's JSON."""
    return {"window": core.WINDOWS[core.window], "dice": core.dice, "roller": core.roller, "roll": core.roll,
            "roll_for": core.PURPOSES[core.purpose], "draws": core.draws}


# --- reading ------------------------------------------------------------------------------------
# A game's from_json reads in this order: read_head, its units, read_shared, its action, read_tail;
# a KeyError, TypeError, ValueError, IndexError or AttributeError on the way is a bad state.

READ_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def one_a_side(data: JSON, key: str, read: Callable[[Any], T]) -> list[T]:
    """`data[key]`, a list of one value a side, each read by `read`; ValueError for a list of another length."""
    values = data[key]
    if len(values) != 2:
        raise ValueError(f"{key} must hold one value a side, not {len(values)}")
    return [read(value) for value in values]


def mask_of(names: Any, ids: Sequence[str]) -> int:
    """The bitmask of a list of `ids` names; ValueError for a name listed twice (or not one of them)."""
    mask = 0
    for name in names:
        bit = BIT[ids.index(name)]
        if mask & bit:
            raise ValueError(f"{name!r} is listed twice")
        mask |= bit
    return mask


def read_head(core: Core, data: JSON) -> None:
    """The mode (when given, it must be the game's), the phase, the round and who is to play."""
    game = core._game
    if data.get("mode", game.mode) != game.mode:
        raise ValueError(f"mode {data.get('mode')!r} is not {game.mode!r}")
    core.phase = core.PHASE_NAMES.index(data["phase"])
    core.round = int(data["round"])
    core.initiative = int(data["initiative"])
    core.active = int(data["active"])
    if core.active not in (-1, 0, 1):
        raise ValueError(f"active {core.active} is not a seat (0 or 1) or nobody (-1)")


def read_shared(core: Core, data: JSON) -> None:
    """The commanders, the spaces, the support used, the bonuses and the cards."""
    game = core._game
    board = game.board
    core.cmd_reserve = one_a_side(data, "commanders_reserve", int)
    core.cmd_standby = one_a_side(data, "commanders_standby", int)
    spaces = data["spaces"]
    if len(spaces) != game.NS:
        raise ValueError(f"{game.NS} action spaces expected")
    core.occ = [int(pair[0]) for pair in spaces]
    core.occ2 = [int(pair[1]) for pair in spaces]
    core.support_used = one_a_side(data, "support_used", lambda used: mask_of(used, game.action_names))
    bonus_at = [-1] * game.NA
    for area, token in data["bonuses"].items():
        bonus_at[board.area_ids.index(area)] = game.token_names.index(token)
    core.bonus_at = bonus_at
    _read_cards(core, data)


def _read_cards(core: Core, data: JSON) -> None:
    """The discard pile, the hands, the deck and the card effects used."""
    card_ids = core._game.card_ids
    core.discard = counts_of(data["discard"], card_ids)
    core.hands = one_a_side(data, "hands", lambda hand: counts_of(hand, card_ids))
    core.deck = counts_of(data["deck"], card_ids)
    core.used = one_a_side(data, "used_effects", lambda used: mask_of(used, card_ids))


def read_roll(core: Core, action: JSON) -> None:
    """The open window, the roll under way and the draws left, from the action's JSON."""
    core.window = core.WINDOWS.index(action["window"])
    core.dice = int(action["dice"])
    core.roller = int(action["roller"])
    core.roll = int(action["roll"])
    core.purpose = core.PURPOSES.index(action["roll_for"])
    core.draws = int(action["draws"])


def read_effects(core: Core, names: Any) -> int:
    """The bitmask of card effects named in a JSON list."""
    return mask_of(names, core._game.card_ids)


def read_tail(core: Core, data: JSON) -> None:
    """Who won and why (once the game is over)."""
    core.winner = int(data["winner"])
    core.reason = str(data["reason"])


def bad_state(game: FamilyGame, error: Exception) -> StateFormatError:
    """The error for a JSON state that could not be read."""
    return StateFormatError(f"not a {game.short_title} state: {error!r}")


def inconsistent(game: FamilyGame, problems: list[str]) -> StateFormatError:
    """The error for a state whose parts do not add up."""
    return StateFormatError(f"inconsistent {game.short_title} state: " + "; ".join(problems))


# --- what must add up ---------------------------------------------------------------------------

def shared_problems(core: Core) -> list[str]:
    """What does not add up in the shared fields: commanders, cards, tokens, the initiative, the active player,
    the step under way and the action's areas (each check is for one phase, so their order in the message is
    immaterial)."""
    game = core._game
    problems = []
    if len(core.occ) != game.NS or any(c not in core.COMMANDER_CODES for c in core.occ + core.occ2):
        problems.append("bad commander codes on the action spaces")
    problems += _card_problems(core) + _bonus_problems(core)
    if core.phase not in (SETUP_BONUS, SETUP_INITIATIVE) and core.initiative not in (0, 1):
        problems.append("nobody has the initiative")
    if core.phase not in (SETUP_BONUS, SETUP_INITIATIVE, OVER) and core.active not in (0, 1):
        problems.append("a position in play needs an active player")
    return problems + _step_problems(core) + _area_index_problems(core)


def _area_index_problems(core: Core) -> list[str]:
    """The action's link and target are areas (or zones) of the board, or none (-1); a defence or a roll under way
    has its target (every roll of both games is against an area), a move the area it moves into."""
    problems = []
    na = core._game.NA
    if not (-1 <= core.link < na and -1 <= core.target < na):
        problems.append("the action's link or target is not an area of the board")
    if core.phase in (DEFEND, ROLL, REROLL) and core.target < 0:
        problems.append("a defence or a roll under way needs its target area")
    if core.phase == MOVE and core.link < 0:
        problems.append("a move under way needs the area it moves into")
    return problems


def _bonus_problems(core: Core) -> list[str]:
    """Each area-bonus token placed once at most, and only tokens of the board's pool."""
    placed = [t for t in core.bonus_at if t >= 0]
    if len(set(placed)) != len(placed) or any(t not in core._game.board.bonus_pool for t in placed):
        return ["bad area-bonus tokens"]
    return []


def _card_problems(core: Core) -> list[str]:
    """Each card kind adds up to the mode's deck, nowhere negative."""
    game = core._game
    problems = []
    for kind in range(len(game.card_ids)):
        counts = (core.deck[kind], core.discard[kind], core.hands[0][kind], core.hands[1][kind])
        if sum(counts) != game.board.deck[kind] or min(counts) < 0:
            problems.append(f"the {game.card_ids[kind]} cards do not add up to {game.board.deck[kind]}")
    return problems


def _step_problems(core: Core) -> list[str]:
    """The roll, re-roll, draw or ending under way has what it needs."""
    problems = _roll_problems(core)
    if core.phase == DRAW and (core.draws <= 0 or not sum(core.deck)):
        problems.append("a draw needs cards to draw")
    if core.phase == OVER and core.winner not in (0, 1):
        problems.append("a finished game needs a winner")
    return problems


def _roll_problems(core: Core) -> list[str]:
    """The roll or re-roll under way has a roller, a number of dice and, to re-roll, a roll."""
    problems = []
    if core.phase in (ROLL, REROLL) and (core.roller not in (0, 1) or not 0 <= core.dice <= MAX_DICE):
        problems.append("a roll needs a roller and a number of dice")
    if core.phase == REROLL and core.roll < 0:
        problems.append("a re-roll decision needs a roll")
    return problems


def refuse_dead_end(core: Core) -> None:
    """Raise StateFormatError for a read position still in play that offers no move (or chance outcome), or
    whose moves cannot be worked out. Asked through the State interface: a decision's moves are kept."""
    if core.is_terminal():
        return
    try:
        moves = core.chance_outcomes() if core.current_player() == CHANCE else core.legal_actions()
    except READ_ERRORS as error:
        raise inconsistent(core._game, [f"its moves cannot be worked out ({type(error).__name__}: {error})"]) from None
    if not moves:
        raise inconsistent(core._game, ["a position in play with no move (or chance outcome) to take"])


# --- determinize --------------------------------------------------------------------------------

def determinized_json(game: FamilyGame, observation: JSON, rng: random.Random) -> JSON:
    """A full state's JSON from a seat's observation: the opponent's hand and the deck sampled from
    the cards the seat has not seen (deck total - discard - own hand)."""
    ids = game.card_ids
    try:
        seat = int(observation["seat"])
        if seat not in (0, 1):
            raise ValueError("seat must be 0 or 1")
        own = counts_of(observation["hand"], ids)
        discard = counts_of(observation["discard"], ids)
        sizes = [int(n) for n in observation["hand_sizes"]]
        if sum(own) != sizes[seat]:
            raise ValueError("the hand does not match its size")
        other, deck = sample_hidden_cards(game.deck_total, own, discard, sizes[1 - seat],
                                          int(observation["deck_size"]), rng, ids)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise StateFormatError(f"not a {game.short_title} observation: {error}") from None
    data = {key: value for key, value in observation.items()
            if key not in ("seat", "hand", "hand_sizes", "deck_size")}
    hands = [own, other] if seat == 0 else [other, own]
    data["hands"] = [named_counts(h, ids) for h in hands]
    data["deck"] = named_counts(deck, ids)
    return data

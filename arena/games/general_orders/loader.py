"""Reading and checking the General Orders data files, for both games of the family: the one board
compiler's steps.

A game's board format is data (`BoardFormat`: its rule flags, factions, languages, action kinds,
which of them may be linked to which kind of place, and its support board); each game's board.py
compiles its files as a short sequence of these small steps, adding a step of its own only for
what it alone has (WWII's air zones, Sengoku's ports and fortifications). Here: the fields every
board has (FamilyBoard), the JSON reader, names per language, the rule flags, area ids and
symmetric, connected adjacency, HQs, bonus slots, linked and support spaces, the starting units
against the totals and caps, the area-bonus token pool, the 24-card deck of a mode, the mirror, and
the terms file. Every check raises BoardError with the file and the place that breaks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Mapping, Sequence, TypeVar

from arena.games.general_orders.masks import bits
from arena.games.general_orders.supply import reach

DECK_SIZE = 24  # the operation cards of one mode


class BoardError(ValueError):
    """A board or card file breaks a rule the engine relies on."""


@dataclass(frozen=True)
class BoardFormat:
    """A game's board files as data: what the compile steps check them against."""

    game: str  # the game's name in messages ("WWII", "Sengoku")
    pass_rule: str  # the rule flags the game implements
    hq_loss: str
    langs: tuple[str, ...]
    factions: tuple[str, ...]
    actions: tuple[str, ...]  # every action kind, by index
    support: tuple[int, ...]  # the action kinds of the support board
    initiative: int  # the support action kind whose space may carry the initiative symbol


@dataclass(frozen=True)
class FamilyBoard:
    """What every compiled board has: indices, bitmasks and tuples for the engine."""

    mode: str
    title: dict[str, str]
    reconstruction: bool
    assumptions: tuple[str, ...]
    rounds: int
    final_pass: bool  # rules.pass: "final" for the round (WWII, GO-14), or "standby" (Sengoku, SJ-14)
    troops: int
    land_cap: int
    area_ids: tuple[str, ...]
    area_adj: tuple[int, ...]  # bitmask of adjacent areas, per area
    area_vp: tuple[int, ...]
    hq: tuple[int, int]  # HQ area per seat
    start_troops: tuple[tuple[int, ...], tuple[int, ...]]
    bonus_slots: tuple[int, ...]  # areas with an area-bonus slot, in file order
    bonus_pool: tuple[int, ...]
    spaces: tuple[Any, ...]  # the game's action spaces, by index
    deck: tuple[int, ...]  # copies per card kind in this mode's 24-card deck
    mirror: tuple[int, ...]  # per area: its twin across the board's symmetry, or () when none

    @property
    def num_areas(self) -> int:
        """Number of areas (land areas in WWII; land and water areas in Sengoku Jidai)."""
        return len(self.area_ids)


def read_json(package: str, name: str) -> dict[str, Any]:
    """A data file of a game's package (`arena.games.general_orders.wwii`...), parsed."""
    return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))


def check_names(where: str, names: Any, langs: Sequence[str]) -> dict[str, str]:
    """{lang: text} for every language of the game."""
    if not isinstance(names, dict) or any(not isinstance(names.get(lang), str) for lang in langs):
        raise BoardError(f"{where}: needs names in {', '.join(langs)}")
    return {lang: names[lang] for lang in langs}


def load_terms(package: str, name: str, langs: Sequence[str]) -> dict[str, dict[str, str]]:
    """Names of actions, bonuses and terms per language, from a terms file."""
    terms = read_json(package, name)["terms"]
    return {key: check_names(f"{name} {key}", value, langs) for key, value in terms.items()}


def check_when(name: str, card_id: str, when: str) -> None:
    """A card is played on its owner's turn or on the opponent's."""
    if when not in ("own", "opponent"):
        raise BoardError(f"{name} {card_id}: 'when' is own or opponent")


def check_card_ids(name: str, found: Sequence[str], ids: Sequence[str]) -> None:
    """The card kinds come in the order the engine numbers them."""
    if tuple(found) != tuple(ids):
        raise BoardError(f"{name}: card ids must be, in order: " + ", ".join(ids))


BoardT = TypeVar("BoardT")
CardsT = TypeVar("CardsT")


def load_board(package: str, mode: str, compile_board: Callable[[dict[str, Any], CardsT], BoardT],
               cards: CardsT) -> BoardT:
    """Read the game package's boards/<mode>.json and compile it with the game's compiler."""
    try:
        raw = read_json(package, f"boards/{mode}.json")
    except FileNotFoundError:
        raise BoardError(f"no board file for mode {mode!r}") from None
    try:
        return compile_board(raw, cards)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, BoardError):
            raise
        raise BoardError(f"boards/{mode}.json: {error!r}") from None


def rule_flags(where: str, rules: dict[str, Any], game: str, pass_rule: str, hq_loss: str) -> bool:
    """Check the board's rule flags against the rules the game implements; True for a final pass."""
    if rules.get("pass") != pass_rule or rules.get("hq_loss") != hq_loss:
        raise BoardError(f"{where}: this engine implements the {game} pass ({pass_rule!r}) and HQ ({hq_loss!r}) rules")
    return pass_rule == "final"


def area_ids(where: str, areas: Sequence[dict[str, Any]]) -> list[str]:
    """The areas' ids: present and distinct."""
    ids = [a["id"] for a in areas]
    if not ids or len(set(ids)) != len(ids):
        raise BoardError(f"{where}: area ids must be distinct and present")
    return ids


def connected(adj: Sequence[int]) -> bool:
    """True when every node reaches every other (an empty map is connected)."""
    everything = (1 << len(adj)) - 1
    return not adj or reach(adj, 0, everything) == everything


def adjacency(where: str, ids: Sequence[str], items: Sequence[dict[str, Any]]) -> tuple[int, ...]:
    """Bitmasks of neighbours from each item's "adjacent" ids: known, not itself, symmetric, connected."""
    index = {name: i for i, name in enumerate(ids)}
    adj = [0] * len(ids)
    for i, item in enumerate(items):
        for other in item["adjacent"]:
            if other not in index:
                raise BoardError(f"{where} {ids[i]}: unknown neighbour {other!r}")
            if other == ids[i]:
                raise BoardError(f"{where} {ids[i]}: adjacent to itself")
            adj[i] |= 1 << index[other]
    for i in range(len(ids)):
        for j in bits(adj[i]):
            if not adj[j] >> i & 1:
                raise BoardError(f"{where}: adjacency is not symmetric ({ids[i]} -> {ids[j]})")
    if not connected(adj):
        raise BoardError(f"{where}: the map is not connected")
    return tuple(adj)


def bonus_pool(where: str, raw: dict[str, Any], tokens: Sequence[str], slots: Sequence[int]) -> tuple[int, ...]:
    """The area-bonus tokens of the mode: distinct, at least as many as the slots."""
    pool = tuple(tokens.index(token) for token in raw["bonus_pool"])
    if len(set(pool)) != len(pool) or len(slots) > len(pool):
        raise BoardError(f"{where}: distinct bonus tokens, at least as many as slots")
    return pool


def mode_deck(where: str, mode: str, deck: tuple[int, ...]) -> tuple[int, ...]:
    """Copies per card kind in the mode's deck, which holds 24 cards."""
    if sum(deck) != DECK_SIZE:
        raise BoardError(f"{where}: the {mode} operation deck holds {DECK_SIZE} cards, found {sum(deck)}")
    return deck


def mirror(where: str, raw: dict[str, Any], ids: Sequence[str]) -> tuple[int, ...]:
    """Per area its twin across the board's symmetry ("mirror": pairs of ids), or () without one."""
    if not raw.get("mirror"):
        return ()
    index = {name: i for i, name in enumerate(ids)}
    pairs = [-1] * len(ids)
    for a, b in raw["mirror"].items():
        pairs[index[a]] = index[b]
        pairs[index[b]] = index[a]
    if -1 in pairs:
        raise BoardError(f"{where}: the mirror must pair every area")
    return tuple(pairs)


def board_basics(raw: dict[str, Any], where: str, langs: Sequence[str]) -> dict[str, Any]:
    """The fields of the file's head: mode, title, reconstruction, assumptions, rounds."""
    return {
        "mode": raw["mode"],
        "title": check_names(f"{where} title", raw["title"], langs),
        "reconstruction": bool(raw.get("reconstruction", False)),
        "assumptions": tuple(raw.get("assumptions", ())),
        "rounds": int(raw["rules"]["rounds"]),
    }


# --- compile steps both games take ------------------------------------------------------------


def board_head(raw: dict[str, Any], board_format: BoardFormat) -> tuple[str, bool]:
    """Where the file is (for messages), and whether its pass is final, once its rule flags are the
    game's own."""
    where = f"boards/{raw['mode']}.json"
    final_pass = rule_flags(where, raw["rules"], board_format.game, board_format.pass_rule, board_format.hq_loss)
    return where, final_pass


def hq_areas(where: str, areas: Sequence[dict[str, Any]], factions: Sequence[str],
             barred: Callable[[int], str] = lambda i: "") -> tuple[int, int]:
    """Each faction's HQ area: one each, none where `barred` says why not."""
    hq = [-1, -1]
    for i, area in enumerate(areas):
        if area.get("hq") is None:
            continue
        seat = factions.index(area["hq"])
        why = barred(i)
        if why:
            raise BoardError(f"{where} {area['id']}: {why}")
        if hq[seat] != -1:
            raise BoardError(f"{where}: two HQs for {area['hq']}")
        hq[seat] = i
    if -1 in hq:
        raise BoardError(f"{where}: both factions need an HQ")
    return hq[0], hq[1]


def bonus_slots(where: str, areas: Sequence[dict[str, Any]], barred: Callable[[int], str] = lambda i: "") -> list[int]:
    """The areas with an area-bonus slot, in file order; none where `barred` says why not."""
    slots = []
    for i, area in enumerate(areas):
        if area.get("bonus_slot"):
            why = barred(i)
            if why:
                raise BoardError(f"{where} {area['id']}: {why}")
            slots.append(i)
    return slots


def check_linked(where: str, action: int, allowed: Sequence[int], board_format: BoardFormat, place: str) -> None:
    """A linked space's action may be linked to this kind of place."""
    if action not in allowed:
        raise BoardError(f"{where}: {board_format.actions[action]} cannot be linked to {place}")


def support_space(where: str, item: dict[str, Any], board_format: BoardFormat) -> tuple[int, bool]:
    """A support space's action kind and initiative symbol, checked."""
    kind = board_format.actions.index(item["action"])
    if kind not in board_format.support:
        raise BoardError(f"{where}: {item['action']} is not a support action")
    initiative = bool(item.get("initiative", False))
    if initiative and kind != board_format.initiative:
        raise BoardError(f"{where}: only a Plan space carries the initiative symbol")
    return kind, initiative


def check_support_board(where: str, kinds: Sequence[int], initiatives: int, required: Mapping[int, int],
                        rule: str) -> None:
    """The support board has `required` spaces of each kind and one initiative symbol (`rule` says so
    in words)."""
    if any(kinds.count(kind) != n for kind, n in required.items()) or initiatives != 1:
        raise BoardError(f"{where}: {rule}")


def check_starting_totals(where: str, board_format: BoardFormat, starts: Sequence[tuple[Sequence[Sequence[int]], int, str]]) -> None:
    """No faction starts with more units of a kind than it has: (per seat counts, total, words)."""
    for seat, faction in enumerate(board_format.factions):
        for counts, total, words in starts:
            if sum(counts[seat]) > total:
                raise BoardError(f"{where}: {faction} starts with more than {total} {words}")

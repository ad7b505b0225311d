"""Reading and checking the General Orders data files, for both games of the family.

Each game compiles its own board format into its own board class (data.py for WWII, sengoku_data.py
for Sengoku Jidai); what they share is here: the fields every board has (FamilyBoard), the JSON
reader, names per language, the rule flags, symmetric and connected adjacency, the area-bonus
token pool, the 24-card deck of a mode, the mirror, and the terms file. Every check raises
BoardError with the file and the place that breaks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Sequence, TypeVar

from arena.games.general_orders.common import bits, reach

DECK_SIZE = 24  # the operation cards of one mode


class BoardError(ValueError):
    """A board or card file breaks a rule the engine relies on."""


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

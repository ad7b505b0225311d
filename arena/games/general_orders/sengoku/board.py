"""Boards, operation cards and terms of General Orders: Sengoku Jidai, loaded and validated from JSON.

A board file (boards/rivers.json, boards/fortress.json) holds everything that differs between the
modes: areas of two kinds on one map (land and water: supply runs over both), their VP, HQs,
adjacency, ports (the water areas a port may Embark into), fortifications, area-bonus slots,
starting troops, ships and siege weapons, the linked action spaces of each area, the support board
(Reinforce with its siege-weapon limit, Embark, Plan with the initiative symbol), the bonus-token
pool and the rule numbers (rounds, units, caps, commanders). Both boards are reconstructions and say
so. cards.json holds the 12 card kinds with their copies per mode (24 each).

`load_sengoku_board` turns a file into a `SengokuBoard` of plain ints, tuples and bitmasks;
`compile_sengoku_board` raises BoardError on anything the rules could not play. It is the family's
one compile (loader.py: the format as data, `FORMAT`, and the steps both games take) with Sengoku's
own steps beside it: land and water areas, fortifications, ports, three unit kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.general_orders.loader import (BoardError, BoardFormat, FamilyBoard, adjacency, area_ids,
    board_basics, board_head, bonus_pool, bonus_slots, check_card_ids, check_linked, check_names,
    check_starting_totals, check_support_board, check_when, hq_areas, load_board, load_terms, mirror, mode_deck,
    read_json, support_space)

LANGS = ("en",)  # no other edition of Sengoku Jidai is in shared/seeds
FACTIONS = ("red", "black")  # seat 0, seat 1: the rulebook's example colours (Mali red, Bo black)
MODES = ("rivers", "fortress")

# Action kinds. Linked to a land area: advance, shell, siege; to a water area: sail, bombard;
# support (on the support board): reinforce, embark, plan.
ACTIONS = ("advance", "sail", "bombard", "shell", "siege", "reinforce", "embark", "plan")
ADVANCE, SAIL, BOMBARD, SHELL, SIEGE, REINFORCE, EMBARK, PLAN = range(len(ACTIONS))
LAND_ACTIONS = (ADVANCE, SHELL, SIEGE)
WATER_ACTIONS = (SAIL, BOMBARD)
SUPPORT_ACTIONS = (REINFORCE, EMBARK, PLAN)

# Area-bonus tokens (six; five per mode).
TOKENS = ("barracks", "war_room", "pirate_haven", "shipyard", "hidden_base", "armoury")
BARRACKS, WAR_ROOM, PIRATE_HAVEN, SHIPYARD, HIDDEN_BASE, ARMOURY = range(len(TOKENS))

# Operation cards, in the order of cards.json (the rules implement each id's effect).
CARD_IDS = ("ambush", "counterattack", "ground_assault", "mobilise", "commandeer", "river_assault",
            "ship_strike", "shore_strike", "siege_train", "sappers", "hold_the_walls", "siege_workshop")
(AMBUSH, COUNTERATTACK, GROUND_ASSAULT, MOBILISE, COMMANDEER, RIVER_ASSAULT, SHIP_STRIKE, SHORE_STRIKE,
 SIEGE_TRAIN, SAPPERS, HOLD_THE_WALLS, SIEGE_WORKSHOP) = range(len(CARD_IDS))
NUM_CARD_KINDS = len(CARD_IDS)

# Unit kinds.
UNITS = ("troops", "ships", "siege_weapons")
TROOP, SHIP, SIEGE_WEAPON = range(len(UNITS))

PACKAGE = __name__.rpartition(".")[0]  # where its data files are: cards.json, terms.json, boards/

# The board files' format, as the compile steps read it (loader.py).
FORMAT = BoardFormat(game="Sengoku", pass_rule="standby", hq_loss="empty", langs=LANGS, factions=FACTIONS,
                     actions=ACTIONS, support=SUPPORT_ACTIONS, initiative=PLAN)


@dataclass(frozen=True)
class SengokuSpace:
    """An action space: its action kind, linked area (-1 for support), support value, the most
    siege weapons a Reinforce may place, and whether it carries the initiative symbol."""

    index: int
    action: int
    link: int
    value: int
    siege_limit: int
    initiative: bool


@dataclass(frozen=True)
class SengokuCard:
    """An operation card kind: name, text, copies per mode and when it may be played."""

    index: int
    id: str
    copies: dict[str, int]
    when: str
    source: str
    name: dict[str, str]
    text: dict[str, str]


@dataclass(frozen=True)
class SengokuBoard(FamilyBoard):
    """A compiled Sengoku board: land and water areas on one map, and their action spaces."""

    ships: int
    siege_weapons: int
    water_cap: int
    commanders: int
    is_water: tuple[bool, ...]
    land_mask: int
    water_mask: int
    fortified: int  # bitmask of land areas with a fortification
    port_into: tuple[int, ...]  # per area: bitmask of water areas its port may Embark into (0: no port)
    start_ships: tuple[tuple[int, ...], tuple[int, ...]]
    start_siege: tuple[tuple[int, ...], tuple[int, ...]]
    spaces: tuple[SengokuSpace, ...]

    @property
    def has_siege(self) -> bool:
        """True when the mode uses siege weapons (Fortress)."""
        return self.siege_weapons > 0


def load_sengoku_cards() -> tuple[SengokuCard, ...]:
    """The 12 operation-card kinds of Sengoku Jidai, validated (24 cards per mode)."""
    raw = read_json(PACKAGE, "cards.json")["cards"]
    cards = []
    for index, item in enumerate(raw):
        copies = {mode: int(n) for mode, n in item["copies"].items()}
        card = SengokuCard(index, item["id"], copies, item["when"], str(item.get("source", "")),
                           check_names(f"cards.json {item['id']}", item["name"], LANGS),
                           check_names(f"cards.json {item['id']} text", item["text"], LANGS))
        check_when("cards.json", card.id, card.when)
        if set(copies) - set(MODES) or min(copies.values(), default=0) < 1:
            raise BoardError(f"cards.json {card.id}: copies per mode ({', '.join(MODES)}), at least one")
        cards.append(card)
    check_card_ids("cards.json", [card.id for card in cards], CARD_IDS)
    for mode in MODES:
        if sum(card.copies.get(mode, 0) for card in cards) != 24:
            raise BoardError(f"cards.json: the {mode} operation deck holds 24 cards")
    return tuple(cards)


def load_sengoku_board(mode: str, cards: tuple[SengokuCard, ...]) -> SengokuBoard:
    """Read, compile and validate boards/<mode>.json."""
    return load_board(PACKAGE, mode, compile_sengoku_board, cards)


def _units(where: str, start: Any) -> tuple[list[int], list[int], list[int]]:
    """(troops, ships, siege weapons) per seat from an area's {"red": {"troops": 2}, ...}."""
    start = start or {}
    if set(start) - set(FACTIONS):
        raise BoardError(f"{where}: unknown faction in start {sorted(start)}")
    out: tuple[list[int], list[int], list[int]] = ([0, 0], [0, 0], [0, 0])
    for seat, faction in enumerate(FACTIONS):
        units = start.get(faction, {})
        if set(units) - set(UNITS):
            raise BoardError(f"{where}: unknown unit kind in {sorted(units)}")
        for kind, name in enumerate(UNITS):
            out[kind][seat] = int(units.get(name, 0))
            if out[kind][seat] < 0:
                raise BoardError(f"{where}: negative starting units")
    return out


# --- the compile, step by step (the steps both games take are in loader.py) -----------------------

def compile_sengoku_board(raw: dict[str, Any], cards: tuple[SengokuCard, ...]) -> SengokuBoard:
    """Compile a board dict (the JSON file's content) into a validated SengokuBoard."""
    where, final_pass = board_head(raw, FORMAT)
    rules = raw["rules"]
    if tuple(raw.get("factions", FACTIONS)) != FACTIONS:
        raise BoardError(f"{where}: the factions are {', '.join(FACTIONS)}")
    areas = raw["areas"]
    ids = area_ids(where, areas)
    if len(ids) > 60:
        raise BoardError(f"{where}: at most 60 areas")
    is_water = _area_kinds(where, areas)
    adj = adjacency(where, ids, areas)
    siege_total = int(rules["siege_weapons"])
    hq = hq_areas(where, areas, FACTIONS, lambda i: "an HQ is a land area" if is_water[i] else "")
    slots = bonus_slots(where, areas, lambda i: "bonus slots are on land areas" if is_water[i] else "")
    start = _starting_units(where, areas, is_water)
    spaces = _linked_spaces(where, areas, is_water, siege_total)
    spaces += _support_spaces(where, raw["support"], len(spaces), siege_total)
    troops, ships = int(rules["troops"]), int(rules["ships"])
    check_starting_totals(where, FORMAT, ((start[TROOP], troops, "troops"), (start[SHIP], ships, "ships"),
                                          (start[SIEGE_WEAPON], siege_total, "siege_weapons")))
    _check_start(where, rules, ids, is_water, hq, start)
    pool = _checked_pool(where, raw, slots, siege_total)
    water_mask = sum(1 << i for i in range(len(ids)) if is_water[i])
    return SengokuBoard(
        **board_basics(raw, where, LANGS),
        final_pass=final_pass,
        troops=troops,
        ships=ships,
        siege_weapons=siege_total,
        land_cap=int(rules["land_cap"]),
        water_cap=int(rules["water_cap"]),
        commanders=int(rules["commanders"]),
        area_ids=tuple(ids),
        is_water=is_water,
        land_mask=((1 << len(ids)) - 1) & ~water_mask,
        water_mask=water_mask,
        area_adj=adj,
        area_vp=tuple(int(a["vp"]) for a in areas),
        hq=hq,
        fortified=_fortifications(where, areas, is_water),
        port_into=_ports(where, areas, is_water, adj),
        start_troops=start[TROOP],
        start_ships=start[SHIP],
        start_siege=start[SIEGE_WEAPON],
        bonus_slots=tuple(slots),
        bonus_pool=pool,
        spaces=tuple(spaces),
        deck=mode_deck(where, raw["mode"], tuple(card.copies.get(raw["mode"], 0) for card in cards)),
        mirror=mirror(where, raw, ids),
    )


def _checked_pool(where: str, raw: dict[str, Any], slots: list[int], siege_total: int) -> tuple[int, ...]:
    """The bonus-token pool, without the Armoury in a mode without siege weapons."""
    pool = bonus_pool(where, raw, TOKENS, slots)
    if not siege_total and TOKENS.index("armoury") in pool:
        raise BoardError(f"{where}: the Armoury needs siege weapons")
    return pool


def _area_kinds(where: str, areas: list[dict[str, Any]]) -> tuple[bool, ...]:
    """Per area: True for water, False for land (and its VP not negative)."""
    for area in areas:
        if area.get("kind") not in ("land", "water"):
            raise BoardError(f"{where} {area['id']}: kind is land or water")
        if int(area["vp"]) < 0:
            raise BoardError(f"{where} {area['id']}: negative VP")
    return tuple(area["kind"] == "water" for area in areas)


def _fortifications(where: str, areas: list[dict[str, Any]], is_water: tuple[bool, ...]) -> int:
    """The bitmask of fortified areas (land areas only)."""
    fortified = 0
    for i, area in enumerate(areas):
        if area.get("fortified"):
            if is_water[i]:
                raise BoardError(f"{where} {area['id']}: only a land area can be fortified")
            fortified |= 1 << i
    return fortified


def _ports(where: str, areas: list[dict[str, Any]], is_water: tuple[bool, ...], adj: tuple[int, ...]) -> tuple[int, ...]:
    """Per area: the bitmask of water areas its port may Embark into (a port is on a land area and
    embarks into adjacent water areas; 0 without one)."""
    index = {area["id"]: i for i, area in enumerate(areas)}
    ports = []
    for i, area in enumerate(areas):
        into = 0
        for other in area.get("port", []):
            if is_water[i]:
                raise BoardError(f"{where} {area['id']}: a port is on a land area")
            j = index.get(other, -1)
            if j < 0 or not is_water[j] or not adj[i] >> j & 1:
                raise BoardError(f"{where} {area['id']}: a port embarks into adjacent water areas, not {other!r}")
            into |= 1 << j
        ports.append(into)
    return tuple(ports)


Rows = tuple[tuple[int, ...], tuple[int, ...]]
AreaUnits = tuple[list[int], list[int], list[int]]  # one area's (troops, ships, siege weapons) per seat


def _starting_units(where: str, areas: list[dict[str, Any]], is_water: tuple[bool, ...]) -> tuple[Rows, Rows, Rows]:
    """Per unit kind (troops, ships, siege weapons), each faction's starting units per area: land
    units on land, ships on water, never both factions in one area."""
    per_area = [_units(f"{where} {area['id']}", area.get("start")) for area in areas]
    for i, (area, units) in enumerate(zip(areas, per_area)):
        name = f"{where} {area['id']}"
        _check_unit_terrain(name, is_water[i], units)
        _check_one_faction(name, units)
    return _unit_rows(per_area, TROOP), _unit_rows(per_area, SHIP), _unit_rows(per_area, SIEGE_WEAPON)


def _check_unit_terrain(name: str, water: bool, units: AreaUnits) -> None:
    """Troops and siege weapons start on a land area, ships on a water area."""
    if water and (any(units[TROOP]) or any(units[SIEGE_WEAPON])):
        raise BoardError(f"{name}: troops and siege weapons start on land areas only")
    if not water and any(units[SHIP]):
        raise BoardError(f"{name}: ships start in water areas only")


def _check_one_faction(name: str, units: AreaUnits) -> None:
    """At most one faction starts with units in an area."""
    if any(units[k][0] for k in range(3)) and any(units[k][1] for k in range(3)):
        raise BoardError(f"{name}: both factions start in one area")


def _unit_rows(per_area: list[AreaUnits], kind: int) -> Rows:
    """Each faction's starting units of one kind, per area."""
    return tuple(units[kind][0] for units in per_area), tuple(units[kind][1] for units in per_area)


def _linked_spaces(where: str, areas: list[dict[str, Any]], is_water: tuple[bool, ...],
                   siege_total: int) -> list[SengokuSpace]:
    """The action spaces linked to each area: one per action kind, the kinds its area allows, a
    Siege space only in a mode with siege weapons."""
    spaces: list[SengokuSpace] = []
    for i, area in enumerate(areas):
        name = f"{where} {area['id']}"
        kinds = [ACTIONS.index(action) for action in area.get("spaces", [])]
        if len(set(kinds)) != len(kinds):
            raise BoardError(f"{name}: one space per action kind")
        for kind in kinds:
            allowed, place = (WATER_ACTIONS, "a water area") if is_water[i] else (LAND_ACTIONS, "a land area")
            check_linked(name, kind, allowed, FORMAT, place)
            if kind == SIEGE and not siege_total:
                raise BoardError(f"{name}: a Siege space needs siege weapons in the mode")
            spaces.append(SengokuSpace(len(spaces), kind, i, 0, 0, False))
    return spaces


def _support_spaces(where: str, items: list[dict[str, Any]], first: int, siege_total: int) -> list[SengokuSpace]:
    """The support board's spaces (numbered from `first`): two Reinforce (a siege-weapon limit only
    in a mode with siege weapons), two Embark and two Plan, one with the initiative symbol."""
    spaces: list[SengokuSpace] = []
    for item in items:
        kind, initiative = support_space(where, item, FORMAT)
        value = int(item["value"])
        limit = int(item.get("siege_weapons", 0))
        if value < 1:
            raise BoardError(f"{where}: support values are positive")
        if limit and (kind != REINFORCE or not siege_total or limit > value):
            raise BoardError(f"{where}: only a Reinforce space of a mode with siege weapons may allow "
                             f"siege weapons, at most its value")
        spaces.append(SengokuSpace(first + len(spaces), kind, -1, value, limit, initiative))
    check_support_board(where, [s.action for s in spaces], sum(s.initiative for s in spaces),
                        {kind: 2 for kind in SUPPORT_ACTIONS},
                        "the support board has two Reinforce, two Embark and two Plan spaces, "
                        "one Plan with the initiative symbol")
    return spaces


def _check_start(where: str, rules: dict[str, Any], ids: list[str], is_water: tuple[bool, ...],
                 hq: tuple[int, int], start: tuple[Rows, Rows, Rows]) -> None:
    """Each faction starts with units in its HQ, and no area starts above its cap."""
    land_cap, water_cap = int(rules["land_cap"]), int(rules["water_cap"])
    for seat, faction in enumerate(FACTIONS):
        if not start[TROOP][seat][hq[seat]] + start[SIEGE_WEAPON][seat][hq[seat]]:
            raise BoardError(f"{where}: {faction} must start with units in its HQ")
        for i in range(len(ids)):
            cap = water_cap if is_water[i] else land_cap
            if start[TROOP][seat][i] + start[SHIP][seat][i] + start[SIEGE_WEAPON][seat][i] > cap:
                raise BoardError(f"{where} {ids[i]}: starting units exceed a cap")


SENGOKU_CARDS = load_sengoku_cards()
SENGOKU_TERMS = load_terms(PACKAGE, "terms.json", LANGS)
SENGOKU_BOARDS = {mode: load_sengoku_board(mode, SENGOKU_CARDS) for mode in MODES}

"""Boards, operation cards and terms of General Orders: Sengoku Jidai, loaded and validated from JSON.

A board file (boards/rivers.json, boards/fortress.json) holds everything that differs between the
modes: areas of two kinds on one map (land and water: supply runs over both), their VP, HQs,
adjacency, ports (the water areas a port may Embark into), fortifications, area-bonus slots,
starting troops, ships and siege weapons, the linked action spaces of each area, the support board
(Reinforce with its siege-weapon limit, Embark, Plan with the initiative symbol), the bonus-token
pool and the rule numbers (rounds, units, caps, commanders). Both boards are reconstructions and say
so. sengoku_cards.json holds the 12 card kinds with their copies per mode (24 each).

`load_sengoku_board` turns a file into a `SengokuBoard` of plain ints, tuples and bitmasks;
`compile_sengoku_board` raises BoardError on anything the engine could not play (the checks both
games share are in loader.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.general_orders.loader import (
    BoardError,
    FamilyBoard,
    adjacency,
    area_ids,
    board_basics,
    bonus_pool,
    check_card_ids,
    check_names,
    check_when,
    load_board,
    load_terms,
    mirror,
    mode_deck,
    read_json,
    rule_flags,
)

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

# Operation cards, in the order of sengoku_cards.json (the engine implements each id's effect).
CARD_IDS = ("ambush", "counterattack", "ground_assault", "mobilise", "commandeer", "river_assault",
            "ship_strike", "shore_strike", "siege_train", "sappers", "hold_the_walls", "siege_workshop")
(AMBUSH, COUNTERATTACK, GROUND_ASSAULT, MOBILISE, COMMANDEER, RIVER_ASSAULT, SHIP_STRIKE, SHORE_STRIKE,
 SIEGE_TRAIN, SAPPERS, HOLD_THE_WALLS, SIEGE_WORKSHOP) = range(len(CARD_IDS))
NUM_CARD_KINDS = len(CARD_IDS)

# Unit kinds.
UNITS = ("troops", "ships", "siege_weapons")
TROOP, SHIP, SIEGE_WEAPON = range(len(UNITS))

PACKAGE = __name__.rpartition(".")[0]  # where its data files are: cards.json, terms.json, boards/


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
                           check_names(f"sengoku_cards.json {item['id']}", item["name"], LANGS),
                           check_names(f"sengoku_cards.json {item['id']} text", item["text"], LANGS))
        check_when("cards.json", card.id, card.when)
        if set(copies) - set(MODES) or min(copies.values(), default=0) < 1:
            raise BoardError(f"sengoku_cards.json {card.id}: copies per mode ({', '.join(MODES)}), at least one")
        cards.append(card)
    check_card_ids("cards.json", [card.id for card in cards], CARD_IDS)
    for mode in MODES:
        if sum(card.copies.get(mode, 0) for card in cards) != 24:
            raise BoardError(f"sengoku_cards.json: the {mode} operation deck holds 24 cards")
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


def compile_sengoku_board(raw: dict[str, Any], cards: tuple[SengokuCard, ...]) -> SengokuBoard:
    """Compile a board dict (the JSON file's content) into a validated SengokuBoard."""
    mode = raw["mode"]
    where = f"boards/{mode}.json"
    rules = raw["rules"]
    final_pass = rule_flags(where, rules, "Sengoku", "standby", "empty")
    if tuple(raw.get("factions", FACTIONS)) != FACTIONS:
        raise BoardError(f"{where}: the factions are {', '.join(FACTIONS)}")
    areas = raw["areas"]
    ids = area_ids(where, areas)
    if len(ids) > 60:
        raise BoardError(f"{where}: at most 60 areas")
    index = {name: i for i, name in enumerate(ids)}
    n = len(ids)
    is_water = []
    for area in areas:
        if area.get("kind") not in ("land", "water"):
            raise BoardError(f"{where} {area['id']}: kind is land or water")
        is_water.append(area["kind"] == "water")
    water_mask = sum(1 << i for i in range(n) if is_water[i])
    land_mask = ((1 << n) - 1) & ~water_mask
    adj = adjacency(where, ids, areas)

    siege_total = int(rules["siege_weapons"])
    hq = [-1, -1]
    fortified = 0
    port_into = [0] * n
    slots: list[int] = []
    spaces: list[SengokuSpace] = []
    start = ([[0] * n, [0] * n], [[0] * n, [0] * n], [[0] * n, [0] * n])
    for i, area in enumerate(areas):
        name = f"{where} {area['id']}"
        water = is_water[i]
        if int(area["vp"]) < 0:
            raise BoardError(f"{name}: negative VP")
        if area.get("hq") is not None:
            seat = FACTIONS.index(area["hq"])
            if water:
                raise BoardError(f"{name}: an HQ is a land area")
            if hq[seat] != -1:
                raise BoardError(f"{where}: two HQs for {area['hq']}")
            hq[seat] = i
        if area.get("fortified"):
            if water:
                raise BoardError(f"{name}: only a land area can be fortified")
            fortified |= 1 << i
        for other in area.get("port", []):
            if water:
                raise BoardError(f"{name}: a port is on a land area")
            j = index.get(other, -1)
            if j < 0 or not is_water[j] or not adj[i] >> j & 1:
                raise BoardError(f"{name}: a port embarks into adjacent water areas, not {other!r}")
            port_into[i] |= 1 << j
        if area.get("bonus_slot"):
            if water:
                raise BoardError(f"{name}: bonus slots are on land areas")
            slots.append(i)
        units = _units(name, area.get("start"))
        for kind in (TROOP, SHIP, SIEGE_WEAPON):
            for seat in (0, 1):
                start[kind][seat][i] = units[kind][seat]
        if water and (any(units[TROOP]) or any(units[SIEGE_WEAPON])):
            raise BoardError(f"{name}: troops and siege weapons start on land areas only")
        if not water and any(units[SHIP]):
            raise BoardError(f"{name}: ships start in water areas only")
        if any(units[k][0] for k in range(3)) and any(units[k][1] for k in range(3)):
            raise BoardError(f"{name}: both factions start in one area")
        kinds = [ACTIONS.index(action) for action in area.get("spaces", [])]
        if len(set(kinds)) != len(kinds):
            raise BoardError(f"{name}: one space per action kind")
        for kind in kinds:
            allowed = WATER_ACTIONS if water else LAND_ACTIONS
            if kind not in allowed:
                raise BoardError(f"{name}: {ACTIONS[kind]} cannot be linked to a {'water' if water else 'land'} area")
            if kind == SIEGE and not siege_total:
                raise BoardError(f"{name}: a Siege space needs siege weapons in the mode")
            spaces.append(SengokuSpace(len(spaces), kind, i, 0, 0, False))
    if -1 in hq:
        raise BoardError(f"{where}: both factions need an HQ")

    support_kinds: dict[int, int] = {}
    initiative_spaces = 0
    for item in raw["support"]:
        kind = ACTIONS.index(item["action"])
        if kind not in SUPPORT_ACTIONS:
            raise BoardError(f"{where}: {item['action']} is not a support action")
        value = int(item["value"])
        limit = int(item.get("siege_weapons", 0))
        if value < 1:
            raise BoardError(f"{where}: support values are positive")
        if limit and (kind != REINFORCE or not siege_total or limit > value):
            raise BoardError(f"{where}: only a Reinforce space of a mode with siege weapons may allow "
                             f"siege weapons, at most its value")
        initiative = bool(item.get("initiative", False))
        if initiative and kind != PLAN:
            raise BoardError(f"{where}: only a Plan space carries the initiative symbol")
        initiative_spaces += initiative
        support_kinds[kind] = support_kinds.get(kind, 0) + 1
        spaces.append(SengokuSpace(len(spaces), kind, -1, value, limit, initiative))
    if any(support_kinds.get(kind) != 2 for kind in SUPPORT_ACTIONS) or initiative_spaces != 1:
        raise BoardError(f"{where}: the support board has two Reinforce, two Embark and two Plan spaces, "
                         f"one Plan with the initiative symbol")

    troops, ships = int(rules["troops"]), int(rules["ships"])
    land_cap, water_cap = int(rules["land_cap"]), int(rules["water_cap"])
    for seat, faction in enumerate(FACTIONS):
        for kind, total in ((TROOP, troops), (SHIP, ships), (SIEGE_WEAPON, siege_total)):
            if sum(start[kind][seat]) > total:
                raise BoardError(f"{where}: {faction} starts with more than {total} {UNITS[kind]}")
        if not start[TROOP][seat][hq[seat]] + start[SIEGE_WEAPON][seat][hq[seat]]:
            raise BoardError(f"{where}: {faction} must start with units in its HQ")
        for i in range(n):
            cap = water_cap if is_water[i] else land_cap
            if start[TROOP][seat][i] + start[SHIP][seat][i] + start[SIEGE_WEAPON][seat][i] > cap:
                raise BoardError(f"{where} {ids[i]}: starting units exceed a cap")

    pool = bonus_pool(where, raw, TOKENS, slots)
    if not siege_total and TOKENS.index("armoury") in pool:
        raise BoardError(f"{where}: the Armoury needs siege weapons")
    deck = mode_deck(where, mode, tuple(card.copies.get(mode, 0) for card in cards))
    twins = mirror(where, raw, ids)
    return SengokuBoard(
        **board_basics(raw, where, LANGS),
        final_pass=final_pass,
        troops=troops,
        ships=ships,
        siege_weapons=siege_total,
        land_cap=land_cap,
        water_cap=water_cap,
        commanders=int(rules["commanders"]),
        area_ids=tuple(ids),
        is_water=tuple(is_water),
        land_mask=land_mask,
        water_mask=water_mask,
        area_adj=adj,
        area_vp=tuple(int(a["vp"]) for a in areas),
        hq=(hq[0], hq[1]),
        fortified=fortified,
        port_into=tuple(port_into),
        start_troops=(tuple(start[TROOP][0]), tuple(start[TROOP][1])),
        start_ships=(tuple(start[SHIP][0]), tuple(start[SHIP][1])),
        start_siege=(tuple(start[SIEGE_WEAPON][0]), tuple(start[SIEGE_WEAPON][1])),
        bonus_slots=tuple(slots),
        bonus_pool=pool,
        spaces=tuple(spaces),
        deck=deck,
        mirror=twins,
    )


SENGOKU_CARDS = load_sengoku_cards()
SENGOKU_TERMS = load_terms(PACKAGE, "terms.json", LANGS)
SENGOKU_BOARDS = {mode: load_sengoku_board(mode, SENGOKU_CARDS) for mode in MODES}

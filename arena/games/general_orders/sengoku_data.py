"""Boards, operation cards and terms of General Orders: Sengoku Jidai, loaded and validated from JSON.

A board file (boards/rivers.json, boards/fortress.json) holds everything that differs between the
modes: areas of two kinds on one map (land and water: supply runs over both), their VP, HQs,
adjacency, ports (the water areas a port may Embark into), fortifications, area-bonus slots,
starting troops, ships and siege weapons, the linked action spaces of each area, the support board
(Reinforce with its siege-weapon limit, Embark, Plan with the initiative symbol), the bonus-token
pool and the rule numbers (rounds, units, caps, commanders). Both boards are reconstructions and say
so. sengoku_cards.json holds the 12 card kinds with their copies per mode (24 each).

`load_sengoku_board` turns a file into a `SengokuBoard` of plain ints, tuples and bitmasks;
`compile_sengoku_board` raises BoardError on anything the engine could not play.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from arena.games.general_orders.data import BoardError

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
class SengokuBoard:
    """A compiled Sengoku board: indices, bitmasks and tuples for the engine."""

    mode: str
    title: dict[str, str]
    reconstruction: bool
    assumptions: tuple[str, ...]
    rounds: int
    troops: int
    ships: int
    siege_weapons: int
    land_cap: int
    water_cap: int
    commanders: int
    final_pass: bool  # rules.pass "final"; here "standby": a pass sends a commander to standby (SJ-14)
    area_ids: tuple[str, ...]
    is_water: tuple[bool, ...]
    land_mask: int
    water_mask: int
    area_adj: tuple[int, ...]  # bitmask of adjacent areas (land and water), per area
    area_vp: tuple[int, ...]
    hq: tuple[int, int]  # HQ land area per seat
    fortified: int  # bitmask of land areas with a fortification
    port_into: tuple[int, ...]  # per area: bitmask of water areas its port may Embark into (0: no port)
    start_troops: tuple[tuple[int, ...], tuple[int, ...]]
    start_ships: tuple[tuple[int, ...], tuple[int, ...]]
    start_siege: tuple[tuple[int, ...], tuple[int, ...]]
    bonus_slots: tuple[int, ...]  # land areas with an area-bonus slot, in file order
    bonus_pool: tuple[int, ...]
    spaces: tuple[SengokuSpace, ...]
    deck: tuple[int, ...]  # copies per card kind in this mode's 24-card deck
    mirror: tuple[int, ...]  # per area: its twin across the board's symmetry, or () when none

    @property
    def num_areas(self) -> int:
        """Number of areas, land and water."""
        return len(self.area_ids)

    @property
    def has_siege(self) -> bool:
        """True when the mode uses siege weapons (Fortress)."""
        return self.siege_weapons > 0


def _read(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


def _check_names(where: str, names: Any) -> dict[str, str]:
    if not isinstance(names, dict) or any(not isinstance(names.get(lang), str) for lang in LANGS):
        raise BoardError(f"{where}: needs names in {', '.join(LANGS)}")
    return {lang: names[lang] for lang in LANGS}


def load_sengoku_cards() -> tuple[SengokuCard, ...]:
    """The 12 operation-card kinds of Sengoku Jidai, validated (24 cards per mode)."""
    raw = _read("sengoku_cards.json")["cards"]
    cards = []
    for index, item in enumerate(raw):
        copies = {mode: int(n) for mode, n in item["copies"].items()}
        card = SengokuCard(index, item["id"], copies, item["when"], str(item.get("source", "")),
                           _check_names(f"sengoku_cards.json {item['id']}", item["name"]),
                           _check_names(f"sengoku_cards.json {item['id']} text", item["text"]))
        if card.when not in ("own", "opponent"):
            raise BoardError(f"sengoku_cards.json {card.id}: 'when' is own or opponent")
        if set(copies) - set(MODES) or min(copies.values(), default=0) < 1:
            raise BoardError(f"sengoku_cards.json {card.id}: copies per mode ({', '.join(MODES)}), at least one")
        cards.append(card)
    if tuple(card.id for card in cards) != CARD_IDS:
        raise BoardError("sengoku_cards.json: card ids must be, in order: " + ", ".join(CARD_IDS))
    for mode in MODES:
        if sum(card.copies.get(mode, 0) for card in cards) != 24:
            raise BoardError(f"sengoku_cards.json: the {mode} operation deck holds 24 cards")
    return tuple(cards)


def load_sengoku_terms() -> dict[str, dict[str, str]]:
    """Names of actions, bonuses and terms."""
    terms = _read("sengoku_terms.json")["terms"]
    return {key: _check_names(f"sengoku_terms.json {key}", value) for key, value in terms.items()}


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _connected(adj: tuple[int, ...]) -> bool:
    found = frontier = 1
    while frontier:
        grow = 0
        for i in _bits(frontier):
            grow |= adj[i]
        frontier = grow & ~found
        found |= frontier
    return found == (1 << len(adj)) - 1


def load_sengoku_board(mode: str, cards: tuple[SengokuCard, ...]) -> SengokuBoard:
    """Read, compile and validate boards/<mode>.json."""
    try:
        raw = _read(f"boards/{mode}.json")
    except FileNotFoundError:
        raise BoardError(f"no board file for mode {mode!r}") from None
    try:
        return compile_sengoku_board(raw, cards)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, BoardError):
            raise
        raise BoardError(f"boards/{mode}.json: {error!r}") from None


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
    if rules.get("pass") != "standby" or rules.get("hq_loss") != "empty":
        raise BoardError(f"{where}: this engine implements the Sengoku pass ('standby') and HQ ('empty') rules")
    if tuple(raw.get("factions", FACTIONS)) != FACTIONS:
        raise BoardError(f"{where}: the factions are {', '.join(FACTIONS)}")
    areas = raw["areas"]
    ids = [a["id"] for a in areas]
    if not ids or len(set(ids)) != len(ids):
        raise BoardError(f"{where}: area ids must be distinct and present")
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
    adj = [0] * n
    for i, area in enumerate(areas):
        for other in area["adjacent"]:
            if other not in index:
                raise BoardError(f"{where} {ids[i]}: unknown neighbour {other!r}")
            if other == ids[i]:
                raise BoardError(f"{where} {ids[i]}: adjacent to itself")
            adj[i] |= 1 << index[other]
    for i in range(n):
        for j in _bits(adj[i]):
            if not adj[j] >> i & 1:
                raise BoardError(f"{where}: adjacency is not symmetric ({ids[i]} -> {ids[j]})")
    if not _connected(tuple(adj)):
        raise BoardError(f"{where}: the map is not connected")

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

    pool = tuple(TOKENS.index(token) for token in raw["bonus_pool"])
    if len(set(pool)) != len(pool) or len(slots) > len(pool):
        raise BoardError(f"{where}: distinct bonus tokens, at least as many as slots")
    if not siege_total and TOKENS.index("armoury") in pool:
        raise BoardError(f"{where}: the Armoury needs siege weapons")
    deck = tuple(card.copies.get(mode, 0) for card in cards)
    if sum(deck) != 24:
        raise BoardError(f"{where}: the {mode} operation deck holds 24 cards, found {sum(deck)}")

    mirror: tuple[int, ...] = ()
    if raw.get("mirror"):
        pairs = [-1] * n
        for a, b in raw["mirror"].items():
            pairs[index[a]] = index[b]
            pairs[index[b]] = index[a]
        if -1 in pairs:
            raise BoardError(f"{where}: the mirror must pair every area")
        mirror = tuple(pairs)

    return SengokuBoard(
        mode=mode,
        title=_check_names(f"{where} title", raw["title"]),
        reconstruction=bool(raw.get("reconstruction", False)),
        assumptions=tuple(raw.get("assumptions", ())),
        rounds=int(rules["rounds"]),
        troops=troops,
        ships=ships,
        siege_weapons=siege_total,
        land_cap=land_cap,
        water_cap=water_cap,
        commanders=int(rules["commanders"]),
        final_pass=rules["pass"] == "final",
        area_ids=tuple(ids),
        is_water=tuple(is_water),
        land_mask=land_mask,
        water_mask=water_mask,
        area_adj=tuple(adj),
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
        mirror=mirror,
    )


SENGOKU_CARDS = load_sengoku_cards()
SENGOKU_TERMS = load_sengoku_terms()
SENGOKU_BOARDS = {mode: load_sengoku_board(mode, SENGOKU_CARDS) for mode in MODES}

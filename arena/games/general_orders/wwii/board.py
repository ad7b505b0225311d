"""Boards, operation cards and terms of General Orders: WWII, loaded and validated from JSON.

A board file (boards/<mode>.json) holds everything that differs between modes: land areas (VP,
HQ, adjacency, starting troops, linked action spaces with an optional faction icon, bonus slots,
printed bonuses, areas barred to Paradrop), air zones (their land areas, adjacency, starting
aircraft, Fly and Bomb spaces), the support board (Reinforce, Plan, Take-off with their values per
faction and the initiative symbol), the area-bonus token pool and a few rule numbers (rounds,
units, caps, commanders, pass and HQ-loss rules). The WWII maps are reconstructions and say so.

`load_board` turns a file into a `Board` of plain ints, tuples and bitmasks for the engine's hot
path; `compile_board` raises BoardError on anything the engine could not play. The checks both
games share (adjacency, bonus pool, deck, mirror, names, rule flags) are in loader.py; Sengoku
Jidai's boards (sengoku_data.py) carry the rule flags this game refuses (`pass` "standby",
`hq_loss` "empty"), so each compiler reads only its game's files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.general_orders.common import bits
from arena.games.general_orders.loader import (  # noqa: F401  (BoardError: re-exported)
    BoardError,
    FamilyBoard,
    adjacency,
    area_ids,
    board_basics,
    bonus_pool,
    check_card_ids,
    check_names,
    check_when,
    load_terms,
    mirror,
    mode_deck,
    read_json,
    rule_flags,
)
from arena.games.general_orders.loader import load_board as load_board_file

LANGS = ("en", "pt-BR")
FACTIONS = ("blue", "yellow")

# Action kinds. Linked to a land area: advance, paradrop, barrage; to an air zone: fly, bomb;
# support (on the support board): reinforce, plan, take_off.
ACTIONS = ("advance", "fly", "paradrop", "barrage", "bomb", "reinforce", "plan", "take_off")
ADVANCE, FLY, PARADROP, BARRAGE, BOMB, REINFORCE, PLAN, TAKE_OFF = range(len(ACTIONS))
AREA_ACTIONS = (ADVANCE, PARADROP, BARRAGE)
ZONE_ACTIONS = (FLY, BOMB)
SUPPORT_ACTIONS = (REINFORCE, PLAN, TAKE_OFF)

# Area bonuses: six tokens and one printed bonus.
BONUSES = ("depot", "forward_base", "observer_post", "recon_post", "signal_unit", "air_control_post",
           "town_centre")
DEPOT, FORWARD_BASE, OBSERVER_POST, RECON_POST, SIGNAL_UNIT, AIR_CONTROL_POST, TOWN_CENTRE = range(len(BONUSES))
TOKENS = BONUSES[:TOWN_CENTRE]

# Operation cards, in the order of cards.json (the engine implements each id's effect).
CARD_IDS = ("ground_assault", "counter_attack", "blitz", "ambush", "mobilize", "artillery_strike",
            "airborne_assault", "anti_air", "airstrike", "intercept", "wingman")
(GROUND_ASSAULT, COUNTER_ATTACK, BLITZ, AMBUSH, MOBILIZE, ARTILLERY_STRIKE, AIRBORNE_ASSAULT, ANTI_AIR,
 AIRSTRIKE, INTERCEPT, WINGMAN) = range(len(CARD_IDS))
NUM_CARD_KINDS = len(CARD_IDS)

PACKAGE = __name__.rpartition(".")[0]  # where its data files are: cards.json, terms.json, boards/


@dataclass(frozen=True)
class Space:
    """An action space: its action kind, linked area/zone index (-1 for support), faction icon
    (-1: either side), support value per seat, and whether it carries the initiative symbol."""

    index: int
    action: int
    link: int
    faction: int
    value: tuple[int, int]
    initiative: bool


@dataclass(frozen=True)
class Board(FamilyBoard):
    """A compiled WWII board: land areas, air zones and their action spaces."""

    aircraft: int
    air_cap: int
    commanders_reserve: int
    commanders_standby: int
    area_zone: tuple[int, ...]  # air zone holding each area, -1 without zones
    printed_bonus: tuple[int, ...]  # per area: printed bonus index or -1
    no_paradrop: int  # bitmask of areas barred to Paradrop
    within3: tuple[int, ...]  # per area: bitmask of areas at most three steps away (itself included)
    zone_ids: tuple[str, ...]
    zone_names: tuple[dict[str, str], ...]
    zone_adj: tuple[int, ...]
    zone_areas: tuple[int, ...]  # bitmask of land areas per zone
    start_aircraft: tuple[tuple[int, ...], tuple[int, ...]]
    hq_zone: tuple[int, int]  # air zone of each seat's HQ, -1 without zones
    spaces: tuple[Space, ...]

    @property
    def num_zones(self) -> int:
        """Number of air zones (0 in a mode without aircraft)."""
        return len(self.zone_ids)

    @property
    def has_air(self) -> bool:
        """True when the mode has air zones and aircraft."""
        return bool(self.zone_ids)


@dataclass(frozen=True)
class Card:
    """An operation card kind: names, copies, modes and when it may be played."""

    index: int
    id: str
    copies: int
    modes: tuple[str, ...]
    when: str
    name: dict[str, str]
    text: dict[str, str]


def load_cards() -> tuple[Card, ...]:
    """The 11 operation-card kinds, validated."""
    raw = read_json(PACKAGE, "cards.json")["cards"]
    cards = []
    for index, item in enumerate(raw):
        card = Card(index, item["id"], int(item["copies"]), tuple(item["modes"]), item["when"],
                    check_names(f"cards.json {item['id']}", item["name"], LANGS),
                    check_names(f"cards.json {item['id']} text", item["text"], LANGS))
        check_when("cards.json", card.id, card.when)
        cards.append(card)
    check_card_ids("cards.json", [card.id for card in cards], CARD_IDS)
    if sum(card.copies for card in cards) != 30:
        raise BoardError("cards.json: the operation deck holds 30 cards in all")
    return tuple(cards)


def _within(adj: tuple[int, ...], start: int, steps: int) -> int:
    reach = frontier = 1 << start
    for _ in range(steps):
        grow = 0
        for i in bits(frontier):
            grow |= adj[i]
        frontier = grow & ~reach
        reach |= frontier
    return reach


def _seat_counts(where: str, start: Any) -> tuple[int, int]:
    start = start or {}
    if set(start) - set(FACTIONS):
        raise BoardError(f"{where}: unknown faction in start {sorted(start)}")
    counts = (int(start.get("blue", 0)), int(start.get("yellow", 0)))
    if min(counts) < 0:
        raise BoardError(f"{where}: negative starting units")
    return counts


def load_board(mode: str, cards: tuple[Card, ...]) -> Board:
    """Read, compile and validate boards/<mode>.json."""
    return load_board_file(PACKAGE, mode, compile_board, cards)


_VARIANTS: dict[tuple[str, str], Board] = {}


def load_board_variant(mode: str, variant: str) -> Board:
    """The board of `mode` as its file's variant `variant` reconstructs it: the file's board with the
    variant's spaces removed and its assumption added (compiled once, validated as any board)."""
    key = (mode, variant)
    if key not in _VARIANTS:
        raw = read_json(PACKAGE, f"boards/{mode}.json")
        variants = raw.get("variants", {})
        if variant not in variants:
            raise BoardError(f"boards/{mode}.json has no variant {variant!r}; it has: {', '.join(variants) or 'none'}")
        change = variants[variant]
        areas = {area["id"]: area for area in raw["areas"]}
        for removed in change.get("remove_spaces", ()):
            area = areas[removed["area"]]
            kept = [space for space in area["spaces"] if space["action"] != removed["action"]]
            if len(kept) == len(area["spaces"]):
                raise BoardError(f"boards/{mode}.json variant {variant}: {removed['area']} has no {removed['action']}")
            area["spaces"] = kept
        raw["assumptions"] = [*raw.get("assumptions", ()), change["assumption"]]
        _VARIANTS[key] = compile_board(raw, CARDS)
    return _VARIANTS[key]


def compile_board(raw: dict[str, Any], cards: tuple[Card, ...]) -> Board:
    """Compile a board dict (the JSON file's content) into a validated Board."""
    mode = raw["mode"]
    where = f"boards/{mode}.json"
    rules = raw["rules"]
    final_pass = rule_flags(where, rules, "WWII", "final", "control")
    areas = raw["areas"]
    ids = area_ids(where, areas)
    area_adj = adjacency(f"{where} area", ids, areas)
    zones = raw.get("zones", [])
    zone_ids = [z["id"] for z in zones]
    if len(set(zone_ids)) != len(zone_ids):
        raise BoardError(f"{where}: zone ids must be distinct")
    zone_index = {name: i for i, name in enumerate(zone_ids)}
    zone_adj = adjacency(f"{where} zone", zone_ids, zones) if zones else ()

    hq = [-1, -1]
    start_troops: list[list[int]] = [[0] * len(areas), [0] * len(areas)]
    area_zone = [-1] * len(areas)
    printed = [-1] * len(areas)
    no_paradrop = 0
    slots = []
    spaces: list[Space] = []
    for i, area in enumerate(areas):
        if area.get("hq") is not None:
            seat = FACTIONS.index(area["hq"])
            if hq[seat] != -1:
                raise BoardError(f"{where}: two HQs for {area['hq']}")
            hq[seat] = i
        blue, yellow = _seat_counts(f"{where} {area['id']}", area.get("start"))
        if blue and yellow:
            raise BoardError(f"{where} {area['id']}: both factions start in one area")
        start_troops[0][i], start_troops[1][i] = blue, yellow
        if zones:
            zone = area.get("zone")
            if zone not in zone_index:
                raise BoardError(f"{where} {area['id']}: every land area lies in one air zone")
            area_zone[i] = zone_index[zone]
        if area.get("printed_bonus") is not None:
            printed[i] = BONUSES.index(area["printed_bonus"])
            if printed[i] != TOWN_CENTRE:
                raise BoardError(f"{where} {area['id']}: only the Town Centre is a printed bonus")
        if area.get("no_paradrop"):
            no_paradrop |= 1 << i
        if area.get("bonus_slot"):
            slots.append(i)
        for item in area.get("spaces", []):
            action = ACTIONS.index(item["action"])
            if action not in AREA_ACTIONS:
                raise BoardError(f"{where} {area['id']}: {item['action']} cannot be linked to a land area")
            faction = FACTIONS.index(item["faction"]) if item.get("faction") is not None else -1
            spaces.append(Space(len(spaces), action, i, faction, (0, 0), False))
    if -1 in hq:
        raise BoardError(f"{where}: both factions need an HQ")
    zone_areas = [0] * len(zones)
    start_aircraft: list[list[int]] = [[0] * len(zones), [0] * len(zones)]
    for i, area_zone_index in enumerate(area_zone):
        if area_zone_index >= 0:
            zone_areas[area_zone_index] |= 1 << i
    for z, zone in enumerate(zones):
        check_names(f"{where} zone {zone['id']}", zone.get("name"), LANGS)
        if not zone_areas[z]:
            raise BoardError(f"{where} zone {zone['id']}: holds no land area")
        start_aircraft[0][z], start_aircraft[1][z] = _seat_counts(f"{where} {zone['id']}", zone.get("start"))
        if start_aircraft[0][z] and start_aircraft[1][z]:
            raise BoardError(f"{where} zone {zone['id']}: both factions start in one zone")
        for item in zone.get("spaces", []):
            action = ACTIONS.index(item["action"])
            if action not in ZONE_ACTIONS:
                raise BoardError(f"{where} zone {zone['id']}: {item['action']} cannot be linked to an air zone")
            faction = FACTIONS.index(item["faction"]) if item.get("faction") is not None else -1
            spaces.append(Space(len(spaces), action, z, faction, (0, 0), False))
    support_kinds: dict[int, int] = {}
    initiative_spaces = 0
    for item in raw["support"]:
        action = ACTIONS.index(item["action"])
        if action not in SUPPORT_ACTIONS:
            raise BoardError(f"{where}: {item['action']} is not a support action")
        value = (int(item["value"]["blue"]), int(item["value"]["yellow"]))
        if min(value) < 1:
            raise BoardError(f"{where}: support values are positive")
        initiative = bool(item.get("initiative", False))
        if initiative and action != PLAN:
            raise BoardError(f"{where}: only a Plan space carries the initiative symbol")
        initiative_spaces += initiative
        support_kinds[action] = support_kinds.get(action, 0) + 1
        spaces.append(Space(len(spaces), action, -1, -1, value, initiative))
    if support_kinds.get(REINFORCE) != 2 or support_kinds.get(PLAN) != 2 or initiative_spaces != 1:
        raise BoardError(f"{where}: the support board has two Reinforce and two Plan spaces, one with initiative")
    if bool(zones) != (support_kinds.get(TAKE_OFF, 0) == 2):
        raise BoardError(f"{where}: a board with air zones has two Take-off spaces, one without has none")
    if zones and not any(s.action in ZONE_ACTIONS for s in spaces):
        raise BoardError(f"{where}: air zones need Fly/Bomb spaces")
    if not zones and any(s.action in ZONE_ACTIONS for s in spaces):
        raise BoardError(f"{where}: Fly and Bomb need air zones")

    troops, aircraft = int(rules["troops"]), int(rules["aircraft"])
    for seat in (0, 1):
        if sum(start_troops[seat]) > troops:
            raise BoardError(f"{where}: {FACTIONS[seat]} starts with more than {troops} troops")
        if sum(start_aircraft[seat]) > aircraft:
            raise BoardError(f"{where}: {FACTIONS[seat]} starts with more than {aircraft} aircraft")
        if not start_troops[seat][hq[seat]]:
            raise BoardError(f"{where}: {FACTIONS[seat]} must start in control of its HQ")
    land_cap, air_cap = int(rules["land_cap"]), int(rules["air_cap"])
    if max(start_troops[0] + start_troops[1]) > land_cap or max(start_aircraft[0] + start_aircraft[1], default=0) > air_cap:
        raise BoardError(f"{where}: starting units exceed a cap")

    pool = bonus_pool(where, raw, TOKENS, slots)
    deck = mode_deck(where, mode, tuple(card.copies if mode in card.modes else 0 for card in cards))
    twins = mirror(where, raw, ids)
    return Board(
        **board_basics(raw, where, LANGS),
        final_pass=final_pass,
        troops=troops,
        aircraft=aircraft,
        land_cap=land_cap,
        air_cap=air_cap,
        commanders_reserve=int(rules["commanders_reserve"]),
        commanders_standby=int(rules["commanders_standby"]),
        area_ids=tuple(ids),
        area_adj=area_adj,
        area_vp=tuple(int(a["vp"]) for a in areas),
        hq=(hq[0], hq[1]),
        start_troops=(tuple(start_troops[0]), tuple(start_troops[1])),
        area_zone=tuple(area_zone),
        bonus_slots=tuple(slots),
        printed_bonus=tuple(printed),
        no_paradrop=no_paradrop,
        within3=tuple(_within(area_adj, i, 3) for i in range(len(areas))),
        zone_ids=tuple(zone_ids),
        zone_names=tuple(check_names("zone", z["name"], LANGS) for z in zones),
        zone_adj=zone_adj,
        zone_areas=tuple(zone_areas),
        start_aircraft=(tuple(start_aircraft[0]), tuple(start_aircraft[1])),
        hq_zone=(area_zone[hq[0]], area_zone[hq[1]]),
        spaces=tuple(spaces),
        bonus_pool=pool,
        deck=deck,
        mirror=twins,
    )


CARDS = load_cards()
TERMS = load_terms(PACKAGE, "terms.json", LANGS)
MODES = ("alpine", "island")
BOARDS = {mode: load_board(mode, CARDS) for mode in MODES}

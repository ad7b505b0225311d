"""Boards, operation cards and terms of the General Orders family, loaded and validated from JSON.

A board file (boards/<mode>.json) holds everything that differs between modes: land areas (VP,
HQ, adjacency, starting troops, linked action spaces with an optional faction icon, bonus slots,
printed bonuses, areas barred to Paradrop), air zones (their land areas, adjacency, starting
aircraft, Fly and Bomb spaces), the support board (Reinforce, Plan, Take-off with their values per
faction and the initiative symbol), the area-bonus token pool and a few rule numbers (rounds,
units, caps, commanders, pass and HQ-loss rules). The WWII maps are reconstructions and say so.

`load_board` turns a file into a `Board` of plain ints, tuples and bitmasks for the engine's hot
path; `compile_board` raises BoardError on anything the engine could not play.

How Sengoku Jidai joined the family: its own data module (sengoku_data.py: one map of land and
water areas with ports and fortifications, three unit kinds, its support board and 12 card kinds)
and its own rules module (sengoku.py) on the shared machinery of common.py (bit masks, dice, supply
searches, the card multiset). Its boards (boards/rivers.json, boards/fortress.json) carry the rule
flags this loader refuses (`pass` "standby", `hq_loss` "empty"), so each loader reads only its game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

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


class BoardError(ValueError):
    """A board or card file breaks a rule the engine relies on."""


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
class Board:
    """A compiled board: indices, bitmasks and tuples for the engine."""

    mode: str
    title: dict[str, str]
    reconstruction: bool
    assumptions: tuple[str, ...]
    rounds: int
    troops: int
    aircraft: int
    land_cap: int
    air_cap: int
    commanders_reserve: int
    commanders_standby: int
    final_pass: bool  # rules.pass "final": a pass is final for the round (GO-14)
    area_ids: tuple[str, ...]
    area_adj: tuple[int, ...]  # bitmask of adjacent areas, per area
    area_vp: tuple[int, ...]
    hq: tuple[int, int]  # HQ area per seat
    start_troops: tuple[tuple[int, ...], tuple[int, ...]]
    area_zone: tuple[int, ...]  # air zone holding each area, -1 without zones
    bonus_slots: tuple[int, ...]  # areas with an area-bonus slot, in file order
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
    bonus_pool: tuple[int, ...]
    deck: tuple[int, ...]  # copies per card kind in this mode's 24-card deck
    mirror: tuple[int, ...]  # per area: its mirror twin (Alpine), or () when not mirror-symmetric

    @property
    def num_areas(self) -> int:
        """Number of land areas."""
        return len(self.area_ids)

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


def _read(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


def _check_names(where: str, names: Any) -> dict[str, str]:
    if not isinstance(names, dict) or any(not isinstance(names.get(lang), str) for lang in LANGS):
        raise BoardError(f"{where}: needs names in {', '.join(LANGS)}")
    return {lang: names[lang] for lang in LANGS}


def load_cards() -> tuple[Card, ...]:
    """The 11 operation-card kinds, validated."""
    raw = _read("cards.json")["cards"]
    cards = []
    for index, item in enumerate(raw):
        card = Card(index, item["id"], int(item["copies"]), tuple(item["modes"]), item["when"],
                    _check_names(f"cards.json {item['id']}", item["name"]),
                    _check_names(f"cards.json {item['id']} text", item["text"]))
        if card.when not in ("own", "opponent"):
            raise BoardError(f"cards.json {card.id}: 'when' is own or opponent")
        cards.append(card)
    if tuple(card.id for card in cards) != CARD_IDS:
        raise BoardError("cards.json: card ids must be, in order: " + ", ".join(CARD_IDS))
    if sum(card.copies for card in cards) != 30:
        raise BoardError("cards.json: the operation deck holds 30 cards in all")
    return tuple(cards)


def load_terms() -> dict[str, dict[str, str]]:
    """Names of actions, bonuses and terms per language."""
    terms = _read("terms.json")["terms"]
    return {key: _check_names(f"terms.json {key}", value) for key, value in terms.items()}


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _connected(adj: tuple[int, ...]) -> bool:
    if not adj:
        return True
    reach, frontier = 1, 1
    while frontier:
        grow = 0
        for i in _bits(frontier):
            grow |= adj[i]
        frontier = grow & ~reach
        reach |= frontier
    return reach == (1 << len(adj)) - 1


def _within(adj: tuple[int, ...], start: int, steps: int) -> int:
    reach = frontier = 1 << start
    for _ in range(steps):
        grow = 0
        for i in _bits(frontier):
            grow |= adj[i]
        frontier = grow & ~reach
        reach |= frontier
    return reach


def _adjacency(where: str, ids: list[str], items: list[dict[str, Any]]) -> tuple[int, ...]:
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
        for j in _bits(adj[i]):
            if not adj[j] >> i & 1:
                raise BoardError(f"{where}: adjacency is not symmetric ({ids[i]} -> {ids[j]})")
    if not _connected(tuple(adj)):
        raise BoardError(f"{where}: the map is not connected")
    return tuple(adj)


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
    try:
        raw = _read(f"boards/{mode}.json")
    except FileNotFoundError:
        raise BoardError(f"no board file for mode {mode!r}") from None
    try:
        return compile_board(raw, cards)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, BoardError):
            raise
        raise BoardError(f"boards/{mode}.json: {error!r}") from None


def compile_board(raw: dict[str, Any], cards: tuple[Card, ...]) -> Board:
    """Compile a board dict (the JSON file's content) into a validated Board."""
    mode = raw["mode"]
    where = f"boards/{mode}.json"
    rules = raw["rules"]
    if rules.get("pass") != "final" or rules.get("hq_loss") != "control":
        raise BoardError(f"{where}: this engine implements the WWII pass ('final') and HQ ('control') rules")
    areas = raw["areas"]
    area_ids = [a["id"] for a in areas]
    if len(set(area_ids)) != len(area_ids) or not area_ids:
        raise BoardError(f"{where}: area ids must be distinct and present")
    area_index = {name: i for i, name in enumerate(area_ids)}
    area_adj = _adjacency(f"{where} area", area_ids, areas)
    zones = raw.get("zones", [])
    zone_ids = [z["id"] for z in zones]
    if len(set(zone_ids)) != len(zone_ids):
        raise BoardError(f"{where}: zone ids must be distinct")
    zone_index = {name: i for i, name in enumerate(zone_ids)}
    zone_adj = _adjacency(f"{where} zone", zone_ids, zones) if zones else ()

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
        _check_names(f"{where} zone {zone['id']}", zone.get("name"))
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

    pool = tuple(TOKENS.index(token) for token in raw["bonus_pool"])
    if len(set(pool)) != len(pool) or len(slots) > len(pool):
        raise BoardError(f"{where}: distinct bonus tokens, at least as many as slots")
    deck = tuple(card.copies if mode in card.modes else 0 for card in cards)
    if sum(deck) != 24:
        raise BoardError(f"{where}: the {mode} operation deck holds 24 cards, found {sum(deck)}")

    mirror: tuple[int, ...] = ()
    if raw.get("mirror"):
        pairs = [-1] * len(areas)
        for a, b in raw["mirror"].items():
            pairs[area_index[a]] = area_index[b]
            pairs[area_index[b]] = area_index[a]
        if -1 in pairs:
            raise BoardError(f"{where}: the mirror must pair every area")
        mirror = tuple(pairs)

    return Board(
        mode=mode,
        title=_check_names(f"{where} title", raw["title"]),
        reconstruction=bool(raw.get("reconstruction", False)),
        assumptions=tuple(raw.get("assumptions", ())),
        rounds=int(rules["rounds"]),
        troops=troops,
        aircraft=aircraft,
        land_cap=land_cap,
        air_cap=air_cap,
        commanders_reserve=int(rules["commanders_reserve"]),
        commanders_standby=int(rules["commanders_standby"]),
        final_pass=rules["pass"] == "final",
        area_ids=tuple(area_ids),
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
        zone_names=tuple(_check_names("zone", z["name"]) for z in zones),
        zone_adj=zone_adj,
        zone_areas=tuple(zone_areas),
        start_aircraft=(tuple(start_aircraft[0]), tuple(start_aircraft[1])),
        hq_zone=(area_zone[hq[0]], area_zone[hq[1]]),
        spaces=tuple(spaces),
        bonus_pool=pool,
        deck=deck,
        mirror=mirror,
    )


CARDS = load_cards()
TERMS = load_terms()
MODES = ("alpine", "island")
BOARDS = {mode: load_board(mode, CARDS) for mode in MODES}

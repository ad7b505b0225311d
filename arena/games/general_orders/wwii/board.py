"""Boards, operation cards and terms of General Orders: WWII, loaded and validated from JSON.

A board file (boards/<mode>.json) holds everything that differs between modes: land areas (VP,
HQ, adjacency, starting troops, linked action spaces with an optional faction icon, bonus slots,
printed bonuses, areas barred to Paradrop), air zones (their land areas, adjacency, starting
aircraft, Fly and Bomb spaces), the support board (Reinforce, Plan, Take-off with their values per
faction and the initiative symbol), the area-bonus token pool and a few rule numbers (rounds,
units, caps, commanders, pass and HQ-loss rules). The WWII maps are reconstructions and say so.

`load_board` turns a file into a `Board` of plain ints, tuples and bitmasks for the rules' hot
path; `compile_board` raises BoardError on anything the rules could not play. It is the family's
one compile (loader.py: the format as data, `FORMAT`, and the steps both games take: rule flags,
adjacency, HQs, bonus slots, linked and support spaces, starting totals, bonus pool, deck, mirror)
with WWII's own steps beside it: air zones, printed bonuses, areas barred to Paradrop. Sengoku
Jidai's boards carry the rule flags this game refuses (`pass` "standby", `hq_loss` "empty"), so
each game reads only its own files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.general_orders.loader import (BoardError, BoardFormat, FamilyBoard, adjacency, area_ids,
    board_basics, board_head, bonus_pool, bonus_slots, check_card_ids, check_linked, check_names,
    check_starting_totals, check_support_board, check_when, hq_areas, load_terms, mirror, mode_deck, read_json,
    support_space)
from arena.games.general_orders.supply import within
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

# The board files' format, as the compile steps read it (loader.py).
FORMAT = BoardFormat(game="WWII", pass_rule="final", hq_loss="control", langs=LANGS, factions=FACTIONS,
                     actions=ACTIONS, support=SUPPORT_ACTIONS, initiative=PLAN)


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


# --- the compile, step by step (the steps both games take are in loader.py) -----------------------

def compile_board(raw: dict[str, Any], cards: tuple[Card, ...]) -> Board:
    """Compile a board dict (the JSON file's content) into a validated Board."""
    where, final_pass = board_head(raw, FORMAT)
    rules = raw["rules"]
    areas, zones = raw["areas"], raw.get("zones", [])
    ids = area_ids(where, areas)
    area_adj = adjacency(f"{where} area", ids, areas)
    zone_ids, zone_adj = _zone_map(where, zones)
    hq = hq_areas(where, areas, FACTIONS)
    start_troops = _starting_units(where, areas)
    area_zone = _area_zones(where, areas, zone_ids)
    zone_areas = _zone_areas(where, zones, area_zone)
    start_aircraft = _starting_units(where, zones, "zone ")
    spaces = _linked_spaces(where, areas, AREA_ACTIONS, "a land area", 0)
    spaces += _linked_spaces(where, zones, ZONE_ACTIONS, "an air zone", len(spaces))
    _check_zone_spaces(where, zones, spaces)
    spaces += _support_spaces(where, raw["support"], len(spaces), bool(zones))
    troops, aircraft = int(rules["troops"]), int(rules["aircraft"])
    check_starting_totals(where, FORMAT, ((start_troops, troops, "troops"), (start_aircraft, aircraft, "aircraft")))
    _check_start(where, rules, hq, start_troops, start_aircraft)
    slots = bonus_slots(where, areas)
    return Board(
        **board_basics(raw, where, LANGS),
        final_pass=final_pass,
        troops=troops,
        aircraft=aircraft,
        land_cap=int(rules["land_cap"]),
        air_cap=int(rules["air_cap"]),
        commanders_reserve=int(rules["commanders_reserve"]),
        commanders_standby=int(rules["commanders_standby"]),
        area_ids=tuple(ids),
        area_adj=area_adj,
        area_vp=tuple(int(a["vp"]) for a in areas),
        hq=hq,
        start_troops=start_troops,
        area_zone=area_zone,
        bonus_slots=tuple(slots),
        printed_bonus=_printed_bonuses(where, areas),
        no_paradrop=sum(1 << i for i, area in enumerate(areas) if area.get("no_paradrop")),
        within3=tuple(within(area_adj, i, 3) for i in range(len(areas))),
        zone_ids=zone_ids,
        zone_names=tuple(check_names("zone", z["name"], LANGS) for z in zones),
        zone_adj=zone_adj,
        zone_areas=zone_areas,
        start_aircraft=start_aircraft,
        hq_zone=(area_zone[hq[0]], area_zone[hq[1]]),
        spaces=tuple(spaces),
        bonus_pool=bonus_pool(where, raw, TOKENS, slots),
        deck=_deck(where, raw["mode"], cards),
        mirror=mirror(where, raw, ids),
    )


def _check_zone_spaces(where: str, zones: list[dict[str, Any]], spaces: list[Space]) -> None:
    """A board with air zones has Fly or Bomb spaces."""
    if zones and not any(s.action in ZONE_ACTIONS for s in spaces):
        raise BoardError(f"{where}: air zones need Fly/Bomb spaces")


def _deck(where: str, mode: str, cards: tuple[Card, ...]) -> tuple[int, ...]:
    """The mode's operation deck: the copies of each card kind the mode uses."""
    return mode_deck(where, mode, tuple(card.copies if mode in card.modes else 0 for card in cards))


def _zone_map(where: str, zones: list[dict[str, Any]]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The air zones' ids (distinct) and their adjacency."""
    zone_ids = tuple(z["id"] for z in zones)
    if len(set(zone_ids)) != len(zone_ids):
        raise BoardError(f"{where}: zone ids must be distinct")
    return zone_ids, adjacency(f"{where} zone", zone_ids, zones) if zones else ()


def _starting_units(where: str, places: list[dict[str, Any]], kind: str = "") -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each faction's starting troops per area (or aircraft per zone); never both in one place."""
    counts = [_seat_counts(f"{where} {place['id']}", place.get("start")) for place in places]
    for place, (blue, yellow) in zip(places, counts):
        if blue and yellow:
            raise BoardError(f"{where} {kind}{place['id']}: both factions start in one {kind.strip() or 'area'}")
    return tuple(blue for blue, _ in counts), tuple(yellow for _, yellow in counts)


def _area_zones(where: str, areas: list[dict[str, Any]], zone_ids: tuple[str, ...]) -> tuple[int, ...]:
    """The air zone each land area lies in (-1 for all on a board without zones)."""
    if not zone_ids:
        return (-1,) * len(areas)
    index = {name: i for i, name in enumerate(zone_ids)}
    for area in areas:
        if area.get("zone") not in index:
            raise BoardError(f"{where} {area['id']}: every land area lies in one air zone")
    return tuple(index[area["zone"]] for area in areas)


def _zone_areas(where: str, zones: list[dict[str, Any]], area_zone: tuple[int, ...]) -> tuple[int, ...]:
    """The land areas of each zone, as a bitmask; a zone holds at least one; its names checked."""
    masks = [0] * len(zones)
    for i, zone in enumerate(area_zone):
        if zone >= 0:
            masks[zone] |= 1 << i
    for z, zone_raw in enumerate(zones):
        check_names(f"{where} zone {zone_raw['id']}", zone_raw.get("name"), LANGS)
        if not masks[z]:
            raise BoardError(f"{where} zone {zone_raw['id']}: holds no land area")
    return tuple(masks)


def _printed_bonuses(where: str, areas: list[dict[str, Any]]) -> tuple[int, ...]:
    """Per area its printed bonus (only the Town Centre is one), or -1."""
    printed = []
    for area in areas:
        bonus = -1 if area.get("printed_bonus") is None else BONUSES.index(area["printed_bonus"])
        if bonus not in (-1, TOWN_CENTRE):
            raise BoardError(f"{where} {area['id']}: only the Town Centre is a printed bonus")
        printed.append(bonus)
    return tuple(printed)


def _linked_spaces(where: str, places: list[dict[str, Any]], allowed: tuple[int, ...], place: str,
                   first: int) -> list[Space]:
    """The action spaces linked to each area (or zone), with their faction icon; numbered from `first`."""
    spaces: list[Space] = []
    for i, item_place in enumerate(places):
        for item in item_place.get("spaces", []):
            action = ACTIONS.index(item["action"])
            check_linked(f"{where} {item_place['id']}", action, allowed, FORMAT, place)
            faction = FACTIONS.index(item["faction"]) if item.get("faction") is not None else -1
            spaces.append(Space(first + len(spaces), action, i, faction, (0, 0), False))
    return spaces


def _support_spaces(where: str, items: list[dict[str, Any]], first: int, has_zones: bool) -> list[Space]:
    """The support board's spaces (numbered from `first`): two Reinforce, two Plan (one with the
    initiative symbol), and two Take-off on a board with air zones."""
    spaces: list[Space] = []
    for item in items:
        action, initiative = support_space(where, item, FORMAT)
        value = (int(item["value"]["blue"]), int(item["value"]["yellow"]))
        if min(value) < 1:
            raise BoardError(f"{where}: support values are positive")
        spaces.append(Space(first + len(spaces), action, -1, -1, value, initiative))
    kinds = [s.action for s in spaces]
    check_support_board(where, kinds, sum(s.initiative for s in spaces), {REINFORCE: 2, PLAN: 2},
                        "the support board has two Reinforce and two Plan spaces, one with initiative")
    if has_zones != (kinds.count(TAKE_OFF) == 2):
        raise BoardError(f"{where}: a board with air zones has two Take-off spaces, one without has none")
    return spaces


def _check_start(where: str, rules: dict[str, Any], hq: tuple[int, int], troops: tuple[tuple[int, ...], ...],
                 aircraft: tuple[tuple[int, ...], ...]) -> None:
    """Each faction starts holding its HQ, and no area or zone starts above its cap."""
    for seat in (0, 1):
        if not troops[seat][hq[seat]]:
            raise BoardError(f"{where}: {FACTIONS[seat]} must start in control of its HQ")
    if max(troops[0] + troops[1]) > int(rules["land_cap"]) or max(aircraft[0] + aircraft[1], default=0) > int(rules["air_cap"]):
        raise BoardError(f"{where}: starting units exceed a cap")


CARDS = load_cards()
TERMS = load_terms(PACKAGE, "terms.json", LANGS)
MODES = ("alpine", "island")
BOARDS = {mode: load_board(mode, CARDS) for mode in MODES}

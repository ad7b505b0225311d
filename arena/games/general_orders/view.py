"""How the viewer draws General Orders (WWII and Sengoku Jidai, every mode): see arena.games.views.

The areas are placed by their adjacency (the printed maps are not public: arena.games.views.spread,
each side's HQ at the top and the bottom); WWII's air zones are groups of areas with aircraft of
their own; Sengoku's water areas carry ships, its land areas siege weapons. The order board is the
heart of the game: `board["orders"]` lists its action spaces (action, the area or air zone it acts
on, the side it belongs to) and each position's `orders` the commanders on each space, per side.
Hands and the deck are the hidden information: a spectator sees how many cards each side holds,
never which.
"""

from __future__ import annotations

from typing import Any, cast

from arena.games.base import CHANCE, TERMINAL, Game, State
from arena.games.general_orders.core import FamilyGame
from arena.games.general_orders.loader import FamilyBoard
from arena.games.views import SIDE_COLOURS, cached_spread

FACTION_COLOURS = {"blue": "#2f6fd6", "yellow": "#d9a400", "red": "#c0392b", "black": "#3b3b3b"}
ZONE_ACTIONS = ("fly", "bomb")  # WWII actions linked to an air zone, not an area


def board(generic: Game) -> dict[str, Any]:
    """The areas, placed by adjacency with each HQ at an edge; air zones as groups."""
    game = family_game(generic)
    board = game.board
    n = board.num_areas
    adjacency = tuple(tuple(j for j in range(n) if board.area_adj[i] >> j & 1) for i in range(n))
    areas = _areas(board, cached_spread(adjacency, board.hq[0], board.hq[1]))
    edges = [[i, j] for i in range(n) for j in adjacency[i] if i < j]
    groups = _groups(game)
    factions = game.factions
    return {"kind": "areas", "title": game.info.title, "areas": areas, "edges": edges, "groups": groups,
            "sides": [{"name": game.info.seat_names[seat], "color": FACTION_COLOURS.get(faction, SIDE_COLOURS[seat])}
                      for seat, faction in enumerate(factions)],
            "unit_kinds": _unit_kinds(game), "orders": _order_board(game)}


def _areas(board: FamilyBoard, places: tuple[tuple[float, float], ...]) -> list[dict[str, Any]]:
    """Each area, in board order: its place, victory points, the seat whose HQ it is, its tags."""
    water = getattr(board, "is_water", (False,) * board.num_areas)
    fortified = getattr(board, "fortified", 0)
    areas = []
    for i, area_id in enumerate(board.area_ids):
        tags = (["water"] if water[i] else []) + (["fortified"] if fortified >> i & 1 else [])
        hq = next((seat for seat, where in enumerate(board.hq) if where == i), None)
        areas.append({"id": area_id, "label": area_id, "x": places[i][0], "y": places[i][1], "vp": board.area_vp[i],
                      "hq": hq, "tags": tags})
    return areas


def _groups(game: FamilyGame) -> list[dict[str, Any]]:
    """The air zones (WWII's Island; none elsewhere), each with its name and the areas it covers."""
    board = game.board
    n = board.num_areas
    zone_ids = getattr(board, "zone_ids", ())  # (air zones: WWII's Island)
    area_zone = getattr(board, "area_zone", ())
    return [{"id": zone, "label": game.term(zone) if zone in game.terms else zone,
             "areas": [i for i in range(n) if area_zone[i] == z]} for z, zone in enumerate(zone_ids)]


def _order_board(game: FamilyGame) -> list[dict[str, Any]]:
    """The order board's action spaces, in board order: the action (its printed name), the area or air
    zone it acts on (None: a support space), and the side it is reserved for (None: either)."""
    board = game.board
    zone_ids = getattr(board, "zone_ids", ())
    factions = list(game.factions)
    spaces = []
    for index, space in enumerate(board.spaces):
        action = game.action_names[space.action]
        zone = zone_ids[space.link] if zone_ids and action in ZONE_ACTIONS and space.link >= 0 else None
        area = board.area_ids[space.link] if space.link >= 0 and zone is None else None
        faction = getattr(space, "faction", -1)
        side = faction if isinstance(faction, int) and 0 <= faction < len(factions) else None
        spaces.append({"index": index, "action": _term(game, action), "area": area, "zone": zone, "side": side,
                       "label": str(game.space_name(index))})
    return spaces


def _unit_kinds(game: FamilyGame) -> list[str]:
    board = game.board
    kinds = ["troops"]
    if getattr(board, "ships", 0):
        kinds.append("ships")
    if getattr(board, "has_siege", False):
        kinds.append("siege_weapons")
    return kinds


#: A side's reserve lines: (its key in State.to_json(), the words after the count).
RESERVES = (("reserve_troops", "troops in reserve"), ("reserve_aircraft", "aircraft in reserve"),
            ("reserve_ships", "ships in reserve"), ("reserve_siege_weapons", "siege weapons in reserve"),
            ("commanders_reserve", "commanders in reserve"), ("commanders_standby", "commanders on standby"))


def position(state: State, reveal: bool) -> dict[str, Any]:
    """Units per area, commanders on the areas' action spaces, bonuses, each side's facts, and the hands
    (with `reveal`; else only how many cards each side holds)."""
    game = family_game(state.game)
    data = state.to_json()
    board = game.board
    orders = [_commanders_on(codes) for codes in data.get("spaces", [])]
    marks: dict[str, list[str]] = {}
    for area, bonus in data.get("bonuses", {}).items():
        marks.setdefault(area, []).append(_term(game, bonus))
    zone_ids = getattr(board, "zone_ids", ())
    groups = {zone: [list(data.get("aircraft", {}).get(zone, [0, 0]))] for zone in zone_ids}
    support = _on_support_spaces(game, orders)
    sides = [_side(game, data, seat, support[seat], reveal) for seat in range(2)]
    player = state.current_player()
    return {"units": _units(game, data), "marks": marks, "groups": groups, "sides": sides, "info": _info(game, data),
            "active": player if player not in (CHANCE, TERMINAL) else None, "dice": _dice(data), "orders": orders}


def _units(game: FamilyGame, data: dict[str, Any]) -> dict[str, list[list[int]]]:
    """Per area holding any: [count per side] per unit kind."""
    kinds = _unit_kinds(game)
    units = {}
    for area in game.board.area_ids:
        counts = [list(data.get(kind, {}).get(area, [0, 0])) for kind in kinds]
        if any(any(row) for row in counts):
            units[area] = counts
    return units


def _on_support_spaces(game: FamilyGame, orders: list[list[int]]) -> list[int]:
    """Each side's commanders on the support spaces (those acting on no area)."""
    support = [0, 0]
    for space, placed in zip(game.board.spaces, orders):
        if space.link < 0:
            support = [support[0] + placed[0], support[1] + placed[1]]
    return support


def _side(game: FamilyGame, data: dict[str, Any], seat: int, support: int, reveal: bool) -> dict[str, Any]:
    """One side's facts (victory points, reserves, support, passed) and its hand (names only with `reveal`)."""
    lines = _side_lines(game, data, seat, support)
    hands = data.get("hands", [{}, {}])
    held = hands[seat] if seat < len(hands) else {}
    names = [name for card, copies in sorted(held.items()) for name in [_card(game, card)] * copies]
    return {"lines": lines, "hand": names if reveal else None, "hand_count": sum(held.values())}


def _side_lines(game: FamilyGame, data: dict[str, Any], seat: int, support: int) -> list[str]:
    """One side's victory points, reserves, commanders on support spaces and whether it passed."""
    zone_ids = getattr(game.board, "zone_ids", ())
    lines = [f"VP {data.get('victory_points', [0, 0])[seat]}"]
    lines += [f"{data[key][seat]} {word}" for key, word in RESERVES
              if key in data and (key != "reserve_aircraft" or zone_ids)]
    if support:
        lines.append(f"{support} commander(s) on support spaces")
    if data.get("passed") and data["passed"][seat]:
        lines.append("passed")
    return lines


def _info(game: FamilyGame, data: dict[str, Any]) -> list[str]:
    """The round, the phase, the action under way, the initiative and why the game ended."""
    action = data.get("action") or {}
    info = [f"round {data.get('round', 0)} of {game.board.rounds}", f"phase: {data.get('phase', '')}"]
    if action.get("kind") and data.get("phase") not in ("over",):
        where = action.get("space")
        info.append(f"action: {action['kind']}" + (f" ({game.space_name(where)})"
                                                   if isinstance(where, int) and where >= 0 else ""))
    if data.get("initiative") is not None and data.get("initiative", -1) >= 0:
        info.append(f"initiative: {game.info.seat_names[data['initiative']]}")
    if data.get("reason"):
        info.append(f"ended: {data['reason']}")
    return info


def _dice(data: dict[str, Any]) -> str | None:
    """The action's last roll (and what for), or None."""
    action = data.get("action") or {}
    roll = action.get("roll", -1)
    if not isinstance(roll, int) or roll < 0:
        return None
    roll_for = action.get("roll_for")
    return f"rolled {roll}" + (f" for {roll_for}" if roll_for not in (None, "none") else "")


def family_game(game: Game) -> FamilyGame:
    """A game of this family (the family's view is only given its own games)."""
    return cast(FamilyGame, game)


def _commanders_on(codes: list[int]) -> list[int]:
    """A space's commanders per seat, from its two codes (0: none; else 1 + seat, plus 2 when the commander
    came from standby; the second code is a Counter Attack's extra commander)."""
    counts = [0, 0]
    for code in codes:
        if code:
            counts[(code - 1) & 1] += 1
    return counts


def _term(game: FamilyGame, key: str) -> str:
    terms = game.terms
    return str(game.term(key)) if key in terms else key.replace("_", " ")


def _card(game: FamilyGame, card_id: str) -> str:
    ids = game.card_ids
    return str(game.card_name(ids.index(card_id))) if card_id in ids else card_id

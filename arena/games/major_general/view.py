"""How the viewer draws Major General: the five spaces in a row, Yellow's base on the left; the
command card on top of each space; supply, score and scenario cubes per side; hands only when the
position may be revealed (see arena.games.views)."""

from __future__ import annotations

from typing import Any

from arena.games.base import CHANCE, TERMINAL, Game, State
from arena.games.major_general.data import CARDS, COMMANDS, SCENARIOS

SPACE_LABELS = ("Yellow base", "2", "3 (middle)", "4", "Red base")
COLOURS = ("#d9a400", "#c0392b")


def board(game: Game) -> dict[str, Any]:
    """The row of five spaces."""
    areas: list[dict[str, Any]] = [
        {"id": str(space + 1), "label": label, "x": round(0.1 + 0.2 * space, 4), "y": 0.5, "vp": None,
         "hq": 0 if space == 0 else 1 if space == 4 else None, "tags": []}
        for space, label in enumerate(SPACE_LABELS)]
    sides = [{"name": name, "color": colour} for name, colour in zip(game.info.seat_names, COLOURS)]
    return {"kind": "areas", "title": game.info.title, "areas": areas, "edges": [[i, i + 1] for i in range(4)],
            "groups": [], "sides": sides, "unit_kinds": ["units"]}


def position(state: State, reveal: bool) -> dict[str, Any]:
    """Units and the command on top of each space, each side's facts; the hands with `reveal`."""
    data = state.to_json()
    names = state.game.info.seat_names
    units = {str(space + 1): [list(pair)] for space, pair in enumerate(data["units"]) if any(pair)}
    marks = _marks(data, names)
    scores = state.scores() if hasattr(state, "scores") else [0, 0]
    sides = [_side(data, seat, scores[seat], reveal) for seat in range(2)]
    info = _info(data, names)
    player = state.current_player()
    return {"units": units, "marks": marks, "groups": {}, "sides": sides, "info": info,
            "active": player if player not in (CHANCE, TERMINAL) else None, "dice": None}


def _marks(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, list[str]]:
    """Per space: the command on top (and whose it is), then who holds it alone."""
    marks: dict[str, list[str]] = {}
    for space, top in enumerate(data["top"]):
        if top is not None:
            marks.setdefault(str(space + 1), []).append(f"{top['command']} ({names[top['owner']]})")
    for space, pair in enumerate(data["units"]):
        if pair[0] != pair[1] and (pair[0] == 0 or pair[1] == 0):
            marks.setdefault(str(space + 1), []).append(f"held by {names[0 if pair[0] else 1]}")
    return marks


def _side(data: dict[str, Any], seat: int, score: Any, reveal: bool) -> dict[str, Any]:
    """One side's facts, and its hand with `reveal` (its size always)."""
    hand = data["hands"][seat]
    return {"lines": [f"score {score}", f"{data['supply'][seat]} units in supply",
                      f"{len(data['played'][seat])} cards played",
                      f"{data['scenario_points'][seat]} scenario cubes"],
            "hand": [card_name(card) for card in hand] if reveal else None, "hand_count": len(hand)}


def _info(data: dict[str, Any], names: tuple[str, ...]) -> list[str]:
    """The turn, phase and scenario; the command being carried out, and why the match ended."""
    scenario = next((s for s in SCENARIOS if s.id == data["scenario"]), None)
    info = [f"turn {data['turn']} of 16", f"phase: {data['phase']}",
            f"scenario: {scenario.name if scenario else 'none'} ({data['cubes_left']} cubes left)"]
    if data.get("pending"):
        pending = data["pending"]
        info.append(f"{names[pending['executor']]} carries out {pending['command']}")
    if data.get("reason"):
        info.append(f"ended: {data['reason']}")
    return info


def card_name(card: int) -> str:
    """A command card by its two commands: 'move / rally'."""
    first, second = CARDS[card]
    return f"{COMMANDS[first]} / {COMMANDS[second]}"

"""Board views: what a viewer (the web pages, a shared HTML replay) draws of a game's positions.

A family's view module (GameFamily.view) defines two functions:

    board(game) -> dict       what never changes in a match: the areas with their places on a unit
                              square, the edges between them, the sides, the kinds of units
    position(state, reveal)   one position: units per area, marks, each side's facts and hand,
                              the phase, dice. With reveal=False it holds only what a spectator
                              may see (no hand, no deck order): the live view of a running match.

Both are plain JSON. `board` is {"kind": "areas", "title", "sides": [{"name", "color"}],
"unit_kinds": [...], "areas": [{"id", "label", "x", "y", "vp", "hq", "tags"}], "edges": [[i, j]],
"groups": [{"id", "label", "areas": [i...]}]}; `position` is {"units": {area id: [[count per side]
per unit kind]}, "marks": {area id: [text]}, "groups": {group id: [[count per side] per kind]},
"sides": [{"lines": [text], "hand": [names] or None, "hand_count"}], "info": [text], "active":
seat or None, "dice": text or None}. A family without a view module is drawn as its board_text,
and only once the position may be revealed.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from functools import lru_cache
from types import ModuleType
from typing import Any

from arena.games.base import Game, State
from arena.games.registry import family_of

SIDE_COLOURS = ("#2f6fd6", "#d9a400", "#c0392b", "#27ae60", "#8e44ad", "#16a085")


def view_module(game: Game) -> ModuleType | None:
    """The game's family view module, or None."""
    declared = family_of(game.name).view
    return importlib.import_module(declared) if declared else None


def board(game: Game) -> dict[str, Any]:
    """What never changes in a match of `game` (see the module's docstring)."""
    module = view_module(game)
    if module is not None:
        return dict(module.board(game))
    return {"kind": "text", "title": game.info.title, "unit_kinds": [], "areas": [], "edges": [], "groups": [],
            "sides": [{"name": name, "color": SIDE_COLOURS[seat % len(SIDE_COLOURS)]}
                      for seat, name in enumerate(game.info.seat_names)]}


def position(state: State, reveal: bool) -> dict[str, Any]:
    """One position (see the module's docstring); hidden information only with `reveal`."""
    module = view_module(state.game)
    if module is not None:
        return dict(module.position(state, reveal))
    return {"units": {}, "marks": {}, "groups": {}, "sides": [{"lines": [], "hand": None, "hand_count": None}
                                                             for _ in state.game.info.seat_names],
            "info": [], "active": None, "dice": None,
            "text": state.board_text() if reveal or not state.game.info.has_hidden_information else None}


def spread(adjacency: Sequence[Sequence[int]], top: int | None = None, bottom: int | None = None,
           iterations: int = 300) -> list[tuple[float, float]]:
    """Places on the unit square for a graph's nodes: classical scaling of their path distances (the
    two leading eigenvectors, by power iteration), turned so that `top` is above `bottom`, then
    pushed apart where two come too close. Deterministic."""
    n = len(adjacency)
    if n == 0:
        return []
    if n == 1:
        return [(0.5, 0.5)]
    points = _scaled(adjacency, iterations)
    if top is not None and bottom is not None and top != bottom:
        points = _turned(points, top, bottom)
    points = _spaced_out(_fit(points))
    return [(round(x, 4), round(y, 4)) for x, y in points]


def _scaled(adjacency: Sequence[Sequence[int]], iterations: int) -> list[tuple[float, float]]:
    """Classical scaling of the graph's path distances: each node on the two leading axes (power iteration)."""
    centred = _centred_squared_distances(adjacency)
    axes: list[tuple[list[float], float]] = []
    for k in range(2):
        axes.append(_leading_axis(centred, axes, k, iterations))
    return [(axes[0][0][i] * math.sqrt(max(axes[0][1], 1e-9)), axes[1][0][i] * math.sqrt(max(axes[1][1], 1e-9)))
            for i in range(len(adjacency))]


def _spaced_out(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The fitted `points` pushed apart (and fitted again) where two are closer than a minimum gap."""
    n = len(points)
    for _ in range(60):  # push apart nodes closer than a minimum gap
        moved = _push_apart(points, 0.75 / math.sqrt(n))
        points = _fit(points)
        if not moved:
            break
    return points


def _centred_squared_distances(adjacency: Sequence[Sequence[int]]) -> list[list[float]]:
    """The double-centred matrix of squared path distances (an unreachable node counts as one step past
    the farthest reachable one)."""
    n = len(adjacency)
    squared = _squared_distances(adjacency)
    rows = [sum(row) / n for row in squared]
    total = sum(rows) / n
    return [[-0.5 * (squared[i][j] - rows[i] - rows[j] + total) for j in range(n)] for i in range(n)]


def _squared_distances(adjacency: Sequence[Sequence[int]]) -> list[list[float]]:
    """The squared path distances between the nodes, an unreachable one one step past the farthest reachable."""
    distance = [_distances(adjacency, start) for start in range(len(adjacency))]
    far = max(d for row in distance for d in row if d < math.inf)
    return [[(d if d < math.inf else far + 1) ** 2 for d in row] for row in distance]


def _leading_axis(centred: list[list[float]], axes: list[tuple[list[float], float]], k: int,
                  iterations: int) -> tuple[list[float], float]:
    """The `k`th leading eigenvector of `centred` and its eigenvalue, by power iteration with the `axes`
    already found deflated."""
    n = len(centred)
    vector = _starting_vector(n, k)
    for _ in range(iterations):
        product = [sum(centred[i][j] * vector[j] for j in range(n)) for i in range(n)]
        for axis, value in axes:
            dot = sum(a * b for a, b in zip(axis, vector))
            product = [p - value * dot * a for p, a in zip(product, axis)]
        norm = math.sqrt(sum(p * p for p in product)) or 1.0
        vector = [p / norm for p in product]
    return vector, _rayleigh_quotient(centred, vector)


def _starting_vector(n: int, k: int) -> list[float]:
    """The power iteration's fixed starting vector of length `n` for the `k`th axis."""
    return [math.cos(1.0 + i * (k + 1.7)) for i in range(n)]


def _rayleigh_quotient(centred: list[list[float]], vector: list[float]) -> float:
    """`vector`·`centred`·`vector`: the eigenvalue belonging to the unit eigenvector `vector`."""
    n = len(centred)
    return sum(vector[i] * sum(centred[i][j] * vector[j] for j in range(n)) for i in range(n))


def _turned(points: list[tuple[float, float]], top: int, bottom: int) -> list[tuple[float, float]]:
    """The points rotated so that `top` is above `bottom`."""
    dx, dy = points[bottom][0] - points[top][0], points[bottom][1] - points[top][1]
    angle = math.pi / 2 - math.atan2(dy, dx)
    cos, sin = math.cos(angle), math.sin(angle)
    return [(x * cos - y * sin, x * sin + y * cos) for x, y in points]


def _push_apart(points: list[tuple[float, float]], gap: float) -> bool:
    """One pass pushing apart (in place) each pair of points closer than `gap`; whether any moved."""
    moved = False
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            dx, dy = points[j][0] - points[i][0], points[j][1] - points[i][1]
            length = math.hypot(dx, dy)
            if length < gap:
                if length < 1e-9:
                    dx, dy, length = 1.0, 0.0, 1.0
                push = (gap - length) / 2
                points[i] = (points[i][0] - dx / length * push, points[i][1] - dy / length * push)
                points[j] = (points[j][0] + dx / length * push, points[j][1] + dy / length * push)
                moved = True
    return moved


@lru_cache(maxsize=64)
def cached_spread(adjacency: tuple[tuple[int, ...], ...], top: int | None, bottom: int | None
                  ) -> tuple[tuple[float, float], ...]:
    """`spread`, remembered (a board's layout never changes)."""
    return tuple(spread(adjacency, top, bottom))


def _distances(adjacency: Sequence[Sequence[int]], start: int) -> list[float]:
    distance = [math.inf] * len(adjacency)
    distance[start] = 0
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for other in adjacency[node]:
                if distance[other] == math.inf:
                    distance[other] = distance[node] + 1
                    following.append(other)
        frontier = following
    return distance


def _fit(points: list[tuple[float, float]], margin: float = 0.08) -> list[tuple[float, float]]:
    """Scale and move points into [margin, 1 - margin] on both axes (keeping their proportions)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = (1 - 2 * margin) / span
    x0 = (1 - (max(xs) - min(xs)) * scale) / 2
    y0 = (1 - (max(ys) - min(ys)) * scale) / 2
    return [(x0 + (x - min(xs)) * scale, y0 + (y - min(ys)) * scale) for x, y in points]

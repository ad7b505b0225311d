"""Supply for both General Orders games: the searches behind it. An area is supplied when it is
connected to its side's HQ through areas the side controls (GO-D3, SJ-D3); areas are bit positions
of an int, so a search is a few mask operations, and the games memoise the answer per control mask."""

from __future__ import annotations

from typing import Sequence

from arena.games.general_orders.masks import bits


def reach(adj: Sequence[int], start: int, control: int) -> int:
    """Nodes of `control` connected to `start` through `control` (0 if start is not in it)."""
    if start < 0 or not control >> start & 1:
        return 0
    found = frontier = 1 << start
    while frontier:
        grow = 0
        for i in bits(frontier):
            grow |= adj[i]
        frontier = grow & control & ~found
        found |= frontier
    return found


def remember_reach(cache: dict[int, int], adj: Sequence[int], start: int, control: int) -> int:
    """`reach(adj, start, control)`, stored in `cache` under `control` (a supply cache's miss path;
    the cache is emptied when it grows past 200,000 masks)."""
    supplied = reach(adj, start, control)
    if len(cache) > 200_000:
        cache.clear()
    cache[control] = supplied
    return supplied


def within(adj: Sequence[int], start: int, steps: int) -> int:
    """Nodes at most `steps` steps from `start` (itself included), whoever controls them."""
    found = frontier = 1 << start
    for _ in range(steps):
        grow = 0
        for i in bits(frontier):
            grow |= adj[i]
        frontier = grow & ~found
        found |= frontier
    return found


def supplied_from_scratch(adj: Sequence[int], start: int, occupied: Sequence[int]) -> int:
    """Breadth-first supply search straight from unit counts (the reference the caches must match)."""
    if start < 0 or occupied[start] <= 0:
        return 0
    seen = {start}
    queue = [start]
    while queue:
        node = queue.pop()
        for other in range(len(occupied)):
            if adj[node] >> other & 1 and occupied[other] > 0 and other not in seen:
                seen.add(other)
                queue.append(other)
    return sum(1 << node for node in seen)

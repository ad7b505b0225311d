"""The search's optimism per game family and budget: the data the analysis takes off every chance
(calibration.json beside this module, written by `python -m arena.analysis.measure_optimism`, which says what the
optimism is and how it is measured). Each family has entries at the budgets it was measured at (simulations per
decision), measured on one of its modes; a mode whose search flatters itself otherwise has entries of its own
(keyed by the mode's name), which it takes in place of its family's. Between two budgets the optimism is
interpolated in the logarithm of the budget, beyond the first or the last the nearest entry holds (the optimism
shrinks as the budget grows: holding the last one is the cautious side)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

CALIBRATION = Path(__file__).with_name("calibration.json")


def measured() -> dict[str, Any]:
    """The shipped measurements, per family ({} where there are none): {"mode": ..., "budgets": [entry, ...]},
    each entry with its "simulations" and "optimism" (and how it was measured)."""
    try:
        data = json.loads(CALIBRATION.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def budgets(key: str) -> list[tuple[int, float]]:
    """(simulations, optimism) of each budget this family (or mode, where it has its own) was measured at, in
    budget order."""
    entry = measured().get(key)
    found = entry.get("budgets", []) if isinstance(entry, dict) else []
    return sorted((int(row["simulations"]), float(row["optimism"])) for row in found
                  if isinstance(row, dict) and "simulations" in row and "optimism" in row)


def optimism(family: str, simulations: int | None, mode: str | None = None) -> float:
    """The optimism to take off a chance in this family (its `mode`'s own, where that was measured) at a budget of
    this many simulations per decision: interpolated between the measured budgets (log scale), the nearest one's
    beyond them; 0 where neither has any (or the budget is in seconds: `simulations` None)."""
    points = (budgets(mode) if mode is not None else []) or budgets(family)
    if simulations is None or not points:
        return 0.0
    at = dict(points)
    if simulations in at:
        return at[simulations]
    if simulations < points[0][0]:
        return points[0][1]
    for (low, low_value), (high, high_value) in zip(points, points[1:]):
        if simulations < high:
            share = math.log(simulations / low) / math.log(high / low)
            return low_value + share * (high_value - low_value)
    return points[-1][1]

"""The search's optimism per game family and budget: the data the analysis takes off every chance
(calibration.json beside this module, written by `python -m arena.analysis.measure_optimism`, which says what the
optimism is and how it is measured); and beside it at each budget, where it was measured, the scale of a drop's
standard error (`noise_scale`: the real spread of a drop over independent searches against the standard error its
simulations give, written by `python -m arena.analysis.measure_noise`). Each family has entries at the budgets
it was measured at (simulations per decision), measured on one of its modes; a mode whose search flatters itself
otherwise has entries of its own (keyed by the mode's name), which it takes in place of its family's. Between
two budgets the optimism is interpolated in the logarithm of the budget, beyond the first or the last the nearest
entry holds (the optimism shrinks as the budget grows: holding the last one is the cautious side); the noise
scale the same way (a mode with no scale of its own takes its family's). The scale grows with the budget, so
beyond the last budget measured it likely understates the noise: it is measured up to 800, which the default
budget's confirming searches (a whole budget of 400 on two moves, as an analysis at 800 values them) reach."""

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


def budgets(key: str, field: str = "optimism", table: dict[str, Any] | None = None) -> list[tuple[int, float]]:
    """(simulations, value of `field`) of each budget this family (or mode, where it has its own) was measured at
    (for `field`), in budget order; from `table` where given (`measured()`, read once for several figures)."""
    entry = (measured() if table is None else table).get(key)
    found = entry.get("budgets", []) if isinstance(entry, dict) else []
    return sorted((int(row["simulations"]), value) for row in found if isinstance(row, dict) and "simulations" in row
                  and (value := _number(row.get(field))) is not None)


def _number(value: Any) -> float | None:
    """A measured figure as a float; None where there is none (absent, null, not a finite number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def optimism(family: str, simulations: int | None, mode: str | None = None,
             table: dict[str, Any] | None = None) -> float:
    """The optimism to take off a chance in this family (its `mode`'s own, where that was measured) at a budget of
    this many simulations per decision: interpolated between the measured budgets (log scale), the nearest one's
    beyond them; 0 where neither has any (or the budget is in seconds: `simulations` None). `table`: as budgets'."""
    return _interpolated("optimism", family, simulations, mode, 0.0, table)


def noise_scale(family: str, simulations: int | None, mode: str | None = None,
                table: dict[str, Any] | None = None) -> float:
    """What a drop's standard error (from its simulations' own spread) is multiplied by in this family (or its
    `mode`'s own) at this budget, so it is the size of the drop's real noise: interpolated as the optimism is; 1
    where none was measured (or the budget is in seconds). `table`: as budgets'."""
    return _interpolated("noise_scale", family, simulations, mode, 1.0, table)


def _interpolated(field: str, family: str, simulations: int | None, mode: str | None, default: float,
                  table: dict[str, Any] | None) -> float:
    if simulations is None:
        return default
    table = measured() if table is None else table
    points = (budgets(mode, field, table) if mode is not None else []) or budgets(family, field, table)
    if not points:
        return default
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

"""The search's optimism per game family, at the budget it was measured at: the data the analysis takes off every
chance (calibration.json beside this module, written by `python -m arena.analysis.measure_optimism`, which says
what the optimism is and how it is measured)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CALIBRATION = Path(__file__).with_name("calibration.json")


def measured() -> dict[str, Any]:
    """The shipped measurements, per family ({} where there are none)."""
    try:
        data = json.loads(CALIBRATION.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def optimism(family: str, simulations: int | None) -> float:
    """The optimism to take off a chance in this family at a budget of this many simulations per decision: 0 where
    none was measured at that budget (a budget in seconds, `simulations` None, has none)."""
    entry = measured().get(family)
    if simulations is None or not isinstance(entry, dict) or entry.get("simulations") != simulations:
        return 0.0
    return float(entry.get("optimism", 0.0))

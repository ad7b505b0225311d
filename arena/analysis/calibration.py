"""The search's optimism per game family, as measured by `python -m arena.analysis.calibrate` and shipped in
calibration.json beside this module (see calibrate.py for what it is and how it is measured)."""

from __future__ import annotations

import json
from pathlib import Path

CALIBRATION = Path(__file__).with_name("calibration.json")


def optimism(family: str, budget: str) -> float:
    """The optimism to take off a chance in this family at this budget (0 where none was measured)."""
    try:
        data = json.loads(CALIBRATION.read_text())
    except (OSError, ValueError):
        return 0.0
    entry = data.get(family)
    if not isinstance(entry, dict) or str(entry.get("budget")) != str(budget):
        return 0.0
    return float(entry.get("optimism", 0.0))

"""The calibration: the search's optimism is looked up by the family and the budget it was measured at (a number
of simulations), and is 0 anywhere else."""

from __future__ import annotations

from arena.analysis import DEFAULT_BUDGET, Budget
from arena.analysis.calibration import measured, optimism


def test_the_optimism_applies_at_the_simulations_it_was_measured_at_only() -> None:
    default = Budget.parse(DEFAULT_BUDGET).simulations
    shipped = measured()
    assert set(shipped) == {"major-general", "general-orders-wwii", "general-orders-sengoku"}
    for family, entry in shipped.items():
        assert entry["simulations"] == default and optimism(family, default) == entry["optimism"] > 0
        assert optimism(family, Budget.parse(f"{default} sims").simulations) == entry["optimism"]  # the same budget
        assert optimism(family, default + 1) == 0.0 and optimism(family, Budget.parse("0.5s").simulations) == 0.0
    assert optimism("no-such-family", default) == 0.0

"""Clocks: per-decision time, an overage bank that only shrinks, and a transport grace margin."""

from __future__ import annotations

import pytest

from arena.referee.clock import ClockSettings, SeatClock


def test_time_within_the_move_time_and_grace_costs_nothing() -> None:
    clock = SeatClock(ClockSettings(move_time_s=1.0, bank_s=5.0, grace_s=0.25))
    assert clock.time_left_s == 6.0 and clock.deadline_s == 6.25
    assert clock.charge(1.2)
    assert clock.bank_s == 5.0


def test_overage_comes_out_of_the_bank_until_it_is_empty() -> None:
    clock = SeatClock(ClockSettings(move_time_s=1.0, bank_s=2.0, grace_s=0.0))
    assert clock.charge(2.5)
    assert clock.bank_s == pytest.approx(0.5)
    assert clock.time_left_s == pytest.approx(1.5)
    assert not clock.charge(1.6)  # 0.6 over with 0.5 left: a timeout
    assert clock.bank_s == 0.0


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        ClockSettings(move_time_s=0)
    with pytest.raises(ValueError):
        ClockSettings(bank_s=-1)
    assert ClockSettings(1.5, 0, 0.1).describe() == "1.5s per decision + 0s bank, 0.1s grace"

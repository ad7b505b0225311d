"""Match clocks: a time limit per decision, an overage bank per seat, and a transport grace margin.

The referee times each decision itself, from sending the request to receiving the answer:

    charged = max(0, elapsed - grace)        the grace margin forgives transport time
    overage = max(0, charged - move_time)    time beyond the per-decision limit...
    bank   -= overage                        ...comes out of the seat's bank; below zero = timeout

So a seat may take up to move_time + bank + grace for one decision, and the bank only shrinks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClockSettings:
    """The clock of a match, the same for every seat (seconds)."""

    move_time_s: float = 1.0
    bank_s: float = 10.0
    grace_s: float = 0.25

    def __post_init__(self) -> None:
        if self.move_time_s <= 0:
            raise ValueError(f"move time must be above 0 s, got {self.move_time_s}")
        if self.bank_s < 0 or self.grace_s < 0:
            raise ValueError("bank and grace cannot be negative")

    def describe(self) -> str:
        """'1s per decision + 10s bank, 0.25s grace'."""
        return f"{self.move_time_s:g}s per decision + {self.bank_s:g}s bank, {self.grace_s:g}s grace"

    def to_json(self) -> dict[str, float]:
        """The settings as a JSON-able dict (for match records)."""
        return {"move_time_s": self.move_time_s, "bank_s": self.bank_s, "grace_s": self.grace_s}


class SeatClock:
    """One seat's clock during a match."""

    __slots__ = ("settings", "bank_s")

    def __init__(self, settings: ClockSettings) -> None:
        self.settings = settings
        self.bank_s = settings.bank_s

    @property
    def time_left_s(self) -> float:
        """What the seat may think on its next decision: move time plus the bank (grace not included)."""
        return self.settings.move_time_s + self.bank_s

    @property
    def deadline_s(self) -> float:
        """How long the referee waits for the next answer: time left plus the grace margin."""
        return self.settings.move_time_s + self.bank_s + self.settings.grace_s

    def charge(self, elapsed_s: float) -> bool:
        """Take one decision's time; False when it overran the bank (a timeout)."""
        overage = elapsed_s - self.settings.grace_s - self.settings.move_time_s
        if overage <= 0:
            return True
        self.bank_s -= overage
        if self.bank_s < 0:
            self.bank_s = 0.0
            return False
        return True

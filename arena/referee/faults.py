"""What happens when a seat breaks the rules of the protocol: the fault policy.

A fault (timeout, illegal action, malformed message, wrong sequence number, disconnect, crash,
protocol error, a bot program stopped at a resource limit) always ends the match with that reason
recorded and the offending seat named.
The policy decides the ranking: `forfeit` (the default) ranks the offender last and every other
seat first; `void` ranks every seat equal and marks the result voided, so ratings ignore it.
Policies are written `forfeit`, `void`, or a default with per-fault exceptions:
`forfeit,timeout=void,disconnect=void`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from arena.referee.record import MatchResult, Termination

#: Faults a seat can commit (Termination values other than the referee's own endings).
SEAT_FAULTS = (
    Termination.TIMEOUT,
    Termination.ILLEGAL_ACTION,
    Termination.MALFORMED_MESSAGE,
    Termination.WRONG_SEQUENCE,
    Termination.DISCONNECT,
    Termination.CRASH,
    Termination.PROTOCOL_ERROR,
    Termination.AGENT_ERROR,
    Termination.MEMORY_LIMIT,
    Termination.PROCESS_LIMIT,
    Termination.CPU_LIMIT,
)


class FaultPolicyError(ValueError):
    """A fault policy text that does not parse."""


class Sanction(str, Enum):
    """What a fault costs the offender."""

    FORFEIT = "forfeit"
    VOID = "void"


class SeatFault(Exception):
    """A seat broke the protocol; raised by seat transports and by the match loop."""

    def __init__(self, seat: int, reason: Termination, detail: str) -> None:
        super().__init__(f"seat {seat}: {reason.value}: {detail}")
        self.seat = seat
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class FaultPolicy:
    """The sanction for each kind of fault."""

    default: Sanction = Sanction.FORFEIT
    overrides: dict[Termination, Sanction] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None) -> FaultPolicy:
        """'forfeit', 'void', or 'forfeit,timeout=void,...'; empty or None means forfeit."""
        default = Sanction.FORFEIT
        overrides: dict[Termination, Sanction] = {}
        known_faults = ", ".join(fault.value for fault in SEAT_FAULTS)
        for index, part in enumerate(p.strip() for p in (text or "").split(",")):
            if not part:
                continue
            name, sep, value = part.partition("=")
            try:
                if not sep:
                    if index != 0:
                        raise FaultPolicyError(f"a bare sanction ({part!r}) may only come first")
                    default = Sanction(part)
                    continue
                fault = Termination(name.strip())
                if fault not in SEAT_FAULTS:
                    raise ValueError(name)
                overrides[fault] = Sanction(value.strip())
            except ValueError:
                raise FaultPolicyError(
                    f"bad fault policy part {part!r}: use forfeit or void, optionally followed by "
                    f"fault=forfeit|void for faults {known_faults}") from None
        return cls(default, overrides)

    def sanction(self, reason: Termination) -> Sanction:
        """The sanction for one kind of fault."""
        return self.overrides.get(reason, self.default)

    def result(self, num_seats: int, fault: SeatFault) -> MatchResult:
        """The result of a match that `fault` ended (a fault of the infrastructure is nobody's: voided)."""
        if fault.reason not in SEAT_FAULTS:
            return MatchResult(tuple([0] * num_seats), fault.reason, detail=fault.detail, voided=True)
        if self.sanction(fault.reason) is Sanction.VOID:
            return MatchResult(tuple([0] * num_seats), fault.reason, offender=fault.seat,
                               detail=fault.detail, voided=True)
        return MatchResult(forfeit_ranking(num_seats, fault.seat), fault.reason, offender=fault.seat,
                           detail=fault.detail)

    def __str__(self) -> str:
        parts = [self.default.value] + [f"{fault.value}={s.value}" for fault, s in self.overrides.items()]
        return ",".join(parts)


def forfeit_ranking(num_seats: int, offender: int) -> tuple[int, ...]:
    """The offender ranks last; every other seat shares first place."""
    return tuple(num_seats - 1 if seat == offender else 0 for seat in range(num_seats))


def void_result(num_seats: int, detail: str) -> MatchResult:
    """The result of a match the referee itself stopped (shutdown, internal error): no one at fault."""
    return MatchResult(tuple([0] * num_seats), Termination.VOID, detail=detail, voided=True)

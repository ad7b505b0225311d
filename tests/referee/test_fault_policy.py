"""The fault policy: forfeit by default, void on request, per fault."""

from __future__ import annotations

import pytest

from arena.referee.faults import FaultPolicy, FaultPolicyError, Sanction, SeatFault, void_result
from arena.referee.record import MatchResult, Termination


def test_forfeit_ranks_the_offender_last_and_the_rest_first() -> None:
    result = FaultPolicy().result(3, SeatFault(1, Termination.TIMEOUT, "slow"))
    assert result == MatchResult((0, 2, 0), "timeout", offender=1, detail="slow")


def test_void_ranks_every_seat_equal_and_marks_the_result() -> None:
    policy = FaultPolicy.parse("forfeit, disconnect=void")
    voided = policy.result(2, SeatFault(0, Termination.DISCONNECT, "gone"))
    assert (voided.ranking, voided.reason, voided.offender, voided.voided) == ((0, 0), "disconnect", 0, True)
    assert policy.sanction(Termination.CRASH) is Sanction.FORFEIT
    assert str(policy) == "forfeit,disconnect=void"
    assert FaultPolicy.parse(str(policy)) == policy
    assert FaultPolicy.parse("void").sanction(Termination.ILLEGAL_ACTION) is Sanction.VOID


@pytest.mark.parametrize("text", ["lose", "timeout=lose", "score=void", "timeout=void,void"])
def test_bad_policies_are_refused(text: str) -> None:
    with pytest.raises(FaultPolicyError):
        FaultPolicy.parse(text)


def test_a_referee_side_void_names_no_offender() -> None:
    result = void_result(2, "shutdown")
    assert (result.reason, result.offender, result.voided, result.ranking) == ("void", None, True, (0, 0))
    assert MatchResult.from_json(result.to_json()) == result

"""General Orders through the real referee: one match of each mode between two greedy SDK bot
processes (the greedy bot decodes each observation it is sent with a choice to make, and samples
the hidden cards from it); each record replays, and equals the match played in-process on the same
seed, so the decoded observations led the bots to exactly the decisions the engine's own do."""

from __future__ import annotations

import pytest

from arena.agents import GreedyAgent
from arena.referee import play_match
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.rpc.background import BackgroundReferee

RULES_ENDINGS = {"hq_lost", "victory_points", "initiative_tie_break"}


def steps_of(record: MatchRecord) -> list[tuple[int, int, int, str]]:
    return [(step.n, step.seat, step.action, step.label) for step in record.steps]


@pytest.mark.parametrize("name,seed", [  # seeds of games 50 to 120 decisions long
    ("general-orders-wwii/alpine", 34),
    ("general-orders-wwii/island", 33),
    ("general-orders-sengoku/rivers", 33),
    ("general-orders-sengoku/fortress", 32),
])
def test_a_general_orders_match_through_the_referee_replays(referee: BackgroundReferee, name: str, seed: int) -> None:
    record = referee.run_match(name, ["greedy", "greedy"], seed=seed)
    assert record.result is not None and record.result.reason in RULES_ENDINGS, record.result
    assert [player.kind for player in record.players] == [PlayerKind.BOT, PlayerKind.BOT]
    assert {step.seat for step in record.decisions} == {0, 1}
    replay(record)
    local = play_match(name, [GreedyAgent(), GreedyAgent()], seed)
    assert steps_of(record) == steps_of(local)
    assert record.result == local.result

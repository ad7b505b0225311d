"""A bot written against the generated stubs alone plays a full match, and no DecisionRequest it
receives carries the opponent's hand or the deck: each request is a function of the observing
seat's observation only (re-sampling every hidden card gives the very same bytes)."""

from __future__ import annotations

import random

from arena.games.base import State
from arena.referee.record import MatchRecord
from arena.referee.replay import game_of, replay, replay_steps
from arena.referee.seats import Ask
from arena.rpc.background import BackgroundReferee
from arena.rpc.generated.bot_pb2 import RefereeMessage
from arena.rpc.observations import codec_for_game
from arena.rpc.session import encode_decision_request


def states_before_decisions(record: MatchRecord) -> list[State]:
    """The state each recorded decision was taken in."""
    game = game_of(record)
    before: list[State] = []
    state = game.new_initial_state()
    for after, step in replay_steps(record):
        if not step.is_chance:
            before.append(state)
        state = after.clone()
    return before


def test_stub_only_bot_plays_and_requests_hold_no_secrets(referee: BackgroundReferee) -> None:
    record = referee.run_match("major-general", ["stubonly", "random"], seed=21)
    assert record.result is not None and record.result.reason == "score", record.result
    replay(record)
    prefix = f"request {record.match_id}-0 "
    lines = [line[len(prefix):] for line in referee.server.pool.output_tail("stubonly").splitlines()
             if line.startswith(prefix)]
    requests = [RefereeMessage.FromString(bytes.fromhex(line)) for line in lines]
    states = [state for state, step in zip(states_before_decisions(record), record.decisions) if step.seat == 0]
    assert len(requests) == len(states) > 0

    game = game_of(record)
    codec = codec_for_game(record.game)
    rng = random.Random(1)
    hidden_cards_differed = 0
    for message, state in zip(requests, states):
        request = message.decision_request
        assert request.seat == 0
        observation = state.observation(0)
        assert codec.decode(request.observation) == observation
        assert list(request.legal_actions) == state.legal_actions()
        assert list(request.legal_labels) == [state.action_to_string(a) for a in state.legal_actions()]
        # the request names its moment as the record numbers it: decision `sequence`, at step `step`
        assert request.sequence >= 1 and record.step_of_decision(request.sequence) == request.step
        sent = message.SerializeToString()
        for _ in range(4):  # the same request whatever the opponent holds and the decks contain
            other = game.determinize(observation, rng)
            if other.to_json()["hands"][1] != state.to_json()["hands"][1]:
                hidden_cards_differed += 1
            ask = Ask(request.sequence, 0, other.legal_actions(), other, request.time_left_ms / 1000.0,
                      request.bank_ms / 1000.0, request.step)
            assert encode_decision_request(ask, codec.fill, codec.field, omit_labels=False) == sent
    assert hidden_cards_differed > 0  # the check had hidden cards to leak


def test_the_observation_message_has_no_field_for_hidden_cards() -> None:
    from arena.rpc.generated.observations_pb2 import MajorGeneralObservation

    names = {field.name for field in MajorGeneralObservation.DESCRIPTOR.fields}
    assert "hand" in names and "hand_sizes" in names and "deck_sizes" in names
    assert not names & {"hands", "decks", "deck", "opponent_hand"}

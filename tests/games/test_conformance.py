"""One conformance suite over every registered game mode.

Random games end without error and replay exactly from their records; clones are independent;
states survive a JSON round trip; an observation does not change when only hidden information
(the opponent's hand, the deck) changes; `determinize` returns states consistent with the
observation; illegal actions are refused without touching the state.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from arena.agents import RandomAgent
from arena.games.base import CHANCE, TERMINAL, Game, IllegalActionError, State
from arena.games.registry import game_modes, load_game
from arena.referee import play_match
from arena.referee.record import MatchRecord, Termination
from arena.referee.replay import ReplayDivergence, replay

MODES = [mode.name for mode in game_modes()]
RANDOM_GAMES = 1000
FAULTS = {t.value for t in Termination}


@pytest.fixture(params=MODES)
def game(request: pytest.FixtureRequest) -> Game:
    return load_game(request.param)


def random_step(state: State, rng: random.Random) -> int:
    """A uniformly random legal action, or a chance outcome by its probability."""
    if state.current_player() == CHANCE:
        return state.sample_chance(rng)
    return rng.choice(state.legal_actions())


def test_game_info_is_sane(game: Game) -> None:
    info = game.info
    assert info.num_seats >= 1 and len(info.seat_names) == info.num_seats
    assert info.num_actions > 0 and info.max_game_length > 0
    labels = [game.action_label(a) for a in range(game.num_actions)]
    assert all(labels) and len(labels) == game.num_actions
    assert all(game.chance_label(o) for o in range(info.num_chance_outcomes))
    assert load_game(game.name, game.options).options == game.options


def test_thousand_random_games_end_and_replay_exactly(game: Game) -> None:
    agents = [RandomAgent() for _ in range(game.num_seats)]
    reasons: set[str] = set()
    for seed in range(RANDOM_GAMES):
        record = play_match(game, agents, seed)
        assert record.result is not None
        assert record.result.reason not in FAULTS, record.result
        assert len(record.result.ranking) == game.num_seats
        reasons.add(record.result.reason)
        if seed % 10 == 0:  # through the file format as well
            record = MatchRecord.from_jsonl(record.to_jsonl())
        final = replay(record)
        assert final.is_terminal()
        assert tuple(final.outcome().ranking) == record.result.ranking
    assert reasons


def test_replay_reports_the_line_where_a_record_diverges(game: Game) -> None:
    record = play_match(game, [RandomAgent() for _ in range(game.num_seats)], 7)
    decisions = [i for i, step in enumerate(record.steps) if not step.is_chance]
    index = decisions[len(decisions) // 2]
    step = record.steps[index]
    # Replace one decision by an action that is illegal at that point.
    state = game.new_initial_state()
    for earlier in record.steps[:index]:
        state.apply_action(earlier.action)
    legal_now = set(state.legal_actions())
    illegal = next(a for a in range(game.num_actions + 1) if a not in legal_now)
    record.steps[index] = type(step)(step.n, step.seat, illegal, step.label)
    with pytest.raises(ReplayDivergence) as caught:
        replay(record)
    assert caught.value.line == index + 2  # the header is line 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_step_keeps_the_interface_contract(game: Game, seed: int) -> None:
    rng = random.Random(seed)
    probe = random.Random(seed ^ 0x5EED)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        player = state.current_player()
        assert player == CHANCE or 0 <= player < game.num_seats
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and legal, "legal actions: non-empty, ascending, unique"
        if player == CHANCE:
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert all(p > 0 for _, p in outcomes)
            assert [o for o, _ in outcomes] == legal
            assert all(0 <= o < game.info.num_chance_outcomes for o in legal)
        else:
            assert state.chance_outcomes() == []
            assert all(0 <= a < game.num_actions for a in legal)
            assert all(state.action_to_string(a) for a in legal)
        assert state.returns() == [0.0] * game.num_seats
        if probe.random() < 0.15:
            check_clone_is_independent(state, rng)
            check_json_round_trip(game, state)
            check_illegal_action_is_refused(game, state)
            for seat in range(game.num_seats):
                check_observation_and_determinize(game, state, seat, probe)
        state.apply_action(random_step(state, rng))
        steps += 1
        assert steps <= game.info.max_game_length
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    outcome = state.outcome()
    assert outcome is not None and len(outcome.ranking) == game.num_seats
    assert len(state.returns()) == game.num_seats
    check_json_round_trip(game, state)


def check_clone_is_independent(state: State, rng: random.Random) -> None:
    before = state.to_json()
    twin = state.clone()
    assert twin.to_json() == before
    twin.apply_action(random_step(twin, rng))
    assert state.to_json() == before, "changing a clone changed its original"
    other = state.clone()
    state_copy = state.clone()
    state_copy.apply_action(random_step(state_copy, rng))
    assert other.to_json() == before, "changing the original changed a clone"


def check_json_round_trip(game: Game, state: State) -> None:
    data = json.loads(json.dumps(state.to_json()))
    rebuilt = game.state_from_json(data)
    assert rebuilt.to_json() == state.to_json()
    assert rebuilt.current_player() == state.current_player()
    assert rebuilt.legal_actions() == state.legal_actions()
    assert rebuilt.chance_outcomes() == state.chance_outcomes()
    # Both continue identically.
    left, right = state.clone(), rebuilt
    rng_left, rng_right = random.Random(1), random.Random(1)
    for _ in range(25):
        if left.is_terminal():
            break
        left.apply_action(random_step(left, rng_left))
        right.apply_action(random_step(right, rng_right))
    assert left.to_json() == right.to_json()


def check_illegal_action_is_refused(game: Game, state: State) -> None:
    before = state.to_json()
    legal = set(state.legal_actions())
    space = game.info.num_chance_outcomes if state.current_player() == CHANCE else game.num_actions
    candidates = [a for a in range(space) if a not in legal] + [space, -1]
    for action in candidates[:3] + candidates[-2:]:
        with pytest.raises(IllegalActionError) as caught:
            state.apply_action(action)
        assert str(action) in str(caught.value), "the error names the action"
        assert state.to_json() == before, "an illegal action changed the state"


def check_observation_and_determinize(game: Game, state: State, seat: int, rng: random.Random) -> None:
    observation = state.observation(seat)
    assert json.loads(json.dumps(observation)) == observation, "observations are JSON-able"
    for _ in range(3):
        sample = game.determinize(observation, random.Random(rng.random()))
        # Same observation although hidden cards may differ: the observation cannot reveal them.
        assert sample.observation(seat) == observation
        assert sample.current_player() == state.current_player()
        if state.current_player() == seat:
            assert sample.legal_actions() == state.legal_actions()


def test_observation_is_blind_to_hidden_information(game: Game) -> None:
    """Determinizations differ in hidden state (opponent's hand, deck) yet observe identically."""
    if not game.info.has_hidden_information:
        pytest.skip(f"{game.name} has no hidden information")
    rng = random.Random(11)
    differing = 0
    for seed in range(10):
        state = game.new_initial_state()
        play = random.Random(seed)
        for _ in range(play.randrange(10, 40)):
            if state.is_terminal():
                break
            state.apply_action(random_step(state, play))
        for seat in range(game.num_seats):
            observation = state.observation(seat)
            samples = [game.determinize(observation, random.Random(rng.random())) for _ in range(8)]
            hidden = {json.dumps(sample.to_json(), sort_keys=True) for sample in samples}
            differing += len(hidden) > 1
            for sample in samples:
                assert sample.observation(seat) == observation
    assert differing > 0, "determinize never varied the hidden information"

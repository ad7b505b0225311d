"""The OpenSpiel bridge: every registered game as a pyspiel game, OpenSpiel's bots playing through it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install 'arena[openspiel]')")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from arena.agents import make_agent  # noqa: E402
from arena.games.base import CHANCE, TERMINAL  # noqa: E402
from arena.games.registry import game_modes, load_game  # noqa: E402
from arena.openspiel import (  # noqa: E402
    ArenaSpielState,
    load_openspiel_game,
    openspiel_game_for,
    openspiel_name,
    register_all,
)
from arena.referee import play_match  # noqa: E402

MODES = [mode.name for mode in game_modes()]


def test_every_registered_mode_is_a_pyspiel_game() -> None:
    names = register_all()
    assert set(names) == set(MODES)
    registered = set(pyspiel.registered_names())
    assert all(short in registered for short in names.values())
    assert openspiel_name("major-general/hold-the-centre") == "arena_major_general__hold_the_centre"
    assert openspiel_name("major-general") == "arena_major_general"


@pytest.mark.parametrize("name", MODES)
def test_a_pyspiel_playthrough_matches_the_arena_engine(name: str) -> None:
    game = load_game(name)
    spiel_game = load_openspiel_game(name)
    info = game.info
    assert spiel_game.num_distinct_actions() == info.num_actions
    assert spiel_game.num_players() == info.num_seats
    assert spiel_game.max_chance_outcomes() == info.num_chance_outcomes
    assert spiel_game.get_type().information == (pyspiel.GameType.Information.IMPERFECT_INFORMATION
                                                 if info.has_hidden_information else
                                                 pyspiel.GameType.Information.PERFECT_INFORMATION)
    rng = random.Random(7)
    arena_state = game.new_initial_state()
    spiel_state = spiel_game.new_initial_state()
    steps = 0
    while not arena_state.is_terminal():
        player = arena_state.current_player()
        assert spiel_state.current_player() == (pyspiel.PlayerId.CHANCE if player == CHANCE else player)
        assert not spiel_state.is_terminal()
        if player == CHANCE:
            assert spiel_state.chance_outcomes() == arena_state.chance_outcomes()
            action = arena_state.sample_chance(rng)
        else:
            assert spiel_state.legal_actions() == arena_state.legal_actions()
            assert all(spiel_state.legal_actions(other) == [] for other in range(info.num_seats) if other != player)
            assert spiel_state.action_to_string(player, arena_state.legal_actions()[0])
            observation = spiel_state.observation_string(player)
            assert spiel_state.information_state_string(player) == observation
            action = rng.choice(arena_state.legal_actions())
        if steps % 7 == 0:
            copy = spiel_state.clone()
            copy.apply_action(action)
            assert copy.arena is not spiel_state.arena and copy.history() != spiel_state.history()
        arena_state.apply_action(action)
        spiel_state.apply_action(action)
        steps += 1
    assert spiel_state.is_terminal() and spiel_state.current_player() == pyspiel.PlayerId.TERMINAL
    assert spiel_state.returns() == arena_state.returns()
    assert arena_state.current_player() == TERMINAL
    assert str(spiel_state) == arena_state.board_text()


def test_parameters_and_resampling() -> None:
    spiel_game = pyspiel.load_game("arena_major_general(scenario=breakthrough)")
    assert spiel_game.arena_game.options == {"scenario": "breakthrough"}
    state = spiel_game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(state.arena.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(5):
        world = state.resample_from_infostate(player, sampler)
        assert isinstance(world, ArenaSpielState)
        assert world.information_state_string(player) == state.information_state_string(player)
    with pytest.raises(Exception, match="illegal"):
        state.apply_action(81 if 81 not in state.legal_actions() else 0)


@pytest.mark.parametrize("name", ["major-general", "general-orders-wwii/island"])
def test_openspiel_bots_play_a_game_through_the_bridge(name: str) -> None:
    spiel_game = openspiel_game_for(load_game(name))
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [ismcts.ISMCTSBot(spiel_game, evaluator, 2.0, 10, random_state=rng),
            mcts.MCTSBot(spiel_game, 2.0, 10, evaluator, random_state=rng)]
    state = spiel_game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sorted(state.returns()) == [-1.0, 1.0] or state.returns() == [0.0, 0.0]


def test_openspiel_agents_sit_in_arena_matches() -> None:
    game = load_game("major-general")
    for spec in ("openspiel-ismcts:simulations=20", "openspiel-ismcts:seconds=0.005:evaluator=arena",
                 "openspiel-mcts:simulations=20:evaluator=arena"):
        record = play_match(game, [make_agent(spec), make_agent("random")], 5)
        assert record.result is not None and record.result.reason == "score", (spec, record.result)
    first = play_match(game, [make_agent("openspiel-ismcts:simulations=15"), make_agent("random")], 6)
    again = play_match(game, [make_agent("openspiel-ismcts:simulations=15"), make_agent("random")], 6)
    assert [s.action for s in first.steps] == [s.action for s in again.steps]  # seeded


def test_openspiel_ismcts_answers_from_the_least_search_whatever_the_budget() -> None:
    """A time budget on a busy machine may allow one simulation, which only expands the root: the agent
    still searches the two OpenSpiel's final policy needs, never raising."""
    game = load_game("major-general")
    for spec in ("openspiel-ismcts:simulations=1", "openspiel-ismcts:seconds=0.000001:evaluator=arena"):
        record = play_match(game, [make_agent(spec), make_agent("random")], 7)
        assert record.result is not None and record.result.reason == "score", (spec, record.result)

"""The built-in agents over every registered game: they finish games, are reproducible, and are better than random."""

from __future__ import annotations

import pytest

from arena.agents import AGENTS, UnknownAgentError, make_agent
from arena.agents.base import DecisionRequest
from arena.agents.knowledge import NoStrategyError, knowledge_for
from arena.agents.greedy import GreedyAgent
from arena.agents.mcts import MCTSAgent, Node
from arena.games.base import CHANCE
from arena.games.registry import game_modes, load_game
from arena.referee import play_match
from arena.referee.record import Termination

MODES = [mode.name for mode in game_modes()]
FAULTS = {t.value for t in Termination}


def decisions(record) -> list[tuple[int, int]]:
    return [(step.seat, step.action) for step in record.steps]


@pytest.mark.parametrize("name", MODES)
def test_every_built_in_agent_finishes_a_game_of_every_mode(name: str) -> None:
    game = load_game(name)
    scripted = "scripted" if knowledge_for(game).scripted_action is not None else "random"
    for specs, seed in (([scripted, "greedy"], 1), (["mcts:iterations=8", "random"], 2)):
        specs = (specs * game.num_seats)[:game.num_seats]  # as many seats as the game has
        record = play_match(game, [make_agent(spec) for spec in specs], seed)
        assert record.result is not None and record.result.reason not in FAULTS, (specs, record.result)


@pytest.mark.parametrize("spec", ["scripted", "greedy", "mcts:iterations=30"])
def test_same_seed_same_game(spec: str) -> None:
    game = load_game("major-general")
    first = play_match(game, [make_agent(spec), make_agent("random")], 11)
    second = play_match(game, [make_agent(spec), make_agent("random")], 11)
    other = play_match(game, [make_agent(spec), make_agent("random")], 12)
    assert decisions(first) == decisions(second)
    assert decisions(first) != decisions(other)


@pytest.mark.parametrize("spec", ["scripted", "greedy", "mcts:iterations=40"])
def test_built_in_agents_beat_random(spec: str) -> None:
    # Seeded, so not flaky: these exact games are won (the bench measures rates over hundreds).
    for name in ("major-general", "general-orders-wwii/alpine"):
        game = load_game(name)
        for seat in (0, 1):
            agents = [make_agent("random"), make_agent("random")]
            agents[seat] = make_agent(spec)
            record = play_match(game, agents, 100 + seat)
            assert record.result is not None and record.result.ranking[seat] == 0, (name, seat, record.result)


def test_agents_are_registered_and_specs_are_checked() -> None:
    for name in ("random", "scripted", "greedy", "mcts", "openspiel-ismcts", "openspiel-mcts"):
        assert name in AGENTS
    assert make_agent("mcts:iterations=50:uct_c=0.5").iterations == 50
    for bad in ("mcts:iterations=0", "mcts:seconds=-1", "greedy:samples=0"):
        with pytest.raises(UnknownAgentError, match="bad parameters"):
            make_agent(bad)
    with pytest.raises(UnknownAgentError, match="agent 'mcts' has no parameter 'speed'; its parameters: iterations"):
        make_agent("mcts:speed=9")


def test_scripted_refuses_a_game_without_a_strategy_before_the_match() -> None:
    from tests.agents.test_families import BareGame

    with pytest.raises(NoStrategyError):
        make_agent("scripted").reset(BareGame(), 0, 1)


def first_decision(name: str, seed: int = 3, skip: int = 6):
    """A state at a real decision (two options or more) after `skip` random decisions."""
    import random

    game = load_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    seen = 0
    while True:
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if len(legal) > 1 and seen >= skip:
            return game, state
        state.apply_action(rng.choice(legal))
        seen += 1


def request_for(state) -> DecisionRequest:
    seat = state.current_player()
    return DecisionRequest(seat, state.legal_actions(), state.observation(seat))


def test_mcts_runs_its_iteration_budget_and_answers_a_legal_action() -> None:
    game, state = first_decision("general-orders-wwii/island")
    agent = MCTSAgent(iterations=25, minor_share=1.0)
    agent.reset(game, state.current_player(), 5)
    action = agent.act(request_for(state))
    assert action in state.legal_actions()
    assert agent.last_iterations == 25


def test_mcts_spends_less_on_steps_inside_a_move() -> None:
    game, state = first_decision("major-general", skip=0)  # a card to play: the start of a move
    seat = state.current_player()
    agent = MCTSAgent(iterations=40, minor_share=0.25)
    agent.reset(game, seat, 5)
    state.apply_action(agent.act(request_for(state)))
    assert agent.last_iterations == 40
    while state.current_player() == seat and not knowledge_for(game).is_lookahead_boundary(state):
        if len(state.legal_actions()) > 1:  # a choice of the command it just played: inside the move
            state.apply_action(agent.act(request_for(state)))
            assert agent.last_iterations == 10
            return
        state.apply_action(state.legal_actions()[0])
    pytest.skip("this card needed no further choice")


def test_mcts_time_budget_and_the_clock() -> None:
    game, state = first_decision("major-general")
    agent = MCTSAgent(seconds=0.01)
    agent.reset(game, state.current_player(), 5)
    assert agent.act(request_for(state)) in state.legal_actions()
    assert agent.last_iterations >= 1
    # With a referee clock it spends at most time_fraction of what is left.
    assert agent._budget_seconds(None) == 0.01
    assert agent._budget_seconds(0.1) == pytest.approx(0.005)
    assert MCTSAgent(iterations=10)._budget_seconds(None) is None
    assert MCTSAgent(iterations=10)._budget_seconds(2.0) == pytest.approx(0.1)


def test_mcts_samples_hidden_cards_from_the_observation_only() -> None:
    game, state = first_decision("major-general")
    seat = state.current_player()
    observation = state.observation(seat)
    calls = []
    real = game.determinize

    def spy(obs, rng):
        calls.append(obs)
        return real(obs, rng)

    game.determinize = spy  # type: ignore[method-assign]
    try:
        agent = MCTSAgent(iterations=40, worlds=0, minor_share=1.0)
        agent.reset(game, seat, 9)
        agent.act(DecisionRequest(seat, state.legal_actions(), observation))
    finally:
        del game.determinize
    # One world for the prior and the kind of decision, then a fresh one per iteration.
    assert len(calls) == 41 and all(obs is observation for obs in calls)


def test_mcts_keeps_its_tree_between_decisions() -> None:
    game = load_game("major-general")
    agent = MCTSAgent(iterations=100)
    reused = []
    act = agent.act

    def recording_act(request: DecisionRequest) -> int:
        action = act(request)
        reused.append(agent.last_reused)
        return action

    agent.act = recording_act  # type: ignore[method-assign]
    play_match(game, [agent, make_agent("random")], 4)
    assert any(visits > 0 for visits in reused)
    assert MCTSAgent(iterations=100, keep_tree=False)._kept is None


def test_mcts_plays_the_most_visited_move() -> None:
    agent = MCTSAgent(iterations=1)
    root = Node()
    for action, visits, total in ((3, 5, 4.0), (7, 9, -1.0), (8, 9, 2.0)):
        child = root.children[action] = Node()
        child.visits, child.total = visits, total
    assert agent.best_action(root, [3, 7, 8]) == 8  # most visits; the tie goes to the better mean
    assert agent.best_action(root, [3, 5]) == 3  # only legal moves count


def test_greedy_values_every_legal_action_and_picks_the_best() -> None:
    game, state = first_decision("general-orders-wwii/alpine")
    seat = state.current_player()
    agent = GreedyAgent()
    agent.reset(game, seat, 1)
    values = agent.action_values(state, seat, state.legal_actions())
    assert set(values) == set(state.legal_actions())
    assert all(-1.0 <= value <= 1.0 for value in values.values())
    chosen = agent.act(request_for(state))
    assert values[chosen] == pytest.approx(max(values.values()))


def test_a_turn_aware_search_changes_nothing_where_the_family_has_no_turn_values() -> None:
    """`turn_aware` (the analysis' searches) reads the family's turn_values; General Orders has none, so its
    search is the player's, move for move and value for value."""
    game, state = first_decision("general-orders-wwii/island")
    found = []
    for turn_aware in (False, True):
        agent = MCTSAgent(iterations=30, keep_tree=False, turn_aware=turn_aware)
        agent.reset(game, state.current_player(), 9)
        found.append(agent.move_values(request_for(state)))
    assert found[0] == found[1]


def test_a_turn_aware_search_values_major_general_by_its_turn_values() -> None:
    game, state = first_decision("major-general", skip=0)
    seat = state.current_player()
    plain, aware = MCTSAgent(iterations=60, keep_tree=False), MCTSAgent(iterations=60, keep_tree=False,
                                                                         turn_aware=True)
    for agent in (plain, aware):
        agent.reset(game, seat, 9)
    assert aware.knowledge.values is knowledge_for(game).turn_values
    assert plain.knowledge.values is knowledge_for(game).values
    valued = aware.move_values(request_for(state))
    assert valued.best in state.legal_actions() and aware.last_iterations >= 60
    again = MCTSAgent(iterations=60, keep_tree=False, turn_aware=True)
    again.reset(game, seat, 9)
    assert again.move_values(request_for(state)) == valued  # (the same seed: the same search)


@pytest.mark.parametrize("name", ["general-orders-wwii/alpine", "major-general"])
def test_value_moves_gives_each_move_the_same_simulations_however_the_search_rates_it(name: str) -> None:
    """The analysis' judge: each move asked for is searched on its own budget (a move the search rates last gets
    as many as its best), its value is that search's alone, and the same seed gives the same values."""
    game, state = first_decision(name)
    request = request_for(state)
    ranker = MCTSAgent(iterations=80, keep_tree=False, turn_aware=True)
    ranker.reset(game, request.seat, 4)
    ranked = ranker.move_values(request)
    best = ranked.best
    worst = min((action for action in ranked.values if action != best), key=lambda action: ranked.values[action][0])
    assert ranked.simulated[worst][1] < ranked.simulated[best][1]  # (UCB gives a poor move few visits)
    judge = MCTSAgent(iterations=80, keep_tree=False, turn_aware=True)
    judge.reset(game, request.seat, 5)
    valued = judge.value_moves(request, (best, worst), 24)
    assert set(valued.simulated) == {best, worst} and valued.best == best
    if knowledge_for(game).turn_values is None:
        assert valued.simulated[best][1] == valued.simulated[worst][1] == 24
    else:  # (Major General's turn-aware search seeds the reply's values, which count against each move's budget)
        assert 0 < valued.simulated[best][1] <= 24 and 0 < valued.simulated[worst][1] <= 24
    assert judge.last_iterations >= 48
    assert all(-1 <= mean <= 1 for mean, _ in valued.simulated.values())
    again = MCTSAgent(iterations=80, keep_tree=False, turn_aware=True)
    again.reset(game, request.seat, 5)
    assert again.value_moves(request, (best, worst), 24) == valued
    alone = MCTSAgent(iterations=80, keep_tree=False, turn_aware=True)
    alone.reset(game, request.seat, 5)
    assert set(alone.value_moves(request, (best, best), 24).simulated) == {best}  # (a move asked twice: once)
    own = MCTSAgent(iterations=24, keep_tree=False, turn_aware=True)
    own.reset(game, request.seat, 5)
    assert own.value_moves(request, (best, worst), None) == valued  # (no budget given: the agent's own, each)
    with pytest.raises(ValueError, match="at least one move"):
        own.value_moves(request, (), 24)

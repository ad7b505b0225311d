"""Per-family knowledge: evaluations over every registered game, and the scripted rules of thumb."""

from __future__ import annotations

import math
import random

import pytest

from arena.agents.knowledge import NoStrategyError, evaluate, knowledge_for, neutral_values, scripted_policy
from arena.games.general_orders.sengoku import knowledge as sg_knowledge
from arena.games.general_orders.wwii import knowledge as go_knowledge
from arena.games.major_general import knowledge as mg_knowledge
from arena.games.base import CHANCE, TERMINAL, Game, GameInfo, State
from arena.games.general_orders.wwii.positions import build_position, deploy, play
from arena.games.general_orders.core import DECLINE
from arena.games.general_orders.wwii.rules import WWIIGame
from arena.games.major_general.rules import MOVE_BASE, TARGET_YELLOW
from arena.games.registry import game_modes, load_game
from arena.games.major_general.data import SCENARIOS
from tests.games.major_general.position import RED, YELLOW, card_with, play_action, position

MODES = [mode.name for mode in game_modes()]


def random_positions(game: Game, seed: int, every: int = 5) -> list[State]:
    """Every `every`-th state of a seeded random game, the final one included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    seen = []
    steps = 0
    while not state.is_terminal():
        if steps % every == 0:
            seen.append(state.clone())
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return seen + [state]


@pytest.mark.parametrize("name", MODES)
def test_every_registered_game_has_an_evaluation_in_range(name: str) -> None:
    game = load_game(name)
    knowledge = knowledge_for(game)
    for state in random_positions(game, seed=len(name)):
        values = knowledge.values(state)
        assert len(values) == game.num_seats
        assert all(-1.0 <= value <= 1.0 for value in values)
        if game.num_seats == 2:
            assert abs(sum(values)) < 1e-9  # two-seat zero-sum
        if state.current_player() == TERMINAL:
            assert values == state.returns()
        assert evaluate(state, 0) == values[0]


@pytest.mark.parametrize("name", ["major-general", "general-orders-wwii/alpine", "general-orders-wwii/island",
                                  "general-orders-sengoku/rivers", "general-orders-sengoku/fortress"])
def test_the_families_with_knowledge_have_an_evaluation_and_a_script(name: str) -> None:
    knowledge = knowledge_for(load_game(name))
    assert knowledge.has_evaluation and knowledge.scripted_action is not None
    assert knowledge.is_lookahead_boundary is not None


class BareGame(Game):
    """A game from an engine Arena's agents know nothing about."""

    @property
    def info(self) -> GameInfo:
        return GameInfo("bare", "Bare", 2, 1, 0, 1, False, False, ("A", "B"))

    def new_initial_state(self) -> State:
        raise NotImplementedError

    def action_label(self, action: int) -> str:
        return "a"

    def chance_label(self, outcome: int) -> str:
        return "c"

    def state_from_json(self, data: dict) -> State:
        raise NotImplementedError

    def determinize(self, observation: dict, rng: random.Random) -> State:
        raise NotImplementedError


def test_an_unknown_engine_gets_the_neutral_evaluation_and_no_script() -> None:
    game = BareGame()
    knowledge = knowledge_for(game)
    assert knowledge.values is neutral_values and not knowledge.has_evaluation
    with pytest.raises(NoStrategyError, match="no scripted strategy for bare"):
        scripted_policy(game)


def test_knowledge_is_what_each_family_declares() -> None:
    assert knowledge_for(load_game("major-general")).family == "major-general"
    assert knowledge_for(load_game("general-orders-wwii/island")).values.__module__ == go_knowledge.__name__
    assert knowledge_for(load_game("general-orders-sengoku/rivers")).scripted_action is sg_knowledge.scripted_action


# --- Major General ---------------------------------------------------------------------------------


def test_major_general_evaluation_prefers_holding_more_and_further() -> None:
    even = position(yellow=(3, 3, 2, 0, 0), red=(0, 0, 2, 3, 3))
    ahead = position(yellow=(3, 3, 3, 0, 0), red=(0, 0, 1, 3, 3))  # Yellow now holds the middle
    deep = position(yellow=(2, 2, 2, 2, 0), red=(0, 0, 1, 1, 3))  # ...and space 4 as well
    assert mg_knowledge.evaluate(even, YELLOW) == pytest.approx(0.0, abs=1e-9)
    assert 0 < mg_knowledge.evaluate(ahead, YELLOW) < mg_knowledge.evaluate(deep, YELLOW)
    assert mg_knowledge.evaluate(deep, RED) == -mg_knowledge.evaluate(deep, YELLOW)


def test_major_general_evaluation_counts_scenario_cubes_and_objectives() -> None:
    plain = position(scenario="hold-the-centre")
    cubes = position(scenario="hold-the-centre", cubes=(2, 0))
    centre = position(yellow=(3, 3, 3, 0, 0), red=(0, 0, 2, 3, 3), scenario="hold-the-centre")
    centre_no_scenario = position(yellow=(3, 3, 3, 0, 0), red=(0, 0, 2, 3, 3))
    assert mg_knowledge.evaluate(cubes, YELLOW) > mg_knowledge.evaluate(plain, YELLOW)
    assert mg_knowledge.evaluate(centre, YELLOW) > mg_knowledge.evaluate(centre_no_scenario, YELLOW)


def test_major_general_script_sabotages_and_charges_the_enemy() -> None:
    game = load_game("major-general/no-scenario")
    rng = random.Random(0)
    for command in ("sabotage", "charge"):
        state = position(yellow=(3, 3, 2, 0, 0), red=(0, 0, 2, 3, 3), top=(None, None, (command, YELLOW), None, None)
                         if command == "sabotage" else (None, (command, YELLOW), None, None, None),
                         hands=((card_with("deploy", "push"), 1, 2), (3, 4, 5)))
        state.apply_action(play_action(card_with("deploy", "push"), 4, "deploy"))  # far from the command
        assert state.current_player() == YELLOW and state.legal_actions() == [TARGET_YELLOW, TARGET_YELLOW + 1]
        choice = mg_knowledge.scripted_action(game, state.observation(YELLOW), state.legal_actions(), rng)
        assert choice == TARGET_YELLOW + RED, command


def test_major_general_script_moves_forward_only_what_the_space_can_spare() -> None:
    game = load_game("major-general/no-scenario")
    state = position(yellow=(0, 5, 0, 0, 0), red=(0, 1, 0, 3, 6), top=(None, ("move", YELLOW), None, None, None),
                     hands=((card_with("deploy", "push"), 1, 2), (3, 4, 5)))
    state.apply_action(play_action(card_with("deploy", "push"), 4, "deploy"))
    legal = state.legal_actions()
    assert legal == list(range(MOVE_BASE, MOVE_BASE + 5))
    choice = mg_knowledge.scripted_action(game, state.observation(YELLOW), legal, random.Random(0))
    moved = choice - MOVE_BASE + 1
    assert 1 <= moved <= 3  # at least two stay to hold space 2 against Red's one unit


def test_major_general_script_places_its_command_where_it_helps() -> None:
    # Yellow can put Sabotage or Charge next to Red's lone unit in the middle and take the space.
    game = load_game("major-general/no-scenario")
    state = position(yellow=(3, 3, 2, 0, 0), red=(0, 0, 3, 3, 3), hands=((card_with("charge", "move"), 1, 2), (3, 4, 5)))
    scores = {a: mg_knowledge.placement_score(state.observation(YELLOW), a) for a in state.legal_actions()}
    best = max(scores, key=scores.__getitem__)
    weakest = min(scores, key=scores.__getitem__)
    assert scores[best] > scores[weakest]
    after = state.clone()
    after.apply_action(best)
    while after.current_player() == YELLOW and not after.is_terminal() and after.phase != 3:  # resolve its choices
        after.apply_action(mg_knowledge.scripted_action(game, after.observation(YELLOW), after.legal_actions(),
                                                        random.Random(0)))
    assert mg_knowledge.evaluate(after, YELLOW) > mg_knowledge.evaluate(state, YELLOW)


# --- General Orders --------------------------------------------------------------------------------

ALPINE = WWIIGame("alpine")
SUPPLY_LINE = {"B-W2": (1, 0), "M-W": (1, 0), "Y-W2": (1, 0)}  # Blue supplied up to Yellow's side
HOME = {"B-HQ": (3, 0), "B-W1": (2, 0), "B-C1": (2, 0), "B-E1": (2, 0),
        "Y-HQ": (0, 3), "Y-W1": (0, 2), "Y-C1": (0, 2), "Y-E1": (0, 2)}


def test_general_orders_evaluation_rewards_supplied_vp_and_fears_for_the_hq() -> None:
    base = build_position(ALPINE, troops=HOME)
    more = build_position(ALPINE, troops={**HOME, "B-C2": (2, 0)})  # Blue holds and supplies 2 more VP
    cut_off = build_position(ALPINE, troops={**HOME, "M-W": (2, 0)})  # held but not connected to the HQ
    threatened = build_position(ALPINE, troops={**HOME, "B-W1": (0, 5), "B-C1": (0, 5), "Y-W1": (0, 0),
                                                "Y-C1": (0, 0), "Y-E1": (0, 0)})
    assert go_knowledge.evaluate(base, 0) == pytest.approx(go_knowledge.evaluate(base, 1) * -1)
    assert go_knowledge.evaluate(more, 0) > go_knowledge.evaluate(base, 0)
    assert go_knowledge.evaluate(more, 0) > go_knowledge.evaluate(cut_off, 0)
    assert go_knowledge.seat_strength(threatened, 0) < go_knowledge.seat_strength(base, 0) - 5


def test_general_orders_script_reinforces_an_hq_in_danger() -> None:
    state = build_position(ALPINE, troops={**HOME, "B-HQ": (1, 0), "B-W1": (0, 4), "B-C1": (0, 4),
                                           "Y-W1": (0, 0), "Y-C1": (0, 0), "Y-HQ": (0, 1)})
    legal = state.legal_actions()
    reinforce = deploy(ALPINE, "reinforce", value=5)
    assert reinforce in legal
    choice = go_knowledge.scripted_action(ALPINE, state.observation(0), legal, random.Random(0))
    assert choice == reinforce


def test_general_orders_script_attacks_with_the_odds_and_goes_for_the_hq() -> None:
    # Yellow's HQ holds one troop; Blue, supplied up to it, has 4 + 4 next to it: Blue advances on it.
    state = build_position(ALPINE, troops={**HOME, **SUPPLY_LINE, "Y-W1": (4, 0), "Y-C1": (4, 0), "Y-HQ": (0, 1)})
    legal = state.legal_actions()
    choice = go_knowledge.scripted_action(ALPINE, state.observation(0), legal, random.Random(0))
    assert choice == deploy(ALPINE, "advance", "Y-HQ")


def test_general_orders_script_plays_ambush_to_defend_its_hq() -> None:
    state = build_position(ALPINE, troops={**HOME, **SUPPLY_LINE, "Y-W1": (4, 0), "Y-C1": (0, 0), "Y-HQ": (0, 2)},
                           hands=({}, {"ambush": 1}))
    state.apply_action(deploy(ALPINE, "advance", "Y-HQ"))
    while state.current_player() == 0:  # Blue moves in everything it can
        state.apply_action(max(state.legal_actions()))
    assert state.current_player() == 1 and DECLINE in state.legal_actions()
    choice = go_knowledge.scripted_action(ALPINE, state.observation(1), state.legal_actions(), random.Random(0))
    assert choice == play(ALPINE, "ambush")


# --- General Orders: Sengoku Jidai -----------------------------------------------------------------


def test_sengoku_evaluation_counts_vp_and_fears_for_the_hq() -> None:
    game = load_game("general-orders-sengoku/rivers")
    state = random_positions(game, seed=3, every=1)[4]
    assert state.current_player() != TERMINAL
    base = sg_knowledge.seat_strength(state, 0)
    richer = state.clone()
    richer.hands[0][0] += 2  # two more cards in hand
    richer.deck[0] -= 2
    assert sg_knowledge.seat_strength(richer, 0) == pytest.approx(base + 2 * sg_knowledge.CARD_VALUE)
    hq = game.board.hq[0]
    attacked = state.clone()
    neighbour = next(a for a in range(game.NA) if game.board.area_adj[hq] >> a & 1 and not game.board.is_water[a])
    attacked.troops[1][neighbour] = 5
    attacked.troops[0][neighbour] = 0
    attacked.refresh_control()
    assert sg_knowledge.seat_strength(attacked, 0) < base - 1


def test_sengoku_script_beats_random_from_observations_only() -> None:
    game = load_game("general-orders-sengoku/fortress")
    from arena.agents import make_agent
    from arena.referee import play_match

    for seat in (0, 1):
        agents = [make_agent("random"), make_agent("random")]
        agents[seat] = make_agent("scripted")
        record = play_match(game, agents, 40 + seat)
        assert record.result is not None and record.result.ranking[seat] == 0


def test_major_general_turn_values_credit_the_coming_turn_to_the_side_that_plays_it() -> None:
    """The analysis' evaluation (turn_values): with no scenario card the first mover's coming turn is worth
    TEMPO_FIRST points, the second mover's TEMPO_SECOND (it answers the first mover's turn); the players'
    evaluation is unchanged."""
    yellow_on_turn = position(active=YELLOW)  # (Yellow moved first: its fifth card, Red's fifth next)
    red_on_turn = position(active=RED, turn=5)
    scale = mg_knowledge.SCALE
    assert mg_knowledge.values(yellow_on_turn) == pytest.approx(mg_knowledge.values(red_on_turn))
    assert mg_knowledge.values(yellow_on_turn) == pytest.approx([0.0, 0.0], abs=1e-9)
    first, second = mg_knowledge.TEMPO_FIRST, mg_knowledge.TEMPO_SECOND
    assert mg_knowledge.turn_values(yellow_on_turn)[YELLOW] == pytest.approx(math.tanh(first / scale))
    assert mg_knowledge.turn_values(red_on_turn)[RED] == pytest.approx(math.tanh(second / scale))
    assert mg_knowledge.TEMPO_SECOND > mg_knowledge.TEMPO_FIRST > 0
    # Yellow's card played: its turn under way or over, the next card is Red's
    yellow_on_turn.apply_action(play_action(card_with("deploy", "move"), 1, "deploy"))
    assert mg_knowledge.next_to_play(yellow_on_turn) == RED
    assert mg_knowledge.turn_values(yellow_on_turn)[RED] > mg_knowledge.values(yellow_on_turn)[RED]
    assert knowledge_for(load_game("major-general")).turn_aware().values is mg_knowledge.turn_values
    alpine = knowledge_for(load_game("general-orders-wwii/alpine"))
    assert alpine.turn_values is None and alpine.turn_aware() is alpine


def test_major_general_turn_values_take_each_turns_tempo_of_the_scenario_card() -> None:
    """Each scenario card's objective changes what a turn is worth, turn by turn (SCENARIO_TEMPOS, from
    tempos.json, fitted per card and turn by bench/mg_tempo.py): turn_values credits the coming turn with its own
    tempo, by cards played before it; the second mover's turns (it answers each of the first mover's) are worth
    more on the whole; without a card the family's pair holds at every turn."""
    scale = mg_knowledge.SCALE
    assert set(mg_knowledge.SCENARIO_TEMPOS) == {"hold-the-centre", "breakthrough", "war-of-attrition",
                                                 "home-guard", "superior-numbers"}
    for card, tempos in mg_knowledge.SCENARIO_TEMPOS.items():
        assert len(tempos) == mg_knowledge.TOTAL_TURNS
        assert sum(tempos[1::2]) > sum(tempos[0::2])
        for turn in (0, 1, 2, 7, 14, 15):
            on_turn = position(active=YELLOW if turn % 2 == 0 else RED, scenario=card, turn=turn)  # (Yellow first)
            seat = mg_knowledge.next_to_play(on_turn)
            lead = mg_knowledge.yellow_advantage(on_turn, mg_knowledge.flow_weight(on_turn.scenario))
            lead *= 1 if seat == YELLOW else -1
            assert mg_knowledge.turn_values(on_turn)[seat] == pytest.approx(math.tanh((lead + tempos[turn]) / scale))
    assert mg_knowledge.tempos(-1) == (mg_knowledge.TEMPO_FIRST, mg_knowledge.TEMPO_SECOND) * 8


def test_major_general_turn_values_weigh_hold_the_centres_cubes_to_come_and_the_players_keep_them_whole() -> None:
    """Under hold the centre the side holding the centre is credited with the cubes still to come (the flow); the
    analysis' evaluation (turn_values) weighs them by FLOW_WEIGHT (a hold the other side often breaks at once),
    the players' (values) keeps them whole; other cards, and no card, keep them whole in both."""
    holding = position(yellow=(3, 3, 3, 0, 0), red=(0, 0, 1, 3, 3), scenario="hold-the-centre")  # Yellow holds 3
    weight = mg_knowledge.FLOW_WEIGHT["hold-the-centre"]
    assert 0 < weight < 1 and mg_knowledge.flow_weight(holding.scenario) == weight
    whole = mg_knowledge.yellow_advantage(holding)
    weighed = mg_knowledge.yellow_advantage(holding, weight)
    assert weighed < whole  # (the flow is Yellow's: weighing it takes some of Yellow's lead off)
    flow = (whole - weighed) / (1 - weight)
    assert mg_knowledge.yellow_advantage(holding, 0.0) == pytest.approx(whole - flow)
    tempo = mg_knowledge.tempos(holding.scenario)[holding.played_count]
    assert mg_knowledge.turn_values(holding)[YELLOW] == pytest.approx(math.tanh((weighed + tempo) / mg_knowledge.SCALE))
    assert mg_knowledge.values(holding)[YELLOW] == pytest.approx(math.tanh(whole / mg_knowledge.SCALE))
    assert all(mg_knowledge.flow_weight(index) == 1.0 for index, scenario in enumerate(SCENARIOS)
               if scenario.id != "hold-the-centre") and mg_knowledge.flow_weight(-1) == 1.0

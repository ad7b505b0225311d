"""Major General: every rule and example of the rulebook, from set positions."""

from __future__ import annotations

import random

import pytest

from arena.games.base import CHANCE, TERMINAL, IllegalActionError
from arena.games.major_general.data import CARDS, COMMANDS
from arena.games.major_general.rules import (
    MOVE_BASE,
    RALLY_BASE,
    STOP_PUSHING,
    TARGET_RED,
    TARGET_YELLOW,
    MajorGeneralGame,
    StateFormatError,
    space_value,
)
from tests.games.major_general.position import RED, YELLOW, board, card_with, play_action, position

DEPLOY_PUSH = card_with("deploy", "push")
DEPLOY_CHARGE = card_with("deploy", "charge")
DEPLOY_MOVE = card_with("deploy", "move")
PUSH_SABOTAGE = card_with("push", "sabotage")
PUSH_RALLY = card_with("push", "rally")
CHARGE_MOVE = card_with("charge", "move")
CHARGE_RALLY = card_with("charge", "rally")
SABOTAGE_MOVE = card_with("sabotage", "move")


def setup_state(seed: int = 0, scenario: str = "none"):
    """A fresh game with its setup chance nodes resolved."""
    state = MajorGeneralGame(scenario=scenario).new_initial_state()
    rng = random.Random(seed)
    while state.current_player() == CHANCE:
        state.apply_action(state.sample_chance(rng))
    return state


# --- components and set-up ------------------------------------------------------------------------


def test_board_has_five_spaces_worth_one_to_five_from_each_base():
    assert [space_value(YELLOW, s) for s in range(5)] == [1, 2, 3, 4, 5]
    assert [space_value(RED, s) for s in range(5)] == [5, 4, 3, 2, 1]


def test_both_decks_hold_the_same_eight_cards_each_with_two_commands():
    assert len(CARDS) == 8
    state = MajorGeneralGame(scenario="none").new_initial_state()
    assert state.decks == [0xFF, 0xFF]
    for command in range(len(COMMANDS)):
        assert sum(command in card for card in CARDS) >= 2


def test_setup_places_three_three_two_and_leaves_two_in_supply():
    """MG-20: three units on the base and the second space, two in the middle, two in supply."""
    state = setup_state()
    yellow, red = board(state)
    assert yellow == [3, 3, 2, 0, 0]
    assert red == [0, 0, 2, 3, 3]
    assert state.supply == [2, 2]


def test_setup_deals_three_cards_each_and_picks_the_first_player_at_random():
    firsts = set()
    for seed in range(20):
        state = setup_state(seed)
        assert [bin(h).count("1") for h in state.hands] == [3, 3]
        assert [bin(d).count("1") for d in state.decks] == [5, 5]
        assert state.current_player() == state.first
        firsts.add(state.first)
    assert firsts == {YELLOW, RED}


def test_first_player_chance_is_even_and_deals_start_with_the_first_player():
    state = MajorGeneralGame(scenario="none").new_initial_state()
    assert state.chance_outcomes() == [(8, 0.5), (9, 0.5)]
    state.apply_action(9)  # Red starts
    assert state.action_to_string(0).startswith("Red draws")


# --- playing a card -------------------------------------------------------------------------------


def test_card_halves_lie_on_two_adjacent_spaces_the_players_half_nearer_their_base():
    """MG-17: Yellow's half on the lower space, the opponent's on the higher; Red mirrored."""
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), hands=((DEPLOY_PUSH,), (DEPLOY_PUSH,)))
    state.apply_action(play_action(DEPLOY_PUSH, 2, mine="deploy"))  # spaces 2-3
    assert state.to_json()["top"][1:3] == [{"command": "deploy", "owner": 0}, {"command": "push", "owner": 1}]

    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), active=RED,
                     hands=((DEPLOY_PUSH,), (DEPLOY_PUSH,)))
    state.apply_action(play_action(DEPLOY_PUSH, 4, mine="push"))  # spaces 4-5, Red's half on 5
    assert state.to_json()["top"][3:5] == [{"command": "deploy", "owner": 0}, {"command": "push", "owner": 1}]


def test_every_card_can_be_played_in_eight_ways():
    state = position(hands=((0, 5), (1,)))
    assert state.legal_actions() == list(range(0, 8)) + list(range(40, 48))


def test_a_new_card_covers_the_half_below_it():
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1),
                     top=(None, ("rally", RED), ("charge", YELLOW), None, None),
                     hands=((DEPLOY_MOVE,), (0,)))
    state.apply_action(play_action(DEPLOY_MOVE, 1, mine="deploy"))  # spaces 1-2: covers space 2
    top = state.to_json()["top"]
    assert top[0] == {"command": "deploy", "owner": 0}
    assert top[1] == {"command": "move", "owner": 1}
    assert top[2] == {"command": "charge", "owner": 0}  # not covered: still executes


def test_commands_execute_from_the_active_players_base_and_the_facing_player_decides():
    """Yellow's turn, a Red-facing Move on space 3: Red chooses how many units move."""
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 2, 0, 0),
                     top=(None, None, ("move", RED), None, None), hands=((SABOTAGE_MOVE,), (0,)))
    state.apply_action(play_action(SABOTAGE_MOVE, 4, mine="move"))  # Yellow move on 4, Red sabotage on 5
    assert state.current_player() == RED
    assert state.active == YELLOW
    assert state.legal_actions() == [MOVE_BASE, MOVE_BASE + 1]  # move 1 or 2 units toward Yellow
    state.apply_action(MOVE_BASE + 1)
    yellow, red = board(state)
    assert red == [0, 2, 0, 0, 0]  # Red's "ahead" is toward Yellow's base


def test_red_executes_from_its_own_base_toward_yellow():
    """On Red's turn the order is space 5, 4, 3, 2, 1: the space-5 command comes first."""
    state = position(yellow=(0, 0, 0, 0, 0), red=(0, 0, 0, 0, 2), active=RED,
                     top=(("deploy", YELLOW), None, None, None, None), hands=((0,), (CHARGE_MOVE,)))
    # Red plays Move on 5 (near Red) and Charge for Yellow on 4.
    state.apply_action(play_action(CHARGE_MOVE, 4, mine="move"))
    assert state.current_player() == RED  # space 5 first: Red chooses how many move
    state.apply_action(MOVE_BASE + 1)  # both units to space 4
    # space 4: Yellow's Charge: no Yellow unit there -> nothing; space 1: Yellow deploys.
    yellow, red = board(state)
    assert red == [0, 0, 0, 2, 0]
    assert yellow == [1, 0, 0, 0, 0]


def test_units_moved_forward_can_be_commanded_again_later_in_the_same_turn():
    """MG-17: Move on 2, Move on 3, Move on 4 carry the same units three spaces."""
    state = position(yellow=(0, 2, 0, 0, 0), red=(0, 0, 0, 0, 1),
                     top=(None, ("move", YELLOW), ("move", YELLOW), None, None),
                     hands=((SABOTAGE_MOVE,), (0,)))
    state.apply_action(play_action(SABOTAGE_MOVE, 4, mine="move"))
    for _ in range(3):
        assert state.current_player() == YELLOW
        state.apply_action(MOVE_BASE + 1)  # move both
    # Red's Sabotage on space 5 (Red's base): Red picks whose unit is destroyed.
    assert state.current_player() == RED
    assert state.legal_actions() == [TARGET_YELLOW, TARGET_RED]
    state.apply_action(TARGET_YELLOW)
    assert board(state) == ([0, 0, 0, 0, 1], [0, 0, 0, 0, 1])
    assert state.supply == [9, 9]


# --- the six commands -----------------------------------------------------------------------------


def test_deploy_places_a_unit_from_supply_and_does_nothing_when_supply_is_empty():
    state = position(yellow=(3, 3, 2, 1, 0), red=(0, 0, 2, 3, 3), hands=((DEPLOY_MOVE,), (0,)))
    state.apply_action(play_action(DEPLOY_MOVE, 1, mine="deploy"))  # Yellow deploy on 1, Red move on 2
    assert board(state)[0][0] == 4
    assert state.supply[YELLOW] == 0

    state = position(yellow=(4, 3, 2, 1, 0), red=(0, 0, 2, 3, 3), hands=((DEPLOY_MOVE,), (0,)))
    state.apply_action(play_action(DEPLOY_MOVE, 1, mine="deploy"))
    assert board(state)[0] == [4, 3, 2, 1, 0]  # empty supply: nothing


def test_push_moves_the_pusher_ahead_and_the_pushed_unit_one_further():
    state = position(yellow=(1, 3, 1, 0, 0), red=(0, 0, 2, 3, 3), hands=((PUSH_RALLY,), (0,)))
    state.apply_action(play_action(PUSH_RALLY, 2, mine="push"))  # Yellow push on 2, Red rally on 3
    assert state.current_player() == YELLOW
    assert state.legal_actions() == [TARGET_YELLOW, TARGET_RED]  # any type, own units too (MG-18a)
    state.apply_action(TARGET_RED)
    yellow, red = board(state)
    assert yellow == [1, 2, 2, 0, 0] and red == [0, 0, 1, 4, 3]
    # One or more units push: Yellow may push again or stop.
    assert state.legal_actions() == [TARGET_YELLOW, TARGET_RED, STOP_PUSHING]
    state.apply_action(TARGET_YELLOW)  # pushes its own earlier pusher onward
    yellow, red = board(state)
    assert yellow == [1, 1, 2, 1, 0] and red == [0, 0, 1, 4, 3]
    state.apply_action(STOP_PUSHING)
    assert state.current_player() == RED  # Red's rally on space 3: where from?
    assert state.legal_actions() == [RALLY_BASE + 3, RALLY_BASE + 4]


def test_pushing_stops_when_no_pushers_are_left():
    state = position(yellow=(1, 1, 0, 0, 0), red=(0, 0, 1, 0, 9), hands=((PUSH_SABOTAGE,), (0,)))
    state.apply_action(play_action(PUSH_SABOTAGE, 2, mine="push"))  # Yellow push on 2, Red sabotage on 3
    # One pusher, one target: forced; then Red's sabotage on 3 has Yellow only: forced too.
    assert board(state) == ([1, 0, 0, 0, 0], [0, 0, 0, 1, 9])
    assert state.current_player() == CHANCE  # the turn ended: Yellow draws


def test_a_unit_pushed_from_the_last_space_stays_there():
    """MG-18b: 'moved to the next space ahead if possible'; the pusher still enters."""
    state = position(yellow=(1, 0, 0, 1, 0), red=(0, 0, 0, 0, 3), hands=((PUSH_RALLY,), (0,)))
    state.apply_action(play_action(PUSH_RALLY, 4, mine="push"))  # Yellow push on 4, Red rally on 5
    yellow, red = board(state)
    assert yellow[3:] == [0, 1] and red[4] == 3


def test_push_and_charge_do_nothing_without_a_unit_ahead_or_from_the_last_space():
    state = position(yellow=(1, 2, 0, 0, 1), red=(0, 0, 0, 0, 0), hands=((PUSH_RALLY,), (0,)),
                     top=(None, None, None, None, ("charge", YELLOW)))
    state.apply_action(play_action(PUSH_RALLY, 2, mine="push"))
    # push on 2: nothing ahead; Red rally on 3: no Red units anywhere; Yellow charge on 5: no space ahead.
    assert board(state) == ([1, 2, 0, 0, 1], [0, 0, 0, 0, 0])


def test_charge_destroys_a_unit_of_either_side_ahead_and_the_charger_stays():
    state = position(yellow=(1, 3, 1, 0, 0), red=(0, 0, 2, 3, 3), hands=((CHARGE_RALLY,), (0,)))
    state.apply_action(play_action(CHARGE_RALLY, 2, mine="charge"))
    assert state.legal_actions() == [TARGET_YELLOW, TARGET_RED]
    state.apply_action(TARGET_RED)
    yellow, red = board(state)
    assert yellow[1:3] == [2, 2] and red[2] == 1
    assert state.supply == [10 - 5, 10 - 7]


def test_charge_may_attack_ones_own_unit():
    """MG-18a: 'one other Unit of any type'."""
    state = position(yellow=(1, 3, 1, 0, 0), red=(0, 0, 2, 3, 3), hands=((CHARGE_RALLY,), (0,)))
    state.apply_action(play_action(CHARGE_RALLY, 2, mine="charge"))
    state.apply_action(TARGET_YELLOW)
    yellow, red = board(state)
    assert yellow[1:3] == [2, 1] and red[2] == 2
    assert state.supply[YELLOW] == 10 - 4


def test_sabotage_destroys_a_unit_of_either_side_in_its_space():
    state = position(yellow=(1, 0, 1, 0, 0), red=(0, 0, 2, 3, 3), active=RED, hands=((0,), (PUSH_SABOTAGE,)))
    # Red plays with Sabotage facing Yellow: Yellow sabotages on space 3 (far half of spaces 3-4? no:)
    # Red's near half is the higher space: Red's push on 4, Yellow's sabotage on 3.
    state.apply_action(play_action(PUSH_SABOTAGE, 3, mine="push"))
    # Red push on 4 (Red moves toward Yellow): targets on space 3 are Yellow 1 and Red 2.
    assert state.current_player() == RED
    state.apply_action(TARGET_YELLOW)  # Yellow unit pushed from 3 to 2
    state.apply_action(STOP_PUSHING)
    # Yellow's sabotage on space 3: only Red units are left there, so one is destroyed without asking.
    assert state.current_player() == CHANCE
    assert board(state) == ([1, 1, 0, 0, 0], [0, 0, 2, 2, 3])
    assert state.supply == [8, 3]

    state = position(yellow=(1, 0, 1, 0, 0), red=(0, 0, 2, 3, 3), active=RED, hands=((0,), (PUSH_SABOTAGE,)))
    state.apply_action(play_action(PUSH_SABOTAGE, 3, mine="push"))
    state.apply_action(TARGET_RED)  # Red pushes its own unit from 3 to 2; Yellow's unit stays on 3
    state.apply_action(STOP_PUSHING)
    assert state.current_player() == YELLOW  # both colours on space 3: Yellow picks the victim
    assert state.legal_actions() == [TARGET_YELLOW, TARGET_RED]
    state.apply_action(TARGET_RED)
    assert board(state) == ([1, 0, 1, 0, 0], [0, 1, 1, 2, 3])


def test_move_takes_one_or_more_units_ahead_and_must_move_at_least_one():
    state = position(yellow=(3, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), hands=((DEPLOY_MOVE,), (0,)))
    state.apply_action(play_action(DEPLOY_MOVE, 1, mine="move"))  # Yellow move on 1, Red deploy on 2
    assert state.legal_actions() == [MOVE_BASE, MOVE_BASE + 1, MOVE_BASE + 2]
    state.apply_action(MOVE_BASE + 1)
    assert board(state) == ([1, 2, 0, 0, 0], [0, 1, 0, 0, 1])


def test_rally_brings_one_unit_from_any_other_space_including_the_enemy_base():
    state = position(yellow=(0, 1, 0, 0, 1), red=(0, 0, 0, 0, 1), hands=((PUSH_RALLY,), (0,)))
    state.apply_action(play_action(PUSH_RALLY, 1, mine="rally"))  # Yellow rally on 1, Red push on 2
    assert state.legal_actions() == [RALLY_BASE + 1, RALLY_BASE + 4]
    state.apply_action(RALLY_BASE + 4)
    assert board(state)[0] == [1, 1, 0, 0, 0]


def test_commands_must_be_executed_even_when_harmful():
    """A forced Sabotage on a space holding only one's own units destroys one of them."""
    state = position(yellow=(3, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), active=RED, hands=((0,), (SABOTAGE_MOVE,)),
                     top=(("sabotage", YELLOW), None, None, None, None))
    state.apply_action(play_action(SABOTAGE_MOVE, 4, mine="move"))  # Red move on 5, Yellow sabotage on 4
    # Red's lone unit moves to 4, Yellow's sabotage there destroys it, and the older Sabotage on
    # space 1 makes Yellow destroy one of its own units.
    assert board(state) == ([2, 0, 0, 0, 0], [0, 0, 0, 0, 0])


# --- turn order, drawing, end of game -------------------------------------------------------------


def test_the_player_draws_after_executing_then_the_turn_passes():
    state = position(hands=((0, 1, 2), (3, 4, 5)), decks=((3,), (0, 6)))
    state.apply_action(play_action(0, 4, mine="deploy"))
    while state.current_player() != CHANCE:
        state.apply_action(state.legal_actions()[0])
    assert state.chance_outcomes() == [(3, 1.0)]
    state.apply_action(3)
    assert state.current_player() == RED
    assert state.hands[YELLOW] == 0b1110


def test_no_draw_when_the_deck_is_empty():
    state = position(hands=((0, 1), (3, 4, 5)), decks=((), (0,)))
    state.apply_action(play_action(0, 4, mine="deploy"))
    while state.current_player() == YELLOW:
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() in (RED, TERMINAL)
    assert state.current_player() == RED


def test_the_game_ends_after_both_players_played_their_last_card():
    state = position(hands=((), (5,)), decks=((), ()), active=RED, turn=15)
    assert not state.is_terminal()
    state.apply_action(play_action(5, 1, mine="charge"))
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.outcome() is not None and state.outcome().reason == "score"


def test_sixteen_turns_in_a_full_game():
    state = setup_state(3)
    rng = random.Random(3)
    plays = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        if state.phase == 3:  # PLAY
            plays += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert plays == 16
    assert state.hands == [0, 0] and state.decks == [0, 0]


# --- control and scoring --------------------------------------------------------------------------


def test_rulebook_scoring_example():
    """Yellow controls its first, second and fifth spaces: 1+2+5 = 8. The other player controls its
    second space for 2 points; nobody controls the third space."""
    state = position(yellow=(2, 2, 1, 0, 1), red=(0, 1, 1, 2, 0))
    assert [state.controller(s) for s in range(5)] == [YELLOW, YELLOW, -1, RED, YELLOW]
    assert state.territory_points(YELLOW) == 8
    assert state.territory_points(RED) == 2


def test_control_needs_more_units_than_the_opponent():
    state = position(yellow=(1, 0, 2, 0, 0), red=(1, 0, 1, 0, 0))
    assert state.controller(0) == -1  # tie: no one
    assert state.controller(1) == -1  # empty
    assert state.controller(2) == YELLOW


def test_the_higher_score_wins_and_a_tie_is_a_draw():
    """MG-21: the rulebook says play again; the platform records a draw."""
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), hands=((), (7,)), decks=((), ()),
                     active=RED, turn=15)
    state.apply_action(play_action(7, 2, mine="sabotage"))  # Red sabotage on 3, Yellow move on 2: empty
    assert state.is_terminal()
    assert state.outcome().ranking == (0, 0)
    assert state.returns() == [0.0, 0.0]

    state = position(yellow=(2, 0, 0, 0, 0), red=(0, 0, 0, 1, 1), hands=((), (7,)), decks=((), ()),
                     active=RED, turn=15)
    state.apply_action(play_action(7, 2, mine="sabotage"))
    assert state.scores() == [1, 3]
    assert state.outcome().ranking == (1, 0)
    assert state.returns() == [-1.0, 1.0]


# --- illegal actions ------------------------------------------------------------------------------


def test_an_illegal_action_names_the_action_and_why_and_changes_nothing():
    state = position(hands=((0, 1, 2), (3, 4, 5)))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"action 24 .*Push/Sabotage is not in Yellow's hand"):
        state.apply_action(24)
    with pytest.raises(IllegalActionError, match=r"action 999 is illegal: action 999 is outside"):
        state.apply_action(999)
    with pytest.raises(IllegalActionError, match="must play a card"):
        state.apply_action(STOP_PUSHING)
    assert state.to_json() == before


def test_an_illegal_choice_lists_the_allowed_ones():
    state = position(yellow=(3, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), hands=((DEPLOY_MOVE,), (0,)))
    state.apply_action(play_action(DEPLOY_MOVE, 1, mine="move"))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"move 3 units ahead"):
        state.apply_action(MOVE_BASE + 5)
    assert state.to_json() == before


def test_chance_outcomes_outside_the_deck_are_rejected():
    state = MajorGeneralGame(scenario="none").new_initial_state()
    with pytest.raises(IllegalActionError):
        state.apply_action(0)  # a card draw while the first player is being chosen
    state.apply_action(8)
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match="not a possible chance outcome"):
        state.apply_action(0)  # card 0 already drawn


def test_no_action_is_legal_once_the_game_is_over():
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), hands=((), (7,)), decks=((), ()),
                     active=RED, turn=15)
    state.apply_action(play_action(7, 2, mine="sabotage"))
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(0)



@pytest.mark.parametrize("key", ["hands", "decks", "scenario_points"])
@pytest.mark.parametrize("size", [1, 3])
def test_a_state_with_a_sides_hand_deck_or_score_missing_or_extra_is_refused(key: str, size: int) -> None:
    """One list a side (hands, decks, scenario points) of another length is refused as it is read, not later by an
    IndexError (a state with one deck was taken, then failed in to_json)."""
    state = setup_state(3, scenario="hold-the-centre")
    data = state.to_json()
    data[key] = (data[key] + data[key])[:size]
    with pytest.raises(StateFormatError, match="not one hand, one deck and one scenario score a side"):
        state.game.state_from_json(data)
    assert state.game.state_from_json(state.to_json()).to_json() == state.to_json()

# --- hidden information ---------------------------------------------------------------------------


def test_observation_shows_own_hand_and_only_counts_of_the_rest():
    state = position(hands=((0, 1, 2), (3, 4, 5)), decks=((6, 7), (0, 1)))
    seen = state.observation(YELLOW)
    assert seen["hand"] == [0, 1, 2]
    assert seen["hand_sizes"] == [3, 3] and seen["deck_sizes"] == [2, 2]
    assert "hands" not in seen and "decks" not in seen
    assert seen["played"][RED] == [2, 6, 7]


def test_determinize_samples_the_opponents_hand_from_their_unplayed_cards():
    state = position(hands=((0, 1, 2), (3, 4, 5)), decks=((6, 7), (0, 1)))
    seen = state.observation(YELLOW)
    hands = set()
    for seed in range(40):
        sample = state.game.determinize(seen, random.Random(seed))
        assert sample.observation(YELLOW) == seen
        red_hand = sample.to_json()["hands"][RED]
        assert set(red_hand) <= {0, 1, 3, 4, 5}
        hands.add(tuple(red_hand))
    assert len(hands) > 3

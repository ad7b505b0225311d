"""What a spectator (someone in no seat) may see of a match, over every registered game mode.

`State.spectator_label` marks the steps the public view hides (a card drawn into a hand, a secret
pick). A chance outcome the public view shows must not depend on anything hidden: whatever the
hands and the deck hold, as far as any seat can tell (every `determinize` of its observation), the
node offers the same outcomes with the same probabilities. Dice, who starts and the scenario pass;
a card drawn does not. Then watching a match tells nobody anything hidden, and nobody watching can
help a seat. A hidden step's public label is the same whatever was drawn or chosen, so it reveals
nothing either.
"""

from __future__ import annotations

import random

import pytest

from arena.games.base import CHANCE, Game
from arena.games.registry import game_modes, load_game

MODES = [mode.name for mode in game_modes()]
GAMES_PER_MODE = 5
DETERMINIZATIONS = 4


@pytest.mark.parametrize("name", MODES)
def test_public_chance_depends_on_nothing_hidden_and_hidden_steps_say_nothing(name: str) -> None:
    game: Game = load_game(name)
    rng = random.Random(7)
    public_chance = hidden = 0
    for _ in range(GAMES_PER_MODE):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() != CHANCE:
                legal = state.legal_actions()
                action = rng.choice(legal)
                label = state.spectator_label(action)
                if label is not None:  # a secret decision: its public label the same whatever was chosen
                    hidden += 1
                    assert {state.spectator_label(other) for other in legal} == {label}, name
                state.apply_action(action)
                continue
            outcomes = state.chance_outcomes()
            action = state.sample_chance(rng)
            hidden_label = state.spectator_label(action)
            if hidden_label is None:
                public_chance += 1
                for seat in range(game.num_seats):
                    for _ in range(DETERMINIZATIONS):
                        other = game.determinize(state.observation(seat), rng)
                        assert other.current_player() == CHANCE and other.chance_outcomes() == outcomes, (
                            f"{name}: the public step {state.action_to_string(action)!r} depends on hidden cards")
            else:
                hidden += 1
                assert {state.spectator_label(o) for o, _ in outcomes} == {hidden_label}, (
                    f"{name}: the public label of a hidden step depends on what it hides")
                assert all(word not in hidden_label for word in state.action_to_string(action).split()[2:]), \
                    hidden_label
            state.apply_action(action)
    assert hidden > 0  # every mode has hidden information (cards drawn, secret picks)
    assert public_chance > 0  # and public chance too (who starts, dice, scenario)


@pytest.mark.parametrize("name", ["major-general", "general-orders-wwii/alpine", "general-orders-sengoku/rivers"])
def test_the_check_has_teeth(name: str) -> None:
    """Were card draws shown to spectators, the check above would catch them: the outcomes of a draw
    depend on the hidden cards, as some seat sees it."""
    game = load_game(name)
    rng = random.Random(3)
    state = game.new_initial_state()
    caught = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            action = state.sample_chance(rng)
            if state.spectator_label(action) is not None:
                outcomes = state.chance_outcomes()
                caught += any(game.determinize(state.observation(seat), rng).chance_outcomes() != outcomes
                              for seat in range(game.num_seats) for _ in range(DETERMINIZATIONS))
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    assert caught > 0

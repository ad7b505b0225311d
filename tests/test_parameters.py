"""Every game option and agent parameter a user can mistype is refused in one line that names the valid
ones, with their types and defaults (or choices): never Python's own message (issue 37, item 4)."""

from __future__ import annotations

import pytest

from arena.agents import AGENTS, UnknownAgentError, make_agent

from arena.games.registry import GameOptionError, game_modes, load_game
from arena.games.parameters import parameters_of

INTERNALS = ("__init__", "unexpected keyword", "not supported between", "positional argument", "NoneType",
             "object has no attribute")


def _plain(message: str) -> None:
    assert not any(internal in message for internal in INTERNALS), message
    assert "\n" not in message


@pytest.mark.parametrize("mode", [mode.name for mode in game_modes()])
def test_an_unknown_game_option_names_the_modes_options(mode: str) -> None:
    with pytest.raises(GameOptionError) as refused:
        load_game(mode, {"colour": "must-pass"})
    _plain(str(refused.value))
    assert f"game {mode!r} has no option 'colour'; its options: " in str(refused.value)
    chosen = next(candidate for candidate in game_modes() if candidate.name == mode)
    for option in chosen.choices:  # each documented option: its choices named, a wrong one refused
        assert f"{option.name} (one of {', '.join(option.choices)}" in str(refused.value)
        with pytest.raises(GameOptionError) as wrong:
            load_game(mode, {option.name: "no-such-choice"})
        _plain(str(wrong.value))
        assert f"{option.name} is one of {', '.join(option.choices)}" in str(wrong.value)


def test_a_near_miss_is_pointed_out_and_a_right_option_still_loads() -> None:
    with pytest.raises(GameOptionError, match=r"has no option 'blits' \(did you mean 'blitz'\?\)"):
        load_game("general-orders-wwii/alpine", {"blits": "must-pass"})
    assert load_game("general-orders-wwii/alpine", {"blitz": "must-pass"}) is not None


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_an_unknown_agent_parameter_names_the_agents_parameters(agent: str) -> None:
    with pytest.raises(UnknownAgentError) as refused:
        make_agent(f"{agent}:iters=30")
    _plain(str(refused.value))
    assert f"agent {agent!r} has no parameter 'iters'" in str(refused.value)
    parameters = parameters_of(AGENTS[agent])
    assert parameters is not None, f"{agent}: its parameters cannot be read"
    for name in parameters:
        assert f"{name} (" in str(refused.value) or "its parameters: none" in str(refused.value)


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_value_of_the_wrong_type_is_named_with_the_type(agent: str) -> None:
    parameters = parameters_of(AGENTS[agent]) or {}
    for name, (annotation, _default) in parameters.items():
        if annotation is None or annotation is str:
            continue
        with pytest.raises(UnknownAgentError) as refused:
            make_agent(f"{agent}:{name}=abc")
        _plain(str(refused.value))
        assert f"agent {agent!r}: {name} takes " in str(refused.value) and "(got 'abc')" in str(refused.value)


def test_the_cli_says_it_in_one_line() -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    result = CliRunner().invoke(app, ["play", "major-general", "--players", "mcts:iterations=abc,random"])
    assert result.exit_code != 0  # (the entry point prints a CliError as "arena: error: ..." and exits)
    assert "iterations takes an integer or none (got 'abc')" in str(result.exception)
    _plain(str(result.exception))

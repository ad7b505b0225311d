"""The SDK's import paths are a promise: every name docs/writing-a-bot.md lists ("The SDK's public API") imports
from where it says, with the signature a bot written against it calls; an old path keeps working with a
DeprecationWarning that names the new one. A refactor that moves one breaks this test, not a user's bot."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "writing-a-bot.md"

#: module -> the names a bot may import from it (what the docs' table says, checked below)
PUBLIC = {
    "arena.sdk": {"run_bot"},
    "arena.agents.base": {"Agent", "DecisionRequest"},
    "arena.agents": {"Agent", "DecisionRequest", "RandomAgent", "ScriptedAgent", "GreedyAgent", "MCTSAgent",
                     "make_agent"},
    "arena.agents.knowledge": {"evaluate"},
    "arena.games.base": {"Game", "State", "CHANCE", "TERMINAL"},
    "arena.games.registry": {"load_game"},
}

#: callable -> the parameters a bot passes (names in order; more may come after, with defaults)
SIGNATURES = {
    ("arena.sdk", "run_bot"): ["agent", "argv"],
    ("arena.agents.knowledge", "evaluate"): ["state", "seat"],
    ("arena.games.registry", "load_game"): ["name"],
    ("arena.agents", "make_agent"): ["spec"],
}

#: class -> the methods and attributes a bot uses
MEMBERS = {
    ("arena.agents.base", "Agent"): {"reset": ["self", "game", "seat", "seed"], "act": ["self", "request"],
                                     "close": ["self"]},
    ("arena.games.base", "Game"): {"determinize": ["self", "observation", "rng"], "new_initial_state": ["self"],
                                   "action_label": ["self", "action"]},
    ("arena.games.base", "State"): {"clone": ["self"], "apply_action": ["self", "action"],
                                    "legal_actions": ["self"], "current_player": ["self"],
                                    "chance_outcomes": ["self"], "is_terminal": ["self"], "returns": ["self"],
                                    "observation": ["self", "seat"]},
}


def documented() -> dict[str, set[str]]:
    """The table of docs/writing-a-bot.md's public API: module -> names."""
    text = DOC.read_text()
    section = text.split("### The SDK's public API", 1)[1].split("\n#", 1)[0]
    found: dict[str, set[str]] = {}
    for module, names in re.findall(r"^\| `from ([\w.]+) import ([\w, ]+)` \|", section, re.MULTILINE):
        found.setdefault(module, set()).update(name.strip() for name in names.split(","))
    return found


def test_the_docs_list_exactly_the_pinned_api() -> None:
    assert documented() == PUBLIC


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_every_public_name_imports_from_where_the_docs_say(module: str) -> None:
    loaded = importlib.import_module(module)
    for name in PUBLIC[module]:
        assert hasattr(loaded, name), f"{module}.{name} is gone: bots written against the docs import it"


@pytest.mark.parametrize("where", sorted(SIGNATURES), ids=lambda where: f"{where[0]}.{where[1]}")
def test_public_callables_keep_their_parameters(where: tuple[str, str]) -> None:
    function = getattr(importlib.import_module(where[0]), where[1])
    parameters = list(inspect.signature(function).parameters)
    assert parameters[:len(SIGNATURES[where])] == SIGNATURES[where], parameters


@pytest.mark.parametrize("where", sorted(MEMBERS), ids=lambda where: f"{where[0]}.{where[1]}")
def test_public_classes_keep_their_methods(where: tuple[str, str]) -> None:
    cls = getattr(importlib.import_module(where[0]), where[1])
    for method, parameters in MEMBERS[where].items():
        assert list(inspect.signature(getattr(cls, method)).parameters)[:len(parameters)] == parameters, method


def test_a_decision_request_has_what_the_docs_promise() -> None:
    from arena.agents.base import DecisionRequest

    request = DecisionRequest(1, [3, 5], {"board": []}, 2.5)
    assert (request.seat, request.legal_actions, request.observation, request.time_left_s) == (1, [3, 5],
                                                                                               {"board": []}, 2.5)


def test_the_old_sdk_import_still_works_and_says_where_it_moved() -> None:
    from arena.sdk import run_bot as current

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from arena.rpc import run_bot
    assert run_bot is current
    messages = [str(warning.message) for warning in caught if warning.category is DeprecationWarning]
    assert messages and all("arena.sdk" in message for message in messages), messages


def test_a_bot_written_last_week_still_starts() -> None:
    """The bot of the docs before arena.sdk (`from arena.rpc import run_bot`) imports and reaches run_bot in a
    fresh interpreter, the warning on its stderr."""
    program = ("from arena.agents.base import Agent, DecisionRequest\n"
               "from arena.rpc import run_bot\n"
               "class Bot(Agent):\n"
               "    def act(self, request: DecisionRequest) -> int:\n"
               "        return request.legal_actions[0]\n"
               "print(run_bot.__module__)\n")
    done = subprocess.run([sys.executable, "-W", "default", "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "arena.rpc.sdk"
    assert "DeprecationWarning" in done.stderr and "arena.sdk" in done.stderr

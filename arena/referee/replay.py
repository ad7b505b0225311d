"""Replaying a match record through the rules engine, step by step."""

from __future__ import annotations

import random
from typing import Callable, Iterable, Iterator

from arena.games.base import CHANCE, Game, IllegalActionError, State
from arena.games.registry import load_game
from arena.referee.record import MatchRecord, Step, Termination

HEADER_LINES = 1  # steps start on line 2 of a record file


class ReplayDivergence(Exception):
    """The record and the engine disagree; `line` is the record line where they part."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def game_of(record: MatchRecord) -> Game:
    """The game a record was played in, with its options, if this engine plays the same rules version."""
    try:
        game = load_game(record.game, record.options)
    except (KeyError, ValueError) as error:
        raise ReplayDivergence(1, f"cannot load game {record.game!r}: {error}") from None
    recorded = record.versions.get("rules")
    if recorded is not None and str(recorded) != str(game.rules_version):
        raise ReplayDivergence(
            1, f"the record was played under rules version {recorded} of {record.game}; "
            f"this engine implements version {game.rules_version}")
    return game


def replay_steps(record: MatchRecord) -> Iterator[tuple[State, Step]]:
    """Yield (state after the step, step) for each recorded step; raise ReplayDivergence on a mismatch."""
    game = game_of(record)
    state = None
    for state, step in replay_stream(game, record.steps, seed=record.seed):
        yield state, step
    check_result(record, state if state is not None else game.new_initial_state(), len(record.steps))


def replay_stream(game: Game, steps: Iterable[Step], state: State | None = None, seed: int | None = None
                  ) -> Iterator[tuple[State, Step]]:
    """Apply steps one at a time from the initial position (or `state`), checking each against the
    engine: (state after the step, step). The steps may come from a stream (arena.referee.record.read_lines).
    Given the header's `seed`, each chance outcome must be the one the referee draws from it (as
    arena.referee.authority does: random.Random(seed), one draw per chance node, from the initial position)."""
    state = state if state is not None else game.new_initial_state()
    chance = random.Random(seed) if seed is not None else None
    for index, step in enumerate(steps):
        line = HEADER_LINES + 1 + index
        _check_turn(state, step, line)
        if step.is_chance and chance is not None:
            _check_chance(state, step, chance, line)
        _apply_step(state, step, line)
        yield state, step


def _check_turn(state: State, step: Step, line: int) -> None:
    """ReplayDivergence unless the game goes on and the step is the kind (chance, or whose decision) it expects."""
    if state.is_terminal():
        raise ReplayDivergence(line, "the game is already over but the record goes on")
    player = state.current_player()
    if step.is_chance != (player == CHANCE):
        expected = "a chance outcome" if player == CHANCE else f"a decision of seat {player}"
        raise ReplayDivergence(line, f"expected {expected}, the record has {step.to_json()['type']}")
    if not step.is_chance and step.seat != player:
        raise ReplayDivergence(line, f"expected a decision of seat {player}, the record has seat {step.seat}")


def _apply_step(state: State, step: Step, line: int) -> None:
    """Apply the step's action to `state`; ReplayDivergence if the engine refuses it or names it otherwise."""
    try:
        label = state.action_to_string(step.action)
        state.apply_action(step.action)
    except IllegalActionError as error:
        raise ReplayDivergence(line, str(error)) from None
    if label != step.label:
        raise ReplayDivergence(line, f"label differs: engine says {label!r}, record says {step.label!r}")


def _check_chance(state: State, step: Step, chance: random.Random, line: int) -> None:
    """ReplayDivergence unless the step's chance outcome is the one the header's seed draws here."""
    drawn = state.sample_chance(chance)
    if drawn != step.action:
        raise ReplayDivergence(line, "chance differs from the header's seed: it draws "
                                     f"{state.action_to_string(drawn)!r}, the record has {step.label!r} (the seed or "
                                     "the outcome was changed)")


def check_result(record: MatchRecord, state: State, steps: int) -> None:
    """The record's result is the one the engine reached after its `steps` steps (ReplayDivergence if not)."""
    line = HEADER_LINES + steps + 1
    result = record.result
    if result is None:
        raise ReplayDivergence(line, "the record has no result line")
    if result.is_fault:  # (the infrastructure may fail after the game is over: a record the referee could not store)
        if state.is_terminal() and result.termination is not Termination.INFRASTRUCTURE:
            raise ReplayDivergence(line, f"the record ends by {result.reason}, but the game was already over")
        return
    outcome = state.outcome()
    if outcome is None:
        raise ReplayDivergence(line, "the record has a result but the game is not over")
    if tuple(outcome.ranking) != tuple(result.ranking) or outcome.reason != result.reason:
        raise ReplayDivergence(
            line, f"result differs: engine ranks {list(outcome.ranking)} ({outcome.reason}), "
            f"record ranks {list(result.ranking)} ({result.reason})")
    if result.scores and tuple(outcome.scores) != tuple(result.scores):
        raise ReplayDivergence(line, f"scores differ: engine {list(outcome.scores)}, record {list(result.scores)}")


def replay(record: MatchRecord, on_step: Callable[[State, Step], None] | None = None) -> State:
    """Run a record back through the engine; return the final state or raise ReplayDivergence."""
    state: State | None = None
    for state, step in replay_steps(record):
        if on_step is not None:
            on_step(state, step)
    if state is None:  # no steps at all (replay_steps checked the result)
        state = game_of(record).new_initial_state()
    return state

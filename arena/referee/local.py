"""The local match loop: in-process agents, chance resolved by the referee's seeded generator."""

from __future__ import annotations

import random
import time
from functools import partial
from typing import Callable, Sequence

from arena import __version__
from arena.agents.base import Agent, DecisionRequest
from arena.games.base import CHANCE, Game, IllegalActionError, State
from arena.games.registry import load_game
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Step, Termination

StepCallback = Callable[[State, Step], None]


def agent_seed(match_seed: int, seat: int) -> int:
    """The seed a seat's agent gets in a match: fixed by the match seed, different per seat."""
    return random.Random(match_seed * 7919 + seat).getrandbits(63)


def forfeit_ranking(num_seats: int, offender: int) -> tuple[int, ...]:
    """The offender ranks last; every other seat shares first place."""
    return tuple(num_seats - 1 if seat == offender else 0 for seat in range(num_seats))


def new_record(game: Game, players: Sequence[PlayerInfo], seed: int, match_id: str | None = None) -> MatchRecord:
    """An empty record with the header facts of a match about to start."""
    record = MatchRecord(
        game=game.name,
        options=game.options,
        seed=seed,
        players=list(players),
        versions={"arena": __version__, "rules": game.rules_version},
    )
    if match_id:
        record.match_id = match_id
    return record


def play_match(
    game: Game | str,
    agents: Sequence[Agent],
    seed: int,
    *,
    match_id: str | None = None,
    on_step: StepCallback | None = None,
) -> MatchRecord:
    """Play one match; chance uses random.Random(seed), each agent its own derived seed.

    The seat asked to decide is `state.current_player()`, which need not be the player whose
    turn it is. An agent that raises or answers an illegal action forfeits, and the record says so.
    """
    if isinstance(game, str):
        game = load_game(game)
    if len(agents) != game.num_seats:
        raise ValueError(f"{game.name} needs {game.num_seats} agents, got {len(agents)}")
    players = [PlayerInfo(seat, agent.name, agent.version) for seat, agent in enumerate(agents)]
    record = new_record(game, players, seed, match_id)
    for seat, agent in enumerate(agents):
        try:
            agent.reset(game, seat, agent_seed(seed, seat))
        except Exception as error:  # e.g. an agent that has no strategy for this game
            record.result = _forfeit(game, seat, Termination.AGENT_ERROR, f"{type(error).__name__}: {error}")
            return record

    chance_rng = random.Random(seed)
    state = game.new_initial_state()
    limit = game.info.max_game_length
    steps = record.steps
    while not state.is_terminal():
        if len(steps) >= limit:
            record.result = MatchResult(tuple([0] * game.num_seats), Termination.MAX_LENGTH.value,
                                        detail=f"no result after {limit} steps")
            return record
        player = state.current_player()
        if player == CHANCE:
            chance_outcome = state.sample_chance(chance_rng)
            step = Step(len(steps), CHANCE, chance_outcome, state.action_to_string(chance_outcome))
            state.apply_action(chance_outcome)
        else:
            legal = state.legal_actions()
            request = DecisionRequest(player, legal, partial(state.observation, player))
            started = time.perf_counter()
            try:
                action = agents[player].act(request)
            except Exception as error:  # the agent is at fault, not the referee
                record.result = _forfeit(game, player, Termination.AGENT_ERROR, f"{type(error).__name__}: {error}")
                return record
            think_ms = (time.perf_counter() - started) * 1000.0
            try:
                label = state.action_to_string(action)
                state.apply_action(action)
            except (IllegalActionError, TypeError) as error:
                record.result = _forfeit(game, player, Termination.ILLEGAL_ACTION, str(error))
                return record
            step = Step(len(steps), player, action, label, {"think_ms": round(think_ms, 3)})
        steps.append(step)
        if on_step is not None:
            on_step(state, step)
    outcome = state.outcome()
    assert outcome is not None
    record.result = MatchResult(outcome.ranking, outcome.reason, outcome.scores)
    return record


def _forfeit(game: Game, offender: int, reason: Termination, detail: str) -> MatchResult:
    return MatchResult(forfeit_ranking(game.num_seats, offender), reason.value, offender=offender, detail=detail)

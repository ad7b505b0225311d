#!/usr/bin/env python3
"""MCTS speed: simulations per second of Arena's MCTS and of OpenSpiel's MCTSBot, same game and position.

    python bench/mcts.py [--iterations N] [--depth D] [--repeat R] [--game NAME ...] [--json]

For every registered game mode (or each --game), one position is reached by a seeded random
playout (the first decision with at least two options after --warmup decisions). In the same run,
on that position:
- Arena: `MCTSAgent` (information-set MCTS: a sampled world per iteration, UCT, random rollouts
  cut at --depth steps and scored by the family evaluation), a fresh tree, --iterations iterations;
- OpenSpiel: `open_spiel.python.algorithms.mcts.MCTSBot` on the same position through the bridge
  (arena/openspiel), the same UCT constant, --iterations simulations, as OpenSpiel ships it: its
  `RandomRolloutEvaluator` (one random rollout to the end of the game per simulation).
  With --matched its leaves are scored exactly as Arena's are instead (a random rollout of --depth
  steps on the Arena state, then the family evaluation), so both do the same work per leaf and the
  ratio shows the search and binding overhead alone.
MCTSBot searches the true state, so it does no sampling of hidden cards; Arena's MCTS does.
Each side is timed --repeat times, interleaved; the median counts. The ratio is Arena / OpenSpiel.
With --json: {"<game>": {"arena_sims_per_s": .., "openspiel_sims_per_s": .., "ratio": ..}, ...}.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents.base import DecisionRequest  # noqa: E402
from arena.agents.mcts import MCTSAgent  # noqa: E402
from arena.games.base import CHANCE, Game, State  # noqa: E402
from arena.games.registry import game_modes, load_game  # noqa: E402


def position(game: Game, warmup: int, seed: int) -> State:
    """A decision with at least two options, reached by a seeded random playout of `warmup` decisions."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        if decisions >= warmup and len(legal) >= 2:
            return state
        state.apply_action(rng.choice(legal))
        decisions += 1
    raise RuntimeError(f"{game.name}: the playout ended before decision {warmup}")


def arena_rate(game: Game, state: State, iterations: int, depth: int, uct_c: float, seed: int) -> float:
    """Simulations per second of Arena's MCTS on `state` (a fresh tree)."""
    seat = state.current_player()
    agent = MCTSAgent(iterations=iterations, depth=depth, uct_c=uct_c, keep_tree=False)
    agent.reset(game, seat, seed)
    request = DecisionRequest(seat, state.legal_actions(), state.observation(seat))
    started = time.perf_counter()
    agent.act(request)
    elapsed = time.perf_counter() - started
    return agent.last_iterations / elapsed


def openspiel_rate(game: Game, state: State, iterations: int, depth: int, uct_c: float, seed: int,
                   matched: bool) -> float:
    """Simulations per second of OpenSpiel's MCTSBot on the same state (stock or matched leaf scoring)."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    from arena.openspiel.agents import ArenaEvaluator
    from arena.openspiel.bridge import ArenaSpielState, openspiel_game_for

    spiel_game = openspiel_game_for(game)
    numpy_rng = np.random.RandomState(seed)
    evaluator: mcts.Evaluator
    if matched:
        evaluator = ArenaEvaluator(game, depth, random.Random(seed))
    else:
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=numpy_rng)
    bot = mcts.MCTSBot(spiel_game, uct_c, iterations, evaluator, random_state=numpy_rng)
    spiel_state = ArenaSpielState(spiel_game, state.clone())
    started = time.perf_counter()
    root = bot.mcts_search(spiel_state)
    elapsed = time.perf_counter() - started
    return root.explore_count / elapsed


def measure(game: Game, iterations: int, depth: int, uct_c: float, repeat: int, warmup: int,
            seed: int, matched: bool) -> dict[str, float]:
    """Both rates on one position, interleaved, medians and their ratio."""
    state = position(game, warmup, seed)
    arena, openspiel = [], []
    for index in range(repeat):
        arena.append(arena_rate(game, state, iterations, depth, uct_c, seed + index))
        openspiel.append(openspiel_rate(game, state, iterations, depth, uct_c, seed + index, matched))
    arena_rate_ = statistics.median(arena)
    openspiel_rate_ = statistics.median(openspiel)
    return {
        "arena_sims_per_s": round(arena_rate_, 1),
        "openspiel_sims_per_s": round(openspiel_rate_, 1),
        "ratio": round(arena_rate_ / openspiel_rate_, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=400, help="simulations per search (default 400)")
    parser.add_argument("--depth", type=int, default=MCTSAgent().depth,
                        help="rollout steps before the evaluation (default: the agent's default)")
    parser.add_argument("--uct-c", type=float, default=MCTSAgent().uct_c, help="UCT constant for both")
    parser.add_argument("--repeat", type=int, default=3, help="timed searches per side (median; default 3)")
    parser.add_argument("--warmup", type=int, default=10, help="random decisions before the position (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matched", action="store_true",
                        help="score OpenSpiel's leaves as Arena does (same work per leaf) instead of its stock rollouts")
    parser.add_argument("--game", action="append", help="only this game mode (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    try:
        import arena.openspiel  # noqa: F401
    except ImportError as error:
        sys.exit(f"bench/mcts.py: {error}")
    names = args.game or [mode.name for mode in game_modes()]
    results = {}
    for name in names:
        game = load_game(name)
        results[game.name] = measure(game, args.iterations, args.depth, args.uct_c, args.repeat, args.warmup,
                                     args.seed, args.matched)
        if not args.json:
            row = results[game.name]
            print(f"{game.name:34} arena {row['arena_sims_per_s']:9.1f} sims/s   "
                  f"openspiel {row['openspiel_sims_per_s']:9.1f} sims/s   ratio {row['ratio']:5.2f}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        anchor = "leaves scored as Arena's (--matched)" if args.matched else "stock RandomRolloutEvaluator"
        print(f"command: python bench/mcts.py --iterations {args.iterations} --depth {args.depth} "
              f"--repeat {args.repeat}{' --matched' if args.matched else ''}")
        print(f"ratio = Arena MCTS / OpenSpiel MCTSBot ({anchor}), same position, measured in the same run")


if __name__ == "__main__":
    main()

"""OpenSpiel's search bots as Arena agents, so they can sit on the ladder and anchor the benchmarks.

- `openspiel-ismcts`: OpenSpiel's ISMCTSBot (information-set MCTS). It samples hidden cards itself,
  through the bridge's `resample_from_infostate`, seeded from the agent's seed.
- `openspiel-mcts`: OpenSpiel's MCTSBot, a perfect-information search, run on one world sampled
  from the observation per decision (it never sees the opponent's real cards).

Budgets: `simulations` per decision, and for ISMCTS also `seconds` (whichever comes first; under a clock,
ISMCTS spends at most CLOCK_SHARE of the time left).
Leaves are scored by OpenSpiel's random rollouts to the end of the game (`evaluator=random`, the
OpenSpiel default) or, with `evaluator=arena`, the way Arena's MCTS scores them: random moves for
`depth` steps and on to a quiet position, then the game family's evaluation (its knowledge module,
arena/games/<family>/knowledge.py).
"""

from __future__ import annotations

import random
import time
from typing import Any, Optional

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from arena.agents.base import Agent, DecisionRequest
from arena.agents.knowledge import knowledge_for
from arena.agents.mcts import rollout
from arena.games.base import Game
from arena.openspiel.bridge import ArenaSpielGame, ArenaSpielState, openspiel_game_for


class ArenaEvaluator(mcts.Evaluator):
    """OpenSpiel evaluator that scores a leaf exactly as Arena's MCTS does (`arena.agents.mcts.rollout`):
    random moves for `depth` steps and on to a quiet position, then the family evaluation."""

    def __init__(self, game: Game, depth: int, rng: random.Random) -> None:
        self.knowledge = knowledge_for(game)
        self.depth = depth
        self.rng = rng

    def evaluate(self, state: ArenaSpielState) -> np.ndarray:
        """Per-player values of the leaf."""
        return np.array(rollout(state.arena.clone(), self.depth, self.knowledge, self.rng))

    def prior(self, state: ArenaSpielState) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: the outcome probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


MIN_SIMULATIONS = 2  # the least search OpenSpiel's ISMCTS can answer from


CLOCK_SHARE = 0.05  # of the time left on its clock, the most ISMCTS spends on one decision


class TimedISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot that also stops at a deadline (its search loop, with a clock check)."""

    def __init__(self, *args: Any, seconds: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self.last_simulations = 0

    def run_search(self, state: pyspiel.State) -> list[tuple[int, float]]:
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        # OpenSpiel's final policy needs a visited child: the first simulation only expands the root, so
        # two are the least, whatever the budget (a time budget on a busy machine may allow one)
        most = max(MIN_SIMULATIONS, self._max_simulations)
        done = 0
        while done < most:
            self.run_simulation(self.sample_root_state(state))
            done += 1
            if deadline is not None and done >= MIN_SIMULATIONS and time.perf_counter() >= deadline:
                break
        self.last_simulations = done
        if self._allow_inconsistent_action_sets:  # (as OpenSpiel's own search ends)
            return self.get_final_policy(state, self.filter_illegals(self._root_node, state.legal_actions()))
        return self.get_final_policy(state, self._root_node)


class OpenSpielAgent(Agent):
    """An OpenSpiel search bot playing through the bridge, from the observation only."""

    version = "1"

    def __init__(
        self,
        algorithm: str = "ismcts",
        simulations: int = 1000,
        seconds: Optional[float] = None,
        uct_c: float = 2.0,
        evaluator: str = "random",
        depth: int = 4,
    ) -> None:
        if algorithm not in ("ismcts", "mcts"):
            raise ValueError(f"algorithm must be 'ismcts' or 'mcts', not {algorithm!r}")
        if evaluator not in ("random", "arena"):
            raise ValueError(f"evaluator must be 'random' or 'arena', not {evaluator!r}")
        if simulations < 1 or (seconds is not None and seconds <= 0):
            raise ValueError("simulations must be at least 1 and seconds positive")
        if seconds is not None and algorithm == "mcts":
            raise ValueError("OpenSpiel's MCTSBot has no time budget; use simulations")
        self.name = f"openspiel-{algorithm}"
        self.algorithm = algorithm
        self.simulations = int(simulations)
        self.seconds = seconds
        self.uct_c = float(uct_c)
        self.evaluator_name = evaluator
        self.depth = int(depth)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.rng = random.Random(seed)
        self.spiel_game: ArenaSpielGame = openspiel_game_for(game)
        numpy_rng = np.random.RandomState(seed % 2**32)
        if self.evaluator_name == "arena":
            evaluator: mcts.Evaluator = ArenaEvaluator(game, self.depth, random.Random(seed + 1))
        else:
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=numpy_rng)
        if self.algorithm == "ismcts":
            bot = TimedISMCTSBot(self.spiel_game, evaluator, self.uct_c, self.simulations,
                                 random_state=numpy_rng, seconds=self.seconds)
            bot.set_resampler(self._resample)
            self.bot: pyspiel.Bot = bot
        else:
            self.bot = mcts.MCTSBot(self.spiel_game, self.uct_c, self.simulations, evaluator,
                                    random_state=numpy_rng, solve=True)

    def _resample(self, state: ArenaSpielState, player: int) -> ArenaSpielState:
        arena = state.arena
        world = self.game.determinize(arena.observation(player), self.rng)
        return ArenaSpielState(self.spiel_game, world)

    def act(self, request: DecisionRequest) -> int:
        if len(request.legal_actions) == 1:
            return request.legal_actions[0]
        if isinstance(self.bot, TimedISMCTSBot):  # under a clock: at most a share of the time left, as mcts does
            share = None if request.time_left_s is None else CLOCK_SHARE * max(0.0, request.time_left_s)
            self.bot.seconds = self.seconds if share is None else min(share, self.seconds or share)
        world = self.game.determinize(request.observation, self.rng)
        return int(self.bot.step(ArenaSpielState(self.spiel_game, world)))


def openspiel_ismcts(**params: Any) -> OpenSpielAgent:
    """OpenSpiel's ISMCTSBot as an agent (spec: 'openspiel-ismcts:simulations=500:seconds=0.05')."""
    return OpenSpielAgent("ismcts", **params)


def openspiel_mcts(**params: Any) -> OpenSpielAgent:
    """OpenSpiel's MCTSBot on one sampled world per decision (spec: 'openspiel-mcts:simulations=500')."""
    return OpenSpielAgent("mcts", **params)

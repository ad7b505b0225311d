"""The MCTS player: information-set Monte Carlo tree search (single observer, Cowling et al. 2012).

Every iteration plays one sampled world: the hidden cards are drawn from the player's observation
(`Game.determinize`, from a pool of `worlds` samples per decision), dice and draws are sampled at
chance nodes. The tree is keyed by moves from the current decision; chance outcomes are sampled
anew on every pass ("open loop": the tree does not branch on dice, so its statistics stay
together; `open_loop=false` branches on them). A move that is not legal in every world is judged
by UCB over the iterations in which it was available ("availability counts"). Rollouts play random
moves for `depth` steps and on to a quiet position (the family's lookahead boundary: the end of
the move under way), where the family's evaluation scores them (its knowledge module,
arena/games/<family>/knowledge.py). `turn_aware` (the analysis' searches; the player keeps the plain evaluation):
where the family has `turn_values`, which credit the turn to come to the side that plays it, leaves (and the
root's prior) are valued by them, and the first turn's start below the root (the other side's reply) is seeded
like the root (each move's evaluation where it leaves the position, `prior_visits` virtual visits), so a short
search ranks the likely replies, not the first it tried. A seed of n moves counts as n // SEED_SHARE iterations
of the budget (about its CPU: each move is played); deeper turn starts are not seeded (seeding them all doubled
the analysis' CPU).

At the root, the greedy lookahead (arena/agents/greedy.py) values every legal move; each starts
with `prior_visits` virtual visits at that value, and only the `candidates` best are searched
(0: all). A step inside a move already chosen (not at the family's boundary) gets `minor_share`
of the budget. The search stops on an iteration budget (`iterations`), a time budget (`seconds`),
or both (whichever comes first); with a referee clock it never spends more than `time_fraction`
of the time left on one decision. The most visited move is played. After a decision the tree is
kept: at the next decision the player looks for its new position (matched by its observation) in
the subtree below the move it played and continues from there. Same seed and an iteration budget
give the same moves.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Optional, Sequence

from arena.agents.base import Agent, DecisionRequest
from arena.agents.greedy import GreedyAgent
from arena.agents.knowledge import FamilyKnowledge, knowledge_for
from arena.games.base import CHANCE, JSON, TERMINAL, Game, State

DEFAULT_ITERATIONS = 400
MAX_SETTLE_STEPS = 40  # steps a rollout may add after `depth` to reach a quiet position
KEY_SEARCH_LIMIT = 50_000  # nodes looked at when finding the new position in the kept tree
SEED_SHARE = 3  # moves seeded at a turn's start (each played) per iteration of the budget they count for


class Node:
    """One node of the search tree: statistics of the move that leads here, and its children."""

    __slots__ = ("children", "visits", "total", "squares", "available", "key")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0  # sum of values, for the seat that made the move into this node
        self.squares = 0.0  # sum of squared values (kept at the root's children only: their noise)
        self.available = 0  # iterations in which the move into this node was legal
        self.key: Optional[str] = None  # the searcher's observation here, when it is the searcher's turn

    def child(self, action: int) -> Node:
        """The child for `action`, made if it is new."""
        child = self.children.get(action)
        if child is None:
            child = self.children[action] = Node()
        return child

    def expand(self, action: int, legal: list[int]) -> Node:
        """A new child for `action`, tried now: each of the `legal` moves with a child (the new one too) was
        available once more."""
        children = self.children
        child = children[action] = Node()
        for other in legal:
            known = children.get(other)
            if known is not None:
                known.available += 1
        return child


def observation_key(observation: JSON) -> str:
    """A canonical string of an observation, to recognise the same position again."""
    return json.dumps(observation, sort_keys=True, separators=(",", ":"))


def rollout(state: State, depth: int, knowledge: FamilyKnowledge, rng: random.Random) -> list[float]:
    """Play random moves on `state` for `depth` steps and on to a quiet position (the family's
    lookahead boundary, at most MAX_SETTLE_STEPS more), then return the evaluation or the result."""
    is_quiet = knowledge.is_lookahead_boundary
    steps = 0
    limit = depth + (MAX_SETTLE_STEPS if is_quiet is not None else 0)
    while steps < limit:
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()
        if steps >= depth and is_quiet is not None and is_quiet(state):
            break
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[0] if len(legal) == 1 else rng.choice(legal))
        steps += 1
    if state.current_player() == TERMINAL:
        return state.returns()
    return knowledge.values(state)


def _uct_choice(children: dict[int, Node], legal: list[int], c: float) -> tuple[Node, int]:
    """The child UCT picks among the `legal` moves' (every one tried; each was available once more)."""
    best_child, best_action, best_score = None, legal[0], -math.inf
    for action in legal:
        child = children[action]
        child.available += 1
        score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
        if score > best_score:
            best_child, best_action, best_score = child, action, score
    assert best_child is not None  # (legal is not empty)
    return best_child, best_action


def _untried_move(legal: list[int], children: dict[int, Node], rng: random.Random) -> int | None:
    """A legal move the node has no child for yet, drawn at random where there are several (None: all tried)."""
    untried = [action for action in legal if action not in children]
    if not untried:
        return None
    return untried[0] if len(untried) == 1 else rng.choice(untried)


def _back_up(path: list[Node], movers: list[int], values: list[float]) -> None:
    """Count a simulation's `values` (per seat) in every node of its `path`, each for the seat that moved into it
    (none for chance), and the root's child's square (its noise: the analysis' standard errors)."""
    for node, mover in zip(path, movers):
        node.visits += 1
        if mover >= 0:
            node.total += values[mover]
    if len(path) > 1 and movers[1] >= 0:
        path[1].squares += values[movers[1]] ** 2


@dataclass(frozen=True)
class MoveValues:
    """A search's verdict on a position: per searched move, its mean value for the mover (in [-1, 1]) and
    its visits (the prior's virtual visits among them); the move the search would play; the iterations it ran;
    and per searched move, its simulations alone (the prior left out): their mean value and number, and the
    variance of the values they backed up (their own noise; 1, the most, where fewer than two)."""

    values: dict[int, tuple[float, int]]
    best: int
    iterations: int
    simulated: dict[int, tuple[float, int]] = field(default_factory=dict)
    variances: dict[int, float] = field(default_factory=dict)


def _verdict(root: Node, prior: dict[int, tuple[float, int]], moves: Sequence[int], best: int,
             iterations: int) -> MoveValues:
    """The root's `moves` that were visited, each with its value and visits, and its simulations' own (the
    `prior`'s virtual visits, (total, visits) per move, left out)."""
    children = {action: child for action in moves
                if (child := root.children.get(action)) is not None and child.visits}
    values = {action: (child.total / child.visits, child.visits) for action, child in children.items()}
    simulated, variances = {}, {}
    for action, child in children.items():
        prior_total, prior_visits = prior.get(action, (0.0, 0))
        count = child.visits - prior_visits
        mean = (child.total - prior_total) / count if count else values[action][0]
        simulated[action] = (mean, count)
        variances[action] = max(0.0, child.squares / count - mean * mean) if count > 1 else 1.0
    return MoveValues(values, best, iterations, simulated, variances)


def _iteration_budget(iterations: Optional[int], seconds: Optional[float]) -> Optional[int]:
    """The iteration budget after checking both budgets: DEFAULT_ITERATIONS when neither is given."""
    if iterations is not None and iterations < 1:
        raise ValueError("iterations must be at least 1")
    if seconds is not None and seconds <= 0:
        raise ValueError("seconds must be positive")
    if iterations is None and seconds is None:
        return DEFAULT_ITERATIONS
    return iterations


class MCTSAgent(Agent):
    """Information-set MCTS with UCT, depth-cut rollouts scored by the family evaluation."""

    name = "mcts"
    version = "1"
    demo_params = {"iterations": 30}  # what `make demo` plays (see arena/tournament/bots.py)

    def __init__(
        self,
        iterations: Optional[int] = None,
        seconds: Optional[float] = None,
        uct_c: float = 0.3,
        depth: int = 4,
        worlds: int = 16,
        time_fraction: float = 0.05,
        keep_tree: bool = True,
        prior_visits: int = 8,
        open_loop: bool = True,
        minor_share: float = 0.5,
        candidates: int = 4,
        turn_aware: bool = False,
    ) -> None:
        iterations = _iteration_budget(iterations, seconds)
        if depth < 0 or worlds < 0 or prior_visits < 0 or not 0 < time_fraction <= 1:
            raise ValueError("depth, worlds and prior_visits must be >= 0 and time_fraction in (0, 1]")
        self.iterations = iterations
        self.seconds = seconds
        self.uct_c = float(uct_c)
        self.depth = int(depth)
        self.worlds = int(worlds)
        self.time_fraction = float(time_fraction)
        self.keep_tree = bool(keep_tree)
        self.prior_visits = int(prior_visits)
        self.open_loop = bool(open_loop)
        if not 0 < minor_share <= 1:
            raise ValueError("minor_share must be in (0, 1]")
        self.minor_share = float(minor_share)
        if candidates < 0:
            raise ValueError("candidates must be >= 0 (0: every legal move)")
        self.candidates = int(candidates)
        self.turn_aware = bool(turn_aware)
        self._turn_priors = False
        self._root_actions: list[int] = []
        self.rng = random.Random(0)
        self.last_iterations = 0  # iterations run for the last decision
        self.last_seconds = 0.0  # time spent on the last decision
        self.last_reused = 0  # visits inherited from the kept tree at the last decision
        self._kept: Optional[Node] = None

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.rng = random.Random(seed)
        knowledge = knowledge_for(game)
        self.knowledge: FamilyKnowledge = knowledge.turn_aware() if self.turn_aware else knowledge
        self._lookahead = GreedyAgent()
        self._lookahead.reset(game, seat, seed ^ 0x5EED)
        self._turn_priors = self.turn_aware and knowledge.turn_values is not None and self.prior_visits > 0
        self._lookahead.knowledge = self.knowledge  # (the prior values the root's moves as the rollouts' leaves)
        self._kept = None

    def close(self) -> None:
        self._kept = None

    # --- deciding ----------------------------------------------------------------------------

    def act(self, request: DecisionRequest) -> int:
        legal = request.legal_actions
        if len(legal) == 1:
            self._kept = None
            self.last_iterations, self.last_seconds, self.last_reused = 0, 0.0, 0
            return legal[0]
        observation = request.observation
        root = self._decision_root(observation_key(observation))
        self.last_reused = root.visits
        started = time.perf_counter()
        world = self.game.determinize(observation, self.rng)
        share = self._budget_share(world)
        budget = self._budget_seconds(request.time_left_s)
        complete = True
        if self.prior_visits:
            # Under a time budget the prior may take half of it; what it has not valued by then is searched as is.
            deadline = None if budget is None else started + 0.5 * budget * share
            complete = self._add_prior(root, world, request.seat, legal, deadline)
        self._root_actions = self._candidates(root, legal) if complete else legal
        if budget is not None:
            budget = max(0.0, budget * share - (time.perf_counter() - started))
        iterations = None if self.iterations is None else max(1, round(self.iterations * share))
        self.search(root, observation, request.seat, budget, iterations)
        action = self.best_action(root, self._root_actions)
        self._kept = root.children.get(action) if self.keep_tree else None
        return action

    def _decision_root(self, key: str) -> Node:
        """The root for the position the searcher sees as `key`: its node in the kept tree, else a new one."""
        root = self._find_kept(key) if self.keep_tree else None
        if root is None:
            root = Node()
        root.key = key
        return root

    def _budget_share(self, world: State) -> float:
        """The share of the budget this decision gets: `minor_share` for a step inside a move the player has
        already chosen (`world` is not at the family's lookahead boundary), else all of it."""
        is_move_start = self.knowledge.is_lookahead_boundary
        if is_move_start is not None and not is_move_start(world):
            return self.minor_share
        return 1.0

    def move_values(self, request: DecisionRequest, include: Sequence[int] = ()) -> MoveValues:
        """Search the position `request` shows its seat (its observation only: hidden cards are sampled from
        it) with this agent's budget, from a fresh tree; the moves in `include` are searched whatever the
        candidate cut, and at least an eighth of the budget's visits each (the analysis of a match: the move
        that was played, whose value must be known even when the search would leave it aside)."""
        legal = request.legal_actions
        observation = request.observation
        root, prior = self._fresh_root(request)
        searched = set(self._candidates(root, legal)) | set(include)
        self._root_actions = [action for action in legal if action in searched]
        self.search(root, observation, request.seat, self.seconds, self.iterations)
        best = self.best_action(root, self._root_actions)  # (before the visits added below)
        iterations = self.last_iterations
        least = max(1, iterations // 8)  # a move in `include` that UCB left aside still gets this many visits
        for action in include:
            child = root.children.get(action)
            visited = child.visits - self.prior_visits if child is not None else 0
            if visited < least:
                self._root_actions = [action]
                self.search(root, observation, request.seat, None, least - visited)
                iterations += self.last_iterations
        self.last_iterations = iterations
        return _verdict(root, prior, [action for action in legal if action in searched], best, iterations)

    def value_moves(self, request: DecisionRequest, moves: Sequence[int], iterations: Optional[int],
                    seconds: Optional[float] = None) -> MoveValues:
        """Each of `moves` (the first is the verdict's best) valued by a search of its own, `iterations`
        simulations (or `seconds`) each, in one fresh tree whose root is held to that move while it is
        searched: every move's value rests on as many simulations, whatever the search thinks of it (the
        analysis of a match, which values the best move and the move played alike); neither given: this agent's
        own budget each."""
        if not moves:
            raise ValueError("value_moves needs at least one move to value")
        if iterations is None and seconds is None:
            iterations, seconds = self.iterations, self.seconds
        root, prior = self._fresh_root(request)
        valued = list(dict.fromkeys(moves))
        done = 0
        for action in valued:
            self._root_actions = [action]
            self.search(root, request.observation, request.seat, seconds, iterations)
            done += self.last_iterations
        self.last_iterations = done
        return _verdict(root, prior, valued, valued[0], done)

    def _fresh_root(self, request: DecisionRequest) -> tuple[Node, dict[int, tuple[float, int]]]:
        """A new root for `request`'s position with the greedy prior's virtual visits on its moves (one world
        sampled), and those visits per move, (total, visits), to leave out of the moves' own values."""
        root = Node()
        if self.prior_visits:
            self._add_prior(root, self.game.determinize(request.observation, self.rng), request.seat,
                            request.legal_actions, None)
        return root, {action: (child.total, child.visits) for action, child in root.children.items()}

    def search(self, root: Node, observation: JSON, seat: int, seconds: Optional[float],
               iterations: Optional[int]) -> None:
        """Run iterations from `root` (the position `observation` shows `seat`) until the budget is spent."""
        started = time.perf_counter()
        deadline = None if seconds is None else started + seconds
        limit = iterations
        hidden = self.game.info.has_hidden_information
        pool_size = self.worlds if hidden else 1
        pool: list[State] = []
        rng = self.rng
        done = 0
        while limit is None or done < limit:
            if pool_size == 0:
                world = self.game.determinize(observation, rng)
            elif len(pool) < pool_size:
                world = self.game.determinize(observation, rng)
                pool.append(world)
                world = world.clone()
            else:
                world = pool[rng.randrange(pool_size)].clone()
            done += 1 + self._iterate(root, world, seat)  # (and the seeds it made)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        self.last_seconds = time.perf_counter() - started

    def _add_prior(self, root: Node, world: State, seat: int, legal: list[int], deadline: Optional[float],
                   nodes: Optional[int] = None) -> bool:
        """Seed unvisited moves of `root` (the search's root, or a turn-aware search's reply node) with the greedy
        lookahead's values (its budget, or `nodes` positions, shared by them), as `prior_visits` virtual visits;
        False when the deadline came first (some values are then the evaluation of where a move stood, not of
        where it ends)."""
        weight = self.prior_visits
        unvalued = [action for action in legal if action not in root.children]
        if not unvalued:
            return True
        values = self._lookahead.action_values(world, seat, unvalued, nodes=nodes, deadline=deadline)
        for action, value in values.items():
            child = root.children[action] = Node()
            child.visits = child.available = weight
            child.total = weight * value
        return not self._lookahead.cut_short

    def _candidates(self, root: Node, legal: list[int]) -> list[int]:
        """The root moves worth searching: the `candidates` best by their value so far (all when 0)."""
        if not self.candidates or len(legal) <= self.candidates:
            return legal
        def mean(action: int) -> float:
            child = root.children.get(action)
            return child.total / child.visits if child is not None and child.visits else -math.inf
        ranked = sorted(legal, key=mean, reverse=True)[:self.candidates]
        return [action for action in legal if action in ranked]

    def best_action(self, root: Node, legal: list[int]) -> int:
        """The most visited legal move (ties: the better mean value, then the lowest id)."""
        best, best_key = legal[0], (-1, -math.inf)
        for action in legal:
            child = root.children.get(action)
            if child is None:
                continue
            rank = (child.visits, child.total / child.visits if child.visits else -math.inf)
            if rank > best_key:
                best, best_key = action, rank
        return best

    def _budget_seconds(self, time_left_s: Optional[float]) -> Optional[float]:
        seconds = self.seconds
        if time_left_s is not None:
            cap = max(0.001, time_left_s * self.time_fraction)
            seconds = cap if seconds is None else min(seconds, cap)
        return seconds

    # --- one iteration -----------------------------------------------------------------------

    def _iterate(self, root: Node, state: State, seat: int) -> int:
        """One simulation from `state` (a world of the root's position); the iterations a seed it made counts
        for."""
        rng = self.rng
        c = self.uct_c
        path = [root]
        movers = [CHANCE]
        node = root
        seeding = self._turn_priors  # (until the first turn's start below the root on this path)
        charged = 0
        while (player := state.current_player()) != TERMINAL:
            if player == CHANCE:
                node = self._chance_step(node, state, path, movers)
                continue
            if player == seat and node.key is None and node.visits:
                node.key = observation_key(state.observation(seat))
            legal = self._root_actions if node is root else state.legal_actions()
            children = node.children
            if seeding and node is not root:
                seeding, charged = self._seed_reply(node, state, player, legal)
            action = _untried_move(legal, children, rng)
            if action is not None:
                path.append(node.expand(action, legal))
                state.apply_action(action)
                movers.append(player)
                break
            best_child, best_action = _uct_choice(children, legal, c)
            state.apply_action(best_action)
            path.append(best_child)
            movers.append(player)
            node = best_child
        _back_up(path, movers, self._rollout(state))
        return charged

    def _chance_step(self, node: Node, state: State, path: list[Node], movers: list[int]) -> Node:
        """Sample chance's outcome and apply it; closed-loop, go down to the outcome's node (on `path`)."""
        outcome = state.sample_chance(self.rng)
        state.apply_action(outcome)
        if self.open_loop:  # the dice fall where they fall; the tree does not branch on them
            return node
        node = node.child(outcome)
        path.append(node)
        movers.append(CHANCE)
        return node

    def _seed_reply(self, node: Node, state: State, player: int, legal: list[int]) -> tuple[bool, int]:
        """Seed the first turn's start below the root (the other side's reply), reached for the first time, like
        the root (turn-aware searches). Whether to look on (`node` is not that turn's start), and the iterations
        the seed counts for."""
        boundary = self.knowledge.is_lookahead_boundary
        if boundary is None or not boundary(state):
            return True, 0
        if node.children:
            return False, 0
        self._add_prior(node, state, player, legal, None, nodes=len(legal))
        return False, len(legal) // SEED_SHARE

    def _rollout(self, state: State) -> list[float]:
        return rollout(state, self.depth, self.knowledge, self.rng)

    # --- keeping the tree --------------------------------------------------------------------

    def _find_kept(self, key: str) -> Optional[Node]:
        """The node of the kept subtree where the searcher sees `key`, the most visited if several."""
        start = self._kept
        self._kept = None
        if start is None:
            return None
        best: Optional[Node] = None
        queue = deque([start])
        seen = 0
        while queue and seen < KEY_SEARCH_LIMIT:
            node = queue.popleft()
            seen += 1
            if node.key == key:
                if best is None or node.visits > best.visits:
                    best = node
                continue  # the same position cannot recur below itself
            for child in node.children.values():
                if child.visits > 1:
                    queue.append(child)
        return best

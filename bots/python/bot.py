"""The smallest useful bot: it looks one move ahead and picks the move that scores best by a heuristic.

Copy this folder, rename the bot in bot.toml, and write your own `heuristic` below: that is the whole
bot. Everything else (connecting to the referee, clocks, matches one after another) is the SDK's.
"""

import random
import sys

try:
    from arena.agents.base import Agent, DecisionRequest
    from arena.agents.knowledge import evaluate
    from arena.games.base import Game, State
    from arena.sdk import run_bot
except ModuleNotFoundError as missing:
    if missing.name != "arena":
        raise
    sys.exit(f"this bot needs Arena's SDK in the Python that runs it ({sys.executable} has none): install "
             "Arena there (docs/writing-a-bot.md, \"Arena's SDK on your own computer\"), or run the bot with "
             "a Python that has it")


def heuristic(state: State, seat: int) -> float:
    """How good `state` is for `seat`, from -1 (lost) to 1 (won).

    >>> YOUR HEURISTIC GOES HERE <<<  Read the position through the engine's state (what the rules
    engine keeps: `state.observation(seat)` is the dict your bot is sent). The default is Arena's own
    evaluation of the game family, the one the built-in `greedy` player uses, but greedy looks further (to
    the end of its turn, through the dice): this bot, one step ahead, starts weaker than greedy. Beat it.
    """
    if state.is_terminal():
        return state.returns()[seat]
    return evaluate(state, seat)


class StarterBot(Agent):
    name = "starter-python"
    version = "1"

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)  # keeps self.game, self.seat, self.seed
        self.rng = random.Random(seed)  # the referee's seed: a match can be played again exactly

    def act(self, request: DecisionRequest) -> int:
        legal = request.legal_actions
        if len(legal) == 1:
            return legal[0]
        # A position consistent with what this seat sees (hidden cards dealt at random, as the deck allows).
        position = self.game.determinize(request.observation, self.rng)
        scores = {}
        for action in legal:
            after = position.clone()
            after.apply_action(action)
            scores[action] = heuristic(after, self.seat) + 1e-6 * self.rng.random()  # ties broken at random
        best = max(scores, key=scores.__getitem__)
        # A note for you: kept with the match at this decision, shown beside the board to you (the bot's
        # owner) and the operators only (`arena replay`, the match page when signed in).
        request.note = f"heuristic {scores[best]:+.3f}, best of {len(legal)} moves"
        return best


if __name__ == "__main__":
    run_bot(StarterBot())

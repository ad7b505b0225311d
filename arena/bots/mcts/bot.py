"""The MCTS bot: Arena's information-set MCTS through the bot SDK.

The agent spec comes from $ARENA_MCTS_SPEC (default "mcts:seconds=0.5"); under the referee's clock
the agent also never spends more than 5% of its remaining time on one decision.
"""

import os

from arena.agents import make_agent
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(make_agent(os.environ.get("ARENA_MCTS_SPEC", "mcts:seconds=0.5")))

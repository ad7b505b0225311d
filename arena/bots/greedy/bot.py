"""The greedy bot: Arena's GreedyAgent (one move of lookahead, dice averaged) through the bot SDK.

The agent spec comes from $ARENA_GREEDY_SPEC (default "greedy").
"""

import os

from arena.agents import make_agent
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(make_agent(os.environ.get("ARENA_GREEDY_SPEC", "greedy")))

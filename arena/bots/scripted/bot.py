"""The scripted bot: Arena's ScriptedAgent (the family's rules of thumb) through the bot SDK.

The agent spec comes from $ARENA_SCRIPTED_SPEC (default "scripted").
"""

import os

from arena.agents import make_agent
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(make_agent(os.environ.get("ARENA_SCRIPTED_SPEC", "scripted")))

"""The random bot: Arena's RandomAgent through the bot SDK (run it with `arena serve` or by hand)."""

from arena.agents import RandomAgent
from arena.sdk import run_bot

if __name__ == "__main__":
    run_bot(RandomAgent())

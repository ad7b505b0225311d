"""The bot SDK, for bot programs: `from arena.sdk import run_bot`, then `run_bot(MyAgent())` (see
docs/writing-a-bot.md). It connects to the referee named in the environment (or `--remote`), answers
its decisions with the agent's, and plays as many matches at once as the referee asks."""

from arena.rpc.sdk import run_bot

__all__ = ["run_bot"]

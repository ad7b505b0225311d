"""Arena's own bot programs, one folder each (`<name>/bot.toml` and its program): random, greedy,
scripted, mcts and trivial. Every referee serves them (arena.rpc.server), wherever Arena is installed;
the sandbox hides this folder from every bot, as it hides any other bot's (arena.sandbox.launch)."""

from pathlib import Path

BUILTIN_BOTS = Path(__file__).resolve().parent

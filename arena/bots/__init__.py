"""Arena's own bot programs, one folder each (`<name>/bot.toml` and its program): random, greedy,
scripted, mcts and trivial. Every referee serves them (arena.rpc.server, finding them through
arena.paths), wherever Arena is installed; the sandbox hides this folder from every bot, as it hides
any other bot's (arena.sandbox.launch). They are programs, run in processes of their own through the
SDK (arena.sdk), as any bot is; starters to copy are in the repository's top-level bots/ folder."""

from arena.paths import BUILTIN_BOTS

__all__ = ["BUILTIN_BOTS"]

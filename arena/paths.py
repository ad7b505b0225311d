"""Where Arena's own files are, wherever it is installed, and where uploaded bots are kept (no module is imported
to find them)."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: Arena's own bot programs, a folder each (arena/bots/<name>/bot.toml): every referee serves them.
BUILTIN_BOTS = PACKAGE / "bots"
#: The environment variable naming the folder of uploaded bots' versions (`--bot-store`).
BOT_STORE_ENV = "ARENA_BOT_STORE"

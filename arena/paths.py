"""Where Arena's own files are, wherever it is installed (no module is imported to find them)."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: Arena's own bot programs, a folder each (arena/bots/<name>/bot.toml): every referee serves them.
BUILTIN_BOTS = PACKAGE / "bots"

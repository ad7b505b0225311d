"""Tournaments: formats, executors and the resumable runner."""

from arena.tournament.bots import BotSpec, BotSpecError, builtin_bots, parse_bot, parse_bots
from arena.tournament.executor import Executor, ExecutorError, InlineExecutor, LocalPoolExecutor
from arena.tournament.formats import FORMATS, FormatError, derive_seed, get_format
from arena.tournament.jobs import MatchJob, MatchOutcome, SeatBot, play_job
from arena.tournament.runner import RunProgress, RunSummary, TournamentRunner, create_tournament

__all__ = ["FORMATS", "BotSpec", "BotSpecError", "Executor", "ExecutorError", "FormatError", "InlineExecutor",
           "LocalPoolExecutor", "MatchJob", "MatchOutcome", "RunProgress", "RunSummary", "SeatBot",
           "TournamentRunner", "builtin_bots", "create_tournament", "derive_seed", "get_format",
           "parse_bot", "parse_bots", "play_job"]

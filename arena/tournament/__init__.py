"""Tournaments: formats, executors, the resumable runner, and `run`, the library call behind the CLI."""

from arena.tournament.bots import BotSpec, BotSpecError, builtin_bots, parse_bot, parse_bots
from arena.tournament.executor import Executor, ExecutorError, InlineExecutor, LocalPoolExecutor, RoutingExecutor
from arena.tournament.formats import FORMATS, FormatError, derive_seed, get_format
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot, play_job
from arena.tournament.runner import RunProgress, RunSummary, TournamentRunner, create_tournament
from arena.tournament.service import PlaySettings, Standings, TournamentError, TournamentSpec, create, play, resume, run

__all__ = ["FORMATS", "BotSpec", "BotSpecError", "Executor", "ExecutorError", "FormatError", "InlineExecutor",
           "LocalPoolExecutor", "MatchJob", "PlaySettings", "PlayedMatch", "RoutingExecutor", "RunProgress",
           "RunSummary", "SeatBot", "Standings", "TournamentError", "TournamentRunner", "TournamentSpec",
           "builtin_bots", "create", "create_tournament", "derive_seed", "get_format", "parse_bot", "parse_bots",
           "play", "play_job", "resume", "run"]

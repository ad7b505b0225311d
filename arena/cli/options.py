"""The options commands share, as typer declares them, and the parsers of what a user typed: durations, game
options (-o key=value), clocks, the fault policy, agents' time limits, an analysis budget; each value checked
before anything runs, with a one-line error (exit status 2) where it is wrong."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from arena.cli.show import fail
from arena.ladder.schedule import ScheduleError
from arena.ladder.schedule import parse_duration as parse_schedule_duration
from arena.paths import BOT_STORE_ENV
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy, FaultPolicyError
from arena.referee.limits import DEFAULT_DECISION_S, DEFAULT_MATCH_S, AgentLimits
from arena.tournament.celery_executor import BROKER_ENV, DEFAULT_QUEUE

if TYPE_CHECKING:
    from arena.analysis import Budget

MAX_SEED = 2 ** 63 - 1  # seeds are 63-bit (arena/referee/seeds.py), as the store keeps them
ADMIN_TOKEN_FILE = "admin-token"  # under the results folder: where `arena serve` writes a token it made

DB_OPTION = typer.Option(None, "--db", help="The database: a file (results/arena.db; SQLite) or a URL "
                                            "(postgresql+psycopg://HOST/arena). Default: $ARENA_DB, else "
                                            "results/arena.db.")
JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of tables.")
BROKER_OPTION = typer.Option(None, "--broker", envvar=BROKER_ENV,
                             help="Play on Celery workers (`arena worker`) through this Redis broker, e.g. "
                                  "redis://127.0.0.1:6379/0 (default: $ARENA_BROKER, else local processes); "
                                  "-j is then the number of worker processes serving.")
QUEUE_OPTION = typer.Option(DEFAULT_QUEUE, "--queue", help="The workers' queue on the broker (with --broker).")
SANDBOX_OPTION = typer.Option(None, "--sandbox", envvar="ARENA_SANDBOX",
                              help="How bot programs run: bwrap (the default: a bubblewrap sandbox, no network, "
                                   "their own folder only) or none (bots you trust, as plain processes).")
BOT_ENV_OPTION = typer.Option(None, "--bot-env", help="NAME=VALUE given to every bot program's environment "
                                                     "(repeatable); bots see nothing else of this one.")
TLS_CA_OPTION = typer.Option(None, "--tls-ca", envvar="ARENA_TLS_CA",
                             help="PEM file of the CA that signed the referee's certificate (a TLS referee).")
SERVER_CA_OPTION = typer.Option(None, "--tls-ca", help="The CA certificate that signs the server's, for a private CA.")
ADMIN_TOKEN_FILE_OPTION = typer.Option(None, "--admin-token-file",
                                       help=f"File holding the admin token (default: results/{ADMIN_TOKEN_FILE} "
                                            "when it exists, as `arena serve` writes it).")
BOT_STORE_OPTION = typer.Option(None, "--bot-store", envvar=BOT_STORE_ENV,
                                help="Where submitted versions are kept (default: $ARENA_BOT_STORE or results/bots).")
DECISION_LIMIT_OPTION = typer.Option(
    None, "--decision-limit", metavar="DURATION",
    help=f"How long a built-in agent may think on one decision before it loses on time (e.g. 30s; default "
         f"{DEFAULT_DECISION_S:g}s). Bot programs have their clock instead.")
MATCH_LIMIT_OPTION = typer.Option(
    None, "--match-limit", metavar="DURATION",
    help=f"How long a built-in agent may think over a whole match (e.g. 10m; default {DEFAULT_MATCH_S:g}s).")
ANALYSE_OPTION = typer.Option(None, "--analyse", metavar="BUDGET",
                              help="Analyse every stored match in the background (a fifth of a core while play keeps "
                                   "the machine busy, idle cores whole), BUDGET per decision as in `arena analyse "
                                   "--budget` (400, 0.5s).")


def given_name(name: str | None) -> str | None:
    """A `--name` as typed (None: not given), or a one-line error for an empty one: a name is how it is found again."""
    if name is not None and not name.strip():
        fail("--name cannot be empty: give a name, or leave --name out for a numbered one", code=2)
    return name


def parse_duration(text: str) -> float:
    """'90s', '10m', '1h', '1h30m' -> seconds, or a one-line error."""
    try:
        return parse_schedule_duration(text)
    except ScheduleError as error:
        fail(str(error), code=2)


def run_budget(duration: str | None) -> float | None:
    """The seconds `--for` gives a run (None: not given, no limit), or a one-line error."""
    return parse_duration(duration) if duration else None


def agent_limits(decision: str | None, match: str | None) -> AgentLimits:
    """--decision-limit and --match-limit as AgentLimits (the defaults where not given), or a one-line error."""
    return AgentLimits(parse_duration(decision) if decision else DEFAULT_DECISION_S,
                       parse_duration(match) if match else DEFAULT_MATCH_S)


def analyse_budget(text: str | None) -> Budget | None:
    """--analyse's budget, or a one-line error before anything runs."""
    if text is None:
        return None
    from arena.analysis import AnalysisError, Budget  # (only where --analyse is given: the analysis is heavy)

    try:
        return Budget.parse(text)
    except AnalysisError as error:
        fail(f"--analyse: {error}", code=2)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """`key=value` strings -> options; values that parse as JSON (numbers, true) become those."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            fail(f"bad option {pair!r}: expected key=value", code=2)
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def clock_options(move_time_ms: int, bank_ms: int, grace_ms: int) -> ClockSettings:
    """ClockSettings from the command line's milliseconds, or a one-line error."""
    try:
        return ClockSettings(move_time_ms / 1000.0, bank_ms / 1000.0, grace_ms / 1000.0)
    except ValueError as error:
        fail(str(error), code=2)


def fault_policy_option(text: str) -> FaultPolicy:
    """A FaultPolicy from the command line, or a one-line error."""
    try:
        return FaultPolicy.parse(text)
    except FaultPolicyError as error:
        fail(str(error), code=2)

"""`arena ladder run` (the open-ended ladder of a game mode, played while the command runs),
`arena ladder serve` (ladders that run by themselves on a schedule) and `arena ladder status`."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from arena.cli.options import (ANALYSE_OPTION, BROKER_OPTION, DB_OPTION, DECISION_LIMIT_OPTION, JSON_OPTION,
    MATCH_LIMIT_OPTION, MAX_SEED, QUEUE_OPTION, SANDBOX_OPTION, agent_limits, analyse_budget, parse_duration,
    parse_options, run_budget)
from arena.cli.settings import (StopRequest, background_analyser, open_game, open_store, play_settings,
    read_token_file, resolve_bots)
from arena.cli.show import console, display_for, duration, fail, pool_json, print_json, print_leaderboard, said, styled
from arena.games.base import Game
from arena.games.registry import game_modes
from arena.ladder import LadderService, LadderSettings, RoundReport, Schedule, ScheduleError, ladder_status
from arena.ladder.status import LadderBot, LadderStatus
from arena.ratings.pools import pool_name
from arena.referee.evidence import shown
from arena.referee.players import PlayerKind
from arena.referee.seeds import new_seed
from arena.store import Store
from arena.store.models import utcnow
from arena.tournament.bots import BotSpec, builtin_bots
from arena.tournament.formats import FormatError, get_format
from arena.tournament.referee_executor import NetworkSettings
from arena.tournament.runner import RunSummary, create_tournament, entrant_kinds
from arena.tournament.service import PlaySettings, TournamentError, play

app = typer.Typer(rich_markup_mode=None, help="The ladder: bots of a game mode paired continuously by match quality.",
                  no_args_is_help=True)


@app.command("run")
def run(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode (see `arena games`)."),
    duration: Optional[str] = typer.Option(None, "--for", help="How long to run, e.g. 90s, 10m, 1h "
                                                               "(default: until Ctrl-C or --matches)."),
    matches: Optional[int] = typer.Option(None, "--matches", min=1, help="Stop after this many matches."),
    bots: Optional[str] = typer.Option(None, "--bots", help="Bots to add to the ladder (default for a new ladder: "
                                                            "every built-in agent)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Seed of a new ladder (default: random)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option NAME=VALUE (repeatable; "
                                                                             "see `arena games`): a ladder of its "
                                                                             "own, rated in its own pool."),
    analyse: Optional[str] = ANALYSE_OPTION,
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    decision_limit: Optional[str] = DECISION_LIMIT_OPTION,
    match_limit: Optional[str] = MATCH_LIMIT_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Run the game mode's ladder: it continues from where it last stopped, with the ratings it has."""
    analyser_budget = analyse_budget(analyse)
    limits = agent_limits(decision_limit, match_limit)
    game = open_game(game_name, parse_options(option))
    store = open_store(db, create=True)
    pool = pool_name(game)
    name = f"ladder:{pool}"
    existing = store.tournaments.get(name)
    entrants = resolve_bots(bots, game) if bots else None
    if existing is None:
        ladder_id = _create_ladder(store, game, name, entrants or builtin_bots(game), seed)
    else:
        ladder_id = existing.id
        _join_ladder(store, game, ladder_id, entrants)
    budget = run_budget(duration)
    if budget is None and matches is None and not json_output:
        console.print("running until Ctrl-C (or pass --for 1h / --matches N)")
    settings = play_settings(concurrency, broker, queue, sandbox, entrant_kinds(store, ladder_id), limits)
    stop = StopRequest()
    try:
        with background_analyser(analyser_budget, [ladder_id], db, json_output), stop.installed():
            [summary] = play(store, [ladder_id], settings, budget_s=budget, max_matches=matches,
                             display=display_for(json_output, seconds=budget, title=f"ladder {pool}"),
                             should_stop=stop)
    except TournamentError as error:
        fail(f"ladder: {said(error, db)}")
    except KeyboardInterrupt:
        fail("aborted; the ladder's stored matches are kept", code=130)
    _print_run_summary(store, ladder_id, pool, summary, json_output)


def _create_ladder(store: Store, game: Game, name: str, entrants: list[BotSpec], seed: int | None) -> int:
    """A new ladder of the game mode with `entrants` (seeded with `seed`, or a random seed); returns its id."""
    try:
        return create_tournament(store, game=game, bots=entrants, format="ladder", rounds=1,
                                 seed=seed if seed is not None else new_seed(),
                                 name=name)
    except FormatError as error:
        fail(str(error), code=2)


def _join_ladder(store: Store, game: Game, ladder_id: int, entrants: list[BotSpec] | None) -> None:
    """Add `entrants` (if any) to an existing ladder, then check it still has enough bots for the game."""
    if entrants:
        store.tournaments.add_entries(ladder_id, [store.bots.register(bot.identity()) for bot in entrants])
    try:
        get_format("ladder").check(len(store.tournaments.entries(ladder_id)), game.num_seats, 1)
    except FormatError as error:
        fail(str(error), code=2)


def _print_run_summary(store: Store, ladder_id: int, pool: str, summary: RunSummary, json_output: bool) -> None:
    """What `arena ladder run` played: as JSON, or a line and the pool's leaderboard."""
    if json_output:
        print_json({"ladder": {"id": ladder_id, "pool": pool, "played": summary.played, "stored": summary.stored,
                               "seconds": round(summary.seconds, 3), "stopped_by": summary.stopped_by},
                    "pools": [pool_json(store, pool)]})
        return
    console.print(f"{summary.played} ladder match(es) in {summary.seconds:.1f}s; {summary.stored} in this ladder.")
    print_leaderboard(store, pool)


@app.command("serve")
def serve(
    games: str = typer.Option(..., "--games", help="Game modes to run ladders of, comma-separated (see `arena "
                                                   "games`), or 'all'."),
    every: str = typer.Option("10m", "--every", help="When rounds start: an interval (10m, 1h) or a cron expression "
                                                     "in UTC ('*/10 * * * *')."),
    matches_per_round: int = typer.Option(20, "--matches-per-round", min=1, max=100_000,
                                          help="Matches a round plans per mode (each table is played from every "
                                               "seat, so a 2-seat table is 2 matches)."),
    max_pending: int = typer.Option(8, "--max-pending", min=1, help="Matches a bot may have planned and not yet "
                                                                     "played: a slow bot gets no more until they are."),
    retries: int = typer.Option(2, "--retries", min=0, max=10, help="Plays again of a match the infrastructure "
                                                                    "failed (never scored) before it is given up."),
    builtins: str = typer.Option("builtin", "--builtins", help="Built-in players in every ladder: 'builtin' (each "
                                                               "one that plays the mode, demo budgets), 'none', or "
                                                               "agent specs."),
    round_timeout: str = typer.Option("30m", "--round-timeout", help="A round's matches not done by then wait for "
                                                                     "the next round."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Stop after this many rounds (default: run "
                                                                       "until stopped)."),
    notify_url: Optional[str] = typer.Option(None, "--notify-url", help="POST each stored result as JSON here."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Seed of new ladders (default: random)."),
    same_owner: bool = typer.Option(False, "--same-owner", help="Let two bots of one owner meet (by default they "
                                                                "never do: one could throw its games to the other)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    host: str = typer.Option("127.0.0.1", "--host", help="Address remote bots connect to (with --port)."),
    port: Optional[int] = typer.Option(None, "--port", min=0, max=65535,
                                       help="Take remote bots (registered with `arena bot register NAME --remote`) "
                                            "on this port; they are paired while connected."),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="Speak TLS to remote bots: PEM certificate "
                                                                     "chain (with --tls-key)."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="The certificate's PEM private key."),
    viewer_token_file: Optional[Path] = typer.Option(
        None, "--viewer-token-file",
        help="With --port: a file holding a token that lists and watches the matches its referee plays (those with "
             "bot programs or remote bots), nothing else: `arena web --server HOST:PORT --viewer-token-file` "
             "shows them live."),
    analyse: Optional[str] = ANALYSE_OPTION,
    decision_limit: Optional[str] = DECISION_LIMIT_OPTION,
    match_limit: Optional[str] = MATCH_LIMIT_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = typer.Option(False, "--json", help="One JSON document per round instead of a log line."),
) -> None:
    """Run ladders by themselves: a round per schedule tick, new bot versions joining, retired ones leaving,
    remote bots paired while they are connected (with --port).

    Everything is in the database: stopped (even killed) and started again, it carries on where it was.
    """
    analyser_budget = analyse_budget(analyse)
    limits = agent_limits(decision_limit, match_limit)
    settings = _ladder_settings(games, every, round_timeout, builtins, notify_url)
    settings = replace(settings, matches_per_round=matches_per_round, max_pending=max_pending, retries=retries,
                       seed=seed, same_owner=same_owner)
    store = open_store(db, create=True)
    play = play_settings(concurrency, broker, queue, sandbox, {PlayerKind.AGENT, PlayerKind.PROGRAM}, limits)
    play = _with_network(play, host, port, tls_cert, tls_key, viewer_token_file)

    def log(line: str) -> None:
        if json_output:
            return
        stamp = utcnow().isoformat(timespec="seconds")
        print(f"{stamp}Z {shown(line)}", flush=True)  # (a line may name bots: their text, shown)

    service = LadderService(store, settings, play, log=log)
    stop = StopRequest()
    try:
        with stop.installed():
            service.prepare()
            if not json_output:
                _say_started(service, log, tls=tls_cert is not None)
            ladder_ids = [tournament_id for _game, tournament_id in service.ladders.values()]
            with background_analyser(analyser_budget, ladder_ids, db, json_output, drain=False):
                service.run(stop, max_rounds=rounds, on_round=_print_round if json_output else None,
                            on_wait=None if json_output else Countdown(log).update)
    except (TournamentError, ValueError) as error:
        fail(f"ladder service: {error}")
    except KeyboardInterrupt:
        fail("aborted; every stored match is kept and the next start carries on", code=130)
    finally:
        service.close()
    if not json_output:
        log("ladder service stopped")


def _ladder_settings(games: str, every: str, round_timeout: str, builtins: str,
                     notify_url: str | None) -> LadderSettings:
    """The modes, schedule, built-in players and webhook of `arena ladder serve`, or a one-line error."""
    try:
        schedule = Schedule.parse(every)
    except ScheduleError as error:
        fail(str(error), code=2)
    timeout_s = parse_duration(round_timeout)
    modes = _ladder_games(games)
    builtin_specs = {game.name: tuple(() if builtins.strip() == "none" else resolve_bots(builtins, game))
                     for game in modes}
    if notify_url is not None and not notify_url.startswith(("http://", "https://")):
        fail(f"--notify-url must be an http:// or https:// URL, not {notify_url!r}", code=2)
    return LadderSettings(games=tuple(modes), schedule=schedule, builtins=builtin_specs, round_timeout_s=timeout_s,
                          notify_url=notify_url)


def _ladder_games(games: str) -> list[Game]:
    """The game modes --games names ('all': every registered one), or a one-line error."""
    names = [part.strip() for part in games.split(",") if part.strip()]
    if not names:
        fail("--games names no game; e.g. --games major-general", code=2)
    return [mode.load() for mode in game_modes()] if names == ["all"] else [open_game(name) for name in names]


def _with_network(play: PlaySettings, host: str, port: int | None, tls_cert: Path | None, tls_key: Path | None,
                  viewer_token_file: Path | None) -> PlaySettings:
    """Where the ladder's referee takes remote bots (with --port), or a one-line error."""
    if (tls_cert is None) != (tls_key is None):
        fail("TLS needs both --tls-cert and --tls-key", code=2)
    if port is not None:
        return replace(play, network=NetworkSettings(host, port, tls_cert, tls_key,
                                                     viewer_token=read_token_file(viewer_token_file,
                                                                                  "--viewer-token-file")))
    if viewer_token_file is not None:
        fail("--viewer-token-file needs --port (the ladder's referee is watched there)", code=2)
    return play


def _say_started(service: LadderService, log: Callable[[str], None], *, tls: bool) -> None:
    """The service's first lines: a changed schedule, what it runs and when, where remote bots connect."""
    pools = ", ".join(service.ladders)
    if service.schedule_change is not None:
        before, now = service.schedule_change
        log(f"the schedule changed from '{before}' (stored by an earlier run) to '{now}': this run's "
            "flags win")
    log(f"ladder service for {pools}: {service.settings.schedule.describe()}, "
        f"{service.settings.matches_per_round} match(es) a round; first round {when(service.next_round_at())}")
    if service.remote_address:
        log(f"remote bots connect to {service.remote_address}{' (TLS)' if tls else ''} with the "
            "token `arena bot register NAME --remote` gave them")


def _print_round(report: RoundReport) -> None:
    """A round as one JSON document on a line (--json)."""
    print(json.dumps({"started_at": report.started_at.isoformat() + "Z", "seconds": round(report.seconds, 3),
                      "next_round_at": report.next_at.isoformat() + "Z" if report.next_at else None,
                      "pools": [p.to_json() for p in report.pools]}), flush=True)


def when(moment: datetime) -> str:
    """'at 19:50:29 local time (18:50:29Z), in 9m 12s' for a naive-UTC time; 'now' once it has come."""
    wait = (moment - utcnow()).total_seconds()
    if wait <= 0:
        return "now"
    local = moment.replace(tzinfo=timezone.utc).astimezone()
    zone = local.strftime("%Z") or "local time"
    return (f"at {local.strftime('%H:%M:%S')} {zone} ({moment.strftime('%H:%M:%S')}Z"
            + (f", {moment.strftime('%Y-%m-%d')}" if wait > 12 * 3600 else "") + f"), in {duration(wait)}")


class Countdown:
    """While the service waits for a round: a line saying when it comes, every COUNTDOWN_EVERY_S (a terminal
    shows it in place)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log
        self.interactive = console.is_terminal
        self.last = 0.0
        self.shown: datetime | None = None

    def update(self, next_at: datetime) -> None:
        now = time.monotonic()
        if self.interactive:
            if now - self.last >= 1.0:
                self.last = now
                console.print(f"next round {when(next_at)}   ", end="\r", markup=False, highlight=False)
            return
        if next_at != self.shown or now - self.last >= COUNTDOWN_EVERY_S:
            self.last, self.shown = now, next_at
            self.log(f"waiting: next round {when(next_at)}")


COUNTDOWN_EVERY_S = 60.0


@app.command("status")
def status(
    games: Optional[str] = typer.Option(None, "--games", help="Only these modes (comma-separated)."),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Each ladder's schedule, its last and next round, pending matches and recent faults per bot."""
    store = open_store(db, read_only=True)
    pools = None
    if games:
        pools = [pool_name(open_game(name.strip())) for name in games.split(",") if name.strip()]
    ladders = ladder_status(store, pools)
    if json_output:
        print_json({"ladders": [ladder.to_json() for ladder in ladders]})
        return
    if not ladders:
        console.print("no ladders yet: start one with `arena ladder serve --games GAME`")
        return
    for ladder in ladders:
        _print_ladder(ladder)


def _print_ladder(ladder: LadderStatus) -> None:
    """A ladder's service, schedule, last round and pending matches, then its bots' table and infrastructure
    faults."""
    service = ladder.service
    running = "running" if service.running else "not running"
    console.print(styled("[bold]{}[/bold]", ladder.pool) + f": {ladder.matches} match(es) stored; service {running}"
                  + (f" (pid {service.pid}, seen {service.heartbeat}Z)" if service.heartbeat else ""))
    if service.waiting:
        console.print(f"  waiting: {service.waiting}", markup=False)
    if ladder.schedule:
        console.print(f"  schedule: {ladder.schedule}; next round at {ladder.next_round_at}Z")
    last = ladder.last_round
    if last:
        number = last.round + 1 if last.round is not None else "-"
        console.print(f"  last round {number} at {last.started_at}Z: {last.stored} stored, "
                      f"{last.carried} carried over, {last.infrastructure} infrastructure fault(s), "
                      f"{last.left} left, {last.seconds:.1f}s" + (f" ({last.note})" if last.note else ""))
    console.print(f"  pending: {ladder.pending} match(es)" +
                  (f" (+{ladder.pending_with_retired_bots} with retired bots, never to be played)"
                   if ladder.pending_with_retired_bots else ""))
    console.print(_bots_table(ladder))
    for fault in ladder.recent_infrastructure_faults[:5]:
        console.print(f"  infrastructure fault at {fault.at}Z ({', '.join(fault.bots)}): {fault.detail}")


def _bots_table(ladder: LadderStatus) -> Table:
    """A ladder's bots: version (or a remote bot online or not), games, rating, pending matches, recent faults."""
    table = Table(title_justify="left")
    for column in ("bot", "version", "games", "mu", "sigma", "pending", "recent faults"):
        table.add_column(column)
    for bot in ladder.bots:
        table.add_row(bot.bot, _bot_version(bot), str(bot.games), "-" if bot.mu is None else f"{bot.mu:.2f}",
                      "-" if bot.sigma is None else f"{bot.sigma:.2f}", str(bot.pending), _recent_faults(bot))
    return table


def _bot_version(bot: LadderBot) -> str:
    """A ladder bot's version, or for a remote bot whether it is online (and when it was last seen if not)."""
    if bot.online is None:
        return bot.version
    return "remote, online" if bot.online else f"remote, offline (last seen {bot.last_seen or 'never'})"


def _recent_faults(bot: LadderBot) -> str:
    """A ladder bot's recent faults counted by reason ("crash x1, timeout x2"), "-" for none."""
    reasons = Counter(fault.reason for fault in bot.recent_faults)
    return ", ".join(f"{reason} x{count}" for reason, count in sorted(reasons.items())) or "-"

"""`arena match`: a series of games between bot programs through a referee (arena.tournament.series plays
it; this parses and prints)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.cli.options import (ADMIN_TOKEN_FILE_OPTION, BOT_ENV_OPTION, MAX_SEED, SANDBOX_OPTION, TLS_CA_OPTION,
    clock_options, fault_policy_option, parse_options)
from arena.cli.settings import (check_bot_dirs, checked_sandbox, client_admin_token, load_bot_folder, open_game,
    results_dir)
from arena.cli.show import FAULT_OUTPUT_LINES, RunDisplay, console, err_console, fail, print_fault, print_json
from arena.referee.evidence import seat_evidence
from arena.referee.record import MatchRecord
from arena.referee.seeds import new_seed, seat_salt
from arena.tournament.series import (EmbeddedReferee, MatchSettings, PlayedGame, PlayerTally, RemoteReferee, Runner,
    Series, SeriesError, describe, labels_of, run_series, storage_problem, tally)


def match(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode, see `arena games`."),
    bots: list[str] = typer.Argument(..., metavar="BOT_A BOT_B", help="Bots by name (Arena's own: random, greedy, "
                                     "scripted, mcts, trivial; ./bots/<name>/bot.toml; or registered on --server), or "
                                     "paths to bot folders; one per seat."),
    games: int = typer.Option(2, "--games", min=1, max=100_000,
                              help="How many games (the seats rotate from game to game)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Fixes every game, the bots' seeds too (default: a secret random one): "
                                            "each game's chance is keyed by it. With --server, that referee's own "
                                            "secret keys the bots' seeds."),
    server: Optional[str] = typer.Option(None, "--server", help="Use a running `arena serve` at host:port "
                                         "instead of starting a referee here."),
    bot_dirs: Optional[list[Path]] = typer.Option(None, "--bots", help="Folder of <name>/bot.toml (repeatable;"
                                                  " default ./bots; Arena's own bots are always there)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    move_time_ms: int = typer.Option(1000, "--move-time-ms", min=1, help="Time per decision."),
    bank_ms: int = typer.Option(10_000, "--bank-ms", min=0, help="Overage bank per seat."),
    grace_ms: int = typer.Option(250, "--grace-ms", min=0, help="Transport grace per decision."),
    fault_policy: str = typer.Option("forfeit", "--fault-policy", help="forfeit | void | e.g. forfeit,timeout=void"),
    parallel: int = typer.Option(1, "--parallel", min=1, max=64, help="Matches played at once."),
    out: Optional[Path] = typer.Option(None, "--out", help="Results folder (default $ARENA_RESULTS or ./results)."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="ARENA_ADMIN_TOKEN",
                                              help="The referee's admin token (with --server)."),
    admin_token_file: Optional[Path] = ADMIN_TOKEN_FILE_OPTION,
    tls_ca: Optional[str] = TLS_CA_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    bot_env: Optional[list[str]] = BOT_ENV_OPTION,
    json_output: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Play bot programs against each other through the referee and summarise the results."""
    options = parse_options(option)
    game = open_game(game_name, options)
    if len(bots) != game.num_seats:
        fail(f"{game.name} has {game.num_seats} seats; name {game.num_seats} bots (got {len(bots)})", code=2)
    clock = clock_options(move_time_ms, bank_ms, grace_ms)
    policy = fault_policy_option(fault_policy)
    check_bot_dirs(bot_dirs)
    directory = out or results_dir()
    first_seed = seed if seed is not None else new_seed()
    settings = MatchSettings(options=options, clock=clock, fault_policy=policy)
    runner: Runner
    if server:
        runner = RemoteReferee(server, client_admin_token(admin_token, admin_token_file), directory, tls_ca)
        names = list(bots)
    else:
        runner, names = _embedded_referee(bots, bot_dirs, directory, sandbox, bot_env, seed)
    with RunDisplay(f"{game.name}: {' vs '.join(labels_of(names))}", quiet=json_output, unit="games") as display:
        done = [0]

        def advance(played: PlayedGame, labels: tuple[str, ...]) -> None:
            done[0] += 1
            display.advance(done[0], games, describe(played, labels))

        try:
            series = run_series(runner, game_name, names, games, first_seed, settings=settings, parallel=parallel,
                                on_game=advance)
        except SeriesError as error:
            fail(str(error), code=2)
    if json_output:
        print_json({"game": game.name, "bots": names, "first_seed": first_seed, "seconds": round(series.seconds, 3),
                    "games": [_game_json(played, series.labels) for played in series.games],
                    "summary": {row.label: _tally_json(row) for row in tally(series)}})
    else:
        _print_tables(game.name, game.info.seat_names, series)
    problem = storage_problem(series)
    if problem is not None:
        fail(problem)


def _embedded_referee(bots: list[str], bot_dirs: list[Path] | None, directory: Path, sandbox: str | None,
                      bot_env: list[str] | None, seed: int | None) -> tuple[Runner, list[str]]:
    """A referee started here for the bots (a path to a bot folder adds that folder), and the bots' names."""
    names, extra_dirs = _local_bot_names(bots)
    runner = EmbeddedReferee(list(bot_dirs or [Path("bots")]) + extra_dirs, directory,
                             checked_sandbox(sandbox, bot_env), seat_salt(seed) if seed is not None else None,
                             warn=_warn_left_out)
    return runner, names


def _warn_left_out(problem: str) -> None:
    err_console.print(f"arena: warning: a bot left out: {problem}", soft_wrap=True)


def _local_bot_names(arguments: list[str]) -> tuple[list[str], list[Path]]:
    """Bot names as given; a path to a bot folder becomes its manifest's name and an extra bot folder."""
    names, extra = [], []
    for argument in arguments:
        path = Path(argument)
        if path.exists() or "/" in argument or argument.startswith("."):  # a folder, as a path is written
            manifest = load_bot_folder(path)
            names.append(manifest.name)
            extra.append(path)
        else:
            names.append(argument)
    return names, extra


def print_fault_output(series: Series) -> None:
    """For each bot program that lost a game by its own fault: the reason and its last output lines (once,
    from its latest such game)."""
    latest: dict[str, tuple[MatchRecord, int]] = {}
    for played in series.games:
        result = played.record.result
        if result is not None and result.offender is not None:
            latest[played.seats(series.labels)[result.offender]] = (played.record, result.offender)
    for name, (record, seat) in latest.items():
        result = record.result
        assert result is not None
        print_fault(name, result.reason, result.detail, seat_evidence(record.extra, seat, FAULT_OUTPUT_LINES))


def _tally_json(row: PlayerTally) -> dict[str, Any]:
    return {"games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses, "faults": row.faults,
            "reasons": dict(row.reasons.most_common()), "own_faults": dict(row.own_faults.most_common()),
            "endings": dict(row.endings.most_common()), "mean_think_ms": row.mean_think_ms,
            "decisions": len(row.think_ms)}


def _game_json(played: PlayedGame, labels: tuple[str, ...]) -> dict[str, Any]:
    record, result = played.record, played.record.result
    assert result is not None
    return {"index": played.game.index, "seed": record.seed, "seats": played.seats(labels),
            "match_id": record.match_id, "ranking": list(result.ranking), "scores": list(result.scores),
            "reason": result.reason, "offender": result.offender, "detail": result.detail, "voided": result.voided,
            "decisions": len(record.decisions), "record": str(played.path) if played.path else None}


def _print_tables(game: str, seat_names: tuple[str, ...], series: Series) -> None:
    console.print(_games_table(game, seat_names, series))
    kept = [played.path for played in series.games if played.path is not None]
    if kept:
        console.print(f"records: {kept[0].parent}/ (replay one with: arena replay {kept[-1]})", soft_wrap=True)
    console.print(_totals_table(series))
    print_fault_output(series)


def _games_table(game: str, seat_names: tuple[str, ...], series: Series) -> Table:
    """A row per game: its seed, who sat where, the winner, scores, how it ended and its decisions."""
    table = Table(title=f"{game}: {len(series.games)} game(s) in {series.seconds:.2f}s")
    for column in ("#", "seed", *seat_names, "winner", "scores", "reason", "decisions"):
        table.add_column(column, justify="right" if column in ("#", "seed", "decisions") else "left")
    for played in series.games:
        table.add_row(*_game_row(played, series.labels))
    return table


def _game_row(played: PlayedGame, labels: tuple[str, ...]) -> list[str]:
    """A game's row of the games table: its number, seed, seats, winner, scores, reason and decisions."""
    record, result = played.record, played.record.result
    assert result is not None
    seated = played.seats(labels)
    winner = ("draw" + (" (void)" if result.voided else "")) if result.is_draw else \
        ", ".join(seated[s] for s in result.winners)
    reason = result.reason + (f": {result.detail}" if result.offender is not None and result.detail else "")
    scores = " - ".join(f"{s:g}" for s in result.scores) or "-"
    return [str(played.game.index + 1), str(record.seed), *seated, winner, scores, reason, str(len(record.decisions))]


def _totals_table(series: Series) -> Table:
    """A row per bot: its results, its own faults, the other endings, and its mean thinking time."""
    totals = Table(title="By bot")
    for column in ("bot", "games", "wins", "draws", "losses", "its faults", "other endings", "think ms/decision"):
        totals.add_column(column, justify="left" if column in ("bot", "its faults", "other endings") else "right")
    for row in tally(series):
        own = ", ".join(f"{reason} {count}" for reason, count in row.own_faults.most_common()) or "-"
        others = ", ".join(f"{reason} {count}" for reason, count in row.endings.most_common()) or "-"
        think = f"{row.mean_think_ms:.2f}" if row.mean_think_ms is not None else "-"
        totals.add_row(row.label, str(row.games), str(row.wins), str(row.draws), str(row.losses), own, others, think)
    return totals

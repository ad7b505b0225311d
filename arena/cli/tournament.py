"""`arena tournament`: run, resume, list, show and export tournaments stored in the database."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from arena.cli.options import (ANALYSE_OPTION, BROKER_OPTION, DB_OPTION, DECISION_LIMIT_OPTION, JSON_OPTION,
    MATCH_LIMIT_OPTION, MAX_SEED, QUEUE_OPTION, SANDBOX_OPTION, agent_limits, analyse_budget, given_name, parse_options,
    run_budget)
from arena.cli.settings import (StopRequest, background_analyser, open_game, open_store, play_settings, resolve_bots,
    results_dir)
from arena.cli.show import (ago, command_line, console, display_for, display_name, fail, print_json,
    print_tournament_faults, said, series_display)
from arena.cli.show import duration as duration_text
from arena.games.base import Game
from arena.games.registry import game_modes
from arena.referee.players import PlayerKind
from arena.ratings.leaderboard import leaderboard as pool_leaderboard
from arena.store import Store, TournamentRow
from arena.tournament.formats import DUPLICATE_REFUSED, FORMAT_NAMES
from arena.tournament.runner import RunSummary, entrant_kinds
from arena.tournament.service import (Standings, TournamentError, TournamentSpec, create, found_ids, play,
    tournament_name)
from arena.tournament.service import resume as resume_tournaments
from arena.tournament.service import standings as standings_of
from arena.tournament.standings import EntrantLine, tournament_table

app = typer.Typer(rich_markup_mode=None, help="Round-robin, gauntlet, Swiss and knockout tournaments.",
                  no_args_is_help=True)


@app.command("run")
def run(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode (see `arena games`), or 'all'."),
    bots: str = typer.Option(..., "--bots", help="Comma-separated bots: agent specs (random, mcts:iterations=200), "
                                                  "name=spec, 'builtin' for every built-in agent, or bot program "
                                                  "folders (./my-bot), played through the referee; any mix."),
    format: str = typer.Option("round-robin", "--format", "-f", help=f"One of: {', '.join(FORMAT_NAMES[:-1])}."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Cycles (round-robin, gauntlet), Swiss rounds, "
                                                                        "or seat-swapped pairs per knockout tie."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Fixes the schedule and every match, bot programs' too: each game's chance "
                                            "and every seat's seed (default: a secret random one). It is the key of "
                                            "them all: keep it to yourself on a shared ladder."),
    duplicate: bool = typer.Option(False, "--duplicate",
                                   help="Play every rotation of a pairing on one deal and the same dice (cuts the luck "
                                        "between built-in agents, which cannot remember; refused with bot programs)."),
    name: Optional[str] = typer.Option(None, "--name", callback=given_name, help="Name it; running the same name again resumes it, or, "
                                                             "once it is finished, plays its rounds once more (with its "
                                                             "own seed: another --seed is refused)."),
    duration: Optional[str] = typer.Option(None, "--for", help="Stop starting matches after this long (e.g. 90s, 10m; "
                                                               "matches still running a little later are left for "
                                                               "resume); with GAME 'all', shared between the modes."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    standings: bool = typer.Option(True, "--standings/--no-standings", help="Print each tournament's table."),
    analyse: Optional[str] = ANALYSE_OPTION,
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    decision_limit: Optional[str] = DECISION_LIMIT_OPTION,
    match_limit: Optional[str] = MATCH_LIMIT_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
    show_secret: bool = typer.Option(False, "--show-secret", help="Also print the tournament's seed (see `arena "
                                                                  "tournament show --help`): for the operator only."),
) -> None:
    """Run a tournament, store every match and its rating update, print the standings."""
    limits = agent_limits(decision_limit, match_limit)
    analyser_budget = analyse_budget(analyse)
    budget_s = run_budget(duration)  # (checked before anything is stored)
    specs = _specs(game_name, bots, format, rounds, seed, name, option, duplicate)
    kinds = _spec_kinds(specs)
    if duplicate and kinds != {PlayerKind.AGENT}:
        fail(DUPLICATE_REFUSED, code=2)
    store = open_store(db, create=True)
    settings = play_settings(concurrency, broker, queue, sandbox, kinds, limits)
    stop = StopRequest()
    ids: list[int] = []
    try:
        ids, extended = _create_all(specs, store)
        if extended and not json_output:
            _say_extended(extended)
        with background_analyser(analyser_budget, ids, db, json_output), stop.installed(), \
                series_display(json_output, len(ids)) as series:
            summaries = play(store, ids, settings, budget_s=budget_s,
                             display=series if len(ids) > 1 else display_for(json_output), should_stop=stop)
    except TournamentError as error:
        fail(said(error, db), code=2)
    except KeyboardInterrupt:
        fail(f"aborted; stored matches are kept: resume with `{_resume_line(store, ids, db)}`", code=130)
    _report(store, [standings_of(store, summary) for summary in summaries], json_output, standings, db=db,
            show_secret=show_secret)


def _spec_kinds(specs: list[TournamentSpec]) -> set[PlayerKind]:
    """The kinds of bot the tournaments enter (agents, bot programs, or both)."""
    return {bot.kind for one in specs for bot in one.bots}


def _create_all(specs: list[TournamentSpec], store: Store) -> tuple[list[int], list[tuple[TournamentRow, int]]]:
    """Create (or find) the tournaments of `specs`: (their ids, the finished ones given more rounds, with how many)."""
    extended: list[tuple[TournamentRow, int]] = []
    ids = [tournament_id for one in specs
           for tournament_id in create(one, store, lambda row, more: extended.append((row, more)))]
    return ids, extended


def _specs(game_name: str, bots: str, format: str, rounds: int | None, seed: int | None, name: str | None,
           option: list[str] | None, duplicate: bool) -> list[TournamentSpec]:
    """One tournament per game (GAME 'all': every mode), 'builtin' standing for the agents that can play each;
    a one-line error for a bad format, option, game or bot."""
    if format not in FORMAT_NAMES or format == "ladder":
        fail(f"unknown format {format!r}; formats: {', '.join(FORMAT_NAMES[:-1])} (the ladder is `arena ladder run`)",
             code=2)
    options = parse_options(option)
    games: list[Game] = ([mode.load(**options) for mode in game_modes()] if game_name == "all"
                         else [open_game(game_name, options)])
    resolve_bots(bots)  # fail early on a bad spec
    specs = [TournamentSpec(games=(game,), bots=tuple(resolve_bots(bots, game)), format=format, rounds=rounds,
                            seed=seed,  # (none given: a new secret one; a tournament continued keeps its own)
                            name=tournament_name(name, games, game),
                            settings={"duplicate": True} if duplicate else {})
             for game in games]
    return specs


@app.command("resume")
def resume(
    tournaments: list[str] = typer.Argument(..., metavar="ID_OR_NAME...", help="The tournament(s) to continue."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    duration: Optional[str] = typer.Option(None, "--for", help="Stop starting matches after this long (shared "
                                                               "between the tournaments)."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    decision_limit: Optional[str] = DECISION_LIMIT_OPTION,
    match_limit: Optional[str] = MATCH_LIMIT_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
    show_secret: bool = typer.Option(False, "--show-secret", help="Also print each tournament's seed (see `arena "
                                                                  "tournament show --help`): for the operator only."),
) -> None:
    """Continue interrupted tournaments where they stopped (finished matches are never replayed)."""
    limits = agent_limits(decision_limit, match_limit)
    store = open_store(db)
    try:
        ids = found_ids(store, tournaments)
    except TournamentError as error:
        fail(said(error, db))
    kinds = {kind for tournament_id in ids for kind in entrant_kinds(store, tournament_id)}
    settings = play_settings(concurrency, broker, queue, sandbox, kinds, limits)
    stop = StopRequest()
    try:
        with stop.installed(), series_display(json_output, len(ids)) as series:
            results = resume_tournaments(store, ids, settings, budget_s=run_budget(duration),
                                         display=series if len(ids) > 1 else display_for(json_output),
                                         should_stop=stop)
    except TournamentError as error:
        fail(said(error, db), code=2)
    except KeyboardInterrupt:
        fail(f"aborted; stored matches are kept: resume with `{_resume_line(store, ids, db)}`", code=130)
    _report(store, results, json_output, db=db, show_secret=show_secret)


def _say_extended(extended: list[tuple[TournamentRow, int]]) -> None:
    """One line for the finished tournaments a run of the same name gives more rounds."""
    rounds = sorted({more for _, more in extended})
    labels = [row.label for row, _ in extended]
    shown = ", ".join(labels) if len(labels) <= 3 else f"{', '.join(labels[:2])} and {len(labels) - 2} more"
    console.print(f"{shown}: finished before; {'/'.join(map(str, rounds))} more round(s) each now", markup=False,
                  highlight=False)


def _resume_line(store: Store, ids: list[int], db: str | None) -> str:
    """`arena tournament resume ...` for the unfinished ones of `ids`, pasteable."""
    rows = [row for row in (store.tournaments.get(i) for i in ids) if row is not None and row.status != "finished"]
    return command_line("tournament", "resume", *([str(row.name or row.id) for row in rows] or ["ID"]), db=db)


def _report(store: Store, results: list[Standings], json_output: bool, standings: bool = True,
            db: str | None = None, show_secret: bool = False) -> None:
    """What a run or resume printed at its end: JSON, or the standings, the faults and the next commands (the
    series secret only with `show_secret`)."""
    if json_output:
        print_json({"tournaments": [result.to_json(show_secret) for result in results]})
        return
    if standings:
        for result in results:
            _print_standings(store, result.summary.tournament_id, show_secret)
    for result in results:
        if entrant_kinds(store, result.tournament.id) - {PlayerKind.AGENT}:
            print_tournament_faults(store, result.tournament.id)
    _print_outcome(store, results)
    _print_next_commands(store, results, db)


def _print_outcome(store: Store, results: list[Standings]) -> None:
    """One line for a single tournament (what it played and stored, and its state); a table for several."""
    if len(results) == 1:
        summary, tournament = results[0].summary, results[0].tournament
        state = "finished" if summary.finished else f"stopped ({summary.stopped_by or 'interrupted'})"
        console.print(f"#{summary.tournament_id} {tournament.game}: {summary.played} match(es) played in "
                      f"{duration_text(summary.seconds)}; {summary.stored}/{summary.expected} stored; {state}.")
    elif results:
        _print_summary(store, results)


def _print_next_commands(store: Store, results: list[Standings], db: str | None) -> None:
    """The pasteable commands that resume the unfinished tournaments and show their pools' ratings."""
    unfinished = [result.tournament.id for result in results if not result.summary.finished]
    if unfinished:
        console.print(f"resume with: {_resume_line(store, unfinished, db)}", soft_wrap=True, markup=False,
                      highlight=False)
    pools = sorted({result.tournament.pool for result in results})
    if pools:
        console.print(f"ratings: {command_line('leaderboard', pools[0] if len(pools) == 1 else '', db=db)}",
                      soft_wrap=True, markup=False, highlight=False)


def _print_summary(store: Store, results: list[Standings]) -> None:
    """One table for several tournaments: what each played and stored, and its pool's top three."""
    table = Table(title=f"{len(results)} tournaments", title_justify="left")
    for column in ("#", "game", "played", "stored", "state", "leaders (rating mu - 3 sigma)"):
        table.add_column(column, justify="right" if column in ("#", "played", "stored") else "left")
    for result in results:
        table.add_row(*_summary_cells(store, result))
    console.print(table)
    played = sum(result.summary.played for result in results)
    seconds = sum(result.summary.seconds for result in results)
    console.print(f"{played} match(es) played in {duration_text(seconds)}.", highlight=False)
    empty = [result.tournament.game for result in results if _out_of_time_before_first_match(result.summary)]
    if empty:
        console.print(f"no match finished in the time given for: {', '.join(empty)} (stopped before its first "
                      "match ended); give the run more time (--for) or resume them (below)", highlight=False,
                      markup=False, soft_wrap=True)


def _out_of_time_before_first_match(summary: RunSummary) -> bool:
    """Whether the run stopped before any of the tournament's matches ended (its state: 'no time')."""
    return not summary.played and not summary.finished


def _summary_cells(store: Store, result: Standings) -> list[str]:
    """One tournament's row of the run's summary table: what it played and stored, its state, its pool's leaders."""
    summary, tournament = result.summary, result.tournament
    leaders = ", ".join(f"{display_name(line.bot)} {line.score:.1f}"
                        for line in pool_leaderboard(store, tournament.pool)[:3])
    if _out_of_time_before_first_match(summary):
        state = "no time"
    else:
        state = "finished" if summary.finished else (summary.stopped_by or "interrupted")
    return [str(tournament.id), tournament.game, str(summary.played), f"{summary.stored}/{summary.expected}", state,
            leaders or ("no match stored yet" if not summary.stored else "-")]


def _print_standings(store: Store, tournament_id: int, show_secret: bool = False) -> None:
    """The standings table (its title names the series secret only with `show_secret`: see SHOW_SECRET_OPTION)."""
    tournament = store.tournaments.get(tournament_id)
    assert tournament is not None
    lines = tournament_table(store, tournament_id)
    console.print(_standings_table(tournament, lines, show_secret))
    if 2 < len(lines) <= 12:
        console.print(_points_against_table(lines))


def _standings_table(tournament: TournamentRow, lines: list[EntrantLine], show_secret: bool) -> Table:
    """The tournament's standings, one row per entrant in place order (a knockout's also say the round reached)."""
    title = (f"#{tournament.id}{' ' + tournament.name if tournament.name else ''}: {tournament.format} "
             f"{tournament.game}{f' (seed {tournament.seed})' if show_secret else ''}")
    table = Table(title=title, title_justify="left")
    for column in ("#", "bot", "games", "points", "score", "W", "D", "L", "faults"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    knockout = tournament.format == "knockout"
    if knockout:
        table.add_column("reached", justify="right")
    for place, line in enumerate(lines, start=1):
        table.add_row(*_standings_cells(place, line, knockout))
    return table


def _standings_cells(place: int, line: EntrantLine, knockout: bool) -> list[str]:
    """One entrant's row of the standings table."""
    cells = [str(place), line.name, str(line.games), f"{line.points:g}",
             f"{100 * line.points / line.games:.1f}%" if line.games else "-", str(line.wins), str(line.draws),
             str(line.losses), str(line.faults)]
    if knockout:
        cells.append(f"round {line.reached_round}")
    return cells


def _points_against_table(lines: list[EntrantLine]) -> Table:
    """The cross table: the points each entrant (row) took against each other (column)."""
    cross = Table(title="points against", title_justify="left", show_lines=False)
    cross.add_column("")
    for line in lines:
        cross.add_column(line.name[:10], justify="right")
    for line in lines:
        cross.add_row(line.name, *[("x" if other.bot_id == line.bot_id else
                                    f"{line.against[other.bot_id]:g}" if other.bot_id in line.against else "-")
                                   for other in lines])
    return cross


SHOW_SECRET_OPTION = typer.Option(
    False, "--show-secret", help="Also print the tournament's seed: the secret every game's deal, draws and dice "
                                 "are computed from. Whoever knows it knows every game to come: for the operator's "
                                 "eyes only, never in a pasted status.")


def _secret(row: TournamentRow, show_secret: bool) -> dict[str, int]:
    """The `seed` key of a tournament's JSON: only when asked for (`--show-secret`)."""
    return {"seed": row.seed} if show_secret else {}


@app.command("list")
def list_tournaments(db: Optional[str] = DB_OPTION, json_output: bool = JSON_OPTION,
                     show_secret: bool = SHOW_SECRET_OPTION) -> None:
    """List stored tournaments, newest first."""
    store = open_store(db, read_only=True)
    rows = store.tournaments.find()
    if json_output:
        print_json([{"id": r.id, "name": r.name, "game": r.game, "pool": r.pool, "format": r.format,
                     **_secret(r, show_secret), "rounds": r.rounds, "status": r.status, "matches": r.matches,
                     "created_at": r.created_at.isoformat(timespec="seconds") + "Z"} for r in rows])
        return
    if not rows:
        console.print("no tournaments yet; start one with: arena tournament run GAME --bots a,b,c")
        return
    table = Table(title="Tournaments")
    for column in ("id", "name", "format", "game", "rounds", "matches", "status", "created",
                   *(("seed",) if show_secret else ())):
        table.add_column(column, justify="right" if column in ("id", "rounds", "matches") else "left",
                         overflow="fold")  # a name is what `resume` takes: shown whole
    for r in rows:
        table.add_row(str(r.id), r.name or "", r.format, r.game, str(r.rounds), str(r.matches),
                      r.status, ago(r.created_at), *((str(r.seed),) if show_secret else ()))
    console.print(table)


@app.command("show")
def show(
    tournament: str = typer.Argument(..., metavar="ID_OR_NAME"),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
    show_secret: bool = SHOW_SECRET_OPTION,
) -> None:
    """Standings, cross-table and how the matches ended."""
    store = open_store(db, read_only=True)
    found = store.tournaments.get(tournament)
    if found is None:
        fail(f"no tournament {tournament!r} (see `arena tournament list`)")
    matches = store.matches.of_tournament(found.id)
    reasons = Counter(match.reason for match in matches)
    if json_output:
        names = store.bots.names(store.tournaments.entries(found.id))
        print_json({"id": found.id, "name": found.name, "game": found.game, "pool": found.pool,
                    "format": found.format, **_secret(found, show_secret), "rounds": found.rounds,
                    "status": found.status, "matches": len(matches), "reasons": dict(reasons),
                    "standings": [line.to_json(names) for line in tournament_table(store, found.id)]})
        return
    _print_standings(store, found.id, show_secret)
    if entrant_kinds(store, found.id) - {PlayerKind.AGENT}:
        print_tournament_faults(store, found.id)
    console.print(f"{len(matches)} match(es), {found.status}; endings: "
                  + (", ".join(f"{reason} {count}" for reason, count in reasons.most_common()) or "-"))
    if found.status != "finished":
        console.print(f"resume with: {command_line('tournament', 'resume', str(found.name or found.id), db=db)}",
                      soft_wrap=True, markup=False)


@app.command("export")
def export(
    tournament: str = typer.Argument(..., metavar="ID_OR_NAME"),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder (default: results/records/tournament-ID)."),
    db: Optional[str] = DB_OPTION,
) -> None:
    """Write every stored match record of a tournament as .jsonl.gz files (`arena replay` reads them)."""
    store = open_store(db, read_only=True)
    found = store.tournaments.get(tournament)
    if found is None:
        fail(f"no tournament {tournament!r} (see `arena tournament list`)")
    folder = out or results_dir() / "records" / f"tournament-{found.id}"
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for match in store.matches.of_tournament(found.id):
        path = folder / f"r{match.round:03d}-p{match.pairing:03d}-s{match.rotation}-{match.uid[:8]}.jsonl.gz"
        path.write_bytes(store.matches.record(match))
        count += 1
    console.print(f"{count} record(s) written to {folder}/ (replay one with: arena replay FILE)")


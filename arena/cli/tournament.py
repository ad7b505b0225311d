"""`arena tournament`: run, resume, list, show and export tournaments stored in the database."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from arena.cli.common import console, fail, open_game, parse_options, print_json, results_dir
from arena.cli.runs import (BROKER_OPTION, DB_OPTION, DEFAULT_QUEUE, JSON_OPTION, QUEUE_OPTION, SANDBOX_OPTION,
                            RunDisplay, StopRequest, agent_executor, ago, open_store, parse_duration,
                            program_executor)
from arena.games.base import Game
from arena.games.registry import game_modes
from arena.ratings.leaderboard import leaderboard
from arena.store import Store
from arena.tournament.bots import BotSpec, BotSpecError, builtin_bots, parse_bots
from arena.tournament.executor import Executor, ExecutorError
from arena.tournament.formats import FORMAT_NAMES, FormatError, default_rounds
from arena.tournament.runner import RunSummary, TournamentRunner, create_tournament, entrant_kinds
from arena.tournament.standings import tournament_table

app = typer.Typer(help="Round-robin, gauntlet, Swiss and knockout tournaments.", no_args_is_help=True)


def resolve_bots(text: str, game: Game | None = None) -> list[BotSpec]:
    """--bots: comma-separated specs; 'builtin' stands for every built-in agent that can play `game`,
    with demo budgets."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    specs: list[BotSpec] = []
    try:
        for part in parts:
            specs.extend(builtin_bots(game) if part == "builtin" else parse_bots(part))
    except BotSpecError as error:
        fail(str(error), code=2)
    names = [bot.name for bot in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        fail(f"bot(s) entered twice: {', '.join(duplicates)}; name copies apart, e.g. a=random,b=random", code=2)
    return specs


def grace(seconds: float) -> float:
    """How long matches still running at a --for deadline may take to finish before they are abandoned."""
    return max(1.0, 0.1 * seconds)


def play_tournament(store: Store, tournament_id: int, executor: Executor, *, quiet: bool, deadline: float | None,
                    stop: StopRequest, max_matches: int | None = None, title: str = "",
                    hard_deadline: float | None = None) -> RunSummary:
    """Run one stored tournament with a progress bar; worker failures become one-line errors."""
    tournament = store.tournament(tournament_id)
    assert tournament is not None
    label = title or f"#{tournament_id} {tournament['format']} {tournament['game']}"
    with RunDisplay(label, quiet=quiet) as display:
        runner = TournamentRunner(store, tournament_id, executor, on_progress=display.update, should_stop=stop,
                                  deadline=deadline, hard_deadline=hard_deadline, max_matches=max_matches)
        try:
            return runner.run()
        except ExecutorError as error:
            fail(f"tournament {tournament_id}: {error}; what was played is stored, resume with "
                 f"`arena tournament resume {tournament_id}`")


def run(
    game_name: str = typer.Argument(..., metavar="GAME", help="A game or game/mode (see `arena games`), or 'all'."),
    bots: str = typer.Option(..., "--bots", help="Comma-separated bots: agent specs (random, mcts:iterations=200), "
                                                  "name=spec, 'builtin' for every built-in agent, or bot program "
                                                  "folders (bots/greedy), played through the referee."),
    format: str = typer.Option("round-robin", "--format", "-f", help=f"One of: {', '.join(FORMAT_NAMES[:-1])}."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Cycles (round-robin, gauntlet), Swiss rounds, "
                                                                        "or seat-swapped pairs per knockout tie."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help="Fixes the schedule and every match (default: random)."),
    name: Optional[str] = typer.Option(None, "--name", help="Name it; running the same name again resumes it."),
    duration: Optional[str] = typer.Option(None, "--for", help="Stop starting matches after this long (e.g. 90s, 10m; "
                                                               "matches still running a little later are left for "
                                                               "resume); with GAME 'all', shared between the modes."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option key=value (repeatable)."),
    standings: bool = typer.Option(True, "--standings/--no-standings", help="Print each tournament's table."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Run a tournament, store every match and its rating update, print the standings."""
    if format not in FORMAT_NAMES or format == "ladder":
        fail(f"unknown format {format!r}; formats: {', '.join(FORMAT_NAMES[:-1])} (the ladder is `arena ladder run`)",
             code=2)
    options = parse_options(option)
    games: list[Game] = ([mode.load(**options) for mode in game_modes()] if game_name == "all"
                         else [open_game(game_name, options)])
    resolve_bots(bots)  # fail early on a bad spec
    budget = parse_duration(duration) if duration else None
    tournament_seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    store = open_store(db)
    ids: list[int] = []
    for game in games:
        entrants = resolve_bots(bots, game)
        if len({bot.kind for bot in entrants}) > 1:
            fail("built-in agents and bot programs cannot share a tournament yet; enter the program versions "
                 "(bots/<name>) instead", code=2)
        label = name if name is None or len(games) == 1 else f"{name}/{game.name}"
        existing = store.tournament(label) if label else None
        if existing is not None:
            _check_same(existing, game, entrants, format, rounds, store)
            ids.append(existing["id"])
            continue
        try:
            ids.append(create_tournament(
                store, game=game, bots=entrants, format=format,
                rounds=rounds or default_rounds(format, len(entrants)), seed=tournament_seed, name=label,
                settings={"bots": [bot.name for bot in entrants]}))
        except FormatError as error:
            fail(f"{game.name}: {error}", code=2)
    summaries = _run_all(store, ids, concurrency, budget, json_output, broker, queue, sandbox)
    _report(store, summaries, json_output, standings)


def _check_same(existing: dict[str, Any], game: Game, entrants: list[BotSpec], format: str, rounds: int | None,
                store: Store) -> None:
    names = [store.bot_names([bot])[bot] for bot in store.entries(existing["id"])]
    differences = []
    if existing["game"] != game.name or existing["options"] != game.options:
        differences.append(f"game {existing['game']}")
    if existing["format"] != format:
        differences.append(f"format {existing['format']}")
    if rounds is not None and existing["rounds"] != rounds:
        differences.append(f"rounds {existing['rounds']}")
    if names != [bot.name for bot in entrants]:
        differences.append(f"bots {','.join(names)}")
    if differences:
        fail(f"tournament {existing['name']!r} already exists with {'; '.join(differences)}; pick another --name",
             code=2)


def _run_all(store: Store, ids: list[int], concurrency: int | None, budget: float | None, quiet: bool,
             broker: str | None = None, queue: str = DEFAULT_QUEUE, sandbox: str | None = None) -> list[RunSummary]:
    agents: Executor | None = None
    programs: Executor | None = None
    summaries: list[RunSummary] = []
    stop = StopRequest()
    started = time.monotonic()
    try:
        with stop.installed():
            for position, tournament_id in enumerate(ids):
                deadline = hard_deadline = None
                if budget is not None:  # share what is left equally between the tournaments still to run
                    remaining = budget - (time.monotonic() - started)
                    share = max(remaining, 0.0) / (len(ids) - position)
                    deadline = time.monotonic() + share
                    hard_deadline = deadline + grace(share)
                if "program" in entrant_kinds(store, tournament_id):  # bot programs play through the referee
                    executor = programs = programs or program_executor(concurrency, broker, sandbox)
                else:
                    executor = agents = agents or agent_executor(concurrency, broker, queue)
                executor.start()  # a local pool forks (again, after abandoning) before the progress display starts
                summary = play_tournament(store, tournament_id, executor, quiet=quiet, deadline=deadline, stop=stop,
                                          hard_deadline=hard_deadline)
                summaries.append(summary)
                if stop():
                    break
    except KeyboardInterrupt:
        if agents is not None:
            agents.abandon()
        fail("aborted; stored matches are kept: resume with `arena tournament resume ID` "
             "(see `arena tournament list`)", code=130)
    finally:
        for used in (agents, programs):
            if used is not None:
                used.close()
    return summaries


def _report(store: Store, summaries: list[RunSummary], json_output: bool, standings: bool = True) -> None:
    if json_output:
        print_json({"tournaments": [_summary_json(store, summary) for summary in summaries]})
        return
    for summary in summaries:
        if standings:
            _print_standings(store, summary.tournament_id)
        tournament = store.tournament(summary.tournament_id)
        assert tournament is not None
        state = "finished" if summary.finished else f"stopped ({summary.stopped_by or 'interrupted'})"
        console.print(f"#{summary.tournament_id} {tournament['game']}: {summary.played} match(es) played in "
                      f"{summary.seconds:.1f}s; "
                      f"{summary.stored}/{summary.expected} stored; {state}.")
        if not summary.finished:
            console.print(f"resume with: arena tournament resume {tournament['name'] or tournament['id']}")
    pools = sorted({store.tournament(s.tournament_id)["pool"] for s in summaries})  # type: ignore[index]
    if pools:
        console.print(f"ratings: arena leaderboard {pools[0] if len(pools) == 1 else ''}".rstrip())


def _summary_json(store: Store, summary: RunSummary) -> dict[str, Any]:
    tournament = store.tournament(summary.tournament_id)
    assert tournament is not None
    names = store.bot_names(store.entries(summary.tournament_id))
    return {
        "id": tournament["id"], "name": tournament["name"], "game": tournament["game"], "pool": tournament["pool"],
        "format": tournament["format"], "seed": tournament["seed"], "rounds": tournament["rounds"],
        "played": summary.played, "stored": summary.stored, "expected": summary.expected,
        "finished": summary.finished, "stopped_by": summary.stopped_by, "seconds": round(summary.seconds, 3),
        "standings": [line.to_json(names) for line in tournament_table(store, summary.tournament_id)],
    }


def _print_standings(store: Store, tournament_id: int) -> None:
    tournament = store.tournament(tournament_id)
    assert tournament is not None
    lines = tournament_table(store, tournament_id)
    title = (f"#{tournament['id']}{' ' + tournament['name'] if tournament['name'] else ''}: {tournament['format']} "
             f"{tournament['game']} (seed {tournament['seed']})")
    table = Table(title=title, title_justify="left")
    for column in ("#", "bot", "games", "points", "score", "W", "D", "L", "faults"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    if tournament["format"] == "knockout":
        table.add_column("reached", justify="right")
    for place, line in enumerate(lines, start=1):
        cells = [str(place), line.name, str(line.games), f"{line.points:g}",
                 f"{100 * line.points / line.games:.1f}%" if line.games else "-", str(line.wins), str(line.draws),
                 str(line.losses), str(line.faults)]
        if tournament["format"] == "knockout":
            cells.append(f"round {line.reached_round}")
        table.add_row(*cells)
    console.print(table)
    if 2 < len(lines) <= 12:
        cross = Table(title="points against", title_justify="left", show_lines=False)
        cross.add_column("")
        for line in lines:
            cross.add_column(line.name[:10], justify="right")
        for line in lines:
            cross.add_row(line.name, *[("x" if other.bot_id == line.bot_id else
                                        f"{line.against[other.bot_id]:g}" if other.bot_id in line.against else "-")
                                       for other in lines])
        console.print(cross)


def resume(
    tournament: str = typer.Argument(..., metavar="ID_OR_NAME", help="The tournament to continue."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", min=1, max=256,
                                              help="Matches at once (default: the number of cores)."),
    duration: Optional[str] = typer.Option(None, "--for", help="Stop starting matches after this long."),
    broker: Optional[str] = BROKER_OPTION,
    queue: str = QUEUE_OPTION,
    sandbox: Optional[str] = SANDBOX_OPTION,
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Continue an interrupted tournament where it stopped (finished matches are never replayed)."""
    store = open_store(db)
    found = store.tournament(tournament)
    if found is None:
        fail(f"no tournament {tournament!r} (see `arena tournament list`)")
    if found["format"] == "ladder":
        fail(f"{tournament!r} is a ladder: continue it with `arena ladder run {found['game']}`", code=2)
    summaries = _run_all(store, [found["id"]], concurrency, parse_duration(duration) if duration else None,
                         json_output, broker, queue, sandbox)
    _report(store, summaries, json_output)


def list_tournaments(db: Optional[str] = DB_OPTION, json_output: bool = JSON_OPTION) -> None:
    """List stored tournaments, newest first."""
    store = open_store(db)
    rows = store.tournaments()
    if json_output:
        print_json([{"id": r["id"], "name": r["name"], "game": r["game"], "pool": r["pool"], "format": r["format"],
                     "seed": r["seed"], "rounds": r["rounds"], "status": r["status"], "matches": r["matches"],
                     "created_at": r["created_at"].isoformat(timespec="seconds") + "Z"} for r in rows])
        return
    if not rows:
        console.print("no tournaments yet; start one with: arena tournament run GAME --bots a,b,c")
        return
    table = Table(title="Tournaments")
    for column in ("id", "name", "format", "game", "rounds", "matches", "status", "created"):
        table.add_column(column, justify="right" if column in ("id", "rounds", "matches") else "left")
    for r in rows:
        table.add_row(str(r["id"]), r["name"] or "", r["format"], r["game"], str(r["rounds"]), str(r["matches"]),
                      r["status"], ago(r["created_at"]))
    console.print(table)


def show(
    tournament: str = typer.Argument(..., metavar="ID_OR_NAME"),
    db: Optional[str] = DB_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Standings, cross-table and how the matches ended."""
    store = open_store(db)
    found = store.tournament(tournament)
    if found is None:
        fail(f"no tournament {tournament!r} (see `arena tournament list`)")
    matches = store.tournament_matches(found["id"])
    reasons = Counter(match["reason"] for match in matches)
    if json_output:
        names = store.bot_names(store.entries(found["id"]))
        print_json({"id": found["id"], "name": found["name"], "game": found["game"], "pool": found["pool"],
                    "format": found["format"], "seed": found["seed"], "rounds": found["rounds"],
                    "status": found["status"], "matches": len(matches), "reasons": dict(reasons),
                    "standings": [line.to_json(names) for line in tournament_table(store, found["id"])]})
        return
    _print_standings(store, found["id"])
    console.print(f"{len(matches)} match(es), {found['status']}; endings: "
                  + (", ".join(f"{reason} {count}" for reason, count in reasons.most_common()) or "-"))
    if found["status"] != "finished":
        console.print(f"resume with: arena tournament resume {found['name'] or found['id']}")


def export(
    tournament: str = typer.Argument(..., metavar="ID_OR_NAME"),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder (default: results/records/tournament-ID)."),
    db: Optional[str] = DB_OPTION,
) -> None:
    """Write every stored match record of a tournament as .jsonl.gz files (`arena replay` reads them)."""
    store = open_store(db)
    found = store.tournament(tournament)
    if found is None:
        fail(f"no tournament {tournament!r} (see `arena tournament list`)")
    folder = out or results_dir() / "records" / f"tournament-{found['id']}"
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for match in store.tournament_matches(found["id"]):
        stored = store.record(match["id"])
        assert stored is not None
        path = folder / f"r{match['round']:03d}-p{match['pairing']:03d}-s{match['rotation']}-{match['uid'][:8]}.jsonl.gz"
        path.write_bytes(stored[1])
        count += 1
    console.print(f"{count} record(s) written to {folder}/ (replay one with: arena replay FILE)")


def register(main: typer.Typer) -> None:
    app.command("run")(run)
    app.command("resume")(resume)
    app.command("list")(list_tournaments)
    app.command("show")(show)
    app.command("export")(export)
    main.add_typer(app, name="tournament")

"""`arena analyse`: where a match was won and lost (arena.analysis), stored with the match."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import typer

from arena.analysis import DEFAULT_BUDGET, PLAYOUT_PAIRS, Analysis, AnalysisError, Budget, analyse_record
from arena.analysis.background import analyse_pending, stored_forms
from arena.cli.options import DB_OPTION, JSON_OPTION
from arena.cli.settings import open_store, record_bytes
from arena.cli.show import RunDisplay, command_line, console, fail, print_json, show_analysis
from arena.referee.record import MatchRecord, RecordError
from arena.referee.replay import ReplayDivergence
from arena.store import Store

BUDGET_OPTION = typer.Option(DEFAULT_BUDGET, "--budget", metavar="SIMS|SECONDSs",
                             help="Search per decision: simulations (400; the same analysis every time) or "
                                  "seconds (0.5s).")


def analyse(
    source: Optional[str] = typer.Argument(None, metavar="MATCH|RECORD", help="A stored match's id or uid (see "
                                                                              "--db), or a match record file "
                                                                              "(.jsonl or .jsonl.gz)."),
    tournament: Optional[list[str]] = typer.Option(None, "--tournament", metavar="ID_OR_NAME",
                                                   help="Instead: every stored match of this tournament or ladder "
                                                        "that has no analysis yet (repeatable)."),
    budget: str = BUDGET_OPTION,
    seed: int = typer.Option(0, "--seed", help="The searches' seed (with a budget in simulations, the same seed "
                                               "gives the same analysis)."),
    playouts: int = typer.Option(0, "--playouts", min=0, metavar="PAIRS",
                                 help=f"Also check the candidate decisions by PAIRS paired playouts of greedy players "
                                      f"from the mover's view ({PLAYOUT_PAIRS} is a good number; 0: not checked): "
                                      "finds costly moves the search rated well, at about three times the "
                                      "analysis' time in Major General, far more in General Orders."),
    as_bot: Optional[str] = typer.Option(None, "--as", metavar="BOT", help="Tell it from this bot's side (a "
                                                                           "player's name in the match)."),
    timings: bool = typer.Option(False, "--timings", help="With --json: include the time taken (without it, the "
                                                         "same record, seed and budget print the same document)."),
    json_output: bool = JSON_OPTION,
    db: Optional[str] = DB_OPTION,
) -> None:
    """Replay a match and, at each decision, estimate the mover's chance to win before and after its move and
    the best move a search finds from what the mover could see; mark the turning points. A stored match keeps
    its analysis (its page and `arena replay` show it)."""
    parsed = _parsed_budget(budget)
    if (source is None) == (not tournament):
        fail("give one match (its id, or a record file) or --tournament NAME: one of the two", code=2)
    if tournament:
        analyse_tournaments(tournament, parsed, seed, json_output, db, playouts)
        return
    assert source is not None
    label, data, match_id = record_bytes(source, db)
    store = open_store(db) if match_id is not None else None
    record = _parsed_record(data, label)
    seat = _seat_of(record, as_bot, label)
    analysis = _analysed(record, label, parsed, seed, playouts, json_output)
    if store is not None and match_id is not None:  # a stored match keeps its analysis
        analysis = _stored(store, match_id, analysis, seed)
    if json_output:
        _print_document(analysis, timings, seat, as_bot)
        return
    show_analysis(analysis, seat, as_bot or "", source, db)
    if store is not None:
        console.print(f"stored with match {match_id}: its page and `{command_line('replay', str(match_id), db=db)}` "
                      "show it", markup=False)


def _parsed_budget(budget: str) -> Budget:
    """The --budget option as a Budget; fails (exit 2) on one that does not parse."""
    try:
        return Budget.parse(budget)
    except AnalysisError as error:
        fail(str(error), code=2)


def _parsed_record(data: bytes, label: str) -> MatchRecord:
    """The match record in `data` (read from `label`); fails on one that does not parse."""
    try:
        return MatchRecord.from_bytes(data, label)
    except RecordError as error:
        fail(str(error))


def _analysed(record: MatchRecord, label: str, budget: Budget, seed: int, playouts: int, quiet: bool) -> Analysis:
    """The record's analysis, with its progress shown unless `quiet`; fails when it cannot be analysed."""
    try:
        with RunDisplay(f"analysing {label}", unit="decisions", quiet=quiet) as shown:
            return analyse_record(record, budget, seed, on_progress=shown.advance, playouts=playouts)
    except (AnalysisError, ReplayDivergence) as error:
        fail(f"{label}: {error}")


def _seat_of(record: MatchRecord, as_bot: str | None, label: str) -> int | None:
    """The seat of the bot named by --as (None without it); fails when it did not play in the match."""
    if as_bot is None:
        return None
    seats = [player.seat for player in record.players if player.name == as_bot]
    if not seats:
        fail(f"{as_bot!r} did not play in {label}: its players are "
             + ", ".join(player.name for player in record.players), code=2)
    return seats[0]


def _stored(store: Store, match_id: int, analysis: Analysis, seed: int) -> Analysis:
    """Save a stored match's analysis with it, with its players' forms where both are known; that analysis."""
    stored = store.matches.get(match_id)
    if stored is not None:  # its players' forms, from their other analysed matches, where both are known
        analysis = replace(analysis, players=stored_forms(store, stored, analysis.budget))
    store.analyses.save(match_id, analysis.budget, seed, analysis.seconds, analysis.compressed())
    return analysis


def _print_document(analysis: Analysis, timings: bool, seat: int | None, as_bot: str | None) -> None:
    """`--json`: the analysis' document, with the side it is told from (`as`) where --as gave one."""
    document = analysis.to_json(timings=timings)
    if seat is not None:
        document["as"] = {"bot": as_bot, "seat": seat}
    print_json(document)


def analyse_tournaments(names: list[str], budget: Budget, seed: int, json_output: bool, db: str | None,
                        playouts: int = 0) -> None:
    """`arena analyse --tournament NAME`: the tournaments' stored matches without an analysis, oldest first."""
    store = open_store(db)
    ids = []
    for name in names:
        found = store.tournaments.get(name)
        if found is None:
            fail(f"no tournament or ladder {name!r} (see `arena tournament list` and `arena ladder status`)")
        ids.append(found.id)
    total = store.analyses.unanalysed_count(ids)
    failed: list[str] = []
    done = 0
    with RunDisplay(f"analysing {', '.join(names)}", unit="matches", quiet=json_output) as shown:
        def on_match(_match_id: int, analysed: bool, line: str) -> None:
            nonlocal done
            done += 1
            if not analysed:
                failed.append(line)
            shown.advance(done, total)

        analysed = analyse_pending(store, ids, budget, seed, on_match=on_match, playouts=playouts)
    if json_output:
        print_json({"analysed": analysed, "not_analysed": failed})
        return
    console.print(f"{analysed} match(es) analysed" + (f"; {len(failed)} could not be:" if failed else "."))
    for line in failed:
        console.print(f"  {line}", markup=False)

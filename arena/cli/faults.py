"""A bot's fault as the command line reports it: who lost by what, and the bot's own last output lines
(what it printed before it crashed, hung or broke the protocol), escaped as arena.referee.evidence says."""

from __future__ import annotations

from collections import Counter
from typing import Any


from arena.cli.common import console, styled
from arena.referee.evidence import record_header, seat_evidence, shown
from arena.store import Store

FAULT_OUTPUT_LINES = 12  # of a bot's last output, shown under its fault


def print_fault(name: str, reason: str, detail: str, evidence: dict[str, Any] | None, where: str = "") -> None:
    """'NAME lost by REASON: DETAIL' and the bot's last output lines (or that it printed nothing)."""
    console.print(styled("[bold red]{}[/bold red] lost by {}{}: {}", name, reason, where, detail), soft_wrap=True)
    output = (evidence or {}).get("output", "")
    if evidence is None:
        console.print("  (no output was kept for it)", markup=False)
    elif output:
        lines = output.splitlines()
        console.print(f"  its last output ({len(lines)} line(s)):", markup=False)
        for line in lines:
            console.print(f"    {line}", markup=False, highlight=False)
    else:
        console.print("  it printed nothing", markup=False)


def print_tournament_faults(store: Store, tournament_id: int) -> None:
    """For each bot program of a tournament that lost matches by its own fault: how many, and the latest
    one with its last output lines, from the stored record."""
    programs = {bot.id: bot for bot in store.bots.find() if bot.kind.is_program}
    faults = [(bot, fault) for fault in store.matches.faults(tournament_id=tournament_id, limit=100_000)
              if (bot := fault.offending_bot) in programs]  # newest first
    counts = Counter(bot for bot, _fault in faults)
    for bot, count in counts.items():
        latest = next(fault for offender, fault in faults if offender == bot)
        seat = next((seat.seat for seat in latest.seats if seat.bot_id == bot), 0)
        header = record_header(store.matches.record(latest)) or {}
        where = f" in {count} match(es); the latest, match {latest.id}"
        print_fault(programs[bot].name, latest.reason, latest.detail,
                    seat_evidence(header.get("extra"), seat, FAULT_OUTPUT_LINES), where)

"""A tournament's own table: points, wins, draws and losses per entrant, and the cross-table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.base import points
from arena.referee.record import seat_outcome
from arena.store.repository import Store


@dataclass
class EntrantLine:
    """One entrant's results in one tournament."""

    bot_id: int
    name: str
    position: int  # seeding position
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    faults: int = 0
    reached_round: int = 0
    against: dict[int, float] = field(default_factory=dict)  # opponent bot id -> points scored

    def to_json(self, names: dict[int, str]) -> dict[str, Any]:
        return {"bot": self.name, "seed_position": self.position + 1, "games": self.games, "wins": self.wins,
                "draws": self.draws, "losses": self.losses, "points": self.points, "faults": self.faults,
                "score_pct": round(100.0 * self.points / self.games, 2) if self.games else None,
                "against": {names[b]: p for b, p in sorted(self.against.items())}}


def tournament_table(store: Store, tournament_id: int) -> list[EntrantLine]:
    """Entrants ordered by (points, then wins, then seeding; knockout: by the round reached first)."""
    tournament = store.tournaments.get(tournament_id)
    if tournament is None:
        raise KeyError(f"no tournament {tournament_id}")
    entries = store.tournaments.entries(tournament_id)
    names = store.bots.names(entries)
    lines = {bot: EntrantLine(bot, names[bot], position) for position, bot in enumerate(entries)}
    _note_rounds_reached(store, tournament_id, lines)
    for match in store.matches.of_tournament(tournament_id):
        ranking = match.ranking
        bots = match.bots
        for seat, bot in enumerate(bots):
            line = lines.get(bot)
            if line is not None:
                _count_seat(line, ranking, bots, seat, match.offender)
    knockout = tournament.format == "knockout"
    return sorted(lines.values(), key=lambda line: ((-line.reached_round if knockout else 0), -line.points,
                                                    -line.wins, line.position))


def _note_rounds_reached(store: Store, tournament_id: int, lines: dict[int, EntrantLine]) -> None:
    """Set each entrant's furthest round reached (counted from 1) by the tournament's pairings."""
    for pairing in store.tournaments.pairings(tournament_id):
        for bot in pairing.bots:
            if bot in lines:
                lines[bot].reached_round = max(lines[bot].reached_round, pairing.round + 1)


def _count_seat(line: EntrantLine, ranking: Sequence[int], bots: Sequence[int], seat: int,
                offender: int | None) -> None:
    """Add one match's result, fault and points against each opponent to the line of the bot in `seat`."""
    line.games += 1
    outcome = seat_outcome(ranking, seat)
    if outcome == "win":
        line.wins += 1
    elif outcome == "draw":
        line.draws += 1
    else:
        line.losses += 1
    if offender == seat:
        line.faults += 1
    for other_seat, other in enumerate(bots):
        if other_seat == seat:
            continue
        value = points(ranking[seat] < ranking[other_seat], ranking[seat] == ranking[other_seat])
        line.against[other] = line.against.get(other, 0.0) + value
        line.points += value / (len(bots) - 1)

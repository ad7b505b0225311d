"""The analyses table: one stored match's analysis (arena.analysis), gzip-compressed JSON, and which of a
tournament's matches have none yet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, delete, func, insert, select

from arena.store.models import Match, MatchAnalysis, MatchSeat, utcnow
from arena.store.retry import retried_on_lost_connection


@retried_on_lost_connection
class Analyses:
    """Stored matches' analyses."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def save(self, match_id: int, budget: str, seed: int, seconds: float, data: bytes) -> None:
        """Store a match's analysis (gzip-compressed JSON), replacing any earlier one."""
        with self.engine.begin() as conn:
            conn.execute(delete(MatchAnalysis).where(MatchAnalysis.match_id == match_id))
            conn.execute(insert(MatchAnalysis).values(match_id=match_id, budget=budget, seed=seed, seconds=seconds,
                                                      created_at=utcnow(), data=data))

    def get(self, match_id: int) -> bytes | None:
        """A stored match's analysis (gzip-compressed JSON), or None if it has none."""
        with self.engine.connect() as conn:
            data = conn.execute(select(MatchAnalysis.data).where(MatchAnalysis.match_id == match_id)).scalar()
        return bytes(data) if data is not None else None

    def exists(self, match_id: int) -> bool:
        """Whether a stored match has an analysis (without reading it)."""
        with self.engine.connect() as conn:
            return conn.execute(select(MatchAnalysis.match_id).where(MatchAnalysis.match_id == match_id)).first() \
                is not None

    def of_bot(self, bot_id: int, game: str, budget: str, *, leave_out: int | None = None,
               limit: int = 50) -> list[tuple[int, int, bytes]]:
        """The bot's most recent analysed matches of `game` at `budget` (but `leave_out`): (the match's id, the bot's
        seat there, the analysis as gzip-compressed JSON) each; what its form (arena.analysis.players) is measured
        on."""
        query = (select(Match.id, MatchSeat.seat, MatchAnalysis.data)
                 .join(Match, Match.id == MatchSeat.match_id)
                 .join(MatchAnalysis, MatchAnalysis.match_id == Match.id)
                 .where(MatchSeat.bot_id == bot_id, Match.game == game, MatchAnalysis.budget == budget)
                 .order_by(Match.id.desc()).limit(limit))
        if leave_out is not None:
            query = query.where(Match.id != leave_out)
        with self.engine.connect() as conn:
            return [(int(match_id), int(seat), bytes(data)) for match_id, seat, data in conn.execute(query)]

    def unanalysed(self, tournament_ids: Sequence[int], limit: int = 100) -> list[int]:
        """Ids of the tournaments' stored matches without an analysis, oldest first."""
        query = _unanalysed(select(Match.id), tournament_ids).order_by(Match.id).limit(limit)
        with self.engine.connect() as conn:
            return [int(row) for row in conn.execute(query).scalars()]

    def unanalysed_count(self, tournament_ids: Sequence[int]) -> int:
        """How many of the tournaments' stored matches have no analysis."""
        with self.engine.connect() as conn:
            return int(conn.execute(_unanalysed(select(func.count()).select_from(Match), tournament_ids)).scalar_one())


def _unanalysed(query: Any, tournament_ids: Sequence[int]) -> Any:
    """`query` over the tournaments' matches that have no analysis (one condition for the list and the count)."""
    return (query.outerjoin(MatchAnalysis, MatchAnalysis.match_id == Match.id)
            .where(Match.tournament_id.in_(list(tournament_ids)), MatchAnalysis.match_id.is_(None)))

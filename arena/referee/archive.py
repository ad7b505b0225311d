"""Where match records are kept: results/records/<game>/<time>-seed<seed>-<id>.jsonl; a match whose record could
not be kept there."""

from __future__ import annotations

from pathlib import Path

from arena.referee.record import MatchRecord, MatchResult, Termination


def record_path(results: str | Path, record: MatchRecord) -> Path:
    """The file a record is stored in under a results folder (the layout `arena play` uses)."""
    game_folder = record.game.replace("/", "__")
    stamp = record.started_at[:19].replace(":", "").replace("-", "")
    return Path(results) / "records" / game_folder / f"{stamp}-seed{record.seed}-{record.match_id[:8]}.jsonl"


def save_record(results: str | Path, record: MatchRecord) -> Path:
    """Write a record under `results`; returns its path."""
    return record.write(record_path(results, record))


def mark_unstored(record: MatchRecord, error: OSError) -> None:
    """End the match as an infrastructure fault: its record could not be stored (`error`). Nobody ranked, never
    scored (a tournament or ladder plays it again); the result it was played to kept in extra["played_result"],
    the cause in extra["storage_error"]."""
    problem = str(error)
    seats = len(record.result.ranking) if record.result is not None else len(record.players)
    if record.result is not None and record.result.termination is not Termination.INFRASTRUCTURE:
        record.extra["played_result"] = record.result.to_json()
    record.extra["storage_error"] = problem
    record.result = MatchResult(tuple([0] * seats), Termination.INFRASTRUCTURE, voided=True,
                                detail=f"the referee could not store this match's record ({problem})")

"""Where match records are kept: results/records/<game>/<time>-seed<seed>-<id>.jsonl."""

from __future__ import annotations

from pathlib import Path

from arena.referee.record import MatchRecord


def record_path(results: str | Path, record: MatchRecord) -> Path:
    """The file a record is stored in under a results folder (the layout `arena play` uses)."""
    game_folder = record.game.replace("/", "__")
    stamp = record.started_at[:19].replace(":", "").replace("-", "")
    return Path(results) / "records" / game_folder / f"{stamp}-seed{record.seed}-{record.match_id[:8]}.jsonl"


def save_record(results: str | Path, record: MatchRecord) -> Path:
    """Write a record under `results`; returns its path."""
    return record.write(record_path(results, record))

"""A record that cannot be written (a full disk, a read-only one) is a RecordWriteError that names the file and
the cause, and leaves nothing behind: no .part file, no record; the same record is written once there is room."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from arena.agents import RandomAgent
from arena.games.registry import load_game
from arena.referee import play_match
from arena.referee.archive import mark_unstored, save_record
from arena.referee.record import MatchRecord, RecordWriteError, Termination
from arena.referee.replay import replay
from tests.small_disk import fill, parts, read_only, small_disk  # noqa: F401 (a fixture)


def a_record() -> MatchRecord:
    return play_match(load_game("major-general"), [RandomAgent(), RandomAgent()], seed=3)


@pytest.mark.parametrize("gzip", [False, True], ids=["jsonl", "gz"])
def test_a_full_disk_leaves_no_part_file(small_disk: Path, gzip: bool) -> None:
    record = a_record()
    filler = fill(small_disk)
    target = small_disk / "records" / ("match.jsonl.gz" if gzip else "match.jsonl")
    with pytest.raises(RecordWriteError) as caught:
        record.write(target)
    assert caught.value.errno == errno.ENOSPC
    assert str(caught.value) == f"cannot write the record {target}: No space left on device"
    assert isinstance(caught.value, OSError)  # (what callers that catch OSError already catch)
    assert parts(small_disk) == [] and not target.exists()

    filler.unlink()  # room again: the same record is written whole
    assert MatchRecord.read(record.write(target)).to_jsonl() == record.to_jsonl()


def test_a_read_only_disk(small_disk: Path) -> None:
    (small_disk / "records").mkdir()
    read_only(small_disk)
    with pytest.raises(RecordWriteError) as caught:
        save_record(small_disk, a_record())
    assert caught.value.errno == errno.EROFS
    assert "Read-only file system" in str(caught.value)
    assert parts(small_disk) == []


def test_a_record_not_stored_ends_as_an_infrastructure_fault_and_still_replays() -> None:
    record = a_record()
    played = record.result
    assert played is not None and played.termination is None
    mark_unstored(record, RecordWriteError(errno.ENOSPC, "No space left on device", "/srv/results/r.jsonl"))
    assert record.result is not None
    assert record.result.termination is Termination.INFRASTRUCTURE and record.result.voided
    assert record.result.detail == ("the referee could not store this match's record (cannot write the record "
                                    "/srv/results/r.jsonl: No space left on device)")
    assert record.extra["played_result"] == played.to_json()
    again = MatchRecord.from_jsonl(record.to_jsonl())  # what a client keeps of it
    replay(again)  # an infrastructure fault after the last step is no divergence

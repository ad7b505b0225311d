"""Records are read within bounds and checked whole (issue 48): a line nested 100,000 deep or longer than the
bound is one line of error, a header whose seed was edited does not replay, and `arena replay --html` makes no
page of a record that does not replay. Each on a real record, played here and then changed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from arena.agents import RandomAgent
from arena.cli.main import main
from arena.referee.authority import play_match
from arena.referee.record import MAX_LINE_CHARS, MatchRecord, RecordError


@pytest.fixture(scope="module")
def played() -> MatchRecord:
    record = play_match("major-general", [RandomAgent(), RandomAgent()], 48)
    assert any(step.is_chance for step in record.steps)  # (its chance is what the seed decides)
    return record


def lines_of(record: MatchRecord) -> list[str]:
    return record.to_jsonl().splitlines()


def write(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str, *words: str) -> None:
    assert "Traceback" not in err and err.startswith("arena: error: ") and err.strip().count("\n") == 0, err
    for word in words:
        assert word in err, err


def test_the_played_record_replays_and_makes_a_page(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    played: MatchRecord) -> None:
    path = write(tmp_path / "good.jsonl", lines_of(played))
    code, out, err = replay(capsys, path, "--final")
    assert code == 0 and "replay reproduces the record" in out, err
    code, out, err = replay(capsys, path, "--html", str(tmp_path / "good.html"))
    assert code == 0 and (tmp_path / "good.html").is_file(), err


def test_a_line_nested_100000_deep(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   played: MatchRecord) -> None:
    lines = lines_of(played)
    header = json.loads(lines[0])
    lines[0] = json.dumps(header)[:-1] + ', "extra2": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = write(tmp_path / "deep.jsonl", lines)
    for argv in ([path], [path, "--html", str(tmp_path / "deep.html")]):
        code, _, err = replay(capsys, *argv)
        assert code != 0
        one_line(err, "line 1", "nested more than 32 deep")
    assert not (tmp_path / "deep.html").exists()
    with pytest.raises(RecordError, match="nested more than 32 deep"):
        MatchRecord.from_jsonl("\n".join(lines))


def test_a_line_over_the_bound(tmp_path: Path, played: MatchRecord) -> None:
    lines = lines_of(played)
    step = json.loads(lines[3])
    step["note"] = "x" * MAX_LINE_CHARS
    lines[3] = json.dumps(step)
    with pytest.raises(RecordError, match="line 4: longer than"):
        MatchRecord.from_bytes(gzip.compress("\n".join(lines).encode()), "big.jsonl.gz")


def test_an_edited_seed_does_not_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        played: MatchRecord) -> None:
    lines = lines_of(played)
    header = json.loads(lines[0])
    header["seed"] = played.seed + 1
    lines[0] = json.dumps(header)
    path = write(tmp_path / "seed.jsonl", lines)
    code, _, err = replay(capsys, path, "--final")
    assert code != 0
    one_line(err, "chance differs from the header's seed")
    code, _, err = replay(capsys, path, "--html", str(tmp_path / "seed.html"))
    assert code != 0
    one_line(err, "does not replay", "chance differs from the header's seed")
    assert not (tmp_path / "seed.html").exists()


@pytest.mark.parametrize("change", ["result", "label", "truncated"])
def test_html_refuses_a_record_that_does_not_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    played: MatchRecord, change: str) -> None:
    lines = lines_of(played)
    if change == "result":
        result = json.loads(lines[-1])
        result["ranking"] = list(reversed(result["ranking"]))
        lines[-1] = json.dumps(result)
    elif change == "label":
        step = json.loads(lines[5])
        step["label"] = "something else"
        lines[5] = json.dumps(step)
    else:
        lines = lines[: len(lines) // 2]
    out = tmp_path / f"{change}.html"
    code, _, err = replay(capsys, write(tmp_path / f"{change}.jsonl", lines), "--html", str(out))
    assert code != 0
    one_line(err, "does not replay")
    assert not out.exists()


@pytest.mark.parametrize("luck", [{"events": "x"}, {"model": "m", "beta": 1, "seats": [0.1]}, "lucky", [1, 2]])
def test_a_records_damaged_luck_is_said_and_measured_again(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           played: MatchRecord, luck: object) -> None:
    """The luck a record keeps (its header's extra) edited into nonsense: `arena replay` says it cannot read it, in
    one line, and shows the rest; where the luck is needed (attach_luck), it is measured again from the steps."""
    from arena.luck import attach_luck, measure_luck

    lines = lines_of(played)
    header = json.loads(lines[0])
    header.setdefault("extra", {})["luck"] = luck
    lines[0] = json.dumps(header)
    path = write(tmp_path / "luck.jsonl", lines)
    code, out, err = replay(capsys, path, "--final")
    assert code == 0 and "Traceback" not in out + err, out + err
    assert "luck: the record's luck cannot be read" in " ".join(out.split())
    damaged = MatchRecord.from_jsonl(Path(path).read_text())
    assert attach_luck(damaged) == measure_luck(played)

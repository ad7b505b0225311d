"""`arena games`, `arena play`, `arena replay`: output, records, and one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.referee.record import MatchRecord
from arena.referee.seeds import game_seed


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_games_lists_every_mode(capsys):
    code, out, _ = run(capsys, "games", "--json")
    assert code == 0
    names = {entry["name"] for entry in json.loads(out)}
    assert {"major-general", "major-general/no-scenario", "major-general/hold-the-centre"} <= names


def test_play_writes_records_that_replay(capsys, tmp_path):
    code, out, _ = run(capsys, "play", "major-general", "--games", "3", "--seed", "5", "--out", str(tmp_path), "--json")
    assert code == 0
    data = json.loads(out)
    assert [g["seed"] for g in data["games"]] == [game_seed(5, index) for index in range(3)]  # each game its own
    assert data["players"] == ["random", "random"]
    records = [Path(g["record"]) for g in data["games"]]
    assert all(path.exists() and path.is_relative_to(tmp_path) for path in records)

    code, out, _ = run(capsys, "replay", str(records[0]))
    assert code == 0
    assert "replay reproduces the record" in out
    assert "Yellow base" in out  # the board is drawn


def test_play_is_reproducible_from_its_seed(capsys, tmp_path):
    _, first, _ = run(capsys, "play", "major-general", "--games", "2", "--seed", "11", "--no-save", "--json")
    _, second, _ = run(capsys, "play", "major-general", "--games", "2", "--seed", "11", "--no-save", "--json")
    strip = lambda text: [(g["seed"], g["ranking"], g["scores"]) for g in json.loads(text)["games"]]  # noqa: E731
    assert strip(first) == strip(second)


def test_play_prints_a_results_table(capsys, tmp_path):
    code, out, _ = run(capsys, "play", "major-general/no-scenario", "--games", "2", "--seed", "1",
                       "--out", str(tmp_path))
    assert code == 0
    assert "By player" in out and "wins" in out


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["play", "chess"], 2, "unknown game 'chess'"),
        (["play", "major-general", "--seed", "abc"], 2, "--seed"),
        (["play", "major-general", "--seed", "-4"], 2, "--seed"),
        (["play", "major-general", "--games", "0"], 2, "--games"),
        (["play", "major-general", "--players", "random"], 2, "has 2 seats"),
        (["play", "major-general", "--players", "random,nobody"], 2, "unknown agent 'nobody'"),
        (["play", "major-general", "-o", "scenario=mars"], 2, "unknown scenario 'mars'"),
        (["replay", "/nonexistent/record.jsonl"], 1, "no such record file"),
        (["nosuchcommand"], 2, "No such command"),
    ],
)
def test_bad_arguments_give_one_line_and_a_non_zero_status(capsys, argv, code, message):
    status, out, err = run(capsys, *argv)
    assert status == code
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    "content",
    [b"garbage\n", b'{"type":"header","format":"arena-record/1","game":"major-general","seed":1,"players":[]}\n'
                   b'{"type":"decision","n":0,"seat":0,"action":3,"label":"x"}\n', b"\x1f\x8b\x08junk"],
)
def test_replay_of_a_corrupt_record_is_one_line(capsys, tmp_path, content):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    status, out, err = run(capsys, "replay", str(path))
    assert status == 1
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in out + err


def test_tables_written_to_a_pipe_are_not_squeezed_to_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from arena.cli.show import PIPED_WIDTH, _width

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("COLUMNS", raising=False)
    assert _width(io.StringIO()) == PIPED_WIDTH == 120  # a log or `make demo | tee`: wide enough for a leaderboard
    assert _width(Terminal()) is None  # a terminal: its own width
    monkeypatch.setenv("COLUMNS", "70")
    assert _width(io.StringIO()) is None  # COLUMNS wins (rich reads it)


def test_replay_numbers_steps_and_decisions_as_the_match_does_and_starts_at_a_decision(capsys, tmp_path):
    """One numbering of a match's moments (issue 45): every step numbered from 1 (chance events too), each
    decision marked with its decision number over the match; --decision N starts there, out of range one line."""
    code, out, _ = run(capsys, "play", "major-general", "--games", "1", "--seed", "5", "--out", str(tmp_path), "--json")
    path = json.loads(out)["games"][0]["record"]
    record = MatchRecord.read(path)
    numbers = record.decision_numbers()
    assert None in numbers  # (the match has chance steps: its steps and decisions are two counts)
    code, out, _ = run(capsys, "replay", path)
    assert code == 0
    for index, (step, decision) in enumerate(zip(record.steps, numbers), start=1):
        if decision is None:
            assert f"{index}. chance: {step.label}" in out
        else:
            assert re.search(rf"─ {index}\. .*\(decision {decision}\)", out), (index, decision)
    wanted = 5
    at = record.step_of_decision(wanted)
    assert at is not None and at > wanted  # (chance steps came before it)
    code, out, _ = run(capsys, "replay", path, "--decision", str(wanted))
    assert code == 0 and "replay reproduces the record" in out
    assert f"before step {at} (decision {wanted})" in out
    assert re.search(rf"─ {at}\. .*\(decision {wanted}\)", out)
    assert f"─ {at - 1}. " not in out and f"(decision {wanted - 1})" not in out  # nothing drawn before it
    code, out, err = run(capsys, "replay", path, "--decision", str(len(record.decisions) + 1))
    assert code == 2 and f"its decisions are 1 to {len(record.decisions)}" in out + err
    assert "record" not in out  # the error comes before anything is drawn

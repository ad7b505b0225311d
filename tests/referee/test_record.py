"""Record files: JSON lines round trip, gzip, and clear errors for corrupt files."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.agents import RandomAgent, make_agent
from arena.games.base import CHANCE
from arena.games.registry import load_game
from arena.referee import play_match
from arena.referee.record import MatchRecord, RecordError, Step
from arena.referee.replay import ReplayDivergence, replay


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    return play_match("major-general", [RandomAgent(), RandomAgent()], 3)


def test_round_trip_through_text_and_files(record, tmp_path):
    again = MatchRecord.from_jsonl(record.to_jsonl())
    assert again.to_jsonl() == record.to_jsonl()
    for name in ("match.jsonl", "match.jsonl.gz"):
        path = record.write(tmp_path / name)
        assert MatchRecord.read(path).to_jsonl() == record.to_jsonl()
    assert (tmp_path / "match.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty record"),
        ("not json\n", "line 1: not JSON"),
        ('{"type": "decision"}\n', "line 1: a record starts with its header"),
        ('{"type": "header", "format": "other/9"}\n', "unknown record format"),
        ('{"type": "header", "format": "arena-record/1"}\n', "line 1: bad header line"),
    ],
)
def test_corrupt_records_name_the_bad_line(text, message):
    with pytest.raises(RecordError, match=message):
        MatchRecord.from_jsonl(text)


def test_a_bad_step_line_is_named(record):
    lines = record.to_jsonl().splitlines()
    lines[3] = '{"type": "decision", "n": 2}'
    with pytest.raises(RecordError, match="line 4: bad decision line"):
        MatchRecord.from_jsonl("\n".join(lines))
    lines = record.to_jsonl().splitlines()
    lines.append(lines[1])
    with pytest.raises(RecordError, match="nothing may follow the result"):
        MatchRecord.from_jsonl("\n".join(lines))


def test_missing_and_garbage_files(tmp_path):
    with pytest.raises(RecordError, match="no such record file"):
        MatchRecord.read(tmp_path / "nope.jsonl")
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(RecordError, match="corrupt gzip"):
        MatchRecord.read(tmp_path / "bad.gz")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="bad UTF-8"):
        MatchRecord.read(tmp_path / "bin.jsonl")


def test_tampered_records_diverge_at_the_right_line(record):
    text = record.to_jsonl()
    tampered = MatchRecord.from_jsonl(text)
    # A changed label.
    index = next(i for i, s in enumerate(tampered.steps) if not s.is_chance)
    step = tampered.steps[index]
    tampered.steps[index] = type(step)(step.n, step.seat, step.action, "something else")
    with pytest.raises(ReplayDivergence, match=f"line {index + 2}: label differs"):
        replay(tampered)
    # A changed result.
    tampered = MatchRecord.from_jsonl(text)
    result = tampered.result
    tampered.result = type(result)(tuple(reversed(result.ranking)), result.reason, result.scores)
    if tampered.result.ranking != result.ranking:
        with pytest.raises(ReplayDivergence, match="result differs"):
            replay(tampered)
    # A truncated record.
    tampered = MatchRecord.from_jsonl(text)
    tampered.steps = tampered.steps[:-3]
    with pytest.raises(ReplayDivergence):
        replay(tampered)


def test_a_record_from_another_rules_version_is_refused_at_line_one(record):
    other = MatchRecord.from_jsonl(record.to_jsonl())
    other.versions["rules"] = "0"
    with pytest.raises(ReplayDivergence, match="line 1: .*rules version 0"):
        replay(other)


def _encoded(step: Step) -> str:
    return json.dumps(step.to_json(), separators=(",", ":"))


@pytest.mark.parametrize("mode", ["major-general", "general-orders-wwii/island", "general-orders-sengoku/fortress"])
def test_a_steps_line_is_the_json_encoders_text_to_the_byte(mode: str) -> None:
    """A record's step lines are written directly for the usual shape of step (most of a record's writing): each
    is the very text the JSON encoder gives its to_json(), timings, notes and printed output included."""
    game = load_game(mode)
    for seed in range(3):
        record = play_match(game, [make_agent("greedy"), RandomAgent()], seed)
        for step in record.steps:
            assert step.to_line() == _encoded(step)
            if not step.is_chance:
                timed = replace(step, timing={"think_ms": 0.1 + step.n / 7, "transport_ms": 12, "x-ms": 1e-7},
                                note=f"n\u00e9\"{step.n}\"\n\t\x01\u2603", output="line 1\nline 2 \U0001F600")
                assert timed.to_line() == _encoded(timed)
        assert record.to_jsonl() == "\n".join([json.dumps(record.header_json(), separators=(",", ":")),
                                               *map(_encoded, record.steps),
                                               json.dumps(record.result.to_json(), separators=(",", ":"))]) + "\n"


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 10**6), seat=st.sampled_from([CHANCE, 0, 1]), action=st.integers(-5, 10**9),
       label=st.text(),
       timing=st.dictionaries(st.one_of(st.sampled_from(["think_ms", "transport_ms", "n", "label", "note", "type"]),
                                        st.text(max_size=8)),
                              st.one_of(st.floats(), st.integers(-10**20, 10**20), st.booleans()), max_size=4),
       note=st.one_of(st.none(), st.text()), output=st.one_of(st.none(), st.text()), odd=st.booleans())
def test_any_step_is_written_as_the_json_encoder_writes_it(n: int, seat: int, action: int, label: str,
                                                           timing: dict, note: str | None, output: str | None,
                                                           odd: bool) -> None:
    """Whatever a step holds (any text, NaN and infinite timings, ints, booleans, keys that clash with the line's
    own), its line is the encoder's text: the direct writing and the encoder agree, or the encoder writes it."""
    step = Step(True if odd and n == 1 else n, seat, action, label, timing, note=note, output=output)
    assert step.to_line() == _encoded(step)

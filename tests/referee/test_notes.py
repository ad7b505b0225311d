"""The referee keeps a seat's notes bounded: 1,024 characters of a decision's, 32,768 of a seat's in a match,
and a note never changes the match (a replay of the record reproduces it, notes or not)."""

from __future__ import annotations

from arena.agents import RandomAgent
from arena.agents.base import NOTE_CHARS, NOTE_CHARS_PER_MATCH, DecisionRequest
from arena.referee.authority import NoteAllowance, play_match
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord
from arena.referee.replay import replay


class Counting(RandomAgent):
    """Notes the moment its request names (DecisionRequest.decision and .step)."""

    name = "counting"

    def act(self, request: DecisionRequest) -> int:
        request.note = f"d{request.decision} s{request.step}"
        return super().act(request)


def test_a_request_names_its_moment_as_the_record_numbers_it() -> None:
    """One numbering (issue 45): the agent's decision number is the match's (both seats' decisions counted),
    its step the record's step number (chance steps counted), not a count of its own."""
    record = play_match("major-general", [Counting(), Counting()], seed=5)
    numbers = record.decision_numbers()
    assert None in numbers  # (chance steps make the two counts differ)
    assert [step.note for step in record.steps if not step.is_chance] == \
        [f"d{numbers[index]} s{index + 1}" for index, step in enumerate(record.steps) if not step.is_chance]


class Chatty(RandomAgent):
    name = "chatty"

    def act(self, request: DecisionRequest) -> int:
        request.note = "n" * 5000
        return super().act(request)


def test_notes_are_cut_per_decision_and_per_match() -> None:
    allowance = NoteAllowance(2)
    first = allowance.keep(0, "a" * 5000)
    assert first is not None and len(first) == NOTE_CHARS and first.endswith("…")
    kept = [allowance.keep(0, "b" * NOTE_CHARS) for _ in range(40)]
    total = len(first) + sum(len(note) for note in kept if note)
    assert total <= NOTE_CHARS_PER_MATCH
    assert any(note and "kept up to here" in note for note in kept) and kept[-1] is None
    assert allowance.keep(1, "seat 1 has its own allowance") == "seat 1 has its own allowance"


def test_an_in_process_agents_notes_are_kept_and_a_replay_reproduces_the_match() -> None:
    record = play_match("major-general", [Chatty(), RandomAgent()], seed=5)
    notes = [step.note for step in record.steps if not step.is_chance and step.seat == 0]
    assert notes and all(note is not None and len(note) <= NOTE_CHARS for note in notes)
    assert sum(len(note or "") for note in notes) <= NOTE_CHARS_PER_MATCH
    assert all(step.note is None for step in record.steps if not step.is_chance and step.seat == 1)
    again = MatchRecord.from_jsonl(record.to_jsonl())
    assert [step.note for step in again.steps] == [step.note for step in record.steps]
    replay(again)  # the record replays: notes are beside the play, never part of it


def test_printed_lines_keep_their_end() -> None:
    allowance = NoteAllowance(1, 10, 25, keep_end=True)
    assert allowance.keep(0, "0123456789abcdef") == "…789abcdef"  # the last of it: the newest lines
    assert allowance.keep(0, "short") == "short"
    assert allowance.keep(0, "0123456789") is None  # 10 left: no room for it and the word that it ends here
    assert allowance.keep(0, "x") is None

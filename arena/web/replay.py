"""A match record as the viewer's replay document, built step by step from a stream of record lines.

The record is run back through the engine (arena.referee.replay.replay_stream checks every step), and
the board is drawn from the engine's own position after each step (arena.games.views). A finished
match is over, so both hands may be shown (`reveal`), as `arena replay` does.

The replay is written in pieces so that a huge record is never held whole: as JSON lines (the match
page draws the board from the first line and takes the steps as they come) or as one JSON document
(the self-contained HTML page) of the same pieces:

    {"header": {match_id, game, title, seed, players: [{seat, name, version}], seat_names},
     "board": {...arena.games.views.board...},
     "start": {...position before the first step...},
     "steps": [{"n", "seat" (-1: chance), "label", "think_ms", "position": {...}}, ...],
     "result": {"ranking", "reason", "scores", "offender", "detail", "verdict" (who won and how, in words:
                MatchResult.verdict)} or null,
     "error": null, or what went wrong (a record that does not parse, or disagrees with the engine)}
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterable, Iterator
from typing import IO, Any

from arena.games import views
from arena.referee.record import MatchRecord, MatchResult, RecordError, Step, read_lines
from arena.referee.replay import ReplayDivergence, check_result, game_of, replay_stream


class ReplayError(ValueError):
    """A record that cannot even start to replay (no header, unknown game); the message says why."""


def record_lines(data: bytes | IO[bytes]) -> Iterator[bytes]:
    """The lines of a record, gzip-compressed or not, read as a stream."""
    source = io.BytesIO(data) if isinstance(data, bytes) else data
    head = source.read(2)
    source.seek(0) if source.seekable() else None
    stream: Iterable[bytes] = source
    if head == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=source)
    elif not source.seekable():
        stream = _Prefixed(head, source)
    try:
        yield from stream
    except (OSError, EOFError, zlib.error) as error:
        raise RecordError(f"corrupt gzip data ({error})") from None


def replay_items(lines: Iterable[bytes | str], reveal: bool = True) -> Iterator[dict[str, Any]]:
    """The replay as it is built, one piece at a time: {"header", "board", "start"}, then each step
    {"n", "seat", "label", "think_ms", "position"}, then {"result", "error"} (see the module's docstring).
    ReplayError before the first piece if the record cannot start; later problems end it with "error"."""
    items = read_lines(lines)
    try:
        header = next(items, None)
    except RecordError as error:
        raise ReplayError(str(error)) from None
    if not isinstance(header, MatchRecord):
        raise ReplayError("empty record: no header line")
    try:
        game = game_of(header)
    except ReplayDivergence as error:
        raise ReplayError(str(error)) from None
    info = game.info
    head = {"match_id": header.match_id, "game": header.game, "title": info.title, "seed": header.seed,
            "players": [{"seat": p.seat, "name": p.name, "version": p.version, "kind": p.kind.value}
                        for p in header.players],
            "seat_names": list(info.seat_names), "started_at": header.started_at}
    state = game.new_initial_state()
    yield {"header": head, "board": views.board(game), "start": views.position(state, reveal)}
    result: MatchResult | None = None
    steps = 0
    failure: str | None = None

    def step_items() -> Iterator[Step]:
        nonlocal result
        for item in items:
            if isinstance(item, Step):
                yield item
            elif isinstance(item, MatchResult):
                result = item

    try:
        for state, step in replay_stream(game, step_items(), state, seed=header.seed):
            yield {"n": step.n, "seat": step.seat, "label": step.label, "think_ms": step.timing.get("think_ms"),
                   "position": views.position(state, reveal)}
            steps += 1
        header.result = result
        check_result(header, state, steps)
    except (RecordError, ReplayDivergence) as problem:
        failure = str(problem)
    outcome = None if result is None else {"ranking": list(result.ranking), "reason": result.reason,
                                           "scores": list(result.scores), "offender": result.offender,
                                           "detail": result.detail,
                                           "verdict": result.verdict(info.seat_names, header.player_names)}
    yield {"result": outcome, "error": failure}


def replay_ndjson(lines: Iterable[bytes | str], reveal: bool = True) -> Iterator[str]:
    """The replay as JSON lines, one piece per line (what the match page streams and draws as it comes)."""
    for item in replay_items(lines, reveal):
        yield json.dumps(item, separators=(",", ":")) + "\n"


def replay_document(lines: Iterable[bytes | str], reveal: bool = True) -> Iterator[str]:
    """The replay as one JSON document's text, in pieces (see the module's docstring)."""
    pieces = replay_items(lines, reveal)
    first = next(pieces)
    yield json.dumps(first)[:-1] + ', "steps": ['
    previous: dict[str, Any] | None = None
    count = 0
    for piece in pieces:
        if previous is not None:
            yield ("" if count == 0 else ", ") + json.dumps(previous)
            count += 1
        previous = piece
    assert previous is not None
    yield '], "result": ' + json.dumps(previous["result"]) + ', "error": ' + json.dumps(previous["error"]) + "}"


def replay_json(lines: Iterable[bytes | str], reveal: bool = True) -> dict[str, Any]:
    """The whole replay document as one value (for small records and for tests)."""
    document: dict[str, Any] = json.loads("".join(replay_document(lines, reveal)))
    return document


class _Prefixed(io.RawIOBase):
    """A stream with the bytes already read from it put back in front."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self.head = head
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.head or self.rest.read(len(buffer))
        self.head = b""
        buffer[:len(data)] = data
        return len(data)

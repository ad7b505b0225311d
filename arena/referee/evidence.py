"""A bot's own words (its output, its notes, the free text of its messages) as people are shown them, and
who may read them.

A record keeps three things for a seat's owner and the operators only: the evidence of a fault (the bot's last
output, its usage: the header's `extra["evidence"]`), the notes a bot left with its decisions (a decision
line's `note`) and what a bot program printed with each (its `output`). `public_lines` is the record as
everyone else reads it, without any of them.

What a bot prints is kept in records exactly as it was; wherever it is shown, on a terminal or a
web page, its control characters and escape sequences are written out (`\\x1b`, `\\u202e`), never
passed through: a bot must not set a terminal's title, write to its clipboard (OSC 52), move its
cursor to draw a fake "all passed", or turn text around with a bidirectional override.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

OUTPUT_LINES = 30  # the most of a bot's last output lines shown with its fault

#: C0 controls but tab and newline, DEL, C1 controls; Unicode's invisible formatting and direction
#: controls, line and paragraph separators, and the byte-order mark.
_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` with every control character and escape sequence written out, never interpreted."""
    return _UNSHOWN.sub(_escaped, text)


def seat_evidence(extra: dict[str, Any] | None, seat: int, lines: int = OUTPUT_LINES) -> dict[str, Any] | None:
    """What a record kept of one seat's side of a fault (its `extra["evidence"]`), as people are shown it:
    `output` (its last `lines` lines, escaped), `usage` and `output_throttled_s`; None when none was kept."""
    kept = ((extra or {}).get("evidence") or {}).get(str(seat))
    if not isinstance(kept, dict):
        return None
    return {"output": last_lines(str(kept.get("output", "")), lines), "usage": kept.get("usage") or {},
            "output_throttled_s": kept.get("output_throttled_s")}


def record_header(record: bytes) -> dict[str, Any] | None:
    """The first line of a gzip-compressed record (players, seed, `extra` with the faults' evidence), read
    without inflating the rest; None when it is unreadable."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(record)) as stream:
            header = json.loads(stream.readline(4 * 1024 * 1024))
    except (OSError, EOFError, ValueError):
        return None
    return header if isinstance(header, dict) else None


def last_lines(output: str, lines: int = OUTPUT_LINES) -> str:
    """The last `lines` lines of a bot's output, escaped (`shown`)."""
    return shown("\n".join(output.rstrip().splitlines()[-lines:]))


def public_lines(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """A record's JSON lines (in pieces of any size) as anyone may read them: the header without its fault
    evidence, every decision without its note and printed lines; other lines as they were."""
    buffer = b""
    for piece in pieces:
        buffer += piece
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            yield _public_line(line) + b"\n"
    if buffer:
        yield _public_line(buffer)


def _public_line(line: bytes) -> bytes:
    if b'"note"' not in line and b'"output"' not in line and b'"evidence"' not in line:
        return line
    try:
        data = json.loads(line)
    except ValueError:
        return line
    if not isinstance(data, dict):
        return line
    _drop_private(data)
    return json.dumps(data, separators=(",", ":")).encode()


def _drop_private(data: dict[str, Any]) -> None:
    """Takes a decision line's note and printed lines, or a header's fault evidence, out of a parsed line."""
    if data.get("type") == "decision":
        data.pop("note", None)
        data.pop("output", None)
    elif data.get("type") == "header" and isinstance(data.get("extra"), dict):
        data["extra"] = {key: value for key, value in data["extra"].items() if key != "evidence"}


def seat_notes(steps: Iterable[Any], seats: Iterable[int]) -> list[dict[str, Any]]:
    """The notes the given seats left with their decisions and what they printed with them, in order: {n, step,
    seat, decision, note, output} (escaped: `shown`): `n` the record's index of the step (from 0), `step` and
    `decision` its step and decision numbers (from 1), as `arena replay` and the match page number them."""
    wanted = set(seats)
    found = []
    decision = 0
    for step in steps:
        if step.is_chance:
            continue
        decision += 1
        if step.seat in wanted and (step.note or step.output):
            found.append({"n": step.n, "step": step.n + 1, "seat": step.seat, "decision": decision,
                          "note": shown(step.note or ""), "output": shown(step.output or "")})
    return found

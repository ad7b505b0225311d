"""A bot's own words (its output, the free text of its messages) as people are shown them.

What a bot prints is kept in records exactly as it was; wherever it is shown, on a terminal or a
web page, its control characters and escape sequences are written out (`\\x1b`, `\\u202e`), never
passed through: a bot must not set a terminal's title, write to its clipboard (OSC 52), move its
cursor to draw a fake "all passed", or turn text around with a bidirectional override.
"""

from __future__ import annotations

import re
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


def last_lines(output: str, lines: int = OUTPUT_LINES) -> str:
    """The last `lines` lines of a bot's output, escaped (`shown`)."""
    return shown("\n".join(output.rstrip().splitlines()[-lines:]))

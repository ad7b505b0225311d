"""A bot's own words (its output, the free text of its messages) as people are shown them.

What a bot prints is kept in records exactly as it was; wherever it is shown, on a terminal or a
web page, its control characters and escape sequences are written out (`\\x1b`, `\\u202e`), never
passed through: a bot must not set a terminal's title, write to its clipboard (OSC 52), move its
cursor to draw a fake "all passed", or turn text around with a bidirectional override.
"""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL, C1 controls; Unicode's invisible formatting and direction
#: controls, line and paragraph separators, and the byte-order mark.
_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` with every control character and escape sequence written out, never interpreted."""
    return _UNSHOWN.sub(_escaped, text)

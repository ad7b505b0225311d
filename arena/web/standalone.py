"""`arena replay FILE --html OUT.html`: one self-contained HTML file of a match, to share or attach to an
issue: who won and how at the top, the viewer, its stylesheet and the replay document inline, nothing fetched (it works offline,
opened from disk)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena.web.replay import ReplayError, replay_document

STATIC = Path(__file__).parent / "static"


def standalone_html(lines: Iterable[bytes | str], analysis: dict[str, Any] | None = None) -> str:
    """The page for a record's lines, with its analysis if given (ReplayError if it does not replay: a page is only
    made of a record the engine reproduces)."""
    document = "".join(replay_document(lines, reveal=True))
    parsed = json.loads(document)
    if parsed.get("error"):
        raise ReplayError(f"does not replay: {parsed['error']}")
    header = parsed["header"]
    if analysis is not None:
        parsed["analysis"] = analysis
        document = json.dumps(parsed, separators=(",", ":"))
    title = f"{header['title']}: " + " vs ".join(p["name"] for p in header["players"])
    subtitle = f"{title} · match {header['match_id'][:12]} · seed {header['seed']}"
    outcome = parsed.get("result")
    verdict = outcome["verdict"] if outcome else "unfinished"
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    viewer = (STATIC / "viewer.js").read_text(encoding="utf-8")
    # nothing in the data may open or close an element, or a comment, inside its script: every < > & in it (they
    # are all inside JSON strings) written as a JSON escape, which JSON.parse reads back as the character
    data = document.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<link rel="icon" href="data:,">
<style>
{css}
</style>
</head>
<body>
<header class="top"><span class="brand">Arena</span><span class="muted">{html.escape(subtitle)}</span></header>
<main><h1 id="outcome">{html.escape(verdict)}</h1><div id="viewer" class="replay"></div></main>
<script id="replay-data" type="application/json">{data}</script>
<script type="module">
{viewer}
mountReplay(document.getElementById("viewer"), JSON.parse(document.getElementById("replay-data").textContent));
document.body.setAttribute("data-ready", "true");
</script>
</body>
</html>
"""

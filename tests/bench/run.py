"""Running a bench script as a user would, at its smallest size: what bench/'s smoke tests share."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_bench(script: str, *arguments: str, timeout_s: float = 240.0) -> Any:
    """`python bench/SCRIPT ARGUMENTS --json` from the repository's root: the JSON object it printed (all of its
    output, or from its last line that starts one). Fails with its output when it fails."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / script), *arguments, "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout_s)
    assert done.returncode == 0, f"bench/{script} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    text = done.stdout.strip()
    return json.loads(text if text.startswith("{") else text[text.rindex("\n{") + 1:])


def has_keys(figures: dict[str, Any], keys: str) -> None:
    """Every one of the space-separated `keys` is in `figures` (their values are not checked: never timings)."""
    missing = [key for key in keys.split() if key not in figures]
    assert not missing, f"missing {missing} in {sorted(figures)}"

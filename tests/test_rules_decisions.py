"""docs/rules-decisions.md: every test it names exists, so every decision stays pinned."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "rules-decisions.md"


def defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"^\s*(?:async\s+)?def (test_\w+)", path.read_text("utf-8"), re.MULTILINE))
    return names


def test_every_test_named_in_the_rules_decisions_exists():
    text = DECISIONS.read_text("utf-8")
    named = set(re.findall(r"`(test_\w+)`", text)) | set(re.findall(r"\b(test_\w+)\b(?!\.py)", text))
    named = {name for name in named if not name.endswith("_py")}
    assert named, "the decisions file names no tests"
    missing = sorted(named - defined_tests())
    assert not missing, f"rules-decisions.md names tests that do not exist: {missing}"


def test_every_decision_row_names_a_test():
    lines = DECISIONS.read_text("utf-8").splitlines()
    for index, line in enumerate(lines):
        is_header = index + 1 < len(lines) and lines[index + 1].startswith("|--")
        if line.startswith("|") and not line.startswith("|--") and not is_header:
            assert "test_" in line, f"decision without a test: {line[:80]}"

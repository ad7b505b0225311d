"""docs/actions/ (every game's action ids, a table and JSON per mode) is what the engines say now."""

from __future__ import annotations

import json
from pathlib import Path

from arena.games.action_docs import files
from arena.games.registry import load_game

DOCS = Path(__file__).resolve().parents[2] / "docs" / "actions"


def test_the_generated_action_docs_are_current() -> None:
    expected = files()
    stale = [name for name, text in expected.items()
             if not (DOCS / name).is_file() or (DOCS / name).read_text(encoding="utf-8") != text]
    extra = sorted(p.name for p in DOCS.iterdir() if p.name not in expected)
    assert not stale and not extra, (f"docs/actions is stale ({', '.join(stale + extra)}): "
                                     "run `python -m arena.games.action_docs`")


def test_the_json_matches_the_engine() -> None:
    for path in DOCS.glob("*.json"):
        data = json.loads(path.read_text())
        game = load_game(data["game"])
        assert data["num_actions"] == game.num_actions == len(data["actions"])
        assert [(a["id"], a["label"]) for a in data["actions"]] == game.action_space()
        covered = sum(group["last"] - group["first"] + 1 for group in data["ranges"])
        assert covered == game.num_actions


def test_match_start_serves_the_same_labels() -> None:
    """MatchStart.action_labels (what a bot looks labels up in) is docs/actions' JSON, id for id."""
    from arena.rpc.session import action_labels

    for path in DOCS.glob("*.json"):
        data = json.loads(path.read_text())
        assert list(action_labels(load_game(data["game"]))) == [a["label"] for a in data["actions"]]

"""bots/javascript, the JavaScript starter made from protos/ alone: its packages installed with npm, it
plays through the referee (Major General and General Orders) and passes `arena bot test`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "javascript"
OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "network")


@pytest.fixture(scope="module")
def node_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example with its node_modules/, as a bot author would have it."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed here (the JavaScript starter needs them)")
    folder = tmp_path_factory.mktemp("node") / "node-bot"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("node_modules"))
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=folder, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        if any(word in done.stderr for word in OFFLINE):
            pytest.skip(f"npm cannot reach its registry here: {done.stderr.strip().splitlines()[-1]}")
        pytest.fail(f"npm install failed:\n{done.stderr}")
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


@pytest.mark.parametrize("game", ["major-general", "general-orders-wwii/island"])
def test_the_javascript_bot_plays_through_the_referee(capsys: pytest.CaptureFixture[str], node_bot: Path,
                                                      tmp_path: Path, game: str) -> None:
    code, data = run(capsys, "match", game, str(node_bot), "random", "--games", "2", "--seed", "5",
                     "--out", str(tmp_path), "--json")
    assert code == 0, data
    summary = data["summary"]["starter-js"]  # the name in its bot.toml
    assert summary["games"] == 2 and summary["faults"] == 0 and summary["decisions"] > 0
    for played in data["games"]:
        assert played["reason"] not in ("crash", "disconnect", "wrong_sequence", "illegal_action", "timeout")
        code = main(["replay", played["record"], "--final"])
        assert code == 0 and "replay reproduces the record" in capsys.readouterr().out


def test_the_javascript_bot_passes_arena_bot_test(capsys: pytest.CaptureFixture[str], node_bot: Path) -> None:
    code, report = run(capsys, "bot", "test", str(node_bot), "--games", "major-general,general-orders-wwii",
                       "--json")
    assert code == 0 and report["ok"], [(row["check"], row["detail"]) for row in report["checks"] if row["ok"] is False]
    rows = {row["check"]: row for row in report["checks"]}
    assert report["hello"]["omit_labels"] is True  # it reads labels from MatchStart.action_labels instead
    assert rows["opponent-leaves"]["ok"] and rows["next-match"]["ok"]
    assert rows["concurrent"]["ok"] and rows["concurrent"]["matches"] == 2  # its bot.toml says concurrency = 2
    # its log names its moves with the labels MatchStart sent, not ids
    moves = re.findall(r"my last move: ([^)\n]*)", report["output_tail"])
    assert moves and all(not move.isdigit() for move in moves), report["output_tail"]


def test_without_its_packages_the_fix_says_npm_install(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed here")
    bare = shutil.copytree(EXAMPLE, tmp_path / "node-bot", ignore=shutil.ignore_patterns("node_modules"))
    code, report = run(capsys, "bot", "test", str(bare), "--json")
    assert code == 1
    handshake = report["checks"][0]
    assert handshake["ok"] is False and handshake["reason"] == "crash"
    assert "npm" in handshake["fix"] and "Cannot find module" in report["output_tail"]


def test_the_javascript_bot_connects_remotely_with_one_setting(node_bot: Path, tmp_path: Path) -> None:
    """ARENA_REMOTE=arena://NAME:TOKEN@HOST:PORT: a bot on its owner's computer, with nothing else set."""
    import os

    from arena.bots import BUILTIN_BOTS
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.server import ServerConfig

    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS,), results_dir=None)
    with BackgroundReferee(config, drain_s=0.0) as referee:
        token = referee.register_remote("far-node")
        env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        env["ARENA_REMOTE"] = f"arena://far-node:{token}@{referee.address}"
        with (tmp_path / "node.log").open("w") as log:
            bot = subprocess.Popen(["node", "bot.js"], cwd=node_bot, env=env, stderr=log, stdout=log)
        try:
            record = referee.run_match("major-general", ["far-node", "random"], seed=3)
            assert record.result is not None and record.result.reason == "score", (
                record.result, (tmp_path / "node.log").read_text()[-2000:])
        finally:
            bot.kill()
            bot.wait()

"""An agent's uncaught error as its owner reads it (arena.rpc.crash, printed by run_bot): the bot's own
frames with paths relative to its folder, each run of the SDK's frames one line, no install paths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.rpc.crash import ARENA, readable_traceback

CRASHING = '''
import json
import arena.rpc.sdk as sdk
from arena.agents.base import Agent
from arena.sdk import run_bot


class Broken(Agent):
    name = "broken"

    def act(self, request):
        return helper("{not json")


def helper(text):
    try:
        return json.loads(text)
    except ValueError as error:
        raise RuntimeError("my bot cannot read its book") from error


sdk._serve_until_done = lambda agents, settings: sdk.asyncio.run(sdk.asyncio.sleep(0, agents[0].act(None)))
run_bot(Broken(), argv=["--server", "127.0.0.1:1"])
'''


def test_run_bot_prints_the_bots_frames_and_folds_the_sdks(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(CRASHING)
    env = {**os.environ, "PYTHONPATH": str(ARENA.parent)}
    done = subprocess.run([sys.executable, "bot.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr
    said = done.stderr
    assert 'File "bot.py", line 12, in act' in said and 'File "bot.py", line 19, in helper' in said, said
    assert "frame(s) of Arena's SDK, <arena sdk>" in said, said
    assert str(ARENA) not in said and str(tmp_path) not in said, said
    assert 'File "<python>/json/__init__.py"' in said  # the library the bot called: kept, its path short
    assert "The above exception was the direct cause" in said and said.rstrip().endswith(
        "RuntimeError: my bot cannot read its book"), said


def test_a_chain_and_a_frame_outside_every_known_folder(tmp_path: Path) -> None:
    def inner() -> None:
        raise KeyError("first")

    try:
        try:
            inner()
        except KeyError:
            raise ValueError("second")
    except ValueError as error:
        text = readable_traceback(error, tmp_path)
    assert text.index("KeyError: 'first'") < text.index("During handling") < text.index("ValueError: second")
    assert f'File "{Path(__file__).resolve()}"' in text and "in inner" in text  # elsewhere: as it was


def test_an_error_raised_in_the_sdk_itself_keeps_its_frames(tmp_path: Path) -> None:
    """Folded only where the SDK calls the bot's code: an error of the SDK's own shows where, paths short."""
    from arena.rpc.sdk import parse_remote

    try:
        parse_remote("not a remote address")
    except ValueError as error:
        text = readable_traceback(error, tmp_path)
    assert 'File "<arena sdk>/rpc/sdk.py"' in text and "in parse_remote" in text and str(ARENA) not in text, text

"""Remote bots: a bot program started elsewhere connects with its registered token and plays."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from arena.bots import BUILTIN_BOTS
from arena.referee.replay import replay
from arena.rpc.background import BackgroundReferee
from arena.rpc.client import AdminClient

ROOT = Path(__file__).resolve().parents[2]


def test_a_remote_bot_connects_with_its_token_and_plays(referee: BackgroundReferee, tmp_path: Path) -> None:
    token = referee.register_remote("far-random")
    log = tmp_path / "far-random.stderr"
    with log.open("w") as stderr:  # a file, not a pipe nobody reads: a chatty bot can never block
        bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py"), "--server",
                                referee.address, "--token", token, "--name", "far-random", "--matches", "2"],
                               stderr=stderr, text=True)
    try:
        for seed in (31, 32):
            record = referee.run_match("major-general", ["far-random", "random"], seed=seed)
            assert record.result is not None and record.result.reason == "score", (
                record.result, log.read_text()[-2000:])
            assert record.players[0].name == "far-random"
            replay(record)
        assert bot.wait(timeout=30) == 0  # --matches 2: it leaves after its second match
    finally:
        if bot.poll() is None:
            bot.kill()
        bot.wait()


def test_a_remote_bot_with_a_wrong_token_is_refused(referee: BackgroundReferee) -> None:
    referee.register_remote("guarded", "the-right-token")
    bot = subprocess.run([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py"), "--server", referee.address,
                          "--token", "a-wrong-token", "--name", "guarded"], capture_output=True, text=True,
                         timeout=60)
    assert bot.returncode == 2
    assert "UNAUTHENTICATED" in bot.stderr and "bad or missing token" in bot.stderr


def test_a_remote_bot_plays_several_matches_at_once(referee: BackgroundReferee, tmp_path: Path) -> None:
    token = referee.register_remote("far-trivial")
    log = tmp_path / "far-trivial.stderr"
    with log.open("w") as stderr:
        bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "trivial" / "bot.py"), "--server", referee.address,
                                "--token", token, "--name", "far-trivial", "--concurrency", "2", "--matches", "2"],
                               stderr=stderr, text=True)
    try:
        deadline = time.monotonic() + 60
        while open_streams(referee.address, "far-trivial", referee.admin_token) < 2:  # --concurrency 2: two streams at once
            assert time.monotonic() < deadline and bot.poll() is None, log.read_text()[-2000:]
            time.sleep(0.05)
        futures = [referee.submit("major-general", ["far-trivial", "random"], seed=seed) for seed in (33, 34)]
        for future in futures:
            record = future.result(timeout=120)
            assert record.result is not None and record.result.reason == "score", (
                record.result, log.read_text()[-2000:])
        assert bot.wait(timeout=30) == 0  # two streams, one match each, then it leaves
    finally:
        if bot.poll() is None:
            bot.kill()
        bot.wait()


def open_streams(address: str, name: str, token: str) -> int:
    """How many streams of bot `name` wait for a match (the admin service's ListBots)."""
    async def ask() -> int:
        async with AdminClient(address, token) as admin:
            return next((bot.connected for bot in await admin.bots() if bot.name == name), 0)

    return asyncio.run(ask())

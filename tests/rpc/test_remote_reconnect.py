"""A bot its owner runs against a hosted ladder (ARENA_REMOTE) says what happens on its stderr (connected,
seated, the result) and, when the referee goes away and comes back, connects again by itself (issue 37, item 3),
saying each try, which come a few seconds apart at most (issue 45)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from arena.admission import ClientKey, Strikes
from arena.bots import BUILTIN_BOTS
from arena.rpc.background import BackgroundReferee
from arena.rpc.sdk import RETRY_S
from arena.rpc.server import ServerConfig
from tests.processes import free_port


def _wait_for(log: Path, text: str, count: int, bot: subprocess.Popen[bytes], seconds: float = 90) -> str:
    deadline = time.monotonic() + seconds
    while True:
        seen = log.read_text()
        if seen.count(text) >= count:
            return seen
        assert bot.poll() is None, f"the bot ended ({bot.returncode}):\n{seen[-3000:]}"
        assert time.monotonic() < deadline, f"no {count} x {text!r} in the bot's output:\n{seen[-3000:]}"
        time.sleep(0.05)


def test_a_remote_bot_says_what_happens_and_comes_back_after_the_referee_restarts(tmp_path: Path) -> None:
    port = free_port()
    token = "far-token-0123456789abcdef"
    config = ServerConfig(port=port, bot_dirs=(BUILTIN_BOTS,), results_dir=None, remote_tokens={"far-py": token})
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env["ARENA_REMOTE"] = f"arena://far-py:{token}@127.0.0.1:{port}"
    log = tmp_path / "far.log"
    with BackgroundReferee(config, drain_s=0.0) as referee:
        with log.open("w") as stderr:
            bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py")], env=env, stderr=stderr)
        try:
            _wait_for(log, "connected to 127.0.0.1", 1, bot)
            record = referee.run_match("major-general", ["far-py", "random"], seed=3)
            assert record.result is not None and record.result.reason == "score"
            said = _wait_for(log, "ended: ", 1, bot)
            assert "seated in match" in said and ("ended: won" in said or "ended: lost" in said
                                                  or "ended: draw" in said), said
        except BaseException:
            bot.kill()
            raise
    try:  # the referee is gone: the bot says each try, a few seconds apart at most, and comes back
        said = _wait_for(log, "(try 3)", 1, bot)
        tries = re.findall(r"; trying again in ([0-9.]+) s \(try (\d+)\)", said)
        assert [int(number) for _pause, number in tries][:2] == [2, 3], said
        assert all(0 < float(pause) <= RETRY_S for pause, _number in tries), said
        assert "lost the referee" in said or "the referee closed the connection" in said, said
        assert f"no referee at 127.0.0.1:{port} within {RETRY_S:g}s; trying again" in said, said  # each try says
        with BackgroundReferee(config, drain_s=0.0) as again:
            _wait_for(log, "connected to 127.0.0.1", 2, bot)
            record = again.run_match("major-general", ["random", "far-py"], seed=4)
            assert record.result is not None and record.result.reason == "score"
            assert [player.name for player in record.players] == ["random", "far-py"]
    finally:
        bot.kill()
        bot.wait()


def test_a_remote_bot_refused_for_a_while_comes_back_after_the_wait_it_was_told(tmp_path: Path) -> None:
    """A remote bot whose address is paused while it plays (a neighbour behind the same address guessed tokens) has
    its next stream refused with how long to wait: it says so, waits, and comes back once the pause is over, where
    it used to stop at the first refused stream. A wrong token still stops it."""
    port = free_port()
    token = "far-token-0123456789abcdef"
    config = ServerConfig(port=port, bot_dirs=(BUILTIN_BOTS,), results_dir=None, remote_tokens={"far-py": token})
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    log = tmp_path / "far.log"
    with BackgroundReferee(config, drain_s=0.0) as referee:
        clock = [1000.0]  # the pause's clock: it ends when the test says
        strikes = referee.server.bots.strikes = Strikes(free=0, first_pause_s=1.0, clock=lambda: clock[0])
        env["ARENA_REMOTE"] = f"arena://far-py:{token}@127.0.0.1:{port}"
        with log.open("w") as stderr:
            bot = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py")], env=env, stderr=stderr)
        try:
            _wait_for(log, "connected to 127.0.0.1", 1, bot)
            record = referee.run_match("major-general", ["far-py", "random"], seed=3)  # (its stream admitted)
            assert record.result is not None and record.result.reason == "score"
            waiting = referee.server.pool.remotes["far-py"].idle
            deadline = time.monotonic() + 90
            while not waiting:  # its next stream, admitted and waiting for a match
                assert time.monotonic() < deadline and bot.poll() is None, log.read_text()
                time.sleep(0.05)
            strikes.failed(ClientKey.of("127.0.0.1"))  # its address paused: "try again in 1 s"
            record = referee.run_match("major-general", ["random", "far-py"], seed=4)  # on the stream it had open
            assert record.result is not None and record.result.reason == "score"
            said = _wait_for(log, "(try 2)", 1, bot)  # its next stream: refused, told to wait
            assert re.search(r"RESOURCE_EXHAUSTED: too many wrong tokens from ipv4:127\.0\.0\.1: try again in 1 s .*; "
                             r"trying again in 1 s \(try 2\)", said), said
            clock[0] += 2.0  # the pause is over: it comes back
            _wait_for(log, "connected to 127.0.0.1", 2, bot)
            record = referee.run_match("major-general", ["far-py", "random"], seed=5)
            assert record.result is not None and record.result.reason == "score"
        finally:
            bot.kill()
            bot.wait()
        env["ARENA_REMOTE"] = f"arena://far-py:{'0' * 48}@127.0.0.1:{port}"  # a wrong token: it stops
        wrong = subprocess.run([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py")], env=env,
                               capture_output=True, text=True, timeout=120)
        assert wrong.returncode == 2 and "UNAUTHENTICATED" in wrong.stderr, wrong.stderr

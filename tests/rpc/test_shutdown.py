"""Graceful shutdown: matches that finish within the drain time finish; the others are voided, with
the reason recorded and the record stored; bot processes are stopped; a referee that cannot start leaves no
thread behind."""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.bots import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.rpc.background import BackgroundReferee
from arena.rpc.server import ServerConfig
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_shutdown_finishes_or_voids_matches_in_progress(tmp_path: Path, test_bots: Path) -> None:
    config = ServerConfig(port=0, bot_dirs=(BUILTIN_BOTS, test_bots), results_dir=tmp_path, startup_timeout_s=60.0,
                          clock=ClockSettings(move_time_s=120.0, bank_s=0.0, grace_s=1.0))
    referee = BackgroundReferee(config, drain_s=3.0)
    referee.start()
    try:
        stuck = referee.submit("major-general", ["random", "sleep"], seed=2)  # sleeps 60 s on its 3rd decision
        quick = referee.submit("major-general", ["random", "random"], seed=3)
        live = referee.server.matches
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sum(1 for s in next(
                m for m in live.values() if m.bots == ["random", "sleep"]).steps if s.seat == 1) < 2:
            time.sleep(0.05)
        processes = [lp.process for bots in referee.server.pool._processes.values() for lp in bots]
    finally:
        referee.stop()
    finished: MatchRecord = quick.result(timeout=1)
    voided: MatchRecord = stuck.result(timeout=1)
    assert finished.result is not None and finished.result.reason == "score"
    assert voided.result is not None
    assert (voided.result.reason, voided.result.voided, voided.result.ranking) == ("void", True, (0, 0))
    assert "shutdown" in voided.result.detail
    stored = sorted(tmp_path.glob("records/major-general/*.jsonl"))
    assert len(stored) == 2
    assert {MatchRecord.read(path).result.reason for path in stored} == {"score", "void"}  # type: ignore[union-attr]
    assert processes and all(not process.is_running for process in processes)


def test_a_referee_that_cannot_start_ends_its_thread(tmp_path: Path) -> None:
    """A port already taken: start() raises, and the referee's loop thread does not live on, idle, for good."""
    def referee_threads() -> int:
        return sum(1 for thread in threading.enumerate() if thread.name == "arena-referee")

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        before = referee_threads()
        config = ServerConfig(port=taken.getsockname()[1], bot_dirs=(), results_dir=tmp_path)
        with pytest.raises(OSError, match="address already in use"):
            BackgroundReferee(config).start()
        assert referee_threads() == before


def test_arena_serve_stops_quietly(tmp_path: Path, test_bots: Path) -> None:
    """`arena serve` stopped by Ctrl-C with a match stuck in progress (voided), warm bot processes and a remote
    bot's stream open: it says what it did, exits 0, and prints no traceback (no "Event loop is closed")."""
    import os
    import signal
    import subprocess
    import sys

    from arena.rpc.client import AdminClient

    port = free_port()
    env = {**os.environ, "ARENA_RESULTS": str(tmp_path / "results")}
    serve = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli.main import run; run()", "serve", "--port", str(port), "--bots",
         str(BUILTIN_BOTS), "--bots", str(test_bots), "--drain", "1", "--remote", "far=far-token"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    remote = None
    try:
        token_file = tmp_path / "results" / "admin-token"
        deadline = time.monotonic() + 60
        while not token_file.exists():
            assert serve.poll() is None and time.monotonic() < deadline, serve.communicate()
            time.sleep(0.05)
        remote = subprocess.Popen([sys.executable, str(BUILTIN_BOTS / "random" / "bot.py"), "--server",
                                   f"127.0.0.1:{port}", "--token", "far-token", "--name", "far"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        async def play() -> None:
            async with AdminClient(f"127.0.0.1:{port}", token_file.read_text().strip()) as admin:
                first = await admin.start_match("major-general", ["far", "greedy"], seed=1)  # a remote, warm bots
                async for _event in admin.watch(first):
                    pass
                stuck = await admin.start_match("major-general", ["random", "sleep"], seed=2,
                                                clock=ClockSettings(move_time_s=60.0, bank_s=0.0, grace_s=1.0))
                played = 0
                async for event in admin.watch(stuck):  # the sleep bot sleeps on its third decision: after its second
                    played += event.WhichOneof("kind") == "step" and event.step.seat == 1
                    if played == 2:
                        break

        import asyncio

        asyncio.run(play())
        serve.send_signal(signal.SIGINT)
        out, err = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
        if remote is not None:
            remote.kill()
            remote.wait()
    assert serve.returncode == 0, err
    assert "stopped (1 match(es) voided)" in out
    assert "Traceback" not in err and "Event loop is closed" not in err and "Exception ignored" not in err, err


def test_what_still_awaits_on_the_referees_loop_when_it_stops_is_cancelled_and_ends() -> None:
    """A task still waiting on the referee's loop when it stops, as the gRPC handler of a health watch a client
    kept open waits (`async with condition: await condition.wait()`), is cancelled and ends there. Left pending,
    it was destroyed with the loop mid-await and failed later, wherever the garbage collector met it ("Lock is
    not acquired", an unraisable exception printed in whatever test ran then: CI saw three)."""
    ended = threading.Event()
    kept: list[asyncio.Task[None]] = []

    async def watch_like() -> None:
        condition = asyncio.Condition()
        try:
            async with condition:
                await condition.wait()
        finally:
            ended.set()

    async def spawn() -> None:
        kept.append(asyncio.get_running_loop().create_task(watch_like()))
        await asyncio.sleep(0)  # (it starts, and waits)

    unraisable: list[Any] = []
    hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        referee = BackgroundReferee(ServerConfig(port=None, bot_dirs=(), results_dir=None), drain_s=0.0)
        referee.start()
        referee.call(spawn())
        referee.stop()
        assert ended.is_set() and kept[0].cancelled(), "the waiting task was left pending on the closed loop"
        del referee, kept[:]
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert not unraisable, [f"{type(u.exc_value).__name__}: {u.exc_value}" for u in unraisable]

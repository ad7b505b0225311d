"""A bot that writes its output a byte a write: the referee reads it a pipe-full at a time (a tiny read leaves the
pipe to fill for a moment), not with a read per byte; and a decision still gets every line its bot wrote before it
answered (drain_output ends the pause at once)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Any, cast

import pytest

from arena.rpc import launcher
from arena.rpc.launcher import BotProcess

BYTES = 20_000


async def started(program: str) -> BotProcess:
    """A BotProcess around a plain child process (no manifest, no sandbox), its output read as a bot's is; its
    standard input a pipe the test writes to."""
    process = BotProcess(cast(Any, None), "", cast(Any, None))
    await process.start([sys.executable, "-c", program], stdin=asyncio.subprocess.PIPE)
    return process


async def until(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    ends = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < ends, "the condition never held"
        await asyncio.sleep(0.005)


async def stopped(process: BotProcess) -> None:
    assert process.process is not None
    process.process.kill()
    await process.process.wait()
    await process.stop()  # (a pause the test made long would keep the pipe open: it is closed)


def test_a_byte_a_write_is_read_many_bytes_a_read() -> None:
    async def scenario() -> tuple[int, int, str]:
        process = await started(f"import os, time\nfor _ in range({BYTES}): os.write(1, b'x')\ntime.sleep(60)")
        await until(lambda: process.output.total >= BYTES)
        await stopped(process)
        return process.output.total, process.output.reads, process.output.since(0, cap=BYTES)

    total, reads, text = asyncio.run(scenario())
    assert total == BYTES and text == "x" * BYTES
    assert reads < BYTES // 10  # (a read a byte before)


def test_a_line_written_before_the_answer_is_read_at_once_during_a_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher, "COALESCE_S", 600.0)  # a pause that would outlast the test, unless drain ends it

    async def scenario() -> tuple[bool, str]:
        process = await started("import os, sys, time\nos.write(1, b'a')\nsys.stdin.readline()\nos.write(1, b'b\\n')\n"
                                "time.sleep(60)")
        await until(lambda: process.output.total == 1)  # 'a' read: the reader leaves the pipe to fill
        assert process.process is not None and process.process.stdin is not None
        process.process.stdin.write(b"go\n")
        await process.process.stdin.drain()
        await until(lambda: process._written() == 3)  # 'b\n' waits in the pipe
        unread = process.has_unread_output()
        await process.drain_output(30.0)
        text = process.output.since(0, cap=BYTES)
        await stopped(process)
        return unread, text

    unread, text = asyncio.run(scenario())
    assert unread and text == "ab\n"

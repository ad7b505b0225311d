"""A bot's last words: what its process had written when a fault came is all read before the evidence is taken,
however late the referee's reader runs (a busy machine), and a bot that writes on cannot hold that up."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any, cast

from arena.rpc.launcher import BotProcess

WRITTEN = 50_000


async def started(program: str) -> BotProcess:
    """A BotProcess around a plain child process (no manifest, no sandbox), its output read as a bot's is."""
    process = BotProcess(cast(Any, None), "", cast(Any, None))
    process.process = await asyncio.create_subprocess_exec(sys.executable, "-c", program,
                                                           stdout=asyncio.subprocess.PIPE,
                                                           stderr=asyncio.subprocess.STDOUT)
    process._pump = asyncio.get_running_loop().create_task(process._read_output())
    return process


async def stopped(process: BotProcess) -> None:
    assert process.process is not None
    process.process.kill()
    await process.process.wait()


def test_what_was_written_before_is_read_however_late_the_reader_runs() -> None:
    async def scenario() -> int:
        process = await started(f"import sys, time; sys.stdout.write('x' * {WRITTEN}); sys.stdout.flush(); "
                                "time.sleep(60)")
        deadline = time.monotonic() + 120
        while (process._written() or 0) < WRITTEN and time.monotonic() < deadline:
            time.sleep(0.01)  # the event loop held up (a busy machine): the words wait in the pipe, unread
        assert process.output.total == 0
        await process.drain_output(5.0)
        read = process.output.total
        await stopped(process)
        return read

    assert asyncio.run(scenario()) == WRITTEN


def test_a_bot_that_writes_on_does_not_hold_it_up() -> None:
    async def scenario() -> float:
        process = await started("import sys\nwhile True: sys.stdout.write('y' * 4096)")
        await asyncio.sleep(0.2)
        begun = time.monotonic()
        await process.drain_output(5.0)
        took = time.monotonic() - begun
        await stopped(process)
        return took

    assert asyncio.run(scenario()) < 4.0  # what was written when it was called, then no more

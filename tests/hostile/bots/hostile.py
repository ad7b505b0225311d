"""Hostile bot programs for the hostile-bot suite: `hostile.py MODE`.

Each speaks the protocol on raw bytes (the generated messages, no SDK), plays its first two
decisions correctly (first legal action), and on its third does the thing:

  sleep-forever   ignores SIGTERM and sleeps (the whole process: no reply ever comes)
  spin            spins the CPU forever
  memory          allocates 10 GB, touching every page
  memory-tree     starts six processes that each hold 180 MB (each under its 256 MB limit, together over
                  1 GB), then waits
  fork            forks 1,000 processes that sleep, stops at the first refusal and crashes
  garbage         sends bytes that are not a BotMessage
  empty           sends an empty message
  megabyte        sends a 1 MB message
  hundred-mb      sends a 100 MB message
  flood           sends 200,000 decisions at once
  stale           answers the previous sequence number
  future          answers a sequence number from the future
  illegal         answers an action that is not legal
  negative        answers action -7
  hello           says Hello again in the middle of the match
  crash           writes a last word and exits with status 3
  half-close      closes its side of the stream and waits
  output-flood    writes 256 MB to its standard output as fast as it can, then answers
and, before its first Hello,
  stream-flood    opens 1,280 streams on its socket that never say Hello, holds them, then plays on
  escapes         prints terminal escape sequences (a clipboard write, a window title, a cursor that
                  draws a fake "all passed"), then plays on

The bots under tests/hostile/bots whose command runs `hostile.py` share this one file: the suite
copies it into each of their folders (tests/hostile/conftest.py), since a sandboxed bot sees its
own folder only.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import grpc

from arena.rpc.generated import bot_pb2

MISBEHAVE_AT = 3
GIB = 1 << 30


def say(text: str) -> None:
    print(f"hostile: {text}", file=sys.stderr, flush=True)


def hog_memory() -> None:
    """10 GB in 64 MB blocks, every page written."""
    blocks = []
    for count in range(1, 161):
        block = bytearray(64 << 20)
        for offset in range(0, len(block), 4096):
            block[offset] = 1
        blocks.append(block)
        if count % 16 == 0:
            say(f"holding {count * 64} MB")
    say("holding 10 GB")


HOLDER = """
import sys
block = bytearray(180 << 20)
for offset in range(0, len(block), 4096):
    block[offset] = 1
print("hostile: a child holds 180 MB", file=sys.stderr, flush=True)
sys.stdin.read()
"""


def hold_memory_in_six() -> None:
    """Six children each holding 180 MB at once; then wait until one of them is stopped (or the tree is)."""
    children = [subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE) for _ in range(6)]
    pid, status = os.wait()
    raise SystemExit(f"hostile: a child of {len(children)} was stopped ({os.waitstatus_to_exitcode(status)})")


FORK_BOMB = """
import os, sys, time
born = 0
try:
    for _ in range(1000):
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        born += 1
except OSError as error:
    print(f"hostile: forked {born} processes, then: {error}", file=sys.stderr, flush=True)
    sys.exit(1)
print(f"hostile: forked {born} processes", file=sys.stderr, flush=True)
"""


def fork_a_thousand() -> None:
    """A helper forks 1,000 sleepers (gRPC's threads make forking the bot itself unreliable); then die."""
    helper = subprocess.run([sys.executable, "-c", FORK_BOMB], check=False)
    raise SystemExit(f"hostile: the fork bomb is done (status {helper.returncode})")


ESCAPES = ("\x1b]52;c;ZWNobyBwd25lZA==\x07"  # OSC 52: write to the clipboard
           "\x1b]0;arena: all passed\x07"  # the window title
           "\x1b[2J\x1b[H\x1b[32mall 8 checks passed\x1b[0m\r\n"  # clear, home, a fake verdict
           "\u202egnissap lla\n")  # a right-to-left override


def flood_output() -> None:
    """256 MB to standard output, 1 MB at a time (the referee reads it at its own pace: this blocks)."""
    block = b"flood " * ((1 << 20) // 6)
    for _ in range(256):
        sys.stdout.buffer.write(block)
    sys.stdout.buffer.flush()


async def hold_streams(address: str, count: int) -> list[object]:
    """Open `count` streams that never say Hello; the calls, kept open."""
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(4)]
    calls: list[object] = []
    refused = 0
    for number in range(count):
        call = channels[number % len(channels)].stream_stream("/arena.v1.Bot/Play")()
        calls.append(call)
    await asyncio.sleep(0.5)
    for call in calls:
        if call.done():  # type: ignore[attr-defined]
            refused += 1
    say(f"holding {count} streams without a Hello ({refused} already refused)")
    return [*calls, *channels]


async def play(mode: str) -> None:
    address, name = os.environ["ARENA_SERVER"], os.environ["ARENA_BOT_NAME"]
    with open(os.environ["ARENA_TOKEN_FILE"]) as handle:
        token = handle.read().strip()
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, version="1", token=token,
                                                   games=["*"])).SerializeToString()
    held = await hold_streams(address, 1280) if mode == "stream-flood" else []
    if mode == "escapes":
        print(ESCAPES, flush=True)
    async with grpc.aio.insecure_channel(address) as channel:
        while True:  # one stream per match
            call = channel.stream_stream("/arena.v1.Bot/Play")()
            await call.write(hello)
            count = 0
            while True:
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    break
                message = bot_pb2.RefereeMessage.FromString(raw)
                if message.WhichOneof("kind") != "decision_request":
                    continue
                request = message.decision_request
                count += 1
                sequence, action = request.sequence, request.legal_actions[0]
                if count == MISBEHAVE_AT:
                    say(f"misbehaving ({mode}) on decision {sequence}")
                    if mode == "sleep-forever":
                        signal.signal(signal.SIGTERM, signal.SIG_IGN)
                        time.sleep(3600)
                    elif mode == "spin":
                        while True:
                            pass
                    elif mode == "memory":
                        hog_memory()
                    elif mode == "memory-tree":
                        hold_memory_in_six()
                    elif mode == "fork":
                        fork_a_thousand()
                    elif mode == "garbage":
                        await call.write(b"\xff\xfe these bytes are not a protobuf message \x00")
                        continue
                    elif mode == "empty":
                        await call.write(b"")
                        continue
                    elif mode == "megabyte":
                        await call.write(b"\x0a" * (1 << 20))
                        continue
                    elif mode == "hundred-mb":
                        await call.write(b"\x0a" * (100 << 20))
                        continue
                    elif mode == "flood":
                        decision = bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=sequence, action=action))
                        data = decision.SerializeToString()
                        for _ in range(200_000):
                            await call.write(data)
                        continue
                    elif mode == "stale":
                        sequence -= 1
                    elif mode == "future":
                        sequence += 5
                    elif mode == "illegal":
                        action = next(a for a in range(10_000) if a not in request.legal_actions)
                    elif mode == "negative":
                        action = -7
                    elif mode == "hello":
                        await call.write(hello)
                        continue
                    elif mode == "crash":
                        say("going down on purpose")
                        os._exit(3)
                    elif mode == "output-flood":
                        flood_output()
                    elif mode == "half-close":
                        await call.done_writing()
                        await asyncio.sleep(3600)
                decision = bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=sequence, action=action))
                await call.write(decision.SerializeToString())
            if await call.code() != grpc.StatusCode.OK:
                return
    del held


if __name__ == "__main__":
    try:
        asyncio.run(play(sys.argv[1]))
    except grpc.aio.AioRpcError:
        pass

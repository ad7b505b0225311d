"""Bots that break the protocol on purpose, for the fault tests: `misbehave.py MODE`.

Each plays correctly (first legal action) for its first two decisions and misbehaves on the third:
  sleep       thinks far past its clock (SDK agent)
  illegal     answers an action that is not legal (SDK agent)
  crash       writes to stderr and raises (SDK agent): the process dies mid-match
  garbage     sends bytes that are not a BotMessage (raw stream, no serializer)
  stale       answers with the previous sequence number (generated stubs)
  disconnect  cancels its stream but keeps running (generated stubs)
  oversized   sends a 1 MiB message (raw stream)
  fragile     plays well, but exits when a MatchEnd says the match ended by a disconnect (as a bot that
              never expects MatchEnd while it is deciding would): `arena bot test`'s next-match check

`misbehave.py shared MODE` (MODE: illegal, disconnect, crash) is a raw bot that plays up to
ARENA_CONCURRENCY matches at once, one stream each, and says a random id of its process as its
version (in its sandbox every process is pid 2). When
its opponent is `random`, the stream at seat 0 plays well and the stream at seat 1 misbehaves,
in step: seat 0 reaches its 4th decision, then seat 1 misbehaves on its 3rd (crash: the whole
process exits), then seat 0 finishes its match slowly. Against any other opponent it plays well.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import time

import grpc

from arena.agents.base import Agent, DecisionRequest
from arena.sdk import run_bot
from arena.rpc.generated import bot_pb2

MISBEHAVE_AT = 3  # the decision (counted per match) that goes wrong
PROCESS_ID = f"proc-{secrets.token_hex(6)}"


def launch_token() -> str:
    """The launch token the referee left in a file for this process."""
    with open(os.environ["ARENA_TOKEN_FILE"]) as handle:
        return handle.read().strip()


class FaultyAgent(Agent):
    """First legal action, except on decision MISBEHAVE_AT."""

    version = "1"

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.name = mode
        self.count = 0

    def reset(self, game, seat, seed):  # type: ignore[no-untyped-def]
        super().reset(game, seat, seed)
        self.count = 0

    def act(self, request: DecisionRequest) -> int:
        self.count += 1
        if self.count == MISBEHAVE_AT:
            if self.mode == "sleep":
                time.sleep(60)
            elif self.mode == "illegal":
                return next(a for a in range(self.game.num_actions) if a not in request.legal_actions)
            elif self.mode == "crash":
                print("crash bot: something went badly wrong", file=sys.stderr, flush=True)
                raise RuntimeError("boom from the crash bot")
        return request.legal_actions[0]


async def raw_bot(mode: str) -> None:
    """A bot on raw bytes and the generated messages, so it can send what the SDK never would."""
    address, token, name = os.environ["ARENA_SERVER"], launch_token(), os.environ["ARENA_BOT_NAME"]
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, version="1", token=token,
                                                   games=["*"])).SerializeToString()
    async with grpc.aio.insecure_channel(address) as channel:
        while True:  # one stream per match
            call = channel.stream_stream("/arena.v1.Bot/Play")()  # bytes in, bytes out
            await call.write(hello)
            count = 0
            previous_sequence = 0
            while True:
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    break
                message = bot_pb2.RefereeMessage.FromString(raw)
                kind = message.WhichOneof("kind")
                if mode == "fragile" and kind == "match_end" and message.match_end.result.reason == "disconnect":
                    print("fragile bot: the match ended before my answer was read; giving up", file=sys.stderr,
                          flush=True)
                    os._exit(4)
                if kind != "decision_request":
                    continue
                request = message.decision_request
                count += 1
                sequence = request.sequence
                if count == MISBEHAVE_AT:
                    if mode == "garbage":
                        await call.write(b"\xff\xfe these bytes are not a protobuf message \x00")
                        continue
                    if mode == "oversized":
                        await call.write(b"\x00" * (1 << 20))
                        continue
                    if mode == "stale":
                        sequence = previous_sequence
                    if mode == "disconnect":
                        call.cancel()
                        await asyncio.sleep(120)  # alive but gone from the match
                        return
                previous_sequence = request.sequence
                decision = bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=sequence,
                                                                        action=request.legal_actions[0]))
                await call.write(decision.SerializeToString())
            if await call.code() != grpc.StatusCode.OK:
                return


class SharedProcess:
    """What the streams of one `shared` process tell each other."""

    def __init__(self) -> None:
        self.seat0_in_match = asyncio.Event()  # the well-behaved stream is waiting on its 4th decision
        self.seat1_misbehaved = asyncio.Event()


async def shared_bot(mode: str) -> None:
    """Several streams in one process; one of them misbehaves while another plays on."""
    address, token, name = os.environ["ARENA_SERVER"], launch_token(), os.environ["ARENA_BOT_NAME"]
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, version=PROCESS_ID,
                                                   token=token, games=["*"])).SerializeToString()
    shared = SharedProcess()
    async with grpc.aio.insecure_channel(address) as channel:
        streams = int(os.environ.get("ARENA_CONCURRENCY") or 1)
        await asyncio.gather(*(shared_stream(channel, hello, mode, shared) for _ in range(streams)),
                             return_exceptions=True)


async def shared_stream(channel: grpc.aio.Channel, hello: bytes, mode: str, shared: SharedProcess) -> None:
    while True:  # one stream per match
        call = channel.stream_stream("/arena.v1.Bot/Play")()
        await call.write(hello)
        role, count, seat, num_actions = "", 0, 0, 0
        while True:
            raw = await call.read()
            if raw is grpc.aio.EOF:
                break
            message = bot_pb2.RefereeMessage.FromString(raw)
            kind = message.WhichOneof("kind")
            if kind == "match_start":
                start = message.match_start
                seat, num_actions = start.seat, start.num_actions
                opponents = [player.name for player in start.players if player.seat != seat]
                role = ("plays-on" if seat == 0 else "misbehaves") if opponents == ["random"] else ""
                continue
            if kind != "decision_request":
                continue
            request = message.decision_request
            count += 1
            action = request.legal_actions[0]
            if role == "plays-on" and count == MISBEHAVE_AT + 1:
                shared.seat0_in_match.set()
                await asyncio.wait_for(shared.seat1_misbehaved.wait(), 30)
            elif role == "plays-on" and count > MISBEHAVE_AT + 1:
                await asyncio.sleep(0.1)  # the other match's fault is handled while this one goes on
            elif role == "misbehaves" and count == MISBEHAVE_AT:
                await asyncio.wait_for(shared.seat0_in_match.wait(), 30)
                if mode == "crash":
                    print("shared crash bot: going down with every match", file=sys.stderr, flush=True)
                    os._exit(3)
                shared.seat1_misbehaved.set()
                if mode == "disconnect":
                    call.cancel()
                    await asyncio.sleep(120)  # alive but gone from the match
                    return
                action = next(a for a in range(num_actions) if a not in request.legal_actions)
            decision = bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=request.sequence, action=action))
            await call.write(decision.SerializeToString())
        if await call.code() != grpc.StatusCode.OK:
            return


def main() -> None:
    mode = sys.argv[1]
    if mode == "shared":
        asyncio.run(shared_bot(sys.argv[2]))
        return
    if mode in ("sleep", "illegal", "crash"):
        run_bot(FaultyAgent(mode), argv=[])
    else:
        try:
            asyncio.run(raw_bot(mode))
        except grpc.aio.AioRpcError as error:
            if mode == "fragile":  # e.g. its answer written after the referee closed the stream
                print(f"fragile bot: my stream failed ({error.code().name}); giving up", file=sys.stderr, flush=True)
                os._exit(4)


if __name__ == "__main__":
    main()

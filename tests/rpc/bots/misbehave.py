"""Bots that break the protocol on purpose, for the fault tests: `misbehave.py MODE`.

Each plays correctly (first legal action) for its first two decisions and misbehaves on the third:
  sleep       thinks far past its clock (SDK agent)
  illegal     answers an action that is not legal (SDK agent)
  crash       writes to stderr and raises (SDK agent): the process dies mid-match
  garbage     sends bytes that are not a BotMessage (raw stream, no serializer)
  stale       answers with the previous sequence number (generated stubs)
  disconnect  cancels its stream but keeps running (generated stubs)
  oversized   sends a 1 MiB message (raw stream)
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

import grpc

from arena.agents.base import Agent, DecisionRequest
from arena.rpc import run_bot
from arena.rpc.generated import bot_pb2

MISBEHAVE_AT = 3  # the decision (counted per match) that goes wrong


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
    address, token, name = os.environ["ARENA_SERVER"], os.environ["ARENA_TOKEN"], os.environ["ARENA_BOT_NAME"]
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
                if message.WhichOneof("kind") != "decision_request":
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


def main() -> None:
    mode = sys.argv[1]
    if mode in ("sleep", "illegal", "crash"):
        run_bot(FaultyAgent(mode), argv=[])
    else:
        try:
            asyncio.run(raw_bot(mode))
        except grpc.aio.AioRpcError:
            pass


if __name__ == "__main__":
    main()

"""A bot that uses only the generated protocol stubs: what a bot in any language does.

It plays a seeded random legal action, asks for labels, and, when ARENA_STUBONLY_DUMP names a
folder, appends every DecisionRequest it receives there (hex, one per line) for the no-leak test.
"""

from __future__ import annotations

import os
import queue
import random
from pathlib import Path

import grpc

from arena.rpc.generated import bot_pb2, bot_pb2_grpc


def main() -> None:
    address, token, name = os.environ["ARENA_SERVER"], os.environ["ARENA_TOKEN"], os.environ["ARENA_BOT_NAME"]
    dump = os.environ.get("ARENA_STUBONLY_DUMP")
    channel = grpc.insecure_channel(address)
    stub = bot_pb2_grpc.BotStub(channel)

    while True:  # one stream per match
        outbox: queue.SimpleQueue = queue.SimpleQueue()
        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=1, name=name, version="1", token=token,
                                                          games=["major-general"], omit_labels=False)))

        def outgoing():  # type: ignore[no-untyped-def]
            while True:
                item = outbox.get()
                if item is None:
                    return
                yield item

        rng = random.Random(0)
        match_id, seat = "", -1
        try:
            for message in stub.Play(outgoing()):
                kind = message.WhichOneof("kind")
                if kind == "match_start":
                    match_id, seat = message.match_start.match_id, message.match_start.seat
                    rng = random.Random(message.match_start.agent_seed)
                elif kind == "decision_request":
                    request = message.decision_request
                    if dump:
                        with open(Path(dump) / f"{match_id}-{seat}.txt", "a") as file:
                            file.write(message.SerializeToString().hex() + "\n")
                    action = rng.choice(list(request.legal_actions))
                    outbox.put(bot_pb2.BotMessage(decision=bot_pb2.Decision(sequence=request.sequence,
                                                                            action=action)))
                elif kind == "match_end":
                    pass
        except grpc.RpcError:
            return
        finally:
            outbox.put(None)
        if not match_id:  # the stream ended without a match: the referee is closing
            return


if __name__ == "__main__":
    main()

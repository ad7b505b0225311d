"""A bot that uses only the generated protocol stubs: what a bot in any language does.

It plays a seeded random legal action, asks for labels, and prints every DecisionRequest it
receives to its standard output ("request MATCH-SEAT HEX"), which the referee keeps, for the
no-leak test.
"""

from __future__ import annotations

import os
import queue
import random
from pathlib import Path

import grpc

from arena.rpc.generated import bot_pb2, bot_pb2_grpc


def main() -> None:
    address, name = os.environ["ARENA_SERVER"], os.environ["ARENA_BOT_NAME"]
    token = Path(os.environ["ARENA_TOKEN_FILE"]).read_text().strip()
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
                    print(f"request {match_id}-{seat} {message.SerializeToString().hex()}", flush=True)
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

"""arena.v1.Bot/Play on the referee's side: a stream waits for its Hello, which the bot pool admits, and
is then held open for the match the pool seats it in (arena.rpc.session drives it).

Streams that never say Hello are limited: per network peer (`max_pending_hellos_per_peer`, the
bot socket counting as one peer with a larger share) and over all, and each has `hello_timeout_s`
to say it. A Hello's free text is bounded.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Optional

import grpc
from google.protobuf.message import DecodeError

from arena.rpc.config import ServerConfig
from arena.rpc.generated import bot_pb2
from arena.rpc.pool import AdmissionError, BotPool
from arena.rpc.session import MAX_MESSAGE_BYTES, BotSession

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name  # "arena.v1.Bot"
MAX_PENDING_HELLOS = 1024  # streams waiting to say Hello, over all peers


class BotService:
    """The Bot service of one server, on its bot socket (launched bots) and its network port (remote ones)."""

    def __init__(self, config: ServerConfig, pool: BotPool) -> None:
        self.config = config
        self.pool = pool
        self.pending_hellos: Counter[str] = Counter()

    def handler(self, *, on_bot_socket: bool) -> grpc.GenericRpcHandler:
        """The generic handler of arena.v1.Bot/Play for one listener."""
        async def play(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
            try:
                await self.serve_stream(context, on_bot_socket=on_bot_socket)
            except asyncio.CancelledError:  # the bot hung up, or the server is stopping: the RPC is over
                pass

        return grpc.method_handlers_generic_handler(BOT_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(play)})

    async def serve_stream(self, context: grpc.aio.ServicerContext, *, on_bot_socket: bool) -> None:
        peer = "bot socket" if on_bot_socket else _peer_host(context.peer())
        waiting = self.pending_hellos
        limit = MAX_PENDING_HELLOS if on_bot_socket else self.config.max_pending_hellos_per_peer
        if waiting[peer] >= limit or sum(waiting.values()) >= MAX_PENDING_HELLOS:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many streams from {peer} waiting to say Hello (at most {limit}); say Hello "
                                "on a stream as soon as it is open")
            return
        waiting[peer] += 1
        try:
            async with asyncio.timeout(self.config.hello_timeout_s):
                raw = await context.read()
        except TimeoutError:
            raw = None
        finally:
            waiting[peer] -= 1
            if waiting[peer] <= 0:
                del waiting[peer]
        if raw is None:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"no Hello within {self.config.hello_timeout_s:g}s of opening the stream")
            return
        if raw is grpc.aio.EOF:
            return
        hello = _parse_hello(raw)
        if hello is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message on a stream must be a BotMessage with a Hello")
            return
        problem = hello_problem(hello)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            return
        try:
            name, local = self.pool.admit(hello.name, hello.token, hello.protocol_version,
                                          on_bot_socket=on_bot_socket)
        except AdmissionError as error:
            await context.abort(error.code, error.message)
            return
        version = hello.version or (local.process.manifest.version if local else "")
        games = tuple(local.process.manifest.games) if local else tuple(hello.games)
        session = BotSession(context, name=name, version=version, games=games, omit_labels=hello.omit_labels,
                             process=local.process if local else None)
        context.add_done_callback(session.on_rpc_done)
        self.pool.offer(session, local)
        try:
            await session.closed
        finally:
            session.on_rpc_done()
            self.pool.withdraw(session, local)


MAX_HELLO_TEXT = 64  # characters of a Hello's name and version (they are shown wherever the bot is)
MAX_HELLO_GAMES = 64


def hello_problem(hello: bot_pb2.Hello) -> str:
    """What is wrong with a Hello's free-text fields, or ''."""
    if len(hello.name) > MAX_HELLO_TEXT or len(hello.version) > MAX_HELLO_TEXT:
        return f"a Hello's name and version may have at most {MAX_HELLO_TEXT} characters"
    if len(hello.games) > MAX_HELLO_GAMES or any(len(game) > 2 * MAX_HELLO_TEXT for game in hello.games):
        return f"a Hello lists at most {MAX_HELLO_GAMES} games, each a game or family name"
    if any(not character.isprintable() for character in hello.version):
        return "a Hello's version must be printable text"
    return ""


def _parse_hello(raw: bytes) -> Optional[bot_pb2.Hello]:
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    try:
        message = bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None
    return message.hello if message.WhichOneof("kind") == "hello" else None


def _peer_host(peer: str) -> str:
    """'ipv4:10.0.0.7:51234' -> 'ipv4:10.0.0.7' (streams are limited per host, not per connection)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return kind + ":" + rest.rsplit(":", 1)[0]
    if kind == "ipv4":
        return kind + ":" + rest.split(":", 1)[0]
    return peer

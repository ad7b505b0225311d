"""arena.v1.Bot/Play on the referee's side: a stream waits for its Hello, which the bot pool admits, and
is then held open for the match the pool seats it in (arena.rpc.session drives it).

Budgets that one peer cannot spend for another: each launched bot process has a socket of its own
(`listen_for`), with its own few connections and streams waiting to say Hello, so a bot that opens
streams by the thousand only blocks itself; over the network, streams that never say Hello are
limited per peer address (`max_pending_hellos_per_peer`; per /64 for IPv6, see arena.rpc.gate),
never by one budget shared by everybody. Each stream has `hello_timeout_s` to say it. A Hello's
free text is bounded.

Guessing a remote bot's token (48 hex digits: 192 bits, beyond any search) is slowed anyway, per address:
its first wrong tokens are free, each one after shuts the address out for a pause that doubles up to five
minutes (arena.admission.Strikes; a network, an IPv4 /24 or IPv6 /48, has four times the free ones). A
stream from a shut address, or from one opening more than `HELLOS_PER_S` streams a second after a burst,
is refused as it opens, its Hello never parsed, and its connection is closed at the gate, which refuses
the address's new connections while it is shut (and past a rate of new connections): so the streams of a
storm mostly never reach gRPC, and each refused one costs the referee a look-up. Another address is not
affected.
"""

from __future__ import annotations

import asyncio
import math
import time
import hmac
from functools import partial
from collections import Counter
from pathlib import Path
from typing import Any, Awaitable, Callable, Optional

import grpc
from google.protobuf.message import DecodeError

from arena.admission import ClientKey, Storms, Strikes
from arena.rpc.config import ServerConfig
from arena.rpc.generated import bot_pb2
from arena.rpc.manifest import VERSION, VERSION_RULE
from arena.rpc.pool import AdmissionError, BotPool, LocalProcess
from arena.rpc.session import MAX_MESSAGE_BYTES, TRANSPORT_MESSAGE_LIMIT, BotSession

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name  # "arena.v1.Bot"
PROCESS_CONNECTIONS = 8  # connections one launched process may hold to its own socket
PROCESS_PENDING_HELLOS = 16  # streams one launched process may hold open before saying Hello
HELLOS_PER_S = 20.0  # new streams one network address may open a second...
HELLO_BURST = 100  # ... after a burst of this many
DROP_AFTER_S = 0.1  # a refused address's connection is closed this long after the refusal is sent


async def refuse(context: grpc.aio.ServicerContext, reason: str, as_sent: Callable[[], None] | None = None) -> None:
    """End a stream that has just opened with RESOURCE_EXHAUSTED and `reason`, once its first message (the
    Hello, as bytes: never parsed) has arrived, or `DROP_AFTER_S` has passed: gRPC's client loses the status of
    a stream ended while its write is in flight, and reads "Internal error from Core" instead of the reason.
    `as_sent` is called as the refusal goes (a connection to close DROP_AFTER_S later: after it, not before)."""
    try:
        async with asyncio.timeout(DROP_AFTER_S):
            await context.read()
    except (TimeoutError, grpc.RpcError):
        pass
    if as_sent is not None:
        as_sent()
    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, reason)


class BotService:
    """The Bot service of one server, on its bot socket (launched bots) and its network port (remote ones)."""

    def __init__(self, config: ServerConfig, pool: BotPool, peer_of: Callable[[str], str] = lambda peer: peer,
                 vouch: Callable[[str], None] = lambda peer: None,
                 drop: Callable[[str], None] = lambda peer: None) -> None:
        self.config = config
        self.pool = pool
        self.peer_of = peer_of  # a transport peer -> the network address it stands for (arena.rpc.gate)
        self.vouch = vouch  # a transport peer proved who it is (an admitted bot): off the anonymous share
        self.drop = drop  # close a transport peer's network connection (an address shut out, or in a storm)
        self.pending_hellos: Counter[str] = Counter()
        self.strikes = Strikes()  # wrong tokens per network address (and network)
        # new network streams per address: one past its rate is shut out (its connections too), a pause that doubles
        self.storms = Storms(HELLOS_PER_S, HELLO_BURST)

    def handler(self, *, token: Optional[str] = None) -> grpc.GenericRpcHandler:
        """The generic handler of arena.v1.Bot/Play: for the network listener, or (`token`) for the socket
        of the one launched process holding that launch token."""
        own: Optional[Counter[str]] = Counter() if token is not None else None  # a socket's own count
        rate = StreamRate(STREAMS_PER_S, STREAM_BURST) if token is not None else None

        async def play(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
            if rate is not None and not rate.take():  # a process opening (or resetting) streams in a loop
                await refuse(context,
                             f"more than {STREAMS_PER_S} new streams a second on this bot's socket")
                return
            refusal = self.network_refusal(context.peer()) if token is None else ""
            if refusal:  # its connection goes too, once the refusal has had a moment to leave
                await refuse(context, refusal, as_sent=partial(self.drop_soon, context.peer()))
                return
            try:
                played = await self.serve_stream(context, token=token,
                                                 pending=self.pending_hellos if own is None else own)
            except asyncio.CancelledError:  # the bot hung up, or the server is stopping: the RPC is over
                return
            if played and rate is not None:  # the referee asked for that stream: it costs the process no rate
                rate.give_back()

        return grpc.method_handlers_generic_handler(BOT_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(play)})

    def network_refusal(self, grpc_peer: str) -> str:
        """Why a new network stream is refused as it opens (its address is shut out for wrong tokens, or opens
        streams too fast), or ''."""
        key = ClientKey.of_peer(self.peer_of(grpc_peer))
        shut = self.strikes.shut_for(key)
        if shut > 0:
            return (f"too many wrong tokens from {key.address}: try again in {math.ceil(shut)} s (a bot's token is "
                    "the one `arena bot register --remote` printed)")
        paused = self.storms.take(key)  # past its rate: shut out for a pause
        if paused <= 0:
            return ""
        return f"more than {HELLOS_PER_S:g} new streams a second from {key.address}: wait {math.ceil(paused)} s"

    def shut_for(self, key: ClientKey) -> float:
        """Seconds an address is still shut out, for wrong tokens or a storm of streams (the gate asks)."""
        return max(self.strikes.shut_for(key), self.storms.shut_for(key))

    def wrong_token(self, address: str, grpc_peer: str) -> None:
        """A wrong token came over the network from `address`: a strike; past the free ones, its connection goes."""
        if self.strikes.failed(ClientKey.of_peer(address)) > 0:
            self.drop_soon(grpc_peer)

    def drop_soon(self, grpc_peer: str) -> None:
        """Close the peer's connection once the refusal now being sent has had a moment to leave."""
        asyncio.get_running_loop().call_later(DROP_AFTER_S, self.drop, grpc_peer)

    async def listen_for(self, path: Path, token: str) -> Callable[[], Awaitable[None]]:
        """Serve arena.v1.Bot on a launched process's own socket, for that process alone; returns its closer."""
        server = grpc.aio.server(options=[("grpc.max_receive_message_length", TRANSPORT_MESSAGE_LIMIT),
                                          ("grpc.max_concurrent_streams", 2 * PROCESS_PENDING_HELLOS + 64),
                                          ("grpc.max_allowed_incoming_connections", PROCESS_CONNECTIONS),
                                          ("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers([self.handler(token=token)])
        if server.add_insecure_port(f"unix:{path}") == 0:
            raise OSError(f"cannot listen on the bot's socket {path}")
        await server.start()

        async def close() -> None:
            await server.stop(grace=None)

        return close

    async def serve_stream(self, context: grpc.aio.ServicerContext, *, token: Optional[str],
                           pending: Counter[str]) -> bool:
        """One stream from its Hello to its end; True when it was seated in a match."""
        on_bot_socket = token is not None
        peer = "its socket" if on_bot_socket else self.peer_of(context.peer())
        limit = PROCESS_PENDING_HELLOS if on_bot_socket else self.config.max_pending_hellos_per_peer
        if pending[peer] >= limit:
            await refuse(context, f"too many streams from {peer} waiting to say Hello (at most {limit}); say Hello "
                                  "on a stream as soon as it is open")
            return False
        raw = await self._first_message(context, peer, pending)
        hello = await self._hello_in(context, raw, token)
        if hello is None:
            return False
        admitted = await self._admitted(context, hello, peer, on_bot_socket)
        if admitted is None:
            return False
        name, local = admitted
        return await self._hold_session(context, hello, name, local)

    async def _first_message(self, context: grpc.aio.ServicerContext, peer: str, waiting: Counter[str]) -> Any:
        """The stream's first message (None past `hello_timeout_s`), `peer` counted as waiting for it meanwhile."""
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
        return raw

    async def _hello_in(self, context: grpc.aio.ServicerContext, raw: Any,
                        token: Optional[str]) -> Optional[bot_pb2.Hello]:
        """The valid Hello that `raw` (the first message) carries, or None once the stream is ended without one."""
        if raw is None:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"no Hello within {self.config.hello_timeout_s:g}s of opening the stream")
            return None
        if raw is grpc.aio.EOF:
            return None
        hello = _parse_hello(raw)
        if hello is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message on a stream must be a BotMessage with a Hello")
            return None
        problem = hello_problem(hello)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            return None
        if token is not None and not hmac.compare_digest(hello.token.encode(), token.encode()):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "this socket is for one bot process: say Hello with the token in ARENA_TOKEN_FILE")
            return None
        return hello

    async def _admitted(self, context: grpc.aio.ServicerContext, hello: bot_pb2.Hello, peer: str,
                        on_bot_socket: bool) -> Optional[tuple[str, Optional[LocalProcess]]]:
        """The pool's (bot name, local process or None) for a Hello, or None once the stream is ended refused."""
        try:
            name, local = self.pool.admit(hello.name, hello.token, hello.protocol_version,
                                          on_bot_socket=on_bot_socket)
        except AdmissionError as error:
            if error.code == grpc.StatusCode.UNAUTHENTICATED and not on_bot_socket:
                self.wrong_token(peer, context.peer())
            await context.abort(error.code, error.message)
            return None
        if not on_bot_socket:
            self.vouch(context.peer())
        return name, local

    async def _hold_session(self, context: grpc.aio.ServicerContext, hello: bot_pb2.Hello, name: str,
                            local: Optional[LocalProcess]) -> bool:
        """Offer an admitted stream to the pool and hold it until it closes; True when it was seated in a match."""
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
        return session.started


STREAMS_PER_S = 20  # new streams (Hellos) a launched process may open on its socket, a second...
STREAM_BURST = 100  # ... after a burst of this many (a bot with many matches at once opens one each); a stream
# seated in a match gives its place back when it ends, so a bot playing short matches back to back is never refused


class StreamRate:
    """A token bucket: `burst` at once, then `per_s` a second; `give_back` returns one."""

    def __init__(self, per_s: float, burst: int) -> None:
        self.per_s, self.burst = per_s, burst
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        """One stream, if the bucket has one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_s)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def give_back(self) -> None:
        """A stream taken was one the referee asked for (it played a match): its place is free again."""
        self.tokens = min(self.burst, self.tokens + 1)


MAX_HELLO_TEXT = 64  # characters of a Hello's name and version (they are shown wherever the bot is)
MAX_HELLO_GAMES = 64


def hello_problem(hello: bot_pb2.Hello) -> str:
    """What is wrong with a Hello's free-text fields, or ''."""
    if len(hello.name) > MAX_HELLO_TEXT or len(hello.version) > MAX_HELLO_TEXT:
        return f"a Hello's name and version may have at most {MAX_HELLO_TEXT} characters"
    if len(hello.games) > MAX_HELLO_GAMES or any(len(game) > 2 * MAX_HELLO_TEXT for game in hello.games):
        return f"a Hello lists at most {MAX_HELLO_GAMES} games, each a game or family name"
    if hello.version and not VERSION.match(hello.version):
        return f"a Hello's {VERSION_RULE}"
    return ""


def _parse_hello(raw: bytes) -> Optional[bot_pb2.Hello]:
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    try:
        message = bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None
    return message.hello if message.WhichOneof("kind") == "hello" else None



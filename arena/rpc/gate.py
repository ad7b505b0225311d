"""The referee's network port: a gate in front of the gRPC server that no address, and no crowd of addresses,
can exhaust for those who matter.

gRPC lets a server cap its connections in all, but not per address, and a connection that opens no
stream costs a file descriptor until it is dropped. So the network port is this gate: it accepts
connections, refuses at once those beyond `per_address` from one address (one IPv4 address, or one
IPv6 /64) and beyond `per_network` from one network (an IPv4 /24, an IPv6 /48), and passes the bytes
of the others, untouched (TLS included), to the gRPC server listening on a private Unix socket.

A connection is anonymous until the server vouches for it (`vouch`: a call with the admin token, a
bot's accepted Hello). Anonymous connections (watchers, health checks, anyone) may fill only the
total less a reserve; when that share is full, a new connection still gets in and the oldest
anonymous one is closed to make room, so the operator's admin calls and remote bots always reach the
referee however many addresses crowd it. An anonymous connection is closed after
`anonymous_age_s`, whatever it streams: it never holds its place forever. Each connection reaches gRPC from a socket bound
at a path of its own, so the server can still tell, per stream, which address it came from
(`peer_of`): the per-address budgets of streams waiting to say Hello rest on it. Connections with
no stream are closed by gRPC after `grpc.max_connection_idle_ms` (set by the server).

The descriptor budget: the process's open-file limit is raised to its hard limit at start
(arena.admission.raise_open_file_limit), and the gate keeps `reserve` descriptors free for the referee's
own work (bot processes, their sockets and pipes, records, the database): each gated connection costs
three (its socket, the socket to gRPC, and gRPC's end of that). The connections are counted in a budget
of arena.admission, the anonymous ones open to eviction.

What a connection costs before anyone knows who it is (a TLS handshake, HTTP/2's set-up) is spent only on
addresses in good standing: a connection is refused at once, before a byte is read, from an address (or
network) `shut` out for guessing tokens (arena.rpc.bot_service), and from an address opening connections
faster than `CONNECTIONS_PER_S` after a burst of twice its cap (at least 64: a reconnect storm). `drop` closes
a connection whose address the Bot service refused (arena.rpc.bot_service), so that what it would send next
never reaches gRPC.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

from arena.admission import Budget, Caps, ClientKey, Rates, raise_open_file_limit

RESERVED_DESCRIPTORS = 512  # kept free for the referee's own work
DESCRIPTORS_PER_CONNECTION = 3
CHUNK = 1 << 16
ANONYMOUS_AGE_S = 900.0  # an anonymous connection is closed after this, whatever it streams
CONNECTIONS_PER_S = 16.0  # new connections an address may open a second, after a burst (2 * per_address, >= 64)


class ConnectionGate:
    """Accepts connections on the network port and forwards them to gRPC's private socket (see above)."""

    def __init__(self, inner_socket: Path, client_dir: Path, *, per_address: int, per_network: Optional[int] = None,
                 total: Optional[int] = None, reserve: Optional[int] = None,
                 anonymous_age_s: float = ANONYMOUS_AGE_S,
                 shut: Optional[Callable[[ClientKey], float]] = None) -> None:
        self.inner_socket = inner_socket
        self.shut = shut  # seconds an address is still shut out (wrong tokens, a storm of streams); None: never
        self.connection_rate = Rates(CONNECTIONS_PER_S, max(64, 2 * per_address))
        self.client_dir = client_dir
        self.per_address = per_address
        self.per_network = per_network if per_network is not None else 4 * per_address
        limit = raise_open_file_limit()
        room = max(16, (limit - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_CONNECTION)
        self.total = min(total, room) if total is not None else room
        self.reserve = reserve if reserve is not None else max(8, self.total // 10)  # kept for vouched connections
        self.anonymous_age_s = anonymous_age_s
        self.refused = 0  # connections refused at once, over a budget
        self.accepted = 0  # connections forwarded
        # the connections being forwarded; the anonymous ones are open to eviction (by gRPC's peer name)
        self._budget = Budget(Caps(per_address=self.per_address, per_network=self.per_network, total=self.total,
                                   reserve=self.reserve))
        self._peers: dict[str, ClientKey] = {}  # gRPC's peer name of a forwarded connection -> its client
        self._closers: dict[str, Callable[[], None]] = {}  # ... -> how to close it (`drop`)
        self._numbers = itertools.count(1)
        self._server: Optional[asyncio.AbstractServer] = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: Optional[asyncio.Task[None]] = None

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port; returns the port."""
        self.client_dir.mkdir(mode=0o700, exist_ok=True)
        self._server = await asyncio.start_server(self._accept, host, port, reuse_address=True)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        return int(self._server.sockets[0].getsockname()[1])

    def peer_of(self, grpc_peer: str) -> str:
        """The address a stream came from (for a stream that did not come through the gate: itself)."""
        client = self._peers.get(grpc_peer)
        return client.address if client is not None else grpc_peer

    def drop(self, grpc_peer: str) -> None:
        """Close a forwarded connection now (its address is shut out, or opens streams in a storm): what it
        would send next costs gRPC nothing, and its reconnections meet `_shut_out` first."""
        close = self._closers.get(grpc_peer)
        if close is not None:
            close()

    def vouch(self, grpc_peer: str) -> None:
        """The server knows who is on this connection (the admin, a bot it admitted): it is no longer anonymous."""
        self._budget.spare(grpc_peer)

    @property
    def connections(self) -> int:
        """Connections being forwarded now."""
        return self._budget.count

    @property
    def anonymous(self) -> int:
        """Of them, those nobody has vouched for."""
        return self._budget.evictable

    @property
    def evicted(self) -> int:
        """Anonymous connections closed to make room, or for their age."""
        return self._budget.evicted

    @property
    def _by_address(self) -> Counter[str]:
        """Connections being forwarded now, per address (what the hostile tests watch)."""
        return self._budget.by_address

    def _shut_out(self, client: ClientKey) -> bool:
        """Whether a connection from `client` is refused before anything else: its address (or network) is shut
        out for guessing tokens, or it opens connections faster than its rate."""
        if self.shut is not None and self.shut(client) > 0:
            return True
        return not self.connection_rate.take(client.address)

    async def _sweep(self) -> None:
        """Close anonymous connections past their age, now and then."""
        while True:
            await asyncio.sleep(min(30.0, self.anonymous_age_s / 2))
            self._budget.evict_older_than(time.monotonic() - self.anonymous_age_s)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = ClientKey.of(str(peer[0]) if peer else "unknown")
        # over its address's or its network's cap: refused; when the gate is full, or its anonymous share is, the
        # oldest anonymous connection makes room (whoever this one is, it may be the operator's), and only with
        # none to close (all vouched for) is this one refused
        if self._shut_out(client) or self._budget.admit(client) is not None:
            self.refused += 1
            writer.transport.abort()
            return
        self.accepted += 1
        path = self.client_dir / str(next(self._numbers))
        grpc_peer = f"unix:{path}"
        # counted before the first await: connections arriving together see each other
        self._peers[grpc_peer] = client
        self._closers[grpc_peer] = writer.transport.abort
        self._budget.open_to_eviction(grpc_peer, writer.transport.abort, since=time.monotonic())
        inner: Optional[socket.socket] = None
        try:
            inner = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            inner.bind(str(path))
            inner.setblocking(False)
            await asyncio.get_running_loop().sock_connect(inner, str(self.inner_socket))
            inner_reader, inner_writer = await asyncio.open_unix_connection(sock=inner)
            inner = None
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                await asyncio.gather(_pipe(reader, inner_writer), _pipe(inner_reader, writer))
            finally:
                if task is not None:
                    self._tasks.discard(task)
        except (OSError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            if inner is not None:
                inner.close()
            self._peers.pop(grpc_peer, None)
            self._closers.pop(grpc_peer, None)
            self._budget.spare(grpc_peer)
            path.unlink(missing_ok=True)
            self._budget.leave(client)

    async def close(self) -> None:
        """Stop accepting and drop every forwarded connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    """Copy bytes until the source ends, then end the target."""
    try:
        while chunk := await source.read(CHUNK):
            target.write(chunk)
            await target.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        try:
            target.close()
        except OSError:
            pass
